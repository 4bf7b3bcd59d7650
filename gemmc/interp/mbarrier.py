"""mbarriers, cp.async's mbarrier arrivals and the warp-specialized kernel's two roles, in the SIMT interpreter.

The interpreter runs every lane of a batch in lockstep, so a producer warpgroup that waits for its
consumers cannot block while they run.  Two pieces make the warp-specialized kernel
(passes/warp_specialize.py) run honestly all the same:

* The scheduler.  The scf.if with gemm.role = "warp_specialized" runs its two branches as coroutines
  (`run_roles`): each branch is a list of steps (an op, or one iteration of a top-level scf.for with
  uniform bounds), run under the branch's lanes; a step whose nvgpu.mbarrier_wait_parity cannot
  complete raises `WouldBlock` and is retried once the other role has made progress.  The producer
  runs first and as far as it can (the most run-ahead, the schedule that exposes a slot overwritten
  too early); when both roles block, the kernel deadlocks on the GPU too, and that is an error naming
  the waits (a missing arrive, a wrong parity that waits for a phase that never comes, too few slots).
  A step's waits must precede its side effects (the retry runs it again from its start); the
  scheduler checks that when it splits the branches.

* The phases, with what they order (a vector clock reduced to what the protocol moves):
  an mbarrier (one i64 of a memref in shared memory) holds, per instance, its expected count, pending
  count and completed phases.  nvgpu.mbarrier_wait_parity p of a lane completes when the current
  phase's parity differs from p (as try_wait.parity: p names the phase before the current one, done),
  and then *acquires* what the arrivals of the last completed phase released.  nvgpu.mbarrier_arrive
  by a warpgroup releases its retired wgmma groups (gemmc.interp.wgmma_async's `retired` then);
  nvgpu.cp_async_mbarrier_arrive (noinc) lands the lane's cp.async copies (the earliest moment the
  GPU may land them) and releases them: the lane's arrive count (`epoch`), with which its copies
  were stamped at issue.  Checked:
    - a wgmma read of an element that a cp.async wrote is an error unless the reading warpgroup acquired
      the arrive that published it (a consumer reading a slot whose full phase has not completed for it),
    - a cp.async write of an element that an earlier cp.async wrote and no wgmma read since is an error
      (a tile lost: the producer passed an empty wait the consumers had not completed),
    - a cp.async write of an element that a wgmma group read is an error unless the writing lane
      acquired a release of that warpgroup made after that group retired (a producer writing a slot whose
      empty phase has not completed), which replaces, in a kernel with mbarriers, the barrier-interval
      rule of gemmc.interp.wgmma_async,
    - an arrive past the expected count, a wait or arrive on an mbarrier never initialized (or
      invalidated), an init of a valid one (PTX: undefined; nvgpu.mbarrier_inval first), an inval of one
      in use.

* TMA's transactions (gemmc.interp.tma): nvgpu.mbarrier_arrive_expect_tx adds its bytes to the phase's
  transaction count and arrives; a phase completes when its arrivals and its bytes are all in.  A TMA box
  is held here in flight (`on_box`) and lands, completing its bytes, when a wait on its mbarrier finds the
  phase incomplete (`_land_boxes`: the latest moment the GPU may land it, so a wait that passes without it,
  on the wrong parity or after an arrive without expect_tx, leaves the tile in flight for the wgmma to
  trip on); bytes beyond what the phase expects are an error (no expect_tx armed them).
"""

from __future__ import annotations

from contextlib import nullcontext

import numpy as np
from xdsl.dialects import scf
from xdsl.interpreter import Interpreter, InterpreterFunctions, PythonValues, impl, register_impls
from dataclasses import dataclass

from gemmc.dialects.nvgpu import (
    CpAsyncMbarrierArriveOp,
    FenceProxyAsyncOp,
    MbarrierArriveExpectTxOp,
    MbarrierArriveOp,
    MbarrierInitOp,
    MbarrierInvalOp,
    MbarrierWaitParityOp,
    SetMaxNRegOp,
)
from gemmc.interp import memory
from gemmc.interp.common import InterpError
from gemmc.interp.state import KernelState, is_uniform

