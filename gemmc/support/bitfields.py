"""Rows of n-bit codes as little-endian bit streams: code j at bits n*j .. n*j + n - 1 of its
row, from bit n*j % 8 of byte n*j / 8, each row starting at a byte (its unused high bits 0).

It is how gemmc holds FP4 (n = 4) and FP6 (n = 6) in global memory (gemmc.emit.fp4, fp6: the
host's side and the layout's definition; the amdgcn interpreter's device buffers) and how a
lane's VGPRs hold gfx950's f8f6f4 MFMA operands (32 codes in 4 or 6 VGPRs, element e at bit
n*e of the registers read as one little-endian stream).
"""

from __future__ import annotations



def row_bytes(n: int, bits: int) -> int:
    """The bytes of a row of n codes of `bits` bits."""
    return -(-n * bits // 8)


def pack_fields(codes: np.ndarray, bits: int) -> np.ndarray:
    """Rows (the last axis) of codes (uint8 below 2**bits) as packed rows of row_bytes bytes."""
    import numpy as np  # in the function: lit's `gemmc opt` / `compile` runs never reach it
    codes = np.asarray(codes, np.uint8)
    n = codes.shape[-1]
    stream = (codes[..., None] >> np.arange(bits, dtype=np.uint8)) & 1  # (..., n, bits): bit i of code j
    stream = stream.reshape(*codes.shape[:-1], n * bits)
    return np.packbits(stream, axis=-1, bitorder="little")[..., :row_bytes(n, bits)]


def unpack_fields(packed: np.ndarray, bits: int, n: int) -> np.ndarray:
    """Rows of n codes (uint8) from packed rows (uint8, the last axis at least row_bytes long)."""
    import numpy as np
    stream = np.unpackbits(np.asarray(packed, np.uint8), axis=-1, bitorder="little")[..., :n * bits]
    fields = stream.reshape(*stream.shape[:-1], n, bits)
    return (fields << np.arange(bits, dtype=np.uint8)).sum(axis=-1, dtype=np.uint8)
