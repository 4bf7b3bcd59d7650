"""tma-copies on batched kernels (gemmc.transforms.batch): a batched argument's boxes through a rank-3 tensor
map of the host's [Bt, rows, cols] memref, at the workgroup's batch block_id.z / batch_split.

* the interpreter against numpy (hypothesis: Bt, odd M, N and K a multiple of 8, A and B batched or B
  shared, B transposed, with and without split-k, whose z holds batch and slice; warp-specialize's producer);
* planted bugs FAIL: the batch coordinate block_id.z (split-k's slice not divided out), 0, or gone (a
  batched argument's boxes through a map of its first matrix);
* the launcher refuses a batched argument's map without the batch coordinate;
* nvcc (no GPU): issue #36's Bt = 16 1024^3 program on sm_90's default with tma-copies builds.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from xdsl.dialects import gpu
from xdsl.rewriter import InsertPoint, Rewriter

import gemmc
from gemmc.dialects.nvgpu import TmaLoadOp
from gemmc.support.diagnostics import GemmcError
from gemmc.target.arch import get_arch
from test_tma_copies_k_ranges import DEFAULT_TMA, builds_with_tma
from test_wgmma_in_flight import NVCC

SM90 = get_arch("sm_90")
_HEAD = ("gemm-to-kernel,lds-tiling{block-m=64 block-n=64 block-k=64},register-tiling{thread-m=4 thread-n=4},"
         "matrix-cores{instr=wgmma_m64n64k16 waves-m=1 waves-n=1},vectorize{width=8},direct-to-lds{fallback=true},")
_TAIL = "multi-buffer{factor=4},pipeline{stages=4},wgmma-in-flight,tma-copies,lower-copies,swizzle-lds{mode=sw128}"
SPLIT2 = f"{_HEAD}split-k{{factor=2 reduce=atomic}},{_TAIL}"
DIMS = {"Bt": 3, "M": 131, "N": 72, "K": 200}


def source(b: str = "B: f16[Bt, K, N]", t: str = "f16") -> str:
    expr = "A @ B.T" if "N, K]" in b else "A @ B"
    return (f"kernel bmm {{ dim Bt, M, N, K  A: {t}[Bt, M, K]  {b.replace('f16', t)}  C: f32[Bt, M, N]  acc f32  "
            f"C = {expr} }}")


def lowered(p: str, dims: dict, b: str = "B: f16[Bt, K, N]", t: str = "f16", finalize: bool = True):
    return gemmc.lower(gemmc.parse(source(b, t), defines=dims), p, SM90, finalize=finalize)


B_FORMS = ["B: f16[Bt, K, N]", "B: f16[K, N]", "B: f16[Bt, N, K]", "B: f16[N, K]"]


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(bt=st.integers(1, 3), m=st.integers(1, 80), n=st.integers(1, 12).map(lambda x: 8 * x),
       k=st.integers(1, 30).map(lambda x: 8 * x), b=st.sampled_from(B_FORMS), t=st.sampled_from(["f16", "bf16"]),
       split=st.booleans())
def test_batched_vs_numpy(bt, m, n, k, b, t, split):
    p = SPLIT2 if split else _HEAD + _TAIL
    r = gemmc.check(lowered(p, {"Bt": bt, "M": m, "N": n, "K": k}, b, t), SM90, {})
    assert r.passed, r.summary()


@pytest.mark.parametrize("b", B_FORMS[1:3], ids=["b-shared", "bt-batched"])
def test_batched_split_k_vs_numpy(b):
    r = gemmc.check(lowered(SPLIT2, DIMS, b), SM90, {})
    assert r.passed, r.summary()


def test_warp_specialized_batched_vs_numpy():
    """warp-specialize's producer with TMA: its leader's boxes at the workgroup's batch too."""
    p = (f"{_HEAD.replace('waves-m=1', 'waves-m=2').replace('block-m=64', 'block-m=128')}multi-buffer{{factor=4}},"
         "pipeline{stages=4},wgmma-in-flight,warp-specialize,tma-copies,lower-copies,swizzle-lds{mode=sw128}")
    r = gemmc.check(lowered(p, DIMS), SM90, {})
    assert r.passed, r.summary()


# -- planted bugs -----------------------------------------------------------------------------


def _batch_value(m):
    return next(o for o in m.walk() if o.results and o.results[0].name_hint == "tma_batch").results[0]


def _use_block_id_z(m) -> None:
    """The batch coordinate block_id.z: with split-k's z = batch x 2 + slice, other (and no) matrices."""
    b = _batch_value(m)
    z = gpu.BlockIdOp(gpu.DimensionAttr(gpu.DimensionEnum("z")))
    Rewriter.insert_op(z, InsertPoint.after(b.owner))
    for u in list(b.uses):
        if isinstance(u.operation, TmaLoadOp):
            u.operation.operands[u.index] = z.results[0]


def _use_zero(m) -> None:
    """Batch 0 for every workgroup."""
    from gemmc.transforms.kernel_builder import index_constant

    b = _batch_value(m)
    zero = index_constant(0)
    Rewriter.insert_op(zero, InsertPoint.after(b.owner))
    for u in list(b.uses):
        if isinstance(u.operation, TmaLoadOp):
            u.operation.operands[u.index] = zero.results[0]


def _drop_batch(m) -> None:
    """No batch coordinate: a rank-2 map, of the host array's first matrix."""
    for o in [o for o in m.walk() if isinstance(o, TmaLoadOp) and o.map_rank == 3]:
        new = TmaLoadOp(o.src, list(o.srcIndices)[1:], o.dst, list(o.dstIndices), o.bars, list(o.barIndices),
                        o.box_shape, o.swizzle_bytes)
        Rewriter.replace_op(o, new)


def test_the_correct_rewrite_passes_where_the_plants_fail():
    assert gemmc.check(lowered(SPLIT2, DIMS, finalize=False), SM90, {}).passed


@pytest.mark.parametrize("edit", [_use_block_id_z, _use_zero, _drop_batch], ids=["block-id-z", "zero", "dropped"])
def test_planted_wrong_batch_fails(edit):
    m = lowered(SPLIT2, DIMS, finalize=False)
    edit(m)
    assert not gemmc.check(m, SM90, {}).passed


def test_launcher_refuses_a_batched_map_without_batch():
    m = lowered(SPLIT2, DIMS)
    _drop_batch(m)
    with pytest.raises(GemmcError, match="a rank-2 tensor map of %A, whose host memref has 3 dims"):
        gemmc.emit(m, SM90, "hip")


# -- nvcc -----------------------------------------------------------------------------------

ISSUE_36 = {"Bt": 16, "M": 1024, "N": 1024, "K": 1024}


@pytest.mark.skipif(NVCC is None, reason="needs nvcc (the CUDA toolkit; no GPU)")
def test_issue_36_batched_builds():
    builds_with_tma(lowered(DEFAULT_TMA, ISSUE_36), ["cp.async.bulk.tensor.3d", "gemmc_tensor_map_3d(&A_map, A",
                                                     "gemmc_tensor_map_3d(&B_map, B"])
