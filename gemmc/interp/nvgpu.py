"""sm_90's fragment loads and asynchronous copies, lane-accurate (nvgpu.mma_sync is in matrix.py).

`nvgpu.ldmatrix`: every lane's indices address one 16-byte row (bounds, 16-byte alignment, races
and bank conflicts are checked and counted as a vector load of 8 16-bit or 16 8-bit elements: a matrix's 8 rows
are one phase of 8 lanes); each warp then hands its lanes what the PTX ISA's fragment table
gives them (gemmc.target.ldmatrix.deliver: row l / 4, columns 2 (l % 4) and + 1 of each
matrix, the transpose with .trans).  A warp needs all its lanes (it is one instruction); the
addresses of lanes past 8 x numTiles are read too (gemmc's lowering gives them valid ones).

`nvgpu.device_async_copy` (cp.async): at issue each active lane reads its source (srcElements
of the dstElements; the rest are zeros), checked like a vector load, and its destination is
checked for bounds and cp-size alignment; the data does not land.  Until it does, reading or
writing those LDS elements is an error (memory.check_landed): a kernel that reads a tile
before waiting for its copies fails here rather than reading stale data by luck.
`nvgpu.device_async_create_group` numbers the lane's copies since its last commit as its next
group; `nvgpu.device_async_wait {numGroups = N}` lands every copy of the lane's groups but
its N most recent, as its stores at that moment (memory.write_landed: other threads see them
only after a gpu.barrier, which the race checks enforce).  A barrier lands nothing, as on the
GPU.  Stats: each cp.async counts as a global load of its whole chunk by every active lane (as
issued, src-size aside, which is how the cost model counts it); the LDS writes, which no
instruction issues, as nothing (as amdgpu.gather_to_lds's).

Hopper's warpgroup MMA (sm_90a).  `nvgpu.wgmma_desc` gives each lane a Descriptor: its buffer, the
byte offset of the indexed element from the buffer's start (gemmc prints wgmma's tiles 1024-byte
aligned, so the 128-byte swizzle's address bits are the offset's) and the op's major-ness, LBO, SBO
and swizzle.  `nvgpu.wgmma_mma_async` needs whole warpgroups (128 consecutive threads, all active)
whose lanes agree on both descriptors; for each it reads A[64 x 16] and B[16 x N] from the shared
buffers where the descriptors say the hardware reads them (gemmc.target.wgmma.element_byte, then the
swizzle: a wrong stride or an unswizzled tile reads other elements), each element checked for a
cp.async still in flight, multiplies in float64 and adds C, placing D by the instruction's lane
layout (gemmc.target.wgmma.d_layout, through `wgmma_instr`), rounded once to f32.  The results are
computed at once, but the op is asynchronous on the GPU until nvgpu.wgmma_wait_group retires its
group (committed by nvgpu.wgmma_commit_group), and gemmc.interp.wgmma_async holds the group to that:
overwriting the tiles it reads (a store, a cp.async) before the group retires, or from another
warpgroup before a barrier after the retiring wait, and reading its accumulators before the wait
(except as the next wgmma's C) are errors.  The fence does nothing here.  Not counted in the stats.
A warpgroup masked off as a whole (warp-specialize's producer) sits the wgmma ops out.

mbarriers and warp-specialize's roles: gemmc.interp.mbarrier (a cp.async lands at the thread's
nvgpu.cp_async_mbarrier_arrive, or at a wait_group, whichever comes first).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from xdsl.interpreter import Interpreter, InterpreterFunctions, PythonValues, impl, register_impls

from gemmc.dialects.nvgpu import (
    DeviceAsyncCopyOp,
    DeviceAsyncCreateGroupOp,
    DeviceAsyncWaitOp,
    LdMatrixOp,
    WgmmaCommitGroupOp,
    WgmmaDescOp,
    WgmmaFenceOp,
    WgmmaMmaAsyncOp,
    WgmmaWaitGroupOp,
)
from gemmc.interp import memory
from gemmc.interp.matrix import operand_map
from gemmc.target import wgmma
from gemmc.interp.common import InterpError
from gemmc.interp.state import KernelState
from gemmc.interp.mbarrier import active_mbarriers
from gemmc.interp.wgmma_async import Tracker
from gemmc.target.ldmatrix import LANES, ROWS, deliver

ROW_BYTES = 16  # an ldmatrix row, a 16-byte cp.async: both need this alignment in shared memory


@dataclass
class _Copies:
    """One cp.async's elements still in flight: flat LDS addresses, values, lane, group (-1: not committed)."""

    op: DeviceAsyncCopyOp
    buf: memory.Buffer
    addr: np.ndarray
    values: np.ndarray
    lanes: np.ndarray
    group: np.ndarray


