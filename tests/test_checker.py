"""The checker cannot be fooled: planted bugs (a lost term, a doubled term, a swapped
element, a wrong lane) FAIL at long K and narrow output types, the reference is the
declared program whatever the kernel rounds, and tiny results are judged absolutely."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from xdsl.dialects import arith, math, memref, scf
from xdsl.dialects.builtin import FloatAttr, IndexType, IntegerAttr, f32
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

import gemmc
from gemmc.interp.accuracy import PRECISION, exact_plan
from gemmc.interp.check import check

DIMS = {"M": 16, "N": 16}  # one 16 x 16 workgroup; M >= every exact plan's stride, so every k counts


def source(t: str) -> str:
    return f"kernel g {{ dim M, N, K  A: {t}[M, K]  B: {t}[K, N]  C: {t}[M, N]  C = A @ B }}"


def step1(t: str):
    module = gemmc.parse(source(t))
    gemmc.lower(module, "gemm-to-kernel", "gfx942")
    return module


def _k_loop(module) -> scf.ForOp:
    return next(op for op in module.walk() if isinstance(op, scf.ForOp))


def _insert(before: Operation, *ops: Operation) -> SSAValue:
    Rewriter.insert_op(list(ops), InsertPoint.before(before))
    return ops[-1].results[0]


def _at_k(op: Operation, k0: int, then: SSAValue, otherwise: SSAValue) -> SSAValue:
    """`then` in the iteration k == k0, else `otherwise` (ops inserted before `op`)."""
    k = _k_loop(op.get_toplevel_object()).body.block.args[0]
    c = arith.ConstantOp(IntegerAttr(k0, IndexType()))
    is_k0 = arith.CmpiOp(k, c, "eq")
    return _insert(op, c, is_k0, arith.SelectOp(is_k0, then, otherwise))


def _load_of(module, arg: int) -> memref.LoadOp:
    kernel_arg = next(op for op in module.walk() if op.name == "gpu.func").body.block.args[arg]
    return next(op for op in module.walk() if isinstance(op, memref.LoadOp) and op.memref == kernel_arg)


def plant(module, bug: str, k0: int) -> None:
    """One wrong iteration of the step-1 kernel's K loop."""
    fma = next(op for op in module.walk() if isinstance(op, math.FmaOp))
    a = fma.operands[0]
    if bug == "lost term":  # a[i, k0] * b[k0, j] never added
        zero = _insert(fma, arith.ConstantOp(FloatAttr(0.0, f32)))
        fma.operands[0] = _at_k(fma, k0, zero, a)
    elif bug == "doubled term":  # added twice
        twice = _insert(fma, arith.AddfOp(a, a))
        fma.operands[0] = _at_k(fma, k0, twice, a)
    elif bug == "swapped element":  # a[i, k0 + 1] read in place of a[i, k0]
        load = _load_of(module, 0)
        k = load.indices[1]
        one = arith.ConstantOp(IntegerAttr(1, IndexType()))
        load.operands[2] = _at_k(load, k0, _insert(load, one, arith.AddiOp(k, one)), k)
    elif bug == "wrong lane":  # b[k0, j ^ 1]: the neighbouring lane's column
        load = _load_of(module, 1)
        j = load.indices[1]
        one = arith.ConstantOp(IntegerAttr(1, IndexType()))
        load.operands[2] = _at_k(load, k0, _insert(load, one, arith.XOrIOp(j, one)), j)
    else:
        raise AssertionError(bug)


KS = (300, 1000, 2500)
CASES = (  # the lost term with bf16 and f16 output at every K; the other bugs at every K, types taking turns
    [("lost term", k, t) for k in KS for t in ("bf16", "f16")]
    + [("doubled term", k, t) for k, t in zip(KS, ("f32", "bf16", "f16"))]
    + [("swapped element", k, t) for k, t in zip(KS, ("f16", "f32", "bf16"))]
    + [("wrong lane", k, t) for k, t in zip(KS, ("bf16", "f16", "f32"))]
)


@pytest.mark.parametrize("bug,k,t", CASES)
def test_planted_bug_fails(bug, k, t):
    module = step1(t)
    dims = {**DIMS, "K": k}
    plant(module, bug, k0=k // 3)
    r = check(module, dims, "gfx942", seed=1)
    assert not r.passed, r.summary()
    assert not r.exact.passed, r.summary()  # the exact run catches every one, whatever the types
    assert "FAIL" in r.summary().splitlines()[0] and "elements differ" in r.summary()


def test_unplanted_kernel_passes_at_long_k():
    """The same kernel without a bug, at the longest K and the narrowest output, passes."""
    r = check(step1("bf16"), {**DIMS, "K": 2500}, "gfx942", seed=1)
    assert r.passed and r.exact.passed and r.exact.plan.stride > 1, r.summary()


def test_lost_term_fails_the_random_run_too():
    """Element-wise, a lost term shows against random data even where a normwise tolerance
    for bf16 output (about 0.0156) hid it: its error is about 0.0015 here."""
    module = step1("bf16")
    plant(module, "lost term", k0=1234)
    r = check(module, {**DIMS, "K": 2500}, "gfx942", seed=1)
    assert r.max_rel_err < 0.0156 < 1 < r.declared.ratio, r.summary()


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 5000), st.sampled_from(["f32", "f16", "bf16"]), st.sampled_from(["f32", "f16", "bf16"]),
       st.sampled_from([0.0, 1e-40, 0.5, 1.0, 2.0, 3.0]), st.sampled_from([0.0, 1.0, 2.0]))
