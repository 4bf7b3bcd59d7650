"""Packed FP6 (E2M3 and E3M2) in global memory: the one definition of the layout that the
emitted HIP reads and a host writes (FP4's is gemmc.emit.fp4).

    row_bytes(n)             the bytes of a stored row of n elements: ceil(6n / 8)
    row_bytes_c(n)           the same as a C expression of the C int `n`
    pack(codes)              numpy: rows of 6-bit codes -> rows of packed bytes (a host's side)
    unpack(packed, n)        numpy: what a kernel reads back, by the same arithmetic as `field`
    first_byte(col), spans(col), field(lo, hi, col)
                             the C expression a kernel reads element `col` of a row with
    operand_words(codes)     numpy: what OPERAND_HELPER makes of one lane's 32 elements
    OPERAND_HELPER           the C function that packs a scaled MFMA's FP6 operand

The layout: each stored row (the memref's last, contiguous dimension) is a little-endian bit
stream, element j at bits 6j .. 6j + 5 of it: byte 6j / 8 from bit 6j % 8 (0, 6, 4, 2 for
j % 4 = 0 .. 3), so elements 4q + 1 and 4q + 2 run on into the next byte; four elements are
exactly 3 bytes.  Every row starts at a byte, so a row of n elements takes ceil(6n / 8) bytes
(the unused high bits of a row's last byte are 0, and never read), and rows follow each other
row-major.  A field is the element's code: ml_dtypes' float6_e2m3fn / float6_e3m2fn byte
(the low 6 bits: sign bit 5, then exponent and mantissa).

A kernel reads element j exactly: byte 6j / 8, and the next byte only where the field spans
it, so no read passes the row's (nor the matrix's) last byte and no padding is asked of a host.
Inside a kernel FP6 is unpacked, one code a byte, as FP4 and FP8 (LDS tiles, register
fragments).  The scaled MFMA's operand is packed again the way the instruction reads FP6
(cbsz / blgp 2 for E2M3, 3 for E3M2): each lane's 32 elements as a 192-bit little-endian
stream in 6 VGPRs, element e at bits 6e (gemmc.driver.layout: gpr 6e // 32, bit 6e % 32, running
into the next VGPR where 6e % 32 > 26), i.e. the same bit stream as a row in global memory.
"""

from __future__ import annotations

from gemmc.support.bitfields import pack_fields

FORMAT_CODES = {"f6e2m3fn": 2, "f6e3m2fn": 3}  # cbsz / blgp (gemmc.target.arch.F8F6F4_FORMATS)


def row_bytes(n: int) -> int:
    return (3 * n + 3) // 4


def row_bytes_c(n: str) -> str:
    """C: row_bytes of `n`, a C expression that binds at least as tight as `*`."""
    return f"({n} * 3 + 3) / 4"


def pack(codes: np.ndarray) -> np.ndarray:
    """Rows (the last axis) of 6-bit codes (uint8 0..63) as packed rows of row_bytes bytes."""
    import numpy as np  # in the function: lit's `gemmc opt` / `compile` runs never reach it
    codes = np.asarray(codes)
    if codes.dtype != np.uint8 or (codes > 63).any():
        raise ValueError("FP6 codes are uint8 values 0..63 (ml_dtypes.float6_e2m3fn / e3m2fn viewed as uint8)")
    return pack_fields(codes, 6)


def unpack(packed: np.ndarray, n: int) -> np.ndarray:
    """Rows of n codes from packed rows, by `field`'s arithmetic (the two bytes it reads)."""
    import numpy as np
    col = np.arange(n)
    first = col * 3 >> 2
    lo = packed[..., first].astype(np.int64)
    hi = packed[..., first + ((col * 6 & 7) > 2)].astype(np.int64)
    return ((lo | hi << 8) >> (col * 6 & 7) & 63).astype(np.uint8)


def first_byte(col: str) -> str:
    """C: the byte of its row that element `col`'s field starts in, 6 col / 8."""
    return f"{col} * 3 >> 2"


