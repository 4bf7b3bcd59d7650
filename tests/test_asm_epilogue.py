"""The instructions of the fused epilogues' code as clang writes it (v_exp_f32, v_ldexp_f32,
v_rndne_f32, v_fmamk / v_fmaak_f32, the unordered f32 compares, the division triple, IEEE
maximum / minimum, v_max / v_min's NaN rules, gfx950's v_cvt_pk_bf16_f32): each handler's function
on crafted operands (NaN, inf, denormals, signed zeros, ties) against a numpy or Python reference
computed another way, a planted wrong semantics that the same check rejects, the front taking
clang's lines, and the epilogue programs passing at --level asm."""

from __future__ import annotations

import math
import pathlib

import ml_dtypes
import numpy as np
import pytest
from xdsl.ir import Block

from gemmc.amdgcn.asm_front.build import Builder
from gemmc.amdgcn.asm_front.operands import parse_line
from gemmc.amdgcn.interp import fdiv
from gemmc.amdgcn.interp.vector_alu import F32_COMPARE, FLOAT, INTEGER
from gemmc.support.diagnostics import Location
from gemmc.target.arch import get_arch
from gemmc.target.toolchain import have_toolchain

# the handlers are fed NaN, infinities and overflowing values on purpose: numpy's warnings about them
# are what the tests ask for (the interpreter runs kernels under np.errstate(all="ignore"))
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

ROOT = pathlib.Path(__file__).resolve().parent.parent
needs_clang = pytest.mark.skipif(not have_toolchain(), reason="no clang with the AMDGPU backend")
F32 = np.float32
SPECIAL = np.array([0.0, -0.0, 1.0, -1.0, 0.5, 2.5, -2.5, 3.5, 1e-45, -1e-45, 1e-40, 1.17549435e-38, 3.4e38,
                    -3.4e38, np.inf, -np.inf, np.nan], F32)


def bits(x) -> np.ndarray:
    return np.asarray(x, F32).view(np.uint32)


def same(got, want) -> bool:
    """Bit-equal f32 arrays, any NaN equal to any NaN."""
    got, want = np.asarray(got, F32), np.asarray(want, F32)
    return bool(np.all((bits(got) == bits(want)) | (np.isnan(got) & np.isnan(want))))


def random_f32(n: int, seed: int = 0) -> np.ndarray:
    """n f32 of every exponent: random bit patterns."""
    return np.random.default_rng(seed).integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32).view(F32)


# -- v_exp_f32 -----------------------------------------------------------------------------------

def exp_reference(x: np.ndarray) -> np.ndarray:
    """2^x in the 80-bit long double, rounded to f32 (another computation than the handler's)."""
    with np.errstate(over="ignore", under="ignore"):
        return np.exp2(x.astype(np.longdouble)).astype(F32)


def exp_ok(fn) -> bool:
    with np.errstate(invalid="ignore"):  # random bit patterns hold NaNs and infinities
        wrapped = random_f32(4000) % F32(140)
    x = np.concatenate([SPECIAL, np.arange(-160, 130, dtype=F32), wrapped, np.linspace(-150, 128, 5001, dtype=F32)])
    powers = np.arange(-149, 128)  # 2^k exactly, the denormals too
    exact = same(fn(bits(powers.astype(F32))), [math.ldexp(1.0, int(k)) for k in powers])
    return exact and same(fn(bits(x)), exp_reference(x))


def test_exp_is_2_to_the_x_rounded_once():
    assert exp_ok(FLOAT["v_exp_f32"])
    assert same(FLOAT["v_exp_f32"](bits([np.inf, -np.inf, np.nan, 128.0, -150.0])), [np.inf, 0.0, np.nan, np.inf, 0.0])


def test_planted_exp_base_e_fails():
    assert not exp_ok(lambda a: np.exp(a.view(F32)))


# -- v_ldexp_f32 ---------------------------------------------------------------------------------

