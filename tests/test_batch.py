"""Batched products (docs/language.md, "Batch dims"): the language's located errors, the interpreter
against numpy over shapes with a batch (broadcast operands, transposes, dynamic batches), split-k over
z = batch * splits, gemmc's own AMDGCN backend, planted batch-stride bugs that must FAIL (IR, clang's
AMDGCN, the own backend), the refusals (stream-k, --harness), the cost model's work and
examples/attention_scores.gemm on every AMD target."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gemmc
from gemmc.cost import model
from gemmc.driver.gcn import lower_to_gcn
from gemmc.driver.pipeline import gcn_default_pipeline
from gemmc.support.diagnostics import GemmcError
from gemmc.target.toolchain import have_toolchain
from gemmc.transforms.batch import batch_args, set_batch

ROOT = Path(__file__).resolve().parents[1]
AMD_ARCHS = ["gfx90a", "gfx942", "gfx950", "gfx1100", "gfx1201"]


def program(a: str = "A: f32[Bt, M, K]", b: str = "B: f32[K, N]", c: str = "C: f32[Bt, M, N]",
            expr: str = "A @ B", dims: str = "Bt = 3, M = 19, N = 13, K = 11", extra: str = "") -> str:
    return f"""kernel k {{
  dim {dims}
  {a}
  {b}
  {c}
  {extra}
  C = {expr}
}}
"""


def error_of(source: str) -> str:
    with pytest.raises(GemmcError) as e:
        gemmc.parse(source, "k.gemm")
    return e.value.render().splitlines()[0]


# -- the language's errors, each at its token --------------------------------------------------

ERRORS = [
    ({"a": "A: f32[M, K]"}, "k.gemm:5:10: error: the output 'C' has a batch dim 'Bt' but neither 'A' nor 'B' has one; "
                            "declare it on A, B or both (A: f32[Bt, M, K])"),
    ({"c": "C: f32[M, N]"}, "k.gemm:3:10: error: 'A' has a batch dim 'Bt' but the output 'C' has none; a batched "
                            "product writes a batched output (C: f32[Bt, M, N])"),
    ({"b": "B: f32[Bu, K, N]", "dims": "Bt = 3, Bu = 3, M = 19, N = 13, K = 11"},
     "k.gemm:4:10: error: 'B' has the batch dim 'Bu' but the output 'C' has 'Bt'; batched operands share the "
     "output's batch dim"),
    ({"a": "A: f32[Bt, Bt, M, K]"}, "k.gemm:3:21: error: 'A' has 4 dims; a matrix has 2, and a batched one 3 "
                                    "(a leading batch dim: [Bt, M, K])"),
    ({"a": "A: f32[M, M, K]", "c": "C: f32[M, M, N]"}, "k.gemm:3:10: error: 'A' has 'M' as its batch dim and as a matrix dim; the batch dim "
                               "is a dim of its own"),
    ({"a": "A: f32[Bt/32, M, K]"}, "k.gemm:3:13: error: the batch dim 'Bt' is a dim as declared, not divided"),
    ({"a": "A: f32[Bx, M, K]"}, "k.gemm:3:10: error: unknown dim 'Bx'; declare it with 'dim Bx'"),
    ({"extra": "R: f32[Bt, M, N]", "c": "C: f32[M, N]", "a": "A: f32[M, K]", "expr": "A @ B + R"},
     "k.gemm:6:10: error: 'R' has a batch dim 'Bt' but the output 'C' has none"),
    ({"extra": "R: f32[Bu, M, N]", "dims": "Bt = 3, Bu = 3, M = 19, N = 13, K = 11", "expr": "A @ B + R"},
     "k.gemm:6:10: error: 'R' has the batch dim 'Bu' but the output 'C' has 'Bt'; batched operands share the "
     "output's batch dim"),
    ({"dims": "Bt = 65536, M = 19, N = 13, K = 11"},
     "k.gemm:2:7: error: Bt = 65536 batches: the grid's z holds at most 65535 (one z index a batch)"),
    ({"extra": "v: f32[Bt, N]", "expr": "A @ B + v"},
     "k.gemm:7:15: error: 'v' is [Bt, N]; an epilogue operand is [M, N] (element-wise), [M] (one value a row) or "
     "[N] (one value a column)"),
]


@pytest.mark.parametrize("changes, message", ERRORS)
def test_located_errors(changes, message):
    assert error_of(program(**changes)) == message


def test_a_batched_block_scaled_product_is_refused():
    source = """kernel k {
  dim Bt = 2, M = 32, N = 32, K = 64
  A: f8e4m3fn[Bt, M, K]
  B: f8e4m3fn[K, N]
  SA: f8e8m0fnu[M, K/32]
  SB: f8e8m0fnu[K/32, N]
  C: f32[Bt, M, N]
  C = A scaled SA @ B scaled SB
}
"""
    assert error_of(source) == ("k.gemm:8:16: error: a block-scaled (MX) product is not batched yet; declare A, B "
                                "and C without a batch dim")


def test_the_verifier_refuses_a_batch_on_c_alone():
    text = gemmc.print_ir(gemmc.parse(program())).replace("memref<3x19x11xf32>", "memref<19x11xf32>")
    with pytest.raises(GemmcError, match="a batched C needs a batched A or B"):
        gemmc.parse_ir(text)


# -- batch or group: `grouped by SIZES` alone makes a 3-D B a grouped product's ------------------------


def test_a_3d_b_without_grouped_by_is_a_batch():
    """B [E, K, N] with a batched C and no `grouped by`: E is a batch (A shared), not groups."""
    source = program("A: f32[M, K]", "B: f32[Bt, K, N]", "C: f32[Bt, M, N]")
    module = gemmc.parse(source)
    (op,) = [o for o in module.walk() if o.name == "gemm.matmul"]
    assert op.batched and not op.grouped
    result = run(source, "step3")
    assert result.passed and result.batches == 3, result.summary()


def test_a_lone_3d_b_says_grouped_by():
    """B alone 3-D (A and C 2-D): more likely a grouped product's B than a batch."""
    source = program("A: f32[M, K]", "B: f32[Bt, K, N]", "C: f32[M, N]")
    assert error_of(source) == ("k.gemm:7:11: error: 'B' is [Bt, K, N], a grouped product's B (one matrix per "
                                "group); write 'C = A @ B grouped by SIZES' with SIZES: i32[Bt]")


