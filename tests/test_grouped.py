"""Grouped GEMM (docs/language.md, "Grouped GEMM"): the language's located errors, every pass's
kernel against the per-group float64 reference over group sizes (empty groups, sizes no multiple
of a tile), planted bugs that must FAIL, the sizes a run makes, the HIP on every AMD target and
the own backend's refusal."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from xdsl.dialects import arith, scf
from xdsl.rewriter import InsertPoint

import gemmc
from gemmc.interp.check import execute, host_function, matmul_spec, operands, random_inputs
from gemmc.interp.grouped import product, random_sizes
from gemmc.support.diagnostics import GemmcError
from gemmc.support.ir_names import ROLE_ATTR, ROLE_GROUP
from gemmc.target.toolchain import have_toolchain
from gemmc.transforms.kernel_builder import KernelBuilder

ROOT = Path(__file__).resolve().parents[1]
AMD_ARCHS = ["gfx90a", "gfx942", "gfx950", "gfx1100", "gfx1201"]


def program(*, dims: str = "T = 37, E = 5, N = 13, K = 11", x: str = "X: f32[T, K]", w: str = "W: f32[E, K, N]",
            sizes: str = "rows: i32[E]", y: str = "Y: f32[T, N]", expr: str = "X @ W grouped by rows",
            extra: str = "") -> str:
    return f"""kernel moe {{
  dim {dims}
  {x}
  {w}
  {sizes}
  {y}
  {extra}
  Y = {expr}
}}
"""


def error_of(source: str) -> str:
    with pytest.raises(GemmcError) as e:
        gemmc.parse(source, "k.gemm")
    return e.value.render().splitlines()[0]


# -- the language's errors, each at its token ------------------------------------------------

ERRORS = [
    (dict(expr="X @ W grouped by nope"), "k.gemm:8:24: error: 'nope' is not declared; a grouped product's sizes "
                                         "are a vector i32[G], each group's rows of A and C"),
    (dict(sizes="rows: f32[E]"), "k.gemm:8:24: error: 'rows' is f32[E]; a grouped product's sizes are a vector "
                                 "i32[G], each group's rows of A and C"),
    (dict(w="W: f32[K, N]"), "k.gemm:8:11: error: 'W' is [K, N]; a grouped product's B has one matrix per group: "
                             "[E, K, N]"),
    (dict(w="W: f32[T, K, N]"), "k.gemm:4:10: error: 'W' has T matrices but 'rows' has E groups; B's leading dim "
                                "is the group dim (E)"),
    (dict(w="W: f32[E, K, N] col_major"), "k.gemm:8:11: error: a grouped B 'W' is row-major [E, K, N] (or [E, N, K] "
                                          "used as 'W.T'); col_major is for matrices"),
    (dict(x="X: f32[K, T]", expr="X.T @ W grouped by rows"),
     "k.gemm:8:7: error: a grouped product's A is row-major [M, K]: each group's rows are rows of A and C (not 'X.T')"),
    (dict(expr="X @ W"), "k.gemm:8:11: error: 'W' is [E, K, N], a grouped product's B (one matrix per group); "
                         "write 'C = A @ W grouped by SIZES' with SIZES: i32[E]"),
    (dict(x="X: i8[T, K]", w="W: i8[E, K, N]", y="Y: i32[T, N]"),
     "k.gemm:8:24: error: an integer product is not grouped yet; grouped products are of f32, f16, bf16 or FP8 "
     "operands"),
    (dict(expr="X @ W + rows grouped by rows"), "k.gemm:8:15: error: 'rows' is i32; an epilogue operand is f32, "
                                                "f16, bf16"),
    (dict(expr="X @ W + W grouped by rows"), "k.gemm:8:15: error: 'W' is [E, K, N]; an epilogue operand is [T, N] "
                                             "(element-wise), [T] (one value a row) or [N] (one value a column)"),
    # grouped and batched: a 3-D A or C in a grouped product is an error at its use (not a batch)
    (dict(x="X: f32[E, T, K]"), "k.gemm:8:7: error: 'X' is [E, T, K]; a grouped product is not batched (yet): its A "
                                "and C are [M, K] and [M, N], only B is 3-D ([G, K, N])"),
    (dict(x="X: f32[E, T, K]", y="Y: f32[E, T, N]"),
     "k.gemm:8:3: error: 'Y' is [E, T, N]; a grouped product is not batched (yet): its A and C are [M, K] and "
     "[M, N], only B is 3-D ([G, K, N])"),
    (dict(w="W: f32[E/32, K, N]"), "k.gemm:4:12: error: the group dim 'E' is a dim as declared, not divided"),
]


@pytest.mark.parametrize("parts,expected", ERRORS, ids=[str(i) for i in range(len(ERRORS))])
def test_misuse_is_a_located_error(parts, expected):
    assert error_of(program(**parts)) == expected


@pytest.mark.parametrize("parts,after", [
    (dict(extra="m: f32"), "  m = amax(X @ W)\n"),
    (dict(extra="Z: f32[T, N]"), "  Z = relu(Y)\n"),
    (dict(extra="s: f32", y="Y: f8e4m3fn[T, N]", expr="saturate(s * (X @ W)) grouped by rows"), ""),
])
def test_output_conversion_and_more_outputs_are_refused_at_grouped(parts, after):
    """An amax, more outputs, an FP8 C (docs/language.md, "Output conversion"): not with groups yet."""
    source = program(**parts).replace("\n}\n", f"\n{after}}}\n")
    message = error_of(source)
    assert message.endswith("a grouped product has one output C of f32, f16 or bf16 (no more outputs, amax or "
                            "FP8 C)") and message.startswith("k.gemm:8:"), message


def test_grouped_is_a_keyword_after_the_product():
    assert error_of(program(expr="X @ W grouped rows")) == "k.gemm:8:21: error: unexpected 'rows'; expected 'by'"


# -- the sizes a run makes -----------------------------------------------------------------


@pytest.mark.parametrize("groups,rows", [(1, 5), (2, 1), (8, 300), (8, 3), (64, 1000)])
def test_random_sizes_sum_to_m_with_an_empty_group(groups, rows):
    sizes = random_sizes(np.random.default_rng(groups * rows), groups, rows)
    assert len(sizes) == groups and sizes.sum() == rows and (sizes >= 0).all()
    assert groups == 1 or (sizes == 0).any()


# -- every pass against numpy over group sizes ------------------------------------------------

PIPELINES = ["", "step1", "step3", "step5", "step7",
             "gemm-to-kernel,lds-tiling,register-tiling,split-k{factor=2}",
             "gemm-to-kernel,lds-tiling,register-tiling,split-k{factor=3 reduce=workspace},double-buffer"]


def run_with_sizes(source: str, pipeline: str | None, sizes: list[int], arch: str = "gfx942", seed: int = 0):
    """(C the lowered module computes, the per-group float64 reference) on random inputs and `sizes`."""
    module = gemmc.lower(gemmc.parse(source), pipeline, arch)
    fn = host_function(module)
    spec = matmul_spec(module, fn)
    args = random_inputs(fn, {}, seed)
    args[spec.group_sizes] = np.asarray(sizes, dtype=np.int64)
    a, b = operands(spec, args)
    ref = product(a, b, args[spec.group_sizes])
    execute(module, None, args, arch)
    return args[spec.c].astype(np.float64), ref


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sizes=st.lists(st.integers(0, 40), min_size=1, max_size=6).filter(lambda s: sum(s) > 0),
       n=st.integers(1, 24), k=st.integers(1, 24), transpose=st.booleans(),
       pipeline=st.sampled_from(PIPELINES[1:]), seed=st.integers(0, 2**16))
def test_interpreter_against_numpy_over_group_sizes(sizes, n, k, transpose, pipeline, seed):
    w = "W: f32[E, N, K]" if transpose else "W: f32[E, K, N]"
    expr = f"X @ {'W.T' if transpose else 'W'} grouped by rows"
    source = program(dims=f"T = {sum(sizes)}, E = {len(sizes)}, N = {n}, K = {k}", w=w, expr=expr)
    got, ref = run_with_sizes(source, pipeline, sizes, seed=seed)
    assert np.allclose(got, ref, rtol=1e-5, atol=1e-5 * k)


@pytest.mark.parametrize("pipeline", PIPELINES)
def test_every_pipeline_passes_the_check(pipeline):
    module = gemmc.lower(gemmc.parse(program(dims="T = 150, E = 6, N = 40, K = 24")), pipeline, "gfx942")
    result = gemmc.check(module, "gfx942")
    assert result.passed, result.summary()


def test_an_epilogue_and_dynamic_sizes():
    source = program(dims="T, E, N, K", extra="bias: f32[N]", expr="relu(X @ W + bias) grouped by rows")
    for dynamic in (False, True):
        module = gemmc.parse(source, defines=None if dynamic else {"T": 90, "E": 4, "N": 20, "K": 17})
        gemmc.lower(module, None, "gfx1100")
        result = gemmc.check(module, "gfx1100", {"T": 90, "E": 4, "N": 20, "K": 17})
        assert result.passed, result.summary()


@pytest.mark.parametrize("arch", AMD_ARCHS)
def test_the_example_passes_by_default(arch):
    module = gemmc.lower(gemmc.parse_file(str(ROOT / "examples/moe_grouped.gemm")), None, arch)
    assert gemmc.check(module, arch).passed


# -- planted bugs FAIL ---------------------------------------------------------------------------


def _search(module) -> scf.ForOp:
    return next(op for op in module.walk() if isinstance(op, scf.ForOp)
                and op.attributes.get(ROLE_ATTR) is not None and op.attributes[ROLE_ATTR].data == ROLE_GROUP)


def _plant(module, result: int, make) -> None:
    """Every use of the group search's result number `result` after it made to use `make(kb, value)`."""
    loop = _search(module)
    value = loop.results[result]
    kb = KernelBuilder(InsertPoint.after(loop))
    wrong = make(kb, value)
    for use in list(value.uses):
        if use.operation is not wrong.owner:
            use.operation.operands[use.index] = wrong


