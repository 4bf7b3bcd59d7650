"""wgmma's asynchrony in the interpreter: what a committed-but-not-waited group still holds.

The interpreter computes an nvgpu.wgmma_mma_async at once (gemmc.interp.nvgpu), but the GPU runs
it later, in the async proxy, until the warpgroup's wgmma.wait_group retires its group.  Until
then the group holds two things, and this module makes touching either an error:

* the shared-memory elements its descriptors read (A's and B's tiles).  Per LDS element, a count
  of pending readers: a write to it (a store, or a cp.async issued into it: the copy may land at
  once) while a group reading it is pending is an error.  After warpgroup w retires the group at
  nvgpu.wgmma_wait_group, another warpgroup w' is not ordered after that wait until both pass a
  gpu.barrier: so the element also remembers the barrier interval of its workgroup at the
  retirement and the warpgroups that retired reads of it then (the highest and the lowest id);
  a write by a thread of another warpgroup in that same interval is an error too (the write may
  run while w's group still reads: the barrier between w's wait and the write is missing).
  This is what makes a prefetch that reuses the slot of the tile just retired (prefetch distance
  F - 1 with wait_group 1) fail, where the slot of the tile retired one barrier ago is fine.
* the accumulator registers: D of the group.  The op's result is a `PendingAcc` (the values, and
  per lane the group it belongs to); a store of it into private memory marks those elements as
  owned by the group.  Reading them before the group is retired is an error unless every user of
  the load is another nvgpu.wgmma_mma_async's C operand (wgmma ops of one shape chain through the
  accumulator in order, the PTX ISA's exception; gemmc prints that load and store as the asm's
  "+f" registers), and so is overwriting them with anything but another wgmma's D.

Groups are counted per lane (all 128 lanes of a warpgroup commit and wait together: the ops are
.sync.aligned): nvgpu.wgmma_commit_group closes the lane's group `committed`, and
nvgpu.wgmma_wait_group {numGroups = N} retires every group but the newest N (uncommitted wgmma
ops stay pending).  A new batch of workgroups starts with none.
"""

from __future__ import annotations

import numpy as np

from gemmc.interp.common import InterpError

WARPGROUP = 128


class PendingAcc(np.ndarray):
    """A wgmma_mma_async's D: the values, and `seq`, per lane, the group that writes them."""

    seq: np.ndarray
    tracker: Tracker

    @classmethod
    def of(cls, values: np.ndarray, seq: np.ndarray, tracker: Tracker) -> PendingAcc:
        out = values.view(cls)
        out.seq, out.tracker = seq, tracker
        return out

    def __array_finalize__(self, obj) -> None:
        self.seq = getattr(obj, "seq", None)
        self.tracker = getattr(obj, "tracker", None)


