"""What arith's ops compute, on numpy values: one table for every evaluator of the IR.

The interpreter (gemmc/interp/ops.py) runs these on the values of a kernel's lanes; the
cost model's lane evaluator (gemmc/cost/lanes.py) on the index arithmetic of sampled
lanes and iterations; the AMDGCN backend folds constants with `to_bf16`.  Sharing them
means the cost model's addresses are the addresses the interpreter touches.

Integers are numpy int64, the width of `index`, in two's complement, as MLIR's arith
defines them:
* the *ui ops (divui, remui, ceildivui, minui, maxui, shrui) and the unsigned compares
  read their operands as unsigned: divui(-7, 2) is (2^64 - 7) // 2, not -4 (-7 is
  0xFFFF_FFFF_FFFF_FFF9); the result's bits are read back as int64;
* divsi and remsi round toward zero, floordivsi toward -inf, ceildivsi toward +inf;
* division by zero is undefined behaviour in MLIR; here it gives 0 (what numpy's integer
  division gives), without a warning, so that evaluating a lane a guard would have
  masked off stays quiet.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects import arith
from xdsl.dialects import math as xmath


def scalar(x):
    """0-d arrays back to numpy scalars, so uniform values stay scalars."""
    return x[()] if isinstance(x, np.ndarray) and x.ndim == 0 else x


def unsigned(x) -> np.ndarray:
    """An integer value's bits read as unsigned (for the *ui ops and unsigned compares)."""
    return np.asarray(x, dtype=np.int64).astype(np.uint64)


def signed(x):
    """Unsigned bits back to int64 (wrapping, as the bits are the same)."""
    return scalar(np.asarray(x).astype(np.int64))


def _by_nonzero(fn):
    """`fn(a, b)` where b != 0, and 0 where b == 0 (see the module docstring)."""

    def run(a, b):
        zero = np.asarray(b) == 0
        if not zero.any():
            return fn(a, b)
        safe = np.where(zero, np.ones_like(b), b)
        return scalar(np.where(zero, np.zeros_like(fn(a, safe)), fn(a, safe)))

    return run


def _divsi(a, b):
    """Signed division rounding toward zero (numpy's // floors)."""
    r = np.fmod(a, b)
    return scalar(np.floor_divide(np.subtract(a, r), b))