def ldexp_ok(fn) -> bool:
    x = np.concatenate([SPECIAL, random_f32(3000, 1)])
    for n in (0, 1, -1, 24, -24, 64, -64, 126, -126, 149, -149, 200, -200, 300, -300, 2**31 - 1, -2**31):
        with np.errstate(over="ignore", under="ignore"):
            want = np.ldexp(x, np.int32(max(min(n, 400), -400)))  # numpy's f32 ldexpf: rounded once
        got = fn(bits(x), np.full(x.shape, n & 0xFFFFFFFF, np.uint64))
        if not same(got, want):
            return False
    return True


def test_ldexp_scales_by_a_signed_exponent():
    assert ldexp_ok(FLOAT["v_ldexp_f32"])
    # into the denormals and back, overflow, a negative exponent as its 32-bit pattern
    # (-1.5 * 2^-150 rounds up to the least denormal, -1 * 2^-150, a tie, to even: -0)
    got = FLOAT["v_ldexp_f32"](bits([1.0, 1e-45, 3.0, -1.5, -1.0, 1.0]),
                               np.array([-149, 149, 127, -150, -150, -1], np.int64).astype(np.uint32).astype(np.uint64))
    assert same(got, [1e-45, 1.0, np.inf, -1e-45, -0.0, 0.5])


def test_planted_ldexp_through_an_f32_power_fails():
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        assert not ldexp_ok(lambda a, n: a.view(F32) * F32(2.0) ** (n.astype(np.uint32).view(np.int32).astype(F32)))


# -- v_rndne_f32 ---------------------------------------------------------------------------------

def rndne_ok(fn) -> bool:
    x = np.concatenate([SPECIAL, np.arange(-8, 8, 0.25, dtype=F32), random_f32(2000, 2),
                        F32(2**23) + np.arange(-4, 4, 0.5, dtype=F32)])
    want = np.array([float(round(v)) if math.isfinite(v) else v for v in x.astype(np.float64)], F32)
    want = np.where((want == 0) & np.isfinite(x), np.copysign(F32(0), x), want)  # the sign of -0.4 kept
    return same(fn(bits(x)), want)


def test_rndne_rounds_ties_to_even():
    assert rndne_ok(FLOAT["v_rndne_f32"])


def test_planted_rndne_as_round_half_up_fails():
    assert not rndne_ok(lambda a: np.floor(a.view(F32) + F32(0.5)))


# -- v_fmamk_f32 / v_fmaak_f32 -------------------------------------------------------------------

def fma_reference(a, b, c) -> np.ndarray:
    """fma in the long double: the f32 product exact, the sum rounded there and then to f32
    (the operands below keep the sum exact in 64 bits)."""
    with np.errstate(all="ignore"):
        return (a.astype(np.longdouble) * b + c).astype(F32)


@pytest.mark.parametrize("op", ["v_fmamk_f32", "v_fmaak_f32"])
def test_fma_with_a_literal_rounds_once(op):
    rng = np.random.default_rng(3)
    a, b = (rng.integers(-2**12, 2**12, 500) * F32(2.0**-12)).astype(F32), rng.standard_normal(500).astype(F32)
    c = rng.standard_normal(500).astype(F32) * F32(1e-3)
    a, b, c = (np.concatenate([v, SPECIAL, SPECIAL[::-1], np.full(17, F32(1.0))]) for v in (a, b, c))
    got = FLOAT[op](bits(a), bits(b), bits(c))
    assert same(got, fma_reference(a, b, c))
    # 1 + 2^-24 rounded once is 1 + 2^-23 with the addend; a product rounded first loses it
    one = F32(1 + 2.0**-12)
    assert same(FLOAT[op](bits([one]), bits([one]), bits([-1.0])), [F32(2.0**-11 + 2.0**-24)])
    assert not same((one * one + F32(-1.0)), [F32(2.0**-11 + 2.0**-24)]), "the planted unfused form must differ"


# -- the f32 compares ----------------------------------------------------------------------------

