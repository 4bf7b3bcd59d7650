"""What every part of the interpreter shares: its error type, and how IR types map to numpy.

Values are numpy arrays or numpy scalars, never xDSL attributes, so that a kernel's
lanes are computed in one numpy call per op.  Element types map as follows:

  f32 -> float32, f16 -> float16, f64 -> float64,
  bf16 -> float32 holding values already rounded to bf16 (numpy has no bf16; every
          bf16 result is rounded with `to_bf16`, so the values are exactly bf16's),
  FP8 (f8E4M3FNUZ, f8E5M2FNUZ, f8E4M3FN, f8E5M2) -> float32 holding values rounded to
          the format by ml_dtypes (`to_fp8`), the same way,
  index, i64 -> int64 (i1 -> bool), unwrapped: the kernels compute addresses in `index`,
          and int64 cannot overflow there,
  iN (N = 8, 16, 32) -> int64 holding the N-bit two's-complement value, as signed: every
          result of an op of that type is wrapped to N bits (`wrap`), so i32 arithmetic
          wraps around as MLIR's arith (and the hardware) does; a signless i8 that holds an
          unsigned (u8) integer is the same bits, read back by arith.extui.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float8E4M3FNType,
    Float8E4M3FNUZType,
    Float8E5M2FNUZType,
    Float8E5M2Type,
    Float4E2M1FNType,
    Float6E2M3FNType,
    Float6E3M2FNType,
    Float8E8M0FNUType,
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerType,
    MemRefType,
    VectorType,
)
from xdsl.ir import Attribute, BlockArgument, Operation, SSAValue

from gemmc.support.arith_semantics import MATH_VALU_INSTRS, SOFT_FP8_VALU_INSTRS, to_bf16, to_fp8
from gemmc.support.diagnostics import GemmcError
from gemmc.target.resources import device_bytes


class InterpError(GemmcError):
    """A kernel did something the interpreter refuses: an out-of-bounds access, a race,
    an op it cannot run.  A GemmcError, so the CLI prints it as one line."""


# -- types ---------------------------------------------------------------------------


def element_type(t: Attribute) -> Attribute:
    """The scalar type of a scalar, vector or memref type."""
    if isinstance(t, (VectorType, MemRefType)):
        return t.element_type
    return t


def is_vector(t: Attribute) -> bool:
    return isinstance(t, VectorType)


def vector_width(t: Attribute) -> int:
    """Lanes of a 1-D vector type (1 for a scalar type); wider shapes are refused."""
    if not isinstance(t, VectorType):
        return 1
    shape = t.get_shape()
    if len(shape) != 1:
        raise InterpError(f"only 1-D vectors are supported, not {t}")
    return shape[0]


# FP8 types and their .gemm names (gemmc.support.arith_semantics.FP8_DTYPES)
# and the block-scaled (MX) formats, held the same way (the E8M0 scale: a power of two, or NaN)
_FP8 = {Float8E4M3FNUZType: "f8e4m3fnuz", Float8E5M2FNUZType: "f8e5m2fnuz",
        Float8E4M3FNType: "f8e4m3fn", Float8E5M2Type: "f8e5m2",
        Float6E2M3FNType: "f6e2m3fn", Float6E3M2FNType: "f6e3m2fn", Float4E2M1FNType: "f4e2m1fn",
        Float8E8M0FNUType: "f8e8m0fnu"}


def fp8_format(t: Attribute) -> str | None:
    """The FP8 format of `t`'s element type, or None."""
    return _FP8.get(type(element_type(t)))


def np_dtype(t: Attribute) -> np.dtype:
    """The numpy dtype that holds values of scalar type `t` (bf16 and FP8 are held as float32)."""
    t = element_type(t)
    if isinstance(t, (Float32Type, BFloat16Type, *_FP8)):
        return np.dtype(np.float32)
    if isinstance(t, Float16Type):
        return np.dtype(np.float16)
    if isinstance(t, Float64Type):
        return np.dtype(np.float64)
    if isinstance(t, IntegerType) and t.width.data == 1:
        return np.dtype(np.bool_)
    if isinstance(t, (IntegerType, IndexType)):
        return np.dtype(np.int64)
    raise InterpError(f"the interpreter has no value representation for type {t}")


def is_float(t: Attribute) -> bool:
    return isinstance(element_type(t), (Float16Type, BFloat16Type, Float32Type, Float64Type, *_FP8))


def is_bf16(t: Attribute) -> bool:
    return isinstance(element_type(t), BFloat16Type)


def element_bytes(t: Attribute) -> int:
    """Bytes one element of `t` occupies on the device (bf16 is 2, FP8 1, although held as float32;
    FP6 and FP4 count 1: gemmc's kernels keep one MX element per byte: gemmc.target.resources.device_bytes);
    an index, 8."""
    t = element_type(t)
    return 8 if isinstance(t, IndexType) else device_bytes(t)


def wrapped_width(t: Attribute) -> int | None:
    """N of an integer type iN whose values wrap (8, 16, 32), else None."""
    t = element_type(t)
    return t.width.data if isinstance(t, IntegerType) and 1 < t.width.data < 64 else None


def wrap(x, bits: int):
    """The low `bits` bits of integer `x`, as a signed (two's-complement) int64."""
    half = 1 << (bits - 1)
    return ((np.asarray(x, dtype=np.int64) + half) & ((1 << bits) - 1)) - half


def round_to(x, t: Attribute):
    """`x` in the representation of type `t`: cast, and rounded to bf16 or FP8 where `t` is
    (wrapped to N bits where `t` is iN)."""
    dtype = np_dtype(t)
    if isinstance(x, np.ndarray) and x.ndim == 0:
        x = x[()]  # uniform values are numpy scalars, never 0-d arrays
    bits = wrapped_width(t)
    if bits is not None:
        w = wrap(x, bits)
        return w if isinstance(x, np.ndarray) else w[()]
    if is_bf16(t):
        return to_bf16(x)
    fmt = fp8_format(t)
    if fmt is not None:
        return to_fp8(x, fmt)
    if isinstance(x, np.ndarray):
        if x.dtype != dtype:
            x = x.astype(dtype)
    else:
        x = dtype.type(x)
    return x


# -- names for messages -------------------------------------------------------------


def value_name(v: SSAValue) -> str:
    """How a value reads in a message: %A, %lds_a, %arg3."""
    if v.name_hint:
        return f"%{v.name_hint}"
    if isinstance(v, BlockArgument):
        return f"%arg{v.index}"
    return f"the result of {v.owner.name}" if isinstance(v.owner, Operation) else "%<value>"


def enclosing_symbol(op: Operation) -> str:
    """'@name' of the function (func.func or gpu.func) that holds `op`, or ''."""
    p = op.parent_op()
    while p is not None:
        sym = p.properties.get("sym_name") or p.attributes.get("sym_name")
        if sym is not None and p.name in ("func.func", "gpu.func"):
            return f"@{sym.data}"
        p = p.parent_op()
    return ""


def valu_instrs(op: Operation, arch) -> int:
    """VALU instructions a wave issues for `op` on `arch` (the interpreter's count and the cost
    model's): an expansion's (MATH_VALU_INSTRS), an FP8 conversion the arch does in software, else 1."""
    if op.name == "arith.truncf" and arch is not None:
        t = op.results[0].type
        fmt = fp8_format(t.element_type if isinstance(t, VectorType) else t)
        if fmt is not None and not arch.converts_in_hardware(fmt):
            return SOFT_FP8_VALU_INSTRS
    return MATH_VALU_INSTRS.get(type(op), 1)
