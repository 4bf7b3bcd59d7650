"""Kernel memory: global buffers, LDS (one instance per workgroup), private memory
(one instance per lane), with bounds checks, LDS race detection and traffic counters.

Every buffer is a flat numpy array; an access computes, per lane, base + linear
offset and gathers or scatters.  Global memory is the host's array; LDS holds one
row-major instance per workgroup of the batch; private memory (register tiles: an
alloca in any other memory space) is element-major, element e of lane l at e*L + l,
so that the usual uniform index reads or writes one contiguous row instead of
gathering.
Only active lanes are checked and stored; inactive lanes read some element that
nobody observes.

LDS race detection (`RaceTracker`) records, per element, the barrier interval and
thread of its last write and of its readers, packed in int64 stamps.  Within one
interval a thread may only read what it wrote itself, and may only overwrite what no
other thread read; anything else is a race that a missing gpu.barrier leaves to the
hardware's timing.  (Stricter than AMD hardware, where lanes of one wave see each
other's LDS writes in program order, and as strict as HIP's memory model.)
Elements rather than 4-byte words are tracked, so two threads writing the two halves
of one f16 pair is (rightly) not a race.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.dialects import memref, vector
from xdsl.dialects.builtin import MemRefType
from xdsl.interpreter import Interpreter, InterpreterFunctions, PythonValues, impl, register_impls
from xdsl.ir import Operation, SSAValue

from gemmc.dialects.gemm import AssumeRowsAlignedOp, FenceOp
from gemmc.interp.common import InterpError, element_bytes, np_dtype, value_name, vector_width
from gemmc.interp.state import KernelState
from gemmc.interp.wgmma_async import AccRegs, PendingAcc
from gemmc.support.ir_names import ATOMIC_ADDF, ATOMIC_ADDI, ATOMIC_MAXIMUMF, LDS_SPACE, memory_space
from gemmc.target.resources import global_bytes, lane_bytes

_NONE = -1
_LOAD = object()  # _wgmma_access: a load, no value


class Buffer:
    """A memref's storage as the kernel sees it."""

    def __init__(self, kind: str, name: str, type: MemRefType, shape: tuple[int, ...], data: np.ndarray):
        self.kind = kind  # "global", "lds" or "private"
        self.name = name
        self.type = type
        self.shape = shape
        self.size = int(np.prod(shape, dtype=np.int64))
        self.strides = tuple(int(np.prod(shape[i + 1 :], dtype=np.int64)) for i in range(len(shape)))
        self.data = data
        self.elem_bytes = element_bytes(type)
        self.races: RaceTracker | None = None
        self.in_flight: np.ndarray | None = None  # LDS: cp.async writes not yet waited for, per element
        self.tma_flight: np.ndarray | None = None  # LDS: of those, TMA boxes' (also counted in in_flight)
        self.wgmma = None  # what pending wgmma groups hold of it (gemmc.interp.wgmma_async)
        self.base = 0  # per-lane offset of the lane's instance (LDS, private)
        self.rows: np.ndarray | None = None  # private: data viewed as (size, L)

    @classmethod
    def global_(cls, arg: SSAValue, array: np.ndarray) -> Buffer:
        """A host array passed to a kernel; it is updated in place."""
        if not array.flags.c_contiguous:
            raise InterpError(f"memref argument {value_name(arg)} must be a C-contiguous array")
        return cls("global", value_name(arg), arg.type, tuple(array.shape), array.reshape(-1))

    @classmethod
    def batched(cls, arg: SSAValue, array: np.ndarray) -> Buffer:
        """A host array of one rank more than the kernel's argument (gemmc.transforms.batch): the
        kernel sees one matrix of it, the one `at_batch` says."""
        if not array.flags.c_contiguous:
            raise InterpError(f"memref argument {value_name(arg)} must be a C-contiguous array")
        return cls("global", value_name(arg), arg.type, tuple(array.shape[1:]), array.reshape(-1))

    def at_batch(self, batch: np.ndarray) -> None:
        """Per lane, the batch whose matrix a batched buffer is (uniform: one int offset)."""
        self.base = int(batch[0]) * self.size if batch.size and (batch == batch[0]).all() else batch * self.size

    @classmethod
    def allocate(cls, state: KernelState, op: Operation, shape: tuple[int, ...]) -> Buffer:
        """memref.alloc/alloca in a kernel: LDS (memory space 3) per workgroup, else per lane.

        Fresh memory holds NaN (floats), so reading what was never written shows in C.
        """
        t: MemRefType = op.results[0].type
        kind = "lds" if memory_space(t) == LDS_SPACE else "private"
        instances = state.lanes.nwg if kind == "lds" else state.lanes.count
        size = int(np.prod(shape, dtype=np.int64))
        dtype = np_dtype(t)
        fill = np.nan if dtype.kind == "f" else 0
        buf = cls(kind, value_name(op.results[0]), t, shape, np.full(instances * size, fill, dtype=dtype))
        if kind == "private":
            buf.strides = tuple(st * instances for st in buf.strides)
            buf.base = state.lanes.all
            buf.rows = buf.data.reshape(size, instances)
        else:
            buf.base = state.lanes.wg * size
        if kind == "lds":
            state.lds_bytes[op] = size * buf.elem_bytes
            used = sum(state.lds_bytes.values())
            if used > state.arch.lds_limit:
                raise InterpError(
                    f"{op.name} of {buf.name}: the kernel allocates {used} bytes of LDS per "
                    f"workgroup; {state.arch.name} has {state.arch.lds_limit}"
                )
            if state.races:
                buf.races = RaceTracker(instances * size)
        return buf

    def unravel(self, offset: int) -> tuple[int, ...]:
        return tuple(int(i) for i in np.unravel_index(offset % max(self.size, 1), self.shape))