PYTHON_CONDITIONS = {
    "lt": lambda a, b: a < b, "eq": lambda a, b: a == b, "le": lambda a, b: a <= b, "gt": lambda a, b: a > b,
    "ge": lambda a, b: a >= b, "lg": lambda a, b: a < b or a > b, "o": lambda a, b: a == a and b == b,
    "u": lambda a, b: a != a or b != b, "neq": lambda a, b: not a == b, "nlt": lambda a, b: not a < b,
    "nle": lambda a, b: not a <= b, "ngt": lambda a, b: not a > b, "nge": lambda a, b: not a >= b,
    "nlg": lambda a, b: not (a < b or a > b),
}


def compare_ok(table, cc: str) -> bool:
    a, b = (v.ravel() for v in np.meshgrid(SPECIAL, SPECIAL))
    want = np.array([PYTHON_CONDITIONS[cc](float(x), float(y)) for x, y in zip(a, b)])
    return bool(np.array_equal(np.asarray(table[cc](a, b), bool), want))


@pytest.mark.parametrize("cc", sorted(PYTHON_CONDITIONS))
def test_f32_compare_conditions(cc):
    assert compare_ok(F32_COMPARE, cc)


def test_nlt_is_true_on_nan():
    assert F32_COMPARE["nlt"](F32(np.nan), F32(1.0)) and not F32_COMPARE["lt"](F32(np.nan), F32(1.0))


@pytest.mark.parametrize("cc, wrong", [("nlt", "ge"), ("ngt", "le"), ("neq", "lg"), ("lg", "neq")])
def test_planted_ordered_for_unordered_fails(cc, wrong):
    assert not compare_ok({cc: F32_COMPARE[wrong]}, cc)


# -- division ------------------------------------------------------------------------------------

def llvm_fdiv(num, den, scale=fdiv.div_scale, fixup=fdiv.div_fixup):
    """LLVM's f32 division (AMDGPUISelLowering::LowerFDIV32) on the handlers' functions."""
    def fma(a, b, c):
        return (a.astype(np.float64) * b + c).astype(F32)
    den_s, _ = scale(den, den, num)
    num_s, vcc = scale(num, den, num)
    with np.errstate(all="ignore"):
        r = (F32(1) / den_s).astype(F32)
        r = fma(fma(-den_s, r, np.ones_like(r)), r, r)
        q = (num_s * r).astype(F32)
        q = fma(fma(-den_s, q, num_s), r, q)
        return fixup(fdiv.div_fmas(fma(-den_s, q, num_s), r, q, vcc), den, num)


def division_ok(**planted) -> bool:
    x, y = np.meshgrid(SPECIAL, SPECIAL)
    num = np.concatenate([random_f32(20000, 4), x.ravel(), np.ones(500, F32)])
    den = np.concatenate([random_f32(20000, 5), y.ravel(), (1 + np.exp(np.linspace(-90, 90, 500))).astype(F32)])
    with np.errstate(all="ignore"):
        return same(llvm_fdiv(num, den, **planted), num / den)


def test_llvm_division_is_correctly_rounded():
    """Every exponent range (scaled where the reciprocal or the quotient is denormal or overflows),
    0, inf and NaN: bit-equal to numpy's f32 division."""
    assert division_ok()


def test_planted_division_fixup_without_the_overflow_case_fails():
    def fixup(q, den, num):
        d = fdiv.div_fixup(q, den, num)
        return np.where(np.isnan(q) & ~np.isnan(den) & ~np.isnan(num) & (den != 0), np.float32(np.nan), d)
    assert not division_ok(fixup=fixup)


def test_planted_div_scale_that_never_scales_fails():
    assert not division_ok(scale=lambda s0, den, num: (np.asarray(s0, F32), np.zeros(np.shape(s0), bool)))


# -- max / min -----------------------------------------------------------------------------------

SNAN = np.array([0x7F800001], np.uint32).view(F32)[0]


def ieee_pair(a: float, b: float, larger: bool, propagate: bool) -> float:
    if math.isnan(a) or math.isnan(b):
        return math.nan if propagate or (math.isnan(a) and math.isnan(b)) else (b if math.isnan(a) else a)
    if a == b:  # +0 above -0
        return a if (math.copysign(1, a) > 0) == larger else b
    return max(a, b) if larger else min(a, b)


