"""sm_90's ldmatrix fragment loads and cp.async copies (issue #38), through the ldmatrix pass and
direct-to-lds + lower-copies.

* the ldmatrix table is the PTX ISA's (spot checks of its figure, with and without .trans) and
  mma.sync's A and B fragments are 8x8 matrices of it, read as stored or transposed;
* the interpreter against numpy at odd shapes (hypothesis): ldmatrix alone, with cp.async at 2, 3
  and 4 stages (past 48 KiB too), the mma.sync default (mma-sync-128x256), both 16-bit types, A column-major and B transposed;
* planted bugs FAIL: a fragment swap in the lowering's addresses, one in the interpreter's table,
  a missing or too lenient cp.async.wait_group, a wait after its barrier;
* bank conflicts: none for ldmatrix and cp.async with the default's swizzle or a 16-byte pad,
  2- to 8-way without; the cost model counts what the interpreter executes;
* located refusals: a misaligned ldmatrix row, a fragment layout that is not 8x8 matrices.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerAttr, i32
from xdsl.rewriter import InsertPoint, Rewriter

import gemmc
from gemmc.cost.counts import count
from gemmc.cost.kernel import read_kernel
from gemmc.dialects.nvgpu import DeviceAsyncWaitOp, LdMatrixOp
from gemmc.support.named_pipelines import NAMED_PIPELINES
from gemmc.interp.common import InterpError
from gemmc.support.diagnostics import GemmcError
from gemmc.target.arch import get_arch, get_matrix_instr
from gemmc.target.ldmatrix import Pieces, decompose, deliver
from gemmc.transforms.lds_access import accesses, set_indices

SM90 = get_arch("sm_90")
F16 = get_matrix_instr(SM90, "mma_m16n8k16_f32_f16")
TILED = ("gemm-to-kernel,lds-tiling{{block-m=64 block-n=64 block-k={bk}}},register-tiling{{thread-m=4 thread-n=4}},"
         "matrix-cores{{waves-m=2 waves-n=2}},ldmatrix,vectorize{{width=8}},")
PIPELINES = {
    "ldmatrix": TILED.format(bk=32) + "double-buffer{stage=lds},lower-copies,pad-lds{pad=8}",
    "ldmatrix x2": TILED.format(bk=32).replace("block-n=64", "block-n=96").replace("waves-n=2", "waves-n=4")
                   + "direct-to-lds{fallback=true},double-buffer{stage=lds},lower-copies,pad-lds{pad=8}",  # B: x4 + x2
    "cp.async x2": TILED.format(bk=32) + "direct-to-lds{fallback=true},double-buffer{stage=lds},lower-copies,pad-lds{pad=8}",
    "cp.async x3": TILED.format(bk=32) + "direct-to-lds{fallback=true},multi-buffer{factor=3},pipeline{stages=3},"
                                         "lower-copies,swizzle-lds{strict=false rows=0}",
    "cp.async x4": TILED.format(bk=16) + "direct-to-lds{fallback=true},multi-buffer{factor=4},pipeline{stages=4},"
                                         "lower-copies,pad-lds{pad=8}",
    "cp.async x4 dynamic": TILED.format(bk=64) + "direct-to-lds{fallback=true},multi-buffer{factor=4},pipeline{stages=4},"
                                                "lower-copies,pad-lds{pad=8}",  # 72 KiB: dynamic shared memory
    "default": NAMED_PIPELINES["mma-sync-128x256"],  # (sm_90's mma.sync default before wgmma's)
}


def source(t: str = "f16", col_major: bool = False, b_transposed: bool = False) -> str:
    b = "B: {t}[N, K]" if b_transposed else "B: {t}[K, N]"
    return (f"kernel g {{ dim M, N, K  A: {t}[M, K]{' col_major' if col_major else ''}  {b.format(t=t)}  "
            f"C: f32[M, N]  acc f32  C = A @ {'B.T' if b_transposed else 'B'} }}")


def lowered(pipeline: str, dims: dict, t: str = "f16", col_major: bool = False, b_transposed: bool = False):
    return gemmc.lower(gemmc.parse(source(t, col_major, b_transposed), defines=dims), pipeline, SM90)


# -- the PTX ISA's table -------------------------------------------------------------------


def test_ldmatrix_delivers_the_ptx_isa_fragments():
    """PTX ISA, ldmatrix: lane l receives row l / 4, columns 2 (l % 4) and + 1 of each matrix, in its
    register q (the lower column in the low half); with .trans rows 2 (l % 4) and + 1 of column l / 4."""
    rows = np.arange(4 * 64).reshape(1, 4, 8, 8)  # element (q, r, c) holds q * 64 + r * 8 + c
    plain, trans = deliver(rows, False)[0], deliver(rows, True)[0]
    assert plain[5].tolist() == [q * 64 + 8 + 2 + h for q in range(4) for h in (0, 1)]  # lane 5: row 1, cols 2, 3
    assert plain[31, 6:].tolist() == [3 * 64 + 7 * 8 + 6, 3 * 64 + 7 * 8 + 7]
    assert trans[5].tolist() == [q * 64 + (2 + h) * 8 + 1 for q in range(4) for h in (0, 1)]  # rows 2, 3 of col 1
    for out in (plain, trans):  # every element of every matrix, once
        assert sorted(out.ravel().tolist()) == list(range(4 * 64))


def test_mma_fragments_are_ldmatrix_matrices():
    """m16n8k16's A is four 8x8 matrices (rows 0-7 / 8-15 by k 0-7 / 8-15, a0a1, a2a3, a4a5, a6a7), its
    B two (k 0-7, 8-15): read as stored from k-contiguous tiles, .trans from A^T[k][m] and B[k][n]."""
    assert decompose(F16.a, True, True) == Pieces(False, (0, 8, 0, 8), (0, 0, 8, 8))
    assert decompose(F16.a, True, False) == Pieces(True, (0, 0, 8, 8), (0, 8, 0, 8))
    assert decompose(F16.b, False, True) == Pieces(False, (0, 0), (0, 8))
    assert decompose(F16.b, False, False) == Pieces(True, (0, 8), (0, 0))
    wmma = get_matrix_instr(get_arch("gfx1100"), "v_wmma_f32_16x16x16_f16")
    assert "not 8x8 matrices" in decompose(wmma.a, True, True)  # a lane's 16 k's of one row


# -- against numpy -------------------------------------------------------------------------


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(m=st.integers(1, 150), n=st.integers(1, 150), k=st.integers(1, 100), t=st.sampled_from(["f16", "bf16"]),
       layout=st.sampled_from([(False, False), (True, False), (False, True)]), name=st.sampled_from(sorted(PIPELINES)))
def test_pipelines_pass_at_odd_shapes(m, n, k, t, layout, name):
    module = lowered(PIPELINES[name], {"M": m, "N": n, "K": k}, t, *layout)
    r = gemmc.check(module, SM90, {})
    assert r.passed, r.summary()


@pytest.mark.parametrize("name", sorted(PIPELINES))
@pytest.mark.parametrize("dims", [{"M": 72, "N": 136, "K": 40}, {"M": 128, "N": 64, "K": 200}])
def test_cp_async_pipelines_pass(name, dims):
    """Rows that are multiples of 16 bytes: every copy a cp.async, edge chunks read nothing (src-size 0)."""
    module = lowered(PIPELINES[name], dims)
    ops = {op.name for op in module.walk()}
    assert "nvgpu.ldmatrix" in ops and ("nvgpu.device_async_copy" in ops) == (name != "ldmatrix")
    r = gemmc.check(module, SM90, {})
    assert r.passed, r.summary()
    if name != "ldmatrix":  # no LDS store instruction: cp.async writes shared memory itself
        assert r.stats.lds_store_instrs == 0


# -- planted bugs ---------------------------------------------------------------------------


def test_planted_swap_in_the_lowering_fails(monkeypatch):
    """A's registers 1 and 2 (rows 8-15 / k 0-7 and rows 0-7 / k 8-15) addressed the other way round."""
    from gemmc.transforms import ldmatrix_frags

    def swapped(layout, k_is_col, k_contiguous, *more):
        p = decompose(layout, k_is_col, k_contiguous, *more)
        if len(p.rows) == 4:
            p = Pieces(p.trans, (p.rows[0], p.rows[2], p.rows[1], p.rows[3]), (p.cols[0], p.cols[2], p.cols[1], p.cols[3]))
        return p

    monkeypatch.setattr(ldmatrix_frags, "decompose", swapped)
    assert not gemmc.check(lowered(PIPELINES["ldmatrix"], {"M": 64, "N": 64, "K": 48}), SM90, {}).passed