def _planted_check(pipeline: str, result: int, make) -> bool:
    """Whether the check passes the kernel with the bug planted (an access out of bounds, which the
    interpreter reports, does not pass either)."""
    module = gemmc.lower(gemmc.parse(program(dims="T = 120, E = 6, N = 16, K = 12")), pipeline, "gfx942")
    _plant(module, result, make)
    try:
        return gemmc.check(module, "gfx942").passed
    except GemmcError:
        return False


@pytest.mark.parametrize("pipeline", ["step1", "step3", "step7"])
def test_planted_wrong_experts_b_fails(pipeline):
    # each group multiplies by its neighbour's B (g xor 1)
    assert not _planted_check(pipeline, 4, lambda kb, g: kb.op(arith.XOrIOp(g, kb.index(1))))


@pytest.mark.parametrize("pipeline", ["step1", "step3", "step7"])
def test_planted_off_by_one_first_row_fails(pipeline):
    assert not _planted_check(pipeline, 2, lambda kb, row: kb.add(row, kb.index(1)))


@pytest.mark.parametrize("pipeline", ["step1", "step3"])
def test_planted_off_by_one_group_end_fails(pipeline):
    assert not _planted_check(pipeline, 3, lambda kb, end: kb.sub(end, kb.index(1)))


# -- targets -------------------------------------------------------------------------------------


