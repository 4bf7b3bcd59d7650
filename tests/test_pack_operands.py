"""pack-operands (passes/pack_operands.py): misaligned A and B copied into zero-padded buffers, which TMA takes.

* nothing misaligned: the module is left as it was, op for op;
* the interpreter against numpy (hypothesis; its checks compare with the program in float64): pack-operands
  alone after gemm-to-kernel at odd shapes (f16, bf16, f32, FP8; A column-major, B transposed; `multiple`),
  the packed operands counted; sm_90's 16-bit default as the selection lowers it at odd shapes (A and B packed,
  copied by TMA boxes), and what the selection runs there; pack-operands early (right after gemm-to-kernel) in
  sm_90's and gfx942's defaults; batched, broadcast, grouped and dynamic-row programs through the default;
* the selection weighs the packed default against the default unpacked (cp.async): a small problem keeps the
  unpacked one, the suite's odd shapes the packed one;
* planted bugs FAIL: the pad left unwritten (the interpreter's host allocation holds NaN, as device memory holds
  garbage), the pad filled with a finite value other than zero (B transposed: A's and B's pads meet in the
  product), rows written at the source's stride (out of bounds), the copy kernels' launches removed (the buffers
  unwritten); on the CPU, the harness with the pad unwritten;
* lower_dropping: at aligned rows the default's output is byte for byte that of the pipeline without
  pack-operands; a candidate that tma-copies refuses for a reason of its own drops the packing with it;
* the cost model: the copy kernels' counters are the interpreter's, their time, launches and buffers are in the
  prediction (a planted count without them fails);
* emitted code: nvcc compile-only of the suite's odd programs as `gemmc compile --arch sm_90` builds them (and
  the --harness program), and the HIP harness of a packed kernel run on the CPU (the host's allocation, copy
  kernel and launch for real).
"""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from xdsl.dialects import arith, gpu, memref, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr
from xdsl.rewriter import InsertPoint, Rewriter

import gemmc
from gemmc.cost.counts import count
from gemmc.cost.kernel import main_kernel, read_kernels
from gemmc.cost.model import predict, predict_kernel
from gemmc.driver.bench import bench_source
from gemmc.driver.lowering import lower_dropping, lower_with
from gemmc.driver.pipeline import MATRIX_16BIT_DEFAULTS, without_pass
from gemmc.driver.selection import select_pipeline
from gemmc.driver.variants import with_tiles
from gemmc.interp.common import InterpError
from gemmc.passes.pack_operands import PackOperandsPass
from gemmc.support.context import make_context
from gemmc.support.named_pipelines import NAMED_PIPELINES
from gemmc.target.arch import get_arch
from gemmc.transforms.packing import is_pack_kernel
from test_emit_hip import run_on_cpu
from test_wgmma_in_flight import NVCC, STUB

SM90 = get_arch("sm_90")
GFX942 = get_arch("gfx942")
DEFAULT = MATRIX_16BIT_DEFAULTS["sm_90"]
ALONE = "gemm-to-kernel,pack-operands"


def problem(m: int, n: int, k: int, t: str = "f16", ta: bool = False, tb: bool = False, ab: bool = False,
            c: str = "f32") -> str:
    a = f"A: {t}[M, K]" + (" col_major" if ta else "")
    b = f"B: {t}[N, K]" if tb else f"B: {t}[K, N]"
    product = f"A @ {'B.T' if tb else 'B'}"
    scalars = "  alpha: f32  beta: f32" if ab else ""
    expr = f"alpha * {product} + beta * C" if ab else product
    return f"kernel g {{ dim M = {m}, N = {n}, K = {k}  {a}  {b}  C: {c}[M, N]  acc f32{scalars}  C = {expr} }}"


def packs(module) -> list[gpu.FuncOp]:
    return [op for op in module.walk() if isinstance(op, gpu.FuncOp) and is_pack_kernel(op)]


def misaligned(rows: list[int], t: str, multiple: int = 0) -> int:
    """How many of A's and B's stored row lengths `rows` are not a multiple (by default 16 bytes)."""
    size = {"f16": 2, "bf16": 2, "f32": 4, "f8e4m3fn": 1}[t]
    return sum(bool(r % multiple) if multiple else bool(r * size % 16) for r in rows)


