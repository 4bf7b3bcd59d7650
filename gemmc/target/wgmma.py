"""Hopper's warpgroup MMA (wgmma.mma_async, sm_90a): its instructions, D's lane layout, the shared
memory layout its descriptors describe, as data.

One warpgroup (4 consecutive warps, 128 threads, the first warp's index a multiple of 4) computes
D[64 x n] += A[64 x 16] @ B[16 x n] (f16 or bf16 inputs, f32 accumulators; n in 64, 128, 256 here of
the 8 .. 256 PTX allows), A and B read from shared memory through 64-bit matrix descriptors (PTX ISA,
"Asynchronous Warpgroup Level Matrix Multiply-Accumulate Instructions": "Matrix Descriptor Format",
"Shared Memory Matrix Layout"; CUTLASS cute/arch/mma_sm90_desc.hpp for the same bit fields):

    bits 0-13   start address >> 4 (of the shared window)    bits 16-29  leading byte offset >> 4
    bits 32-45  stride byte offset >> 4                        bits 49-51  base offset (0: patterns 1024-aligned)
    bits 62-63  swizzle: 0 none, 1 128-byte, 2 64-byte, 3 32-byte

gemmc uses the 128-byte swizzle alone.  Its atom is 8 rows of 128 bytes (1024 bytes, 1024-aligned); the
16-byte chunk c of row r lies at chunk c ^ r (CUTLASS Swizzle<3,4,3>: address bits 4-6 XOR bits 7-9, on
the shared address itself, so a descriptor may start inside an atom and stay canonical).  In elements
of 16 bits (T = 8 a 16-byte chunk), the canonical layouts (PTX ISA, "Canonical Layouts") are

    K-major   ((8,m),(T,2k)) : ((8T,SBO),(1,T))         element (i, k): (i/8) SBO + (i%8) 128 B + 2k B
    MN-major  ((T,8,m),(8,k)) : ((1,T,LBO),(8T,SBO))    element (k, j): (j/64) LBO + 2 (j%64) B + (k/8) SBO + (k%8) 128 B

before the swizzle (LBO unused for K-major: 16, encoded 1).  A stored [m][k] and B stored [n][k] (the
.T case) are K-major; A^T [k][m] and B [k][n] are MN-major, read with imm-trans-a / imm-trans-b = 1
(16-bit types only).  gemmc's tiles hold K tiles of 64 16-bit elements (one 128-byte row a K-major
row), SBO = 1024; an MN-major tile [BK][BN] lies as BN/64 panels of BK rows of 128 bytes (LBO = BK x
128 bytes): swizzle-lds{mode=sw128} writes that (`physical_byte`), the descriptors read it
(`element_byte`), the interpreter executes both.

D (f32), PTX ISA's "Register Fragments" figure for wgmma .m64nNk16: warp w of the warpgroup holds rows
16w .. 16w + 15; thread t, g = (t % 32) / 4: d[i] at row 16 (t / 32) + g + 8 ((i / 2) % 2), column
8 (i / 4) + 2 (t % 4) + i % 2 (mma.sync's m16n8 C repeated n / 8 times along the columns).

Rate: the H100 SXM's dense FP16 / BF16 989.4 TFLOP/s (NVIDIA H100 datasheet, 132 SMs at 1830 MHz boost:
4096 FLOP a clock an SM, 1024 a sub-partition) is wgmma's; mma.sync reaches about half of it
(gemmc.target.arch._mma_sync's cycles).  A warpgroup's m64nNk16 is 2 x 64 x N x 16 FLOP over the SM's
four sub-partitions: `cycles` = 64 N 16 / 2048 per warp (N = 256: 128).
"""

from __future__ import annotations

from gemmc.target.arch import Arch, MatrixInstr
from gemmc.target.layouts import Layout, Term

WARPGROUP = 128  # threads of a warpgroup
M, K = 64, 16
WGMMA_N = (64, 128, 256)
WARPGROUPS = (2, 1)  # matrix-cores' warpgroups (m, n) where a wgmma pipeline names none: a 128-row block tile
TYPES = ("f16", "bf16")
# the PTX target a kernel with wgmma needs: sm_90's arch-specific features (nvcc -arch=sm_90a)
PTX_TARGET = {"sm_90": "sm_90a"}
SWIZZLE_BYTES = 128  # the swizzle gemmc lays tiles out in
ROW_ELEMENTS = SWIZZLE_BYTES // 2  # 16-bit elements of a swizzled row: K tiles are a multiple of it
SWIZZLE_MODE = {0: 0, 128: 1, 64: 2, 32: 3}  # descriptor bits 62-63
ATOM_ROWS = 8  # rows of an atom; SBO, the step between 8-row groups
ATOM_BYTES = ATOM_ROWS * SWIZZLE_BYTES
CHUNK_BYTES = 16


