"""tma-copies on K loops over a range [lo, hi) of tile numbers: split-k's z-slices and stream-k's tiles.

* the interpreter against numpy: split-k with lo odd and an iteration count no multiple of the four
  slots, stream-k whose workgroups walk parts of several tiles (a K loop inside the tile loop: the
  mbarriers initialized again per tile, invalidated after each K loop), and the selection's split-k and
  stream-k variants of sm_90's default (the suite's deep_k, deeper_k) with tma-copies, on odd shapes;
* planted bugs FAIL: the wait's phase (or slot) from the tile number t instead of the iteration t - lo,
  and stream-k's mbarrier_inval gone (an init of a valid mbarrier);
* nvcc (no GPU): the deep_k and deeper_k variants with TMA build for sm_90a.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from xdsl.dialects import arith, scf

import gemmc
from gemmc.dialects.nvgpu import MbarrierInvalOp, MbarrierWaitParityOp
from gemmc.driver.pipeline import MATRIX_16BIT_DEFAULTS
from gemmc.driver.variants import with_split_k, with_stream_k, with_tiles
from gemmc.interp.common import InterpError
from gemmc.target.arch import get_arch
from test_wgmma_in_flight import NVCC, ptxas_v, source

SM90 = get_arch("sm_90")
_HEAD = ("gemm-to-kernel,lds-tiling{block-m=64 block-n=64 block-k=64},register-tiling{thread-m=4 thread-n=4},"
         "matrix-cores{instr=wgmma_m64n64k16 waves-m=1 waves-n=1},vectorize{width=8},direct-to-lds{fallback=true},")
_TAIL = ",multi-buffer{factor=4},pipeline{stages=4},wgmma-in-flight,tma-copies,lower-copies,swizzle-lds{mode=sw128}"
SPLIT3 = f"{_HEAD}split-k{{factor=3 reduce=atomic}}{_TAIL}"
STREAM5 = f"{_HEAD}stream-k{{workgroups=5}}{_TAIL}"
# K = 904: 15 tiles of 64, the last partial; split-k 3: slices [0, 5), [5, 10), [10, 15), lo = 5 odd,
# five iterations a slice (not a multiple of the four slots, and past one round of them)
ODD_LO = {"M": 72, "N": 72, "K": 904}


def with_tma(spec: str) -> str:
    """`spec` with tma-copies after its wgmma-in-flight (as it is where it has tma-copies already)."""
    return spec if "tma-copies" in spec else spec.replace("wgmma-in-flight,", "wgmma-in-flight,tma-copies,")


DEFAULT_TMA = with_tma(MATRIX_16BIT_DEFAULTS["sm_90"])  # sm_90's default with tma-copies
_VARIANT = with_tiles(MATRIX_16BIT_DEFAULTS["sm_90"], 64, 128, 4, 8)
DEEP_K = with_tma(with_split_k(_VARIANT, 2, "atomic"))  # the selection's choice for deep_k (1024 x 1024 x 8192)
DEEPER_K = with_tma(with_stream_k(_VARIANT, 264))  # and for deeper_k (128 x 128 x 65536)


def check(p: str, dims: dict):
    m = gemmc.lower(gemmc.parse(source(), defines=dims), p, SM90)
    return gemmc.check(m, SM90, {})


def lowered(p: str, dims: dict):
    return gemmc.lower(gemmc.parse(source(), defines=dims), p, SM90, finalize=False)


def _k_loop(m) -> scf.ForOp:
    return next(o for o in m.walk() if isinstance(o, scf.ForOp) and "gemm.role" in o.attributes
                and o.attributes["gemm.role"].data == "k_loop")


# -- the interpreter against numpy ----------------------------------------------------------


_ROWS8 = st.integers(1, 24).map(lambda x: 8 * x)


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(m=st.integers(1, 80), n=_ROWS8, k=st.integers(1, 160).map(lambda x: 8 * x),
       split=st.sampled_from(["split-k{factor=2 reduce=atomic}", "split-k{factor=3 reduce=atomic}",
                              "stream-k{workgroups=3}", "stream-k{workgroups=7}"]))
def test_k_ranges_vs_numpy(m, n, k, split):
    r = check(f"{_HEAD}{split}{_TAIL}", {"M": m, "N": n, "K": k})
    assert r.passed, r.summary()


@pytest.mark.parametrize("p, dims", [
    (DEEP_K, {"M": 67, "N": 136, "K": 1000}),
    (DEEPER_K.replace("workgroups=264", "workgroups=3"), {"M": 67, "N": 72, "K": 712}),
], ids=["deep_k-split-k-2", "deeper_k-stream-k"])
def test_selection_variants_with_tma_vs_numpy(p, dims):
    r = check(p, dims)
    assert r.passed, r.summary()


# -- planted bugs -----------------------------------------------------------------------------


def test_the_correct_rewrite_passes_where_the_plants_fail():
    """split-k with lo = 5; stream-k's five workgroups over 2 x 2 tiles of 15 K iterations, each walking 12
    across tile boundaries."""
    for p in (SPLIT3, STREAM5):
        r = gemmc.check(lowered(p, ODD_LO), SM90, {})
        assert r.passed, r.summary()


def _wait_from_tile_number(m) -> None:
    """The wait's slot and parity computed from t instead of t - lo."""
    loop = _k_loop(m)
    it = next(o for o in loop.body.block.ops if isinstance(o, arith.SubiOp) and o.results[0].name_hint == "k_iter")
    it.results[0].replace_all_uses_with(loop.body.block.args[0])