def test_the_verifier_refuses_a_grouped_product_with_a_batch():
    source = """kernel k {
  dim T = 37, E = 5, N = 13, K = 11
  X: f32[T, K]
  W: f32[E, K, N]
  rows: i32[E]
  Y: f32[T, N]
  Y = X @ W grouped by rows
}
"""
    text = gemmc.print_ir(gemmc.parse(source))
    text = text.replace("memref<37x13xf32>", "memref<5x37x13xf32>").replace("memref<37x11xf32>", "memref<5x37x11xf32>")
    with pytest.raises(GemmcError, match="a grouped product is not batched"):
        gemmc.parse_ir(text)


# -- the interpreter against numpy ---------------------------------------------------------------


def run(source: str, pipeline: str | None, arch: str = "gfx942", dims: dict | None = None, dynamic: bool = False,
        level: str = "ir"):
    module = gemmc.parse(source, defines=None if dynamic else dims)
    gemmc.lower(module, pipeline, arch)
    return gemmc.check(module, arch, dims if dynamic else None, level=level)


PIPELINES = ["step1", "step3", "step5", "step7", None]


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(batch=st.integers(1, 3), m=st.integers(1, 40), n=st.integers(1, 40), k=st.integers(1, 40),
       shared=st.sampled_from(["", "a", "b"]), ta=st.booleans(), tb=st.booleans(), col_major=st.booleans(),
       pipeline=st.sampled_from(PIPELINES), dtype=st.sampled_from(["f32", "f16"]))
def test_interpreter_against_numpy(batch, m, n, k, shared, ta, tb, col_major, pipeline, dtype):
    a_dims = "K, M" if ta else "M, K"
    b_dims = "N, K" if tb else "K, N"
    a = f"A: {dtype}[{'' if shared == 'a' else 'Bt, '}{a_dims}]{' col_major' if col_major else ''}"
    b = f"B: {dtype}[{'' if shared == 'b' else 'Bt, '}{b_dims}]"
    expr = f"A{'.T' if ta else ''} @ B{'.T' if tb else ''}"
    source = program(a, b, "C: f32[Bt, M, N]", expr, f"Bt = {batch}, M = {m}, N = {n}, K = {k}")
    result = run(source, pipeline)
    assert result.passed, result.summary()
    assert result.batches == batch