def d_layout(n: int) -> Layout:
    """D[64 x n] (f32): thread t's n / 2 elements (see the module docstring)."""
    return Layout(WARPGROUP, n // 2,
                  row=(Term("lane", div=32, scale=16), Term("lane", div=4, mod=8), Term("item", div=2, mod=2, scale=8)),
                  col=(Term("item", div=4, scale=8), Term("lane", mod=4, scale=2), Term("item", mod=2)))


def _wgmma(t: str, n: int) -> MatrixInstr:
    name = f"wgmma_m64n{n}k16_f32_{t}"
    return MatrixInstr(name, M, n, K, t, "f32", M * n * K // 2048, kind="wgmma", builtin=f"gemmc_{name}",
                       ptx=f"wgmma.mma_async.sync.aligned.m64n{n}k16.f32.{t}.{t}", d=d_layout(n))


_INSTRS = {"sm_90": tuple(_wgmma(t, n) for t in TYPES for n in WGMMA_N)}


def instrs(arch: Arch) -> tuple[MatrixInstr, ...]:
    """The arch's wgmma instructions (sm_90 alone)."""
    return _INSTRS.get(arch.name, ())


def get(arch: Arch, mnemonic: str) -> MatrixInstr | None:
    return next((i for i in instrs(arch) if i.mnemonic == mnemonic), None)


def is_wgmma(mnemonic: str) -> bool:
    return mnemonic.startswith("wgmma_")


def ptx_target(arch: Arch) -> str:
    return PTX_TARGET.get(arch.name, arch.name)


# -- descriptors and the shared memory layout ---------------------------------------------


def encode(start_bytes: int, lbo: int, sbo: int, swizzle: int = SWIZZLE_BYTES) -> int:
    """The 64-bit descriptor (matrix-descriptor-encode(x) = (x & 0x3FFFF) >> 4)."""
    enc = lambda x: (x & 0x3FFFF) >> 4  # noqa: E731
    return enc(start_bytes) | enc(lbo) << 16 | enc(sbo) << 32 | SWIZZLE_MODE[swizzle] << 62


def swizzle(byte):
    """The 128-byte swizzle of a shared address (ints or numpy arrays): bits 4-6 ^= bits 7-9."""
    return byte ^ (((byte >> 7) & 7) << 4)


def strides(major: str, rows: int, elem_bytes: int = 2) -> tuple[int, int]:
    """(LBO, SBO) in bytes of a tile gemmc lays out: K-major rows of 128 bytes (LBO unused: 16), or
    MN-major panels of `rows` K-rows (LBO: a panel's bytes); SBO an atom of 8 rows."""
    return (CHUNK_BYTES if major == "k" else rows * SWIZZLE_BYTES), ATOM_BYTES


def element_byte(major: str, outer, k, lbo: int, sbo: int, elem_bytes: int = 2):
    """Byte offset (before the swizzle) from the descriptor's start of element (outer, k): outer the
    row of A (i) or column of B (j), k along K."""
    per_row = SWIZZLE_BYTES // elem_bytes  # elements of a 128-byte row
    if major == "k":
        return (outer // ATOM_ROWS) * sbo + (outer % ATOM_ROWS) * SWIZZLE_BYTES + k * elem_bytes
    return (outer // per_row) * lbo + (outer % per_row) * elem_bytes + (k // ATOM_ROWS) * sbo \
        + (k % ATOM_ROWS) * SWIZZLE_BYTES


def physical_byte(row, col, rows: int, cols: int, elem_bytes: int = 2):
    """Where swizzle-lds{mode=sw128} puts element [row][col] of a [rows][cols] tile (byte offset from the
    tile's 1024-aligned start): rows of 128 bytes as they are, longer rows cut into 128-byte panels of
    all `rows` rows each (MN-major), then the swizzle."""
    row_bytes = cols * elem_bytes
    if row_bytes == SWIZZLE_BYTES:
        byte = row * SWIZZLE_BYTES + col * elem_bytes
    else:
        per_row = SWIZZLE_BYTES // elem_bytes
        byte = (col // per_row) * (rows * SWIZZLE_BYTES) + row * SWIZZLE_BYTES + (col % per_row) * elem_bytes
    return swizzle(byte)


def layout_problem(rows: int, cols: int, elem_bytes: int) -> str:
    """Why a [rows][cols] tile cannot be laid out in the 128-byte swizzle, or ""."""
    if elem_bytes != 2:
        return f"wgmma's 128-byte swizzle is laid out here for 16-bit elements, not {8 * elem_bytes}-bit ones"
    if (cols * elem_bytes) % SWIZZLE_BYTES:
        return f"rows of {cols * elem_bytes} bytes are not a multiple of the swizzle's 128"
    if rows % ATOM_ROWS:
        return f"{rows} rows are not a multiple of the swizzle atom's {ATOM_ROWS}"
    return ""