def test_planted_swap_in_the_interpreter_fails(monkeypatch):
    """The interpreter's table with registers 1 and 2 of an x4 exchanged (A's rows 8-15 / k 0-7 for its
    rows 0-7 / k 8-15): the kernel is right, the semantics wrong, and the check says so (the table
    decides C; exchanging the halves of every register would not, as A's and B's k's move alike)."""
    from gemmc.interp import nvgpu

    def registers_swapped(rows, trans):
        out = deliver(rows, trans)
        if out.shape[-1] == 8:
            out = out[..., [0, 1, 4, 5, 2, 3, 6, 7]]
        return out

    monkeypatch.setattr(nvgpu, "deliver", registers_swapped)
    assert not gemmc.check(lowered(PIPELINES["ldmatrix"], {"M": 64, "N": 64, "K": 48}), SM90, {}).passed


def _waits(module):
    return [op for op in module.walk() if isinstance(op, DeviceAsyncWaitOp)]


@pytest.mark.parametrize("name", ["cp.async x2", "cp.async x3"])
def test_missing_wait_fails(name):
    module = lowered(PIPELINES[name], {"M": 64, "N": 64, "K": 96})
    assert gemmc.check(module, SM90, {}).passed
    wait = _waits(module)[-1]  # the K loop's
    wait.detach()
    wait.erase()
    with pytest.raises(InterpError, match="while a cp.async into it is in flight"):
        gemmc.check(module, SM90, {})