def spans(col: str) -> str:
    """C: 1 where element `col`'s field runs into the next byte (it starts at bit 4 or 6)."""
    return f"(({col} * 6 & 7) > 2)"


def field(lo: str, hi: str, col: str) -> str:
    """C: the code of element `col` from `lo`, its first byte, and `hi`, the byte after it
    where the field spans, else the first byte again (whose bits above the field the mask drops).
    Also valid Python, which the tests evaluate."""
    return f"(({lo} | {hi} << 8) >> ({col} * 6 & 7)) & 63"


VECTOR = 16  # elements of an FP6 vector load: 96 bits, three whole 4-byte words


def vector_codes(words: str) -> list[str]:
    """C: the VECTOR codes of an FP6 vector from `words`, its three little-endian 32-bit words
    (an array): code e is bits 6e .. 6e + 5 of the 96, across two words where 6e % 32 > 26.
    Also valid Python, which the tests evaluate."""
    out = []
    for e in range(VECTOR):
        w, shift = divmod(6 * e, 32)
        code = f"{words}[{w}] >> {shift}" if shift else f"{words}[{w}]"
        if shift > 26:
            code = f"({code} | {words}[{w + 1}] << {32 - shift})"
        out.append(f"({code}) & 63")
    return out


OPERAND_HELPER_NAME = "gemmc_fp6_operand"
# Four elements a 32-bit word at a time: each word's four bytes (codes below 64) close up into its
# low 24 bits, e0 | e1 << 6 | e2 << 12 | e3 << 18; then words t[4q .. 4q + 3] make the packed words
# 3q .. 3q + 2 (their 96 bits).  The builtin takes A and B as v8int whatever the format; for FP6
# the instruction reads the first 6 VGPRs (clang-22 passes v[n:n+5]), so the last two are zero.
OPERAND_HELPER = [
    "// A scaled MFMA's FP6 operand: the lane's 32 elements, one a byte (their codes), packed",
    "// into a 192-bit little-endian stream, element e at bits 6e (6 VGPRs; docs/language.md).",
    f"__device__ inline v8int {OPERAND_HELPER_NAME}(v32uchar e)",
    "{",
    "    const v8uint w = __builtin_bit_cast(v8uint, e);",
    "    const v8uint t = (w & 0x3fu) | (w >> 2 & 0xfc0u) | (w >> 4 & 0x3f000u) | (w >> 6 & 0xfc0000u);",
    "    const v8uint lo = __builtin_shufflevector(t, (v8uint)(0), 0, 1, 2, 4, 5, 6, 8, 8);",
    "    const v8uint hi = __builtin_shufflevector(t, (v8uint)(0), 1, 2, 3, 5, 6, 7, 8, 8);",
    "    const v8uint packed = lo >> (v8uint){0, 8, 16, 0, 8, 16, 0, 0} | hi << (v8uint){24, 16, 8, 24, 16, 8, 0, 0};",
    "    return __builtin_bit_cast(v8int, packed);",
    "}",
]
OPERAND_HELPER_TYPES = {"v32uchar": ("unsigned char", 32), "v8uint": ("unsigned", 8), "v8int": ("int", 8)}


def operand_words(codes: np.ndarray) -> np.ndarray:
    """OPERAND_HELPER's arithmetic in numpy: 32 codes -> 6 little-endian 32-bit words (the
    builtin's last two, zero, left out)."""
    import numpy as np
    w = np.asarray(codes, np.uint8).view("<u4").astype(np.uint64)
    t = (w & 0x3F) | (w >> 2 & 0xFC0) | (w >> 4 & 0x3F000) | (w >> 6 & 0xFC0000)
    lo, hi = t[[0, 1, 2, 4, 5, 6]], t[[1, 2, 3, 5, 6, 7]]
    down, up = np.array([0, 8, 16] * 2, np.uint64), np.array([24, 16, 8] * 2, np.uint64)
    return ((lo >> down | hi << up) & 0xFFFFFFFF).astype(np.uint32)
