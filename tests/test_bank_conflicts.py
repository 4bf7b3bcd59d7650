"""LDS bank conflicts as the interpreter counts them, against counts worked out by hand."""

from __future__ import annotations

import gemmc

SOURCE = "kernel k { dim M = 128, N = 128, K = 16  A: f32[M, K]  B: f32[K, N]  C: f32[M, N]  C = A @ B }"


def conflicts(pipeline: str, arch: str = "gfx942") -> int:
    module = gemmc.lower(gemmc.parse(SOURCE), pipeline, arch)
    result = gemmc.check(module, arch)
    assert result.passed
    return result.stats.lds_bank_conflicts


def test_lds_tiled_kernel_is_conflict_free():
    # tile_a[ty][kk] is a broadcast within a row of threads, tile_b[kk][tx] is consecutive.
    assert conflicts("step2") == 0


def test_register_tiled_kernel_counts_by_hand():
    # One 128x128 workgroup of 256 threads (4 waves, 2 groups of 32 lanes each), one K tile.
    # Per kk (16) and fragment element (8): tile_a[ty*8+i][kk] puts 2 words (2 values of
    # ty per group) in one bank: 1 extra cycle per group; tile_b_t[tx*8+j][kk] puts 16
    # words in one bank: 15 extra per group.  So 16 * 8 * 4 waves * 2 groups * (1 + 15).
    loads = 16 * 8 * 4 * 2 * (1 + 15)
    # The copy of B into tile_b_t[n][k]: lanes write words 16 apart, 16 per bank per
    # group: 15 extra cycles per group, 2 groups, 4 waves, 8 rounds of 256 elements.
    stores = 15 * 2 * 4 * 8
    assert conflicts("step3") == loads + stores == 17344
    assert conflicts("step3", "gfx1100") == 17344  # wave32: 8 waves of one group each


HGEMM = ("kernel h { dim M = 128, N = 128, K = 32  A: f16[M, K] col_major  B: f16[K, N]  C: f32[M, N]  acc f32"
         "  C = A @ B }")


def fragment_read_conflicts(rows: int) -> int:
    """Bank-conflict cycles of an f16 MFMA kernel whose LDS rows
    are 32 bytes, a quarter of gfx942's 128-byte bank line."""
    pipeline = ("gemm-to-kernel,lds-tiling{block-m=128 block-n=128 block-k=16},register-tiling{thread-m=8 thread-n=8},"
                f"matrix-cores,double-buffer,lower-copies,swizzle-lds{{rows={rows}}}")
    module = gemmc.lower(gemmc.parse(HGEMM), pipeline, "gfx942")
    result = gemmc.check(module, "gfx942")
    assert result.passed
    return result.stats.lds_bank_conflicts


def test_swizzle_over_the_bank_line_frees_short_rows():
    # Per row (rows=1), 16 lanes of a ds_read_b64 walk rows 32 bytes apart: rows r and r + 4
    # share banks whatever the row's own XOR does.  Swizzling four rows as one 128-byte line
    # (rows=0) leaves only the transposed 2-byte copies' stores conflicting (2-way at most).
    per_row, per_line = fragment_read_conflicts(1), fragment_read_conflicts(0)
    assert per_line * 4 < per_row, (per_row, per_line)
