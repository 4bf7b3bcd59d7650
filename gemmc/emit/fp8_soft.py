"""f32 -> FP8 in software: the device function that rounds an output to an FP8 format the arch has
no conversion instruction for (Arch.output_dtypes; gfx90a and gfx1100 have none, gfx942 the FNUZ
formats alone, gfx950 and gfx1201 the OCP ones).

    arith.truncf %y : f32 to f8E4M3FN   (on gfx942)  ->  gemmc_f32_to_f8e4m3fn(y)

It is arith.truncf's conversion as the interpreter defines it (gemmc.support.arith_semantics.to_fp8,
ml_dtypes' numerics), bit for bit: to nearest, ties to even, subnormals of the format included; a
rounded magnitude beyond the largest finite code is the format's overflow code (OCP e4m3 and the
FNUZ formats: NaN, OCP e5m2: Inf); NaN is the format's NaN (the sign kept where the format has
one); -0 is -0 where the format has it (OCP) and +0 where it has not (FNUZ).  A fused epilogue's
saturate (arith.maximumf / minimumf, printed before it) has clamped the value already; the
conversion does not saturate itself, as the hardware's (without clamp) does not.

The format's facts (mantissa bits, smallest normal exponent, codes of its largest finite value, of
NaN, of an overflow and of -0) are read from ml_dtypes, the reference numerics, so the C and the
interpreter cannot disagree on a format's definition; tests/test_fp8_soft.py runs the function
over every class of f32 on the CPU against to_fp8.

The rounding works on the f32's integer bits: a = |x|'s bits, e its unbiased exponent; the
format's quantum at a is 2^q, q = max(e, emin) - m (emin: the smallest normal exponent, m: the
mantissa bits); the 24-bit significand shifted right by q - (e - 23) and rounded to nearest even
is r, the value r * 2^q, and the code ((max(e, emin) - emin) << m) + r: in the normal range
r's leading bit adds the exponent's 1, in the subnormal range the exponent field is 0, and a
carry out of the mantissa moves into the exponent by itself.  f32 subnormals lie far below every
format's smallest subnormal (2^-17 at the least): they round to zero.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Fp8Format:
    """What the conversion needs of an FP8 format, read from ml_dtypes."""

    mantissa_bits: int
    min_exponent: int  # of the smallest normal
    max_code: int  # the largest finite magnitude's code
    overflow: tuple[int, int]  # codes of +Inf and -Inf converted (NaN or Inf)
    nan: tuple[int, int]  # codes of +NaN and -NaN
    neg_zero: int  # code of -0.0


def fp8_format(fmt: str) -> Fp8Format:
    """The format `fmt` (f8e4m3fn, f8e5m2, f8e4m3fnuz, f8e5m2fnuz) as ml_dtypes defines it."""
    import ml_dtypes
    import numpy as np

    from gemmc.support.arith_semantics import fp8_dtypes

    t = fp8_dtypes()[fmt]
    info = ml_dtypes.finfo(t)

    def codes(*values: float) -> list[int]:
        return [int(c) for c in np.array(values, np.float32).astype(t).view(np.uint8)]

    (max_code,) = codes(float(info.max))
    return Fp8Format(int(info.nmant), int(info.minexp), max_code, tuple(codes(np.inf, -np.inf)),
                     tuple(codes(np.nan, -np.nan)), codes(-0.0)[0])


def soft_fp8_name(fmt: str) -> str:
    return f"gemmc_f32_to_{fmt}"


def soft_fp8_function(fmt: str) -> list[str]:
    """The device function `unsigned char gemmc_f32_to_<fmt>(float x)` (module docstring).  Its
    values stay 32-bit to the end: a select of bytes becomes v_cndmask_b16 on gfx11 (true16)."""
    f = fp8_format(fmt)
    m, emin = f.mantissa_bits, f.min_exponent
    return [
        f"// f32 -> {fmt} in software (no conversion instruction for it on this target): nearest even,",
        "// the format's subnormals, overflow and NaN codes as arith.truncf (gemmc/emit/fp8_soft.py)",
        f"__device__ inline unsigned char {soft_fp8_name(fmt)}(float x)",
        "{",
        "    const unsigned u = __builtin_bit_cast(unsigned, x), a = u & 0x7fffffffu, sign = u >> 24 & 0x80u;",
        f"    const int e = (int)(a >> 23) - 127, ex = e > {emin} ? e : {emin};  // ex - {m}: the quantum's exponent",
        f"    const int shift = ex - {m} - (e - 23);  // significand bits below the quantum: >= {23 - m}",
        "    const unsigned sig = (a & 0x7fffffu) | 0x800000u;",
        "    unsigned r = 0;",
        "    if (a >= 0x00800000u && shift < 26) {  // else below half the smallest subnormal: 0",
        "        const unsigned rest = sig & ((1u << shift) - 1u), half = 1u << (shift - 1);",
        "        r = (sig >> shift) + (rest > half || (rest == half && ((sig >> shift) & 1u)));",
        "    }",
        f"    const unsigned code = ((unsigned)(ex - ({emin})) << {m}) + r;",
        f"    const unsigned out = a > 0x7f800000u ? {_signed(f.nan)}  // NaN",
        f"        : code > {f.max_code:#04x}u ? {_signed(f.overflow)}  // beyond the largest finite value",
        f"        : code == 0 ? {_signed((0, f.neg_zero))} : (code | sign);",
        "    return (unsigned char)out;",
        "}",
    ]


def _signed(codes: tuple[int, int]) -> str:
    """C of the code (+, -): `sign | c` where the format keeps the sign, else the one code."""
    pos, neg = codes
    if neg == pos:
        return f"{pos:#04x}u"
    assert neg == pos | 0x80, codes
    return f"(sign | {pos:#04x}u)" if pos else "sign"
