"""stream-k's fix-up through a workspace: a tile walked by several workgroups is finished by the last.

The atomic fix-up (split-k's reduce=atomic) adds every partial sum into C, which is right only for an
epilogue linear in the sum and C, into an f32 or f64 C stored element by element.  Any other epilogue
(a bias, an activation, a residual, a 16-bit C, vector stores) is fixed up here, as CUTLASS's and
Triton's stream-k do:

  * a tile that one workgroup walks whole (`contributors` = 1) runs the kernel's epilogue as it was;
  * on a tile shared by `contributors` workgroups, the i-th of them (its `slot`, counted from the
    first) stores its raw partial sums at W[slot, row, col] (W: the workspace, acc-typed, C's shape
    behind a leading slot axis), then every thread fences (release, agent scope), the workgroup
    meets at a barrier and thread 0 adds 1 to the tile's counter (`memref.atomic_rmw addi`), telling
    the workgroup through LDS how many arrived before it.  The last to arrive fences (acquire, agent
    scope), sums W[0 .. contributors - 1] in slot order (deterministic, as split-k's workspace) and
    runs the epilogue once on the sum (the kernel's code after its K loop, cloned, the K loop gone).

The host allocates W (ceil(P / tiles) + 1 slots: the most workgroups a tile can have) and the tiles'
counters, launches @<kernel>_streamk_flags to zero the counters, then the kernel, and frees both.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import arith, gpu, memref, scf, vector
from xdsl.dialects.builtin import DYNAMIC_INDEX, ArrayAttr, IntegerAttr, MemRefType, StringAttr, VectorType, i32, i64
from xdsl.ir import Block, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import is_side_effect_free

from gemmc.dialects.gemm import FenceOp
from gemmc.support.diagnostics import pass_error
from gemmc.support.ir_names import ARG_DIMS_ATTR, ATOMIC_ADDI, ROLE_ATTR, ROLE_FIXUP, ROLE_K_LOOP
from gemmc.transforms.contraction import role
from gemmc.transforms.k_split import (
    KSplit, append_argument, erase_if_dead, erase_k_loop, fresh_symbol, symbol_ref, zero_of,
)
from gemmc.transforms.kernel_builder import KernelBuilder, lds_type

FLAGS_BLOCK = 64
"""Threads of a workgroup of the kernel that zeroes the counters."""


@dataclass
class StreamWalk:
    """What stream-k's walk defines that the fix-up reads: the workgroup, the walk's body and its
    tile, K iterations per tile, iterations per workgroup, and the host's grid (tiles x, y)."""

    wg: SSAValue
    body: Block
    k_iters: SSAValue
    share: SSAValue
    host_grid: tuple[SSAValue, SSAValue]

    @property
    def tile(self) -> SSAValue:
        return self.body.args[0]


def fix_up_last(split: KSplit, stores: list[Operation], walk: StreamWalk) -> None:
    """Rewrite the walked kernel so that the last contributor of each shared tile applies the epilogue."""
    kernel = split.kernel
    w = append_argument(kernel, _workspace_type(split, stores), split.output)
    counters = append_argument(kernel, MemRefType(i32, [DYNAMIC_INDEX]), split.output)
    _name_argument_dims(kernel, counters, ["tiles"])
    counters.name_hint = "tile_counters"
    tile = _tile_facts(walk)
    tail = _tail(split, walk)
    fixup = _clone_tail(split, stores, tail, w, tile)
    for store in stores:
        _store_partial_unless_owned(split, store, w, tile)
    _arrive_and_finish(kernel, walk, counters, tile, fixup)
    _host(split, walk, w.type)


@dataclass
class _Tile:
    contributors: SSAValue
    owned: SSAValue
    slot: SSAValue