WARPGROUP = 128
NONE = np.iinfo(np.int64).max  # no arrival of that kind in the phase yet


class WouldBlock(InterpError):
    """An nvgpu.mbarrier_wait_parity whose phase has not completed (the scheduler retries it later)."""

    def __init__(self, msg: str, op) -> None:
        super().__init__(msg)
        self.op = op


class _Bars:
    """The mbarriers of one shared i64 buffer, per flat element of the batch's instances."""

    def __init__(self, size: int, wpb: int) -> None:
        self.init = np.zeros(size, dtype=bool)
        self.expected = np.zeros(size, dtype=np.int64)
        self.pending = np.zeros(size, dtype=np.int64)
        self.phase = np.zeros(size, dtype=np.int64)  # completed phases
        self.tx = np.zeros(size, dtype=np.int64)  # this phase: transaction bytes expected and not completed
        self.rel_wg = np.full((size, wpb), NONE, dtype=np.int64)  # this phase: min retired groups released
        self.rel_cp = np.full(size, NONE, dtype=np.int64)  # this phase: min cp.async epoch released
        self.snap_wg = np.zeros((size, wpb), dtype=np.int64)  # the last completed phase's releases
        self.snap_cp = np.zeros(size, dtype=np.int64)


class Mbarriers:
    """One batch's mbarrier state and what each lane acquired (module docstring)."""

    def __init__(self, st: KernelState) -> None:
        self.lanes = st.lanes
        self.wpb = max(1, st.lanes.threads // WARPGROUP)
        self.bars: dict[int, _Bars] = {}
        n = st.lanes.count
        self.epoch = np.zeros(n, dtype=np.int64)  # the lane's cp.async mbarrier arrivals so far
        self.known_cp = np.zeros(n, dtype=np.int64)  # producer epochs this lane acquired
        self.known_wg = np.zeros((n, self.wpb), dtype=np.int64)  # retired groups of each warpgroup acquired
        self.stamps: dict[int, np.ndarray] = {}  # per LDS buffer: the epoch that publishes each element (0: none)
        self.reads: dict[int, np.ndarray] = {}  # per LDS buffer: (size, wpb) newest reading group + 1
        self.unread: dict[int, np.ndarray] = {}  # per LDS buffer: written by a cp.async, read by no wgmma since
        self.boxes: list[_Box] = []  # TMA boxes issued and not landed (gemmc.interp.tma)

    # -- the hooks of cp.async and wgmma ---------------------------------------------------

    def on_copy(self, st, op, buf, flat: np.ndarray, lanes: np.ndarray) -> None:
        stamps = self.stamps.setdefault(id(buf), np.zeros(buf.data.size, dtype=np.int64))
        unread = self.unread.setdefault(id(buf), np.zeros(buf.data.size, dtype=bool))
        lost = unread[flat]
        if lost.any():
            i = int(np.argmax(lost))
            raise InterpError(
                f"{op.name} by {st.where(int(lanes[i]))} overwrites {buf.name}{list(buf.unravel(int(flat[i])))}, which a "
                "cp.async wrote and no nvgpu.wgmma_mma_async has read yet: the tile there is lost (the producer "
                "passed an empty-phase wait that the consumers had not completed)")
        stamps[flat] = self.epoch[lanes] + 1
        unread[flat] = True

    def on_wgmma_read(self, st, op, buf, flat: np.ndarray, first: np.ndarray, seq: np.ndarray) -> None:
        """Warpgroups (first lanes `first`, one per element) read `flat` in their groups `seq`."""
        stamps = self.stamps.get(id(buf))
        if stamps is not None:
            need = stamps[flat]
            bad = need > self.known_cp[first]
            if bad.any():
                i = int(np.argmax(bad))
                raise InterpError(
                    f"{op.name} by {st.where(int(first[i]))} reads {buf.name}{list(buf.unravel(int(flat[i])))}, which a "
                    "cp.async wrote, before the full phase that publishes it completed for this warpgroup (no "
                    "nvgpu.mbarrier_wait_parity acquired the producer's nvgpu.cp_async_mbarrier_arrive after the copy)")
        unread = self.unread.get(id(buf))
        if unread is not None:
            unread[flat] = False
        reads = self.reads.setdefault(id(buf), np.zeros((buf.data.size, self.wpb), dtype=np.int64))
        np.maximum.at(reads, (flat, (first // WARPGROUP) % self.wpb), seq + 1)

    def check_write(self, st, op, buf, flat: np.ndarray, lanes: np.ndarray) -> None:
        reads = self.reads.get(id(buf))
        if reads is None:
            return
        bad = reads[flat] > self.known_wg[lanes]  # (n, wpb)
        if bad.any():
            i, w = (int(x[0]) for x in np.nonzero(bad))
            raise InterpError(
                f"{op.name} by {st.where(int(lanes[i]))} overwrites {buf.name}{list(buf.unravel(int(flat[i])))}, which "
                f"warpgroup {w} of its workgroup read with nvgpu.wgmma_mma_async, before the empty phase that releases "
                "it completed for this thread (no nvgpu.mbarrier_wait_parity acquired an nvgpu.mbarrier_arrive of that "
                "warpgroup made after the group retired), nor does a gpu.barrier since the group's retiring wait")

    # -- the ops -------------------------------------------------------------------------------

    def _bars(self, buf) -> _Bars:
        b = self.bars.get(id(buf))
        if b is None:
            b = self.bars[id(buf)] = _Bars(buf.data.size, self.wpb)
        return b

    def init(self, st, op, buf, addr: np.ndarray, lanes: np.ndarray, count: int) -> None:
        b = self._bars(buf)
        valid = b.init[addr]
        if valid.any():  # PTX: undefined on a valid mbarrier (in use or not)
            i = int(np.argmax(valid))
            raise InterpError(f"{op.name} by {st.where(int(lanes[i]))} on {buf.name}{list(buf.unravel(int(addr[i])))}, "
                              "a valid mbarrier: nvgpu.mbarrier_inval it first")
        b.init[addr] = True
        b.expected[addr] = count
        b.pending[addr] = count
        b.phase[addr] = 0
        b.tx[addr] = 0
        b.rel_wg[addr] = NONE
        b.rel_cp[addr] = NONE

    def inval(self, st, op, buf, addr: np.ndarray, lanes: np.ndarray) -> None:
        """The mbarriers at addr stop being ones; none may have arrivals or transaction bytes pending."""
        b = self._bars(buf)
        self._check_init(st, op, buf, b, addr, lanes)
        busy = (b.pending[addr] != b.expected[addr]) | (b.tx[addr] != 0) | \
            np.isin(addr, [x.bar_addr for x in self.boxes if x.bars is buf])
        if busy.any():
            i = int(np.argmax(busy))
            raise InterpError(f"{op.name} by {st.where(int(lanes[i]))} on {buf.name}{list(buf.unravel(int(addr[i])))}: "
                              "the mbarrier is in use (arrivals or TMA bytes pending)")
        b.init[addr] = False

    def _check_init(self, st, op, buf, b: _Bars, addr: np.ndarray, lanes: np.ndarray) -> None:
        bad = ~b.init[addr]
        if bad.any():
            i = int(np.argmax(bad))
            raise InterpError(f"{op.name} by {st.where(int(lanes[i]))} on {buf.name}{list(buf.unravel(int(addr[i])))}, "
                              "an mbarrier no nvgpu.mbarrier_init initialized")

    def arrive(self, st, op, buf, addr: np.ndarray, lanes: np.ndarray, retired: np.ndarray | None,
               tx: int = 0) -> None:
        """The active `lanes` arrive at addr (per lane); `retired` (per lane) what a warpgroup releases,
        None for a cp.async arrival (the lanes' epochs); tx > 0: an expect_tx arrival, which releases
        nothing (the phase's TMA boxes publish their tiles by completing it)."""
        b = self._bars(buf)
        self._check_init(st, op, buf, b, addr, lanes)
        np.subtract.at(b.pending, addr, 1)
        if tx:
            np.add.at(b.tx, addr, tx)
        elif retired is not None:
            np.minimum.at(b.rel_wg, (addr, (lanes // WARPGROUP) % self.wpb), retired)
        else:
            self.epoch[lanes] += 1
            np.minimum.at(b.rel_cp, addr, self.epoch[lanes])
        over = b.pending[addr] < 0
        if over.any():
            i = int(np.argmax(over))
            raise InterpError(f"{op.name} by {st.where(int(lanes[i]))}: more arrivals on "
                              f"{buf.name}{list(buf.unravel(int(addr[i])))} than its phase expects "
                              f"({int(b.expected[addr[i]])})")
        self._complete(b, addr)

    def _complete(self, b: _Bars, addr: np.ndarray) -> None:
        """The phases at addr whose arrivals and transaction bytes are all in complete; the next begins."""
        done = np.unique(addr[(b.pending[addr] == 0) & (b.tx[addr] == 0)])
        if done.size:
            b.phase[done] += 1
            b.pending[done] = b.expected[done]
            b.snap_wg[done] = np.where(b.rel_wg[done] == NONE, 0, b.rel_wg[done])
            b.snap_cp[done] = np.where(b.rel_cp[done] == NONE, 0, b.rel_cp[done])
            b.rel_wg[done] = NONE
            b.rel_cp[done] = NONE

    def wait(self, st, op, buf, addr: np.ndarray, lanes: np.ndarray, parity: np.ndarray) -> None:
        b = self._bars(buf)
        self._check_init(st, op, buf, b, addr, lanes)
        bad_p = (parity != 0) & (parity != 1)
        if bad_p.any():
            raise InterpError(f"{op.name} by {st.where(int(lanes[int(np.argmax(bad_p))]))}: parity "
                              f"{int(parity[int(np.argmax(bad_p))])} is not 0 or 1")
        blocked = (b.phase[addr] & 1) == parity
        if blocked.any():  # the latest the GPU may land a phase's TMA boxes: when a wait needs them
            self._land_boxes(st, buf, b, np.unique(addr[blocked]))
        phase = b.phase[addr]
        blocked = (phase & 1) == parity
        if blocked.any():
            i = int(np.argmax(blocked))
            raise WouldBlock(f"{op.name} by {st.where(int(lanes[i]))} waits for phase {int(phase[i])} (parity "
                             f"{int(parity[i])}) of {buf.name}{list(buf.unravel(int(addr[i])))}, which has "
                             f"{int(b.pending[addr[i]])} of {int(b.expected[addr[i]])} arrivals to go", op)
        had = phase >= 1  # the last completed phase's releases; none before the first
        if had.any():
            la, ad = lanes[had], addr[had]
            self.known_cp[la] = np.maximum(self.known_cp[la], b.snap_cp[ad])
            self.known_wg[la] = np.maximum(self.known_wg[la], b.snap_wg[ad])


    # -- TMA (gemmc.interp.tma) ---------------------------------------------------------------

    def on_box(self, st, op, bars, bar_addr: int, lane: int, dst, flat: np.ndarray, values: np.ndarray,
               nbytes: int) -> None:
        """A TMA box issued by `lane` into dst's `flat` elements, completing `nbytes` on bars[bar_addr]."""
        b = self._bars(bars)
        self._check_init(st, op, bars, b, np.array([bar_addr]), np.array([lane]))
        if dst.in_flight is None:
            dst.in_flight = np.zeros(dst.data.size, dtype=np.int32)
        if dst.tma_flight is None:
            dst.tma_flight = np.zeros(dst.data.size, dtype=np.int32)
        np.add.at(dst.in_flight, flat, 1)
        np.add.at(dst.tma_flight, flat, 1)
        self.boxes.append(_Box(op, bars, bar_addr, lane, dst, flat, values, nbytes))

    def _land_boxes(self, st, bars, b: _Bars, addrs: np.ndarray) -> None:
        """Every box in flight on bars[addrs] lands and completes its bytes (then its phase may complete)."""
        keep = []
        for box in self.boxes:
            if box.bars is not bars or box.bar_addr not in addrs:
                keep.append(box)
                continue
            lanes = np.full(box.flat.size, box.lane, dtype=np.int64)
            np.subtract.at(box.dst.in_flight, box.flat, 1)
            np.subtract.at(box.dst.tma_flight, box.flat, 1)
            memory.write_landed(st, box.op, box.dst, box.flat, box.values, lanes)
            b.tx[box.bar_addr] -= box.nbytes
            if b.tx[box.bar_addr] < 0:
                raise InterpError(f"{box.op.name} by {st.where(box.lane)}: its {box.nbytes} bytes complete more "
                                  f"transactions on {bars.name}{list(bars.unravel(box.bar_addr))} than the phase "
                                  "expects (no nvgpu.mbarrier_arrive_expect_tx armed them)")
        self.boxes = keep
        self._complete(b, addrs)


@dataclass
class _Box:
    """A TMA box in flight: its op, mbarrier, issuing lane, destination elements and values, bytes."""

    op: object
    bars: object
    bar_addr: int
    lane: int
    dst: object
    flat: np.ndarray
    values: np.ndarray
    nbytes: int


def mbarriers(st: KernelState) -> Mbarriers:
    if st.mbarriers is None or st.mbarriers.lanes is not st.lanes:
        st.mbarriers = Mbarriers(st)
    return st.mbarriers


def active_mbarriers(st: KernelState) -> Mbarriers | None:
    """The batch's mbarrier model, where the kernel initialized an mbarrier."""
    return st.active_mbarriers()


@register_impls
@dataclass
class MbarrierFunctions(InterpreterFunctions):
    """nvgpu's mbarrier ops and setmaxnreg inside kernels."""

    state: KernelState | None = None

    def _st(self, op) -> KernelState:
        if self.state is None:
            raise InterpError(f"{op.name} outside a kernel")
        return self.state

    def _where(self, st, op, args):
        buf, *indices = args[: 1 + len(op.indices)]
        lanes = np.flatnonzero(st.active_mask())
        addr = np.broadcast_to(memory.addresses(st, op, buf, indices, 1), (st.lanes.count,))[lanes]
        return buf, addr, lanes

    @impl(MbarrierInitOp)
    def run_init(self, interp: Interpreter, op: MbarrierInitOp, args: PythonValues):
        st = self._st(op)
        buf, addr, lanes = self._where(st, op, args)
        if lanes.size:
            mbarriers(st).init(st, op, buf, addr, lanes, op.arrivals)
        return ()

    @impl(MbarrierInvalOp)
    def run_inval(self, interp: Interpreter, op: MbarrierInvalOp, args: PythonValues):
        st = self._st(op)
        buf, addr, lanes = self._where(st, op, args)
        if lanes.size:
            mbarriers(st).inval(st, op, buf, addr, lanes)
        return ()

    @impl(MbarrierArriveOp)
    def run_arrive(self, interp: Interpreter, op: MbarrierArriveOp, args: PythonValues):
        st = self._st(op)
        buf, addr, lanes = self._where(st, op, args)
        if lanes.size:
            tracker = st.wgmma_tracker
            retired = tracker.retired[lanes] if tracker is not None and tracker.lanes is st.lanes \
                else np.zeros(lanes.size, dtype=np.int64)
            mbarriers(st).arrive(st, op, buf, addr, lanes, retired)
        return ()

    @impl(CpAsyncMbarrierArriveOp)
    def run_cp_arrive(self, interp: Interpreter, op: CpAsyncMbarrierArriveOp, args: PythonValues):
        st = self._st(op)
        buf, addr, lanes = self._where(st, op, args)
        if lanes.size:
            land = st.land_copies
            if land is not None:
                land(st, op, st.active_mask())
            mbarriers(st).arrive(st, op, buf, addr, lanes, None)
        return ()

    @impl(MbarrierWaitParityOp)
    def run_wait(self, interp: Interpreter, op: MbarrierWaitParityOp, args: PythonValues):
        st = self._st(op)
        buf, addr, lanes = self._where(st, op, args)
        if lanes.size:
            parity = np.broadcast_to(np.asarray(args[-1], dtype=np.int64), (st.lanes.count,))[lanes]
            mbarriers(st).wait(st, op, buf, addr, lanes, parity)
        return ()

    @impl(MbarrierArriveExpectTxOp)
    def run_arrive_expect_tx(self, interp: Interpreter, op: MbarrierArriveExpectTxOp, args: PythonValues):
        st = self._st(op)
        buf, addr, lanes = self._where(st, op, args)
        if lanes.size:
            mbarriers(st).arrive(st, op, buf, addr, lanes, None, tx=op.tx)
        return ()

    @impl(SetMaxNRegOp)
    def run_setmaxnreg(self, interp: Interpreter, op: SetMaxNRegOp, args: PythonValues):
        return ()

    @impl(FenceProxyAsyncOp)
    def run_fence_proxy(self, interp: Interpreter, op: FenceProxyAsyncOp, args: PythonValues):
        return ()  # the interpreter has one proxy


# -- the two roles -------------------------------------------------------------------------------

_PURE = ("arith.", "scf.yield", "scf.if", "nvgpu.mbarrier_wait_parity", "nvgpu.setmaxnreg")


def _check_waits_first(block) -> None:
    """Within a step, no side effect precedes an mbarrier wait (a blocked step is retried from its start)."""
    seen = None
    for op in block.walk():
        if isinstance(op, MbarrierWaitParityOp):
            if seen is not None:
                raise InterpError(f"{op.name} after {seen.name} in one iteration of a warp-specialized loop: the "
                                  "interpreter retries a blocked iteration from its start, so its waits must come first")
        elif not op.name.startswith(_PURE) and seen is None:
            seen = op


def run_roles(interp, fns, op: scf.IfOp, take_then: np.ndarray, take_else: np.ndarray) -> None:
    """The two branches of a warp-specialized scf.if as coroutines (module docstring)."""
    st = fns.state
    table = interp._impls._impl_dict  # noqa: SLF001 - as SimtInterpreter._plan
    env = interp.env

    def steps(region):
        for o in region.block.ops:
            if isinstance(o, scf.YieldOp):
                continue
            if isinstance(o, scf.ForOp) and not o.res:
                _check_waits_first(o.body.block)
                lb, ub, step = (env[id(v)] for v in (o.lb, o.ub, o.step))
                if not (is_uniform(lb) and is_uniform(ub) and is_uniform(step)):
                    raise InterpError(f"{o.name} of a warp-specialized role with per-lane bounds")
                for i in range(int(lb), int(ub), int(step)):
                    yield lambda o=o, i=i: interp.run_ssacfg_region(o.body, (np.int64(i),), "scf.for")
            else:
                def one(o=o):
                    ft, run = table[type(o)]
                    out = run(ft, interp, o, tuple(env[id(v)] for v in o.operands))
                    for r, v in zip(o.results, out.values):
                        env[id(r)] = v
                yield one

    roles = []
    for name, region, m in (("producer", op.true_region, take_then), ("consumer", op.false_region, take_else)):
        if region.blocks and m.any():
            roles.append([name, m, steps(region), None, None])  # name, mask, steps, next step, blocked on
    while True:
        progressed = False
        live = False
        for role in roles:
            name, m, it, nxt, _ = role
            while True:
                if nxt is None:
                    nxt = next(it, None)
                    if nxt is None:
                        break
                try:
                    with st.masked(m):
                        nxt()
                except WouldBlock as e:
                    role[3], role[4] = nxt, e
                    break
                nxt = None
                role[4] = None
                progressed = True
            if nxt is not None:
                live = True
            role[3] = nxt
        if not live:
            return
        if not progressed:
            waits = "; ".join(f"the {r[0]}: {r[4]}" for r in roles if r[4] is not None)
            raise InterpError(f"the warp-specialized roles deadlock (an mbarrier phase that never completes: a "
                              f"missing arrive, a wrong parity or too few slots): {waits}")
