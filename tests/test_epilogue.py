"""Fused epilogues (docs/language.md, "Fused epilogues"): the language's located errors, every
pass's kernel against the float64 reference, planted bugs that must FAIL, the erf and tanh helpers'
accuracy, the HIP on every AMD target (no calls, no scratch) and the cost model's counts."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gemmc
from gemmc.emit.math_helpers import emulate
from gemmc.interp import check as interp_check
from gemmc.interp.check import matmul_spec
from gemmc.interp.epilogue_ref import LIBM_ULPS
from gemmc.support.diagnostics import GemmcError
from gemmc.target.toolchain import have_toolchain

ROOT = Path(__file__).resolve().parents[1]
AMD_ARCHS = ["gfx90a", "gfx942", "gfx950", "gfx1100", "gfx1201"]


def program(expr: str, *, dims: str = "M = 19, N = 13, K = 11", decls: str = "", acc: str = "f32",
            ab: str = "f32", c: str = "f32") -> str:
    return f"""kernel k {{
  dim {dims}
  A: {ab}[M, K]
  B: {ab}[K, N]
  C: {c}[M, N]
  b: f32[N]
  s: f32[M]
  R: f16[M, N]
  alpha: {acc}
  {decls}
  acc {acc}
  C = {expr}
}}
"""


def error_of(source: str) -> str:
    with pytest.raises(GemmcError) as e:
        gemmc.parse(source, "k.gemm")
    return e.value.render().splitlines()[0]


# -- the language's errors, each at its token ------------------------------------------------

ERRORS = [
    ("swish(A @ B)", "k.gemm:14:7: error: unknown function 'swish'; the functions are relu, gelu, gelu_tanh, "
                     "silu, sigmoid, tanh, abs, clamp, saturate"),
    ("relu(A @ B, b)", "k.gemm:14:7: error: 'relu' takes 1 argument (relu(x)), not 2"),
    ("clamp(A @ B, 0.0)", "k.gemm:14:7: error: 'clamp' takes 3 arguments (clamp(x, lo, hi)), not 2"),
    ("clamp(A @ B, b, 1.0)", "k.gemm:14:20: error: clamp's bounds are numbers or scalars (clamp(x, lo, hi))"),
    ("clamp(A @ B, 2.0, 1.0)", "k.gemm:14:25: error: clamp's lower bound 2 is above its upper bound 1"),
    ("A @ B + v", "k.gemm:14:15: error: 'v' is [K]; an epilogue operand is [M, N] (element-wise), [M] (one value "
                  "a row) or [N] (one value a column)"),
    ("A @ B + q", "k.gemm:14:15: error: 'q' is f8e4m3fn; an epilogue operand is f32, f16, bf16"),
    ("A @ B + nope", "k.gemm:14:15: error: 'nope' is not declared; an epilogue reads scalars and matrices or "
                     "vectors of the output's dims"),
    ("A @ B + K", "k.gemm:14:15: error: 'K' is a dim; an epilogue reads scalars and matrices or vectors of the "
                  "output's dims"),
    ("A @ B + A @ B.T", "k.gemm:14:15: error: an assignment has one product A @ B (written again it is the same "
                        "sum); this is another"),
    ("relu(b)", "k.gemm:14:12: error: the assignment has no product; expected 'A @ B' (a matrix product) in it"),
    ("relu(A @ b)", "k.gemm:14:16: error: 'b' is a vector [N]; expected a matrix operand (a vector is an "
                    "epilogue's operand: C = A @ B + b)"),
    ("A @ B + 1e39", "k.gemm:14:15: error: scale 1e39 overflows the accumulator type f32 (at most 3.40282e+38)"),
    ("A @ B + T", "k.gemm:14:15: error: 'T' is col_major; an epilogue matrix is row-major, as the output"),
]


@pytest.mark.parametrize("expr,expected", ERRORS, ids=[e for e, _ in ERRORS])
def test_misuse_is_a_located_error(expr, expected):
    decls = "v: f32[K]\n  q: f8e4m3fn[M, N]\n  T: f32[M, N] col_major"
    assert error_of(program(expr, decls=decls)) == expected


def test_integer_product_takes_no_epilogue():
    source = """kernel k {
  dim M = 8, N = 8, K = 8
  A: i8[M, K]
  B: i8[K, N]
  C: i32[M, N]
  C = relu(A @ B)
}
"""
    assert error_of(source) == ("k.gemm:6:7: error: an integer product takes no fused epilogue (functions, vectors, "
                                "other matrices) into its i32 C: C = A @ B or C = A @ B + C; an epilogue requantizes "
                                "to an i8 C: C = saturate(s * (A @ B))")


def test_bf16_operand_of_an_f16_accumulator():
    """bf16 into f16 goes through f32 (rounded once, as beta * C of a bf16 C does)."""
    module = gemmc.lower(gemmc.parse(program("relu(A @ B + Z)", decls="Z: bf16[M, N]", acc="f16", ab="f16")),
                         "step3", "gfx1100")
    assert gemmc.check(module, "gfx1100").passed


def test_square_output_cannot_tell_a_vector_by_name():
    source = """kernel k {
  dim N = 8, K = 8
  A: f32[N, K]
  B: f32[K, N]
  C: f32[N, N]
  b: f32[N]
  C = A @ B + b
}
"""
    assert error_of(source).startswith("k.gemm:7:15: error: 'b' is [N], and the output is [N, N]")


def test_the_cli_prints_one_located_line_and_exits_1(tmp_path, capsys):
    from gemmc.driver.cli import main

    src = tmp_path / "k.gemm"
    src.write_text(program("swish(A @ B)"))
    assert main(["opt", str(src)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"{src}:12:7: error: unknown function 'swish'") and "Traceback" not in err


# -- every pass's kernel against the declared program ------------------------------------------

EXPRS = ["relu(A @ B + b)", "s * (A @ B) + R", "gelu(alpha * (A @ B) + b)", "gelu_tanh(A @ B) - 0.5 * R",
         "silu(A @ B + s)", "sigmoid(A @ B) * b", "tanh(A @ B + b + s)", "clamp(A @ B, -0.5, alpha)",
         "abs(A @ B - R)", "-(A @ B) * 2.0 + C"]
PIPELINES = {
    "step1": "step1",
    "step3": "step3",
    "step6": "step6",
    "matrix": "gemm-to-kernel,lds-tiling{block-m=32 block-n=32 block-k=16},register-tiling{thread-m=4 thread-n=4},"
              "matrix-cores,double-buffer,vectorize,lower-copies,swizzle-lds{strict=false},launch-bounds",
    "split-k": "gemm-to-kernel,lds-tiling{block-m=16 block-n=16 block-k=4},register-tiling{thread-m=2 thread-n=2},"
               "split-k{factor=3 reduce=workspace},double-buffer",
}


@pytest.mark.parametrize("pipeline", PIPELINES)
@pytest.mark.parametrize("expr", EXPRS)
def test_every_function_through_every_pipeline(expr, pipeline):
    ab = "f16" if pipeline == "matrix" else "f32"
    module = gemmc.lower(gemmc.parse(program(expr, ab=ab)), PIPELINES[pipeline], "gfx942")
    result = gemmc.check(module, "gfx942")
    assert result.passed, result.summary()


@pytest.mark.parametrize("pipeline", ["step3", None])
def test_f16_accumulator_epilogue(pipeline):
    """acc f16: the epilogue's arithmetic in f16, erf and tanh in f32 rounded back (docs/language.md);
    the product may be written twice (one sum)."""
    source = program("gelu(A @ B + b) * s + tanh(A @ B) - R", acc="f16", ab="f16", c="f16")
    module = gemmc.lower(gemmc.parse(source), pipeline, "gfx1100")
    result = gemmc.check(module, "gfx1100")
    assert result.passed, result.summary()


@pytest.mark.parametrize("arch", AMD_ARCHS)
def test_linear_example_passes_by_default(arch):
    module = gemmc.lower(gemmc.parse_file(str(ROOT / "examples/linear.gemm"), {"M": 40, "N": 72, "K": 48}), None, arch)
    result = gemmc.check(module, arch)
    assert result.passed, result.summary()


def test_atomic_split_k_takes_a_linear_epilogue():
    """s * (A @ B) + C is linear in the sum and C: the atomic adds and stream-k's fix-up are exact."""
    base = "gemm-to-kernel,lds-tiling{block-m=16 block-n=16 block-k=4},register-tiling{thread-m=2 thread-n=2}"
    for tail in ("split-k{factor=3}", "stream-k{workgroups=3}"):
        module = gemmc.lower(gemmc.parse(program("s * (A @ B) + C")), f"{base},{tail}", "gfx942")
        assert gemmc.check(module, "gfx942").passed