def minmax_ok(fn, larger: bool, propagate: bool) -> bool:
    a, b = (v.ravel() for v in np.meshgrid(SPECIAL, SPECIAL))
    want = [ieee_pair(float(x), float(y), larger, propagate) for x, y in zip(a, b)]
    return same(fn(bits(a), bits(b)), np.array(want, F32))


@pytest.mark.parametrize("op, larger", [("v_max_f32", True), ("v_min_f32", False)])
def test_max_min_take_the_number_over_a_quiet_nan(op, larger):
    assert minmax_ok(FLOAT[op], larger, propagate=False)
    got = bits(FLOAT[op](bits([SNAN]), bits([1.0])))[0]
    assert got == 0x7FC00001, "a signaling NaN comes back quietened (IEEE mode)"


@pytest.mark.parametrize("op, larger", [("v_maximum_f32", True), ("v_minimum_f32", False)])
def test_maximum_minimum_propagate_nan(op, larger):
    assert minmax_ok(FLOAT[op], larger, propagate=True)


def test_three_operand_forms():
    a, b, c = bits([1.0, np.nan, -0.0, 5.0]), bits([2.0, 1.0, 0.0, -1.0]), bits([0.0, 0.0, 0.0, 3.0])
    assert same(FLOAT["v_maximum3_f32"](a, b, c), [2.0, np.nan, 0.0, 5.0])
    assert same(FLOAT["v_minimum3_f32"](a, b, c), [0.0, np.nan, -0.0, -1.0])
    assert same(FLOAT["v_maximumminimum_f32"](a, b, c), [0.0, np.nan, 0.0, 3.0])  # min(max(a, b), c)
    assert same(FLOAT["v_minimummaximum_f32"](a, b, c), [1.0, np.nan, 0.0, 3.0])  # max(min(a, b), c)


def test_planted_max_propagating_nan_fails():
    assert not minmax_ok(lambda a, b: np.maximum(a.view(F32), b.view(F32)), True, propagate=False)


# -- v_cvt_pk_bf16_f32 ---------------------------------------------------------------------------

def bf16_ok(fn) -> bool:
    x = np.concatenate([SPECIAL, random_f32(3000, 6), F32(1) + np.arange(0, 2**-6, 2**-9, dtype=F32)])
    y = x[::-1].copy()
    got = np.asarray(fn(bits(x).astype(np.uint64), bits(y).astype(np.uint64)), np.uint64)
    lo, hi = (got & 0xFFFF).astype(np.uint16), (got >> 16).astype(np.uint16)
    want_lo, want_hi = (v.astype(ml_dtypes.bfloat16).view(np.uint16) for v in (x, y))
    nan_lo, nan_hi = np.isnan(x), np.isnan(y)
    as_f = lambda h: h.view(ml_dtypes.bfloat16).astype(F32)  # noqa: E731
    return bool(np.all(np.where(nan_lo, np.isnan(as_f(lo)), lo == want_lo))
                and np.all(np.where(nan_hi, np.isnan(as_f(hi)), hi == want_hi)))


def test_cvt_pk_bf16_rounds_to_nearest_even():
    assert bf16_ok(INTEGER["v_cvt_pk_bf16_f32"])


def test_planted_bf16_truncation_fails():
    assert not bf16_ok(lambda a, b: ((b >> np.uint64(16)) << np.uint64(16)) | (a >> np.uint64(16)))


# -- the front takes clang's lines ---------------------------------------------------------------