@pytest.mark.skipif(not have_toolchain(), reason="no HIP toolchain")
@pytest.mark.parametrize("arch", AMD_ARCHS)
def test_the_example_builds_without_scratch(arch):
    module = gemmc.lower(gemmc.parse_file(str(ROOT / "examples/moe_grouped.gemm")), None, arch)
    text = gemmc.emit(module, arch, "asm")
    assert ".private_segment_fixed_size: 0" in text


@pytest.mark.skipif(not have_toolchain(), reason="no HIP toolchain")
def test_the_asm_level_run_passes(capsys):
    from gemmc.driver.cli import main

    rc = main(["run", str(ROOT / "examples/moe_grouped.gemm"), "--arch", "gfx1201", "-D", "M=77", "--level", "asm"])
    assert rc == 0 and "PASS" in capsys.readouterr().out


def test_the_own_backend_refuses_at_the_kernel():
    module = gemmc.lower(gemmc.parse(program()), None, "gfx942", backend="gcn")
    with pytest.raises(GemmcError) as e:
        gemmc.emit(module, "gfx942", "gcn")
    assert "grouped" in e.value.render()


def test_sm90_prints_the_group_search():
    module = gemmc.lower(gemmc.parse(program()), None, "sm_90")
    text = gemmc.emit(module, "sm_90", "hip")
    assert "const int32_t* __restrict__ rows" in text


