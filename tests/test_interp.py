"""The interpreter against numpy: gemm level, step-1 kernels, hand-written SIMT kernels
(divergence, vectors, LDS), and the errors it must raise (out of bounds, races)."""

from __future__ import annotations

import re
import time

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from xdsl.dialects import arith, gpu, math, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr
from xdsl.parser import Parser
from xdsl.rewriter import InsertPoint, Rewriter

from gemmc.target.arch import get_arch
from gemmc.support.context import make_context
from gemmc.support.diagnostics import GemmcError
from gemmc.frontend import parse_gemm
from gemmc.interp import (
    SPEC_ATTR,
    InterpError,
    Scalar,
    Stats,
    check,
    execute,
    host_function,
    matmul_spec,
    random_inputs,
    reference,
    spec_attr,
    to_bf16,
)
from gemmc.driver.pipeline import parse_pipeline_spec, run_pipeline

GFX942 = get_arch("gfx942")  # wave64
GFX1100 = get_arch("gfx1100")  # wave32

SIMPLE = """kernel s { dim M, N, K  A: f32[M, K]  B: f32[K, N]  alpha: f32 beta: f32 C: f32[M, N]
                       C = alpha * A @ B + beta * C }"""


def lower(src: str, pipeline: str = "gemm-to-kernel"):
    module = parse_gemm(src)
    run_pipeline(module, parse_pipeline_spec(pipeline), make_context())
    return module


def kernel_of(module) -> gpu.FuncOp:
    return next(op for op in module.walk() if isinstance(op, gpu.FuncOp))


# -- bf16 ---------------------------------------------------------------------------------


def test_to_bf16_rounds_to_nearest_even():
    bits = np.array([0x3F800000, 0x3F808000, 0x3F818000, 0x3F807FFF, 0x3F808001], dtype=np.uint32)
    got = to_bf16(bits.view(np.float32)).view(np.uint32)
    # 1.0 exact; a tie rounds down to even; a tie rounds up to even; below / above the tie
    assert [hex(int(b)) for b in got] == ["0x3f800000", "0x3f800000", "0x3f820000", "0x3f800000", "0x3f810000"]
    assert np.isnan(to_bf16(np.float32(np.nan)))
    assert to_bf16(np.float32(-2.0)) == np.float32(-2.0)
    x = np.random.default_rng(0).standard_normal(1000).astype(np.float32)
    assert np.all(to_bf16(x).view(np.uint32) & 0xFFFF == 0)
    assert np.max(np.abs(to_bf16(x) - x) / np.abs(x)) <= 2.0**-8
    # float64 rounds once: 1 + 2^-8 + 2^-30 is above the tie, though float32 would round it onto it
    assert to_bf16(np.float64(1 + 2.0**-8 + 2.0**-30)) == np.float32(1 + 2.0**-7)
    assert to_bf16(np.float64(1 + 2.0**-8)) == np.float32(1.0)


# -- random GEMMs against numpy -------------------------------------------------------------