def _tile_facts(walk: StreamWalk) -> _Tile:
    """Workgroups first = t*Kt / share .. last = ((t+1)*Kt - 1) / share walk tile t; this one's
    slot is its distance from the first."""
    kb = KernelBuilder(InsertPoint.at_start(walk.body))
    start = kb.mul(walk.tile, walk.k_iters)
    first = kb.op(arith.DivUIOp(start, walk.share), "first_contributor")
    end = kb.sub(kb.add(start, walk.k_iters), kb.index(1))
    last = kb.op(arith.DivUIOp(end, walk.share), "last_contributor")
    contributors = kb.add(kb.sub(last, first), kb.index(1), "contributors")
    owned = kb.op(arith.CmpiOp(contributors, kb.index(1), "eq"), "owned")
    slot = kb.sub(walk.wg, first, "slot")
    return _Tile(contributors, owned, slot)


def _workspace_type(split: KSplit, stores: list[Operation]) -> MemRefType:
    acc_type = split.accumulator_of(stores[0]).type
    element = acc_type.element_type if isinstance(acc_type, VectorType) else acc_type
    return MemRefType(element, [DYNAMIC_INDEX, *split.output.type.get_shape()])


def _name_argument_dims(kernel: gpu.FuncOp, arg, names: list[str]) -> None:
    dims = kernel.attributes.get(ARG_DIMS_ATTR)
    if isinstance(dims, ArrayAttr):
        entries = list(dims.data)
        entries[arg.index] = ArrayAttr([StringAttr(n) for n in names])
        kernel.attributes[ARG_DIMS_ATTR] = ArrayAttr(entries)


def _tail(split: KSplit, walk: StreamWalk) -> list[Operation]:
    """The walk body's ops from the K loop's end (or the op holding the K loop) to its yield:
    what turns the tile's sums into C."""
    ops = list(walk.body.ops)[:-1]
    holder = next(op for op in ops if op is split.loop or op.is_ancestor(split.loop))
    at = ops.index(holder)
    return ops[at + 1:] if holder is split.loop else ops[at:]


# -- the last contributor's epilogue ----------------------------------------------------------


def _clone_tail(split: KSplit, stores: list[Operation], tail: list[Operation], w: SSAValue,
                tile: _Tile) -> list[Operation]:
    """The tail again, detached, each accumulator the sum of the tile's slots of W, no K loop."""
    mapper: dict[SSAValue, SSAValue] = {}
    clones = [op.clone(value_mapper=mapper) for op in tail]
    inside = {id(o) for c in clones for o in c.walk()}
    body = tail[-1].parent_block()
    for c in clones:  # at the walk's end while they are rewritten (so that dominance can be asked)
        body.insert_op_before(c, body.last_op)
    cloned_stores = {id(s): c for op, clone in zip(tail, clones) for s, c in zip(op.walk(), clone.walk())}
    for store in stores:
        if id(store) not in cloned_stores:
            raise pass_error(split.name, store, "stream-k's fix-up: a store of C before the K loop ends")
        acc = split.accumulator_of(store)
        clone_acc = mapper.get(acc, acc)
        store_clone = cloned_stores[id(store)]
        at = clone_acc.owner if id(clone_acc.owner) in inside else _top(store_clone, body)
        total = _sum_slots(split, KernelBuilder.before(at), w, store_clone, clone_acc, tile.contributors)
        clone_acc.replace_uses_with_if(total, lambda use: id(use.operation) in inside)
        if clone_acc.owner is not split.loop and id(clone_acc.owner) in inside:
            erase_if_dead(clone_acc)
    for loop in [o for c in clones for o in c.walk() if role(o) == ROLE_K_LOOP]:
        erase_k_loop(loop)
    kept = [c for c in clones if c.parent is not None]
    for c in kept:
        c.detach()
    return kept


def _top(op: Operation, body: Block) -> Operation:
    while op.parent_block() is not body:
        op = op.parent_op()
    return op