def test_wait_leaving_one_group_too_many_fails():
    module = lowered(PIPELINES["cp.async x3"], {"M": 64, "N": 64, "K": 96})
    for wait in _waits(module):
        wait.properties["numGroups"] = IntegerAttr(wait.groups + 1, i32)
    with pytest.raises(InterpError, match="in flight"):
        gemmc.check(module, SM90, {})


def test_wait_after_its_barrier_races():
    """The copies land after the barrier that should publish them: another thread reads them in the
    same barrier interval."""
    module = lowered(PIPELINES["cp.async x2"], {"M": 64, "N": 64, "K": 96})
    wait = _waits(module)[-1]
    barrier = wait.next_op
    wait.detach()
    Rewriter.insert_op(wait, InsertPoint.after(barrier))
    with pytest.raises(InterpError, match="LDS race"):
        gemmc.check(module, SM90, {})


# -- bank conflicts, counts -----------------------------------------------------------------


@pytest.mark.parametrize("layout,conflicts", [("pad-lds{pad=8}", False), ("swizzle-lds{rows=0}", False), ("", True)])
def test_ldmatrix_and_cp_async_bank_conflicts(layout, conflicts):
    """Each 8x8 matrix's rows in one phase: 64-byte rows (A[m][32]) put 2 on a bank group, 256-byte ones
    (B[32][128]) 8; a 16-byte pad or the XOR swizzle over the bank line spreads them."""
    p = (TILED.format(bk=32) + "direct-to-lds,double-buffer{stage=lds},lower-copies," + layout).rstrip(",")
    p = p.replace("block-n=64", "block-n=128").replace("waves-n=2", "waves-n=4")
    r = gemmc.check(lowered(p, {"M": 128, "N": 128, "K": 64}), SM90, {})
    assert r.passed and (r.stats.lds_bank_conflicts > 0) == conflicts


@pytest.mark.parametrize("name", ["cp.async x3", "default"])
def test_counts_match_interpreter(name):
    module = lowered(PIPELINES[name], {"M": 136, "N": 72, "K": 48})
    mine = count(read_kernel(module, {}), SM90).stats_dict()
    ran = gemmc.check(module, SM90, {}).stats.as_dict()
    skip = {"valu_int_instrs", "flops"}  # block ids as lane VALU; the matrix instructions' flops
    assert {k: (mine[k], ran[k]) for k in mine if k in ran and k not in skip and mine[k] != ran[k]} == {}


# -- refusals ---------------------------------------------------------------------------------


def test_misaligned_ldmatrix_row_is_refused():
    """An ldmatrix row 4 elements (8 bytes) off its 16-byte boundary: a located interpreter error."""
    module = lowered(PIPELINES["ldmatrix"], {"M": 64, "N": 64, "K": 64})
    op = next(o for o in module.walk() if isinstance(o, LdMatrixOp))
    access = next(a for a in accesses(op.srcMemref.owner, "test") if a.op is op)
    four = arith.ConstantOp(IntegerAttr(4, op.indices[-1].type))
    shifted = arith.AddiOp(op.indices[-1], four.result)
    Rewriter.insert_op([four, shifted], InsertPoint.before(op))
    set_indices(access, [*access.indices[:-1], shifted.result])
    with pytest.raises(InterpError, match="misaligned nvgpu.ldmatrix of %tile_a: byte .* not a multiple of 16"):
        gemmc.check(module, SM90, {})


def test_a_layout_that_is_not_8x8_matrices_is_refused(monkeypatch):
    from gemmc.passes import ldmatrix as ldmatrix_pass

    monkeypatch.setattr(ldmatrix_pass, "operands", lambda *a: "mma_m16n8k16_f32_f16's A: planted")
    with pytest.raises(GemmcError, match="ldmatrix: ldmatrix cannot read the fragments: mma_m16n8k16_f32_f16's A: "
                                         "planted"):
        lowered(PIPELINES["ldmatrix"], {"M": 64, "N": 64, "K": 64})


def test_layout_shows_the_ldmatrix_reads(capsys):
    from gemmc.driver.cli import main

    assert main(["layout", "mma_m16n8k16_f32_f16", "--arch", "sm_90"]) == 0
    out = capsys.readouterr().out
    assert "A from A[i][k]: x4, as stored; 0:(0,0) 1:(8,0) 2:(0,8) 3:(8,8)" in out
    assert "B from B[k][j]: x2 per fragment, .trans; 0:(0,0) 1:(8,0)" in out
