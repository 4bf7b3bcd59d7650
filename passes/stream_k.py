"""stream-k: persistent workgroups walking the (tile, K iteration) space (Stream-K, Osama et al., 2023).

Expects what split-k expects (gemmc.transforms.k_split: a launched kernel with one K loop, not pipelined yet,
global stores only in its epilogue, into one output C of a float type), read its output tile from
`gpu.block_id` x and y at the top level of the kernel, and a launch whose grid x and y the host
computes from the launch's operands and constants (gemm-to-kernel's and lds-tiling's
ceil(N / block), ceil(M / block)).

Produces, with P = workgroups (0: the target's CU count):
  * the launch's grid is P x 1 x 1.  The kernel computes what the host did for the grid (those ops
    cloned, the host's values read from the kernel's own arguments): tiles_x x tiles_y tiles of Kt
    K iterations each, I = tiles x Kt iterations in all.  Workgroup w walks iterations
    [w*c, min((w+1)*c, I)) with c = ceil(I / P): an scf.for over the tiles t it touches holds the
    kernel's former body, in which the tile is (t mod tiles_x, t div tiles_x) instead of the block
    ids, and the K loop runs the tile's iterations inside the walk;
  * a tile walked by several workgroups is fixed up in one of two ways:
    - where split-k's atomic reduction takes the kernel (C f32 or f64 stored element by element, an
      epilogue linear in the sum and C): every tile's partial sums go into C with atomic adds, after
      an init kernel that writes beta*C, or 0 (the fast path, as before);
    - else (relu, gelu, a bias, a residual, a 16-bit C, vector stores): through a workspace, by the
      tile's last contributor (gemmc.transforms.stream_fixup): a workgroup that walks a tile whole
      applies the epilogue as it was; one that shares it stores its raw partial sums in its slot of
      W[slots, C's shape], fences (release, agent scope), and counts itself in at the tile's counter
      (thread 0's `memref.atomic_rmw addi`, through LDS to the workgroup); the last to arrive fences
      (acquire) and applies the epilogue once to the sum of the tile's slots, in slot order.  The host
      allocates W and the counters, zeroes the counters (@<kernel>_streamk_flags) and frees both.
Diagnostics (each at its op): a batched kernel (its walk would cross batches: not done yet; split-k
takes it), a grouped kernel (its busy tiles are known only at run time), what split-k refuses (an integer product, a pipelined K loop, a grid
split along z, a global store outside the epilogue, stores to two outputs), for the workspace
fix-up a stored value not computed from exactly one accumulator value of its type, or indices
computed after the accumulator is read; block ids inside a region or not x / y, a grid size the host
computes from something other than the launch's operands and pure ops.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, gpu, scf
from xdsl.dialects.builtin import IndexType, ModuleOp
from xdsl.ir import Block, BlockArgument, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint

from gemmc.support.diagnostics import pass_error
from gemmc.transforms.batch import is_batched
from gemmc.transforms.grouping import grouped_info
from gemmc.transforms.k_split import KSplit, launched_k_loops
from gemmc.transforms.stream_fixup import StreamWalk, fix_up_last
from gemmc.transforms.kernel_builder import KernelBuilder, constant_value, repeat_values
from gemmc.target.module_arch import target_of


@dataclass(frozen=True)
class StreamKPass(ModulePass):
    name = "stream-k"

    workgroups: int = 0

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.workgroups < 0:
            raise pass_error(self.name, op, f"workgroups={self.workgroups} must be positive (0: one per CU)")
        persistent = self.workgroups or target_of(op).cu_count
        for launch, kernel, loop in launched_k_loops(op, self.name):
            if is_batched(kernel):
                raise pass_error(self.name, launch, "a batched kernel (gemm.batch_args) is not walked by persistent "
                                                    "workgroups yet (the walk would cross batches); split-k takes it")
            if grouped_info(kernel) is not None:  # its busy tiles are known only at run time
                raise pass_error(self.name, kernel, "a grouped kernel's tiles are not walked by persistent workgroups "
                                                    "yet (which tiles hold rows depends on the sizes at run time); "
                                                    "split-k divides its K loop")
            walks: list[StreamWalk] = []
            split = KSplit(self.name, "atomic", 1, launch, kernel, loop, lambda s: _walk(s, persistent, walks))
            refusal = split.atomic_refusal()
            if refusal is None:
                split.run()  # the fast path: partial sums added into C
            elif split.whole_sums_only():  # an amax output, an FP8 C: the fix-up does not take them yet
                raise refusal
            else:
                split.run_fixup(lambda s, stores, wg: fix_up_last(s, stores, walks[0]))


def _walk(split: KSplit, persistent: int, walks: list[StreamWalk]) -> SSAValue:
    """The kernel's body as the body of a walk over its workgroup's share of (tile, k) iterations."""
    kernel, loop, launch = split.kernel, split.loop, split.launch
    host_grid = (launch.gridSizeX, launch.gridSizeY)
    body = kernel.body.block
    ids = _block_ids(split)
    top = KernelBuilder(InsertPoint.at_start(body))
    tiles_x, tiles_y = _host_grid(split, top)
    trips = _k_trips(split, top)
    w = top.block_id("x", "wg")
    per_tile = top.op(arith.MaxUIOp(trips, top.index(1)), "k_iters")
    total = top.mul(top.mul(tiles_x, tiles_y), per_tile, "iters")
    share = top.ceildiv(total, top.index(persistent), "share")
    begin = top.op(arith.MinUIOp(top.mul(w, share), total), "walk_begin")
    end = top.op(arith.MinUIOp(top.add(begin, share), total), "walk_end")
    first = top.op(arith.DivUIOp(begin, per_tile), "first_tile")
    last = top.ceildiv(end, per_tile, "end_tile")
    walk = Block(arg_types=[IndexType()])
    walk.args[0].name_hint = "tile"
    moving = False  # the kernel's own ops come after the walk's bounds, the return stays last
    for op in list(body.ops):
        if moving and op is not body.last_op:
            op.detach()
            walk.add_op(op)
        moving = moving or op is last.owner
    walk.add_op(scf.YieldOp())
    tile_loop = scf.ForOp(first, last, top.index(1), [], walk)
    body.insert_op_before(tile_loop, body.last_op)
    _place_tile(ids, walk, tiles_x)
    _restrict_k_loop(loop, walk.args[0], per_tile, begin, end)
    launch.operands[0] = KernelBuilder.before(launch).index(persistent, "persistent")
    launch.operands[1] = launch.gridSizeZ  # 1 (KSplit checked it)
    walks.append(StreamWalk(w, walk, per_tile, share, host_grid))
    return w


def _block_ids(split: KSplit) -> dict[str, gpu.BlockIdOp]:
    ids: dict[str, gpu.BlockIdOp] = {}
    for op in split.kernel.walk():
        if isinstance(op, gpu.BlockIdOp):
            dim = op.dimension.data.value
            if op.parent_op() is not split.kernel or dim not in ("x", "y") or dim in ids:
                raise pass_error(split.name, op, "expects one gpu.block_id x and one y at the kernel's top level")
            ids[dim] = op
    if set(ids) != {"x", "y"}:
        raise pass_error(split.name, split.kernel, "expects the kernel to read its tile from gpu.block_id x and y")
    return ids


def _host_grid(split: KSplit, kb: KernelBuilder) -> list[SSAValue]:
    """The launch's grid x and y, computed on the host, computed again in the kernel from the
    kernel's arguments."""
    operands = list(split.launch.kernelOperands)

    def argument(x: BlockArgument) -> SSAValue:
        if x not in operands:
            raise pass_error(split.name, split.launch, "the grid size uses a host value the kernel is not given")
        return split.kernel.body.block.args[operands.index(x)]

    return repeat_values([split.launch.gridSizeX, split.launch.gridSizeY], kb, argument, lambda op: pass_error(
        split.name, op, "the grid size is computed by an op stream-k cannot repeat in the kernel"))


