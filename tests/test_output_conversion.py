"""Output conversion (docs/language.md, "Output conversion"): an FP8 C with a scale and saturate,
an integer product requantized to i8; the language's located errors, every pass's kernel against
the float64 reference, planted bugs that FAIL, both interpreters and the HIP of each target."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from xdsl.dialects import arith, math

import gemmc
from gemmc.interp import check as interp_check
from gemmc.interp.check import matmul_spec
from gemmc.support.diagnostics import GemmcError
from gemmc.target.toolchain import have_toolchain

ROOT = Path(__file__).resolve().parents[1]
AMD_ARCHS = ["gfx90a", "gfx942", "gfx950", "gfx1100", "gfx1201"]
FP8_OUT = {"gfx942": "f8e4m3fnuz", "gfx950": "f8e4m3fn", "gfx1201": "f8e5m2"}  # a format each target has


def fp8_program(expr: str, c: str = "f8e4m3fn", *, dims: str = "M = 19, N = 13, K = 11", ab: str = "bf16",
                acc: str = "f32", decls: str = "") -> str:
    return f"""kernel k {{
  dim {dims}
  A: {ab}[M, K]
  B: {ab}[K, N]
  C: {c}[M, N]
  s: f32[M]
  t: f32[N]
  b: f32[N]
  alpha: {acc}
  {decls}
  acc {acc}
  C = {expr}
}}
"""


def int_program(expr: str, c: str = "i8", *, dims: str = "M = 19, N = 13, K = 40", a: str = "i8", b: str = "i8",
                decls: str = "") -> str:
    return f"""kernel q {{
  dim {dims}
  A: {a}[M, K]
  B: {b}[K, N]
  C: {c}[M, N]
  s: f32[M]
  t: f32[N]
  z: f32
  {decls}
  C = {expr}
}}
"""


def error_of(source: str, arch: str | None = None) -> str:
    with pytest.raises(GemmcError) as e:
        gemmc.parse(source, "k.gemm", arch=arch)
    return e.value.render().splitlines()[0]


# -- the language's errors, each at its token -----------------------------------------------------

ERRORS = [
    (fp8_program("s * (A @ B)"), None, "k.gemm:5:6: error: the output 'C' is f8e4m3fn: its value is converted "
                                       "with saturation; write C = saturate(...)"),
    (fp8_program("A @ B"), None, "k.gemm:5:6: error: the output 'C' is f8e4m3fn: its value is converted with "
                                 "saturation; write C = saturate(...)"),
    (fp8_program("relu(saturate(A @ B))"), None, "k.gemm:12:12: error: saturate(x) converts the stored value to "
                                                 "f8e4m3fn's range: it is the outermost call (C = saturate(...))"),
    (fp8_program("saturate(A @ B, 1.0)"), None, "k.gemm:12:7: error: 'saturate' takes 1 argument (saturate(x)), not 2"),
    # an FP8 C converts in software where the arch lacks the format; FP8 operands need the arch's
    (fp8_program("saturate(A @ B)", ab="f8e4m3fn"), "gfx1100", "k.gemm:3:6: error: gfx1100 cannot do f8e4m3fn; its "
                                                               "types: f32, f16, bf16"),
    (fp8_program("saturate(A @ B)", ab="f8e4m3fnuz"), "gfx950", "k.gemm:3:6: error: gfx950 cannot do f8e4m3fnuz; its "
                                                                "types: f32, f16, bf16, f8e4m3fn, f8e5m2, f6e2m3fn, "
                                                                "f6e3m2fn, f4e2m1fn, f8e8m0fnu"),
    (fp8_program("saturate(A @ B)", "f8e4m3fnuz"), "sm_90", "k.gemm:5:6: error: sm_90 cannot do f8e4m3fnuz; its "
                                                            "types: f32, f16, bf16, f8e4m3fn, f8e5m2"),
    (int_program("A @ B"), None, "k.gemm:5:6: error: the output 'C' is i8: an integer product is requantized to it "
                                 "by an epilogue that saturates (C = saturate(s * (A @ B)))"),
    (int_program("s * (A @ B)"), None, "k.gemm:5:6: error: the output 'C' is i8: its value is converted with "
                                       "saturation; write C = saturate(...)"),
    (int_program("saturate(s * (A @ B))", "i32"), None, "k.gemm:10:7: error: an integer product takes no fused "
                                                        "epilogue (functions, vectors, other matrices) into its i32 C: "
                                                        "C = A @ B or C = A @ B + C; an epilogue requantizes to an i8 "
                                                        "C: C = saturate(s * (A @ B))"),
    (int_program("saturate(w * (A @ B))", decls="w: i32"), None, "k.gemm:10:16: error: scalar 'w' is i32 but an "
                                                                 "integer product's epilogue is f32"),
    (fp8_program("saturate(A @ B)", "i8"), None, "k.gemm:5:6: error: the output 'C' is i8, the output of i8 and u8 "
                                                 "operands; 'A' is bf16"),
]


@pytest.mark.parametrize("source,arch,expected", ERRORS, ids=[str(i) for i in range(len(ERRORS))])
def test_misuse_is_a_located_error(source, arch, expected):
    assert error_of(source, arch) == expected


def test_saturate_of_a_wide_output_clamps_to_its_finite_range():
    """saturate on an f16 C clamps to +-65504: an overflowing element is 65504, not inf."""
    module = gemmc.lower(gemmc.parse(fp8_program("saturate(s * (A @ B))", "f16")), "step3", "gfx942")
    assert gemmc.check(module, "gfx942").passed
    consts = [op.value.value.data for op in module.walk() if isinstance(op, arith.ConstantOp)
              and hasattr(op.value, "value") and isinstance(op.value.value.data, float)]
    assert 65504.0 in consts and -65504.0 in consts


# -- every pass's kernel against the declared program ------------------------------------------------

FP8_EXPRS = ["saturate(A @ B)", "saturate(s * (A @ B))", "saturate(t * (A @ B) + b)", "saturate(alpha * gelu(A @ B))",
             "saturate(16.0 * (A @ B))"]
PIPELINES = {
    "step1": "step1",
    "step3": "step3",
    "step6": "step6",
    "step7": "step7",
    "matrix": "gemm-to-kernel,lds-tiling{block-m=32 block-n=32 block-k=16},register-tiling{thread-m=4 thread-n=4},"
              "matrix-cores,double-buffer,vectorize,lower-copies,swizzle-lds{strict=false},launch-bounds",
    "split-k": "gemm-to-kernel,lds-tiling{block-m=16 block-n=16 block-k=4},register-tiling{thread-m=2 thread-n=2},"
               "split-k{factor=3 reduce=workspace},double-buffer",
}


@pytest.mark.parametrize("pipeline", PIPELINES)
@pytest.mark.parametrize("arch", FP8_OUT)
@pytest.mark.parametrize("expr", FP8_EXPRS)
def test_fp8_output_through_every_pipeline(expr, arch, pipeline):
    if pipeline == "matrix" and arch == "gfx1201":
        pytest.skip("the 32x32 tile's 4x2 waves are CDNA's; step7 takes gfx1201's matrix cores")
    module = gemmc.lower(gemmc.parse(fp8_program(expr, FP8_OUT[arch])), PIPELINES[pipeline], arch)
    result = gemmc.check(module, arch)
    assert result.passed and result.saturated is not None, result.summary()


@pytest.mark.parametrize("pipeline", ["step1", "step3", "step6", "step7", None])
@pytest.mark.parametrize("arch", AMD_ARCHS)
@pytest.mark.parametrize("expr,signs", [("saturate(s * (A @ B))", ("i8", "i8")),
                                        ("saturate(z * t * (A @ B) + 3.0)", ("u8", "i8")),
                                        ("saturate(relu(z * (A @ B)))", ("i8", "u8"))])
def test_requantization_through_every_pipeline(expr, signs, arch, pipeline):
    if pipeline == "step7" and "u8" in signs and arch.startswith("gfx9"):
        pytest.skip("CDNA's i8 MFMAs multiply signed bytes only (mfma-lowering refuses u8; the default keeps FMA)")
    module = gemmc.lower(gemmc.parse(int_program(expr, a=signs[0], b=signs[1])), pipeline, arch)
    result = gemmc.check(module, arch)
    assert result.passed and result.saturated is not None, result.summary()


@pytest.mark.parametrize("tail", ["split-k{factor=3}", "stream-k{workgroups=3}"])
def test_atomic_reductions_refuse_an_fp8_output(tail):
    base = "gemm-to-kernel,lds-tiling{block-m=16 block-n=16 block-k=4},register-tiling{thread-m=2 thread-n=2}"
    with pytest.raises(GemmcError, match="atomic adds of 8-bit values round every partial sum; use reduce=workspace"):
        gemmc.lower(gemmc.parse(fp8_program("saturate(s * (A @ B))", "f8e4m3fnuz")), f"{base},{tail}", "gfx942")


def test_split_k_refuses_a_requantized_product():
    base = "gemm-to-kernel,lds-tiling{block-m=16 block-n=16 block-k=4},register-tiling{thread-m=2 thread-n=2}"
    with pytest.raises(GemmcError, match=r"an integer product \(C i8\) is not split along K yet"):
        gemmc.lower(gemmc.parse(int_program("saturate(s * (A @ B))")), f"{base},split-k{{factor=3 reduce=workspace}}",
                    "gfx942")


def test_dynamic_fp8_output_dispatches():
    module = gemmc.lower(gemmc.parse(fp8_program("saturate(s * (A @ B))", dims="M, N, K")), None, "gfx950")
    assert gemmc.check(module, "gfx950", {"M": 19, "N": 13, "K": 11}).passed


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(m=st.integers(1, 33), n=st.integers(1, 33), k=st.integers(1, 70), seed=st.integers(0, 2**16),
       step=st.sampled_from(["step1", "step3", "step5"]), arch=st.sampled_from(sorted(FP8_OUT)),
       expr=st.sampled_from(FP8_EXPRS))
def test_fp8_interpreter_against_numpy_over_shapes(m, n, k, seed, step, arch, expr):
    source = fp8_program(expr, FP8_OUT[arch], dims=f"M = {m}, N = {n}, K = {k}")
    result = gemmc.check(gemmc.lower(gemmc.parse(source), step, arch), arch, seed=seed)
    assert result.passed, result.summary()


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(m=st.integers(1, 33), n=st.integers(1, 33), k=st.integers(1, 300), seed=st.integers(0, 2**16),
       step=st.sampled_from(["step1", "step3", "step5"]), a=st.sampled_from(["i8", "u8"]),
       b=st.sampled_from(["i8", "u8"]))
def test_requant_interpreter_against_numpy_over_shapes(m, n, k, seed, step, a, b):
    source = int_program("saturate(z * s * (A @ B) - t)", dims=f"M = {m}, N = {n}, K = {k}", a=a, b=b)
    result = gemmc.check(gemmc.lower(gemmc.parse(source), step, "gfx942"), "gfx942", seed=seed)
    assert result.passed, result.summary()


# -- planted bugs FAIL ------------------------------------------------------------------------------


def _without_saturation(module) -> None:
    """The kernel's saturate dropped: the clamp's minimumf and maximumf bypassed and erased."""
    for mn in [op for op in module.walk() if isinstance(op, arith.MinimumfOp)]:
        mx = mn.lhs.owner
        assert isinstance(mx, arith.MaximumfOp)
        mn.result.replace_all_uses_with(mx.lhs)
        mn.detach(), mn.erase()
        mx.detach(), mx.erase()


def _truncating(module) -> None:
    """round-half-even dropped: fptosi truncates toward zero instead."""
    for r in [op for op in module.walk() if isinstance(op, math.RoundEvenOp)]:
        r.result.replace_all_uses_with(r.operand)
        r.detach(), r.erase()


@pytest.mark.parametrize("source,arch", [(fp8_program("saturate(s * (A @ B))", "f8e4m3fnuz"), "gfx942"),
                                         (fp8_program("saturate(s * (A @ B))", "f8e5m2"), "gfx950"),
                                         (int_program("saturate(s * (A @ B))"), "gfx942")])
def test_planted_missing_saturation_fails(source, arch):
    module = gemmc.lower(gemmc.parse(source), "step3", arch)
    assert gemmc.check(module, arch).passed
    _without_saturation(module)
    result = gemmc.check(module, arch)
    assert not result.passed and not result.saturated.passed, result.summary()


def test_planted_truncation_for_round_to_nearest_even_fails():
    module = gemmc.lower(gemmc.parse(int_program("saturate(s * (A @ B))")), "step3", "gfx942")
    _truncating(module)
    assert not gemmc.check(module, "gfx942").passed


@pytest.mark.parametrize("kind", ["fp8", "int"])
def test_planted_scale_on_the_wrong_axis_fails(kind):
    """The kernel scales each row (t: [M]) where the program scales each column (t: [N]); M = N."""
    dims = "M = 24, N = 24, K = 16"
    make = (lambda: fp8_program("saturate(t * (A @ B))", "f8e4m3fnuz", dims=dims)) if kind == "fp8" else (
        lambda: int_program("saturate(t * (A @ B))", dims=dims))
    want = gemmc.parse(make())
    got = gemmc.lower(gemmc.parse(make().replace("t: f32[N]", "t: f32[M]")), "step3", "gfx942")
    assert gemmc.check(gemmc.lower(gemmc.parse(make()), "step3", "gfx942"), "gfx942").passed
    assert not interp_check(got, {}, gemmc.get_arch("gfx942"), spec=matmul_spec(want)).passed


# -- the HIP of every target -------------------------------------------------------------------------


@pytest.mark.parametrize("arch", ["gfx942", "gfx950", "gfx1201", "sm_90"])
def test_fp8_store_is_the_targets_conversion(arch):
    fmt = "f8e4m3fn" if arch == "sm_90" else FP8_OUT[arch]
    module = gemmc.lower(gemmc.parse(fp8_program("saturate(s * (A @ B))", fmt)), "step3", arch)
    hip = gemmc.emit(module, arch, "hip")
    if arch == "sm_90":
        assert "cvt.rn.satfinite.e4m3x2.f32" in hip
    else:
        assert "__builtin_amdgcn_cvt_pk_" in hip


@pytest.mark.skipif(not have_toolchain(), reason="needs clang with the AMDGPU backend")
@pytest.mark.parametrize("arch", AMD_ARCHS)
def test_int8_requant_example_builds_with_no_scratch(arch):
    from gemmc.target.toolchain import resource_report

    module = gemmc.lower(gemmc.parse_file(str(ROOT / "examples/int8_requant.gemm")), None, arch)
    for kernel in resource_report(gemmc.emit(module, arch, "hip"), arch):
        assert kernel.scratch_bytes == 0 and kernel.vgpr_spill == 0


# gfx950's default: the interpreter reports clang's v_or_b32 overwriting the MFMA's v0 8 wait states
# after it (12 needed) where the wave takes the store's s_cbranch_execz: a hazard finding about
# LLVM's code (the same program with a bf16 C allocates other registers and passes)
ASM_CASES = [("gfx942", []), ("gfx1201", []), ("gfx950", ["-p", "step3"]),
             pytest.param("gfx950", [], marks=pytest.mark.xfail(reason="MFMA -> VALU WAW hazard in clang's code"))]


@pytest.mark.skipif(not have_toolchain(), reason="needs clang with the AMDGPU backend")
@pytest.mark.parametrize("arch,pipeline", ASM_CASES)
def test_fp8_output_runs_in_the_amdgcn_interpreter(arch, pipeline, tmp_path, capsys):
    """--level asm: clang's v_cvt_pk_fp8_f32 / _bf8_f32 in the AMDGCN interpreter, code for code."""
    from gemmc.driver.cli import main

    src = tmp_path / "k.gemm"
    src.write_text(fp8_program("saturate(t * (A @ B) + b)", FP8_OUT[arch]))
    assert main(["run", str(src), "--arch", arch, "--level", "asm", *pipeline]) == 0, capsys.readouterr().out