_LOW = np.int64(0xFFFFFFFF)  # the thread field of a stamp


class RaceTracker:
    """Per LDS element: stamps of its last write and of its readers, and the ops.

    A stamp is (barrier interval << 32) | (thread id + 1) in one int64 (see
    `KernelState.lane_stamps`): it is from the current interval iff it is >= the
    interval's base (interval << 32), and from the same thread iff it is equal.
    Reads keep the largest stamp (the highest reading thread) and the largest
    *inverted* stamp (thread field 2^32 - 1 - (tid + 1): the lowest reading thread),
    both with np.maximum.at, which is order-free and makes older intervals lose.
    A writer then races with a reader unless it was the only one.

    Both checks are lazy, because in a correctly synchronised kernel neither record
    is looked at: reads are checked against writes only in workgroups that wrote
    since their last barrier, and reads are recorded (`_settle`) only when a write
    comes before the barrier that would make them stale.  Until then they wait in
    `_pending` (a bounded list of accesses); a barrier passed by every workgroup of
    the batch drops them.  This keeps LDS-tiled kernels at the cost of their loads.
    """

    MAX_PENDING = 1 << 25  # elements of reads held back before they are recorded anyway

    def __init__(self, n: int):
        self.w_rec = np.full(n, _NONE, dtype=np.int64)
        self.w_op = np.full(n, _NONE, dtype=np.int64)
        self.r_hi = np.full(n, _NONE, dtype=np.int64)
        self.r_lo = np.full(n, _NONE, dtype=np.int64)
        self.r_op = np.full(n, _NONE, dtype=np.int64)
        self._written_at: np.ndarray | None = None  # workgroups' intervals at the last write
        self._read_at: np.ndarray | None = None  # ... at the last recorded read
        self._pending: list[tuple[_Access, np.ndarray]] = []  # (read, intervals then)
        self._pending_size = 0

    def on_read(self, acc: _Access) -> None:
        if self._may_hold_writes(acc.state):
            self._check_read(acc)
        self._hold(acc)

    def _may_hold_writes(self, state: KernelState) -> bool:
        """Whether some workgroup wrote this buffer in its current barrier interval."""
        return _in_current_interval(state, self._written_at)

    def _may_hold_reads(self, state: KernelState) -> bool:
        return _in_current_interval(state, self._read_at)

    def _check_read(self, acc: _Access) -> None:
        addr, (mine, base, _) = acc.addr, acc.stamps()
        w = self.w_rec[addr]
        hit = (w >= base) & (w != mine)
        if hit.any():
            i = int(np.argmax(hit))
            acc.race(i, "reads", int(w[i]), int(self.w_op[addr[i]]), "wrote")

    def _hold(self, acc: _Access) -> None:
        """Queue a read; drop the queue first if every workgroup passed a barrier since."""
        if self._pending and _all_passed_since(acc.state, self._pending[-1][1]):
            self._pending, self._pending_size = [], 0
        self._pending.append((acc, acc.state.intervals))
        self._pending_size += acc.addr.size
        if self._pending_size > self.MAX_PENDING:
            self._settle(acc.state)

    def _settle(self, state: KernelState) -> None:
        """Record the held reads that may still be in some workgroup's current interval."""
        for acc, intervals in self._pending:
            if _all_passed_since(state, intervals):
                continue
            mine, _, inverted = acc.stamps(intervals)
            np.maximum.at(self.r_hi, acc.addr, mine)
            np.maximum.at(self.r_lo, acc.addr, inverted)
            self.r_op[acc.addr] = state.op_id(acc.op)
            self._read_at = intervals
        self._pending, self._pending_size = [], 0

    def on_write(self, acc: _Access, old: np.ndarray, new: np.ndarray) -> None:
        """Check before the store lands (`old`: the elements' values, `new`: the stored ones)."""
        self._settle(acc.state)
        if self._may_hold_reads(acc.state):
            self._check_overwrite_of_reads(acc)
        if self._may_hold_writes(acc.state):
            self._check_overwrite_of_writes(acc, old, new)

    def _check_overwrite_of_reads(self, acc: _Access) -> None:
        addr, (mine, base, inverted) = acc.addr, acc.stamps()
        hi, lo = self.r_hi[addr], self.r_lo[addr]
        war = (hi >= base) & ((hi != mine) | (lo != inverted))
        if war.any():
            i = int(np.argmax(war))
            other = int(hi[i]) if hi[i] != mine[i] else int(lo[i]) ^ int(_LOW)
            acc.race(i, "overwrites", other, int(self.r_op[addr[i]]), "read")

    def _check_overwrite_of_writes(self, acc: _Access, old: np.ndarray, new: np.ndarray) -> None:
        addr, (mine, base, _) = acc.addr, acc.stamps()
        w = self.w_rec[addr]
        waw = (w >= base) & (w != mine) & (old != new)
        if waw.any():
            i = int(np.argmax(waw))
            acc.race(i, "overwrites", int(w[i]), int(self.w_op[addr[i]]), "wrote")

    def after_write(self, acc: _Access, data: np.ndarray, new: np.ndarray) -> None:
        """Record the store; two threads of one store writing different values to one element race."""
        addr, (mine, _, _) = acc.addr, acc.stamps()
        self.w_rec[addr] = mine
        clash = self.w_rec[addr] != mine  # another thread of this store wrote the element last
        if clash.any() and (dup := clash & (data[addr] != new)).any():
            i = int(np.argmax(dup))
            acc.race(i, "writes", int(self.w_rec[addr[i]]), acc.state.op_id(acc.op), "also wrote")
        self.w_op[addr] = acc.state.op_id(acc.op)
        self._written_at = acc.state.intervals