def _parity_from_tile_number(m) -> None:
    """Only the parity from t / F (the slot still from t - lo)."""
    loop = _k_loop(m)
    wait = next(o for o in loop.body.block.ops if isinstance(o, MbarrierWaitParityOp))
    div = wait.parity.owner.operands[0].owner
    assert isinstance(div, arith.DivUIOp)
    div.operands[0] = loop.body.block.args[0]


@pytest.mark.parametrize("edit", [_wait_from_tile_number, _parity_from_tile_number], ids=["slot-and-parity", "parity"])
def test_planted_phase_from_tile_number_fails(edit):
    m = lowered(SPLIT3, ODD_LO)
    edit(m)
    with pytest.raises(InterpError, match="while a TMA box into it is in flight|waits for phase"):
        gemmc.check(m, SM90, {})


def test_planted_missing_inval_fails():
    """stream-k's next tile initializes the mbarriers again without invalidating them (undefined in PTX)."""
    m = lowered(STREAM5, ODD_LO)
    for o in [o for o in m.walk() if isinstance(o, MbarrierInvalOp)]:
        o.detach()
        o.erase()
    with pytest.raises(InterpError, match="a valid mbarrier: nvgpu.mbarrier_inval it first"):
        gemmc.check(m, SM90, {})


# -- nvcc -----------------------------------------------------------------------------------


@pytest.mark.skipif(NVCC is None, reason="needs nvcc (the CUDA toolkit; no GPU)")
@pytest.mark.parametrize("p, dims", [(DEEP_K, {"M": 1024, "N": 1024, "K": 8192}),
                                     (DEEPER_K, {"M": 128, "N": 128, "K": 65536})], ids=["deep_k", "deeper_k"])
def test_variant_builds(p, dims):
    builds_with_tma(gemmc.lower(gemmc.parse(source(), defines=dims), p, SM90), ["cp.async.bulk.tensor.2d"])


def builds_with_tma(module, needles: list[str]) -> None:
    """The module's HIP has each of `needles` and no cp.async, and builds for sm_90a without spills."""
    hip = gemmc.emit(module, SM90, "hip")
    assert all(n in hip for n in needles) and "cp.async.cg" not in hip
    out = ptxas_v(hip)
    assert "0 bytes spill stores, 0 bytes spill loads" in out, out