def test_a_dynamic_batch_through_the_dispatch():
    source = program("A: f16[Bt, M, K]", "B: f16[Bt, N, K]", "C: f32[Bt, M, N]", "A @ B.T", "Bt, M, N, K")
    result = run(source, None, dims={"Bt": 2, "M": 37, "N": 33, "K": 45}, dynamic=True)
    assert result.passed and result.batches == 2, result.summary()


def test_a_batched_residual_and_a_shared_bias():
    source = program("A: bf16[Bt, M, K]", "W: bf16[N, K]", "C: bf16[Bt, M, N]", "gelu(A @ W.T + b) + R",
                     extra="b: f32[N]\n  R: bf16[Bt, M, N]")
    for pipeline in ("step1", "step5", None):
        result = run(source, pipeline)
        assert result.passed and result.batches == 3, result.summary()


@pytest.mark.parametrize("reduce", ["atomic", "workspace"])
def test_split_k_splits_each_batch(reduce):
    source = program(dims="Bt = 3, M = 37, N = 29, K = 100")
    pipeline = f"gemm-to-kernel,lds-tiling{{block-m=32 block-n=32 block-k=16}},register-tiling,split-k{{factor=3 reduce={reduce}}}"
    result = run(source, pipeline)
    assert result.passed and result.batches == 3, result.summary()


@pytest.mark.skipif(not have_toolchain(), reason="needs clang-22 (or ROCm) for --level asm")
@pytest.mark.parametrize("pipeline", [None, "gemm-to-kernel,lds-tiling{block-m=32 block-n=32 block-k=16},"
                                            "register-tiling,matrix-cores,split-k{factor=3 reduce=workspace},double-buffer"])
def test_the_amdgcn_of_clang_runs_a_dynamic_batch(pipeline):
    source = program("A: f16[Bt, M, K]", "B: f16[K, N]", "C: f32[Bt, M, N]", "A @ B", "Bt, M, N, K")
    result = run(source, pipeline, dims={"Bt": 2, "M": 37, "N": 37, "K": 100}, dynamic=True, level="asm")
    assert result.passed and result.batches == 2, result.summary()


# -- planted batch-stride bugs FAIL ----------------------------------------------------------------


def planted(plant, level: str = "ir") -> bool:
    """Whether the step-3 kernel of a batched A @ B passes its check after `plant(kernel)`."""
    source = program("A: f32[Bt, M, K]", "B: f32[Bt, K, N]", dims="Bt = 3, M = 24, N = 20, K = 16")
    module = gemmc.parse(source)
    gemmc.lower(module, "step3", "gfx942")
    for kernel in (op for op in module.walk() if op.name == "gpu.func"):
        plant(kernel)
    return gemmc.check(module, "gfx942", level=level).passed


def _ignore_b(kernel) -> None:
    set_batch(kernel, [i for i in batch_args(kernel) if i != 1])  # B read at its first matrix by every batch


def _halve_the_batch(kernel) -> None:
    set_batch(kernel, batch_args(kernel), 2)  # batch z / 2: the wrong batch's matrices


def test_the_unplanted_kernel_passes():
    assert planted(lambda kernel: None)


def test_planted_kernel_ignoring_bs_batch_offset_fails():
    assert not planted(_ignore_b)


def test_planted_wrong_batch_stride_fails():
    assert not planted(_halve_the_batch)


@pytest.mark.skipif(not have_toolchain(), reason="needs clang-22 (or ROCm) for --level asm")
def test_planted_kernel_ignoring_bs_batch_offset_fails_in_its_amdgcn():
    # the HIP then leaves B's pointer where the launch put it: clang's code reads batch 0's B
    assert planted(lambda kernel: None, "asm") and not planted(_ignore_b, "asm")


# -- what is refused, each at its op -------------------------------------------------------------