def _sum_slots(split: KSplit, kb: KernelBuilder, w: SSAValue, store: Operation, acc: SSAValue,
               contributors: SSAValue) -> SSAValue:
    """W[0, idx] + ... + W[contributors - 1, idx] at the store's indices, in slot order."""
    indices = list(store.indices)
    for index in indices:
        if isinstance(index.owner, Operation) and not _before(index.owner, kb):
            raise pass_error(split.name, store, "stream-k's fix-up: the store's indices are computed after the "
                             "accumulator is read")

    def add_slot(b: KernelBuilder, s: SSAValue, carried):
        at = [s, *indices]
        part = b.op(vector.LoadOp(w, at, acc.type)) if isinstance(acc.type, VectorType) else b.load(w, at)
        return [b.op(arith.AddfOp(carried[0], part))]

    total = kb.for_(kb.index(0), contributors, kb.index(1), [zero_of(kb, acc.type)], add_slot, "s")
    total.results[0].name_hint = "tile_sum"
    return total.results[0]


def _before(op: Operation, kb: KernelBuilder) -> bool:
    """`op` stands before the builder's point, in its block or a block around it."""
    point = kb.b.insertion_point
    at = point.insert_before
    block = point.block
    while block is not None:
        if op.parent_block() is block:
            return at is None or op.is_before_in_block(at)
        parent = block.parent_op()
        if parent is None:
            return False
        at, block = parent, parent.parent_block()
    return False


# -- the partial sums -------------------------------------------------------------------------


def _store_partial_unless_owned(split: KSplit, store: Operation, w: SSAValue, tile: _Tile) -> None:
    """`store` runs where the workgroup owns the tile; else the raw accumulator goes to its slot."""
    acc = split.accumulator_of(store)
    then, other = Block(), Block()
    branch = scf.IfOp(tile.owned, [], [then], [other])
    Rewriter.insert_op(branch, InsertPoint.before(store))
    indices = [tile.slot, *store.indices]
    other.add_op(vector.StoreOp(acc, w, indices) if isinstance(store, vector.StoreOp)
                 else memref.StoreOp.get(acc, w, indices))
    other.add_op(scf.YieldOp())
    store.detach()
    then.add_op(store)
    then.add_op(scf.YieldOp())
    _sink_into(branch, then, acc)


def _sink_into(branch: scf.IfOp, then: Block, keep: SSAValue) -> None:
    """Move the loads and pure ops before `branch` that only it uses into `then` (the epilogue of a
    shared tile is not computed: its loads of C would race with the last contributor's store)."""
    op = branch.prev_op
    while op is not None:
        prev = op.prev_op
        movable = (not op.regions and op is not keep.owner
                   and (is_side_effect_free(op) or isinstance(op, (memref.LoadOp, vector.LoadOp)))
                   and all(branch.is_ancestor(u.operation) for r in op.results for u in r.uses)
                   and any(r.uses for r in op.results))
        if movable:
            op.detach()
            then.insert_op_before(op, then.first_op)
        op = prev


# -- arriving at the counter ------------------------------------------------------------------


def _arrive_and_finish(kernel: gpu.FuncOp, walk: StreamWalk, counters: SSAValue, tile: _Tile,
                       fixup: list[Operation]) -> None:
    flag = KernelBuilder(InsertPoint.before(walk.body.parent_op())).alloca(lds_type([1], i32), "arrived_before")
    kb = KernelBuilder(InsertPoint.before(walk.body.last_op))
    shared = kb.op(arith.CmpiOp(tile.contributors, kb.index(1), "ne"), "shared")

    def arrive(b: KernelBuilder) -> None:
        b.op(FenceOp("release", "agent"))  # this thread's partial sums, before the counter says they are there
        b.op(gpu.BarrierOp())
        first = b.land(_is_zero(b, b.thread_id("x")), b.land(_is_zero(b, b.thread_id("y")),
                                                             _is_zero(b, b.thread_id("z"))))
        b.if_(first, lambda t: _count(t, counters, walk.tile, flag))
        b.op(gpu.BarrierOp())
        before = b.load(flag, [b.index(0)], "arrived")
        others = b.op(arith.IndexCastOp(b.sub(tile.contributors, b.index(1)), i32))
        last = b.op(arith.CmpiOp(before, others, "eq"), "last")
        # (the role tells the cost model that one contributor of the tile takes it)
        b.if_(last, lambda f: _finish(f, fixup)).attributes[ROLE_ATTR] = StringAttr(ROLE_FIXUP)

    kb.if_(shared, arrive)