def stored_rows(m: int, n: int, k: int, ta: bool, tb: bool) -> list[int]:
    return [m if ta else k, k if tb else n]


# -- nothing to pack ----------------------------------------------------------------------------


def test_aligned_kernel_is_left_as_it_was():
    before = gemmc.lower(gemmc.parse(problem(37, 32, 24)), "gemm-to-kernel", SM90)
    after = before.clone()
    PackOperandsPass().apply(make_context(), after)
    assert after.is_structurally_equivalent(before) and str(after) == str(before)


# -- the interpreter against numpy ----------------------------------------------------------


_DIM = st.integers(1, 45)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(m=_DIM, n=_DIM, k=_DIM, t=st.sampled_from(["f16", "bf16", "f32", "f8e4m3fn"]), ta=st.booleans(),
       tb=st.booleans(), multiple=st.sampled_from([0, 3, 8, 32]))
def test_pack_operands_alone_matches_numpy(m, n, k, t, ta, tb, multiple):
    """After gemm-to-kernel, any shape and layout: the packed operands' kernel computes the program."""
    p = ALONE if not multiple else f"gemm-to-kernel,pack-operands{{multiple={multiple}}}"
    module = gemmc.lower(gemmc.parse(problem(m, n, k, t, ta, tb)), p, SM90)
    assert len(packs(module)) == misaligned(stored_rows(m, n, k, ta, tb), t, multiple)
    r = gemmc.check(module, SM90, {})
    assert r.passed, r.summary()


_ODD = st.integers(1, 150)


@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(m=_ODD, n=_ODD, k=_ODD, t=st.sampled_from(["f16", "bf16"]), ta=st.booleans(), tb=st.booleans())
def test_the_sm90_default_at_odd_shapes_matches_numpy(m, n, k, t, ta, tb):
    """sm_90's 16-bit default as the selection lowers it (lower_dropping): what is misaligned is packed, and
    every copy of A and B is a TMA box."""
    module, ran, why = lower_dropping(gemmc.parse(problem(m, n, k, t, ta, tb)), DEFAULT, SM90)
    assert not why and "tma-copies" in ran and any(op.name == "nvgpu.tma_load" for op in module.walk()), ran
    expected = misaligned(stored_rows(m, n, k, ta, tb), t)
    assert len(packs(module)) == expected and ("pack-operands" in ran) == bool(expected), ran
    r = gemmc.check(module, SM90, {})
    assert r.passed, r.summary()


@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(m=_ODD, n=_ODD, k=_ODD, t=st.sampled_from(["f16", "bf16"]), tb=st.booleans())
def test_what_the_selection_runs_at_odd_shapes_matches_numpy(m, n, k, t, tb):
    """`gemmc compile --arch sm_90`: packed or not, as the model weighs it (below), the program's result."""
    module = gemmc.lower(gemmc.parse(problem(m, n, k, t, tb=tb)), None, SM90)
    r = gemmc.check(module, SM90, {})
    assert r.passed, (module.attributes["gemmc.pipeline"].data, r.summary())


def test_the_selection_weighs_the_copies():
    """At 70x45x37 the packed default's copies, launches and allocations (some 0.09 ms) outweigh the one
    workgroup's GEMM: the default without them (cp.async) takes its place, and the reason says so; at the
    suite's 4097x4095x1023 the packed one is kept (tests below build it)."""
    choice = select_pipeline(gemmc.parse(problem(70, 45, 37)), SM90)
    packed, unpacked = choice.pipelines["default"], choice.pipelines["unpacked (cp.async)"]
    assert "pack-operands,tma-copies" in packed and "pack-operands" not in unpacked and "tma-copies" not in unpacked
    assert choice.predicted["default"] > choice.predicted["unpacked (cp.async)"] + 2 * SM90.workspace_alloc_us * 1e-6
    assert "(A, B not packed for TMA, predicted " in choice.reason and "pack-operands" not in choice.pipeline


EARLY = DEFAULT.replace(",pack-operands", "").replace("gemm-to-kernel,", "gemm-to-kernel,pack-operands,")


@pytest.mark.parametrize("shape", [(70, 45, 37), (130, 261, 100)])
def test_packed_early_in_the_sm90_default_matches_numpy(shape):
    """pack-operands right after gemm-to-kernel: the tiling, copy and TMA passes see the padded buffers
    (vector copies proven on their aligned rows now reach into the pad, which holds zeros)."""
    module = lower_with(gemmc.parse(problem(*shape)), EARLY, SM90)
    assert len(packs(module)) == 2 and any(op.name == "nvgpu.tma_load" for op in module.walk())
    r = gemmc.check(module, SM90, {})
    assert r.passed, r.summary()