def test_atomic_reduction_refuses_a_nonlinear_epilogue():
    base = "gemm-to-kernel,lds-tiling{block-m=16 block-n=16 block-k=4},register-tiling{thread-m=2 thread-n=2}"
    with pytest.raises(GemmcError, match="reduce=atomic: the epilogue is not linear"):
        gemmc.lower(gemmc.parse(program("relu(A @ B)")), f"{base},split-k{{factor=3}}", "gfx942")


def test_stream_k_finishes_a_nonlinear_epilogue_in_the_last_contributor():
    """stream-k's shared tiles go through its workspace fix-up instead (tests/test_stream_k_fixup.py)."""
    base = "gemm-to-kernel,lds-tiling{block-m=16 block-n=16 block-k=4},register-tiling{thread-m=2 thread-n=2}"
    module = gemmc.lower(gemmc.parse(program("relu(A @ B)")), f"{base},stream-k{{workgroups=3}}", "gfx942")
    assert "gemm.fence" in gemmc.print_ir(module)
    assert gemmc.check(module, "gfx942").passed


def test_dynamic_sizes_dispatch_to_stream_k():
    """An f32 C's idle grid takes stream-k, its shared tiles' gelu applied by their last contributor."""
    source = program("gelu(A @ B + b)", dims="M, N, K")
    module = gemmc.lower(gemmc.parse(source), None, "gfx942")
    assert "stream-k{workgroups=" in module.attributes["gemmc.pipeline"].data
    assert gemmc.check(module, "gfx942", {"M": 19, "N": 13, "K": 11}).passed


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(m=st.integers(1, 40), n=st.integers(1, 40), k=st.integers(1, 40), expr=st.sampled_from(EXPRS),
       step=st.sampled_from(["step1", "step3", "step5"]), seed=st.integers(0, 2**16))
