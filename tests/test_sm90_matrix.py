"""sm_90's tensor cores: mma.sync m16n8k16 (f16, bf16 -> f32) through the matrix-core passes.

* the layouts are the PTX ISA's fragment tables (`gemmc layout --arch sm_90`): spot checks of its
  figures for A, B and C/D, every element held once;
* the interpreter's nvgpu.mma_sync against numpy (layout-driven, as amdgpu.mfma / wmma);
* the 16-bit default pipeline (MATRIX_16BIT_DEFAULTS["sm_90"], wgmma since it took mma.sync's place) and its per-shape variants (split-k,
  stream-k, smaller tiles, dynamic sizes) PASS the interpreter's float64 check at odd shapes;
* a planted fragment swap (A's rows r + 8 and k + 8 runs exchanged in the element-wise fragment loads
  of mma-sync-elementwise, sm_90's first default) FAILs;
* the printed HIP builds with nvcc for sm_90 (where nvcc is installed): mma.sync in the PTX, no
  local memory.
"""

from __future__ import annotations

import shutil

import numpy as np
import pytest

import gemmc
from gemmc.driver.pipeline import MATRIX_16BIT_DEFAULTS, default_pipeline
from gemmc.interp.matrix import multiply
from gemmc.support.diagnostics import GemmcError
from gemmc.target.arch import get_arch, get_matrix_instr
from test_matrix import holder, layout_csv

SM90 = get_arch("sm_90")
F16 = "mma_m16n8k16_f32_f16"


def source(t: str, dynamic: bool = False) -> str:
    dims = "M, N, K" if dynamic else "M = 64, N = 64, K = 64"
    return f"kernel g {{ dim {dims}  A: {t}[M, K]  B: {t}[K, N]  C: f32[M, N]  acc f32  C = A @ B }}"


def test_layout_is_the_ptx_isa_table(capsys):
    """PTX ISA, mma.m16n8k16 fragments: groupID = lane / 4, threadID_in_group = lane % 4; A's a0, a1
    at (groupID, 2 t + i), a2, a3 eight rows down, a4..a7 eight k's on; B's b0, b1 at (2 t + i,
    groupID), b2, b3 eight k's on; C's c0, c1 at (groupID, 2 t + i), c2, c3 eight rows down."""
    table = layout_csv(F16, "sm_90", capsys)
    assert holder(table, "A", 0, 1) == [(0, 0, 16, 31)]  # a1 of lane 0: the high half of register 0
    assert holder(table, "A", 8, 0)[0][:2] == (0, 1)  # a2 of lane 0
    assert holder(table, "A", 5, 11)[0][:2] == (21, 2)  # groupID 5, t 1: a4..a5 (k 10, 11)
    assert holder(table, "A", 13, 15)[0][:2] == (23, 3)  # a7 of groupID 5, t 3
    assert holder(table, "B", 9, 3)[0][:2] == (12, 1)  # b3 of groupID 3, t 0
    assert [h[:2] for h in holder(table, "D", 10, 7)] == [(11, 3)]  # c3 of groupID 2, t 3
    for matrix, rows, cols in (("A", 16, 16), ("B", 16, 8), ("D", 16, 8)):
        assert all(len(holder(table, matrix, r, c)) == 1 for r in range(rows) for c in range(cols))


@pytest.mark.parametrize("name", [F16, "mma_m16n8k16_f32_bf16"])
def test_interpreter_multiplies_by_the_layouts(name):
    instr = get_matrix_instr(SM90, name)
    rng = np.random.default_rng(1)
    a_mat, b_mat = rng.integers(-8, 8, (16, 16)).astype(np.float32), rng.integers(-8, 8, (16, 8)).astype(np.float32)
    c_mat = rng.integers(-8, 8, (16, 8)).astype(np.float32)
    lanes, items = np.arange(32)[:, None], np.arange(8)[None, :]

    def gather(layout, mat):
        _, r, c = (np.broadcast_to(x, (32, layout.items)) for x in layout.at(lanes, items[:, :layout.items]))
        return mat[r, c][None]

    d = multiply(instr, gather(instr.a, a_mat), gather(instr.b, b_mat), gather(instr.d, c_mat))
    np.testing.assert_array_equal(d, gather(instr.d, a_mat @ b_mat + c_mat))


@pytest.mark.parametrize("t,dims", [("f16", {"M": 131, "N": 77, "K": 45}), ("bf16", {"M": 200, "N": 129, "K": 67}),
                                    ("f16", {"M": 64, "N": 64, "K": 2000}), ("bf16", {"M": 33, "N": 200, "K": 300})])