@st.composite
def gemm_sources(draw):
    """A .gemm kernel with random sizes, types, layouts, scalars, and static/dynamic dims."""
    sizes = {d: draw(st.integers(1, 300)) for d in "MNK"}
    static = {d: draw(st.booleans()) for d in "MNK"}
    dt = draw(st.sampled_from(["f32", "f16", "bf16"]))
    c_dt = draw(st.sampled_from(["f32", dt]))
    acc = draw(st.sampled_from(["f32", "f32", "f32", "f16"]))
    ta, tb, ca, cb = (draw(st.booleans()) for _ in range(4))
    alpha = draw(st.sampled_from(["", "alpha * ", "2.5 * "]))
    beta = draw(st.sampled_from(["", " + beta * C", " + 0.5 * C", " + C"]))
    block = draw(st.sampled_from([(16, 16), (32, 8), (8, 4), (64, 1), (5, 7)]))
    dims = ", ".join(f"{d}={sizes[d]}" if static[d] else d for d in "MNK")
    a = f"A: {dt}[{'K, M' if ta else 'M, K'}]{' col_major' if ca else ''}"
    b = f"B: {dt}[{'N, K' if tb else 'K, N'}]{' col_major' if cb else ''}"
    scalars = (f" alpha: {acc}" if "alpha" in alpha else "") + (f" beta: {acc}" if "beta" in beta else "")
    src = (f"kernel g {{ dim {dims}  {a}  {b}  C: {c_dt}[M, N]{scalars}  acc {acc}\n"
           f"  C = {alpha}A{'.T' if ta else ''} @ B{'.T' if tb else ''}{beta} }}")
    defines = {d: sizes[d] for d in "MNK" if not static[d]}
    return src, defines, block


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(gemm_sources(), st.integers(0, 2**16))
@example(  # f16 accumulation of products near 1e-5 (f16 subnormals): the bound lacked their underflow
    ("kernel g { dim M, N, K  A: f32[M, K]  B: f32[K, N]  C: f32[M, N]  acc f16\n  C = A @ B }",
     {"M": 7, "N": 202, "K": 1}, (16, 16)),
    0,
)
@example(  # one element, a cancelling dot product: failed a max|C|-relative error measure
    ("kernel g { dim M, N, K  A: f32[M, K]  B: f32[K, N]  C: f32[M, N]  acc f32\n  C = A @ B }",
     {"M": 1, "N": 1, "K": 256}, (16, 16)),
    14967,
)
def test_step1_kernel_matches_numpy(case, seed):
    src, dims, (bx, by) = case
    gemm_level = parse_gemm(src)
    before = check(gemm_level, dims, GFX942, seed)
    assert before.passed, (src, dims, before)
    module = lower(src, f"gemm-to-kernel{{block-x={bx} block-y={by}}}")
    spec = matmul_spec(gemm_level)
    after = check(module, dims, GFX942, seed)
    assert after.passed, (src, dims, after)
    assert matmul_spec(module) == spec  # recovered from the lowered IR
    assert after.stats.kernel_launches == 1
    assert after.shape == before.shape


def test_gemm_level_executes_with_numpy_semantics():
    module = parse_gemm(SIMPLE)
    fn = host_function(module)
    args = random_inputs(fn, {"M": 7, "N": 5, "K": 3}, seed=3)
    a, b, c, alpha, beta = args
    expected = alpha * (a.astype(np.float64) @ b) + beta * c
    assert np.allclose(reference(matmul_spec(module), args), expected)
    execute(module, None, args, GFX942)
    assert np.allclose(args[2], expected, rtol=1e-5, atol=1e-6)


def test_check_catches_a_wrong_kernel():
    """Shortening the K loop by one must fail the check (the tolerance is not vacuous)."""
    module = lower(SIMPLE)
    loop = next(op for op in kernel_of(module).walk() if isinstance(op, scf.ForOp))
    one = arith.ConstantOp(IntegerAttr(1, IndexType()))
    shorter = arith.SubiOp(loop.ub, one)
    Rewriter.insert_op([one, shorter], InsertPoint.before(loop))
    loop.operands[1] = shorter.result
    result = check(module, {"M": 40, "N": 33, "K": 50}, GFX942)
    assert not result.passed and result.max_rel_err > 100 * result.tolerance


@pytest.mark.parametrize("pipeline", ["step1", "step2", "step3", "step4", "step5", "step6"])
def test_tutorial_pipelines_match_numpy(pipeline):
    """Every named pipeline, on a shape that is a multiple of no tile size."""
    src = SIMPLE.replace("A: f32[M, K]", "A: f32[K, M]").replace("alpha * A @", "alpha * A.T @")
    result = check(lower(src, pipeline), {"M": 67, "N": 45, "K": 37}, GFX942, seed=7)
    assert result.passed, result.summary()


