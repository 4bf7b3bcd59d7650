"""warp-specialize (passes/warp_specialize.py): a producer warpgroup and mbarriers in the wgmma K loop.

* the interpreter against numpy (hypothesis: odd M, N, K, K tiles fewer than the slots, one and two
  consumer warpgroups, four and five slots), the roles run as coroutines (gemmc.interp.mbarrier);
* planted bugs FAIL: the consumers' full parity flipped, the producer's empty parity flipped, the
  consumers' empty arrive removed, the producer running one tile further ahead than the slots allow
  (its first empty wait skipped: one slot too few), the slot released before its group retired;
* the pass's refusals; the launcher follows the IR (block y + 1);
* nvcc (no GPU): the candidate builds for sm_90a without spills and without serialized wgmma.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr
from xdsl.rewriter import InsertPoint, Rewriter

import gemmc
from benchmark_scripts import load
from gemmc.dialects.nvgpu import MbarrierArriveOp, MbarrierWaitParityOp, WgmmaWaitGroupOp
from gemmc.interp.common import InterpError
from gemmc.support.diagnostics import GemmcError
from gemmc.target.arch import get_arch
from test_wgmma_in_flight import NVCC, ptxas_v, source

WGMMA_CANDIDATES = load("h200/matrix").WGMMA_CANDIDATES
SM90 = get_arch("sm_90")
_HEAD = ("gemm-to-kernel,lds-tiling{{block-m={bm} block-n={bn} block-k=64}},register-tiling{{thread-m=4 thread-n=4}},"
         "matrix-cores{{instr=wgmma_m64n{n}k16 waves-m={wm} waves-n=1}},vectorize{{width=8}},"
         "direct-to-lds{{fallback=true}},multi-buffer{{factor={slots}}},pipeline{{stages={stages}}},wgmma-in-flight")
_TAIL = "lower-copies,swizzle-lds{mode=sw128}"
TILES = [(128, 128, 128, 2), (64, 64, 64, 1)]  # (block m, block n, instr n, consumer warpgroups)


def head(tile=TILES[0], slots=4, stages=4) -> str:
    bm, bn, n, wm = tile
    return _HEAD.format(bm=bm, bn=bn, n=n, wm=wm, slots=slots, stages=stages)


def module(p: str, dims: dict, t: str = "f16"):
    return gemmc.lower(gemmc.parse(source(t), defines=dims), p, SM90)


def planted(edit, dims, tile=TILES[0]):
    m = gemmc.lower(gemmc.parse(source(), defines=dims), f"{head(tile)},warp-specialize", SM90, finalize=False)
    edit(m)
    return gemmc.check(gemmc.lower(m, _TAIL, SM90), SM90, {})


def _role_loop(m, name):
    return next(o for o in m.walk() if isinstance(o, scf.ForOp) and "gemm.role" in o.attributes
                and o.attributes["gemm.role"].data == name)


def _wait_on(loop, bars: str) -> MbarrierWaitParityOp:
    return next(o for o in loop.walk() if isinstance(o, MbarrierWaitParityOp) and o.bars.name_hint == bars)


def _flip(wait: MbarrierWaitParityOp) -> None:
    one = arith.ConstantOp(IntegerAttr(1, IndexType()))
    x = arith.XOrIOp(wait.parity, one.results[0])
    Rewriter.insert_op([one, x], InsertPoint.before(wait))
    wait.operands[len(wait.operands) - 1] = x.results[0]


# -- the interpreter against numpy ----------------------------------------------------------


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(m=st.integers(1, 140), n=st.integers(1, 140), k=st.integers(1, 330), t=st.sampled_from(["f16", "bf16"]),
       tile=st.sampled_from(TILES), slots=st.sampled_from([4, 5]))
def test_interpreter_vs_numpy(m, n, k, t, tile, slots):
    r = gemmc.check(module(f"{head(tile, slots)},warp-specialize,{_TAIL}", {"M": m, "N": n, "K": k}, t), SM90, {})
    assert r.passed, r.summary()


@pytest.mark.parametrize("dims", [
    {"M": 128, "N": 128, "K": 64},    # one K tile: fewer than the slots, no empty wait at all
    {"M": 128, "N": 128, "K": 640},   # ten tiles: every slot reused twice (both parities of both barriers)
    {"M": 257, "N": 131, "K": 300},   # odd: partial tiles, misaligned rows
])
def test_shapes_pass(dims):
    r = gemmc.check(module(f"{head()},warp-specialize,{_TAIL}", dims), SM90, {})
    assert r.passed, r.summary()


def test_launch_follows_the_ir():
    text = str(module(f"{head()},warp-specialize", {"M": 256, "N": 256, "K": 256}))
    assert "gpu.known_block_size = array<i32: 128, 3, 1>" in text
    hip = gemmc.emit(module(f"{head()},warp-specialize,{_TAIL}", {"M": 256, "N": 256, "K": 256}), SM90, "hip")
    assert "const int block_y = 3;" in hip and "__syncthreads" in hip and hip.count("__syncthreads") == 1


# -- planted bugs -----------------------------------------------------------------------------

ALIGNED, ODD = {"M": 128, "N": 128, "K": 640}, {"M": 130, "N": 70, "K": 300}


def test_the_correct_rewrite_passes_where_the_plants_fail():
    assert planted(lambda m: None, ALIGNED).passed and planted(lambda m: None, ODD).passed


def test_planted_consumer_parity_fails():
    """The consumers wait on full with the other parity: on a fresh barrier it names the phase before
    phase 0 (done at once), after the producer's first arrivals the phase after it (never): deadlock."""
    with pytest.raises(InterpError, match="deadlock"):
        planted(lambda m: _flip(_wait_on(_role_loop(m, "k_loop"), "full")), ALIGNED)