def test_packed_early_in_gfx942s_default_matches_numpy():
    spec = MATRIX_16BIT_DEFAULTS["gfx942"].replace("gemm-to-kernel,", "gemm-to-kernel,pack-operands,")
    module = lower_with(gemmc.parse(problem(67, 45, 37)), spec, GFX942)
    assert len(packs(module)) == 2
    r = gemmc.check(module, GFX942, {})
    assert r.passed, r.summary()


PROGRAMS = {
    "batched": "kernel bat { dim Bt = 3, L = 37, D = 21  Q: f16[Bt, L, D]  K: f16[Bt, L, D]  S: f32[Bt, L, L]  acc f32"
               "  S = 0.125 * Q @ K.T }",
    "broadcast": "kernel bc { dim Bt = 2, M = 33, N = 27, K = 19  A: f16[Bt, M, K]  B: f16[K, N]  C: f32[Bt, M, N]"
                 "  acc f32  C = A @ B }",
    "grouped": "kernel moe { dim M = 100, E = 3, N = 30, K = 21  X: bf16[M, K]  W: bf16[E, K, N]  sizes: i32[E]"
               "  Y: f32[M, N]  acc f32  Y = X @ W grouped by sizes }",
    "dynamic_rows": "kernel dm { dim M, N = 29, K = 19  A: f16[M, K]  B: f16[K, N]  C: f32[M, N]  acc f32  C = A @ B }",
}


def test_the_one_warpgroup_variant_packs_too():
    """64x64 tiles (one warpgroup, launch-bounds{max-threads=128}, which bounds every kernel of the module): the
    copy kernels' 64 threads are within it, the variant packs, copies by TMA and passes."""
    spec = with_tiles(DEFAULT, 64, 64, 4, 4)
    assert "launch-bounds{max-threads=128}" in spec
    module, ran, why = lower_dropping(gemmc.parse(problem(70, 45, 37)), spec, SM90)
    assert ran == spec and not why and len(packs(module)) == 2
    r = gemmc.check(module, SM90, {})
    assert r.passed, r.summary()


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_other_programs_through_the_sm90_default(name):
    """Batched (both operands, or A alone with B broadcast), grouped (B [G, K, N]) and rows given at launch:
    packed, copied by TMA, checked."""
    dims = {"M": 41} if name == "dynamic_rows" else {}
    module, ran, why = lower_dropping(gemmc.parse(PROGRAMS[name]), DEFAULT, SM90)
    assert "pack-operands,tma-copies" in ran and not why and len(packs(module)) == 2, ran
    r = gemmc.check(module, SM90, dims)
    assert r.passed, r.summary()


# -- planted bugs ---------------------------------------------------------------------------


def _packed(shape=(70, 45, 37), tb: bool = False):
    module, ran, why = lower_dropping(gemmc.parse(problem(*shape, tb=tb)), DEFAULT, SM90)
    assert "pack-operands" in ran and not why
    return module


def _pad_unwritten(module) -> None:
    """Each copy kernel stores only the program's columns: the pad keeps what the allocation held."""
    for p in packs(module):
        store = next(op for op in p.walk() if isinstance(op, memref.StoreOp))
        in_row = next(op for op in p.walk() if isinstance(op, arith.CmpiOp) and op.results[0].name_hint == "in_row")
        Rewriter.replace_op(store, scf.IfOp(in_row.results[0], [], [store.clone(), scf.YieldOp()]))


def _pad_not_zero(module) -> None:
    """Each copy kernel writes the row's last element into its pad instead of zeros."""
    for p in packs(module):
        select = next(op for op in p.walk() if isinstance(op, arith.SelectOp))
        select.operands[2] = select.operands[1]


def _source_stride(module) -> None:
    """Each copy kernel splits its element number by the source's row length instead of the buffer's."""
    for p in packs(module):
        row = p.body.block.args[0].type.get_shape()[-1]
        for op in [o for o in p.walk() if isinstance(o, (arith.RemUIOp, arith.DivUIOp))]:
            c = arith.ConstantOp(IntegerAttr(row, IndexType()))
            Rewriter.insert_op(c, InsertPoint.before(op))
            op.operands[1] = c.results[0]