def _k_trips(split: KSplit, kb: KernelBuilder) -> SSAValue:
    """The K loop's trip count, computed at the top of the kernel (its bounds' pure ops repeated)."""
    loop = split.loop

    def argument(x: BlockArgument) -> SSAValue:
        if x.block is not split.kernel.body.block:
            raise refused(None)
        return x

    def refused(op):
        return pass_error(split.name, split.loop, "the K loop's bounds depend on more than the problem's sizes")

    lb, ub, step = repeat_values([loop.lb, loop.ub, loop.step], kb, argument, refused)
    span = ub if constant_value(lb) == 0 else kb.sub(ub, lb)
    return span if constant_value(step) == 1 else kb.ceildiv(span, step)


def _place_tile(ids: dict[str, gpu.BlockIdOp], walk: Block, tiles_x: SSAValue) -> None:
    kb = KernelBuilder(InsertPoint.at_start(walk))
    tile = walk.args[0]
    bx = kb.op(arith.RemUIOp(tile, tiles_x), "bx")
    by = kb.op(arith.DivUIOp(tile, tiles_x), "by")
    for dim, value in (("x", bx), ("y", by)):
        ids[dim].results[0].replace_all_uses_with(value)
        ids[dim].detach()
        ids[dim].erase()


def _restrict_k_loop(loop: scf.ForOp, tile: SSAValue, per_tile: SSAValue, begin: SSAValue, end: SSAValue) -> None:
    """The K loop runs iterations [max(begin, t*Kt), min(end, (t+1)*Kt)) - t*Kt of tile t."""
    kb = KernelBuilder.before(loop)
    start = kb.mul(tile, per_tile, "tile_start")
    lo = kb.sub(kb.op(arith.MaxUIOp(begin, start)), start)
    # clamped at the tile's start, so that no tile (even one outside the walk) has a negative count
    hi = kb.sub(kb.op(arith.MaxUIOp(kb.op(arith.MinUIOp(end, kb.add(start, per_tile))), start)), start)
    lb = kb.add(loop.lb, kb.mul(lo, loop.step), "k_begin")
    ub = kb.op(arith.MinUIOp(kb.add(loop.lb, kb.mul(hi, loop.step)), loop.ub), "k_end")
    loop.operands[0], loop.operands[1] = lb, ub