def test_exact_plan_keeps_every_partial_sum_exact(k, acc, out, alpha, beta):
    """The plan's worst case, |alpha| sum |a b| + |beta c|, fits the significand of the
    accumulator and of C, and the inputs fit theirs."""
    bits = min(PRECISION[acc], PRECISION[out])
    plan = exact_plan(k, bits, PRECISION[out], alpha, beta)
    terms = -(-k // plan.stride)
    assert max(alpha, 1.0) * terms * plan.r**2 + beta * plan.r <= 2**bits
    assert plan.r <= 2 ** PRECISION[out]


def test_tiny_results_pass_on_the_absolute_floor():
    """C = 1e-40 * A @ B: f32 subnormal results, judged against the smallest normal f32."""
    src = "kernel t { dim M, N, K  A: f32[M, K]  B: f32[K, N]  C: f32[M, N]  C = 1e-40 * A @ B }"
    for pipeline, arch in (("step1", "gfx942"), ("step3", "gfx1100")):
        module = gemmc.parse(src)
        gemmc.lower(module, pipeline, arch)
        r = check(module, {"M": 33, "N": 17, "K": 21}, arch)
        assert r.passed, r.summary()
        assert not r.exact.bitwise  # 1e-40 is not exact: C is held to the scaling's rounding


def test_reference_is_the_declared_program():
    """step 7 on gfx1100 rounds f32 inputs to f16: the output says so, with both errors."""
    proc = subprocess.run([sys.executable, "-m", "gemmc.driver.cli", "run", "examples/sgemm.gemm", "--arch", "gfx1100",
                           "-p", "step7", "-D", "M=64", "-D", "N=64", "-D", "K=64"],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    first, rounding, exact = proc.stdout.splitlines()
    assert first.startswith("PASS: M=64 N=64 K=64: max relative error ")
    declared = float(first.split("max relative error ")[1].split(",")[0])
    assert rounding.startswith("  inputs rounded to f16 by matrix-cores{convert=f16}: max relative error ")
    rounded = float(rounding.split("max relative error ")[1].split(" ")[0])
    assert rounded < 1e-6 < 1e-5 < declared < 1e-3  # f32 accumulation of f16 inputs vs the f32 program
    assert exact.startswith("  exact inputs (integers in [-") and exact.endswith("C bit for bit")


def test_wrong_rounding_in_the_kernel_fails():
    """A kernel that rounds to bf16 where the program is f32 and nothing in it says so
    (no narrower fragment type) is held to f32's bound and FAILs."""
    module = step1("f32")
    fma = next(op for op in module.walk() if isinstance(op, math.FmaOp))
    from xdsl.dialects.builtin import BFloat16Type

    a = fma.operands[0]
    low = _insert(fma, arith.TruncFOp(a, BFloat16Type()))
    fma.operands[0] = _insert(fma, arith.ExtFOp(low, f32))
    r = check(module, {**DIMS, "K": 64}, "gfx942")
    assert not r.passed and r.rounding is None and r.declared.ratio > 1, r.summary()
    assert not r.exact.passed  # integers up to 2^9 are not bf16's: the exact run sees it too
    assert np.isfinite(r.max_rel_err)


def test_scale_that_rounds_to_zero_warns(capsys):
    """1e-50 is 0 in f32: a located warning (the program still builds); 1e-45 is not."""
    src = "kernel t {\n  dim M, N, K  A: f32[M, K]  B: f32[K, N]  C: f32[M, N]\n  C = 1e-50 * A @ B + 1e-45 * C\n}"
    gemmc.parse(src, filename="t.gemm")
    err = capsys.readouterr().err.splitlines()
    assert err == ["t.gemm:3:7: warning: scale 1e-50 rounds to 0 in the accumulator type f32 "
                   "(its smallest nonzero value is 1.4e-45)", "  C = 1e-50 * A @ B + 1e-45 * C", "      ^"]


# -- FP8 inputs: the same planted bugs FAIL; A and B may be two formats (fp8 x bf8) --

FP8_PAIRS = (("f8e4m3fnuz", "f8e4m3fnuz"), ("f8e4m3fnuz", "f8e5m2fnuz"), ("f8e5m2", "f8e4m3fn"))


def fp8_arch(a: str) -> str:
    return "gfx942" if a.endswith("fnuz") else "gfx950"  # FNUZ on gfx942, OCP on gfx950


def fp8_step1(a: str, b: str):
    module = gemmc.parse(f"kernel g {{ dim M, N, K  A: {a}[M, K]  B: {b}[K, N]  C: f32[M, N]  C = A @ B }}")
    gemmc.lower(module, "gemm-to-kernel", fp8_arch(a))
    return module


@pytest.mark.parametrize("bug", ["lost term", "swapped element", "wrong lane"])
@pytest.mark.parametrize("a,b", FP8_PAIRS)
def test_planted_bug_fails_with_fp8_inputs(bug, a, b):
    module = fp8_step1(a, b)
    plant(module, bug, k0=100)
    r = check(module, {**DIMS, "K": 300}, fp8_arch(a), seed=1)
    assert not r.passed and not r.exact.passed, r.summary()


@pytest.mark.parametrize("a,b", FP8_PAIRS)
def test_fp8_kernel_passes_and_its_exact_inputs_fit_the_formats(a, b):
    r = check(fp8_step1(a, b), {**DIMS, "K": 300}, fp8_arch(a), seed=1)
    assert r.passed and r.exact.passed, r.summary()
    assert r.exact.plan.r <= 2 ** min(PRECISION[a], PRECISION[b])  # 16 for e4m3, 8 for e5m2