def test_the_packed_kernels_pass_where_the_plants_fail():
    assert gemmc.check(_packed(), SM90, {}).passed
    assert gemmc.check(_packed(tb=True), SM90, {}).passed


def test_planted_unwritten_pad_fails():
    module = _packed()
    _pad_unwritten(module)
    r = gemmc.check(module, SM90, {})
    assert not r.passed and "FAIL" in r.summary()


def test_planted_nonzero_pad_fails():
    """B stored [N, K]: A's and B's pads are both along K, and meet in the product."""
    module = _packed(tb=True)
    _pad_not_zero(module)
    r = gemmc.check(module, SM90, {})
    assert not r.passed and "FAIL" in r.summary()


def test_planted_source_stride_fails():
    module = _packed()
    _source_stride(module)
    with pytest.raises(InterpError, match="out-of-bounds memref.load of %A"):
        gemmc.check(module, SM90, {})


def test_planted_copies_removed_fails():
    """The copy kernels' launches gone: the GEMM kernel reads buffers nobody wrote (NaN in the interpreter's
    host allocation), which its gemm.zero_padded says hold zeros past the program's columns: the check fails."""
    module = _packed()
    for launch in [op for op in module.walk() if isinstance(op, gpu.LaunchFuncOp)]:
        if launch.kernel.nested_references.data[-1].data.endswith(("_pack_a", "_pack_b")):
            launch.detach()
            launch.erase()
    r = gemmc.check(module, SM90, {})
    assert not r.passed


# -- lower_dropping -------------------------------------------------------------------------


@pytest.mark.parametrize("t", ["f16", "bf16"])
def test_aligned_rows_emit_what_the_pipeline_without_pack_operands_does(t):
    """At 256x128x64 (rows aligned) the default's output is byte for byte the HIP of the pipeline without
    pack-operands, its header's pipeline included (pack-operands changed nothing: not in the pipeline run)."""
    module = gemmc.parse(problem(256, 128, 64, t))
    lowered, ran, why = lower_dropping(module, DEFAULT, SM90)
    assert (ran, why) == (without_pass(DEFAULT, "pack-operands"), "")
    plain = lower_with(module.clone(), without_pass(DEFAULT, "pack-operands"), SM90)
    assert gemmc.emit(lowered, SM90, "hip") == gemmc.emit(plain, SM90, "hip")


def test_a_candidate_tma_copies_refuses_drops_the_packing_too():
    """mma.sync's tiles are read by ldmatrix, not wgmma: tma-copies refuses the packed kernel, and the pipeline
    runs without both (no copy kernel pays for a TMA that does not run)."""
    mma = NAMED_PIPELINES["mma-sync-128x256"]
    spec = mma.replace(",lower-copies", ",pack-operands,tma-copies,lower-copies", 1)
    assert spec != mma
    lowered, ran, why = lower_dropping(gemmc.parse(problem(70, 45, 37)), spec, SM90)
    assert ran == mma and why.startswith("tma-copies: ") and "pack-operands" not in why
    assert not packs(lowered)


# -- the cost model ---------------------------------------------------------------------------


_COUNTERS = ("global_load_instrs", "global_load_bytes", "global_store_instrs", "global_store_bytes")


def _counted(module, keep=lambda k: True) -> dict:
    total = dict.fromkeys(_COUNTERS, 0)
    for k in read_kernels(module, {}):
        if keep(k):
            c = count(k, SM90).stats_dict()
            for x in _COUNTERS:
                total[x] += c[x]
    return total


def test_copy_kernels_counts_match_the_interpreter():
    """gemm-to-kernel's kernel and the two copy kernels: every global counter summed over the launches is
    the interpreter's; without the copy kernels it is not (planted: the copies uncounted)."""
    module = gemmc.lower(gemmc.parse(problem(70, 45, 37)), ALONE, SM90)
    ran = gemmc.check(module, SM90, {}).stats.as_dict()
    assert _counted(module) == {x: ran[x] for x in _COUNTERS}
    uncounted = _counted(module, lambda k: not is_pack_kernel(k.kernel))
    assert all(uncounted[x] < ran[x] for x in _COUNTERS)


