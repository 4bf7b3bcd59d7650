"""What a kernel executes, counted from its IR for the whole launch, without running it.

For every op of the gpu.func: how many wave instructions it issues (a wave whose lanes
are all masked off by its scf.if guards issues nothing, as on hardware), counted over
representative workgroups and sampled loop iterations (gemmc.cost.lanes) and weighted
back to the whole grid.  Memory accesses also get what the address of every lane implies:
cache lines per wave instruction (coalescing) for global memory, cycles with bank
conflicts for LDS, and how many IR accesses the compiler merges into one instruction
(consecutive elements along an unrolled loop become dwordx4 / ds_read_b128, two
dwords at a constant distance become ds_read2_b32).

The IR-level counters follow the interpreter's Stats exactly (tests compare them at small
sizes); `issued` counts are what the model times.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from xdsl.dialects import arith, gpu, math, memref, scf, vector
from xdsl.dialects.builtin import IntegerType, MemRefType, VectorType
from xdsl.ir import Operation

from gemmc.target.arch import Arch
from gemmc.cost import banks
from gemmc.cost.kernel import KernelIR
from gemmc.cost.lanes import LaneEvaluator, loops_of
from gemmc.interp.common import valu_instrs
from gemmc.support.arith_semantics import MATH_VALU_INSTRS
from gemmc.support.ir_names import LDS_SPACE, PRIVATE_SPACE, ROLE_ATTR, ROLE_FIXUP, memory_space
from gemmc.target.resources import ELEMENT_BYTES, global_bytes, lane_bytes

DS_READ2_MAX_BYTES = 255 * 4  # ds_read2_b32 reaches two dwords up to 255 dwords apart
GATHER_TO_LDS = "amdgpu.gather_to_lds"  # global_load_lds: a global load whose data lands in LDS
ASYNC_COPY = "nvgpu.device_async_copy"  # cp.async (sm_90): likewise, each lane's 16 bytes where it says
TMA_LOAD = "nvgpu.tma_load"  # one thread's TMA box (sm_90a): L2 to shared memory by the SM's TMA unit
TO_LDS = (GATHER_TO_LDS, ASYNC_COPY, TMA_LOAD)
LDMATRIX = "nvgpu.ldmatrix"  # each lane reads one 16-byte row of a warp's 8x8 matrices: an LDS vector load
UNROLL_LIMIT = 64  # loops up to this trip count are taken as fully unrolled by the compiler

_FLOAT_BINARY = (arith.AddfOp, arith.SubfOp, arith.MulfOp, arith.DivfOp, arith.MaximumfOp,
                 arith.MinimumfOp, arith.MaxnumfOp, arith.MinnumfOp)
_INT_BINARY = (arith.AddiOp, arith.SubiOp, arith.MuliOp, arith.DivUIOp, arith.DivSIOp, arith.FloorDivSIOp,
               arith.CeilDivUIOp, arith.CeilDivSIOp, arith.RemUIOp, arith.RemSIOp, arith.MinUIOp,
               arith.MinSIOp, arith.MaxUIOp, arith.MaxSIOp, arith.AndIOp, arith.OrIOp, arith.XOrIOp,
               arith.ShLIOp, arith.ShRUIOp, arith.ShRSIOp, arith.CmpiOp)
_VALU_NO_FLOP = (arith.CmpfOp, arith.ExtFOp, arith.TruncFOp, arith.SIToFPOp, arith.UIToFPOp, arith.FPToSIOp,
                 math.RoundEvenOp)


def valu_flops_per_lane(op: Operation) -> int | None:
    """Float ops per lane and vector element of a VALU op (the interpreter's rule), else None."""
    if isinstance(op, (math.FmaOp, vector.FMAOp)):
        return 2
    if isinstance(op, _FLOAT_BINARY) or isinstance(op, (arith.NegfOp, math.AbsFOp, math.SqrtOp)):
        return 1
    if type(op) in MATH_VALU_INSTRS:
        return 1
    if isinstance(op, _VALU_NO_FLOP):
        return 0
    return None


def is_integer_mac(op: Operation) -> bool:
    """An integer GEMM's multiply-add on the VALU: a muli of integer (not index) values, or the
    addi accumulating one; each a VALU instruction (clang may fuse the pair into one
    v_mad_*32_*24, since 8-bit operands fit 24 bits: counting both is the conservative side).
    Index arithmetic is `index`-typed in gemmc's kernels, so it is not counted here."""
    if isinstance(op, arith.MuliOp):
        return isinstance(op.results[0].type, IntegerType) or (
            isinstance(op.results[0].type, VectorType) and isinstance(op.results[0].type.element_type, IntegerType))
    if isinstance(op, arith.AddiOp):
        return any(isinstance(getattr(x, "op", None), arith.MuliOp) and is_integer_mac(x.op) for x in op.operands)
    return False


def is_matrix_op(op: Operation) -> bool:
    return op.name.startswith(("amdgpu.mfma", "amdgpu.wmma", "amdgpu.scaled_mfma", "nvgpu.mma_sync", "nvgpu.wgmma_mma_async"))


@dataclass
class Access:
    """One memref/vector load or store of the kernel and what it costs."""

    op: Operation
    space: str  # "global" or "lds"
    store: bool
    width: int  # elements per lane in the IR
    elem_bytes: float  # in its memory space: FP4 and FP6 are packed in global memory (global_bytes)
    instrs: float = 0.0  # IR wave instructions over the launch
    lanes: float = 0.0
    merge: int = 1  # IR accesses per issued instruction
    contiguous: bool = False  # merged into one wider access (else paired, ds_read2)
    lines: float = 0.0  # global: cache lines per issued wave instruction
    cycles: float = 0.0  # LDS: cycles per issued wave instruction, with conflicts
    ideal_cycles: float = 0.0  # LDS: the same without conflicts
    ir_cycles: float = 0.0  # LDS: cycles of one IR access (before merging), per wave
    ir_ideal: float = 0.0
    role: str | None = None
    arg: int | None = None  # global: index of the kernel argument accessed

    @property
    def bytes(self) -> float:
        return self.lanes * lane_bytes(self.width, self.elem_bytes)

    @property
    def issued(self) -> float:
        return self.instrs / self.merge

    @property
    def degree(self) -> float:
        return self.cycles / self.ideal_cycles if self.ideal_cycles else 1.0

    @property
    def extra_cycles(self) -> float:
        """Cycles lost to bank conflicts over the launch."""
        return self.issued * max(0.0, self.cycles - self.ideal_cycles)


@dataclass
class Counts:
    """IR-level counters (as gemmc.interp.Stats) and the accesses behind them."""

    workgroups: int = 0
    threads: int = 0
    waves: int = 0
    global_load_instrs: float = 0.0
    global_load_bytes: float = 0.0
    global_store_instrs: float = 0.0
    global_store_bytes: float = 0.0
    lds_load_instrs: float = 0.0
    lds_load_bytes: float = 0.0
    lds_store_instrs: float = 0.0
    lds_store_bytes: float = 0.0
    lds_bank_conflicts: float = 0.0  # extra LDS cycles, over the IR's accesses
    barriers: float = 0.0  # per workgroup
    valu_instrs: float = 0.0
    valu_slots: float = 0.0  # lane-slots: instructions times vector width
    valu_int_instrs: float = 0.0
    flops: float = 0.0
    matrix_instrs: float = 0.0
    matrix_cycles: float = 0.0
    accesses: list[Access] = field(default_factory=list)

    def stats_dict(self) -> dict[str, int]:
        """The counters the interpreter's Stats also has, rounded."""
        keys = ("workgroups", "threads", "global_load_instrs", "global_load_bytes", "global_store_instrs",
                "global_store_bytes", "lds_load_instrs", "lds_load_bytes", "lds_store_instrs",
                "lds_store_bytes", "lds_bank_conflicts", "barriers", "valu_instrs", "valu_int_instrs",
                "flops", "matrix_instrs")
        return {k: int(round(getattr(self, k))) for k in keys}

    def issued(self, space: str, store: bool | None = None) -> float:
        return sum(a.issued for a in self.accesses if a.space == space and (store is None or a.store == store))


# -- the walk ------------------------------------------------------------------------------


def count(k: KernelIR, arch: Arch) -> Counts:
    """Every counter of the kernel over its whole launch."""
    ctx = _Context(k, arch)
    c = Counts(workgroups=k.grid.workgroups, threads=k.grid.workgroups * k.grid.threads,
               waves=k.grid.workgroups * ctx.waves_per_wg)
    for op in k.kernel.walk():
        if op is k.kernel:
            continue
        _count_op(ctx, c, op)
    return c


def _count_op(ctx: _Context, c: Counts, op: Operation) -> None:
    access = _access_of(op)
    if access is not None:
        space, store, width, eb = access
        if space == "private":
            return
        a = Access(op, space, store, width, eb, role=_role(op), arg=_arg_index(ctx.k, op))
        a.instrs, a.lanes = ctx.executions(op)
        if a.instrs > 0:
            ctx.analyze_box(a) if op.name == TMA_LOAD else ctx.analyze(a)
        c.accesses.append(a)
        if op.name in TO_LDS:  # its LDS side, counted as conflict-free (gather: lane k writes slot k)
            w = Access(op, "lds", True, a.width, a.elem_bytes, a.instrs, a.lanes, role=a.role)
            lanes = 1 if op.name == TMA_LOAD else ctx.arch.wave_size  # a box is one lane's
            w.cycles = w.ideal_cycles = w.ir_cycles = w.ir_ideal = max(
                1.0, lanes * a.width * a.elem_bytes / ctx.arch.lds_bytes_per_clk)
            c.accesses.append(w)
        kind = f"{space}_{'store' if store else 'load'}"
        setattr(c, f"{kind}_instrs", getattr(c, f"{kind}_instrs") + a.instrs)
        setattr(c, f"{kind}_bytes", getattr(c, f"{kind}_bytes") + a.bytes)
        if space == "lds":
            c.lds_bank_conflicts += a.instrs * max(0.0, a.ir_cycles - a.ir_ideal)
        return
    if isinstance(op, gpu.BarrierOp):
        c.barriers += ctx.executions(op, per_workgroup=True)[0]
        return
    fpl = valu_flops_per_lane(op)
    if fpl is not None:
        instrs, lanes = ctx.executions(op)
        instrs *= valu_instrs(op, ctx.arch)  # exp, tanh, erf, a software FP8 conversion: their expansions
        w = _vector_width(op.results[0].type) if op.results else 1
        c.valu_instrs += instrs
        c.valu_slots += instrs * w
        c.flops += lanes * w * fpl
        return
    if is_integer_mac(op):
        instrs, _ = ctx.executions(op)
        w = _vector_width(op.results[0].type)
        c.valu_instrs += instrs
        c.valu_slots += instrs * w
        return
    if isinstance(op, _INT_BINARY) and ctx.per_lane(op):
        c.valu_int_instrs += ctx.executions(op)[0]
        return
    if is_matrix_op(op):
        instrs, _ = ctx.executions(op)
        c.matrix_instrs += instrs
        c.matrix_cycles += instrs * _matrix_cycles(op, ctx.arch)


# -- per-op analysis -------------------------------------------------------------------------


class _Context:
    def __init__(self, k: KernelIR, arch: Arch):
        self.k, self.arch = k, arch
        self.ev = k.evaluator()
        self.waves_per_wg = -(-k.grid.threads // arch.wave_size)
        self.block_w = k.grid.block_weights()
        self._executions: dict[tuple[int, bool], tuple[float, float]] = {}

    # -- guards and executions --

    def guards(self, op: Operation) -> list[tuple[scf.IfOp, bool]]:
        out = []
        child, p = op, op.parent_op()
        while p is not None and p is not self.k.kernel:
            if isinstance(p, scf.IfOp):
                out.append((p, child.parent_region() is p.true_region))
            child, p = p, p.parent_op()
        return out[::-1]

    def mask(self, op: Operation) -> np.ndarray | None:
        """Lanes (and sampled iterations) where op runs: the AND of its guards; None = all."""
        m = None
        for if_op, then in self.guards(op):
            cond = self.ev.value(if_op.cond)
            if cond is None:
                continue
            cond = cond.astype(bool) if then else ~cond.astype(bool)
            m = cond if m is None else (m & cond)
        return m

    def _fixup_share(self, guards) -> float:
        """Under stream-k's fix-up branch (gemm.role = "fixup"), taken by the last of a shared tile's
        contributors, which the counter decides at run time: 1 / contributors of the executions of
        every contributor, whose representative workgroups cannot tell which one that is."""
        for if_op, then in guards:
            cond = if_op.cond.owner
            if then and _own_role(if_op) == ROLE_FIXUP and isinstance(cond, arith.CmpiOp):
                others = self.ev.value(cond.rhs)  # contributors - 1
                if others is not None:
                    return 1.0 / (float(np.mean(others)) + 1.0)
        return 1.0

    def executions(self, op: Operation, per_workgroup: bool = False) -> tuple[float, float]:
        """(wave instructions, active lanes) of op over the launch; with per_workgroup,
        (workgroup executions, lanes).  The same for every op of a block (its loops and guards are the
        block's), so computed once per block: an unrolled loop body holds thousands."""
        key = (id(op.parent_block()), per_workgroup)
        if key not in self._executions:
            self._executions[key] = self._block_executions(op, per_workgroup)
        return self._executions[key]

    def _block_executions(self, op: Operation, per_workgroup: bool) -> tuple[float, float]:
        loops = loops_of(op, self.k.kernel)
        guards = self.guards(op)
        outer_depth = len(loops_of(guards[-1][0], self.k.kernel)) if guards else 0
        inner = 1.0
        for lp in loops[outer_depth:]:
            inner *= self.ev.samples(lp).trip
        outer = loops[:outer_depth]
        m = self.mask(op)
        shape = self._shape(outer)
        m = np.ones(shape, dtype=bool) if m is None else np.broadcast_to(m, _bshape(m.shape, shape))
        m = _trim(m, 3 + len(outer))
        m = np.broadcast_to(m, shape)
        weights = self._weights(outer)
        t = m.shape[2]
        lanes = m.sum(axis=2)
        unit = t if per_workgroup else self.arch.wave_size
        groups = -(-t // unit)
        pad = groups * unit - t
        mm = np.moveaxis(m, 2, -1)
        if pad:
            mm = np.concatenate([mm, np.zeros(mm.shape[:-1] + (pad,), dtype=bool)], axis=-1)
        active = mm.reshape(mm.shape[:-1] + (groups, unit)).any(axis=-1).sum(axis=-1)
        share = self._fixup_share(guards)
        return float((active * weights).sum() * inner * share), float((lanes * weights).sum() * inner * share)

    def _shape(self, loops) -> tuple[int, ...]:
        bw = self.block_w
        return (bw.shape[0], bw.shape[1], self.k.grid.threads) + tuple(
            len(self.ev.samples(lp).index) for lp in loops)

    def _weights(self, loops) -> np.ndarray:
        w = self.block_w
        for lp in loops:
            w = np.multiply.outer(w, self.ev.samples(lp).weight)
        return w

    def per_lane(self, op: Operation) -> bool:
        v = self.ev.value(op.results[0])
        return v is not None and v.shape[2] > 1

    # -- accesses --

    def addresses(self, a: Access, ev: LaneEvaluator | None = None) -> np.ndarray | None:
        """Element offset of each lane's access, shape (ny, nx, T, iterations...)."""
        return element_offsets(self.k, ev or self.ev, a.op)

    def analyze_box(self, a: Access) -> None:
        """A TMA box (nvgpu.tma_load): the cache lines its rows take from L2, each row of the box's columns at
        the issuing lane's origin plus a row of the source, counted in the L2's sectors (Arch.l2_sector_bytes,
        32 bytes on sm_90; a line where it has none) as lines' worth: the TMA unit asks the L2 for the box's
        bytes, past the L1, so a row that starts mid-line takes its sectors, not two whole lines."""
        rows, cols = a.op.box_shape
        addr = self.addresses(a)
        row_elems = self.k.dim_of(a.op.operands[0], 1)
        line, row_bytes = self.arch.l2_sector_bytes or self.arch.cache_line_bytes, cols * a.elem_bytes
        to_lines = line / self.arch.cache_line_bytes
        if addr is None or row_elems is None:
            a.lines = rows * -(-row_bytes // line) * to_lines
            return
        live = self.mask(a.op)
        if live is not None:
            addr, live = np.broadcast_arrays(addr, live)
            addr = addr[live] if live.any() else addr
        origins = np.asarray(addr).ravel()
        start = (np.unique(origins)[:, None] + np.arange(rows)[None, :] * row_elems) * a.elem_bytes
        a.lines = float(np.mean(((start + row_bytes - 1) // line - start // line + 1).sum(axis=1))) * to_lines

    def analyze(self, a: Access) -> None:
        addr = self.addresses(a)
        if addr is None:
            a.lines = float(a.width * a.elem_bytes * self.arch.wave_size) / self.arch.cache_line_bytes
            a.cycles = a.ideal_cycles = a.ir_cycles = a.ir_ideal = 1.0
            return
        loops = loops_of(a.op, self.k.kernel)
        a.merge, a.contiguous = self._merge(a, addr, loops)
        eff_bytes = a.width * a.elem_bytes * (a.merge if a.contiguous else 1)
        byte_addr, live, weights = self._waves(a, addr, loops)
        if a.space == "global":
            lines = touched_lines(byte_addr, live, eff_bytes, self.arch.cache_line_bytes)
            a.lines = _weighted_mean(lines, live.any(axis=1), weights)
        else:
            res = banks.wave_cycles(byte_addr, live, eff_bytes, self.arch)
            pairs = 1 if a.contiguous else a.merge
            a.cycles = pairs * _weighted_mean(res.cycles, live.any(axis=1), weights)
            a.ideal_cycles = pairs * _weighted_mean(res.ideal, live.any(axis=1), weights)
            if a.merge == 1:
                a.ir_cycles, a.ir_ideal = a.cycles, a.ideal_cycles
            else:
                r1 = banks.wave_cycles(byte_addr, live, a.width * a.elem_bytes, self.arch)
                a.ir_cycles = _weighted_mean(r1.cycles, live.any(axis=1), weights)
                a.ir_ideal = _weighted_mean(r1.ideal, live.any(axis=1), weights)

    def _waves(self, a: Access, addr: np.ndarray, loops) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per (workgroup sample, iteration sample, wave): lane byte addresses, live lanes, weight."""
        shape = self._shape(loops)
        addr = np.broadcast_to(_trim(np.broadcast_to(addr, _bshape(addr.shape, shape)), len(shape)), shape)
        m = self.mask(a.op)
        m = np.ones(shape, dtype=bool) if m is None else np.broadcast_to(
            _trim(np.broadcast_to(m, _bshape(m.shape, shape)), len(shape)), shape)
        w = np.broadcast_to(self._weights(loops)[:, :, None], shape)
        t, ws = shape[2], self.arch.wave_size
        groups = -(-t // ws)
        pad = groups * ws - t
        byte = np.moveaxis(addr * a.elem_bytes, 2, -1)
        live = np.moveaxis(m, 2, -1)
        wt = np.moveaxis(w, 2, -1)[..., 0]
        if pad:
            byte = np.concatenate([byte, np.zeros(byte.shape[:-1] + (pad,), dtype=byte.dtype)], axis=-1)
            live = np.concatenate([live, np.zeros(live.shape[:-1] + (pad,), dtype=bool)], axis=-1)
        byte = byte.reshape(-1, ws)
        live = live.reshape(-1, ws)
        wt = np.repeat(wt.reshape(-1), groups)
        return byte, live, wt

    def _merge(self, a: Access, addr: np.ndarray, loops) -> tuple[int, bool]:
        """How many IR accesses the compiler issues as one instruction, and whether as one
        wider access: consecutive elements along an unrolled enclosing loop (innermost
        first, up to the first loop too long to unroll fully) merge into up to 16 bytes;
        otherwise two LDS dwords at a constant distance along the innermost loop pair up
        (ds_read2).  An scf.if between the loop and the access stops both."""
        guard_loops = {id(lp) for g, _ in self.guards(a.op) for lp in loops_of(g, self.k.kernel)}
        access = a.width * a.elem_bytes
        pair = 1
        for depth in range(len(loops) - 1, -1, -1):
            lp = loops[depth]
            if any(id(x) in guard_loops for x in loops[depth:]) or self._guarded_inside(a.op, lp):
                break
            stride = self._stride(addr, lp, depth)
            s = self.ev.samples(lp)
            if stride is None or s.trip < 2:
                if s.trip > UNROLL_LIMIT:
                    break
                continue
            stride *= a.elem_bytes
            if stride == access:
                f = 1
                while f * 2 * access <= 16 and s.trip % (f * 2) == 0:
                    f *= 2
                if a.space == "lds" and f > 1:
                    start = np.take(addr, 0, axis=3 + depth) * a.elem_bytes
                    while f > 1 and np.any(start % (f * access)):
                        f //= 2
                if f > 1:
                    return f, True
            elif (depth == len(loops) - 1 and a.space == "lds" and not a.store and access in (4, 8)
                  and 0 < abs(stride) <= DS_READ2_MAX_BYTES and s.trip % 2 == 0):
                pair = 2
            if s.trip > UNROLL_LIMIT:
                break
        return pair, False

    def _guarded_inside(self, op: Operation, loop: scf.ForOp) -> bool:
        p = op.parent_op()
        while p is not None and p is not loop:
            if isinstance(p, scf.IfOp):
                return True
            p = p.parent_op()
        return False

    def _stride(self, addr: np.ndarray, loop: scf.ForOp, depth: int) -> int | None:
        """Elements the address moves per iteration of `loop`, if the same for every lane."""
        s = self.ev.samples(loop)
        axis = 3 + depth
        if len(s.index) < 2 or s.index[1] - s.index[0] != 1 or addr.ndim <= axis or addr.shape[axis] < 2:
            return None
        step = np.take(addr, 1, axis=axis) - np.take(addr, 0, axis=axis)
        if step.size == 0 or not np.all(step == step.ravel()[0]) or step.ravel()[0] == 0:
            return None
        return int(step.ravel()[0])


# -- helpers ------------------------------------------------------------------------------------


def _bshape(have: tuple[int, ...], want: tuple[int, ...]) -> tuple[int, ...]:
    """`have` padded with trailing 1s to at least len(want), for broadcasting."""
    return have if len(have) >= len(want) else have + (1,) * (len(want) - len(have))


def _trim(x: np.ndarray, ndim: int) -> np.ndarray:
    """Drop trailing axes beyond `ndim`: loop axes of loops the value does not vary in."""
    while x.ndim > ndim:
        x = x[..., 0]
    return x


def _weighted_mean(values: np.ndarray, live_rows: np.ndarray, weights: np.ndarray) -> float:
    w = weights * live_rows
    total = float(w.sum())
    return float((values * w).sum()) / total if total else 0.0


def element_offsets(k: KernelIR, ev: LaneEvaluator, op: Operation) -> np.ndarray | None:
    """Row-major element offset of each sampled lane's access by `op`; None when a size or
    an index is not known."""
    mem, idx = memref_and_indices(op)
    shape = [k.dim_of(mem, i) for i in range(mem.type.get_num_dims())]
    if any(s is None for s in shape):
        return None
    off, stride = np.int64(0), 1
    for i in range(len(idx) - 1, -1, -1):
        v = ev.value(idx[i])
        if v is None:
            return None
        off = off + v * stride
        stride *= shape[i]
    return np.asarray(off)


def touched_lines(byte_addr: np.ndarray, live: np.ndarray, access: float, line: int) -> np.ndarray:
    """Distinct cache lines each wave's live lanes touch (a packed FP4 / FP6 element's bytes: the
    ones its bits fall in)."""
    first = np.floor(byte_addr) // line
    last = (np.ceil(byte_addr + access) - 1) // line
    keys = np.concatenate([np.where(live, first, -1), np.where(live, last, -1)], axis=1)
    keys.sort(axis=1)
    distinct = np.ones_like(keys, dtype=bool)
    distinct[:, 1:] = keys[:, 1:] != keys[:, :-1]
    return (distinct & (keys >= 0)).sum(axis=1).astype(float)


def _access_of(op: Operation) -> tuple[str, bool, int, float] | None:
    if op.name == GATHER_TO_LDS:
        t = op.operands[0].type
        eb = ELEMENT_BYTES.get(str(t.element_type), 4)
        return "global", False, max(1, _transfer_bytes(op) // eb), eb
    if op.name == ASYNC_COPY:
        return "global", False, op.elements, ELEMENT_BYTES.get(str(op.operands[0].type.element_type), 4)
    if op.name == TMA_LOAD:  # the box's elements, all the issuing lane's (the interpreter counts it so)
        rows, cols = op.box_shape
        return "global", False, rows * cols, ELEMENT_BYTES.get(str(op.operands[0].type.element_type), 4)
    if op.name == LDMATRIX:
        eb = ELEMENT_BYTES.get(str(op.operands[0].type.element_type), 2)
        return "lds", False, 16 // eb, eb  # one 16-byte row a lane
    # an atomic add (split-k) is counted as the store it ends in: the add happens in the L2
    if isinstance(op, (memref.LoadOp, memref.StoreOp, vector.LoadOp, vector.StoreOp, memref.AtomicRMWOp)):
        mem, _ = memref_and_indices(op)
        t = mem.type
        if not isinstance(t, MemRefType):
            return None
        space = _space(t)
        store = isinstance(op, (memref.StoreOp, vector.StoreOp, memref.AtomicRMWOp))
        value_type = (op.operands[0].type if store else op.results[0].type)
        width = _vector_width(value_type)
        name = str(t.element_type)
        eb = global_bytes(name) if space == "global" else ELEMENT_BYTES.get(name, 4)
        return space, store, width, eb
    return None


def _transfer_bytes(op: Operation) -> int:
    from gemmc.dialects.amdgpu import transfer_bytes

    return transfer_bytes(op.properties["transferType"])


def memref_and_indices(op: Operation):
    if op.name in TO_LDS:
        n = op.operands[0].type.get_num_dims()
        return op.operands[0], list(op.operands[1:1 + n])
    if isinstance(op, (memref.LoadOp, vector.LoadOp)) or op.name == LDMATRIX:
        return op.operands[0], list(op.operands[1:])
    return op.operands[1], list(op.operands[2:])


def _space(t: MemRefType) -> str:
    return {LDS_SPACE: "lds", PRIVATE_SPACE: "private"}.get(memory_space(t), "global")


def _vector_width(t) -> int:
    if isinstance(t, VectorType):
        n = 1
        for d in t.get_shape():
            n *= d
        return n
    return 1


def _own_role(op: Operation) -> str | None:
    r = op.attributes.get(ROLE_ATTR)
    return getattr(r, "data", None)


def _role(op: Operation) -> str | None:
    p = op
    while p is not None:
        r = p.attributes.get(ROLE_ATTR)
        if r is not None:
            return r.data
        p = p.parent_op()
    return None


def _arg_index(k: KernelIR, op: Operation) -> int | None:
    from xdsl.ir import BlockArgument

    mem, _ = memref_and_indices(op)
    if isinstance(mem, BlockArgument) and mem.block.parent_op() is k.kernel:
        return mem.index
    return None


def _matrix_cycles(op: Operation, arch: Arch) -> float:
    """Issue cycles of a matrix-core op: its instruction on the arch (gfx950's f8f6f4 MFMAs with
    their formats: FP6 and FP4 take half), else the arch's instruction of its shape, else 32."""
    instr = op.instr_on(arch) if hasattr(op, "instr_on") else None
    if instr is not None:
        return float(instr.cycles)
    shape = {n: op.attributes.get(n) or op.properties.get(n) for n in ("m", "n", "k")}
    dims = {n: getattr(v, "value", None) for n, v in shape.items()}
    dims = {n: getattr(v, "data", None) for n, v in dims.items()}
    for mi in arch.matrix_instrs:
        if (mi.m, mi.n, mi.k) == (dims["m"], dims["n"], dims["k"]):
            return float(mi.cycles)
    return 32.0