def test_own_backend_refuses_the_fp8_store_at_its_op():
    own = "gemm-to-kernel,unroll-loops,promote-private,lower-to-amdgcn,amdgcn-regalloc,insert-waitcnt,amdgcn-finalize"
    source = fp8_program("saturate(s * (A @ B))", "f8e4m3fnuz", dims="M = 9, N = 7, K = 5")
    with pytest.raises(GemmcError, match="lower-to-amdgcn: cannot select instructions for 'arith.maximumf'"):
        gemmc.lower(gemmc.parse(source), own, "gfx942")


# -- amax: a second output ----------------------------------------------------------------------


def amax_program(expr: str, amax: str = "amax(A @ B + b)", c: str = "f8e4m3fnuz", *, dims: str = "M = 19, N = 13, K = 11",
                 decls: str = "m: f32", ab: str = "bf16") -> str:
    return fp8_program(expr, c, dims=dims, ab=ab, decls=decls).replace("\n}\n", f"\n  m = {amax}\n}}\n")


AMAX_ERRORS = [
    (amax_program("saturate(A @ B)", "amax(A @ B, b)"), "k.gemm:13:7: error: 'amax' takes 1 argument (amax(x)), not 2"),
    (amax_program("saturate(A @ B)", decls=""), "k.gemm:13:3: error: 'm' is not declared; an amax output is a scalar "
                                                "'m: f32'"),
    (amax_program("saturate(A @ B)", decls="m: f16"), "k.gemm:13:3: error: 'm' is f16; an amax output is a scalar "
                                                      "'m: f32'"),
    (amax_program("saturate(A @ B)", "amax(b)"), "k.gemm:13:7: error: amax's argument has no product; expected "
                                                 "'A @ B' in it (the assignment's)"),
    (amax_program("saturate(A @ B)", "amax(A @ B.T)", dims="M = 13, N = 13, K = 13"),
     "k.gemm:13:12: error: amax is taken of the assignment's product A @ B; this is another"),
    (amax_program("saturate(A @ B + m)"), "k.gemm:12:24: error: 'm' is the amax output; an expression cannot read it"),
    (amax_program("saturate(amax(A @ B))"), "k.gemm:12:16: error: amax(x) is an output of its own: a second "
                                            "assignment 'm = amax(...)' of a scalar 'm: f32'"),
    (amax_program("saturate(A @ B)", "amax(saturate(A @ B))"), "k.gemm:13:12: error: saturate(x) converts the stored "
                                                               "value to f8e4m3fnuz's range: it is the outermost call "
                                                               "(C = saturate(...))"),
    (amax_program("saturate(A @ B)").replace("  m = amax", "  m = amax(A @ B)\n  m = amax"),
     "k.gemm:14:3: error: a kernel has one amax output (m = amax(...))"),
]