def test_the_cost_model_counts_the_busy_tiles():
    from gemmc.cost.kernel import read_kernel
    from gemmc.transforms.grouping import grouped_info

    module = gemmc.lower(gemmc.parse(program(dims="T = 1000, E = 8, N = 64, K = 64")), "step3", "gfx942")
    k = read_kernel(module)
    tile = grouped_info(k.kernel)[1]  # 125 rows a group: one tile each, or two of 64
    assert k.grid.grid[1] == -(-1000 // tile) + 8 and k.grid.busy_y == 8 * -(-125 // tile)


# -- the HIP with its harness, run on the CPU (tests/test_emit_hip.run_on_cpu) -------------------


def _example_harness(arch: str) -> str:
    module = gemmc.lower(gemmc.parse_file(str(ROOT / "examples/moe_grouped.gemm")), None, arch)
    return gemmc.emit(module, arch, "hip", harness=True)


@pytest.mark.parametrize("arch", ["gfx942", "gfx1100"])
def test_the_example_passes_its_harness_on_the_cpu(llvm, tmp_path, arch):
    """The default kernel as printed (the walk, B[g]'s copies, MFMA / WMMA stood in for) and the
    harness's random sizes and per-group reference."""
    import cpu_matrix
    from test_emit_hip import run_on_cpu

    source = _example_harness(arch)
    proc = run_on_cpu(llvm, source, [], tmp_path, cpu_matrix.builtins(arch, source))
    assert proc.returncode == 0 and ": PASSED" in proc.stdout, proc.stdout + proc.stderr


def test_the_harness_fails_a_kernel_reading_the_wrong_experts_b(llvm, tmp_path):
    import cpu_matrix
    from test_emit_hip import run_on_cpu

    source = _example_harness("gfx942")
    assert "(group * 96 + " in source
    source = source.replace("(group * 96 + ", "((group ^ 1) * 96 + ")
    proc = run_on_cpu(llvm, source, [], tmp_path, cpu_matrix.builtins("gfx942", source))
    assert ": FAILED" in proc.stdout, proc.stdout + proc.stderr


def test_direct_copies_read_the_groups_matrix():
    """direct-to-lds (global_load_lds) moves a grouped B.T's tiles from its group's matrix."""
    source = program(dims="T = 150, E = 6, N = 64, K = 96", x="X: f16[T, K]", w="W: f16[E, N, K]",
                     expr="X @ W.T grouped by rows")
    pipeline = ("gemm-to-kernel,lds-tiling{block-m=64 block-n=64 block-k=32},register-tiling,matrix-cores,"
                "direct-to-lds,double-buffer")
    module = gemmc.lower(gemmc.parse(source), pipeline, "gfx942")
    from gemmc.transforms.copy_lowering import with_copies_lowered

    gathers = [op for op in with_copies_lowered(module).walk() if op.name == "amdgpu.gather_to_lds"
               and op.attributes["gemm.role"].data == "load_b"]
    assert gathers and all(len(op.srcIndices) == 3 for op in gathers)
    result = gemmc.check(module, "gfx942")
    assert result.passed, result.summary()