def test_default_pipeline_passes_at_odd_shapes(t, dims):
    """`gemmc compile --arch sm_90`'s choice (the 16-bit default, or split-k / stream-k / smaller tiles
    where the grid leaves SMs idle, all on the default's warpgroup MMA) on the tensor cores, checked
    against float64."""
    module = gemmc.parse(source(t), defines=dims)
    gemmc.lower(module, None, SM90)
    assert "nvgpu.wgmma_mma_async" in gemmc.print_ir(module)
    r = gemmc.check(module, SM90, {})
    assert r.passed and r.stats.matrix_instrs > 0, r.summary()


def test_dynamic_sizes_pass():
    module = gemmc.parse(source("bf16", dynamic=True))
    gemmc.lower(module, None, SM90)
    for dims in ({"M": 131, "N": 77, "K": 45}, {"M": 17, "N": 300, "K": 33}):
        assert gemmc.check(module, SM90, dims).passed


def test_default_is_the_tensor_core_pipeline():
    assert default_pipeline(SM90, "f16") == MATRIX_16BIT_DEFAULTS["sm_90"] == default_pipeline(SM90, "bf16")
    assert "matrix-cores" in MATRIX_16BIT_DEFAULTS["sm_90"] and "matrix-cores" not in default_pipeline(SM90, "f32")


def test_planted_fragment_swap_fails(monkeypatch):
    """A planted bug: A's fragment loads read the run of rows r + 8 where the k + 8 run belongs
    (items 2-3 and 4-5 exchanged); the interpreter places items by the true layout: FAIL."""
    from gemmc.transforms import matrix_kernel

    real = matrix_kernel.frag_runs

    def swapped(layout, k_is_col):
        r, starts = real(layout, k_is_col)
        if k_is_col and len(starts) == 4:
            starts = (starts[0], starts[2], starts[1], starts[3])
        return r, starts

    monkeypatch.setattr(matrix_kernel, "frag_runs", swapped)
    module = gemmc.parse(source("f16"), defines={"M": 64, "N": 64, "K": 48})
    gemmc.lower(module, "mma-sync-elementwise", SM90)  # (the default reads by ldmatrix: test_sm90_ldmatrix.py)
    assert not gemmc.check(module, SM90, {}).passed


def test_k_pack_refused_with_a_located_error():
    module = gemmc.parse(source("f16"))
    with pytest.raises(GemmcError, match="k-pack with mma_m16n8k16_f32_f16 is not built"):
        gemmc.lower(module, "gemm-to-kernel,lds-tiling{block-m=64 block-n=64 block-k=32},"
                            "register-tiling{thread-m=4 thread-n=4},matrix-cores{k-pack=2}", SM90)


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc (CUDA) is not installed")
def test_hip_builds_with_nvcc():
    from gemmc.target.cuda import compile_cuda, resource_report

    module = gemmc.parse(source("bf16"), defines={"M": 4096, "N": 4096, "K": 4096})
    gemmc.lower(module, None, SM90)
    hip = gemmc.emit(module, SM90, "hip")
    assert "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16" in compile_cuda(hip, SM90, "asm")
    (kernel,) = resource_report(hip, SM90)
    assert kernel.vgpr_spill == 0 and kernel.scratch_bytes == 0


def test_bench_checks_16_bit_inputs_against_gemm_ex():
    """gemmc bench's program for bf16 inputs: cublasGemmEx in bf16 accumulating in f32 as the check,
    the input fill kernel instantiated where nvcc's device pass sees it; a C of the inputs' 16-bit type is
    cuBLAS's C too (and its rounding unit in the bound), a 16-bit C of other inputs is refused."""
    from gemmc.driver.bench import bench_source

    module = gemmc.lower(gemmc.parse(source("bf16")), None, SM90)
    text = bench_source(module, SM90, {})
    assert "cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &alpha_value, dB[s], CUDA_R_16BF" in text
    assert "template __global__ void bench_fill<__nv_bfloat16>(__nv_bfloat16*, long, unsigned);" in text
    half_c = source("f16").replace("C: f32", "C: f16")
    text = bench_source(gemmc.lower(gemmc.parse(half_c), None, SM90), SM90, {})
    assert "&beta_value, c, CUDA_R_16F, N, CUBLAS_COMPUTE_32F" in text and "std::vector<__half> got(size_c)" in text
    assert "const double c_unit = 0.00048828125;" in text
    with pytest.raises(GemmcError, match="with an f32 C"):
        bench_source(gemmc.lower(gemmc.parse(source("bf16").replace("C: f32", "C: f16")), None, SM90), SM90, {})
