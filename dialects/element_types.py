"""The element types of .gemm programs: their names, xDSL's builtin types for them, and which
may be operands, accumulators and outputs (the gemm dialect's verifier and every level read these).
"""

from __future__ import annotations

from xdsl.dialects.builtin import (
    BFloat16Type,
    Float4E2M1FNType,
    Float6E2M3FNType,
    Float6E3M2FNType,
    Float8E4M3FNType,
    Float8E4M3FNUZType,
    Float8E5M2FNUZType,
    Float8E5M2Type,
    Float8E8M0FNUType,
    Float16Type,
    Float32Type,
    IntegerType,
)
from xdsl.ir import Attribute

# FP8 (8-bit float) formats, by their .gemm names, as xDSL's builtin types: AMD's FNUZ
# formats of gfx942 (no negative zero, NaN 0x80, exponent bias 8 / 16) and the OCP ones
# (gfx950, gfx1201).  A and B may be two of them (fp8 x bf8); C and the accumulator may not.
FP8_TYPES = {
    "f8e4m3fnuz": Float8E4M3FNUZType, "f8e5m2fnuz": Float8E5M2FNUZType,
    "f8e4m3fn": Float8E4M3FNType, "f8e5m2": Float8E5M2Type,
}
# Block-scaled (OCP MX) formats of gfx950: elements of 6 and 4 bits (MXFP6, MXFP4; MXFP8's
# elements are the OCP FP8 formats above), and the E8M0 scale, a power of two 2^(e - 127) that
# multiplies a block of MX_BLOCK consecutive elements along K.  The narrow elements and the
# scale exist only in a block-scaled product (`C = A scaled SA @ B scaled SB`).
MX_NARROW_TYPES = {"f6e2m3fn": Float6E2M3FNType, "f6e3m2fn": Float6E3M2FNType, "f4e2m1fn": Float4E2M1FNType}
SCALE_TYPES = {"f8e8m0fnu": Float8E8M0FNUType}
MX_ELEMENT_NAMES = ("f8e4m3fn", "f8e5m2", "f6e2m3fn", "f6e3m2fn", "f4e2m1fn")  # what a scale may scale
SCALE_NAME = "f8e8m0fnu"
MX_BLOCK = 32  # elements along K per scale (OCP Microscaling Formats v1.0: block size 32)
# Integer GEMM: A and B of 8-bit integers, signed (i8) or unsigned (u8) each, accumulated and
# stored in i32 with two's-complement wrap-around.  In the IR both are MLIR's signless i8 (as
# MLIR's arith wants them): the signedness of an operand is gemm.matmul's `unsigned_a` /
# `unsigned_b`, and below it the conversion that widens its elements (arith.extui / extsi).
# i4 / u4 (two's-complement or unsigned nibbles) are MLIR's signless i4 in the IR, the same way;
# packed two a byte in global memory, element 2j the low nibble of byte j (gemmc.emit.int4).
INT_INPUT_TYPES = ("i8", "u8", "i4", "u4")
INT4_TYPES = ("i4", "u4")
INT_ACC = "i32"
ELEMENT_TYPES = {"f32": Float32Type, "f16": Float16Type, "bf16": BFloat16Type, **FP8_TYPES, **MX_NARROW_TYPES,
                 **SCALE_TYPES, "i8": lambda: IntegerType(8), "u8": lambda: IntegerType(8),
                 "i4": lambda: IntegerType(4), "u4": lambda: IntegerType(4), "i32": lambda: IntegerType(32)}
# C's element types: an FP8 C (the target's formats) and an i8 C (an integer product's requantized
# output) are converted by a fused epilogue that saturates (docs/language.md, "Output conversion")
OUTPUT_TYPES = ("f32", "f16", "bf16", INT_ACC, *FP8_TYPES, "i8")
ACC_TYPES = ("f32", "f16", INT_ACC)


def is_int(name: str) -> bool:
    """An integer element type (i8, u8, i4, u4, i32)."""
    return name in INT_INPUT_TYPES or name == INT_ACC


def is_fp8(name: str) -> bool:
    return name in FP8_TYPES


def is_narrow_float(name: str) -> bool:
    """FP8, the MX element formats and the E8M0 scale: the formats ml_dtypes gives the numerics of."""
    return name in FP8_TYPES or name in MX_NARROW_TYPES or name in SCALE_TYPES


def type_name(t: Attribute, unsigned: bool = False) -> str:
    """The .gemm spelling of an element type (f32, f16, bf16, f8e4m3fnuz, ...); a signless i8
    is i8, or u8 where `unsigned` (the IR's integers are signless)."""
    if isinstance(t, IntegerType):
        if t.width.data in (4, 8):
            return f"{'u' if unsigned else 'i'}{t.width.data}"
        return f"i{t.width.data}"
    for name, cls in ELEMENT_TYPES.items():
        if isinstance(cls, type) and isinstance(t, cls):
            return name
    return str(t)