@dataclass
class _InFlight:
    """The batch's cp.async copies not yet landed, and each lane's count of committed groups."""

    lanes: object
    committed: np.ndarray
    copies: list[_Copies] = field(default_factory=list)


@register_impls
@dataclass
class NvgpuFunctions(InterpreterFunctions):
    """nvgpu.ldmatrix and the cp.async ops inside kernels."""

    state: KernelState | None = None
    _flight: _InFlight | None = None

    def _st(self, op) -> KernelState:
        if self.state is None:
            raise InterpError(f"{op.name} outside a kernel")
        return self.state

    # -- ldmatrix --------------------------------------------------------------------

    @impl(LdMatrixOp)
    def run_ldmatrix(self, interp: Interpreter, op: LdMatrixOp, args: PythonValues):
        st = self._st(op)
        buf, *indices = args
        waves = _whole_warps(st, op)
        width = ROW_BYTES // buf.elem_bytes  # a matrix row: 8 16-bit or 16 8-bit elements
        addr = memory.addresses(st, op, buf, indices, width)
        _check_row_aligned(st, op, buf, addr[:, 0])
        rows = memory.load(st, op, buf, indices, width).reshape(waves, LANES, width)
        tiles = op.tiles
        matrices = rows[:, : ROWS * tiles].reshape(waves, tiles, ROWS, width)
        return (deliver(matrices, op.transpose is not None).reshape(st.lanes.count, width // 4 * tiles),)

    # -- cp.async ----------------------------------------------------------------------

    @impl(DeviceAsyncCopyOp)
    def run_async_copy(self, interp: Interpreter, op: DeviceAsyncCopyOp, args: PythonValues):
        st = self._st(op)
        n_src, n_dst = len(op.srcIndices), len(op.dstIndices)
        src, src_idx = args[0], list(args[1: 1 + n_src])
        dst, dst_idx = args[1 + n_src], list(args[2 + n_src: 2 + n_src + n_dst])
        count = np.broadcast_to(np.asarray(args[-1], dtype=np.int64), (st.lanes.count,))
        width = op.elements
        value = _read_source(st, op, src, src_idx, count, width, dst.data.dtype)
        addr = memory.addresses(st, op, dst, dst_idx, width)
        active = st.active_mask()
        _check_row_aligned(st, op, dst, addr[:, 0], width * dst.elem_bytes)
        lanes = np.flatnonzero(active)
        if lanes.size == 0:
            return ()
        if dst.in_flight is None:
            dst.in_flight = np.zeros(dst.data.size, dtype=np.int32)
        flat = addr[lanes].reshape(-1)
        memory.check_landed(st, op, dst, flat, np.repeat(lanes, width), "overwrites")  # two copies into one element
        if dst.wgmma is not None:  # the copy may land at once: no pending wgmma may read there
            dst.wgmma.check_write(st, op, dst, flat, np.repeat(lanes, width))
        mb = active_mbarriers(st)
        if mb is not None:
            if dst.wgmma is None:
                mb.check_write(st, op, dst, flat, np.repeat(lanes, width))
            mb.on_copy(st, op, dst, flat, np.repeat(lanes, width))
        np.add.at(dst.in_flight, flat, 1)
        self._in_flight(st).copies.append(_Copies(op, dst, flat, value[lanes].reshape(-1), np.repeat(lanes, width),
                                                  np.full(flat.size, -1, dtype=np.int64)))
        return ()

    @impl(DeviceAsyncCreateGroupOp)
    def run_create_group(self, interp: Interpreter, op, args: PythonValues):
        st = self._st(op)
        flight, active = self._in_flight(st), st.active_mask()
        for c in flight.copies:
            sel = (c.group < 0) & active[c.lanes]
            c.group[sel] = flight.committed[c.lanes[sel]]
        flight.committed = flight.committed + active
        return ()

    @impl(DeviceAsyncWaitOp)
    def run_wait(self, interp: Interpreter, op: DeviceAsyncWaitOp, args: PythonValues):
        st = self._st(op)
        flight, active = self._in_flight(st), st.active_mask()
        keep = []
        for c in flight.copies:
            done = (c.group >= 0) & active[c.lanes] & (c.group < flight.committed[c.lanes] - op.groups)
            if done.any():
                np.subtract.at(c.buf.in_flight, c.addr[done], 1)
                memory.write_landed(st, c.op, c.buf, c.addr[done], c.values[done], c.lanes[done])
                c = _Copies(c.op, c.buf, c.addr[~done], c.values[~done], c.lanes[~done], c.group[~done])
            if c.addr.size:
                keep.append(c)
        flight.copies = keep
        return ()

    def _in_flight(self, st: KernelState) -> _InFlight:
        """The batch's copies in flight (a new batch of workgroups starts with none)."""
        if self._flight is None or self._flight.lanes is not st.lanes:
            self._flight = _InFlight(st.lanes, np.zeros(st.lanes.count, dtype=np.int64))
        st.land_copies = self._land
        return self._flight

    def _land(self, st: KernelState, op, active: np.ndarray) -> None:
        """Every copy of the active lanes lands now (cp.async.mbarrier.arrive: committed or not)."""
        flight = self._in_flight(st)
        keep = []
        for c in flight.copies:
            done = active[c.lanes]
            if done.any():
                np.subtract.at(c.buf.in_flight, c.addr[done], 1)
                memory.write_landed(st, c.op, c.buf, c.addr[done], c.values[done], c.lanes[done])
                c = _Copies(c.op, c.buf, c.addr[~done], c.values[~done], c.lanes[~done], c.group[~done])
            if c.addr.size:
                keep.append(c)
        flight.copies = keep


@dataclass(frozen=True)
class Descriptor:
    """A wgmma matrix descriptor as the interpreter holds it, per lane."""

    buf: memory.Buffer
    start: np.ndarray  # byte offset of the matrix's first element from the buffer's start, per lane
    base: np.ndarray  # the lane's instance of the buffer (its workgroup's), flat element index
    major: str
    lbo: int
    sbo: int
    swizzle: int


def wgmma_instr(st: KernelState, op: WgmmaMmaAsyncOp):
    """The instruction an nvgpu.wgmma_mma_async is (its D layout places the results)."""
    instr = op.instr_on(st.arch)
    if instr is None:
        raise InterpError(f"{op.name}: {st.arch.name} has no wgmma m{op.shape[0]}n{op.shape[1]}k{op.shape[2]}")
    return instr


@register_impls
@dataclass
class WgmmaFunctions(InterpreterFunctions):
    """The warpgroup MMA ops inside kernels (module docstring)."""

    state: KernelState | None = None
    _groups: Tracker | None = None

    def _st(self, op) -> KernelState:
        if self.state is None:
            raise InterpError(f"{op.name} outside a kernel")
        return self.state

    def _tracker(self, st: KernelState) -> Tracker:
        """The batch's wgmma groups (a new batch of workgroups starts with none)."""
        if self._groups is None or self._groups.lanes is not st.lanes:
            self._groups = Tracker(st.lanes)
        st.wgmma_tracker = self._groups
        return self._groups

    @impl(WgmmaDescOp)
    def run_desc(self, interp: Interpreter, op: WgmmaDescOp, args: PythonValues):
        st = self._st(op)
        buf, *indices = args
        addr = np.broadcast_to(memory.addresses(st, op, buf, indices, 1), (st.lanes.count,))
        base = np.broadcast_to(np.asarray(buf.base, dtype=np.int64), (st.lanes.count,))
        major, lbo, sbo, swizzle = op.fields
        return (Descriptor(buf, (addr - base) * buf.elem_bytes, base, major, lbo, sbo, swizzle),)

    @impl(WgmmaMmaAsyncOp)
    def run_mma_async(self, interp: Interpreter, op: WgmmaMmaAsyncOp, args: PythonValues):
        st = self._st(op)
        da, db, c = args
        instr = wgmma_instr(st, op)
        groups = _whole_groups(st, op, wgmma.WARPGROUP)
        sel = _active_groups(st, groups)
        c = np.asarray(c).reshape(groups, wgmma.WARPGROUP, -1)
        out = c.copy()
        m, n, k = op.shape
        tracker = self._tracker(st)
        a_mat = _operand(st, op, da, groups, m, k, outer_rows=True, tracker=tracker, sel=sel)  # (G', m, k)
        b_mat = _operand(st, op, db, groups, n, k, outer_rows=False, tracker=tracker, sel=sel)  # (G', k, n)
        dm = operand_map(instr.d, 1, m, n)
        d_lane, d_item = dm.lane[0, 0], dm.item[0, 0]  # (m, n)
        acc = c[sel][:, d_lane, d_item].astype(np.float64) + a_mat @ b_mat
        part = out[sel]
        part[:, d_lane, d_item] = acc.astype(np.float32)
        out[sel] = part
        st.stats.matrix_instrs += len(sel) * (wgmma.WARPGROUP // st.arch.wave_size)  # per warp, as the cost model counts
        st.stats.flops += len(sel) * 2 * m * n * k
        return (tracker.result(out.reshape(st.lanes.count, -1)),)

    @impl(WgmmaFenceOp)
    def run_fence(self, interp: Interpreter, op, args: PythonValues):
        _whole_groups(self._st(op), op, wgmma.WARPGROUP)
        return ()

    @impl(WgmmaCommitGroupOp)
    def run_commit(self, interp: Interpreter, op, args: PythonValues):
        st = self._st(op)
        _whole_groups(st, op, wgmma.WARPGROUP)
        self._tracker(st).commit(st.active_mask())
        return ()

    @impl(WgmmaWaitGroupOp)
    def run_wait_group(self, interp: Interpreter, op, args: PythonValues):
        st = self._st(op)
        _whole_groups(st, op, wgmma.WARPGROUP)
        self._tracker(st).wait(st, op.groups, st.active_mask())
        return ()


def _active_groups(st: KernelState, groups: int) -> np.ndarray:
    """The warpgroups that run the op (all lanes active; _whole_groups refused partial ones)."""
    if st.mask is None:
        return np.arange(groups)
    return np.flatnonzero(st.mask.reshape(groups, -1).all(axis=1))


def _operand(st: KernelState, op, d: Descriptor, groups: int, outer: int, k: int, outer_rows: bool,
             tracker: Tracker, sel: np.ndarray | None = None) -> np.ndarray:
    """A (G, outer, k) or B (G, k, outer) of each active warpgroup (`sel`), read from shared memory as its
    descriptor says."""
    if not isinstance(d, Descriptor):
        raise InterpError(f"{op.name} takes descriptors made by nvgpu.wgmma_desc")
    if d.swizzle != wgmma.SWIZZLE_BYTES:
        raise InterpError(f"{op.name}: the interpreter reads the 128-byte swizzle alone, not {d.swizzle}")
    if sel is None:
        sel = np.arange(groups)
    start, base = d.start.reshape(groups, -1)[sel], d.base.reshape(groups, -1)[sel]
    groups = sel.size
    if (start != start[:, :1]).any() or (base != base[:, :1]).any():
        g = int(sel[int(np.argmax((start != start[:, :1]).any(axis=1)))])
        raise InterpError(f"{op.name}: the lanes of warpgroup {g} pass different descriptors (each is one matrix)")
    o, kk = np.meshgrid(np.arange(outer), np.arange(k), indexing="ij")  # (outer, k)
    rel = wgmma.swizzle(start[:, :1, None] + wgmma.element_byte(d.major, o, kk, d.lbo, d.sbo, d.buf.elem_bytes))
    if (rel % d.buf.elem_bytes).any():
        raise InterpError(f"{op.name}: a descriptor of {d.buf.name} addresses a split element")
    addr = base[:, :1, None] + rel // d.buf.elem_bytes  # (G, outer, k)
    size = d.buf.size
    bad = (rel < 0) | (rel // d.buf.elem_bytes >= size)
    if bad.any():
        g, i, j = (int(x[0]) for x in np.nonzero(bad))
        g = int(sel[g])
        raise InterpError(f"{op.name}: warpgroup {g} reads element ({i}, {j}) of its operand at byte {int(rel[g, i, j])} "
                          f"of {d.buf.name}, past its {size * d.buf.elem_bytes} bytes")
    if d.buf.in_flight is not None:
        lanes = np.repeat(sel.astype(np.int64) * wgmma.WARPGROUP, outer * k)
        memory.check_landed(st, op, d.buf, addr.reshape(-1), lanes, "reads")
    tracker.issue_reads(st, op, d.buf, addr.reshape(groups, -1), sel)
    values = d.buf.data[addr].astype(np.float64)
    return values if outer_rows else np.swapaxes(values, 1, 2)


def _whole_groups(st: KernelState, op, size: int) -> int:
    """The batch's groups of `size` threads (warpgroups); one with some lanes masked off is an error."""
    ln = st.lanes
    if ln.threads % size:
        raise InterpError(f"{op.name} needs whole warpgroups of {size} threads; the workgroup has {ln.threads}")
    groups = ln.count // size
    if st.mask is not None:
        per = st.mask.reshape(groups, size)
        if (per.any(axis=1) & ~per.all(axis=1)).any() or not per.any():
            lane = int(np.argmax(~st.mask))
            raise InterpError(f"{op.name} in divergent control flow: {st.where(lane)} is masked off "
                              "(a warpgroup instruction runs on all 128 threads)")
    return groups


def _whole_warps(st: KernelState, op) -> int:
    """The warps of the batch; a warp with some lanes masked off is an error (one instruction)."""
    ln, wave = st.lanes, st.arch.wave_size
    if ln.threads % wave or wave != LANES:
        raise InterpError(f"{op.name} needs whole warps of {LANES}; the workgroup has {ln.threads} threads")
    waves = ln.count // wave
    if st.mask is not None:
        per_wave = st.mask.reshape(waves, wave)
        partial = per_wave.any(axis=1) & ~per_wave.all(axis=1)
        if partial.any():
            w = int(np.argmax(partial))
            lane = w * wave + int(np.argmax(~per_wave[w]))
            raise InterpError(f"{op.name} in divergent control flow: {st.where(lane)} is masked off while "
                              "other lanes of its warp run it")
    return waves


def _check_row_aligned(st: KernelState, op, buf: memory.Buffer, first: np.ndarray, bytes_: int = ROW_BYTES) -> None:
    """Each active lane's shared-memory address is a multiple of `bytes_` from its buffer's start
    (gemmc prints shared buffers 16-byte aligned)."""
    offset = (first - np.broadcast_to(buf.base, first.shape)) * buf.elem_bytes
    bad = (offset % bytes_ != 0) & st.active_mask()
    if bad.any():
        lane = st.first_active_lane(bad)
        raise InterpError(f"misaligned {op.name} of {buf.name}: byte {int(offset[lane])} of it is not a multiple of "
                          f"{bytes_} ({st.where(lane)})")


def _read_source(st: KernelState, op, src: memory.Buffer, idx: list, count: np.ndarray, width: int,
                 dtype) -> np.ndarray:
    """Each lane's `width` elements: the first `count` read from global memory (a whole vector
    where count >= width, element by element where fewer), zeros after them."""
    active = st.active_mask()
    out = np.zeros((st.lanes.count, width), dtype=dtype)
    stats = st.stats
    issued = (stats.global_load_instrs + st.active_counts()[1],
              stats.global_load_bytes + st.active_counts()[0] * width * src.elem_bytes)
    whole = active & (count >= width)
    with st.masked(whole):
        if whole.any():
            out[whole] = memory.load(st, op, src, idx, width)[whole]
    part = active & (count > 0) & (count < width)
    for e in range(width - 1):
        lanes = part & (count > e)
        if lanes.any():
            with st.masked(lanes):
                out[lanes, e] = memory.load(st, op, src, idx[:-1] + [idx[-1] + e], 1)[lanes]
    stats.global_load_instrs, stats.global_load_bytes = issued  # as issued: every lane's chunk, src-size aside
    return out