def _all_passed_since(state: KernelState, at: np.ndarray) -> bool:
    """Whether every workgroup passed a barrier since `at` (the workgroups' intervals then)."""
    return at is not state.intervals and bool(np.all(state.intervals > at))


def _in_current_interval(state: KernelState, at: np.ndarray | None) -> bool:
    """Whether some workgroup is still in the barrier interval it was in when `at`
    (the workgroups' intervals then) was taken."""
    return at is not None and bool(np.any(state.intervals == at))


@dataclass
class _Access:
    """One memory op's active elements: their flat addresses and the lane of each."""

    state: KernelState
    op: Operation
    buf: Buffer
    addr: np.ndarray  # flat indices into buf.data, one per active lane and vector element
    lanes: np.ndarray | None  # the lane of each address; None: lane i for address i

    def stamps(self, intervals: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(stamp, interval base, inverted stamp) of each address's lane (at `intervals`)."""
        stamps = self.state.lane_stamps(intervals)
        return stamps if self.lanes is None else tuple(x[self.lanes] for x in stamps)

    def race(self, i: int, verb: str, other_stamp: int, other_op: int, other_verb: str) -> None:
        st = self.state
        lane = i if self.lanes is None else int(self.lanes[i])
        other = st.op_of(other_op).name if other_op >= 0 else "an op"
        who = f"thread {st.lanes.thread_of_tid((other_stamp & int(_LOW)) - 1)}"
        index = self.buf.unravel(int(self.addr[i]))
        raise InterpError(
            f"LDS race on {self.buf.name}: {self.op.name} by {st.where(lane)} {verb} index "
            f"{index}, which {who} {other_verb} with {other} "
            f"in the same barrier interval (a gpu.barrier is missing between the {other} "
            f"and the {self.op.name})"
        )


def _check_bounds(state: KernelState, op: Operation, buf: Buffer, indices, width: int) -> None:
    """An out-of-bounds index on any active lane is an error naming op, buffer and index."""
    if len(indices) != len(buf.shape):
        raise InterpError(
            f"{op.name} of {buf.name} with {len(indices)} indices; its rank is {len(buf.shape)}"
        )
    mask, bad = state.mask, None
    last = len(indices) - 1
    for d, (i, n) in enumerate(zip(indices, buf.shape)):
        limit = n - width + 1 if d == last else n
        if not isinstance(i, np.ndarray):
            if 0 <= i < limit:
                continue
            b = True
        elif 0 <= state.value_range(i)[0] and state.value_range(i)[1] < limit:
            continue
        else:
            b = (i < 0) | (i >= limit)
        bad = b if bad is None else (bad | b)
    if bad is None:
        return
    bad = np.broadcast_to(bad, (state.lanes.count,))
    if mask is not None:
        bad = bad & mask
    if not bad.any():
        return
    lane = state.first_active_lane(bad)
    index = tuple(int(np.broadcast_to(i, (state.lanes.count,))[lane]) for i in indices)
    what = f"a vector of {width} starting " if width > 1 else ""
    space = {"global": "", "lds": "LDS ", "private": "private "}[buf.kind]
    raise InterpError(
        f"out-of-bounds {op.name} of {space}{buf.name} at {what}index {index}; shape is "
        f"{buf.shape} ({state.where(lane)})"
    )


def _addresses(state: KernelState, buf: Buffer, indices, width: int):
    """Flat addresses per lane, shape (L,) or (L, w).  Inactive lanes may hold any
    address: loads gather with mode="clip" and stores keep only the active lanes."""
    lane_terms, uniform = [], 0
    for i, s in zip(indices, buf.strides):
        if s == 0:
            continue
        if isinstance(i, np.ndarray) and i.ndim > 0:
            lane_terms.append((i, s))
        else:
            uniform += int(i) * s
    if isinstance(buf.base, int):
        uniform += buf.base
    else:
        lane_terms.append((buf.base, 1))
    addr = np.int64(uniform)
    if lane_terms:
        lanes = state.lane_offsets(lane_terms)
        addr = lanes + addr if uniform else lanes
    addr = np.broadcast_to(addr, (state.lanes.count,))
    if width > 1:  # the vector runs along the last dimension
        addr = addr[:, None] + np.arange(width, dtype=np.int64) * buf.strides[-1]
    return addr


def _check_aligned(state: KernelState, op: Operation, buf: Buffer, addr: np.ndarray, width: int) -> None:
    """A global vector access must start at a multiple of its width (from the buffer's
    start, which the allocator aligns): a misaligned float4 faults on sm_90 and is split or
    wrong elsewhere, so the interpreter refuses it rather than computing it."""
    if width == 1 or buf.kind != "global" or width & (width - 1):
        return
    bad = addr[:, 0] % width != 0
    if state.mask is not None:
        bad = bad & state.mask
    if not bad.any():
        return
    lane = state.first_active_lane(bad)
    raise InterpError(
        f"misaligned {op.name} of {buf.name}: a vector of {width} at element {int(addr[lane, 0])}, not a "
        f"multiple of {width} ({state.where(lane)})"
    )


def _active(state: KernelState, addr: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    """(addresses, lanes) of the active lanes, flattened over vector elements
    (lanes None when that is every lane, in order)."""
    if state.mask is None and addr.ndim == 1:
        return addr, None
    lanes = state.lanes.all
    if state.mask is not None:
        addr, lanes = addr[state.mask], lanes[state.mask]
    if addr.ndim == 2:
        lanes = np.repeat(lanes, addr.shape[1])
    return addr.reshape(-1), lanes


def _count(state: KernelState, buf: Buffer, width: int, store: bool) -> None:
    if buf.kind == "private":
        return
    lanes, waves = state.active_counts()
    kind = f"{buf.kind}_{'store' if store else 'load'}"
    s = state.stats
    setattr(s, f"{kind}_instrs", getattr(s, f"{kind}_instrs") + waves)
    # global memory holds FP4 / FP6 packed (LDS a byte a code, as buf.elem_bytes): the cost model's bytes
    elem = global_bytes(str(buf.type.element_type)) if buf.kind == "global" else buf.elem_bytes
    setattr(s, f"{kind}_bytes", getattr(s, f"{kind}_bytes") + lanes * lane_bytes(width, elem))


def bank_conflicts(state: KernelState, buf: Buffer, addr: np.ndarray, width: int) -> int:
    """Extra LDS cycles that bank conflicts cost this access, for the whole batch.

    The model (docs/interpreter.md): LDS has arch.lds_banks banks of arch.lds_bank_bytes;
    it serves the lanes of a wave in groups of banks * bank_bytes / access_bytes lanes
    (32 lanes for 4-byte accesses on 32 banks, 8 lanes for 16-byte ones), one cycle per
    group when every bank is asked for at most one word (lanes reading the same word
    share it).  A group costs as many cycles as the most distinct words asked of one
    bank; the extra cycles are the conflicts.  The pattern is computed on the first
    workgroup with an active lane and scaled by the active waves of the batch: in
    gemmc's kernels every workgroup addresses LDS alike (only its base differs).
    """
    threads = state.lanes.threads
    mask = state.mask
    first = 0
    if mask is not None:
        active = np.flatnonzero(mask)
        if active.size == 0:
            return 0
        first = int(active[0]) // threads * threads
    sel = slice(first, first + threads)
    a = addr[sel] if addr.ndim == 1 else addr[sel, 0]
    live = np.ones(threads, dtype=bool) if mask is None else mask[sel]
    byte = a[live] * buf.elem_bytes
    if byte.size == 0:
        return 0
    # Shifting every address by a multiple of the banks' span changes no bank, so the
    # pattern relative to that is the key: a tile read in a k loop has a few of them.
    arch, access_bytes = state.arch, width * buf.elem_bytes
    span = arch.lds_banks * arch.lds_bank_bytes
    relative = byte - int(byte.min()) // span * span
    key = (arch.lds_banks, arch.lds_bank_bytes, arch.wave_size, access_bytes, relative.tobytes(),
           None if mask is None else live.tobytes())
    extra = _CONFLICTS.get(key)
    if extra is None:
        extra = _conflict_cycles(arch, byte, live, access_bytes)
        if len(_CONFLICTS) >= 4096:
            _CONFLICTS.pop(next(iter(_CONFLICTS)))
        _CONFLICTS[key] = extra
    if extra == 0:
        return 0
    waves_here = int(np.count_nonzero(np.logical_or.reduceat(live, np.arange(0, threads, arch.wave_size))))
    return extra * state.active_counts()[1] // max(1, waves_here)


_CONFLICTS: dict[tuple, int] = {}  # bank-conflict cycles per access pattern (see bank_conflicts)


def _conflict_cycles(arch, byte: np.ndarray, live: np.ndarray, access_bytes: int) -> int:
    """Extra cycles of one workgroup's access: `byte` the live lanes' byte addresses."""
    bank_bytes = arch.lds_bank_bytes
    group = min(arch.wave_size, max(1, arch.lds_banks * bank_bytes // max(access_bytes, bank_bytes)))
    tid = np.arange(live.size, dtype=np.int64)[live]
    per_access = max(1, access_bytes // bank_bytes)
    words = ((byte // bank_bytes)[:, None] + np.arange(per_access)).ravel()
    key = np.repeat(tid // group, per_access)
    banks = words % arch.lds_banks
    slot = key * arch.lds_banks + banks
    order = np.lexsort((words, slot))
    slot, words = slot[order], words[order]
    distinct = np.ones(slot.size, dtype=bool)
    distinct[1:] = (slot[1:] != slot[:-1]) | (words[1:] != words[:-1])
    per_slot = np.bincount(slot[distinct])
    per_group = per_slot.reshape(-1, arch.lds_banks) if per_slot.size % arch.lds_banks == 0 else \
        np.pad(per_slot, (0, -per_slot.size % arch.lds_banks)).reshape(-1, arch.lds_banks)
    cycles = per_group.max(axis=1)
    return int(np.maximum(cycles - 1, 0).sum())


def _uniform_row(state: KernelState, op: Operation, buf: Buffer, indices, width: int) -> int | None:
    """For private memory at a uniform index (the register-tile case): the row of
    `buf.rows` it addresses, bounds-checked; None for any other access."""
    if buf.rows is None:
        return None
    row, last = 0, len(indices) - 1
    for d, (i, n) in enumerate(zip(indices, buf.shape)):
        if isinstance(i, np.ndarray):
            return None
        if not 0 <= i <= n - (width if d == last else 1):
            _check_bounds(state, op, buf, indices, width)  # raises, with the message
        row = row * n + int(i)
    if len(indices) != len(buf.shape):
        _check_bounds(state, op, buf, indices, width)
    return row


def load(state: KernelState, op: Operation, buf: Buffer, indices, width: int):
    """memref.load / vector.load: the value per lane, (L,) or (L, width)."""
    row = _uniform_row(state, op, buf, indices, width)
    if row is None:
        _check_bounds(state, op, buf, indices, width)
    if buf.wgmma is not None and buf.kind == "private":
        _wgmma_access(state, op, buf, indices, width)
    if row is not None:  # a copy: values never change after they are made
        return buf.rows[row].copy() if width == 1 else buf.rows[row : row + width].T.copy()
    _count(state, buf, width, store=False)
    if state.active_counts()[0] == 0:
        return np.zeros((state.lanes.count, width) if width > 1 else state.lanes.count, buf.data.dtype)
    addr = _addresses(state, buf, indices, width)
    _check_aligned(state, op, buf, addr, width)
    if buf.kind == "lds":
        state.stats.lds_bank_conflicts += bank_conflicts(state, buf, addr, width)
        if buf.in_flight is not None:
            check_landed(state, op, buf, *_active(state, addr), "reads")
        if buf.races is not None:
            buf.races.on_read(_Access(state, op, buf, *_active(state, addr)))
    elif buf.kind == "global" and state.order is not None:
        state.order.read(op, buf, *_active_workgroups(state, addr))
    return np.take(buf.data, addr, mode="clip")


def store(state: KernelState, op: Operation, buf: Buffer, indices, value, width: int) -> None:
    """memref.store / vector.store of `value` by the active lanes."""
    row = _uniform_row(state, op, buf, indices, width)
    if row is None:
        _check_bounds(state, op, buf, indices, width)
        _count(state, buf, width, store=True)
    if state.active_counts()[0] == 0:
        return
    if buf.wgmma is not None or (isinstance(value, PendingAcc) and buf.kind == "private"):
        _wgmma_access(state, op, buf, indices, width, value)
    if row is not None:
        target = buf.rows[row] if width == 1 else buf.rows[row : row + width].T
        value = np.broadcast_to(np.asarray(value, dtype=buf.data.dtype), target.shape)
        if state.mask is None:
            target[...] = value
        else:
            np.copyto(target, value, where=state.mask if width == 1 else state.mask[:, None])
        return
    addr = _addresses(state, buf, indices, width)
    _check_aligned(state, op, buf, addr, width)
    if buf.kind == "lds":
        state.stats.lds_bank_conflicts += bank_conflicts(state, buf, addr, width)
        if buf.in_flight is not None:
            check_landed(state, op, buf, *_active(state, addr), "overwrites")
    elif buf.kind == "global" and state.order is not None:
        state.order.write(op, buf, *_active_workgroups(state, addr))
    value = np.broadcast_to(np.asarray(value, dtype=buf.data.dtype), addr.shape)
    if state.mask is not None:
        addr, value = addr[state.mask], value[state.mask]
    if buf.races is None:
        buf.data[addr] = value
        return
    acc = _Access(state, op, buf, *_active_flat(state, addr))
    flat_value = value.reshape(-1)
    buf.races.on_write(acc, buf.data[acc.addr], flat_value)
    buf.data[acc.addr] = flat_value
    buf.races.after_write(acc, buf.data, flat_value)


def _wgmma_access(state: KernelState, op: Operation, buf: Buffer, indices, width: int, value=_LOAD) -> None:
    """A load (value _NONE) or store of elements that a pending wgmma group may hold
    (gemmc.interp.wgmma_async): its accumulators in private memory, the tiles it reads in LDS."""
    lanes = np.flatnonzero(state.active_mask())
    if lanes.size == 0:
        return
    flat = np.broadcast_to(_addresses(state, buf, indices, width), (state.lanes.count,) + ((width,) if width > 1 else ()))[lanes]
    if buf.kind == "lds":
        if value is not _LOAD:
            buf.wgmma.check_write(state, op, buf, flat.reshape(-1), np.repeat(lanes, width))
        return
    if buf.wgmma is None:
        buf.wgmma = AccRegs(value.tracker, buf.data.size)
    if value is _LOAD:
        buf.wgmma.on_load(state, op, buf, flat, lanes)
    else:
        buf.wgmma.on_store(state, op, buf, flat, lanes, value)


def addresses(state: KernelState, op: Operation, buf: Buffer, indices, width: int) -> np.ndarray:
    """Each lane's flat addresses of `width` elements from its indices, (L,) or (L, width),
    bounds-checked on the active lanes (the ops that address memory themselves: ldmatrix, cp.async)."""
    _check_bounds(state, op, buf, indices, width)
    return _addresses(state, buf, indices, width)


def check_landed(state: KernelState, op: Operation, buf: Buffer, addr: np.ndarray, lanes: np.ndarray | None,
                 verb: str) -> None:
    """An access to LDS elements that a cp.async has not yet written (its group not waited for)
    is a race with the copy: an error naming the op, the element and the lane."""
    pending = buf.in_flight[addr] > 0
    if not pending.any():
        return
    i = int(np.argmax(pending))
    lane = i if lanes is None else int(lanes[i])
    if buf.tma_flight is not None and buf.tma_flight[addr[i]] > 0:
        raise InterpError(
            f"{op.name} by {state.where(lane)} {verb} {buf.name}{list(buf.unravel(int(addr[i])))} while a TMA box "
            "into it is in flight (no nvgpu.mbarrier_wait_parity has waited for the mbarrier phase it completes)")
    raise InterpError(
        f"{op.name} by {state.where(lane)} {verb} {buf.name}{list(buf.unravel(int(addr[i])))} while a cp.async "
        "into it is in flight (no nvgpu.device_async_wait has waited for its group, cp.async.wait_group)"
    )


def write_landed(state: KernelState, op: Operation, buf: Buffer, addr: np.ndarray, values: np.ndarray,
                 lanes: np.ndarray) -> None:
    """cp.async's writes landing in LDS (flat `addr`, one per element, written by `lanes`) at a
    wait: stores of those lanes now, as far as races go."""
    if buf.races is None:
        buf.data[addr] = values
        return
    acc = _Access(state, op, buf, addr, lanes)
    buf.races.on_write(acc, buf.data[addr], values)
    buf.data[addr] = values
    buf.races.after_write(acc, buf.data, values)


def atomic_add(state: KernelState, op: Operation, buf: Buffer, indices, value, ufunc=np.add) -> np.ndarray:
    """memref.atomic_rmw addf / addi: every active lane adds its value, lanes that share an element
    one after another (np.add.at rounds each add to the buffer's type, as the hardware does);
    maximumf (`ufunc` np.maximum: a NaN wins, as the HIP's integer max of |x|'s bits makes it).
    Returns each lane's element before its own add (an integer counter's arrivals: the lanes that
    share an element see 0, 1, 2, ... added before them, in lane order); for floats, before the op's."""
    if buf.kind == "lds":
        raise InterpError(f"{op.name} on LDS ({buf.name}) is not supported")
    _check_bounds(state, op, buf, indices, 1)
    _count(state, buf, 1, store=False)
    _count(state, buf, 1, store=True)
    addr = _addresses(state, buf, indices, 1)
    old = np.take(buf.data, addr, mode="clip")
    if state.active_counts()[0] == 0:
        return old
    value = np.broadcast_to(np.asarray(value, dtype=buf.data.dtype), addr.shape)
    if state.mask is not None:
        addr, value = addr[state.mask], value[state.mask]
    active = np.flatnonzero(state.active_mask())
    if state.order is not None:
        state.order.atomic(id(buf), addr, state.lanes.wg_start + state.lanes.wg[active])
    if buf.data.dtype.kind in "iu" and ufunc is np.add:
        old = old.copy()
        for lane, a, v in zip(active.tolist(), addr.tolist(), value.tolist()):
            old[lane] = buf.data[a]
            buf.data[a] += v
        return old
    ufunc.at(buf.data, addr, value)
    return old


def _active_workgroups(state: KernelState, addr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(addresses, workgroup in the launch) of the active lanes, flattened over vector elements."""
    flat, lanes = _active(state, addr)
    lanes = state.lanes.all if lanes is None else lanes
    return flat, state.lanes.wg_start + state.lanes.wg[lanes]


def _active_flat(state: KernelState, addr: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    """Like `_active`, for addresses already restricted to active lanes."""
    if state.mask is None and addr.ndim == 1:
        return addr, None
    lanes = state.lanes.all if state.mask is None else state.lanes.all[state.mask]
    if addr.ndim == 2:
        lanes = np.repeat(lanes, addr.shape[1])
    return addr.reshape(-1), lanes


@register_impls
@dataclass
class MemoryFunctions(InterpreterFunctions):
    """memref and vector memory ops inside kernels."""

    state: KernelState | None = None

    @impl(memref.LoadOp)
    def run_load(self, interp: Interpreter, op: memref.LoadOp, args: PythonValues):
        buf, *indices = args
        return (load(self.state, op, buf, indices, 1),)

    @impl(memref.StoreOp)
    def run_store(self, interp: Interpreter, op: memref.StoreOp, args: PythonValues):
        value, buf, *indices = args
        store(self.state, op, buf, indices, value, 1)
        return ()

    @impl(vector.LoadOp)
    def run_vector_load(self, interp: Interpreter, op: vector.LoadOp, args: PythonValues):
        buf, *indices = args
        return (load(self.state, op, buf, indices, vector_width(op.result.type)),)

    @impl(vector.StoreOp)
    def run_vector_store(self, interp: Interpreter, op: vector.StoreOp, args: PythonValues):
        value, buf, *indices = args
        store(self.state, op, buf, indices, value, vector_width(op.vector.type))
        return ()

    @impl(memref.AtomicRMWOp)
    def run_atomic_rmw(self, interp: Interpreter, op: memref.AtomicRMWOp, args: PythonValues):
        value, buf, *indices = args
        kind = op.kind.value.data
        if kind not in (ATOMIC_ADDF, ATOMIC_ADDI, ATOMIC_MAXIMUMF):
            raise InterpError(f"memref.atomic_rmw of kind {kind}: only addf (0), addi (1) and maximumf (3) are "
                              "supported")
        return (atomic_add(self.state, op, buf, indices, value, np.maximum if kind == ATOMIC_MAXIMUMF else np.add),)

    @impl(FenceOp)
    def run_fence(self, interp: Interpreter, op: FenceOp, args: PythonValues):
        st = self.state
        if st.order is not None and st.active_counts()[0]:
            lanes = np.flatnonzero(st.active_mask())
            st.order.fence(op.ordering.data, st.lanes.wg_start + st.lanes.wg[lanes])
        return ()

    @impl(AssumeRowsAlignedOp)
    def run_assume_rows_aligned(self, interp: Interpreter, op: AssumeRowsAlignedOp, args: PythonValues):
        (buf,) = args
        row, multiple = buf.shape[-1], op.multiple.value.data
        if row % multiple:
            raise InterpError(f"gemm.assume_rows_aligned: {value_name(op.memref)}'s rows of {row} elements are not "
                              f"a multiple of {multiple}: the kernel runs outside what it assumes")
        return ()

    @impl(memref.DimOp)
    def run_dim(self, interp: Interpreter, op: memref.DimOp, args: PythonValues):
        buf, axis = args
        return (np.int64(buf.shape[int(axis)]),)

    @impl(memref.AllocOp)
    def run_alloc(self, interp: Interpreter, op: memref.AllocOp, args: PythonValues):
        return (Buffer.allocate(self.state, op, _alloc_shape(op, args)),)

    @impl(memref.AllocaOp)
    def run_alloca(self, interp: Interpreter, op: memref.AllocaOp, args: PythonValues):
        return (Buffer.allocate(self.state, op, _alloc_shape(op, args)),)

    @impl(memref.DeallocOp)
    def run_dealloc(self, interp: Interpreter, op: memref.DeallocOp, args: PythonValues):
        return ()


def _alloc_shape(op: Operation, args: PythonValues) -> tuple[int, ...]:
    """The static shape, with dynamic sizes (which must be uniform) filled in."""
    sizes = iter(args[: len(op.dynamic_sizes)])
    shape = []
    for n in op.results[0].type.get_shape():
        if n < 0:
            v = next(sizes)
            if np.ndim(v) != 0:
                raise InterpError(f"{op.name} with a size that differs between threads")
            n = int(v)
        shape.append(n)
    return tuple(shape)