def test_the_prediction_holds_the_copies():
    """The default's prediction at 4097x4095x1023 is the GEMM kernel's plus each copy kernel's time and launch
    gap, each buffer's allocation and the launcher's time (Arch.launch_us, once); a copy kernel moves its
    operand twice (read, written padded) through DRAM."""
    module = gemmc.lower(gemmc.parse(problem(4097, 4095, 1023)), DEFAULT, SM90)
    p = predict(module, SM90)
    assert sorted(o.kernel.name for o in p.others) == ["g_pack_a", "g_pack_b"]
    main = predict_kernel(main_kernel(read_kernels(module, {})), SM90)
    host_us = 2 * (SM90.launch_gap_us + SM90.workspace_alloc_us) + SM90.launch_us
    extra = sum(o.time_s for o in p.others) + host_us * 1e-6
    assert abs(p.time_s - (main.time_s + extra)) < 1e-12 and all(o.time_s > 0 for o in p.others)
    assert any("allocating 2 padded operands" in n for n in p.notes)
    pack_a = next(o for o in p.others if o.kernel.name == "g_pack_a")
    assert pack_a.traffic.dram >= 0.99 * 2 * 4097 * 1023 * 2


# -- emitted code ---------------------------------------------------------------------------


ODD_PROGRAMS = {"odd_f16": problem(4097, 4095, 1023, "f16"),
                "odd_nt_alpha_beta_bf16": problem(3001, 2999, 1537, "bf16", tb=True, ab=True)}


def _nvcc(hip: str) -> None:
    with tempfile.TemporaryDirectory(prefix="gemmc-pack-") as tmp:
        src = Path(tmp) / "k.cu"
        src.write_text(hip)
        proc = subprocess.run([NVCC, "-arch=compute_90a", "-code=sm_90a", "-x", "cu", "-c", str(src), "-I", STUB,
                               "-o", str(Path(tmp) / "k.o")], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]


@pytest.mark.skipif(NVCC is None, reason="needs nvcc (the CUDA toolkit; no GPU)")
@pytest.mark.parametrize("name", sorted(ODD_PROGRAMS))
def test_the_odd_suite_programs_build_with_nvcc(name):
    """The H200 suite's odd shapes as `gemmc compile --arch sm_90` builds them: packed, TMA, nvcc compile-only;
    and the first's --harness program and gemmc bench's program."""
    module = gemmc.lower(gemmc.parse(ODD_PROGRAMS[name]), None, SM90)
    assert "pack-operands,tma-copies" in module.attributes["gemmc.pipeline"].data
    hip = gemmc.emit(module, SM90, "hip")
    assert "_pack_a<<<" in hip and "_pack_b<<<" in hip and "cp.async.bulk.tensor.2d" in hip
    _nvcc(hip)
    if name == "odd_f16":
        _nvcc(gemmc.emit(module, SM90, "hip", harness=True))
        _nvcc(bench_source(module, SM90, {}))  # gemmc bench's program (benchmarks/h200/matrix.py writes these)


def test_harness_of_a_packed_kernel_runs_on_the_cpu(toolchain, tmp_path):
    """gfx942's tiled kernel with vector copies over packed operands, its harness built for the CPU: the
    launcher allocates the buffers, launches the copy kernels and the GEMM, frees them; C checked."""
    if toolchain.kind != "llvm":
        pytest.skip("the CPU run uses plain clang++ for the host")
    spec = ("gemm-to-kernel,pack-operands,lds-tiling{block-m=32 block-n=32 block-k=8},"
            "register-tiling{thread-m=4 thread-n=4},vectorize{width=4},lower-copies")
    module = lower_with(gemmc.parse(problem(37, 45, 19)), spec, GFX942)
    assert len(packs(module)) == 2
    proc = run_on_cpu(toolchain, gemmc.emit(module, GFX942, "hip", harness=True), [], tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert ": PASSED" in proc.stdout
    # planted: the pad unwritten (the stand-in's hipMallocAsync leaves 0xff bytes, NaN, where device memory
    # leaves garbage): A's last vector of a row reaches into it, and C fails
    _pad_unwritten(module)
    proc = run_on_cpu(toolchain, gemmc.emit(module, GFX942, "hip", harness=True), [], tmp_path)
    assert proc.returncode == 1 and ": FAILED" in proc.stdout, proc.stdout + proc.stderr