CLANG_LINES = {
    "gfx942": ["v_exp_f32_e32 v1, v2", "v_ldexp_f32 v1, v2, v3", "v_rndne_f32_e32 v1, v2",
               "v_fmamk_f32 v1, v2, 0x3fb8aa3b, v3", "v_fmaak_f32 v1, v2, v3, 0x3fb8aa3b",
               "v_cmp_nlt_f32_e64 s[0:1], |v17|, 1.0", "v_cmp_ngt_f32_e32 vcc, 0xc2ce8ed0, v1",
               "v_cmp_ge_f32_e64 s[2:3], |v4|, 0x41300000", "v_fma_f32 v1, |v2|, -v3, 1.0",
               "v_add_f32_e64 v1, |v2|, 1.0", "v_div_scale_f32 v49, s[8:9], v46, v46, 2.0",
               "v_div_fmas_f32 v49, v49, v50, v52", "v_div_fixup_f32 v46, v49, v46, 2.0"],
    "gfx950": ["v_cvt_pk_bf16_f32 v1, v2, v3", "v_maximum3_f32 v27, v27, 0, 0", "v_minimum3_f32 v0, v0, s10, s10"],
    "gfx1100": ["v_cmpx_nlt_f32_e64 |v37|, 1.0", "v_div_scale_f32 v42, null, v37, v37, v31",
                "v_cmp_nlt_f32_e32 vcc_lo, 0x42b17218, v3"],
    "gfx1201": ["v_maximum_f32 v1, v2, v3", "v_maximumminimum_f32 v1, v2, v3, v4"],
}


@pytest.mark.parametrize("arch, line", [(a, line) for a, lines in CLANG_LINES.items() for line in lines])
def test_front_takes_clangs_line(arch, line):
    op = Builder(get_arch(arch), Block()).instruction(parse_line(line, Location("t.s", 1, 1)))
    assert ("abs" in op.attributes) == ("|" in line), "an |x| source is the abs modifier, none without"


# -- end to end ----------------------------------------------------------------------------------

EVERY_FUNCTION = """kernel k {
  dim M = 23, N = 29, K = 17
  A: f32[M, K]
  B: f32[K, N]
  C: f32[M, N]
  b: f32[N]
  s: f32[M]
  R: f16[M, N]
  alpha: f32
  acc f32
  C = relu(A @ B + b) + gelu(A @ B) + gelu_tanh(A @ B) + silu(A @ B + s) + sigmoid(A @ B) + tanh(A @ B) + abs(A @ B - R) + clamp(A @ B, -0.5, alpha)
}
"""


@needs_clang
@pytest.mark.parametrize("arch", ["gfx942", "gfx1100"])
def test_linear_example_passes_at_level_asm(arch, capsys):
    from gemmc.driver.cli import main

    rc = main(["run", str(ROOT / "examples/linear.gemm"), "--arch", arch, "-D", "M=19", "-D", "N=37", "-D", "K=21",
               "--level", "asm"])
    out = capsys.readouterr().out
    assert rc == 0 and out.startswith("PASS"), out


@needs_clang
@pytest.mark.parametrize("arch", ["gfx942", "gfx1100"])
def test_every_epilogue_function_passes_at_level_asm(arch, tmp_path, capsys):
    from gemmc.driver.cli import main

    src = tmp_path / "every.gemm"
    src.write_text(EVERY_FUNCTION)
    rc = main(["run", str(src), "--arch", arch, "--level", "asm"])
    out = capsys.readouterr().out
    assert rc == 0 and out.startswith("PASS"), out


@needs_clang
def test_planted_abs_modifier_ignored_fails(monkeypatch, capsys):
    """clang's erf tests |x| against 1 (`v_cmp_nlt_f32_e64 s[0:1], |v17|, 1.0`): sources read
    without their abs bits take the wrong branch for negative x, and C must FAIL."""
    from gemmc.amdgcn.interp import vector_alu
    from gemmc.driver.cli import main

    real = vector_alu.float_sources

    def without_abs(S, op, srcs):
        class Stripped:
            mods = {k: v for k, v in op.mods.items() if k != "abs"}
        return real(S, Stripped, srcs)

    monkeypatch.setattr(vector_alu, "float_sources", without_abs)
    monkeypatch.setattr(fdiv, "float_sources", without_abs)
    rc = main(["run", str(ROOT / "examples/linear.gemm"), "--arch", "gfx942", "-D", "M=19", "-D", "N=37", "-D", "K=21",
               "--level", "asm"])
    assert rc != 0 and capsys.readouterr().out.startswith("FAIL")