def test_planted_producer_parity_fails():
    """The producer waits on empty with the other parity: it passes at once and overwrites a slot the
    consumers have not read yet."""
    with pytest.raises(InterpError, match="no nvgpu.wgmma_mma_async has read yet: the tile there is lost"):
        planted(lambda m: _flip(_wait_on(_role_loop(m, "ws_producer"), "empty")), ALIGNED)


def test_planted_missing_empty_arrive_fails():
    def edit(m):
        arrive = next(o for o in _role_loop(m, "k_loop").walk() if isinstance(o, MbarrierArriveOp))
        arrive.detach()
        arrive.erase()

    with pytest.raises(InterpError, match="deadlock"):
        planted(edit, ALIGNED)


def test_planted_one_slot_too_few_fails():
    """The producer's first reuse of a slot skips its empty wait (t >= F + 1 instead of t >= F): it runs
    F + 1 tiles ahead, as if there were one more slot than there is."""
    def edit(m):
        prod = _role_loop(m, "ws_producer")
        guard = next(o for o in prod.body.block.ops if isinstance(o, arith.CmpiOp))
        one = arith.ConstantOp(IntegerAttr(1, IndexType()))
        f1 = arith.AddiOp(guard.rhs, one.results[0])
        Rewriter.insert_op([one, f1], InsertPoint.before(guard))
        guard.operands[1] = f1.results[0]

    with pytest.raises(InterpError, match="no nvgpu.wgmma_mma_async has read yet: the tile there is lost"):
        planted(edit, ALIGNED)


def test_planted_release_before_retire_fails():
    """The consumers release the slot of t - 1 before wait_group 1 retired group t - 1 (the arrive moved
    before the compute): the producer overwrites a slot whose wgmma is still reading."""
    def edit(m):
        loop = _role_loop(m, "k_loop")
        release = next(o for o in loop.body.block.ops if isinstance(o, scf.IfOp)
                       and any(isinstance(x, MbarrierArriveOp) for x in o.walk()))
        compute = next(o for o in loop.body.block.ops if "gemm.role" in o.attributes
                       and o.attributes["gemm.role"].data == "compute")
        cond = release.cond.owner
        for o in (cond, release):
            o.detach()
        Rewriter.insert_op([cond, release], InsertPoint.before(compute))

    with pytest.raises(InterpError, match="read with nvgpu.wgmma_mma_async, before the empty phase that releases it"):
        planted(edit, ALIGNED)


# -- refusals -------------------------------------------------------------------------------


def test_refuses_without_wgmma_in_flight():
    p = head().replace(",wgmma-in-flight", "")
    with pytest.raises(GemmcError, match="warp-specialize.*run wgmma-in-flight first"):
        module(f"{p},warp-specialize", ALIGNED)


def test_refuses_after_lower_copies():
    with pytest.raises(GemmcError, match="warp-specialize.*before lower-copies"):
        module(f"{head()},lower-copies,warp-specialize", ALIGNED)


def test_refuses_twice():
    with pytest.raises(GemmcError, match="warp-specialize"):
        module(f"{head()},warp-specialize,warp-specialize", ALIGNED)


# -- nvcc -----------------------------------------------------------------------------------


@pytest.mark.skipif(NVCC is None, reason="needs nvcc (the CUDA toolkit; no GPU)")
def test_candidate_builds_without_spills_or_serialized_wgmma():
    hip = gemmc.emit(module(WGMMA_CANDIDATES["wgmma_128x256x64_ws_s4"], {"M": 4096, "N": 4096, "K": 4096}), SM90, "hip")
    assert "cp.async.mbarrier.arrive.noinc.shared::cta.b64" in hip and "__launch_bounds__(384)" in hip
    out = ptxas_v(hip)
    assert "0 bytes spill stores, 0 bytes spill loads" in out and "serialized" not in out, out