def test_square_operands_need_the_recorded_spec():
    """With one dim name for all sizes, transposes cannot be read off the lowered IR;
    the gemm.matmul_spec attribute (spec_attr) records them and survives printing."""
    src = "kernel sq { dim N  A: f32[N, N]  B: f32[N, N]  C: f32[N, N]  C = A.T @ B + 0.5 * C }"
    spec = matmul_spec(parse_gemm(src))
    assert spec.transpose_a and not spec.transpose_b and spec.beta == Scalar(value=0.5)
    module = lower(src)
    assert matmul_spec(module) == spec  # gemm-to-kernel recorded it
    del host_function(module).attributes[SPEC_ATTR]
    with pytest.raises(GemmcError, match="cannot tell .* whether square operands are transposed"):
        matmul_spec(module)
    host_function(module).attributes[SPEC_ATTR] = spec_attr(spec)
    reparsed = Parser(make_context(), str(module)).parse_module()
    assert matmul_spec(reparsed) == spec
    assert check(reparsed, {"N": 33}, GFX942).passed


def test_non_contiguous_arguments_are_updated_in_place():
    module = parse_gemm(SIMPLE)
    a, b, c, alpha, beta = random_inputs(host_function(module), {"M": 6, "N": 5, "K": 4}, seed=1)
    c_t = np.ascontiguousarray(c.T).T  # a Fortran-ordered view of the same values
    expected = reference(matmul_spec(module), [a, b, c, alpha, beta])
    execute(lower(SIMPLE), None, [a, b, c_t, alpha, beta], GFX942)
    assert np.allclose(c_t, expected, rtol=1e-5, atol=1e-6)


# -- errors ---------------------------------------------------------------------------------


def test_out_of_bounds_load_names_op_memref_and_index():
    module = lower(SIMPLE)
    loop = next(op for op in kernel_of(module).walk() if isinstance(op, scf.ForOp))
    one = arith.ConstantOp(IntegerAttr(1, IndexType()))
    longer = arith.AddiOp(loop.ub, one)
    Rewriter.insert_op([one, longer], InsertPoint.before(loop))
    loop.operands[1] = longer.result  # k runs to K inclusive: A[row, K] is past the end
    with pytest.raises(InterpError) as e:
        check(module, {"M": 64, "N": 20, "K": 32}, GFX942)
    msg = e.value.message
    assert re.search(r"out-of-bounds memref\.load of %A at index \(\d+, 32\); shape is \(64, 32\)", msg), msg
    assert isinstance(e.value, GemmcError) and "\n" not in e.value.render()
    assert not getattr(e.value, "__notes__", None)  # xDSL's module dumps are dropped


def test_unimplemented_op_is_named():
    module = lower(SIMPLE)
    loop = next(op for op in kernel_of(module).walk() if isinstance(op, scf.ForOp))
    fma = next(op for op in loop.body.walk() if isinstance(op, math.FmaOp))
    Rewriter.insert_op(math.SinOp(fma.a), InsertPoint.before(fma))
    with pytest.raises(InterpError, match="no implementation of 'math.sin'"):
        check(module, {"M": 4, "N": 4, "K": 4}, GFX942)


def test_missing_dynamic_dim_is_a_clear_error():
    with pytest.raises(GemmcError, match=r"dim 'N' is dynamic; give its size with -D N=\.\.\."):
        random_inputs(host_function(parse_gemm(SIMPLE)), {"M": 3, "K": 4}, 0)


def test_argument_mismatch_is_a_clear_error():
    module = parse_gemm(SIMPLE)
    args = random_inputs(host_function(module), {"M": 3, "N": 4, "K": 5}, 0)
    args[0] = args[0].astype(np.float16)
    with pytest.raises(InterpError, match="argument %A is float16"):
        execute(module, None, args, GFX942)


# -- counters -------------------------------------------------------------------------------


@pytest.mark.parametrize("arch", [GFX942, GFX1100])
def test_step1_counters(arch):
    n = 64
    module = lower(SIMPLE)
    result = check(module, {"M": n, "N": n, "K": n}, arch)
    s, waves = result.stats, n * n // arch.wave_size
    assert s.kernel_launches == 1 and s.workgroups == 16 and s.threads == n * n
    assert s.global_load_instrs == waves * (2 * n + 1)  # A and B per k, then C
    assert s.global_load_bytes == n * n * (2 * n + 1) * 4
    assert s.global_store_instrs == waves and s.global_store_bytes == n * n * 4
    assert s.valu_instrs == waves * (n + 2)  # n fma, alpha * sum, fma with beta
    assert s.flops == n * n * (2 * n + 1 + 2)
    assert s.lds_load_instrs == s.barriers == 0
    assert s.valu_int_instrs == waves * 7  # col, row (2 ops each), two compares, and