def test_interpreter_against_numpy_over_shapes(m, n, k, expr, step, seed):
    module = gemmc.lower(gemmc.parse(program(expr, dims=f"M = {m}, N = {n}, K = {k}")), step, "gfx942")
    result = gemmc.check(module, "gfx942", seed=seed)
    assert result.passed, result.summary()


# -- planted bugs FAIL ---------------------------------------------------------------------------


def planted(declared: str, kernel_of: str, decls_declared: str = "", decls_kernel: str = "") -> bool:
    """Whether the kernel of program `kernel_of` passes the check against `declared`'s meaning
    (same arguments, same shapes: a pass that wrote the wrong epilogue)."""
    dims = "M = 24, N = 24, K = 16"  # M = N: a vector fits either axis
    want = gemmc.parse(program(declared, dims=dims, decls=decls_declared))
    got = gemmc.lower(gemmc.parse(program(kernel_of, dims=dims, decls=decls_kernel)), "step3", "gfx942")
    spec = matmul_spec(want)
    return interp_check(got, {}, gemmc.get_arch("gfx942"), spec=spec).passed


def test_planted_bias_on_the_wrong_axis_fails():
    # the kernel adds the bias down the columns ([M]) where the program adds it along the rows ([N])
    assert planted("A @ B + s", "A @ B + s") and not planted("A @ B + c", "A @ B + c", "c: f32[N]", "c: f32[M]")


def test_planted_activation_before_the_scale_fails():
    assert not planted("relu(s * (A @ B))", "s * relu(A @ B)")
    assert not planted("gelu(alpha * (A @ B))", "alpha * gelu(A @ B)")