def test_stream_k_refuses_a_batched_kernel():
    with pytest.raises(GemmcError, match="stream-k: a batched kernel"):
        gemmc.lower(gemmc.parse(program()), "step3,stream-k", "gfx942")


@pytest.mark.parametrize("arch", AMD_ARCHS)
def test_the_own_backend_runs_a_batch(arch):
    # gemmc's own AMDGCN backend: the workgroup id z in s4, the batched bases moved in 64 bits
    module = gemmc.lower(gemmc.parse_file(str(ROOT / "examples/attention_scores.gemm")),
                         gcn_default_pipeline(gemmc.get_arch(arch)), arch)
    lower_to_gcn(module, arch)
    result = gemmc.check(module, arch)
    assert result.passed and result.batches == 4, result.summary()


def test_the_own_backend_runs_split_k_of_a_batch():
    source = program("A: f32[Bt, M, K]", "B: f32[K, N]", dims="Bt = 2, M = 20, N = 20, K = 64")
    module = gemmc.lower(gemmc.parse(source), "gemm-to-kernel,lds-tiling{block-m=32 block-n=32 block-k=16},"
                         "register-tiling,split-k{factor=2 reduce=workspace},lower-copies", "gfx942")
    lower_to_gcn(module, "gfx942")
    result = gemmc.check(module, "gfx942")
    assert result.passed and result.batches == 2, result.summary()


def test_planted_kernel_ignoring_bs_batch_offset_fails_in_the_own_backend():
    def own(plant) -> bool:
        source = program("A: f32[Bt, M, K]", "B: f32[Bt, K, N]", dims="Bt = 3, M = 24, N = 20, K = 16")
        module = gemmc.lower(gemmc.parse(source), "step1", "gfx942")
        for kernel in (op for op in module.walk() if op.name == "gpu.func"):
            plant(kernel)
        lower_to_gcn(module, "gfx942")
        return gemmc.check(module, "gfx942").passed

    assert own(lambda kernel: None) and not own(_ignore_b)


def test_the_harness_refuses_a_batched_product():
    module = gemmc.lower(gemmc.parse(program()), "step1", "gfx942")
    with pytest.raises(GemmcError, match="--harness has no batched product yet"):
        gemmc.emit(module, "gfx942", "hip", harness=True)


# -- the cost model and the HIP ------------------------------------------------------------------


def test_the_batch_multiplies_the_predicted_work():
    one = gemmc.lower(gemmc.parse(program(dims="Bt = 1, M = 256, N = 256, K = 256")), "step3", "gfx942")
    eight = gemmc.lower(gemmc.parse(program(dims="Bt = 8, M = 256, N = 256, K = 256")), "step3", "gfx942")
    p1, p8 = (model.predict(m, gemmc.get_arch("gfx942")) for m in (one, eight))
    assert p8.kernel.problem.flops == 8 * p1.kernel.problem.flops
    assert p8.kernel.grid.workgroups == 8 * p1.kernel.grid.workgroups
    assert p8.time_s > p1.time_s


def test_sm90_prints_the_batch_offsets():
    text = gemmc.emit(gemmc.lower(gemmc.parse(program()), None, "sm_90"), "sm_90", "hip")
    assert "const unsigned long long batch = blockIdx.z;" in text
    assert "A += batch * (unsigned long long)19 * (unsigned long long)11;" in text


# -- the example ------------------------------------------------------------------------------------


@pytest.mark.parametrize("arch", AMD_ARCHS)
def test_attention_scores_example_passes(arch):
    module = gemmc.parse_file(str(ROOT / "examples/attention_scores.gemm"))
    result = gemmc.check(gemmc.lower(module, None, arch), arch)
    assert result.passed and result.batches > 1, result.summary()


@pytest.mark.skipif(not have_toolchain(), reason="needs clang-22 (or ROCm)")
@pytest.mark.parametrize("arch", AMD_ARCHS)
def test_attention_scores_example_builds_without_scratch(arch):
    module = gemmc.lower(gemmc.parse_file(str(ROOT / "examples/attention_scores.gemm")), None, arch)
    report = gemmc.resource_report(module, arch)
    row = next(line for line in report.splitlines() if line.startswith("attention_scores "))
    assert row.split()[5] == "0", report  # scratch B/lane