@pytest.mark.parametrize("source,expected", AMAX_ERRORS, ids=[str(i) for i in range(len(AMAX_ERRORS))])
def test_amax_misuse_is_a_located_error(source, expected):
    assert error_of(source) == expected


AMAX_PIPELINES = {**PIPELINES, "default": None}


@pytest.mark.parametrize("pipeline", AMAX_PIPELINES)
@pytest.mark.parametrize("arch", FP8_OUT)
def test_amax_through_every_pipeline(arch, pipeline):
    if pipeline == "matrix" and arch == "gfx1201":
        pytest.skip("the 32x32 tile's 4x2 waves are CDNA's; step7 takes gfx1201's matrix cores")
    source = amax_program("saturate(alpha * (A @ B + b))", c=FP8_OUT[arch])
    result = gemmc.check(gemmc.lower(gemmc.parse(source), AMAX_PIPELINES[pipeline], arch), arch)
    assert result.passed and len(result.amax) == 3, result.summary()


@pytest.mark.parametrize("arch", AMD_ARCHS)
def test_amax_of_a_requantized_product(arch):
    source = int_program("saturate(z * (A @ B))", decls="m: f32").replace("\n}\n", "\n  m = amax(A @ B)\n}\n")
    result = gemmc.check(gemmc.lower(gemmc.parse(source), None, arch), arch)
    assert result.passed and len(result.amax) == 3, result.summary()