class Tracker:
    """One batch's wgmma groups: per lane the groups committed and retired, the pending reads."""

    def __init__(self, lanes) -> None:
        self.lanes = lanes
        self.committed = np.zeros(lanes.count, dtype=np.int64)
        self.retired = np.zeros(lanes.count, dtype=np.int64)
        self.reads: list[tuple[SharedReads, np.ndarray, np.ndarray, np.ndarray, object]] = []

    # -- issue, commit, wait -----------------------------------------------------------

    def issue_reads(self, st, op, buf, addr: np.ndarray, sel: np.ndarray | None = None) -> None:
        """Warpgroup sel[g]'s mma reads buf's flat elements addr[g] (G, n) until its group retires."""
        groups = addr.shape[0]
        ids = np.arange(groups, dtype=np.int64) if sel is None else sel.astype(np.int64)
        first = ids * WARPGROUP  # each warpgroup's first lane
        seq = self.committed[first]
        if buf.wgmma is None:
            buf.wgmma = SharedReads(buf.data.size)
        flat = addr.reshape(-1)
        np.add.at(buf.wgmma.pending, flat, 1)
        n = addr.shape[1]
        mb = st.active_mbarriers()
        if mb is not None:
            mb.on_wgmma_read(st, op, buf, flat, np.repeat(first, n), np.repeat(seq, n))
        self.reads.append((buf.wgmma, flat, np.repeat(first, n), np.repeat(seq, n), (op, buf)))

    def result(self, values: np.ndarray) -> PendingAcc:
        return PendingAcc.of(values, self.committed.copy(), self)

    def commit(self, active: np.ndarray) -> None:
        self.committed = self.committed + active

    def wait(self, st, keep: int, active: np.ndarray) -> None:
        """wgmma.wait_group keep: the active lanes' groups older than their newest `keep` retire."""
        self.retired = np.where(active, np.maximum(self.retired, self.committed - keep), self.retired)
        live = []
        interval = st.lane_interval()
        for rec in self.reads:
            shared, flat, first, seq, what = rec
            done = seq < self.retired[first]
            if done.any():
                shared.retire(flat[done], first[done] // WARPGROUP, interval[first[done]])
                rec = (shared, flat[~done], first[~done], seq[~done], what)
            if rec[1].size:
                live.append(rec)
        self.reads = live

    def pending_acc(self, flat: np.ndarray, lanes: np.ndarray, seq: np.ndarray) -> np.ndarray:
        """Which of the accumulator elements (written by group `seq`, of lane `lanes`) are pending."""
        return (seq >= 0) & (seq >= self.retired[lanes])


class SharedReads:
    """Per element of an LDS buffer: pending wgmma readers, and the last retirement's interval and
    warpgroups (module docstring)."""

    def __init__(self, size: int) -> None:
        self.pending = np.zeros(size, dtype=np.int32)
        self.retired_at = np.full(size, -1, dtype=np.int64)
        self.hi = np.full(size, -1, dtype=np.int64)
        self.lo = np.full(size, -1, dtype=np.int64)

    def retire(self, flat: np.ndarray, warpgroup: np.ndarray, interval: np.ndarray) -> None:
        np.subtract.at(self.pending, flat, 1)
        newer = self.retired_at[flat] < interval
        fresh = flat[newer]
        self.retired_at[fresh] = interval[newer]
        self.hi[fresh] = -1
        self.lo[fresh] = np.iinfo(np.int64).max
        np.maximum.at(self.hi, flat, warpgroup)
        np.minimum.at(self.lo, flat, warpgroup)

    def check_write(self, st, op, buf, flat: np.ndarray, lanes: np.ndarray) -> None:
        """A write of buf's flat elements by `lanes` (one per element)."""
        busy = self.pending[flat] > 0
        if busy.any():
            i = int(np.argmax(busy))
            raise InterpError(
                f"{op.name} by {st.where(int(lanes[i]))} overwrites {buf.name}{list(buf.unravel(int(flat[i])))} "
                "while an nvgpu.wgmma_mma_async that reads it is in flight (its group is not retired: "
                "nvgpu.wgmma_wait_group)")
        mine = lanes // WARPGROUP
        same = self.retired_at[flat] == st.lane_interval()[lanes]
        other = same & ((self.hi[flat] != mine) | (self.lo[flat] != mine))
        mb = st.active_mbarriers()
        if mb is not None and other.any():
            # a kernel with mbarriers: a write no barrier orders after the reads' retirement (every one in
            # a warp-specialized loop, which has none) must be ordered by their phases
            mb.check_write(st, op, buf, flat, lanes)
            return
        if other.any():
            i = int(np.argmax(other))
            wg = int(self.hi[flat[i]] if self.hi[flat[i]] != mine[i] else self.lo[flat[i]])
            raise InterpError(
                f"{op.name} by {st.where(int(lanes[i]))} overwrites {buf.name}{list(buf.unravel(int(flat[i])))}, "
                f"which warpgroup {wg % (st.lanes.threads // WARPGROUP)} of its workgroup read with "
                "nvgpu.wgmma_mma_async in a group it retired in this barrier interval: a gpu.barrier is missing "
                "between that nvgpu.wgmma_wait_group and this write (the group may still be reading)")


class AccRegs:
    """Per element of a private buffer: the wgmma group whose D it holds (-1: none)."""

    def __init__(self, tracker: Tracker, size: int) -> None:
        self.tracker = tracker
        self.seq = np.full(size, -1, dtype=np.int64)

    def on_store(self, st, op, buf, flat: np.ndarray, lanes: np.ndarray, value) -> None:
        """A store of `value` into the elements `flat` (L, w) or (L,), the active `lanes`."""
        if isinstance(value, PendingAcc) and value.seq is not None:
            self.seq[flat] = np.broadcast_to(value.seq[lanes].reshape((-1,) + (1,) * (flat.ndim - 1)), flat.shape)
            return
        busy = self.tracker.pending_acc(flat, _lanes_like(lanes, flat), self.seq[flat])
        if busy.any():
            raise _acc_error(st, op, buf, flat, lanes, busy, "overwrites")
        self.seq[flat] = -1

    def on_load(self, st, op, buf, flat: np.ndarray, lanes: np.ndarray) -> None:
        busy = self.tracker.pending_acc(flat, _lanes_like(lanes, flat), self.seq[flat])
        if busy.any() and not _feeds_wgmma_only(op):
            raise _acc_error(st, op, buf, flat, lanes, busy, "reads")


def _lanes_like(lanes: np.ndarray, flat: np.ndarray) -> np.ndarray:
    return np.broadcast_to(lanes.reshape((-1,) + (1,) * (flat.ndim - 1)), flat.shape)


def _feeds_wgmma_only(op) -> bool:
    from gemmc.dialects.nvgpu import WgmmaMmaAsyncOp

    uses = [u for r in op.results for u in r.uses]
    return bool(uses) and all(isinstance(u.operation, WgmmaMmaAsyncOp) and u.index == 2 for u in uses)


def _acc_error(st, op, buf, flat, lanes, busy, verb: str) -> InterpError:
    i = np.unravel_index(int(np.argmax(busy)), busy.shape)
    lane = int(lanes[i[0]])
    return InterpError(
        f"{op.name} by {st.where(lane)} {verb} {buf.name}{list(buf.unravel(int(flat[i]) // st.lanes.count))}, "
        "an accumulator of an nvgpu.wgmma_mma_async whose group is not retired (an nvgpu.wgmma_wait_group "
        "is missing before it)")
