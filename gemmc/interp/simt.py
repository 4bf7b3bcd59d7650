"""The SIMT kernel interpreter: one numpy array per value, one entry per lane.

A kernel launch runs its workgroups in batches (a batch holds at most `lane_budget`
lanes; workgroups are independent, so the order does not matter for a race-free
kernel).  Within a batch every op runs once, for all lanes at once:

* a *per-lane* value is an array of shape (L,) (or (L, w) for a vector<w x T>);
  a *uniform* value (a constant, a memref.dim, the induction variable of a loop with
  uniform bounds) is a numpy scalar (or shape (w,)); numpy broadcasting mixes them.
  Which of the two a value is follows from its ndim and its IR type.
* lanes are ordered workgroup by workgroup, and within one by linear thread id
  (x fastest), so wave `i` of a workgroup is a contiguous run of `wave_size` lanes.
* divergence is a lane mask (`KernelState.mask`, None when every lane is active):
  scf.if runs each region under the lanes that take it and merges the results with
  np.where; scf.for with per-lane bounds runs to the largest trip count with lanes
  masked off as they finish.  Memory ops only touch active lanes.

The op implementations are registered on xDSL's Interpreter and dispatched through
its table; `SimtInterpreter` only replaces the loop that walks a block (see there).
gpu and scf are here, arith/math/vector in ops.py, memref/vector memory ops in memory.py.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np
from xdsl.dialects import gpu, scf
from xdsl.dialects.builtin import MemRefType, ModuleOp
from xdsl.interpreter import (
    Interpreter,
    InterpreterFunctions,
    PythonValues,
    ReturnedValues,
    impl,
    impl_terminator,
    register_impls,
)
from xdsl.ir import Block, Operation, Region

from gemmc.arch import Arch
from gemmc.diagnostics import GemmcError
from gemmc.interp.common import InterpError, is_vector, np_dtype, round_to
from gemmc.interp.stats import Stats

LANE_BUDGET = 1 << 18
"""Lanes per batch: large enough that numpy's per-call overhead (~10 us) vanishes,
small enough that a value (2 MiB of int64) stays in cache; measured on a 1024^3
step-1 GEMM: 2^16 lanes 4.8 s, 2^18 4.3 s, 2^20 6.5 s."""

_DIMS = ("x", "y", "z")


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
    lds_bytes: dict[Operation, int] = field(default_factory=dict)
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

    def count_valu(self, width: int = 1, flops_per_lane: int = 1) -> None:
        lanes, waves = self.active_counts()
        self.stats.valu_instrs += waves
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


@register_impls
@dataclass
class GpuFunctions(InterpreterFunctions):
    """gpu.thread_id & co. as per-lane index arrays; gpu.barrier; gpu.return."""

    state: KernelState | None = None

    def _dim(self, op) -> int:
        return _DIMS.index(op.dimension.data.value)

    @impl(gpu.ThreadIdOp)
    def run_thread_id(self, interp: Interpreter, op, args: PythonValues):
        return (self.state.lanes.thread_id(self._dim(op)),)

    @impl(gpu.BlockIdOp)
    def run_block_id(self, interp: Interpreter, op, args: PythonValues):
        return (self.state.lanes.block_id(self._dim(op)),)

    @impl(gpu.BlockDimOp)
    def run_block_dim(self, interp: Interpreter, op, args: PythonValues):
        return (np.int64(self.state.lanes.block[self._dim(op)]),)

    @impl(gpu.GridDimOp)
    def run_grid_dim(self, interp: Interpreter, op, args: PythonValues):
        return (np.int64(self.state.lanes.grid[self._dim(op)]),)

    @impl(gpu.GlobalIdOp)
    def run_global_id(self, interp: Interpreter, op, args: PythonValues):
        d, ln = self._dim(op), self.state.lanes
        return (ln.block_id(d) * ln.block[d] + ln.thread_id(d),)

    @impl(gpu.LaneIdOp)
    def run_lane_id(self, interp: Interpreter, op, args: PythonValues):
        return (self.state.lanes.tid % self.state.arch.wave_size,)

    @impl(gpu.SubgroupIdOp)
    def run_subgroup_id(self, interp: Interpreter, op, args: PythonValues):
        return (self.state.lanes.tid // self.state.arch.wave_size,)

    @impl(gpu.SubgroupSizeOp)
    def run_subgroup_size(self, interp: Interpreter, op, args: PythonValues):
        return (np.int64(self.state.arch.wave_size),)

    @impl(gpu.NumSubgroupsOp)
    def run_num_subgroups(self, interp: Interpreter, op, args: PythonValues):
        return (np.int64(self.state.lanes.waves_per_wg),)

    @impl(gpu.BarrierOp)
    def run_barrier(self, interp: Interpreter, op, args: PythonValues):
        """A barrier must be reached by all threads of a workgroup or by none; it starts
        a new race-detection interval for the workgroups that pass it."""
        st, ln = self.state, self.state.lanes
        if st.mask is None:
            passing = np.ones(ln.nwg, dtype=bool)
        else:
            per_wg = st.mask.reshape(ln.nwg, ln.threads)
            passing = per_wg.any(axis=1)
            partial = passing & ~per_wg.all(axis=1)
            if partial.any():
                wg = int(np.argmax(partial))
                lane = wg * ln.threads + int(np.argmax(~per_wg[wg]))
                raise InterpError(
                    f"gpu.barrier in divergent control flow: not reached by {st.where(lane)} "
                    "while other threads of its workgroup wait at it"
                )
        st.stats.barriers += int(np.count_nonzero(passing))
        st.pass_barrier(passing)
        return ()

    @impl_terminator(gpu.ReturnOp)
    def run_return(self, interp: Interpreter, op, args: PythonValues):
        return ReturnedValues(args), ()


@register_impls
@dataclass
class ScfFunctions(InterpreterFunctions):
    """scf.for / scf.if under lane masks; uniform conditions and bounds take the fast path."""

    state: KernelState | None = None

    @impl_terminator(scf.YieldOp)
    def run_yield(self, interp: Interpreter, op, args: PythonValues):
        return ReturnedValues(args), ()

    @impl(scf.IfOp)
    def run_if(self, interp: Interpreter, op: scf.IfOp, args: PythonValues):
        (cond,) = args
        st = self.state
        if st is None or is_uniform(cond):
            region = op.true_region if cond else op.false_region
            return interp.run_ssacfg_region(region, (), "scf.if") if region.blocks else ()
        cond = np.asarray(cond, dtype=bool)
        if st.mask is None:
            take_then, take_else = cond, ~cond
        else:
            take_then, take_else = st.mask & cond, st.mask & ~cond
        ran = {}
        for name, region, m in (("then", op.true_region, take_then), ("else", op.false_region, take_else)):
            if region.blocks and m.any():
                with st.masked(m):
                    ran[name] = interp.run_ssacfg_region(region, (), f"scf.if.{name}")
        if not op.results:
            return ()
        if len(ran) == 1:
            return next(iter(ran.values()))
        if not ran:  # no lane active: the results are never observed
            return tuple(np.zeros((), dtype=np_dtype(r.type)) for r in op.results)
        return tuple(
            lane_where(cond, t, e, is_vector(r.type))
            for t, e, r in zip(ran["then"], ran["else"], op.results)
        )

    @impl(scf.ForOp)
    def run_for(self, interp: Interpreter, op: scf.ForOp, args: PythonValues):
        lb, ub, step, *carried = args
        st = self.state
        if st is not None and not (is_uniform(lb) and is_uniform(ub) and is_uniform(step)):
            uniform = self._uniform_bounds(lb, ub, step)
            if uniform is None:
                return self._divergent_for(interp, op, lb, ub, step, carried)
            lb, ub, step = uniform
        if step <= 0:
            raise InterpError(f"scf.for with step {int(step)}: the step must be positive")
        values = tuple(carried)
        for i in range(int(lb), int(ub), int(step)):
            values = interp.run_ssacfg_region(op.body, (np.int64(i), *values), "scf.for")
        return values

    def _uniform_bounds(self, lb, ub, step):
        """(lb, ub, step) as scalars when they agree on every active lane, else None."""
        m = self.state.mask
        out = []
        for v in (lb, ub, step):
            if not is_uniform(v):
                v = v if m is None else v[m]
                if v.size == 0:
                    return (0, 0, 1)
                if (v != v[0]).any():
                    return None
                v = v[0]
            out.append(v)
        return tuple(out)

    def _divergent_for(self, interp, op, lb, ub, step, carried):
        """Per-lane bounds: iterate to the longest trip count; finished lanes keep their values."""
        st = self.state
        active = st.active_mask()
        n = st.lanes.count
        lb, ub, step = (np.broadcast_to(v, (n,)) for v in (lb, ub, step))
        if (step[active] <= 0).any():
            raise InterpError("scf.for with a non-positive step on some lane; the step must be positive")
        trips = np.where(active, np.maximum(0, -(-(ub - lb) // np.where(step > 0, step, 1))), 0)
        values = tuple(carried)
        vector = [is_vector(r.type) for r in op.results]
        for t in range(int(trips.max(initial=0))):
            m = trips > t
            with st.masked(m):
                new = interp.run_ssacfg_region(op.body, (lb + t * step, *values), "scf.for")
            values = tuple(lane_where(m, a, b, v) for a, b, v in zip(new, values, vector))
        return values


class SimtInterpreter(Interpreter):
    """xDSL's Interpreter with a leaner region loop for kernels.

    Dispatch is xDSL's (the implementations registered with `register_implementations`),
    but kernels run hundreds of thousands of ops on few lanes, where the stock loop's
    per-op cost (scoped dicts, SSAValue.__hash__ in Python, listeners, wrapping every
    error with a dump of the module) is half the run time.  Here each block gets a
    plan, built once: (impl, functions, op, operand ids, result ids) per op; values live
    in one flat dict keyed by id(SSAValue).  One dict suffices for structured SSA: a
    value is defined again before any use in each loop iteration or region run.
    Multi-block regions go to the stock loop.
    """

    def __init__(self, module: ModuleOp):
        super().__init__(module)
        self.env: dict[int, Any] = {}
        self._plans: dict[Block, list] = {}

    def run_ssacfg_region(self, region: Region, args: PythonValues, name: str = "unknown") -> PythonValues:
        block = region.blocks.first
        if block is None:
            return ()
        if block is not region.blocks.last:
            return super().run_ssacfg_region(region, args, name)
        env = self.env
        for arg, value in zip(block.args, args):
            env[id(arg)] = value
        plan = self._plans.get(block)
        if plan is None:
            plan = self._plans[block] = self._plan(block)
        for run, ft, op, operands, results in plan:
            try:
                out = run(ft, self, op, tuple([env[o] for o in operands]))
            except GemmcError:
                raise
            except Exception as e:
                e.add_note(f"while interpreting {op.name} in {region.parent_op().name}")
                raise
            if out.terminator_value is not None:
                return out.terminator_value.values
            for r, v in zip(results, out.values):
                env[r] = v
        return ()

    def _plan(self, block: Block) -> list:
        table = self._impls._impl_dict  # noqa: SLF001 - xDSL keeps the dispatch table private
        plan = []
        for op in block.ops:
            ft, run = table[type(op)]
            plan.append((run, ft, op, tuple(id(o) for o in op.operands), tuple(id(r) for r in op.results)))
        return plan


def ensure_impls(interp: Interpreter, root: Operation, where: str) -> None:
    """Check, before running, that every op under `root` has an implementation.

    xDSL dispatches on the exact op class; a subclass of an upstream op (as gemmc's
    dialects may define to get MLIR's custom syntax) inherits its base's implementation.
    """
    table = interp._impls._impl_dict  # noqa: SLF001 - xDSL keeps the dispatch table private
    for op in root.walk():
        if op is root or type(op) in table:
            continue
        base = next((b for b in type(op).__mro__[1:] if b in table), None)
        if base is None:
            raise InterpError(f"the interpreter has no implementation of '{op.name}' (in {where})")
        table[type(op)] = table[base]


def kernel_interpreter(module: ModuleOp, state: KernelState) -> Interpreter:
    from gemmc.interp.matrix import MatrixFunctions
    from gemmc.interp.memory import MemoryFunctions
    from gemmc.interp.ops import ArithFunctions, MathFunctions, UbFunctions, VectorFunctions

    interp = SimtInterpreter(module)
    for cls in (ArithFunctions, MathFunctions, VectorFunctions, MemoryFunctions, ScfFunctions, GpuFunctions,
                MatrixFunctions):
        interp.register_implementations(cls(state=state))
    interp.register_implementations(UbFunctions())
    return interp


def run_kernel(
    module: ModuleOp,
    kernel: gpu.FuncOp,
    grid: tuple[int, int, int],
    block: tuple[int, int, int],
    args: list[Any],
    arch: Arch,
    stats: Stats,
    races: bool = True,
    lane_budget: int = LANE_BUDGET,
) -> None:
    """Run a gpu.func over the whole grid, in batches of workgroups."""
    from gemmc.interp.memory import Buffer

    name = f"@{kernel.sym_name.data}"
    _check_launch(kernel, grid, block, arch, name)
    state = KernelState(arch, stats, kernel, races)
    interp = kernel_interpreter(module, state)
    ensure_impls(interp, kernel, f"gpu.func {name}")
    values = []
    for arg, value in zip(kernel.body.block.args, args, strict=True):
        if isinstance(arg.type, MemRefType):
            values.append(value if isinstance(value, Buffer) else Buffer.global_(arg, value))
        else:
            values.append(round_to(value, arg.type))
    threads = math.prod(block)
    total = math.prod(grid)
    per_batch = max(1, lane_budget // threads)
    stats.kernel_launches += 1
    stats.workgroups += total
    stats.threads += total * threads
    for start in range(0, total, per_batch):
        state.begin_batch(Lanes(grid, block, start, min(per_batch, total - start), arch.wave_size))
        interp.run_ssacfg_region(kernel.body, tuple(values), name)


def _check_launch(kernel: gpu.FuncOp, grid, block, arch: Arch, name: str) -> None:
    if any(g < 0 for g in grid) or any(b < 1 for b in block):
        raise InterpError(f"gpu.launch_func of {name} with grid {grid} and block {block}")
    threads = math.prod(block)
    if threads > arch.max_threads_per_block:
        raise InterpError(
            f"gpu.launch_func of {name}: {threads} threads per block exceed {arch.name}'s "
            f"{arch.max_threads_per_block}"
        )
    known = kernel.known_block_size
    if known is not None and tuple(known.get_values()) != tuple(block):
        raise InterpError(
            f"gpu.launch_func of {name} with block {tuple(block)}, but the kernel "
            f"declares gpu.known_block_size {tuple(known.get_values())}"
        )