def test_masked_lanes_do_not_count():
    """A 1x1 C launches a 16x16 block: one active lane, so one wave per access."""
    s = check(lower(SIMPLE), {"M": 1, "N": 1, "K": 8}, GFX942).stats
    assert s.threads == 256 and s.global_load_instrs == 2 * 8 + 1
    assert s.global_load_bytes == (2 * 8 + 1) * 4


# -- hand-written SIMT kernels ----------------------------------------------------------------


def kernel_module(body: str, args: str = "%X: memref<4x64xf32>, %Y: memref<4x64xf32>",
                  grid=(2, 1, 1), block=(32, 1, 1)):
    """A host function launching one gpu.func with `body` over memref arguments `args`."""
    names = [a.split(":")[0].strip() for a in args.split(", ")]
    types = [a.split(":", 1)[1].strip() for a in args.split(", ")]
    consts = "\n".join(f"    %s{i} = arith.constant {v} : index" for i, v in enumerate(grid + block))
    sizes = ", ".join(f"%s{i}" for i in range(6))
    src = f"""
builtin.module attributes {{gpu.container_module}} {{
  func.func @f({args}) {{
{consts}
    "gpu.launch_func"({sizes}, {", ".join(names)}) <{{kernel = @k::@k, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, {len(names)}, 0>}}> : (index, index, index, index, index, index, {", ".join(types)}) -> ()
    func.return
  }}
  "gpu.module"() <{{sym_name = "k"}}> ({{
    "gpu.func"() <{{function_type = ({", ".join(types)}) -> (), kernel}}> ({{
    ^bb0({args}):
      %tx = "gpu.thread_id"() <{{dimension = #gpu<dim x>}}> : () -> index
      %bx = "gpu.block_id"() <{{dimension = #gpu<dim x>}}> : () -> index
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %c32 = arith.constant 32 : index
      %g0 = arith.muli %bx, %c32 : index
      %g = arith.addi %g0, %tx : index
{body}
      "gpu.return"() : () -> ()
    }}) {{sym_name = "k"}} : () -> ()
  }}) : () -> ()
}}"""
    module = Parser(make_context(), src).parse_module()
    module.verify()
    return module


def run(module, *arrays, arch=GFX1100):
    stats = Stats()
    execute(module, None, list(arrays), arch, stats)
    return stats


def test_divergent_loop_if_and_vectors():
    module = kernel_module("""
      %z = arith.constant 0.0 : f32
      %s = scf.for %i = %c0 to %tx step %c1 iter_args(%acc = %z) -> (f32) {
        %v = memref.load %X[%c1, %i] : memref<4x64xf32>
        %a = arith.addf %acc, %v : f32
        scf.yield %a : f32
      }
      memref.store %s, %Y[%c0, %g] : memref<4x64xf32>
      %c16 = arith.constant 16 : index
      %lt = arith.cmpi ult, %tx, %c16 : index
      %r = scf.if %lt -> (f32) {
        %one = arith.constant 1.0 : f32
        scf.yield %one : f32
      } else {
        %two = arith.constant 2.0 : f32
        scf.yield %two : f32
      }
      memref.store %r, %Y[%c1, %g] : memref<4x64xf32>
      %c4 = arith.constant 4 : index
      %rem = arith.remui %tx, %c4 : index
      %is0 = arith.cmpi eq, %rem, %c0 : index
      scf.if %is0 {
        %x = memref.load %X[%c0, %g] : memref<4x64xf32>
        %vv = vector.load %X[%c0, %g] : memref<4x64xf32>, vector<4xf32>
        %b = vector.broadcast %x : f32 to vector<4xf32>
        %p = arith.mulf %vv, %b : vector<4xf32>
        %e = vector.extract %p[2] : f32 from vector<4xf32>
        vector.store %p, %Y[%c2, %g] : memref<4x64xf32>, vector<4xf32>
        memref.store %e, %Y[%c3, %g] : memref<4x64xf32>
      }""")
    x = np.random.default_rng(0).uniform(-1, 1, (4, 64)).astype(np.float32)
    y = np.zeros((4, 64), np.float32)
    s = run(module, x, y)
    tx = np.arange(64) % 32
    assert np.allclose(y[0], [x[1, :t].sum() for t in tx], atol=1e-5)
    assert np.array_equal(y[1], np.where(tx < 16, 1.0, 2.0))
    g = np.arange(0, 64, 4)
    assert np.allclose(y[2].reshape(16, 4), x[0].reshape(16, 4) * x[0, g][:, None])
    assert np.allclose(y[3, g], x[0, g + 2] * x[0, g]) and not y[3, g + 1].any()
    # wave32: one wave per block; the per-lane loop runs 31 times in both waves
    assert s.global_load_instrs == 2 * 31 + 2 + 2
    assert s.global_load_bytes == 4 * (2 * sum(range(32)) + 16 + 16 * 4)