def _ceildivui(a, b):
    ua, ub = unsigned(a), unsigned(b)
    return signed(ua // ub + (ua % ub != 0))


INT_BINARY = {
    arith.AddiOp: np.add,
    arith.SubiOp: np.subtract,
    arith.MuliOp: np.multiply,
    arith.DivSIOp: _by_nonzero(_divsi),
    arith.DivUIOp: _by_nonzero(lambda a, b: signed(unsigned(a) // unsigned(b))),
    arith.FloorDivSIOp: _by_nonzero(np.floor_divide),
    arith.CeilDivSIOp: _by_nonzero(lambda a, b: np.negative(np.floor_divide(np.negative(a), b))),
    arith.CeilDivUIOp: _by_nonzero(_ceildivui),
    arith.RemSIOp: _by_nonzero(np.fmod),
    arith.RemUIOp: _by_nonzero(lambda a, b: signed(unsigned(a) % unsigned(b))),
    arith.MinSIOp: np.minimum,
    arith.MaxSIOp: np.maximum,
    arith.MinUIOp: lambda a, b: signed(np.minimum(unsigned(a), unsigned(b))),
    arith.MaxUIOp: lambda a, b: signed(np.maximum(unsigned(a), unsigned(b))),
    arith.AndIOp: np.bitwise_and,
    arith.OrIOp: np.bitwise_or,
    arith.XOrIOp: np.bitwise_xor,
    arith.ShLIOp: np.left_shift,
    arith.ShRSIOp: np.right_shift,
    arith.ShRUIOp: lambda a, b: signed(unsigned(a) >> unsigned(b)),
}
"""arith's integer binary ops, by op class."""

FLOAT_BINARY = {
    arith.AddfOp: np.add,
    arith.SubfOp: np.subtract,
    arith.MulfOp: np.multiply,
    arith.DivfOp: np.divide,
    arith.MaximumfOp: np.maximum,  # NaN-propagating, like maximumf
    arith.MinimumfOp: np.minimum,
    arith.MaxnumfOp: np.fmax,  # NaN-ignoring, like maxnumf
    arith.MinnumfOp: np.fmin,
}
"""arith's float binary ops, by op class (the caller rounds the result to the op's type)."""

def _erf(x):
    import math as pymath

    # frompyfunc gives a Python float, not an array, for a 0-d input (gelu of a scalar operand)
    return np.asarray(np.frompyfunc(pymath.erf, 1, 1)(np.asarray(x, dtype=np.float64)), dtype=np.float64)


MATH_FUNCTIONS = {
    xmath.ExpOp: np.exp,
    xmath.TanhOp: np.tanh,
    xmath.ErfOp: _erf,
}
"""math's functions a fused epilogue uses, by op class, in float64 (the caller rounds the result
to the op's type: a correctly rounded function, which the hardware's are within a few ulp of)."""

LIBM_ULPS = 4
"""How far (in ulp) a kernel's exp, erf or tanh may be from the exact function: gemmc's own erf and
tanh (gemmc.emit.math_helpers) are within 1.1 and 1.5 ulp, LLVM's exp and CUDA's within 2; the
checker's and the harness's bounds allow twice that."""

MATH_VALU_INSTRS = {xmath.ExpOp: 12, xmath.TanhOp: 24, xmath.ErfOp: 22, arith.DivfOp: 12}
"""VALU instructions a wave issues for an op the compiler expands (f32): exp's range reduction
around v_exp_f32, IEEE division's v_div_scale / v_rcp / fma / v_div_fmas / v_div_fixup, and gemmc's
erf and tanh (gemmc.emit.math_helpers: a polynomial branch, or one through exp and a division), as
clang-22 writes them for gfx942 (step-1 kernels of `gelu`, `tanh`, `sigmoid`: 46, 44 and 26 more
VALU instructions than the plain product, both branches counted; here one branch's worth).  The
interpreter and the cost model count them alike."""

SOFT_FP8_VALU_INSTRS = 27
"""VALU instructions of an f32 -> FP8 conversion in software (gemmc/emit/fp8_soft.py: an output format
the arch has no instruction for), where the hardware's v_cvt_pk_fp8_f32 is one: clang-22's step-1
kernel of examples/fp8_amax.gemm for gfx942 has 88 VALU instructions with C f8e4m3fn (software) and
62 with f8e4m3fnuz (hardware), both branches of the rounding counted (gemmc.interp.common.valu_instrs)."""

CMPI = {
    "eq": np.equal, "ne": np.not_equal,
    "slt": np.less, "sle": np.less_equal, "sgt": np.greater, "sge": np.greater_equal,
    "ult": lambda a, b: unsigned(a) < unsigned(b), "ule": lambda a, b: unsigned(a) <= unsigned(b),
    "ugt": lambda a, b: unsigned(a) > unsigned(b), "uge": lambda a, b: unsigned(a) >= unsigned(b),
}
"""arith.cmpi by predicate name, in the order of the predicate's number."""


def _unordered(a, b):
    return np.isnan(a) | np.isnan(b)


CMPF = {
    "false": lambda a, b: np.zeros(np.broadcast(a, b).shape, dtype=bool),
    "oeq": np.equal, "ogt": np.greater, "oge": np.greater_equal,
    "olt": np.less, "ole": np.less_equal,
    "one": lambda a, b: np.not_equal(a, b) & ~_unordered(a, b),
    "ord": lambda a, b: ~_unordered(a, b),
    "ueq": lambda a, b: np.equal(a, b) | _unordered(a, b),
    "ugt": lambda a, b: ~np.less_equal(a, b), "uge": lambda a, b: ~np.less(a, b),
    "ult": lambda a, b: ~np.greater_equal(a, b), "ule": lambda a, b: ~np.greater(a, b),
    "une": np.not_equal, "uno": _unordered,
    "true": lambda a, b: np.ones(np.broadcast(a, b).shape, dtype=bool),
}
"""arith.cmpf by predicate name, in the order of the predicate's number."""
CMPI_NAMES = list(CMPI)
CMPF_NAMES = list(CMPF)


def to_bf16(x):
    """Round float values to bf16 (nearest, ties to even), returned as float32.

    Works on the bits: adding 0x7FFF plus the lowest kept bit to the float32 pattern and
    clearing the low 16 bits is round-to-nearest-even; NaNs are kept as (quiet) NaNs.
    float64 input is rounded the same way at bf16's bit in the float64 pattern, so it is
    rounded once (going through float32 first could round twice).
    """
    a = np.asarray(x)
    if a.dtype == np.float64:
        bits = a.view(np.uint64)
        keep = np.uint64(45)  # float64 has 52 fraction bits, bf16 7
        half = np.uint64((1 << 44) - 1)
        rounded = ((bits + half + ((bits >> keep) & np.uint64(1))) >> keep) << keep
        out = np.where(np.isnan(a), np.nan, rounded.view(np.float64)).astype(np.float32)
        return out if out.ndim else np.float32(out)
    a = np.asarray(a, dtype=np.float32)
    bits = a.view(np.uint32)
    rounded = (bits + np.uint32(0x7FFF) + ((bits >> np.uint32(16)) & np.uint32(1))) & np.uint32(
        0xFFFF0000
    )
    out = np.where(np.isnan(a), np.float32(np.nan), rounded.view(np.float32))
    return out if out.ndim else np.float32(out)


# FP8 formats by their .gemm names, as ml_dtypes' dtypes (the reference numerics of FP8).  Importing
# ml_dtypes takes most of a second, which only a command that meets FP8 values should pay for.
# The block-scaled (MX) formats are here too: FP6 (e2m3, e3m2), FP4 (e2m1) and the E8M0 scale.
FP8_NAMES = ("f8e4m3fnuz", "f8e5m2fnuz", "f8e4m3fn", "f8e5m2", "f6e2m3fn", "f6e3m2fn", "f4e2m1fn", "f8e8m0fnu")


def fp8_dtypes() -> dict:
    """ml_dtypes' dtype of each narrow format: f6e2m3fn is float6_e2m3fn, f8e8m0fnu float8_e8m0fnu."""
    import ml_dtypes

    return {name: getattr(ml_dtypes, f"float{name[1]}_{name[2:]}") for name in FP8_NAMES}


def __getattr__(name: str):  # FP8_DTYPES, built on first use
    if name == "FP8_DTYPES":
        return fp8_dtypes()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def to_fp8(x, fmt: str):
    """Round float values to the FP8 format `fmt` (nearest, ties to even), returned as float32.

    ml_dtypes rounds float64 input directly (once), as arith.truncf does: beyond the largest
    finite value it gives NaN (e4m3fn, the FNUZ formats: they have no infinity) or Inf
    (e5m2), no saturation; -0 becomes +0 in the FNUZ formats (they have no negative zero)."""
    a = np.asarray(x)
    if a.dtype not in (np.float64, np.float32, np.float16):
        a = a.astype(np.float64)
    out = a.astype(fp8_dtypes()[fmt]).astype(np.float32)
    return out if out.ndim else np.float32(out)