@pytest.mark.parametrize("tail", ["split-k{factor=3}", "stream-k{workgroups=3}"])
def test_atomic_reductions_refuse_an_amax(tail):
    base = "gemm-to-kernel,lds-tiling{block-m=16 block-n=16 block-k=4},register-tiling{thread-m=2 thread-n=2}"
    source = amax_program("alpha * (A @ B)", "amax(A @ B)", c="f32")
    with pytest.raises(GemmcError, match="reduce=atomic: an amax output needs each element's whole sum"):
        gemmc.lower(gemmc.parse(source), f"{base},{tail}", "gfx942")


def test_planted_amax_of_the_scaled_result_fails():
    """The kernel raises amax with s * (A @ B + b), the program asks for A @ B + b."""
    want = gemmc.parse(amax_program("saturate(alpha * (A @ B + b))"))
    got = gemmc.lower(gemmc.parse(amax_program("saturate(alpha * (A @ B + b))", "amax(alpha * (A @ B + b))")),
                      "step3", "gfx942")
    assert not interp_check(got, {}, gemmc.get_arch("gfx942"), spec=matmul_spec(want)).passed


@pytest.mark.parametrize("arch", ["gfx942", "sm_90"])
def test_amax_is_an_integer_atomic_max_of_the_bits(arch):
    fmt = "f8e4m3fn" if arch == "sm_90" else "f8e4m3fnuz"
    module = gemmc.lower(gemmc.parse(amax_program("saturate(A @ B)", c=fmt)), "step3", arch)
    hip = gemmc.emit(module, arch, "hip")
    atomic = "atomicMax(" if arch == "sm_90" else "__hip_atomic_fetch_max("
    assert f"{atomic}reinterpret_cast<unsigned int*>(&m[0]), __builtin_bit_cast(unsigned int, magnitude)" in hip


