"""Packed FP4 (E2M1) in global memory: the one definition of the layout that the emitted HIP
reads and a host writes.

    row_bytes(n)             the bytes of a stored row of n elements: ceil(n / 2)
    row_bytes_c(n)           the same as a C expression of the C int `n`
    pack(codes)              numpy: rows of 4-bit codes -> rows of packed bytes (a host's side)
    unpack(packed, n)        numpy: what a kernel reads back, by the same arithmetic as `nibble`
    nibble(byte, col)        the C expression a kernel reads element `col` of a row with
    vector_nibbles(v, h)     the C expression of a vector load's 2h elements from its h bytes
    operand_words(codes)     numpy: what OPERAND_HELPER makes of one lane's 32 elements
    OPERAND_HELPER           the C function that packs a scaled MFMA's FP4 operand

The layout: along each stored row (the memref's last, contiguous dimension) element 2j is
the low nibble and element 2j + 1 the high nibble of byte j; every row starts at a byte, so
a row of n elements takes ceil(n / 2) bytes (an odd row's last high nibble is 0, and is never
read), and rows follow each other row-major.  A nibble is the element's E2M1 code: ml_dtypes'
float4_e2m1fn byte (sign bit 3, exponent bits 2-1, mantissa bit 0).

Inside a kernel FP4 is unpacked, one element a byte (its code): LDS tiles and register
fragments are FP8's, so that each thread's single-element copies write whole bytes (two
threads never share one).  Only the two ends pack: the global load takes a nibble out, and
the scaled MFMA's operand is packed again the way the instruction reads FP4 (cbsz / blgp 4):
each lane's 32 elements in 4 VGPRs, element e at bits 4e (gemmc.driver.layout: gpr 4e // 32, bit
4e % 32), i.e. element 2j in the low nibble of byte j, as in global memory.
"""

from __future__ import annotations

from gemmc.support.bitfields import pack_fields

FORMAT_CODE = 4  # cbsz / blgp of FP4 E2M1 in the f8f6f4 MFMAs (gemmc.target.arch.F8F6F4_FORMATS)


def row_bytes(n: int) -> int:
    return (n + 1) // 2


def row_bytes_c(n: str) -> str:
    """C: row_bytes of `n`, a C expression that binds at least as tight as `*`."""
    return f"({n} + 1) / 2"


def pack(codes: np.ndarray) -> np.ndarray:
    """Rows (the last axis) of 4-bit codes (uint8 0..15) as packed rows of row_bytes bytes."""
    import numpy as np  # in the function: lit's `gemmc opt` / `compile` runs never reach it
    codes = np.asarray(codes)
    if codes.dtype != np.uint8 or (codes > 15).any():
        raise ValueError("FP4 codes are uint8 values 0..15 (ml_dtypes.float4_e2m1fn viewed as uint8)")
    return pack_fields(codes, 4)  # (an odd row's last high nibble 0)


def unpack(packed: np.ndarray, n: int) -> np.ndarray:
    """Rows of n codes from packed rows, by `nibble`'s arithmetic."""
    import numpy as np
    col = np.arange(n)
    return (packed[..., col >> 1] >> (col & 1) * 4) & 15


def nibble(byte: str, col: str) -> str:
    """C: the code of element `col` of a row, from `byte`, the row's byte col / 2 (also valid
    Python, which the tests evaluate)."""
    return f"({byte} >> ({col} & 1) * 4) & 15"


def vector_nibbles(name: str, half: int) -> str:
    """C: the 2 * half codes of the v<half>uchar `name` (packed bytes of one row) in element order,
    element 2j byte j's low nibble and 2j + 1 its high one."""
    lanes = ", ".join(f"{j}, {half + j}" for j in range(half))
    return f"__builtin_shufflevector({name} & 15, {name} >> 4, {lanes})"


OPERAND_HELPER_NAME = "gemmc_fp4_operand"
# Four elements a 32-bit word at a time: w | w >> 4 puts e0 | e1 << 4 in byte 0 and e2 | e3 << 4 in
# byte 2 (every byte is a code below 16, so nothing else leaks in), and the two bytes of two
# words make one packed word (with v_perm_b32, clang-22 makes 20 VALU ops of an operand, ~70
# byte by byte).  The builtin takes A and B as v8int whatever the format; for FP4 the
# instruction reads the first 4 VGPRs (clang-22 passes v[n:n+3]), so the rest is zero.
OPERAND_HELPER = [
    "// A scaled MFMA's FP4 operand: the lane's 32 elements, one a byte (their codes), packed",
    "// two a byte, element 2j in the low nibble of byte j (4 VGPRs; docs/language.md).",
    f"__device__ inline v8int {OPERAND_HELPER_NAME}(v32uchar e)",
    "{",
    "    const v8uint w = __builtin_bit_cast(v8uint, e);",
    "    const v8uint x = w | w >> 4;",
    "    const v8uint h = (x & 0xffu) | (x >> 8 & 0xff00u);",
    "    const v4uint packed = h.even | h.odd << 16;",
    "    return __builtin_shufflevector(__builtin_bit_cast(v4int, packed), (v4int)(0), 0, 1, 2, 3, 4, 5, 6, 7);",
    "}",
]
OPERAND_HELPER_TYPES = {"v32uchar": ("unsigned char", 32), "v8uint": ("unsigned", 8), "v4uint": ("unsigned", 4),
                        "v4int": ("int", 4), "v8int": ("int", 8)}


def operand_words(codes: np.ndarray) -> np.ndarray:
    """OPERAND_HELPER's arithmetic in numpy: 32 codes -> 4 little-endian 32-bit words."""
    import numpy as np
    w = np.asarray(codes, np.uint8).view("<u4").astype(np.uint32)
    x = w | w >> 4
    h = (x & 0xFF) | (x >> 8 & 0xFF00)
    return h[0::2] | h[1::2] << 16
