"""Index arithmetic of a kernel, evaluated for every thread of a workgroup at once.

The cost model needs, for each memory access of a kernel, the address every lane
touches, and, for each guarded op, which lanes run it.  `LaneEvaluator` computes
integer SSA values of the kernel IR (arith, gpu.thread_id/block_id/block_dim,
memref.dim, scf.for induction variables) as numpy arrays that broadcast over one
shared set of axes:

    axis 0, 1   representative workgroups along y and x (`Grid.samples`)
    axis 2      the threads of a workgroup, linear id x-fastest (as the hardware forms waves)
    axis 3 + d  the sampled iterations of the loop at nesting depth d

so an address computed inside a loop nest has one entry per (workgroup, thread,
iteration) and a value outside the loops is just broadcast.  Values the evaluator
cannot know (loads, floats, loop-carried values) are None; callers treat a None guard
as taken.  Nothing here runs the kernel: it is a few numpy operations per index op,
each the interpreter's own (gemmc/support/arith_semantics.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from xdsl.dialects import arith, gpu, memref, scf
from xdsl.ir import BlockArgument, Operation, SSAValue

from xdsl.dialects.builtin import StringAttr

from gemmc.support.arith_semantics import CMPI, CMPI_NAMES, INT_BINARY
from gemmc.support.ir_names import ROLE_ATTR, ROLE_GROUP
from gemmc.transforms.grouping import tile_m_of

FULL_TRIP = 8  # loops with at most this many iterations are enumerated; longer ones sampled
SAMPLES = 4  # iterations sampled from a longer loop: first, second, middle, last

Value = np.ndarray | None


@dataclass(frozen=True)
class LoopSamples:
    """The iterations of one scf.for the model looks at, and how many each stands for."""

    trip: int
    index: np.ndarray  # iteration numbers, ascending
    weight: np.ndarray  # iterations each sample stands for; sums to trip

    @staticmethod
    def of(trip: int, override: np.ndarray | None = None) -> LoopSamples:
        if override is not None:
            return LoopSamples(trip, override, np.ones(len(override)))
        if trip <= 0:
            return LoopSamples(0, np.zeros(1, dtype=np.int64), np.zeros(1))
        if trip <= FULL_TRIP:
            return LoopSamples(trip, np.arange(trip), np.ones(trip))
        idx = np.array([0, 1, trip // 2, trip - 1])
        bounds = np.array([0, 1, trip // 2, trip - 1, trip])
        return LoopSamples(trip, idx, np.diff(bounds).astype(float))


@dataclass(frozen=True)
class Grid:
    """Launch geometry and the workgroups that stand for all of them."""

    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    # a grouped kernel: the tiles along y that hold rows (the rest, always the last, store nothing)
    busy_y: int | None = None

    @property
    def threads(self) -> int:
        return self.block[0] * self.block[1] * self.block[2]

    @property
    def workgroups(self) -> int:
        return self.grid[0] * self.grid[1] * self.grid[2]

    def samples(self, axis: int) -> tuple[np.ndarray, np.ndarray]:
        """Block ids along x (0) or y (1) and how many workgroups each stands for:
        the first block for the interior ones, the last for the edge (ragged) ones."""
        n = self.grid[axis]
        if n <= 1:
            return np.zeros(1, dtype=np.int64), np.array([float(max(n, 0))])
        if axis == 1 and self.busy_y is not None and 0 < self.busy_y < n:  # block 0 busy, the last idle
            return np.array([0, n - 1]), np.array([float(self.busy_y), float(n - self.busy_y)])
        return np.array([0, n - 1]), np.array([n - 1.0, 1.0])

    def block_weights(self) -> np.ndarray:
        """Weight of each (y, x) representative workgroup, shape (ny, nx)."""
        wy = self.samples(1)[1]
        wx = self.samples(0)[1]
        return np.outer(wy, wx) * self.grid[2]


def loops_of(op: Operation, stop: Operation) -> list[scf.ForOp]:
    """The scf.for ops enclosing `op` inside `stop`, outermost first."""
    out = []
    p = op.parent_op()
    while p is not None and p is not stop:
        if isinstance(p, scf.ForOp):
            out.append(p)
        p = p.parent_op()
    return out[::-1]


def loop_depth(loop: scf.ForOp, stop: Operation) -> int:
    return len(loops_of(loop, stop))


class LaneEvaluator:
    """Evaluates integer values of one gpu.func over representative lanes and iterations."""

    def __init__(
        self,
        kernel: gpu.FuncOp,
        grid: Grid,
        dim_of: Callable[[SSAValue, int], int | None],
        max_depth: int,
        overrides: dict[scf.ForOp, np.ndarray] | None = None,
        blocks: tuple[np.ndarray, np.ndarray] | None = None,
    ):
        self.kernel = kernel
        self.grid = grid
        self.dim_of = dim_of
        self.ndim = 3 + max_depth
        self.overrides = overrides or {}
        self._memo: dict[SSAValue, Value] = {}
        self._loops: dict[scf.ForOp, LoopSamples] = {}
        by, bx = blocks if blocks is not None else (grid.samples(1)[0], grid.samples(0)[0])
        self.block_ids = (self._axis(bx, 1), self._axis(by, 0), self._axis(np.zeros(1, dtype=np.int64), 0))
        tid = np.arange(grid.threads, dtype=np.int64)
        bxs, bys = grid.block[0], grid.block[1]
        self.thread_ids = (
            self._axis(tid % bxs, 2),
            self._axis((tid // bxs) % bys, 2),
            self._axis(tid // (bxs * bys), 2),
        )

    # -- shapes --------------------------------------------------------------------

    def _axis(self, values: np.ndarray, axis: int) -> np.ndarray:
        shape = [1] * self.ndim
        shape[axis] = len(values)
        return np.asarray(values, dtype=np.int64).reshape(shape)

    def full_shape(self, depth: int) -> tuple[int, ...]:
        """The shape of a value that varies along every axis up to loop depth `depth`."""
        shape = [len(self.block_ids[1].ravel()), len(self.block_ids[0].ravel()), self.grid.threads]
        shape += [1] * (self.ndim - 3)
        return tuple(shape)

    # -- loops ---------------------------------------------------------------------

    def samples(self, loop: scf.ForOp) -> LoopSamples:
        """Trip count and sampled iterations of a loop (bounds evaluated uniformly)."""
        hit = self._loops.get(loop)
        if hit is not None:
            return hit
        lb, ub, step = (self.value(v) for v in (loop.lb, loop.ub, loop.step))
        if lb is None or ub is None or step is None:
            trip = 1
        elif lb.size == 1 and ub.size == 1 and step.size == 1:
            trip = max(0, -(-(int(ub.ravel()[0]) - int(lb.ravel()[0])) // max(1, int(step.ravel()[0]))))
        else:  # bounds that differ between lanes (stream-k's walk): the mean trip count, not the union's
            lanes = np.maximum(0, -(-(ub.astype(np.int64) - lb.astype(np.int64)) // np.maximum(1, step)))
            trip = int(np.ceil(self._workgroup_mean(lanes)))
        s = LoopSamples.of(trip, self.overrides.get(loop))
        self._loops[loop] = s
        return s

    def _workgroup_mean(self, x: np.ndarray) -> float:
        """The mean of `x` over lanes, its representative workgroups weighted by how many each stands for."""
        weights = np.ones((1, 1))
        wy, wx = self.grid.samples(1)[1], self.grid.samples(0)[1]
        if x.shape[0] in (1, len(wy)) and x.shape[1] in (1, len(wx)):  # (a value the same along y or x too)
            x = np.broadcast_to(x, (len(wy), len(wx)) + x.shape[2:])
            weights = np.outer(wy, wx)
        weights = weights.reshape(weights.shape + (1,) * (x.ndim - 2))
        x, w = np.broadcast_arrays(x, weights)
        return float((x * w).sum() / w.sum()) if w.sum() else 0.0

    def _iv(self, loop: scf.ForOp) -> Value:
        s = self.samples(loop)
        lb, step = self.value(loop.lb), self.value(loop.step)
        if lb is None or step is None:
            return None
        depth = loop_depth(loop, self.kernel)
        if 3 + depth >= self.ndim:
            return None
        lo, st = int(np.min(lb)), int(np.max(step))
        return self._axis(lo + s.index * st, 3 + depth)

    # -- values --------------------------------------------------------------------

    def value(self, v: SSAValue) -> Value:
        if v in self._memo:
            return self._memo[v]
        try:
            r = self._compute(v)
        except (ValueError, TypeError, OverflowError, ZeroDivisionError, FloatingPointError):
            r = None
        if r is not None:
            r = np.asarray(r)
            if r.ndim < self.ndim:
                r = r.reshape((1,) * (self.ndim - r.ndim) + r.shape) if r.ndim == 0 else r
        self._memo[v] = r
        return r

    def _compute(self, v: SSAValue) -> Value:
        if isinstance(v, BlockArgument):
            owner = v.block.parent_op()
            if isinstance(owner, scf.ForOp) and v.index == 0:
                return self._iv(owner)
            return None
        op = v.owner
        if isinstance(op, scf.ForOp) and op.attributes.get(ROLE_ATTR) == StringAttr(ROLE_GROUP):
            return self._group_search(op, v.index)
        if isinstance(op, arith.ConstantOp):
            val = getattr(op.value, "value", None)
            data = getattr(val, "data", None)
            return np.int64(data) if isinstance(data, int) else None
        if isinstance(op, gpu.ThreadIdOp):
            return self.thread_ids[_dim(op)]
        if isinstance(op, gpu.BlockIdOp):
            return self.block_ids[_dim(op)]
        if isinstance(op, gpu.BlockDimOp):
            return np.int64(self.grid.block[_dim(op)])
        if isinstance(op, gpu.GridDimOp):
            return np.int64(self.grid.grid[_dim(op)])
        if isinstance(op, memref.DimOp):
            index = self.value(op.index)
            if index is None or np.ndim(index) and np.size(index) != 1:
                return None
            d = self.dim_of(op.source, int(np.ravel(index)[0]))
            return None if d is None else np.int64(d)
        if isinstance(op, (arith.IndexCastOp, arith.ExtSIOp, arith.ExtUIOp, arith.TruncIOp)):
            return self.value(op.operands[0])
        if isinstance(op, arith.SelectOp):
            c, a, b = (self.value(x) for x in op.operands)
            return None if c is None or a is None or b is None else np.where(c, a, b)
        if isinstance(op, arith.CmpiOp):
            a, b = self.value(op.lhs), self.value(op.rhs)
            if a is None or b is None:
                return None
            return CMPI[_predicate(op)](a, b)
        fn = INT_BINARY.get(type(op))
        if fn is not None and len(op.operands) == 2:
            a, b = self.value(op.operands[0]), self.value(op.operands[1])
            if a is None or b is None:
                return None
            return fn(np.asarray(a), np.asarray(b))
        return None


    def _group_search(self, loop: scf.ForOp, result: int) -> Value:
        """A grouped kernel's group search (gemmc.transforms.grouping) for the sampled workgroups,
        the rows spread evenly over the groups (`even_sizes`: the sizes are known only at run time)."""
        groups, tile = self.value(loop.ub), tile_m_of(loop)
        m = self.dim_of(self.kernel.body.block.args[0], 0)  # A [M, K]: gemm-to-kernel's first argument
        if groups is None or tile is None or m is None or np.size(groups) != 1:
            return None
        sizes = even_sizes(m, int(np.ravel(groups)[0]))
        start = np.concatenate([[0], np.cumsum(sizes)])
        first = np.concatenate([[0], np.cumsum(-(-sizes // tile))])
        by = self.block_ids[1]
        h = np.clip(np.searchsorted(first, by, side="right") - 1, 0, max(len(sizes) - 1, 0))
        here = (by >= first[h]) & (by < first[np.minimum(h + 1, len(first) - 1)]) & (h < len(sizes))
        row0 = np.where(here, start[h] + (by - first[h]) * tile, 0)
        end = np.where(here, start[np.minimum(h + 1, len(start) - 1)], 0)
        return [np.int64(m), np.int64(first[-1]), row0, end, np.where(here, h, 0)][result]


def even_sizes(m: int, groups: int) -> np.ndarray:
    """M rows spread evenly over the groups: the cost model's assumption for a grouped kernel."""
    return np.array([m // groups + (g < m % groups) for g in range(groups)], dtype=np.int64)


def busy_tiles(m: int, groups: int, tile: int) -> int:
    """Tiles of `tile` rows that hold rows when M rows are spread evenly over the groups."""
    return int((-(-even_sizes(m, groups) // tile)).sum())


def _dim(op) -> int:
    d = getattr(op.dimension, "data", op.dimension)
    return {"x": 0, "y": 1, "z": 2}[str(getattr(d, "value", d)).lower()[-1]]


def _predicate(op: arith.CmpiOp) -> str:
    return CMPI_NAMES[op.predicate.value.data]
