"""The state of a kernel launch in the SIMT interpreter: its lanes, their ids and the active mask.

What the op families (gpu and scf in simt.py, arith/math/vector in ops.py, memory in memory.py,
matrix instructions in matrix.py) read and write; simt.py's interpreter owns one per batch.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np
from xdsl.ir import Operation

from gemmc.interp.stats import Stats
from gemmc.target.arch import Arch

DIMS = ("x", "y", "z")


@dataclass
class Lanes:
    """The lanes of one batch: workgroups wg_start .. wg_start + nwg - 1 of the grid."""

    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    wg_start: int
    nwg: int
    wave_size: int

    @cached_property
    def threads(self) -> int:
        """Threads per workgroup."""
        return self.block[0] * self.block[1] * self.block[2]

    @cached_property
    def count(self) -> int:
        return self.nwg * self.threads

    @cached_property
    def tid(self) -> np.ndarray:
        """Linear thread id within the workgroup, per lane."""
        return np.tile(np.arange(self.threads, dtype=np.int64), self.nwg)

    @cached_property
    def wg(self) -> np.ndarray:
        """Workgroup index within the batch, per lane (LDS instances are indexed by it)."""
        return np.repeat(np.arange(self.nwg, dtype=np.int64), self.threads)

    @cached_property
    def all(self) -> np.ndarray:
        return np.arange(self.count, dtype=np.int64)

    @cached_property
    def waves_per_wg(self) -> int:
        return -(-self.threads // self.wave_size)

    @cached_property
    def wave_starts(self) -> np.ndarray:
        """First lane of every wave of the batch, for np.logical_or.reduceat."""
        per_wg = np.arange(0, self.threads, self.wave_size, dtype=np.int64)
        return (np.arange(self.nwg, dtype=np.int64)[:, None] * self.threads + per_wg).ravel()

    def thread_id(self, d: int):
        bx, by, _ = self.block
        return self._cache(("t", d), lambda: (self.tid % bx, (self.tid // bx) % by, self.tid // (bx * by))[d])

    def block_id(self, d: int):
        def make():
            wg = np.arange(self.wg_start, self.wg_start + self.nwg, dtype=np.int64)
            gx, gy, _ = self.grid
            per_wg = (wg % gx, (wg // gx) % gy, wg // (gx * gy))[d]
            return np.repeat(per_wg, self.threads)

        return self._cache(("b", d), make)

    def _cache(self, key, make):
        store = self.__dict__.setdefault("_ids", {})
        if key not in store:
            store[key] = make()
        return store[key]

    def coords(self, lane: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """(thread id, block id) of one lane, for messages."""
        return (
            self.thread_of_tid(int(self.tid[lane])),
            tuple(int(self.block_id(d)[lane]) for d in range(3)),
        )

    def thread_of_tid(self, tid: int) -> tuple[int, int, int]:
        bx, by, _ = self.block
        return (tid % bx, (tid // bx) % by, tid // (bx * by))


class IdentityMemo:
    """Results remembered for the last `size` tuples of operands, matched by identity.
    Sound because the interpreter never modifies a value or a mask in place, and the
    entry keeps its operands alive, so their ids are not reused while it stands."""

    def __init__(self, size: int = 64):
        self.size = size
        self.entries: dict[tuple, tuple] = {}

    def get(self, operands: tuple, extra: Any, compute: Callable[[], Any]) -> Any:
        key = (tuple(map(id, operands)), extra)
        hit = self.entries.get(key)
        if hit is not None and all(a is b for a, b in zip(operands, hit[0])):
            return hit[1]
        value = compute()
        if len(self.entries) >= self.size:
            self.entries.pop(next(iter(self.entries)))
        self.entries[key] = (operands, value)
        return value


@dataclass
class KernelState:
    """What the kernel op implementations share: lanes, the active mask, counters."""

    arch: Arch
    stats: Stats
    kernel: Operation
    races: bool = True
    lanes: Lanes | None = None
    mask: np.ndarray | None = None
    intervals: np.ndarray | None = None  # barrier interval per workgroup of the batch
    order: Any = None  # gemmc.interp.ordering.WorkgroupOrder of a kernel that synchronises workgroups
    lds_bytes: dict[Operation, int] = field(default_factory=dict)
    mbarriers: Any = None  # gemmc.interp.mbarrier.Mbarriers of the batch, once a kernel initialized one
    wgmma_tracker: Any = None  # gemmc.interp.wgmma_async.Tracker of the batch (what an mbarrier arrive releases)
    land_copies: Any = None  # lands the active lanes' cp.async copies (gemmc.interp.nvgpu; an mbarrier arrive's)
    _ops: dict[Operation, int] = field(default_factory=dict)
    _op_list: list[Operation] = field(default_factory=list)
    _active: tuple[int, int] | None = None
    _lane_interval: np.ndarray | None = None
    _stamp: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
    _ranges: IdentityMemo = field(default_factory=IdentityMemo)
    _offsets: IdentityMemo = field(default_factory=IdentityMemo)

    def begin_batch(self, lanes: Lanes) -> None:
        self.lanes = lanes
        self.mask = None
        self._active = None
        self.intervals = np.zeros(lanes.nwg, dtype=np.int64)
        self._lane_interval = self._stamp = None
        self._ranges = IdentityMemo()
        self._offsets = IdentityMemo()
        self.lds_bytes = {}

    # -- the active mask -------------------------------------------------------------

    @contextmanager
    def masked(self, mask: np.ndarray | None):
        """Run a region under `mask` (None: all lanes); an all-true mask becomes None."""
        if mask is not None and mask.all():
            mask = None
        saved = (self.mask, self._active)
        self.mask, self._active = mask, None
        try:
            yield
        finally:
            self.mask, self._active = saved

    def active_mbarriers(self):
        """The batch's gemmc.interp.mbarrier.Mbarriers, where the kernel initialized an mbarrier, else None."""
        m = self.mbarriers
        return m if m is not None and m.lanes is self.lanes else None

    def active_mask(self) -> np.ndarray:
        """The mask as a bool array, even when every lane is active."""
        return np.ones(self.lanes.count, dtype=bool) if self.mask is None else self.mask

    def active_counts(self) -> tuple[int, int]:
        """(active lanes, waves with at least one active lane), cached per mask."""
        if self._active is None:
            ln = self.lanes
            if self.mask is None:
                self._active = (ln.count, ln.nwg * ln.waves_per_wg)
            else:
                waves = np.logical_or.reduceat(self.mask, ln.wave_starts)
                self._active = (int(np.count_nonzero(self.mask)), int(np.count_nonzero(waves)))
        return self._active

    def value_range(self, x: np.ndarray) -> tuple[int, int]:
        """(min, max) of a per-lane index array over the active lanes, remembered for the
        last few (array, mask) pairs: loop-invariant indices (row, col) are range-checked
        once, not per iteration."""
        def compute():
            v = x if self.mask is None else x[self.mask]
            return (int(v.min()), int(v.max())) if v.size else (0, -1)

        return self._ranges.get((x, self.mask), None, compute)

    def lane_offsets(self, terms: list[tuple[np.ndarray, int]]) -> np.ndarray:
        """sum(array * stride) over per-lane index arrays, remembered for the last few
        term lists: an LDS tile read inside the k loop (As[ty][k]) combines the same
        loop-invariant lane arrays every iteration, and only the uniform part changes."""
        def compute():
            total = None
            for a, s in terms:
                t = a * s if s != 1 else a
                total = t if total is None else total + t
            return total

        return self._offsets.get(tuple(a for a, _ in terms), tuple(s for _, s in terms), compute)

    def first_active_lane(self, bad: np.ndarray | None = None) -> int:
        """The first active lane (where `bad`, if given)."""
        m = self.active_mask() if bad is None else bad
        return int(np.argmax(m))

    # -- counters --------------------------------------------------------------------

    def count_valu(self, width: int = 1, flops_per_lane: int = 1, instrs: int = 1) -> None:
        lanes, waves = self.active_counts()
        self.stats.valu_instrs += waves * instrs
        self.stats.flops += lanes * width * flops_per_lane

    # -- barrier intervals, for LDS race detection --------------------------------------

    def pass_barrier(self, passing: np.ndarray) -> None:
        """The workgroups where `passing` start a new barrier interval.  A new array, never
        an update in place: race records keep the old one as the time of an access."""
        self.intervals = self.intervals + passing
        self._lane_interval = self._stamp = None

    def lane_interval(self) -> np.ndarray:
        """Each lane's current barrier interval (the count of barriers its workgroup passed)."""
        if self._lane_interval is None:
            self._lane_interval = self.intervals[self.lanes.wg]
        return self._lane_interval

    def lane_stamps(self, intervals: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per lane, what LDS race records hold (see memory.RaceTracker): the stamp
        (barrier interval << 32) | (thread id + 1), the interval's base (interval << 32),
        and the stamp with its thread field inverted.  `intervals`: the workgroups'
        intervals at an earlier time (default: now, remembered until the next barrier)."""
        if intervals is not None and intervals is not self.intervals:
            return self._stamps_from(intervals[self.lanes.wg])
        if self._stamp is None:
            self._stamp = self._stamps_from(self.lane_interval())
        return self._stamp

    def _stamps_from(self, lane_interval: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        base = lane_interval << 32
        tid1 = self.lanes.tid + 1
        return base | tid1, base, base | (0xFFFFFFFF - tid1)

    def op_id(self, op: Operation) -> int:
        """A small integer naming an op, so LDS words can record their last writer."""
        if op not in self._ops:
            self._ops[op] = len(self._op_list)
            self._op_list.append(op)
        return self._ops[op]

    def op_of(self, op_id: int) -> Operation:
        return self._op_list[op_id]

    # -- messages --------------------------------------------------------------------

    def where(self, lane: int) -> str:
        """'thread (tx, ty, tz) of block (bx, by, bz) in @kernel' for one lane."""
        t, b = self.lanes.coords(lane)
        return f"thread {t} of block {b} in @{self.kernel.sym_name.data}"


def lane_where(cond, a, b, vector: bool):
    """Per-lane select: `a` where `cond`, else `b`; a per-lane condition spans vector elements."""
    if vector and np.ndim(cond) == 1:
        cond = cond[:, None]
    return np.where(cond, a, b)


def is_uniform(x) -> bool:
    """Is this scalar-typed value the same on every lane (held as a numpy scalar)?"""
    return np.ndim(x) == 0
