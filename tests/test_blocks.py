"""vectorize{blocks=true}: a transposed copy's thread takes a width x width block, transposed in
registers (gemm.copy's blocks).  The interpreter against numpy over shapes, stored layouts, copy
paths and widths; a planted swapped element FAILs; the LDS instructions and conflicts it exists for."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gemmc
import gemmc.transforms.copy_lowering as copy_lowering
from gemmc.target.arch import get_arch
from gemmc.support.diagnostics import GemmcError
from gemmc.dialects.gemm import CopyOp

SETTINGS = settings(max_examples=12, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
TILES = "gemm-to-kernel,lds-tiling{{block-m=32 block-n=32 block-k=16}}"
VEC = "vectorize{{width={w} row-lanes={g} blocks=true}}"
PATHS = {
    "lower-copies": f"{TILES},{VEC}",
    "registers": f"{TILES},register-tiling{{{{thread-m=2 thread-n=2}}}},{VEC},double-buffer{{{{stage=registers}}}}",
    "lds-stage": f"{TILES},register-tiling{{{{thread-m=2 thread-n=2}}}},{VEC},double-buffer",
}
HGEMM_942 = ("gemm-to-kernel,lds-tiling{block-m=128 block-n=256 block-k=16},register-tiling{thread-m=8 thread-n=8},"
             "matrix-cores{frag-read=0},vectorize{width=4 BLOCKS},double-buffer{stage=registers},lower-copies,"
             "swizzle-lds{strict=false rows=0},launch-bounds{max-threads=256}")
HGEMM = "kernel h { dim M, N, K  A: f16[M, K] col_major  B: f16[K, N]  C: f32[M, N]  acc f32  C = A @ B }"


def source(ta: bool, tb: bool, elem: str) -> str:
    a = f"A: {elem}[K, M]" if ta else f"A: {elem}[M, K]"
    b = f"B: {elem}[N, K]" if tb else f"B: {elem}[K, N]"
    return (f"kernel t {{ dim M, N, K  {a}  {b}  C: f32[M, N]  acc f32  "
            f"C = {'A.T' if ta else 'A'} @ {'B.T' if tb else 'B'} }}")


def lowered(src: str, pipeline: str, arch: str, dims: dict[str, int], finalize: bool = True):
    return gemmc.lower(gemmc.parse(src, "t.gemm", dims), pipeline, arch, finalize=finalize)


@SETTINGS
@given(ta=st.booleans(), tb=st.booleans(), elem=st.sampled_from(["f32", "f16"]), path=st.sampled_from(sorted(PATHS)),
       w=st.sampled_from([2, 4]), g=st.sampled_from([0, 1, 2]), m=st.integers(1, 24), n=st.integers(1, 24),
       k=st.integers(1, 24), arch=st.sampled_from(["gfx942", "gfx1201"]))
def test_blocks_match_numpy(ta, tb, elem, path, w, g, m, n, k, arch):
    """Sizes in multiples of 4 (every copy vectorized, the transposed ones by blocks, edge blocks
    partly outside the matrix) and the same plus one (peeled copies, which keep element stores)."""
    for dims in ({"M": 4 * m, "N": 4 * n, "K": 4 * k}, {"M": 4 * m + 1, "N": 4 * n, "K": 4 * k + 1}):
        module = lowered(source(ta, tb, elem), PATHS[path].format(w=w, g=g), arch, dims)
        r = gemmc.check(module, arch, dims)
        assert r.passed, (dims, r.summary())


def test_transposed_copies_are_marked_others_are_not():
    module = lowered(source(False, False, "f16"), "gemm-to-kernel,lds-tiling{block-m=32 block-n=32 block-k=16},"
                     "register-tiling{thread-m=2 thread-n=2},matrix-cores,vectorize{width=4 blocks=true}",
                     "gfx942", {"M": 64, "N": 64, "K": 64}, finalize=False)
    marks = {op.attributes["gemm.role"].data: op.blocks is not None for op in module.walk() if isinstance(op, CopyOp)}
    assert marks == {"load_a": False, "load_b": True}  # A [m][k] as stored; B into a [n][k] tile


def test_a_swapped_element_fails(monkeypatch):
    """Columns built from the rows in the wrong order (element c of row 1 first): FAIL."""
    real = copy_lowering.transposed_column

    def planted(b, rows, c):
        return real(b, [rows[1], rows[0], *rows[2:]], c)

    monkeypatch.setattr(copy_lowering, "transposed_column", planted)
    dims = {"M": 32, "N": 32, "K": 32}
    module = lowered(source(True, False, "f32"), PATHS["lower-copies"].format(w=4, g=0), "gfx942", dims)
    assert any(op.blocks is not None for op in lowered(source(True, False, "f32"), PATHS["lower-copies"].format(
        w=4, g=0), "gfx942", dims, finalize=False).walk() if isinstance(op, CopyOp))
    assert not gemmc.check(module, "gfx942", dims).passed


def passing_stats(src: str, pipeline: str, arch: str, dims: dict[str, int]):
    """The interpreter's counts of the kernel, which must match numpy."""
    module = gemmc.lower(gemmc.parse(src, "t.gemm", dims), pipeline, get_arch(arch))
    r = gemmc.check(module, get_arch(arch))
    assert r.passed, r.summary()
    return r.stats