def test_integer_ops_follow_mlir_semantics():
    """Signed ops round toward zero (divsi, remsi) or down/up (floordivsi, ceildivsi);
    unsigned ones see a negative index as a huge number (2^64 + a)."""
    ops = ["divsi", "remsi", "floordivsi", "ceildivsi", "minsi", "maxui", "ceildivui", "divui"]
    body = "\n".join(
        f"""      %r{i} = arith.{name} %a, %c5 : index
      %i{i} = arith.index_cast %r{i} : index to i64
      %row{i} = arith.constant {i} : index
      memref.store %i{i}, %Y[%row{i}, %g] : memref<8x64xi64>"""
        for i, name in enumerate(ops)
    )
    module = kernel_module(f"""
      %c5 = arith.constant 5 : index
      %c16 = arith.constant 16 : index
      %a = arith.subi %tx, %c16 : index
{body}""", args="%X: memref<8x64xi64>, %Y: memref<8x64xi64>")
    y = np.zeros((8, 64), np.int64)
    run(module, y.copy(), y)

    def signed(u: int) -> int:
        return u - 2**64 if u >= 2**63 else u

    def trunc_div(a: int, b: int) -> int:
        return abs(a) // b * (1 if a >= 0 else -1)

    reference = {
        "divsi": trunc_div,
        "remsi": lambda a, b: a - b * trunc_div(a, b),
        "floordivsi": lambda a, b: a // b,
        "ceildivsi": lambda a, b: -(-a // b),
        "minsi": min,
        "maxui": lambda a, b: signed(max(a % 2**64, b)),
        "ceildivui": lambda a, b: signed(-(-(a % 2**64) // b)),
        "divui": lambda a, b: signed((a % 2**64) // b),
    }
    for row, name in enumerate(ops):
        want = [reference[name](int(t) % 32 - 16, 5) for t in range(64)]
        assert y[row].tolist() == want, name


@pytest.mark.parametrize("dtype", ["f16", "bf16"])
def test_narrow_float_arithmetic_rounds_in_its_type(dtype):
    module = kernel_module(f"""
      %a = memref.load %X[%c0, %g] : memref<2x64x{dtype}>
      %b = memref.load %X[%c1, %g] : memref<2x64x{dtype}>
      %s = arith.addf %a, %b : {dtype}
      %p = arith.mulf %s, %a : {dtype}
      %w = arith.extf %p : {dtype} to f32
      %q = arith.mulf %w, %w : f32
      %n = arith.truncf %q : f32 to {dtype}
      %m = arith.maximumf %n, %b : {dtype}
      memref.store %m, %Y[%c0, %g] : memref<2x64x{dtype}>""",
        args=f"%X: memref<2x64x{dtype}>, %Y: memref<2x64x{dtype}>")
    rng = np.random.default_rng(2)
    if dtype == "f16":
        x = rng.uniform(-2, 2, (2, 64)).astype(np.float16)
        rnd = np.float16
        p = (x[0] + x[1]) * x[0]
    else:
        x = to_bf16(rng.uniform(-2, 2, (2, 64)))
        rnd = to_bf16
        p = to_bf16(to_bf16(x[0] + x[1]) * x[0])
    y = np.zeros_like(x)
    s = run(module, x, y)
    w = np.asarray(p, np.float32)
    want = np.maximum(np.asarray(rnd(w * w)), x[1])
    assert y.dtype == x.dtype and np.array_equal(y[0], want)
    assert s.valu_instrs == 2 * 6 and s.flops == 64 * 4  # addf mulf extf mulf truncf maximumf


def test_nested_divergence_in_a_divergent_loop():
    """Sum of the even-indexed X[1, i] for i < tx: an scf.if inside a per-lane loop."""
    module = kernel_module("""
      %z = arith.constant 0.0 : f32
      %s = scf.for %i = %c0 to %tx step %c1 iter_args(%acc = %z) -> (f32) {
        %r = arith.remui %i, %c2 : index
        %even = arith.cmpi eq, %r, %c0 : index
        %t = scf.if %even -> (f32) {
          %v = memref.load %X[%c1, %i] : memref<4x64xf32>
          %a = arith.addf %acc, %v : f32
          scf.yield %a : f32
        } else {
          scf.yield %acc : f32
        }
        scf.yield %t : f32
      }
      memref.store %s, %Y[%c0, %g] : memref<4x64xf32>""")
    x = np.random.default_rng(3).uniform(-1, 1, (4, 64)).astype(np.float32)
    y = np.zeros_like(x)
    s = run(module, x, y)
    want = [x[1, : t : 2].sum() for t in np.arange(64) % 32]
    assert np.allclose(y[0], want, atol=1e-5)
    assert s.global_load_instrs == 2 * 16  # 16 even i < 31, one wave per block each


def test_vector_register_ops():
    """Even lanes load X[0, g:g+2] and shuffle it with register vector ops."""
    module = kernel_module("""
      %odd = arith.remui %g, %c2 : index
      %even = arith.cmpi eq, %odd, %c0 : index
      scf.if %even {
        %v = vector.load %X[%c0, %g] : memref<4x64xf32>, vector<2xf32>
        %k = arith.constant dense<1.5> : vector<2xf32>
        %f = vector.fma %v, %k, %k : vector<2xf32>
        %x1 = vector.extract %v[1] : f32 from vector<2xf32>
        %ins = vector.insert %x1, %f [0] : f32 into vector<2xf32>
        %never = arith.cmpf ogt, %x1, %x1 : f32
        %sel = arith.select %never, %k, %ins : vector<2xf32>
        %h = arith.divui %g, %c2 : index
        %pos = arith.remui %h, %c2 : index
        %e = vector.extract %v[%pos] : f32 from vector<2xf32>
        vector.store %sel, %Y[%c0, %g] : memref<4x64xf32>, vector<2xf32>
        memref.store %e, %Y[%c1, %g] : memref<4x64xf32>
      }""")
    x = np.random.default_rng(4).uniform(-1, 1, (4, 64)).astype(np.float32)
    y = np.zeros_like(x)
    s = run(module, x, y)
    g = np.arange(0, 64, 2)
    assert np.array_equal(y[0, g], x[0, g + 1])
    assert np.array_equal(y[0, g + 1], (x[0, g + 1].astype(np.float64) * 1.5 + 1.5).astype(np.float32))
    assert np.array_equal(y[1, g], x[0, g + (g // 2) % 2]) and not y[1, g + 1].any()
    assert s.global_load_bytes == 32 * 2 * 4 and s.global_store_instrs == 2 * 2


LDS_EXCHANGE = """
      %lds = memref.alloc() : memref<32xf32, 3 : i64>
      %x = memref.load %X[%c0, %g] : memref<4x64xf32>
      memref.store %x, %lds[%tx] : memref<32xf32, 3 : i64>
      {barrier}
      %t1 = arith.addi %tx, %c1 : index
      %nb = arith.remui %t1, %c32 : index
      %y = memref.load %lds[%nb] : memref<32xf32, 3 : i64>
      memref.store %y, %Y[%c0, %g] : memref<4x64xf32>"""


def test_lds_exchange_with_barrier():
    module = kernel_module(LDS_EXCHANGE.format(barrier='"gpu.barrier"() : () -> ()'))
    x = np.random.default_rng(1).uniform(-1, 1, (4, 64)).astype(np.float32)
    y = np.zeros((4, 64), np.float32)
    s = run(module, x, y)
    assert np.array_equal(y[0], np.roll(x[0].reshape(2, 32), -1, axis=1).ravel())
    assert s.barriers == 2 and s.lds_store_instrs == 2 and s.lds_load_bytes == 64 * 4


def test_lds_race_without_barrier():
    module = kernel_module(LDS_EXCHANGE.format(barrier=""))
    x = np.zeros((4, 64), np.float32)
    with pytest.raises(InterpError, match=r"LDS race on %lds: memref.load .* reads index \(1,\), "
                       r"which thread \(1, 0, 0\) wrote with memref.store"):
        run(module, x, x.copy())


def test_lds_write_after_read_race():
    """Overwriting what a neighbour read, with no barrier between, is a race too."""
    module = kernel_module(LDS_EXCHANGE.format(barrier='"gpu.barrier"() : () -> ()') + """
      memref.store %y, %lds[%tx] : memref<32xf32, 3 : i64>""")
    x = np.zeros((4, 64), np.float32)
    with pytest.raises(InterpError, match=r"LDS race .*memref.store .* overwrites index .* read with memref.load"):
        run(module, x, x.copy())


def test_lds_broadcast_read_then_overwrite():
    """All threads read lds[0]; thread 0 overwriting it races with the other readers,
    while each thread updating its own element does not."""
    body = """
      %lds = memref.alloc() : memref<32xf32, 3 : i64>
      %x = memref.load %X[%c0, %g] : memref<4x64xf32>
      memref.store %x, %lds[%tx] : memref<32xf32, 3 : i64>
      "gpu.barrier"() : () -> ()
      %own = memref.load %lds[%tx] : memref<32xf32, 3 : i64>
      %b = memref.load %lds[%c0] : memref<32xf32, 3 : i64>
      %s = arith.addf %own, %b : f32
      memref.store %s, %lds[%tx] : memref<32xf32, 3 : i64>
      memref.store %s, %Y[%c0, %g] : memref<4x64xf32>"""
    x = np.random.default_rng(5).uniform(-1, 1, (4, 64)).astype(np.float32)
    y = np.zeros_like(x)
    with pytest.raises(InterpError, match=r"memref.store by thread \(0, 0, 0\) of block \(0, 0, 0\) in @k "
                       r"overwrites index \(0,\), which thread \(31, 0, 0\) read with memref.load"):
        run(kernel_module(body), x, y)
    fixed = body.replace("%s = arith.addf", '"gpu.barrier"() : () -> ()\n      %s = arith.addf')
    run(kernel_module(fixed), x, y)
    assert np.array_equal(y[0], x[0] + np.repeat(x[0, [0, 32]], 32))


def test_divergent_barrier_is_an_error():
    module = kernel_module("""
      %c16 = arith.constant 16 : index
      %lt = arith.cmpi ult, %tx, %c16 : index
      scf.if %lt {
        "gpu.barrier"() : () -> ()
      }""")
    x = np.zeros((4, 64), np.float32)
    with pytest.raises(InterpError, match="gpu.barrier in divergent control flow"):
        run(module, x, x.copy())


def test_lds_out_of_bounds_and_overflow():
    oob = kernel_module("""
      %lds = memref.alloc() : memref<16xf32, 3 : i64>
      %z = arith.constant 0.0 : f32
      memref.store %z, %lds[%tx] : memref<16xf32, 3 : i64>""")
    x = np.zeros((4, 64), np.float32)
    with pytest.raises(InterpError, match=r"out-of-bounds memref.store of LDS %lds at index \(16,\); shape is \(16,\)"):
        run(oob, x, x.copy())
    big = kernel_module("%lds = memref.alloc() : memref<128x256xf32, 3 : i64>")
    with pytest.raises(InterpError, match="131072 bytes of LDS per workgroup; gfx1100 has 65536"):
        run(big, x, x.copy())


def test_private_memory_per_lane():
    """An alloca in the private space (5) is one array per thread: written at uniform
    indices, read at per-lane ones, and masked stores leave other threads' copies alone."""
    body = """
      %p = memref.alloca() : memref<2x32xf32, 5 : i64>
      scf.for %i = %c0 to %c32 step %c1 {
        %i64 = arith.index_cast %i : index to i64
        %f = arith.sitofp %i64 : i64 to f32
        memref.store %f, %p[%c1, %i] : memref<2x32xf32, 5 : i64>
      }
      %c8 = arith.constant 8 : index
      %low = arith.cmpi ult, %tx, %c8 : index
      scf.if %low {
        %z = arith.constant -1.0 : f32
        memref.store %z, %p[%c1, %c3] : memref<2x32xf32, 5 : i64>
      }
      %t1 = arith.addi %tx, %c1 : index
      %nb = arith.remui %t1, %c32 : index
      %v = memref.load %p[%c1, %nb] : memref<2x32xf32, 5 : i64>
      %w = memref.load %p[%c1, %c3] : memref<2x32xf32, 5 : i64>
      %s = arith.addf %v, %w : f32
      memref.store %s, %Y[%c0, %g] : memref<4x64xf32>"""
    x = np.zeros((4, 64), np.float32)
    s = run(kernel_module(body), x, x)
    tx = np.arange(64) % 32
    mine = np.where(tx < 8, -1.0, 3.0)  # element 3 after the masked store
    nb = (tx + 1) % 32
    assert np.array_equal(x[0], np.where(nb == 3, mine, nb) + mine)
    assert s.global_store_instrs == 2 and s.lds_load_instrs == 0  # private traffic is not counted
    vec = kernel_module(body.replace("%w = memref.load %p[%c1, %c3] : memref<2x32xf32, 5 : i64>", """
      %h = arith.divui %tx, %c2 : index
      %e = arith.muli %h, %c2 : index
      %wv = vector.load %p[%c1, %e] : memref<2x32xf32, 5 : i64>, vector<2xf32>
      %w = vector.extract %wv[1] : f32 from vector<2xf32>"""))
    run(vec, x, x)
    odd = tx // 2 * 2 + 1  # the second element of each thread's pair
    assert np.array_equal(x[0], np.where(nb == 3, mine, nb) + np.where(odd == 3, mine, odd))
    oob = kernel_module(body.replace("%p[%c1, %c3] : memref<2x32xf32, 5 : i64>\n      %s",
                                     "%p[%c2, %c3] : memref<2x32xf32, 5 : i64>\n      %s"))
    with pytest.raises(InterpError, match=r"out-of-bounds memref.load of private %p at index \(2, 3\); "
                       r"shape is \(2, 32\) \(thread \(0, 0, 0\) of block \(0, 0, 0\) in @k\)"):
        run(oob, x, x)


def test_vector_load_past_the_end():
    module = kernel_module("""
      %v = vector.load %X[%c0, %g] : memref<4x64xf32>, vector<4xf32>""")
    x = np.zeros((4, 64), np.float32)
    with pytest.raises(InterpError, match=r"vector.load of %X at a vector of 4 starting index \(0, 61\)"):
        run(module, x, x.copy())


# -- speed ----------------------------------------------------------------------------------


def test_512_cubed_step1_is_fast():
    module = lower(SIMPLE)
    start = time.perf_counter()
    result = check(module, {"M": 512, "N": 512, "K": 512}, GFX942)
    elapsed = time.perf_counter() - start
    print(f"512^3 step 1: {elapsed:.2f} s, max_rel_err {result.max_rel_err:.2e}")
    assert result.passed
    assert elapsed < 60
