"""The interpreter's LDS race check: a tiled kernel missing a barrier is an error naming both ops."""

from __future__ import annotations

import pytest
from xdsl.dialects import gpu

import gemmc
from gemmc.interp import InterpError
from gemmc.interp.memory import RaceTracker

SOURCE = """
kernel racy {
  dim M = 40, N = 40, K = 40
  A: f32[M, K]
  B: f32[K, N]
  C: f32[M, N]
  C = A @ B
}
"""


@pytest.fixture(autouse=True, params=["held", "recorded"])
def read_holding(request, monkeypatch):
    """Run each test with reads held back until a write (the default) and recorded at once."""
    if request.param == "recorded":
        monkeypatch.setattr(RaceTracker, "MAX_PENDING", 0)


def tiled(pipeline: str):
    module = gemmc.parse(SOURCE, "racy.gemm")
    return gemmc.lower(module, pipeline, "gfx942")


def drop_barrier(module, which: int):
    barriers = [op for op in module.walk() if isinstance(op, gpu.BarrierOp)]
    barriers[which].detach()
    barriers[which].erase()
    return module


def test_tiled_kernel_with_barriers_passes():
    assert gemmc.check(tiled("step2"), "gfx942").passed


def test_missing_release_barrier_is_a_write_after_read_race():
    # Without the barrier after the compute loop, the next tile's copy overwrites
    # LDS words that slower threads are still reading.
    module = drop_barrier(tiled("step2"), 1)
    with pytest.raises(InterpError) as e:
        gemmc.check(module, "gfx942")
    msg = str(e.value)
    assert msg.startswith("error: LDS race on %tile_")
    assert "memref.store" in msg and "memref.load" in msg and "gpu.barrier is missing" in msg


def test_missing_acquire_barrier_is_a_read_after_write_race():
    module = drop_barrier(tiled("step2"), 0)
    with pytest.raises(InterpError) as e:
        gemmc.check(module, "gfx942")
    assert "LDS race" in str(e.value)


def test_double_buffered_kernel_without_its_barrier_races():
    module = drop_barrier(tiled("step4"), 1)  # the one barrier inside the K loop
    with pytest.raises(InterpError, match="LDS race"):
        gemmc.check(module, "gfx942")


# -- the lazy tracker against an eager one, on random access sequences -----------------

import functools  # noqa: E402

import numpy as np  # noqa: E402
from hypothesis import example, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from xdsl.dialects import memref  # noqa: E402
from xdsl.dialects.builtin import MemRefType, f32  # noqa: E402

from gemmc.target.arch import get_arch  # noqa: E402
from gemmc.interp import Stats  # noqa: E402
from gemmc.interp.memory import Buffer, _Access  # noqa: E402
from gemmc.interp.state import KernelState, Lanes  # noqa: E402

NWG, THREADS, WORDS = 2, 3, 2


class EagerTracker(RaceTracker):
    """Records every read at once and checks every access: the definition of a race."""

    MAX_PENDING = 0

    def _may_hold_writes(self, state):
        return True

    def _may_hold_reads(self, state):
        return True


def _lane_sets():
    return st.lists(st.booleans(), min_size=NWG * THREADS, max_size=NWG * THREADS)


_events = st.lists(
    st.one_of(
        st.tuples(st.just("read"), _lane_sets(), st.lists(st.integers(0, WORDS - 1), min_size=NWG * THREADS, max_size=NWG * THREADS)),
        st.tuples(st.just("write"), _lane_sets(), st.lists(st.integers(0, WORDS - 1), min_size=NWG * THREADS, max_size=NWG * THREADS)),
        st.tuples(st.just("barrier"), st.lists(st.booleans(), min_size=NWG, max_size=NWG), st.just([])),
    ),
    max_size=14,
)


def _replay(tracker_cls, events, ops):
    """Run the events on a fresh tracker; the index of the event that raced, or None."""
    state = KernelState(get_arch("gfx942"), Stats(), ops["kernel"])
    state.begin_batch(Lanes((NWG, 1, 1), (THREADS, 1, 1), 0, NWG, 64))
    buf = Buffer("lds", "tile", MemRefType(f32, [WORDS]), (WORDS,), np.zeros(NWG * WORDS, np.float32))
    tracker = tracker_cls(NWG * WORDS)
    for n, (kind, arg, words) in enumerate(events):
        if kind == "barrier":
            state.pass_barrier(np.array(arg))
            continue
        lanes = np.flatnonzero(arg)
        addr = state.lanes.wg[lanes] * WORDS + np.array(words)[lanes]
        acc = _Access(state, ops[kind], buf, addr, lanes)
        try:
            if kind == "read":
                tracker.on_read(acc)
            else:
                new = (lanes % 2).astype(np.float32) + n  # same-element writers differ half the time
                tracker.on_write(acc, buf.data[addr], new)
                buf.data[addr] = new
                tracker.after_write(acc, buf.data, new)
        except InterpError:
            return n
    return None


@functools.cache
def _step2_ops():
    """A kernel, a load and a store to name in messages (the replay runs none of them)."""
    module = tiled("step2")
    first = lambda cls: next(op for op in module.walk() if isinstance(op, cls))  # noqa: E731
    return {"kernel": first(gpu.FuncOp), "read": first(memref.LoadOp), "write": first(memref.StoreOp)}


def _only(*lanes):
    return [i in lanes for i in range(NWG * THREADS)]


# A read held back, a barrier that only workgroup 1 passes, a read (which must not drop
# the first: workgroup 0 is still in its interval), and thread 1 of workgroup 0
# overwriting what thread 0 read.
_HELD_ACROSS_PARTIAL_BARRIER = [
    ("read", _only(0), [0] * NWG * THREADS),
    ("barrier", [False, True], []),
    ("read", _only(0), [1] * NWG * THREADS),
    ("write", _only(1), [0] * NWG * THREADS),
]


@settings(max_examples=300, deadline=None)
@example(_HELD_ACROSS_PARTIAL_BARRIER)
@given(_events)
def test_lazy_race_tracking_finds_the_races_eager_tracking_finds(events):
    assert _replay(RaceTracker, events, _step2_ops()) == _replay(EagerTracker, events, _step2_ops())