def test_planted_wrong_function_fails():
    assert not planted("gelu(A @ B)", "gelu_tanh(A @ B)")  # 1e-3 apart: far above the f32 bound
    assert not planted("silu(A @ B)", "sigmoid(A @ B)")


# -- the HIP's own erf and tanh -------------------------------------------------------------------


@pytest.mark.parametrize("name,fn,top", [("math.erf", np.vectorize(math.erf), 6.0), ("math.tanh", np.tanh, 12.0)])
def test_math_helpers_are_within_the_checkers_allowance(name, fn, top):
    x = np.concatenate([np.linspace(-top, top, 200001), np.geomspace(1e-30, 1.0, 2001), -np.geomspace(1e-30, 1.0, 2001)])
    x = x.astype(np.float32)
    got = emulate(name, x).astype(np.float64)
    want = fn(x.astype(np.float64))
    ulps = np.abs(got - want) / np.spacing(np.abs(want).astype(np.float32)).astype(np.float64)
    assert ulps.max() <= 1.5 < LIBM_ULPS


@pytest.mark.skipif(not have_toolchain(), reason="needs clang with the AMDGPU backend")
@pytest.mark.parametrize("arch", AMD_ARCHS)
def test_linear_example_builds_with_no_calls_and_no_scratch(arch):
    from gemmc.target.toolchain import compile_device, resource_report

    module = gemmc.lower(gemmc.parse_file(str(ROOT / "examples/linear.gemm")), None, arch)
    hip = gemmc.emit(module, arch, "hip")
    asm = compile_device(hip, arch, "asm")
    assert "s_swappc" not in asm  # erf inline: no call into a device library that is not linked
    for kernel in resource_report(hip, arch):
        assert kernel.scratch_bytes == 0 and kernel.vgpr_spill == 0


@pytest.mark.skipif(not have_toolchain(), reason="needs clang with the AMDGPU backend")
@pytest.mark.parametrize("arch", AMD_ARCHS)
def test_every_function_compiles_for_every_arch(arch):
    from gemmc.target.toolchain import compile_device

    expr = "tanh(gelu(silu(sigmoid(gelu_tanh(abs(clamp(relu(A @ B), -1.0, 1.0)))))) + b) + s"
    module = gemmc.lower(gemmc.parse(program(expr, ab="f16")), "step3", arch)
    assert "s_swappc" not in compile_device(gemmc.emit(module, arch, "hip"), arch, "asm")


# -- the cost model counts the epilogue -------------------------------------------------------------


def test_cost_model_counts_epilogue_instructions_and_bytes():
    from gemmc.cost.counts import count
    from gemmc.cost.kernel import read_kernel

    def counts(expr: str):
        module = gemmc.lower(gemmc.parse(program(expr, dims="M = 64, N = 64, K = 32")), "step3", "gfx942")
        return count(read_kernel(module), gemmc.get_arch("gfx942"))

    plain, fused = counts("A @ B"), counts("gelu(A @ B + b) + R")
    assert fused.global_load_bytes - plain.global_load_bytes == 64 * 64 * 4 + 64 * 64 * 2  # b per element, R
    assert fused.valu_instrs - plain.valu_instrs >= 64 * 64 / 64 * (22 + 8)  # erf's expansion, the ops


def test_selection_splits_a_nonlinear_epilogue_through_a_workspace():
    """An idle grid's split-k candidates reduce an f32 C with atomics, which relu(... + b) refuses:
    the selection then predicts them through a workspace (the epilogue in the reduce kernel)."""
    source = program("relu(A @ B + b)", dims="M = 256, N = 256, K = 8192")
    module = gemmc.lower(gemmc.parse(source), None, "gfx942")
    assert "reduce=workspace" in module.attributes["gemmc.pipeline"].data