def _is_zero(kb: KernelBuilder, v: SSAValue) -> SSAValue:
    return kb.op(arith.CmpiOp(v, kb.index(0), "eq"))


def _count(kb: KernelBuilder, counters: SSAValue, tile: SSAValue, flag: SSAValue) -> None:
    one = kb.op(arith.ConstantOp(IntegerAttr(1, i32)))
    old = kb.op(memref.AtomicRMWOp.build(operands=[one, counters, [tile]], result_types=[i32],
                                         properties={"kind": IntegerAttr(ATOMIC_ADDI, i64)}), "arrivals")
    kb.store(old, flag, [kb.index(0)])


def _finish(kb: KernelBuilder, fixup: list[Operation]) -> None:
    kb.op(FenceOp("acquire", "agent"))  # the other contributors' partial sums, released before they counted
    for op in fixup:
        kb.b.insert(op)


# -- the host ---------------------------------------------------------------------------------


def _host(split: KSplit, walk: StreamWalk, w_type: MemRefType) -> None:
    launch = split.launch
    kb = KernelBuilder.before(launch)
    tiles = kb.mul(*walk.host_grid, "tiles")
    slots = kb.add(kb.ceildiv(launch.gridSizeX, tiles), kb.index(1), "slots")  # the persistent grid's x
    c_host = launch.kernelOperands[split.output.index]
    sizes = [slots, *(kb.dim(c_host, axis) for axis, n in enumerate(split.output.type.get_shape()) if n < 0)]
    w = kb.op(memref.AllocOp.get(w_type.element_type, shape=w_type.get_shape(), dynamic_sizes=sizes), "workspace")
    counters = kb.op(memref.AllocOp.get(i32, shape=[DYNAMIC_INDEX], dynamic_sizes=[tiles]), "tile_counters")
    flags = _flags_kernel(split.kernel)
    block = kb.index(FLAGS_BLOCK)
    one = kb.index(1)
    zeroing = gpu.LaunchFuncOp(symbol_ref(launch, flags), [kb.ceildiv(tiles, block), one, one], [block, one, one],
                               kernelOperands=[counters])
    main = gpu.LaunchFuncOp(launch.kernel, [launch.gridSizeX, launch.gridSizeY, launch.gridSizeZ],
                            [launch.blockSizeX, launch.blockSizeY, launch.blockSizeZ],
                            kernelOperands=[*launch.kernelOperands, w, counters])
    Rewriter.replace_op(launch, [zeroing, main, memref.DeallocOp.get(w), memref.DeallocOp.get(counters)])
    split.launch = main


def _flags_kernel(kernel: gpu.FuncOp) -> gpu.FuncOp:
    """@<kernel>_streamk_flags(counters): counters[i] = 0, one thread an element."""
    t = MemRefType(i32, [DYNAMIC_INDEX])
    name = fresh_symbol(kernel, f"{kernel.sym_name.data}_streamk_flags")
    flags = gpu.FuncOp(name, ([t], []), kernel=True, known_block_size=[FLAGS_BLOCK, 1, 1])
    flags.attributes[ARG_DIMS_ATTR] = ArrayAttr([ArrayAttr([StringAttr("tiles")])])
    counters = flags.body.block.args[0]
    counters.name_hint = "tile_counters"
    kb = KernelBuilder.at_end(flags.body.block)
    i = kb.add(kb.mul(kb.block_id("x", "bx"), kb.index(FLAGS_BLOCK)), kb.thread_id("x", "tx"), "i")
    inside = kb.lt(i, kb.dim(counters, 0, "tiles"), "inside")
    kb.if_(inside, lambda b: b.store(b.op(arith.ConstantOp(IntegerAttr(0, i32))), counters, [i]))
    kb.b.insert(gpu.ReturnOp([]))
    Rewriter.insert_op(flags, InsertPoint.after(kernel))
    return flags