# -- the examples on every AMD target -------------------------------------------------------------


def example(name: str) -> str:
    """The example's text, as it is on every target (fp8_amax's OCP e4m3 C in software where the
    target has no instruction for it)."""
    return (ROOT / "examples" / f"{name}.gemm").read_text()


@pytest.mark.parametrize("arch", AMD_ARCHS)
@pytest.mark.parametrize("name", ["int8_requant", "fp8_amax"])
def test_example_passes_by_default(name, arch):
    module = gemmc.lower(gemmc.parse(example(name), f"{name}.gemm", {"M": 40, "N": 72, "K": 48}), None, arch)
    result = gemmc.check(module, arch)
    assert result.passed, result.summary()


@pytest.mark.skipif(not have_toolchain(), reason="needs clang with the AMDGPU backend")
@pytest.mark.parametrize("arch", AMD_ARCHS)
@pytest.mark.parametrize("name", ["int8_requant", "fp8_amax"])
def test_example_builds_with_no_scratch(name, arch):
    from gemmc.target.toolchain import compile_device, resource_report

    module = gemmc.lower(gemmc.parse(example(name), f"{name}.gemm"), None, arch)
    hip = gemmc.emit(module, arch, "hip")
    assert "s_swappc" not in compile_device(hip, arch, "asm")
    for kernel in resource_report(hip, arch):
        assert kernel.scratch_bytes == 0 and kernel.vgpr_spill == 0