def test_own_backend_runs_a_linear_epilogue_and_refuses_a_function():
    """gemmc's AMDGCN backend selects the broadcast loads and the arithmetic; erf it lacks, and says so."""
    own = "gemm-to-kernel,unroll-loops,promote-private,lower-to-amdgcn,amdgcn-regalloc,insert-waitcnt,amdgcn-finalize"
    source = program("s * (A @ B) + b - R", dims="M = 9, N = 7, K = 5")
    module = gemmc.lower(gemmc.parse(source), own, "gfx942")
    assert gemmc.check(module, "gfx942").passed
    with pytest.raises(GemmcError, match="lower-to-amdgcn: cannot select instructions for 'math.erf'"):
        gemmc.lower(gemmc.parse(program("gelu(A @ B)", dims="M = 9, N = 7, K = 5")), own, "gfx942")


def test_sm90_hip_uses_cuda_math():
    module = gemmc.lower(gemmc.parse(program("clamp(gelu(A @ B), -1.0, 1.0) + tanh(b)")), "step3", "sm_90")
    hip = gemmc.emit(module, "sm_90", "hip")
    assert "erff(" in hip and "tanhf(" in hip and "gemmc_maximumf(" in hip
    assert "__builtin_elementwise" not in hip and "gemmc_erf" not in hip


def test_interpreter_and_cost_model_count_the_epilogue_alike():
    """The interpreter's VALU count and the cost model's agree on a kernel with exp, erf, tanh and a
    division (each counted as its expansion, MATH_VALU_INSTRS)."""
    from gemmc.cost.counts import count
    from gemmc.cost.kernel import read_kernel

    for step in ("step1", "step3"):
        module = gemmc.lower(gemmc.parse(program("gelu(tanh(A @ B)) + silu(b + s)", dims="M = 32, N = 32, K = 8")),
                             step, "gfx942")
        counted = count(read_kernel(module, {}), gemmc.get_arch("gfx942")).stats_dict()
        ran = gemmc.check(module, "gfx942").stats.as_dict()
        assert counted["valu_instrs"] == ran["valu_instrs"] and counted["flops"] == ran["flops"]


@pytest.mark.skipif(not have_toolchain(), reason="needs clang with the AMDGPU backend")
@pytest.mark.parametrize("arch", ["gfx942", "gfx1201"])
def test_dynamic_epilogue_host_side_compiles_with_its_harness(arch, tmp_path):
    """The launcher passes the vectors and the residual with their dynamic sizes, and the harness
    fills them and checks C against the epilogue in double."""
    from gemmc.target.toolchain import find_toolchain
    from test_host_compile import _assert_host_compiles

    source = program("gelu(alpha * s * (A @ B) + b) + R", dims="M, N, K", ab="bf16", c="bf16")
    _assert_host_compiles(find_toolchain(), source, arch, None, tmp_path)


def expressions(depth: int = 3):
    """Random epilogue expressions over the product, the broadcast operands, a scalar and numbers."""
    leaves = st.sampled_from(["(A @ B)", "b", "s", "R", "alpha", "0.5", "2.0"])
    unary = ["relu", "gelu", "gelu_tanh", "silu", "sigmoid", "tanh", "abs"]

    def extend(inner):
        return st.one_of(
            st.tuples(st.sampled_from(unary), inner).map(lambda t: f"{t[0]}({t[1]})"),
            st.tuples(inner, st.sampled_from(["+", "-", "*"]), inner).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
            inner.map(lambda x: f"clamp({x}, -0.75, alpha)"),
            inner.map(lambda x: f"-{x}"),
        )

    return st.recursive(leaves, extend, max_leaves=6).filter(lambda e: "A @ B" in e)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(expr=expressions(), step=st.sampled_from(["step1", "step4"]), seed=st.integers(0, 2**16),
       acc=st.sampled_from(["f32", "f16"]))
def test_random_expressions_against_the_reference(expr, step, seed, acc):
    """Any expression the grammar takes: the kernel of each pipeline within the propagated bound (f16:
    exp(12) overflows to inf and silu to 0; the bound allows what may overflow)."""
    t = "f16" if acc == "f16" else "f32"
    module = gemmc.lower(gemmc.parse(program(expr, dims="M = 21, N = 18, K = 13", acc=acc, ab=t, c=t)), step,
                         "gfx942")
    result = gemmc.check(module, "gfx942", seed=seed)
    assert result.passed, f"C = {expr}\n{result.summary()}"
