"""tma-copies (passes/tma_copies.py): one thread's TMA boxes on mbarriers in the pipelined wgmma K loop.

* the interpreter against numpy (hypothesis: odd M, N and K a multiple of 8 but of no tile, K tiles fewer
  than the stages, f16 and bf16, one and two warpgroups, with and without wgmma-in-flight, A column-major
  and B transposed): the partial tiles' boxes are zero-filled by TMA, with no masking in the kernel;
* planted bugs FAIL in the interpreter (gemmc.interp.tma, gemmc.interp.mbarrier): a box left
  unswizzled, no expect_tx (none at all, or a plain arrive in its place), the wait's parity flipped or the wait gone,
  a slot overwritten while another warpgroup's wgmma may read it (the K loop's barrier removed);
* warp-specialize's producer with TMA: against numpy, and a flipped empty parity FAILS;
* nvcc (no GPU): the 128x256x64 candidates (with and without warp-specialize) build for sm_90a without spills.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from xdsl.dialects import arith, gpu, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, i32
from xdsl.rewriter import InsertPoint, Rewriter

import gemmc
from benchmark_scripts import load
from gemmc.dialects.nvgpu import MbarrierArriveExpectTxOp, MbarrierArriveOp, MbarrierWaitParityOp, TmaLoadOp
from gemmc.interp.common import InterpError
from gemmc.target.arch import get_arch
from test_wgmma_in_flight import NVCC, ptxas_v, source

SM90 = get_arch("sm_90")
WGMMA_CANDIDATES = load("h200/matrix").WGMMA_CANDIDATES
_HEAD = ("gemm-to-kernel,lds-tiling{{block-m={bm} block-n={bn} block-k=64}},register-tiling{{thread-m=4 thread-n=4}},"
         "matrix-cores{{instr=wgmma_m64n{n}k16 waves-m={wm} waves-n=1}},vectorize{{width=8}},"
         "direct-to-lds{{fallback=true}},multi-buffer{{factor=4}},pipeline{{stages={stages}}}{flight}")
_TAIL = "lower-copies,swizzle-lds{mode=sw128}"
TILES = [(128, 128, 128, 2), (64, 64, 64, 1)]  # (block m, block n, instr n, warpgroups)


def head(tile=TILES[0], in_flight: bool = True, stages: int = 4) -> str:
    bm, bn, n, wm = tile
    return _HEAD.format(bm=bm, bn=bn, n=n, wm=wm, stages=stages, flight=",wgmma-in-flight" if in_flight else "")


def check(p: str, dims: dict, t: str = "f16", layout=(False, False)):
    m = gemmc.lower(gemmc.parse(source(t, *layout), defines=dims), p, SM90)
    return gemmc.check(m, SM90, {})


def planted(edit, dims, tile=TILES[0]):
    m = gemmc.lower(gemmc.parse(source(), defines=dims), f"{head(tile)},tma-copies,{_TAIL}", SM90, finalize=False)
    edit(m)
    return gemmc.check(m, SM90, {})


def _k_loop(m) -> scf.ForOp:
    return next(o for o in m.walk() if isinstance(o, scf.ForOp) and "gemm.role" in o.attributes
                and o.attributes["gemm.role"].data == "k_loop")


# -- the interpreter against numpy ----------------------------------------------------------

_ROWS8 = st.integers(1, 24).map(lambda x: 8 * x)  # row lengths TMA takes: a multiple of 16 bytes


@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(m=st.integers(1, 140), n=_ROWS8, k=_ROWS8, t=st.sampled_from(["f16", "bf16"]), tile=st.sampled_from(TILES),
       in_flight=st.booleans())
def test_interpreter_vs_numpy_odd_shapes(m, n, k, t, tile, in_flight):
    """Odd M and N, K that are no multiple of the tile: the edge boxes are zero-filled by TMA alone."""
    r = check(f"{head(tile, in_flight)},tma-copies,{_TAIL}", {"M": m, "N": n, "K": k}, t)
    assert r.passed, r.summary()


@pytest.mark.parametrize("layout", [(True, False), (False, True)], ids=["a-col-major", "b-transposed"])
def test_other_layouts(layout):
    """A column-major (A^T [K][M] tiles, MN-major: panels along M) and B.T ([N][K] tiles, K-major: one box)."""
    r = check(f"{head()},tma-copies,{_TAIL}", {"M": 136, "N": 72, "K": 200}, layout=layout)
    assert r.passed, r.summary()


def test_ten_tiles_reuse_every_slot_phase():
    r = check(f"{head()},tma-copies,{_TAIL}", {"M": 128, "N": 128, "K": 640})
    assert r.passed, r.summary()


# -- planted bugs -----------------------------------------------------------------------------

ALIGNED, ODD = {"M": 128, "N": 128, "K": 640}, {"M": 131, "N": 72, "K": 200}


def test_the_correct_rewrite_passes_where_the_plants_fail():
    assert planted(lambda m: None, ALIGNED).passed and planted(lambda m: None, ODD).passed


def test_planted_unswizzled_box_fails():
    """B's boxes land without the 128-byte swizzle that wgmma's descriptors read: other elements read."""
    def edit(m):
        for o in m.walk():
            if isinstance(o, TmaLoadOp) and o.src.name_hint == "B":
                o.properties["swizzle"] = IntegerAttr(0, i32)

    assert not planted(edit, ALIGNED).passed


def test_planted_missing_expect_tx_fails():
    """No expect_tx: when the wait needs the boxes, their bytes complete transactions nobody armed (on the
    GPU the phase, still one arrival short, never completes)."""
    def edit(m):
        for o in [o for o in m.walk() if isinstance(o, MbarrierArriveExpectTxOp)]:
            o.detach()
            o.erase()

    with pytest.raises(InterpError, match="no nvgpu.mbarrier_arrive_expect_tx armed them"):
        planted(edit, ALIGNED)


def test_planted_arrive_without_tx_fails():
    """A plain arrive for the expect_tx: the phase completes before the boxes land."""
    def edit(m):
        for o in [o for o in m.walk() if isinstance(o, MbarrierArriveExpectTxOp)]:
            Rewriter.replace_op(o, MbarrierArriveOp(o.bars, list(o.indices)))

    with pytest.raises(InterpError, match="while a TMA box into it is in flight"):
        planted(edit, ALIGNED)


def test_planted_wrong_parity_fails():
    """The K loop waits for the other parity: on a fresh mbarrier that names the phase before phase 0."""
    def edit(m):
        wait = next(o for o in _k_loop(m).walk() if isinstance(o, MbarrierWaitParityOp))
        one = arith.ConstantOp(IntegerAttr(1, IndexType()))
        x = arith.XOrIOp(wait.parity, one.results[0])
        Rewriter.insert_op([one, x], InsertPoint.before(wait))
        wait.operands[len(wait.operands) - 1] = x.results[0]

    with pytest.raises(InterpError, match="while a TMA box into it is in flight"):
        planted(edit, ALIGNED)


def test_planted_wait_removed_fails():
    """No wait in the K loop: the boxes never land before the wgmma reads them."""
    def edit(m):
        wait = next(o for o in _k_loop(m).walk() if isinstance(o, MbarrierWaitParityOp))
        wait.detach()
        wait.erase()

    with pytest.raises(InterpError, match="while a TMA box into it is in flight"):
        planted(edit, ALIGNED)


def test_planted_slot_overwritten_while_read_fails():
    """Without the K loop's barrier the leader's box for tile t + 2 lands on tile t - 2's slot, which the
    other warpgroup retired in this barrier interval: it may still be reading."""
    def edit(m):
        loop = _k_loop(m)
        barrier = loop.body.block.last_op.prev_op
        assert isinstance(barrier, gpu.BarrierOp)
        barrier.detach()
        barrier.erase()

    with pytest.raises(InterpError, match="overwrites %tile_.*nor does a gpu.barrier since the group's retiring wait"):
        planted(edit, ALIGNED)


# -- warp-specialize's producer with TMA ----------------------------------------------------------


@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(m=st.integers(1, 140), n=_ROWS8, k=st.integers(1, 80).map(lambda x: 8 * x), tile=st.sampled_from(TILES))
def test_warp_specialized_producer_vs_numpy(m, n, k, tile):
    r = check(f"{head(tile)},warp-specialize,tma-copies,{_TAIL}", {"M": m, "N": n, "K": k})
    assert r.passed, r.summary()


def test_planted_producer_empty_parity_fails():
    """The producer passes its empty wait at once (parity flipped) and runs a round ahead: its leader arms
    the slot's full mbarrier again while the phase of the slot's last tile is still pending."""
    def edit(m):
        prod = next(o for o in m.walk() if isinstance(o, scf.ForOp) and "gemm.role" in o.attributes
                    and o.attributes["gemm.role"].data == "ws_producer")
        wait = next(o for o in prod.walk() if isinstance(o, MbarrierWaitParityOp))
        one = arith.ConstantOp(IntegerAttr(1, IndexType()))
        x = arith.XOrIOp(wait.parity, one.results[0])
        Rewriter.insert_op([one, x], InsertPoint.before(wait))
        wait.operands[len(wait.operands) - 1] = x.results[0]

    good = gemmc.lower(gemmc.parse(source(), defines=ALIGNED), f"{head()},warp-specialize,tma-copies,{_TAIL}", SM90)
    assert gemmc.check(good, SM90, {}).passed
    m = gemmc.lower(gemmc.parse(source(), defines=ALIGNED), f"{head()},warp-specialize,tma-copies,{_TAIL}", SM90,
                    finalize=False)
    edit(m)
    with pytest.raises(InterpError, match="more arrivals on %full.* than its phase expects"):
        gemmc.check(m, SM90, {})


# -- nvcc -----------------------------------------------------------------------------------

TMA_CANDIDATE = WGMMA_CANDIDATES["wgmma_128x256x64_wg21_s4_inflight"].replace(
    "wgmma-in-flight,", "wgmma-in-flight,tma-copies,")


WS_TMA_CANDIDATE = WGMMA_CANDIDATES["wgmma_128x256x64_ws_s4_tma"]


@pytest.mark.skipif(NVCC is None, reason="needs nvcc (the CUDA toolkit; no GPU)")
@pytest.mark.parametrize("p", [TMA_CANDIDATE, WS_TMA_CANDIDATE], ids=["in-flight", "warp-specialized"])
def test_candidate_builds_without_spills(p):
    m = gemmc.lower(gemmc.parse(source(), defines={"M": 4096, "N": 4096, "K": 4096}), p, SM90)
    hip = gemmc.emit(m, SM90, "hip")
    assert "cp.async.bulk.tensor.2d" in hip and "cp.async.cg" not in hip
    out = ptxas_v(hip)
    assert "0 bytes spill stores, 0 bytes spill loads" in out and "serialized" not in out, out