@pytest.mark.skipif(not have_toolchain(), reason="needs clang with the AMDGPU backend")
@pytest.mark.parametrize("arch", ["gfx942", "gfx950", "gfx1100", "gfx1201"])
def test_fp8_amax_example_runs_in_the_amdgcn_interpreter(arch, tmp_path, capsys):
    """--level asm: clang's atomic optimizer (a wave's max by s_ff1 / v_readlane, one umax a wave); on
    gfx942 and gfx1100 the OCP e4m3 C's conversion in software (gemmc/emit/fp8_soft.py) as clang
    compiles it."""
    from gemmc.driver.cli import main

    src = tmp_path / "fp8_amax.gemm"
    src.write_text(example("fp8_amax"))
    argv = ["run", str(src), "--arch", arch, "--level", "asm", "-D", "M=19", "-D", "N=37", "-D", "K=32"]
    assert main(argv) == 0, capsys.readouterr().out


# -- several outputs: C and Y = f(C) ----------------------------------------------------------------


def two_outputs(c_expr: str = "A @ B + b", y_expr: str = "gelu(C)", *, c: str = "bf16", y: str = "f16",
                dims: str = "M = 19, N = 13, K = 11", extra: str = "") -> str:
    return f"""kernel two {{
  dim {dims}
  A: f16[M, K]
  B: f16[K, N]
  b: f32[N]
  s: f32
  C: {c}[M, N]
  Y: {y}[M, N]
  Z: f32[N, M]
  {extra}
  C = {c_expr}
  Y = {y_expr}
}}
"""


