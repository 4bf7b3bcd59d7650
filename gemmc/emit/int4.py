"""4-bit integers (i4, u4) in the emitted HIP: the iu4 WMMAs' operands.

    operand_helper(n)   (name, C lines, vector types) of the device function that packs a lane's
                        n codes (8 or 16) into the builtin's int (n = 8) or v2int (n = 16)
    operand_words(c)    numpy: what that function makes of n codes (the tests' check of it)

In global memory i4 / u4 are packed as FP4 is (gemmc.emit.fp4: element 2j the low nibble of
byte j, rows starting at a byte); inside a kernel each element is its code, a byte (0 .. 15:
the two's-complement nibble of an i4, the value of a u4), and the signedness belongs to the
op that reads it (arith.extsi / extui, the WMMA's a_signed / b_signed).  The iu4 WMMAs read a
lane's elements as nibbles of its VGPRs, element e at bits 4e of the registers read as one
little-endian integer (eight a VGPR, the low nibble first): the same order as global memory's,
so the helper packs the codes back exactly as a global row holds them.
"""

from __future__ import annotations

from gemmc.emit import fp4


def operand_helper(n: int) -> tuple[str, list[str], dict[str, tuple[str, int]]]:
    """The device function packing n codes (a v<n>uchar) into n / 8 VGPRs, by fp4's word
    arithmetic: w | w >> 4 puts codes 4i, 4i + 1 in byte 0 and 4i + 2, 4i + 3 in byte 2 of word i
    (each code below 16, nothing else leaks in), and two words' two bytes make one packed word."""
    assert n in (8, 16), n
    words, out = n // 4, "int" if n == 8 else "v2int"
    name = f"gemmc_int4_operand{n}"
    pack = "h.x | h.y << 16" if n == 8 else "h.even | h.odd << 16"
    lines = [
        f"// An iu4 WMMA's operand: the lane's {n} i4 / u4 codes, one a byte, packed eight a VGPR,",
        "// element e at bits 4e (the low nibble first, as global memory packs them; docs/language.md).",
        f"__device__ inline {out} {name}(v{n}uchar e)",
        "{",
        f"    const v{words}uint w = __builtin_bit_cast(v{words}uint, e);",
        f"    const v{words}uint x = w | w >> 4;",
        f"    const v{words}uint h = (x & 0xffu) | (x >> 8 & 0xff00u);",
        f"    return __builtin_bit_cast({out}, {pack});",
        "}",
    ]
    types = {f"v{n}uchar": ("unsigned char", n), f"v{words}uint": ("unsigned", words)}
    if n == 16:
        types.update({"v2int": ("int", 2), "v2uint": ("unsigned", 2)})
    return name, lines, types


def operand_words(codes: np.ndarray) -> np.ndarray:
    """operand_helper's arithmetic in numpy: n codes (0 .. 15) -> n / 8 little-endian 32-bit words."""
    return fp4.operand_words(codes)