def test_blocks_halve_hgemm_lds_instructions_without_conflicts():
    """gfx942's 16-bit tile shape, A column-major: blocks store four elements a lane instead of
    one, conflict-free with the swizzle over the bank line (the interpreter's count)."""
    stats = {blocks: passing_stats(HGEMM, HGEMM_942.replace("BLOCKS", blocks), "gfx942", {"M": 256, "N": 256, "K": 64})
             for blocks in ("", "blocks=true")}
    assert stats["blocks=true"].lds_store_instrs * 4 == stats[""].lds_store_instrs
    assert stats["blocks=true"].lds_bank_conflicts == 0


FP8_950 = ("gemm-to-kernel,lds-tiling{block-m=128 block-n=256 block-k=64},register-tiling{thread-m=8 thread-n=8},"
           "matrix-cores{frag-read=8},vectorize{width=8 blocks=true},double-buffer{stage=registers},lower-copies,"
           "swizzle-lds{strict=false rows=0 FOLD},launch-bounds{max-threads=256}")
FP8 = "kernel f { dim M, N, K  A: f8e4m3fn[M, K]  B: f8e4m3fn[K, N]  C: f32[M, N]  acc f32  C = A @ B }"


def test_fp8_block_stores_need_the_folded_key():
    """gfx950, 8x8 FP8 blocks of B at block-k 64: one store instruction writes row i of 32
    blocks, rows 8 apart, lines 2 apart; the plain key (line mod 32) gives them 16 places, 2-way
    conflicts; swizzle-lds{fold=true} tells them apart (the interpreter's count), and the kernel
    still matches numpy."""
    conflicts = {fold: passing_stats(FP8, FP8_950.replace("FOLD", fold), "gfx950", {"M": 128, "N": 256, "K": 64})
                 .lds_bank_conflicts for fold in ("fold=false", "fold=true")}
    # B's block stores: 8 a lane, 32 wave instructions a copy, 2 copies (prologue, loop): 2 cycles more each
    assert conflicts == {"fold=false": 128, "fold=true": 0}


@pytest.mark.parametrize("pipeline,message", [
    ("gemm-to-kernel,lds-tiling{block-m=32 block-n=32 block-k=6},vectorize{width=4 blocks=true}",
     "blocks=true: its 6 rows are not a multiple of width=4"),
])
def test_refused_where_blocks_do_not_divide(pipeline, message):
    with pytest.raises(GemmcError, match=message):
        lowered(source(True, False, "f32"), pipeline, "gfx942", {"M": 64, "N": 64, "K": 60})


def test_cuda_puts_columns_together_from_lanes():
    """CUDA's float2 / float4 are structs that nvcc does not shuffle: on sm_90 a block's columns are
    built from lanes (nvcc 13.0 built these and they passed against cuBLAS, benchmarks/h200/blocks.md);
    on AMD targets clang's __builtin_shufflevector."""
    pipeline = ("gemm-to-kernel,lds-tiling{block-m=128 block-n=128 block-k=16},"
                "register-tiling{thread-m=8 thread-n=8 lds-layout=k-major unroll=true},vectorize{width=4 blocks=true}")
    src = "kernel s { dim M = 256, N = 256, K = 64  A: f32[M, K]  B: f32[K, N]  C: f32[M, N]  C = A @ B }"
    cuda = gemmc.emit(gemmc.lower(gemmc.parse(src), pipeline, "sm_90"), "sm_90", "hip")
    assert "__builtin_shufflevector" not in cuda and "v4float{col.x, col.y, col_1.x, col_1.y}" in cuda
    hip = gemmc.emit(gemmc.lower(gemmc.parse(src), pipeline, "gfx942"), "gfx942", "hip")
    assert "__builtin_shufflevector(col, col_1, 0, 1, 2, 3)" in hip
