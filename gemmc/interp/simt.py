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
from dataclasses import dataclass
from typing import Any

import numpy as np
from xdsl.dialects import gpu, scf
from xdsl.dialects.builtin import MemRefType, ModuleOp, StringAttr
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

from gemmc.target.arch import Arch
from gemmc.support.diagnostics import GemmcError
from gemmc.interp.common import InterpError, is_vector, np_dtype, round_to
from gemmc.interp.state import DIMS, KernelState, Lanes, is_uniform, lane_where
from gemmc.interp.ordering import WorkgroupOrder, synchronises
from gemmc.interp.stats import Stats
from gemmc.transforms.batch import batch_args, batch_split

WARP_SPECIALIZED = StringAttr("warp_specialized")  # warp-specialize's split: the two roles run as coroutines
LANE_BUDGET = 1 << 18
"""Lanes per batch: large enough that numpy's per-call overhead (~10 us) vanishes,
small enough that a value (2 MiB of int64) stays in cache; measured on a 1024^3
step-1 GEMM: 2^16 lanes 4.8 s, 2^18 4.3 s, 2^20 6.5 s."""

@register_impls
@dataclass
class GpuFunctions(InterpreterFunctions):
    """gpu.thread_id & co. as per-lane index arrays; gpu.barrier; gpu.return."""

    state: KernelState | None = None

    def _dim(self, op) -> int:
        return DIMS.index(op.dimension.data.value)

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
        if not op.results and op.attributes.get("gemm.role") == WARP_SPECIALIZED:
            from gemmc.interp.mbarrier import run_roles
            run_roles(interp, self, op, take_then, take_else)
            return ()
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
    from gemmc.interp.nvgpu import NvgpuFunctions, WgmmaFunctions
    from gemmc.interp.mbarrier import MbarrierFunctions
    from gemmc.interp.tma import TmaFunctions
    from gemmc.interp.ops import ArithFunctions, MathFunctions, UbFunctions, VectorFunctions

    interp = SimtInterpreter(module)
    for cls in (ArithFunctions, MathFunctions, VectorFunctions, MemoryFunctions, ScfFunctions, GpuFunctions,
                MatrixFunctions, NvgpuFunctions, WgmmaFunctions, MbarrierFunctions, TmaFunctions):
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
    if races and synchronises(kernel):
        state.order = WorkgroupOrder(math.prod(grid), kernel.sym_name.data)
    interp = kernel_interpreter(module, state)
    ensure_impls(interp, kernel, f"gpu.func {name}")
    values = []
    batched = batch_args(kernel)
    for arg, value in zip(kernel.body.block.args, args, strict=True):
        if isinstance(arg.type, MemRefType) and (arg.index in batched or _batch_ignored(arg, value)):
            values.append(Buffer.batched(arg, value))  # (ignored: its base stays at the first matrix)
        elif isinstance(arg.type, MemRefType):
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
        for i in batched:  # each workgroup's batch: block_id.z / batch_split
            values[i].at_batch(state.lanes.block_id(2) // batch_split(kernel))
        interp.run_ssacfg_region(kernel.body, tuple(values), name)


def _batch_ignored(arg, value) -> bool:
    """A host array of one rank more than a kernel argument not batched: a kernel that ignores the
    batch (no offset) reads the first matrix, as the hardware would."""
    return isinstance(value, np.ndarray) and value.ndim == arg.type.get_num_dims() + 1


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
