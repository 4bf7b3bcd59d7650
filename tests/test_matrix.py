"""Matrix cores: instruction layouts, lane-accurate semantics, the lowerings, direct-to-LDS.

* `gemmc layout`: the CSV facts of the ISA documents (CDNA accumulator tables, RDNA3
  replication, RDNA4 halves), every element held, error for an instruction the arch lacks;
* the interpreter's amdgpu.mfma / amdgpu.wmma against numpy for every instruction of every
  arch, and for the lowered pipelines on random shapes (hypothesis);
* a permuted layout gives a wrong C (the interpreter gathers from lanes, it does not trust
  the IR);
* gather_to_lds: the per-lane gather into consecutive LDS words, the uniform-base check;
* the emitted HIP compiles for each arch with v_mfma / v_wmma in the K loop and no scratch.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gemmc
from gemmc.driver import cli
from gemmc.target.arch import ARCHS, Layout, Term, get_matrix_instr
from gemmc.support.arith_semantics import to_fp8
from gemmc.support.diagnostics import GemmcError
from gemmc.dialects.amdgpu import GatherToLDSOp
from gemmc.interp.accuracy import UNIT_ROUNDOFF
from gemmc.interp.check import Rounding
from gemmc.interp.common import InterpError, to_bf16
from gemmc.interp.matrix import multiply
from gemmc.driver.layout import HEADER, csv_text, rows

AMD = [a.name for a in ARCHS.values() if a.matrix_instrs and a.vendor == "amd"]  # sm_90: tests/test_sm90_matrix.py
INSTRS = [(a.name, i.mnemonic) for a in ARCHS.values() for i in a.matrix_instrs]


def layout_csv(instr: str, arch: str, capsys) -> list[dict]:
    assert cli.main(["layout", instr, "--arch", arch, "--csv"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == HEADER
    keys = HEADER.split(",")
    return [dict(zip(keys, [v if k == "matrix" else int(v) for k, v in zip(keys, line.split(","))]))
            for line in lines[1:]]


def holder(table: list[dict], matrix: str, row: int, col: int) -> list[tuple[int, int, int, int]]:
    """(lane, gpr, bit_lo, bit_hi) of every copy of one element."""
    return [(r["lane"], r["gpr"], r["bit_lo"], r["bit_hi"]) for r in table
            if r["matrix"] == matrix and r["row"] == row and r["col"] == col]


# -- layouts ------------------------------------------------------------------------------


def test_layout_csv_mfma_32x32x8_f16(capsys):
    t = layout_csv("v_mfma_f32_32x32x8_f16", "gfx942", capsys)
    assert len(t) == 32 * 8 + 8 * 32 + 32 * 32
    # A[i][k]: lane i + 32 (k / 4), k % 4 packed two per register.
    assert holder(t, "A", 5, 6) == [(37, 1, 0, 15)]
    assert holder(t, "A", 31, 3) == [(31, 1, 16, 31)]
    assert holder(t, "B", 7, 9) == [(41, 1, 16, 31)]
    # D: the CDNA accumulator table: rows 0-3 lanes 0-31 regs 0-3, rows 4-7 lanes 32-63 ...
    assert holder(t, "D", 4, 3) == [(35, 0, 0, 31)]
    assert holder(t, "D", 9, 0) == [(0, 5, 0, 31)]
    assert holder(t, "D", 31, 31) == [(63, 15, 0, 31)]


def test_layout_csv_gfx90a_spelling_and_f32(capsys):
    t = layout_csv("v_mfma_f32_32x32x8f16", "gfx90a", capsys)
    assert holder(t, "A", 5, 6) == [(37, 1, 0, 15)]
    t = layout_csv("v_mfma_f32_16x16x4_f32", "gfx942", capsys)
    assert holder(t, "A", 3, 2) == [(35, 0, 0, 31)]  # lane i + 16 k
    assert holder(t, "D", 6, 5) == [(21, 2, 0, 31)]  # lane 16 (i / 4) + j, reg i % 4


def test_layout_csv_wmma_rdna3_replicates(capsys):
    t = layout_csv("v_wmma_f32_16x16x16_f16", "gfx1100", capsys)
    assert len(t) == 2 * 16 * 16 + 2 * 16 * 16 + 16 * 16
    assert holder(t, "A", 3, 5) == [(3, 2, 16, 31), (19, 2, 16, 31)]
    assert holder(t, "B", 5, 3) == [(3, 2, 16, 31), (19, 2, 16, 31)]
    assert holder(t, "D", 5, 2) == [(18, 2, 0, 31)]  # odd rows in lanes 16-31, register i / 2
    assert holder(t, "D", 4, 2) == [(2, 2, 0, 31)]


def test_layout_csv_wmma_rdna4_halves(capsys):
    t = layout_csv("v_wmma_f32_16x16x16_bf16", "gfx1201", capsys)
    assert len(t) == 3 * 16 * 16
    # AMD's Matrix Instruction Calculator (rdna4): lanes 0-15 hold k 0-3 (registers 0-1) and
    # 8-11 (registers 2-3), lanes 16-31 k 4-7 and 12-15.
    assert holder(t, "A", 0, 4) == [(16, 0, 0, 15)]
    assert holder(t, "A", 3, 9) == [(3, 2, 16, 31)]
    assert holder(t, "A", 3, 6) == [(19, 1, 0, 15)]
    assert holder(t, "A", 3, 15) == [(19, 3, 16, 31)]
    assert holder(t, "B", 13, 5) == [(21, 2, 16, 31)]
    assert holder(t, "D", 9, 2) == [(18, 1, 0, 31)]  # rows 8-15 in lanes 16-31, register i % 8


def test_layout_csv_wmma_f16_accumulators(capsys):
    """RDNA3: D row 2g + L/16 in the low half of register g (OPSEL 0); RDNA4: rows
    8 (L/16) + g packed two to a register."""
    t = layout_csv("v_wmma_f16_16x16x16_f16", "gfx1100", capsys)
    assert holder(t, "D", 5, 2) == [(18, 2, 0, 15)]
    assert holder(t, "A", 3, 5) == [(3, 2, 16, 31), (19, 2, 16, 31)]
    t = layout_csv("v_wmma_f16_16x16x16_f16", "gfx1201", capsys)
    assert holder(t, "D", 9, 2) == [(18, 0, 16, 31)]
    assert holder(t, "D", 6, 0) == [(0, 3, 0, 15)]


@pytest.mark.parametrize("arch,name", INSTRS)
def test_every_element_is_held(arch, name):
    instr = get_matrix_instr(ARCHS[arch], name)
    table = rows(instr)
    for matrix, n_rows, n_cols, regs in (("A", instr.m, instr.k, instr.a_regs), ("B", instr.k, instr.n, instr.b_regs),
                                         ("D", instr.m, instr.n, instr.c_regs)):
        held = [(r.row, r.col) for r in table if r.matrix == matrix]
        copies = instr.replicas if matrix != "D" else 1
        assert sorted(set(held)) == [(i, j) for i in range(n_rows) for j in range(n_cols)]
        assert len(held) == copies * n_rows * n_cols
        assert max(r.gpr for r in table if r.matrix == matrix) == regs - 1
        slots = {(r.lane, r.gpr, r.bit_lo) for r in table if r.matrix == matrix}
        assert len(slots) == len(held)  # no two elements in one place


def test_layout_grid_and_unknown_instruction(capsys):
    assert cli.main(["layout", "v_mfma_f32_16x16x16_f16", "--arch", "gfx942"]) == 0
    out = capsys.readouterr().out
    assert "__builtin_amdgcn_mfma_f32_16x16x16f16" in out and "A[i][k]" in out and "37:1h" in out
    assert cli.main(["layout", "v_mfma_f32_32x32x8_f16", "--arch", "gfx1100"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert err == ("error: gfx1100 has no matrix instruction 'v_mfma_f32_32x32x8_f16'; its instructions: "
                   "v_wmma_f32_16x16x16_f16, v_wmma_f32_16x16x16_bf16, v_wmma_f16_16x16x16_f16, "
                   "v_wmma_bf16_16x16x16_bf16, v_wmma_i32_16x16x16_iu8, v_wmma_i32_16x16x16_iu4")


def test_layout_plot(tmp_path):
    pytest.importorskip("matplotlib")
    path = tmp_path / "l.png"
    assert cli.main(["layout", "v_wmma_f32_16x16x16_f16", "--arch", "gfx1201", "--plot", str(path)]) == 0
    assert path.read_bytes()[:4] == b"\x89PNG"


# -- the instructions' semantics ---------------------------------------------------------------


def scatter(layout: Layout, mat: np.ndarray, waves: int) -> np.ndarray:
    """Per-lane operands (waves, lanes, items) holding `mat` (waves, rows, cols) in `layout`."""
    lanes = np.arange(layout.lanes)[:, None]
    items = np.arange(layout.items)[None, :]
    shape = (layout.lanes, layout.items)
    _, r, c = (np.broadcast_to(np.asarray(x), shape) for x in layout.at(lanes, items))
    return mat[:, r, c]


@pytest.mark.parametrize("arch,name", INSTRS)
def test_instruction_matches_numpy(arch, name):
    instr = get_matrix_instr(ARCHS[arch], name)
    rng = np.random.default_rng(1)
    waves = 3
    a = rng.uniform(-1, 1, (waves, instr.m, instr.k))
    b = rng.uniform(-1, 1, (waves, instr.k, instr.n))
    c = rng.uniform(-1, 1, (waves, instr.m, instr.n)).astype(np.float32)
    if instr.out_type == "i32":  # integer: signed bytes (nibbles), an i32 C near its ends (the sum wraps)
        lo = 2 ** (instr.in_bits - 1)
        a = rng.integers(-lo, lo, (waves, instr.m, instr.k))
        b = rng.integers(-lo, lo, (waves, instr.k, instr.n))
        c = rng.integers(-2**31, 2**31, (waves, instr.m, instr.n))
        d = multiply(instr, scatter(instr.a, a, waves), scatter(instr.b, b, waves), scatter(instr.d, c, waves))
        want = ((a @ b + c + 2**31) % 2**32 - 2**31)
        got = np.zeros_like(want)
        _, r, col = (np.broadcast_to(np.asarray(x), (instr.d.lanes, instr.d.items))
                     for x in instr.d.at(np.arange(instr.d.lanes)[:, None], np.arange(instr.d.items)[None, :]))
        got[:, r, col] = d
        np.testing.assert_array_equal(got, want)
        return
    if instr.in_type == "f16":
        a, b = a.astype(np.float16), b.astype(np.float16)
    elif instr.in_bits == 8:  # FP8: A and B in their formats (fp8 x bf8 takes two)
        a, b = to_fp8(a, instr.in_type), to_fp8(b, instr.b_in_type)
    else:
        a, b = to_bf16(a), to_bf16(b)
    if instr.out_type != "f32":
        c = (c.astype(np.float16) if instr.out_type == "f16" else to_bf16(c))
    d = multiply(instr, scatter(instr.a, a, waves), scatter(instr.b, b, waves), acc_vector(instr, c, waves))
    lanes = np.arange(instr.d.lanes)[:, None]
    items = np.arange(instr.d.items)[None, :]
    _, r, col = (np.broadcast_to(np.asarray(x), (instr.d.lanes, instr.d.items)) for x in instr.d.at(lanes, items))
    got = np.zeros((waves, instr.m, instr.n))
    got[:, r, col] = d[..., ::instr.d_stride]
    want = a.astype(np.float64) @ b.astype(np.float64) + c
    tol = {"f32": 1e-6, "f16": 2 ** -11, "bf16": 2 ** -8}[instr.out_type]
    np.testing.assert_allclose(got, want, rtol=tol, atol=10 * tol)


def acc_vector(instr, c: np.ndarray, waves: int) -> np.ndarray:
    """Per-lane accumulator vectors holding `c`: item g at element g * d_stride (RDNA3's
    16-bit accumulators), the other elements garbage that must not be read."""
    items = scatter(instr.d, c, waves)
    out = np.full(items.shape[:2] + (instr.acc_len,), 1e4, dtype=items.dtype)
    out[..., ::instr.d_stride] = items
    return out


@pytest.mark.parametrize("arch", ["gfx1100", "gfx1201"])
def test_f16_accumulator_halves(arch):
    """RDNA3 reads C from and writes D to the low halves (elements 0, 2, ..) of 8 VGPRs and
    leaves the high halves undefined (NaN here, so a kernel that reads them FAILs); RDNA4
    packs the 8 results in 4 VGPRs.  D is rounded once to f16."""
    instr = get_matrix_instr(ARCHS[arch], "v_wmma_f16_16x16x16_f16")
    assert (instr.acc_len, instr.c_regs) == ((16, 8) if arch == "gfx1100" else (8, 4))
    rng = np.random.default_rng(3)
    a = rng.uniform(-1, 1, (1, 16, 16)).astype(np.float16)
    b = rng.uniform(-1, 1, (1, 16, 16)).astype(np.float16)
    c = rng.uniform(-1, 1, (1, 16, 16)).astype(np.float16)
    d = multiply(instr, scatter(instr.a, a, 1), scatter(instr.b, b, 1), acc_vector(instr, c, 1))
    assert d.dtype == np.float16
    want = (a[0].astype(np.float64) @ b[0].astype(np.float64) + c[0]).astype(np.float16)
    lanes = np.arange(32)[:, None]
    _, r, col = (np.broadcast_to(np.asarray(x), (32, 8)) for x in instr.d.at(lanes, np.arange(8)[None, :]))
    assert (d[0][:, ::instr.d_stride] == want[r, col]).all()  # rounded once, bit for bit
    if arch == "gfx1100":
        assert np.isnan(d[0][:, 1::2]).all()


def test_rdna3_halves_use_their_own_replicas():
    """D's odd rows (lanes 16-31) come from lanes 16-31's copies of A: a half-wave that
    does not replicate A gives wrong rows."""
    instr = get_matrix_instr(ARCHS["gfx1100"], "v_wmma_f32_16x16x16_f16")
    rng = np.random.default_rng(2)
    a = rng.uniform(-1, 1, (1, 16, 16)).astype(np.float16)
    b = rng.uniform(-1, 1, (1, 16, 16)).astype(np.float16)
    sa = scatter(instr.a, a, 1)
    sa[:, 16:] = 0  # lanes 16-31 forget their copy
    d = multiply(instr, sa, scatter(instr.b, b, 1), np.zeros((1, 32, 8), np.float32))
    full = a[0].astype(np.float64) @ b[0].astype(np.float64)
    np.testing.assert_allclose(d[0, :16, :], full[0::2, :16].T, rtol=1e-6, atol=1e-6)  # even rows: right
    assert not d[0, 16:, :].any()  # odd rows: from the zeroed copies


# -- lowered pipelines through the interpreter -------------------------------------------------

SOURCE = """kernel g {{
  dim M, N, K
  A: {t}[M, K]{col}
  B: {bt}{bshape}
  C: f32[M, N]
  alpha: {acc}
  beta: {acc}
  acc {acc}
  C = alpha * A @ {bexpr} + beta * C
}}"""


def kernel_source(t: str, col_major: bool = False, b_transposed: bool = False, acc: str = "f32",
                  bt: str | None = None) -> str:
    """The test kernel with A of type t, B of type bt (t unless given: two FP8 formats may differ)."""
    return SOURCE.format(t=t, bt=bt or t, col=" col_major" if col_major else "", bshape="[N, K]" if b_transposed else "[K, N]",
                         bexpr="B.T" if b_transposed else "B", acc=acc)


def run(source: str, pipeline: str, arch, dims: dict, seed: int = 0):
    module = gemmc.parse(source)
    gemmc.lower(module, pipeline, arch)
    return gemmc.check(module, arch, dims, seed=seed)


TILED = "gemm-to-kernel,lds-tiling{{block-m=64 block-n=64 block-k={bk}}},register-tiling{{thread-m=4 thread-n=4}}"


# (the language has acc f32 and f16: no kernel takes the bf16-accumulating WMMAs; gfx950's
# v_mfma_scale_* take block-scaled kernels: tests/test_mx.py)
@pytest.mark.parametrize("arch,name", [(a, n) for a, n in INSTRS
                                       if get_matrix_instr(ARCHS[a], n).out_type in ("f32", "f16")
                                       and not get_matrix_instr(ARCHS[a], n).scale_block])
def test_each_instruction_lowered_and_interpreted(arch, name):
    instr = get_matrix_instr(ARCHS[arch], name)
    lowering = {"mfma": "mfma-lowering", "wmma": "wmma-lowering", "mma": "matrix-cores"}[instr.kind]
    tile = max(instr.m, instr.n)
    waves = "waves-m=2 waves-n=1" if tile == 32 else "waves-m=2 waves-n=2"
    pipeline = TILED.format(bk=max(16, instr.k)) + f",{lowering}{{instr={name} {waves}}}"
    source = kernel_source(instr.in_type, acc=instr.out_type, bt=instr.b_in_type)
    r = run(source, pipeline, arch, {"M": 70, "N": 45, "K": 3 * instr.k + 5})
    assert r.passed, r.summary()
    assert r.stats.matrix_instrs > 0


@pytest.mark.parametrize("arch", AMD)
@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(m=st.integers(1, 140), n=st.integers(1, 140), k=st.integers(1, 80), t=st.sampled_from(["f16", "bf16", "f32"]),
       col_major=st.booleans(), b_t=st.booleans(), seed=st.integers(0, 5))
def test_step7_random_shapes(arch, m, n, k, t, col_major, b_t, seed):
    """step7 (matrix-cores: MFMA on CDNA; WMMA on RDNA, f32 rounded to f16) on any shape."""
    r = run(kernel_source(t, col_major, b_t), "step7", arch, {"M": m, "N": n, "K": k}, seed)
    assert r.passed, r.summary()


@pytest.mark.parametrize("arch", AMD)
@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(m=st.integers(1, 140), n=st.integers(1, 140), k=st.integers(1, 80), t=st.sampled_from(["f16", "bf16"]),
       col_major=st.booleans(), b_t=st.booleans(), frag=st.sampled_from([2, 4]), seed=st.integers(0, 5))
def test_frag_read_random_shapes(arch, m, n, k, t, col_major, b_t, frag, seed):
    """matrix-cores{frag-read}: fragments read in pieces of 2 or 4 elements, put together in
    item order, then the LDS rows swizzled over the bank line, on any shape."""
    pipeline = (TILED.format(bk=32) + f",matrix-cores{{frag-read={frag}}},double-buffer,lower-copies,"
                "swizzle-lds{strict=false rows=0}")
    r = run(kernel_source(t, col_major, b_t), pipeline, arch, {"M": m, "N": n, "K": k}, seed)
    assert r.passed, r.summary()


def test_frag_read_pieces_in_the_wrong_order_fail(monkeypatch):
    """A planted bug: every piece read from the run's start (k's lost) must FAIL.  (Pieces
    merely reordered would not: A and B would be permuted along k alike.)"""
    from gemmc.transforms import matrix_kernel

    real = matrix_kernel._read_pieces
    monkeypatch.setattr(matrix_kernel, "_read_pieces",
                        lambda r, offs, f: (lambda p: (p[0], tuple(p[1][0] for _ in p[1])))(real(r, offs, f)))
    pipeline = TILED.format(bk=16) + ",matrix-cores{frag-read=2}"
    r = run(kernel_source("f16"), pipeline, "gfx942", {"M": 70, "N": 45, "K": 37})
    assert not r.passed


# (arch, input type, matrix-cores options): k-pack with each kind of layout: one run of 4 k's a
# lane (gfx90a, gfx942), one item (gfx942's f32 MFMA: vector.extract), 8 k's (gfx950, cut by
# frag-read into 16-byte reads), 16 (gfx1100, likewise), two runs of 4 (gfx1201)
K_PACKS = [("gfx90a", "f16", "k-pack=2"), ("gfx942", "bf16", "instr=v_mfma_f32_16x16x16_bf16 k-pack=2"),
           ("gfx942", "f32", "convert=none instr=v_mfma_f32_32x32x2_f32 k-pack=4"),
           ("gfx950", "f16", "k-pack=2 frag-read=8"), ("gfx1100", "f16", "k-pack=2 frag-read=8"),
           ("gfx1201", "bf16", "k-pack=2")]


@pytest.mark.parametrize("arch,t,options", K_PACKS)
@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(m=st.integers(1, 140), n=st.integers(1, 140), k=st.integers(1, 160), col_major=st.booleans(),
       b_t=st.booleans(), seed=st.integers(0, 5))
def test_k_pack_random_shapes(arch, t, options, m, n, k, col_major, b_t, seed):
    """matrix-cores{k-pack}: the fragments of several instructions read at once, their k's
    interleaved alike for A and B, then the LDS rows swizzled, on any shape."""
    pipeline = (TILED.format(bk=64) + f",matrix-cores{{{options}}},double-buffer,lower-copies,"
                "swizzle-lds{strict=false}")
    r = run(kernel_source(t, col_major, b_t), pipeline, arch, {"M": m, "N": n, "K": k}, seed)
    assert r.passed, r.summary()


@pytest.mark.parametrize("arch,t,options", [K_PACKS[1], K_PACKS[2]])
def test_k_pack_with_b_in_another_order_fails(monkeypatch, arch, t, options):
    """A planted bug: B's instructions take their pieces of the packed read in reverse order
    (A's k's no longer meet B's) and the check must FAIL."""
    from gemmc.transforms import matrix_kernel

    real = matrix_kernel._instr_items
    monkeypatch.setattr(matrix_kernel, "_instr_items", lambda x, v, p, r, pack, items, elem, name: real(
        x, v, pack - 1 - p if name == "b" else p, r, pack, items, elem, name))
    r = run(kernel_source(t), TILED.format(bk=64) + f",matrix-cores{{{options}}}", arch, {"M": 70, "N": 45, "K": 100})
    assert not r.passed


@pytest.mark.parametrize("arch,t,options", [K_PACKS[2], K_PACKS[5]])
def test_k_pack_through_gemmcs_own_backend(arch, t, options):
    """gemmc's AMDGCN backend takes the packed reads (ds_read_b128 / ds_load_b128) and their
    pieces; the amdgcn interpreter runs the result."""
    from gemmc.amdgcn import GCN_PIPELINE

    pipeline = TILED.format(bk=64) + f",matrix-cores{{{options}}},lower-copies," + GCN_PIPELINE
    r = run(kernel_source(t), pipeline, arch, {"M": 67, "N": 45, "K": 100})
    assert r.passed, r.summary()


def test_k_pack_on_a_scaled_kernel_is_refused():
    module = gemmc.parse_file(str(Path(__file__).resolve().parents[1] / "examples" / "mxfp8gemm.gemm"), arch="gfx950")
    with pytest.raises(GemmcError, match="k-pack on a block-scaled kernel is not built"):
        gemmc.lower(module, "gemm-to-kernel,lds-tiling{block-m=128 block-n=128 block-k=128},"
                            "register-tiling{thread-m=8 thread-n=8},matrix-cores{k-pack=2}", "gfx950")


FP8_ON = {"gfx942": ("f8e4m3fnuz", "f8e5m2fnuz"), "gfx950": ("f8e4m3fn", "f8e5m2"), "gfx1201": ("f8e4m3fn", "f8e5m2")}


@pytest.mark.parametrize("arch", list(FP8_ON))
@settings(max_examples=2, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(m=st.integers(1, 140), n=st.integers(1, 140), k=st.integers(1, 160), a_e5m2=st.booleans(),
       b_e5m2=st.booleans(), col_major=st.booleans(), b_t=st.booleans(), seed=st.integers(0, 5))
def test_fp8_default_pipeline_random_shapes(arch, m, n, k, a_e5m2, b_e5m2, col_major, b_t, seed):
    """FP8 inputs (A and B each e4m3 or e5m2: fp8 x bf8 included) through the default pipeline
    (the FP8 MFMA / WMMA, interpreted lane by lane) against the declared program in float64."""
    t, bt = FP8_ON[arch][a_e5m2], FP8_ON[arch][b_e5m2]
    r = run(kernel_source(t, col_major, b_t, bt=bt), None, arch, {"M": m, "N": n, "K": k}, seed)
    assert r.passed and r.stats.matrix_instrs > 0, r.summary()


F8F6F4_TILED = ("gemm-to-kernel,lds-tiling{{block-m={bm} block-n={bm} block-k={bk}}},register-tiling{{thread-m=8 "
                "thread-n=8}},matrix-cores,vectorize{{width=8}},double-buffer{{stage=registers}},lower-copies,"
                "swizzle-lds{{strict=false rows=0}}")


@settings(max_examples=4, deadline=None)
@given(m=st.integers(1, 140), n=st.integers(1, 140), k=st.integers(1, 300), a_e5m2=st.booleans(),
       b_e5m2=st.booleans(), col_major=st.booleans(), b_t=st.booleans(), tile=st.sampled_from([(32, 128), (64, 64)]),
       seed=st.integers(0, 5))
def test_fp8_through_the_unscaled_f8f6f4_mfma_random_shapes(m, n, k, a_e5m2, b_e5m2, col_major, b_t, tile, seed):
    """gfx950's FP8 GEMM at block-k 64 and 128 takes the unscaled f8f6f4 MFMAs (32 k's a lane,
    both formats in cbsz / blgp), interpreted lane by lane, against the declared program."""
    t, bt = FP8_ON["gfx950"][a_e5m2], FP8_ON["gfx950"][b_e5m2]
    bm, bk = tile
    module = gemmc.parse(kernel_source(t, col_major, b_t, bt=bt), defines={"M": m, "N": n, "K": k})
    gemmc.lower(module, F8F6F4_TILED.format(bm=bm, bk=bk), "gfx950")
    assert "_f8f6f4" in gemmc.print_ir(module)
    r = gemmc.check(module, "gfx950", {}, seed)
    assert r.passed and r.stats.matrix_instrs > 0, r.summary()


def test_f8f6f4_with_swapped_k_groups_fails(monkeypatch):
    """A planted bug: A's lanes read the other half of the 64 k's of v_mfma_f32_32x32x64_f8f6f4
    (lane i + 32 g takes k 32 (1 - g) ..) while B's are right: the check FAILs."""
    from xdsl.dialects import arith

    from gemmc.transforms import matrix_kernel

    real = matrix_kernel._packed

    def swapped(kb, lane_k, k_pack, name):
        if name == "a_k":
            lane_k = kb.op(arith.RemUIOp(kb.add(lane_k, kb.index(32)), kb.index(64)), "a_k_swapped")
        return real(kb, lane_k, k_pack, name)

    monkeypatch.setattr(matrix_kernel, "_packed", swapped)
    module = gemmc.parse(kernel_source("f8e4m3fn", False, False, bt="f8e4m3fn"), defines={"M": 64, "N": 64, "K": 128})
    gemmc.lower(module, F8F6F4_TILED.format(bm=64, bk=64), "gfx950")
    assert "v_mfma_f32_32x32x64_f8f6f4" in gemmc.print_ir(module)
    assert not gemmc.check(module, "gfx950", {}).passed


@pytest.mark.parametrize("arch", ["gfx1100", "gfx1201"])
@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(m=st.integers(1, 140), n=st.integers(1, 140), k=st.integers(1, 80), t=st.sampled_from(["f16", "f32"]),
       col_major=st.booleans(), b_t=st.booleans(), seed=st.integers(0, 5))
def test_step7_acc_f16_random_shapes(arch, m, n, k, t, col_major, b_t, seed):
    """acc f16 on RDNA (v_wmma_f16_16x16x16_f16; f32 inputs rounded to f16) on any shape."""
    r = run(kernel_source(t, col_major, b_t, acc="f16"), "step7", arch, {"M": m, "N": n, "K": k}, seed)
    assert r.passed, r.summary()


def test_after_k_major_register_tiling():
    """The matrix path lays LDS out for its own fragments (tile_a[m][k], tile_b_t[n][k]),
    whatever register tiling chose for FMA fragments."""
    pipeline = ("gemm-to-kernel,lds-tiling{block-m=128 block-n=128 block-k=16},"
                "register-tiling{thread-m=8 thread-n=8 lds-layout=k-major},double-buffer,{lowering}")
    for arch, lowering in (("gfx942", "mfma-lowering"), ("gfx1201", "wmma-lowering")):
        r = run(kernel_source("f16", col_major=True), pipeline.replace("{lowering}", lowering), arch,
                {"M": 100, "N": 70, "K": 50})
        assert r.passed, r.summary()


@pytest.mark.parametrize("arch", ["gfx1100", "gfx1201"])
def test_acc_f16_on_rdna_uses_v_wmma_f16(arch):
    """acc f16 takes the 16-bit-accumulator WMMA on RDNA (step7 and the default pipeline)."""
    from gemmc.driver.pipeline import default_pipeline

    for pipeline in ("step7", default_pipeline(ARCHS[arch])):
        module = gemmc.parse(kernel_source("f16", acc="f16"))
        gemmc.lower(module, pipeline, arch)
        assert "v_wmma_f16_16x16x16_f16" in str(module)
        r = gemmc.check(module, arch, {"M": 77, "N": 45, "K": 70})
        assert r.passed and r.stats.matrix_instrs > 0, r.summary()


def test_acc_f16_refused_where_untrue():
    """CDNA's MFMAs accumulate in f32 only; RDNA has no bf16 -> f16 WMMA; an f32-accumulating
    instruction asked for by name does not take an f16 accumulator."""
    cases = [("gfx942", "bf16", "mfma-lowering", "MFMA on gfx942 accumulates in f32; the kernel accumulates in f16"),
             ("gfx1100", "bf16", "wmma-lowering", "gfx1100 has no WMMA with bf16 inputs accumulating in f16, only f16"),
             ("gfx1201", "f16", "wmma-lowering{instr=v_wmma_f32_16x16x16_f16}",
              "v_wmma_f32_16x16x16_f16 accumulates in f32; the kernel accumulates in f16")]
    for arch, t, lowering, message in cases:
        module = gemmc.parse(kernel_source(t, acc="f16"))
        with pytest.raises(GemmcError) as e:
            gemmc.lower(module, TILED.format(bk=16) + "," + lowering, arch)
        assert message in e.value.message


def test_convert_case1_reports_the_rounding():
    """f32 in memory, f16/bf16 fragments: the reference stays the declared f32 program; the
    check reads the rounding from the fragment types, allows for it in the bound, and also
    holds C to f32 accumulation of the rounded inputs."""
    for arch, convert, lowering in (("gfx942", "bf16", "mfma"), ("gfx1100", "f16", "wmma")):
        pipeline = TILED.format(bk=16) + f",{lowering}-lowering{{convert={convert}}}"
        r = run(kernel_source("f32"), pipeline, arch, {"M": 50, "N": 70, "K": 40})
        assert r.passed, r.summary()
        assert r.rounding == Rounding(convert, f"{lowering}-lowering{{convert={convert}}}")
        assert r.tolerance > 2 * UNIT_ROUNDOFF[convert]
        assert r.rounded.rel_err < 1e-5 < r.max_rel_err  # the declared program is f32's
        assert f"inputs rounded to {convert} by {lowering}-lowering{{convert={convert}}}" in r.summary()


# -- a wrong layout gives a wrong C ------------------------------------------------------------


def permuted(arch_name: str, mnemonic: str, **layouts):
    """The arch with one instruction's layouts replaced (the IR keeps the true one)."""
    arch = ARCHS[arch_name]
    instrs = tuple(dataclasses.replace(i, **layouts) if i.mnemonic == mnemonic else i for i in arch.matrix_instrs)
    return dataclasses.replace(arch, matrix_instrs=instrs)


def test_permuted_layout_gives_a_wrong_c():
    name = "v_mfma_f32_32x32x8_f16"
    module = gemmc.parse(kernel_source("f16"))
    gemmc.lower(module, TILED.format(bk=16) + f",mfma-lowering{{instr={name}}}", "gfx942")
    dims = {"M": 64, "N": 64, "K": 32}
    assert gemmc.check(module, "gfx942", dims).passed
    # A: lanes paired up differently (row = lane / 2, k group = lane % 2): still every
    # element once, but not where the fragment loads put them.
    a = Layout(64, 4, row=(Term("lane", div=2, mod=32),), col=(Term("lane", mod=2, scale=4), Term("item")))
    bad = gemmc.check(module, permuted("gfx942", name, a=a), dims)
    assert not bad.passed and bad.max_rel_err > 0.01
    # D transposed: the epilogue stores each lane's registers at the wrong (i, j).
    d = ARCHS["gfx942"].matrix_instrs[2].d
    bad = gemmc.check(module, permuted("gfx942", name, d=Layout(64, 16, row=d.col, col=d.row)), dims)
    assert not bad.passed


# What gemmc used for gfx1201 before following AMD's Matrix Instruction Calculator: lanes
# 0-15 k 0-7, lanes 16-31 k 8-15.  A kernel passes with it only if A and B share it.
_OLD_GFX12_K = (Term("lane", div=16, scale=8), Term("item"))


@pytest.mark.parametrize("operand", ["a", "b"])
def test_gfx1201_one_operand_in_another_layout_fails(operand):
    """Each operand is checked on its own: fragments of one operand in the old k order (as
    another library's would be, mixed with gemmc's) give a wrong C."""
    name = "v_wmma_f32_16x16x16_f16"
    module = gemmc.parse(kernel_source("f16"))
    gemmc.lower(module, TILED.format(bk=16) + f",wmma-lowering{{instr={name}}}", "gfx1201")
    dims = {"M": 64, "N": 64, "K": 32}
    assert gemmc.check(module, "gfx1201", dims).passed
    true = get_matrix_instr(ARCHS["gfx1201"], name)
    old = {"a": Layout(32, 8, row=true.a.row, col=_OLD_GFX12_K), "b": Layout(32, 8, row=_OLD_GFX12_K, col=true.b.col)}
    bad = gemmc.check(module, permuted("gfx1201", name, **{operand: old[operand]}), dims)
    assert not bad.passed and bad.max_rel_err > 0.01
    assert gemmc.check(module, permuted("gfx1201", name, **old), dims).passed  # a shared permutation hides


def test_matrix_op_needs_its_whole_wave():
    """A wave with some lanes masked off cannot run a matrix instruction; a wave with none
    active skips it and keeps its accumulators."""
    from types import SimpleNamespace

    from xdsl.dialects.builtin import Float16Type, Float32Type, VectorType
    from xdsl.ir import Block

    from gemmc.dialects.amdgpu import MFMAOp
    from gemmc.interp.matrix import MatrixFunctions
    from gemmc.interp.state import KernelState, Lanes
    from gemmc.interp.stats import Stats

    block = Block(arg_types=[VectorType(Float16Type(), [4])] * 2 + [VectorType(Float32Type(), [16])])
    op = MFMAOp(*block.args, 32, 32, 8)
    st = KernelState(ARCHS["gfx942"], Stats(), SimpleNamespace(sym_name=SimpleNamespace(data="k")))
    st.begin_batch(Lanes((1, 1, 1), (128, 1, 1), 0, 1, 64))
    a = np.ones((128, 4), np.float16)
    c = np.zeros((128, 16), np.float32)
    run = MatrixFunctions(state=st)._matrix
    st.mask = np.arange(128) >= 64  # wave 0 off, wave 1 on
    d = run(op, (a, a, c))
    assert (d[:64] == 0).all() and (d[64:] == 8).all() and st.stats.matrix_instrs == 1
    st.mask = np.arange(128) < 96  # half of wave 1
    with pytest.raises(InterpError, match="divergent control flow"):
        run(op, (a, a, c))


# -- direct-to-LDS -----------------------------------------------------------------------------


@pytest.mark.parametrize("arch", ["gfx942", "gfx950"])
@pytest.mark.parametrize("t,pipeline", [
    ("f32", "step2,direct-to-lds"),
    ("f32", "step3,double-buffer,direct-to-lds"),
    ("f16", "gemm-to-kernel,lds-tiling{block-m=32 block-n=32 block-k=8},direct-to-lds,double-buffer"),
    ("f32", "step7,direct-to-lds"),
])
def test_direct_to_lds(arch, t, pipeline):
    source = kernel_source(t)
    if t == "f16":  # 16-bit pairs need static, even row lengths
        source = source.replace("dim M, N, K", "dim M = 67, N = 42, K = 30")
    r = run(source, pipeline, arch, {"M": 67, "N": 42, "K": 30} if t == "f16" else {"M": 67, "N": 41, "K": 29})
    assert r.passed, r.summary()
    assert r.stats.global_load_instrs > 0


def test_gather_to_lds_base_must_be_uniform():
    module = gemmc.parse(kernel_source("f32"))
    gemmc.lower(module, "gemm-to-kernel,lds-tiling{block-m=64 block-n=64 block-k=8},direct-to-lds", "gfx942")
    gather = next(op for op in module.walk() if isinstance(op, GatherToLDSOp))
    b0 = gather.dstIndices[0].owner  # chunk / cols: make it idx / cols, per lane
    idx = next(op for op in b0.parent_block().parent_op().parent_block().ops
               if op.results and op.results[0].name_hint == "idx")
    b0.operands[0] = idx.results[0]
    with pytest.raises(InterpError, match="differs between the lanes of a wave"):
        gemmc.check(module, "gfx942", {"M": 64, "N": 64, "K": 64})


# -- compiling ---------------------------------------------------------------------------------


def in_loop(asm: str, prefix: str) -> int:
    """How many `prefix` instructions sit in loop blocks (LLVM marks them '; in Loop' or
    'Loop Header' on their label)."""
    count, looping = 0, False
    for line in asm.splitlines():
        if re.match(r"^\.LBB\d+_\d+:", line):
            looping = "Loop" in line
        elif line.strip().startswith(prefix) and looping:
            count += 1
    return count


@pytest.mark.parametrize("arch,t,extra", [
    ("gfx90a", "f16", ""), ("gfx942", "bf16", ""), ("gfx950", "f16", ""), ("gfx942", "f32", ""),
    ("gfx1100", "f16", ""), ("gfx1201", "bf16", ""), ("gfx950", "f32", ",direct-to-lds"),
    ("gfx1100", "f16", "acc f16"), ("gfx1201", "f16", "acc f16"),
])
def test_compiles_with_matrix_instructions_in_the_k_loop(toolchain, arch, t, extra):
    from gemmc.target.toolchain import compile_device

    acc = "f16" if extra == "acc f16" else "f32"
    extra = "" if extra == "acc f16" else extra
    module = gemmc.parse(kernel_source(t, acc=acc))
    gemmc.lower(module, "step7" + extra, arch)
    asm = compile_device(gemmc.emit(module, arch, "hip"), arch, "asm", toolchain=toolchain)
    prefix = "v_mfma" if ARCHS[arch].matrix_instrs[0].kind == "mfma" else "v_wmma"
    if acc == "f16":
        prefix = "v_wmma_f16_16x16x16_f16"
    assert in_loop(asm, prefix) > 0
    assert ".private_segment_fixed_size: 0" in asm
    if extra:
        assert "global_load_lds_dword" in asm


@pytest.mark.parametrize("arch,t,options", K_PACKS)
def test_k_pack_compiles_to_wide_lds_reads(toolchain, arch, t, options):
    """k-pack through LLVM on every target: the matrix instructions in the K loop, no scratch,
    and where a lane's packed read is 16 bytes (gfx942's 16x16x16 bf16, 4 x f32) ds_read_b128."""
    from gemmc.target.toolchain import compile_device

    module = gemmc.parse(kernel_source(t))
    gemmc.lower(module, TILED.format(bk=64) + f",matrix-cores{{{options}}},double-buffer,lower-copies,"
                "swizzle-lds{strict=false}", arch)
    asm = compile_device(gemmc.emit(module, arch, "hip"), arch, "asm", toolchain=toolchain)
    assert in_loop(asm, "v_mfma" if ARCHS[arch].matrix_instrs[0].kind == "mfma" else "v_wmma") > 0
    assert ".private_segment_fixed_size: 0" in asm
    if arch == "gfx942":
        assert in_loop(asm, "ds_read_b128") > 0


@pytest.mark.parametrize("arch,t,bt,mnemonic", [
    ("gfx942", "f8e4m3fnuz", "f8e4m3fnuz", "v_mfma_f32_32x32x16_fp8_fp8"),
    ("gfx942", "f8e4m3fnuz", "f8e5m2fnuz", "v_mfma_f32_32x32x16_fp8_bf8"),
    ("gfx950", "f8e4m3fn", "f8e4m3fn", "v_mfma_f32_32x32x64_f8f6f4"),  # the unscaled f8f6f4 MFMA (block-k 64)
    ("gfx1201", "f8e5m2", "f8e4m3fn", "v_wmma_f32_16x16x16_bf8_fp8"),
    ("gfx1201", "f8e4m3fn", "f8e4m3fn", "v_wmma_f32_16x16x16_fp8_fp8"),
])
def test_fp8_compiles_with_its_matrix_instruction_in_the_k_loop(toolchain, arch, t, bt, mnemonic):
    """FP8 fragments reach the FP8 builtins as their bytes: LLVM selects the FP8 instruction
    in the K loop, without scratch."""
    from gemmc.target.toolchain import compile_device

    module = gemmc.parse(kernel_source(t, bt=bt))
    gemmc.lower(module, None, arch)  # the default pipeline (one format: MATRIX_FP8_DEFAULTS)
    asm = compile_device(gemmc.emit(module, arch, "hip"), arch, "asm", toolchain=toolchain)
    assert in_loop(asm, mnemonic) > 0
    assert ".private_segment_fixed_size: 0" in asm


@pytest.mark.parametrize("operand", ["a", "b"])
def test_fp8_lanes_in_another_order_fail(operand):
    """A planted layout bug on the FP8 MFMA: the kernel loads fragments in the true layout,
    the interpreter runs the instruction with A's (or B's) lanes paired up differently
    (row or column lane // 4, k group lane % 4: still every element once): C is wrong."""
    name = "v_mfma_f32_16x16x32_fp8_fp8"
    module = gemmc.parse(kernel_source("f8e4m3fnuz"))
    gemmc.lower(module, TILED.format(bk=32) + f",mfma-lowering{{instr={name}}}", "gfx942")
    dims = {"M": 64, "N": 64, "K": 64}
    assert gemmc.check(module, "gfx942", dims).passed
    k = (Term("lane", mod=4, scale=8), Term("item"))
    other = (Term("lane", div=4, mod=16),)
    bad = {"a": Layout(64, 8, row=other, col=k), "b": Layout(64, 8, row=k, col=other)}[operand]
    result = gemmc.check(module, permuted("gfx942", name, **{operand: bad}), dims)
    assert not result.passed and not result.exact.passed, result.summary()


@pytest.mark.parametrize("arch,fmt,kind", [("gfx942", "f8e4m3fnuz", "mfma"), ("gfx942", "f8e5m2fnuz", "mfma"),
                                           ("gfx950", "f8e5m2", "mfma"), ("gfx1201", "f8e4m3fn", "wmma")])
def test_convert_to_fp8_reports_the_rounding(arch, fmt, kind):
    """convert=<FP8 format>: f32 inputs rounded to the format in the fragment loads (to
    nearest even, not saturating, as the instructions' conversion); judged against the
    declared f32 program with that rounding in the bound, and against the rounded inputs."""
    module = gemmc.parse(kernel_source("f32"))
    gemmc.lower(module, TILED.format(bk=32) + f",{kind}-lowering{{convert={fmt}}}", arch)
    r = gemmc.check(module, arch, {"M": 70, "N": 45, "K": 64})
    assert r.passed and r.rounding == Rounding(fmt, f"{kind}-lowering{{convert={fmt}}}"), r.summary()
    assert r.rounded.ratio <= 1 and r.exact.passed
    assert r.declared.ratio > r.rounded.ratio  # the rounding shows against the declared program


def test_convert_to_an_fp8_format_the_arch_lacks_is_refused():
    module = gemmc.parse(kernel_source("f32"))
    with pytest.raises(GemmcError, match=r"convert=f8e4m3fn: expected f16, bf16, f8e4m3fnuz, f8e5m2fnuz"):
        gemmc.lower(module, TILED.format(bk=32) + ",mfma-lowering{convert=f8e4m3fn}", "gfx942")


@pytest.mark.parametrize("arch,fmt,cvt,mnemonic", [
    ("gfx942", "f8e4m3fnuz", "v_cvt_pk_fp8_f32", "v_mfma_f32_32x32x16_fp8_fp8"),
    ("gfx950", "f8e5m2", "v_cvt_pk_bf8_f32", "v_mfma_f32_32x32x16_bf8_bf8"),
])
def test_convert_to_fp8_compiles_to_the_conversion_and_the_fp8_mfma(toolchain, arch, fmt, cvt, mnemonic):
    from gemmc.target.toolchain import compile_device

    module = gemmc.parse(kernel_source("f32"))
    gemmc.lower(module, "step3,matrix-cores{convert=" + fmt + "},double-buffer", arch)
    asm = compile_device(gemmc.emit(module, arch, "hip"), arch, "asm", toolchain=toolchain)
    assert in_loop(asm, cvt) > 0 and in_loop(asm, mnemonic) > 0
    assert ".private_segment_fixed_size: 0" in asm