MORE_ERRORS = [
    (two_outputs(y_expr="gelu(C) + A @ B.T"), "k.gemm:12:17: error: an assignment has one product A @ B (written "
                                              "again it is the same sum); this is another"),
    (two_outputs().replace("  Y = gelu(C)", "  Z = gelu(C)"), "k.gemm:12:3: error: 'Z' is [N, M]; another output is "
                                                              "[M, N] row-major, as C"),
    (two_outputs().replace("  Y = gelu(C)\n", "  Y = gelu(C)\n  Y = relu(C)\n"),
     "k.gemm:13:3: error: 'Y' is assigned already; each output is assigned once, apart from A and B"),
    (two_outputs(y_expr="gelu(W)", extra="W: f32[M, N]").replace("  Y = gelu(W)\n", "  Y = gelu(W)\n  W = relu(C)\n"),
     "k.gemm:12:12: error: 'W' is assigned below; an output is read after its assignment"),
    (two_outputs(y_expr="b"), "k.gemm:12:3: error: 'Y''s expression has neither the product nor an output assigned "
                              "before it"),
    (two_outputs(y="f8e4m3fnuz"), "k.gemm:8:6: error: the output 'Y' is f8e4m3fnuz: its value is converted with "
                                  "saturation; write Y = saturate(...)"),
    (two_outputs(y="i8", y_expr="saturate(C)"), "k.gemm:8:6: error: 'Y' is i8; an output must be f32, f16, bf16, "
                                                "f8e4m3fnuz, f8e5m2fnuz, f8e4m3fn, f8e5m2"),
]


@pytest.mark.parametrize("source,expected", MORE_ERRORS, ids=[str(i) for i in range(len(MORE_ERRORS))])
def test_more_outputs_misuse_is_a_located_error(source, expected):
    assert error_of(source) == expected


@pytest.mark.parametrize("pipeline", [*PIPELINES, None])
def test_two_outputs_through_every_pipeline(pipeline):
    if pipeline == "split-k":
        pytest.skip("split-k reduces one output (test_split_k_refuses_two_outputs)")
    module = gemmc.lower(gemmc.parse(two_outputs(y_expr="gelu(C) * s", y="f8e4m3fnuz").replace(
        "Y = gelu(C) * s", "Y = saturate(gelu(C) * s)")), PIPELINES.get(pipeline), "gfx942")
    result = gemmc.check(module, "gfx942")
    assert result.passed and len(result.others) == 1, result.summary()


@pytest.mark.parametrize("arch", AMD_ARCHS)
def test_two_outputs_by_default_on_every_target(arch):
    module = gemmc.lower(gemmc.parse(two_outputs(dims="M = 130, N = 72, K = 40")), None, arch)
    result = gemmc.check(module, arch)
    assert result.passed and len(result.others) == 1, result.summary()


def test_split_k_refuses_two_outputs():
    base = "gemm-to-kernel,lds-tiling{block-m=16 block-n=16 block-k=4},register-tiling{thread-m=2 thread-n=2}"
    with pytest.raises(GemmcError, match="the epilogue stores to two outputs; split-k reduces one"):
        gemmc.lower(gemmc.parse(two_outputs()), f"{base},split-k{{factor=3 reduce=workspace}}", "gfx942")


def test_planted_y_of_the_unrounded_c_fails():
    """Y reads C as stored (bf16): a kernel taking gelu of the f32 value instead is off by bf16's rounding,
    far above Y's (f16) bound."""
    want = gemmc.parse(two_outputs())
    got = gemmc.lower(gemmc.parse(two_outputs(y_expr="gelu(A @ B + b)")), "step3", "gfx942")
    assert not interp_check(got, {}, gemmc.get_arch("gfx942"), spec=matmul_spec(want)).passed


def test_three_outputs_and_an_amax():
    source = two_outputs(extra="W: f32[M, N]\n  m: f32").replace(
        "  Y = gelu(C)\n", "  Y = gelu(C)\n  W = relu(Y) - C\n  m = amax(A @ B)\n")
    module = gemmc.lower(gemmc.parse(source), "step6", "gfx1100")
    result = gemmc.check(module, "gfx1100")
    assert result.passed and len(result.others) == 2 and len(result.amax) == 2, result.summary()


@pytest.mark.skipif(not have_toolchain(), reason="needs clang with the AMDGPU backend")
def test_two_outputs_run_in_the_amdgcn_interpreter(tmp_path, capsys):
    from gemmc.driver.cli import main

    src = tmp_path / "two.gemm"
    src.write_text(two_outputs(y="f32"))  # (an f16 Y: clang's v_fma_mixlo_f16, which the interpreter lacks)
    assert main(["run", str(src), "--arch", "gfx942", "--level", "asm"]) == 0, capsys.readouterr().out
