"""tma-copies: a pipelined wgmma kernel's tile copies as TMA boxes, one thread's, on mbarriers (sm_90a).

After multi-buffer and pipeline (and optionally wgmma-in-flight) every thread of the block issues its
part of each stage's tile copies (gemm.copy, cp.async after lower-copies) and the K loop waits for them
with cp.async.wait_group and a gpu.barrier.  This pass gives each stage's copies to one thread (tid 0)
as Hopper's tensor memory accelerator does them: per operand tile one TMA box per 128-byte panel
(nvgpu.tma_load), all completing on the stage's slot's mbarrier, whose transaction bytes that thread
arms first (nvgpu.mbarrier_arrive_expect_tx); the K loop waits on that mbarrier's phase instead.

Expects (before lower-copies; the copies are still gemm.copy):

    prologue stages P(0) .. P(d - 1)                                     (scf.if, gemm.role = "prologue")
    gpu.barrier
    for t = lo to hi step 1 {                                             (gemm.role = "k_loop")
        ... P(t + d) in an scf.if (gemm.role = "prefetch"), before or after the compute ...
        gpu.barrier
    }

over any range of tile numbers (lo = 0 for one workgroup's whole K; split-k's z-slice and stream-k's
part of a tile start elsewhere), tile t in slot (t - lo) mod F as multi-buffer puts it;

each stage's gemm.copy ops writing slot s of LDS tiles of F slots (multi-buffer's leading dimension),
by one thread id, not transposed, whole tiles ([R][C] = the copy's extents) that only wgmma descriptors
read (swizzle-lds{mode=sw128} lays them out as TMA's 128-byte swizzle writes them), 16-bit elements,
C a multiple of 64 (one 128-byte panel a box), R <= 256; the sources kernel arguments (rank 2; a grouped
B rank 3, below) whose rows are a multiple of 16 bytes (TMA's global stride; cuTensorMapEncodeTiled refuses others), the copies'
bounds the sources' sizes, or for the columns of a source pack-operands padded (gemm.zero_padded: rows of
the program's n elements, then zeros to the buffer's aligned row length) n: the box then reads the pad's
zeros up to the buffer's edge, where the copy would fill zeros in, and TMA's own zeros past it.
Sizes may be dynamic: the launcher encodes each map with the host memref's runtime sizes at every launch, so a copy's bound is the source's size where it is a memref.dim of a
kernel argument's axis that gemm.arg_dims names as the source's (C's dim 0 bounding A's rows: both
"M"); a dynamic row length must be proven a multiple of 16 bytes by gemm.assume_rows_aligned
(assume-aligned{multiple=8} for 16-bit rows, which the launch checks: the dispatch runs that twin only
where the rows are, the interpreter refuses a launch that breaks it), else refused.

A batched kernel's (gemmc.transforms.batch: gemm.batch_args) batched argument is one matrix of the
host's [Bt, rows, cols] memref, batch block_id.z / gemm.batch_split: its boxes get that batch as their
outermost coordinate, through a rank-3 tensor map of the host's memref
(box depth 1; its matrix stride, rows x the row's bytes, is a multiple of 16 bytes with the row's), which
starts at the host memref's first matrix whatever the kernel does to the argument's pointer; a broadcast
operand (not batched) keeps its rank-2 map.  A rank-3 source (a grouped product's B [G, K, N], copied at
its leading index `group`) likewise, the group as the batch coordinate.

A grouped product's A copy (gemmc.transforms.grouping) is bounded by the group's end row, %group_end,
not by A's rows: its box, from the group's first row, may run past %group_end into the next group's
rows, which TMA reads where the copy would have zeros (TMA's zero fill is at the matrix's edge only).
That is harmless exactly where no store uses those rows: a row of D = A @ B depends on the same row of
A alone (wgmma's D row i sums A row i against B), so the tile's rows past %group_end reach only D's
rows past it, and the kernel stores D's row r at C's row r.  So a copy whose row bound is not its
source's rows is taken only for A (gemm.role = "load_a"), and only where every global write of the
kernel (a store, pair store or atomic of C, ...) is proven by its scf.if guards to be at a row index
r < that bound (gemmc.transforms.guards: the grouped epilogue's `r < %group_end`, or the pair path's
else of `r >= %group_end or ...`); else refused, at the write that is not, with the reason (a write to
a buffer not of C's rows, such as split-k's workspace, too).
Produces:

    full: memref<F x i64, 3>                                 (in the kernel's entry block, outside any loop)
    ...
    if (tid == 0) { mbarrier_init full[s] {count = 1}  (s < F);  fence_proxy_async }
    gpu.barrier
    P(i): if (tid == 0) { mbarrier_arrive_expect_tx full[slot] {txBytes = the stage's box bytes}
                          tma_load src[o0, o1 + 64 p], tile[slot, 0, 64 p], full[slot] {box = [R, 64]}  (p < C / 64)
                          (a batched src: src[tma_batch, o0, o1 + 64 p], tma_batch = block_id.z / batch_split) }
    for t {  i = t - lo;  mbarrier_wait_parity full[i mod F], (i / F) mod 2;  ... as before ... }
    if (tid == 0) { mbarrier_inval full[s]  (s < F) }                     (only where the K loop is in a loop)

The boxes' swizzle is 0 here; swizzle-lds{mode=sw128}, which must follow (after lower-copies) as for the
cp.async kernel, moves each box's start to its panel's place and sets swizzle = 128: TMA's
CU_TENSOR_MAP_SWIZZLE_128B of a 128-byte-row box at a 1024-aligned panel is wgmma's layout
(gemmc.target.wgmma.physical_byte).  Elements past the matrix's edge are zeros (the tensor map's
out-of-bounds fill), so a partial tile needs no masking: the box is issued whole and counts its whole
bytes.

Why it is safe.  The mbarriers are initialized (phase 0) right before this K loop's prologue, and only
this loop's tiles arm them.  Tile u, the loop's iteration j = u - lo, goes to slot j mod F (multi-buffer's
slot), and the tiles into that slot are the iterations j mod F, j mod F + F, ... in issue order, each
completing one phase (one expect_tx arrival, count 1, plus its boxes' bytes: the phase completes exactly
when every box of the tile has landed); so tile u is phase j / F of full[j mod F].  The wait for parity
(i / F) mod 2, i = t - lo, at the top of iteration t returns once tile t is in its slot, and not earlier:
the phase before it has the other parity and the one after it is not armed until tile t + F is issued,
which happens after this wait (below).  The tile number t itself names neither: t mod F is the slot only
where lo is a multiple of F, and (t / F) mod 2 the parity only where lo is a multiple of 2F (split-k's
slice bz starts at bz x ceil(tiles / factor); stream-k's K loops start wherever a workgroup's share
does).  A K loop inside another loop (stream-k's loop over a workgroup's tiles) initializes the
mbarriers again before its next run, which PTX leaves undefined for a valid mbarrier: the leader
invalidates them after the loop, when every phase it armed has completed (each tile issued, u < hi, was
waited for by iteration u) and every thread has passed its last wait (the barrier ending the last
iteration; a loop of no iterations issued no tile); the next init's barrier then orders the new
tile's boxes after every warpgroup's wgmma_wait_group 0 of the previous one.  Slot reuse keeps the barriers the
cp.async kernel had: the TMA writing tile u = t + d into slot u mod F is issued where the copies were,
by a thread that passed the gpu.barrier ending iteration t - 1.  The slot's previous tile u - F was read
only by wgmma groups that every warpgroup retired before that barrier: with pipeline's prefetch before
the compute (d = F - 1), u - F = t - 1, whose groups wait_group 0 retired in iteration t - 1; after
wgmma-in-flight (prefetch after the compute's wait_group 1, d <= F - 2), u - F <= t - 2, whose groups
the wait_group 1 of iteration t - 1 retired.  So no read of the slot is in flight when the box starts
to land (the interpreter checks this: gemmc.interp.wgmma_async).  The mbarriers need no "empty" side for the same
reason.  fence_proxy_async orders the mbarriers' init (generic proxy) before the TMA's complete_tx
(async proxy); the barrier after it publishes the init to the other threads.

After warp-specialize (whose producer loop, gemm.role = "ws_producer", issues each tile's copies by its
128 threads and arrives on full[slot] with cp.async.mbarrier.arrive.noinc): the copies become the first
producer thread's expect_tx and boxes on full[slot], the noinc arrive goes, and full's mbarriers expect one
arrival a phase (the expect_tx) instead of 128; a fence_proxy_async follows their init.  The empty
mbarriers keep ordering slot reuse exactly as warp-specialize argues: the leader is one of the producer
threads that waited for the slot's empty phase before issuing, so its boxes start after every consumer
warpgroup released the slot.

Diagnostics, each naming the op: no pipelined K loop, copies already lowered (run before lower-copies),
a K loop not in steps of 1, a stage whose copies are not by one thread id or to one slot, a
transposing copy (TMA copies a box as stored), a tile that is not whole or not read by wgmma (the TMA's
layout is the 128-byte swizzle's alone), a row that is not a multiple of 128 bytes or rows over 256,
source rows not a multiple of 16 bytes (or, dynamic, not proven one; pack-operands pads static ones), a bound
of columns that is not the source's (nor its zero-padded rows' program length), a bound of rows short of the
source's on a copy that is not A's or in a kernel with a global write not masked to it (named at that write),
a kernel that already has TMA copies.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, gpu, memref, scf, vector
from xdsl.dialects.builtin import ArrayAttr, IntegerAttr, MemRefType, ModuleOp, StringAttr, i64
from xdsl.ir import BlockArgument, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from gemmc.dialects.gemm import AssumeRowsAlignedOp, CopyOp
from gemmc.dialects.nvgpu import (
    CpAsyncMbarrierArriveOp,
    DeviceAsyncCopyOp,
    FenceProxyAsyncOp,
    MbarrierArriveExpectTxOp,
    MbarrierInitOp,
    MbarrierInvalOp,
    MbarrierWaitParityOp,
    TmaLoadOp,
    WgmmaDescOp,
)
from gemmc.support.diagnostics import pass_error
from gemmc.support.ir_names import ARG_DIMS_ATTR, LDS_SPACE, PRIVATE_SPACE, ROLE_K_LOOP, ROLE_LOAD_A, ROLE_WS_PRODUCER, memory_space
from gemmc.target import tma, wgmma
from gemmc.target.resources import ELEMENT_BYTES
from gemmc.transforms.contraction import prefetch_stage, prologue_stages, role
from gemmc.transforms.kernel_builder import constant_value, index_constant as _idx
from gemmc.transforms.batch import batch_args, batch_split
from gemmc.transforms.guards import proven_less
from gemmc.transforms.lds_access import row_multiple
from gemmc.transforms.packing import zero_padded

NAME = "tma-copies"


@dataclass(frozen=True)
class TmaCopiesPass(ModulePass):
    name = NAME

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        done = next((o for o in op.walk() if isinstance(o, TmaLoadOp)), None)
        if done is not None:
            raise pass_error(NAME, done, "this kernel already has TMA copies")
        loops = [o for o in op.walk() if isinstance(o, scf.ForOp) and role(o) == ROLE_K_LOOP and prefetch_stage(o)]
        producers = [o for o in op.walk() if isinstance(o, scf.ForOp) and role(o) == ROLE_WS_PRODUCER]
        if not loops and not producers:
            raise pass_error(NAME, op, "found no pipelined K loop (a prefetch scf.if inside it) and no "
                             "warp-specialized producer; run multi-buffer and pipeline first")
        for loop in loops:
            rewrite(loop)
        for loop in producers:
            rewrite_producer(loop)


def _leader(tid: SSAValue) -> tuple[list[Operation], SSAValue]:
    """The ops computing whether this thread is the one that issues the TMA (thread 0), and that flag."""
    zero = _idx(0)
    leader = arith.CmpiOp(tid, zero.results[0], "eq")
    leader.results[0].name_hint = "tma_leader"
    return [zero, leader], leader.results[0]


def _stages(loop: scf.ForOp) -> list[scf.IfOp]:
    """The prologue's stages before the K loop (and the barrier that ends them), in order."""
    end = loop.prev_op
    if not isinstance(end, gpu.BarrierOp):
        raise pass_error(NAME, loop, "expects the gpu.barrier that ends the prologue right before the K loop")
    return prologue_stages(end)


def rewrite(loop: scf.ForOp) -> None:
    placed = next((o for o in loop.walk() if isinstance(o, DeviceAsyncCopyOp)), None)
    if placed is not None:
        raise pass_error(NAME, placed, "the K loop's cp.async are already placed; run tma-copies before lower-copies")
    if constant_value(loop.step) != 1:
        raise pass_error(NAME, loop, "expects a K loop in steps of 1 (over tile numbers)")
    if not isinstance(loop.body.block.last_op.prev_op, gpu.BarrierOp):
        raise pass_error(NAME, loop, "expects the K loop's gpu.barrier at its end (the slot-reuse order it keeps)")
    stages = [*_stages(loop), prefetch_stage(loop)]
    copies = [[o for o in s.walk() if isinstance(o, CopyOp)] for s in stages]
    for stage, cs in zip(stages, copies):
        if not cs:
            raise pass_error(NAME, stage, "a pipeline stage without gemm.copy ops")
    all_copies = [c for cs in copies for c in cs]
    tid = all_copies[0].tid
    slots = set()
    for c in all_copies:
        _check_copy(c, tid)
        slots.add(c.dst.type.get_shape()[0])
    if len(slots) != 1:
        raise pass_error(NAME, loop, f"the stages' tiles have different slot counts {sorted(slots)}; expects one "
                         "multi-buffer factor")
    (f,) = slots

    # the mbarriers, one a slot, allocated in the kernel's entry block (outside any loop: one allocation,
    # as __shared__ is), initialized by the leader before the prologue
    first = stages[0]
    full = memref.AllocaOp.get(i64, shape=[f], memory_space=IntegerAttr(LDS_SPACE, i64))
    full.results[0].name_hint = "full"
    Rewriter.insert_op(full, InsertPoint.before(_in_entry_block(first)))
    bars = full.results[0]
    flag_ops, leader = _leader(tid)
    flag_ops += (batch_ops := _batch(loop))[0]
    init_if = scf.IfOp(leader, [], [*_each_slot(f, lambda i: MbarrierInitOp(bars, [i], 1)), FenceProxyAsyncOp(),
                                    scf.YieldOp()])
    Rewriter.insert_op([*flag_ops, init_if, gpu.BarrierOp()], InsertPoint.before(first))
    if _in_loop(loop):  # the init runs again: PTX leaves an init of a valid mbarrier undefined
        inval = scf.IfOp(leader, [], [*_each_slot(f, lambda i: MbarrierInvalOp(bars, [i])), scf.YieldOp()])
        Rewriter.insert_op(inval, InsertPoint.after(loop))

    for cs in copies:
        _to_tma(cs, bars, leader, batch_ops[1])
    Rewriter.insert_op(_wait(loop, bars, f), InsertPoint.at_start(loop.body.block))


def _wait(loop: scf.ForOp, full: SSAValue, f: int) -> list[Operation]:
    """The consumers' wait at the top of iteration t for tile t: iteration i = t - lo of the loop, so
    slot i mod F, parity (i / F) mod 2 (module docstring)."""
    i = arith.SubiOp(loop.body.block.args[0], loop.lb)
    i.results[0].name_hint = "k_iter"
    fc, two = _idx(f), _idx(2)
    slot = arith.RemUIOp(i.results[0], fc.results[0])
    slot.results[0].name_hint = "full_slot"
    rnd = arith.DivUIOp(i.results[0], fc.results[0])
    par = arith.RemUIOp(rnd.results[0], two.results[0])
    par.results[0].name_hint = "full_parity"
    return [i, fc, two, slot, rnd, par, MbarrierWaitParityOp(full, [slot.results[0]], par.results[0])]


def _is_batched(src: SSAValue) -> bool:
    return isinstance(src, BlockArgument) and src.index in batch_args(src.block.parent_op())


def _each_slot(f: int, make) -> list[Operation]:
    ops: list[Operation] = []
    for s in range(f):
        sc = _idx(s)
        ops += [sc, make(sc.results[0])]
    return ops


def _in_entry_block(op: Operation) -> Operation:
    """The op of its gpu.func's entry block that is or holds `op`."""
    while not isinstance(op.parent_op(), gpu.FuncOp):
        if op.parent_op() is None:
            raise pass_error(NAME, op, "expects the K loop inside a gpu.func")
        op = op.parent_op()
    return op


def _in_loop(loop: scf.ForOp) -> bool:
    """Whether the K loop runs more than once a kernel (stream-k's loop over its tiles holds it)."""
    op = loop.parent_op()
    while op is not None and not isinstance(op, gpu.FuncOp):
        if isinstance(op, scf.ForOp | scf.WhileOp):
            return True
        op = op.parent_op()
    return False


def _check_copy(c: CopyOp, tid: SSAValue) -> None:
    if c.tid is not tid:
        raise pass_error(NAME, c, "expects every stage's gemm.copy by one thread id")
    if c.transpose is not None:
        raise pass_error(NAME, c, "a transposing copy: TMA copies a box as it is stored, so a tile stored the other "
                         "way than the operand cannot be one (matrix-cores keeps wgmma tiles as stored: run it so)")
    src, dst = c.src, c.dst
    name = src.name_hint or "source"
    if not isinstance(src, BlockArgument):
        raise pass_error(NAME, c, f"%{name} is not an argument of the kernel: its tensor map is made by the launcher")
    shape = src.type.get_shape()
    eb = ELEMENT_BYTES.get(str(src.type.element_type), 0)
    if (row_multiple(src) * eb) % tma.STRIDE_BYTES:
        if shape[-1] < 0:
            fix = (f"run assume-aligned{{multiple={tma.STRIDE_BYTES // max(eb, 1)}}} (the launch must check it)"
                   if len(shape) == 2 else "assume-aligned takes 2-D matrices only")
            raise pass_error(NAME, c, f"%{name}'s rows are of a dynamic length not known to be a multiple of "
                             f"{tma.STRIDE_BYTES} bytes (a tensor map's global stride must be): {fix}")
        raise pass_error(NAME, c, f"%{name}'s rows are {shape[-1]} x {eb} bytes, not a multiple of "
                         f"{tma.STRIDE_BYTES}: a tensor map's global stride must be")
    if not _is_size(c.cols, src, -1) and not _zeros_past(c.cols, src):
        raise pass_error(NAME, c, f"the copy's bound of columns is not %{name}'s {_size_text(shape[-1])}: TMA's zero "
                         "fill is at the matrix's edge")
    if not _is_size(c.rows, src, -2):
        _check_rows_masked(c, name, _size_text(shape[-2]))
    r, cols = c.tile
    if list(dst.type.get_shape()[-2:]) != [r, cols]:
        raise pass_error(NAME, c, f"a {r}x{cols} copy into a {dst.type} tile: a TMA box fills a whole tile")
    if len(c.indices) != 1:
        raise pass_error(NAME, c, "expects a tile with one leading index, its slot (multi-buffer)")
    if not any(isinstance(u.operation, WgmmaDescOp) for u in dst.uses):
        raise pass_error(NAME, c, f"%{dst.name_hint or 'tile'} is not read by wgmma descriptors: TMA writes the "
                         "128-byte swizzle, which only wgmma's tiles are laid out in (swizzle-lds{mode=sw128})")
    if eb != 2 or (cols * eb) % wgmma.SWIZZLE_BYTES or r % wgmma.ATOM_ROWS or r > tma.BOX_MAX:
        raise pass_error(NAME, c, f"a {r}x{cols} tile of {eb}-byte elements: TMA's 128-byte swizzle boxes take 16-bit "
                         f"rows of a multiple of {wgmma.SWIZZLE_BYTES} bytes and 8 .. {tma.BOX_MAX} rows a multiple of 8")


def _is_size(bound: SSAValue, src: BlockArgument, axis: int) -> bool:
    """Whether `bound` is src's size along `axis` (of its matrix, from the end): the constant where it is
    static, else a memref.dim of a kernel argument's axis that gemm.arg_dims names as src's (the same
    dim of the program: the launcher encodes the map with src's size, the copy bounds at this one)."""
    size = src.type.get_shape()[axis]
    if size >= 0:
        return constant_value(bound) == size
    dim = bound.owner
    if not isinstance(dim, memref.DimOp) or not isinstance(dim.source, BlockArgument):
        return False
    at = constant_value(dim.index)
    other = dim.source
    if at is None or other.block is not src.block:
        return False
    if other is src:
        return at == src.type.get_num_dims() + axis
    names = _dim_names(src.block.parent_op())
    mine, theirs = names.get(src.index, []), names.get(other.index, [])
    return len(mine) >= -axis and 0 <= at < len(theirs) and theirs[at] == mine[axis]


def _zeros_past(bound: SSAValue, src: BlockArgument) -> bool:
    """Whether `src` is zero-padded past `bound` columns (pack-operands' gemm.zero_padded): its box reads the
    pad's zeros where the copy would fill zeros in."""
    cols = zero_padded(src.block.parent_op()).get(src.index)
    return cols is not None and constant_value(bound) == cols


def _dim_names(kernel: Operation) -> dict[int, list[str]]:
    """The program's dim names of each kernel argument's axes (gemm.arg_dims; a batched argument's have
    the batch first, so an axis counted from the end names the matrix's)."""
    attr = kernel.attributes.get(ARG_DIMS_ATTR)
    if not isinstance(attr, ArrayAttr):
        return {}
    return {i: [d.data for d in e.data if isinstance(d, StringAttr)] for i, e in enumerate(attr.data)
            if isinstance(e, ArrayAttr)}


def _size_text(n: int) -> str:
    return str(n) if n >= 0 else "dynamic size"


def _check_rows_masked(c: CopyOp, name: str, rows: str) -> None:
    """A's copy bounded by rows `c.rows` short of its matrix's (a grouped kernel's group end): its box
    reads A's rows past that bound, harmless only where every global store of the kernel is masked to
    rows < the bound (module docstring); refused, at the store that is not, otherwise."""
    bound = c.rows.name_hint or "bound"
    if role(c) != ROLE_LOAD_A:
        raise pass_error(NAME, c, f"the copy's bound of rows (%{bound}) is not %{name}'s {rows}: TMA's zero fill is "
                         "at the matrix's edge, and only A's rows past the bound may be read (where C's stores mask them)")
    kernel = _in_entry_block(c).parent_op()
    for w in kernel.walk():
        target = _written(w)
        if target is None:
            continue
        what = f"{w.name} to %{target.name_hint or 'a global buffer'}"
        if target.type.get_num_dims() != 2:
            raise pass_error(NAME, w, f"{what} (not a matrix: its rows are not A's): A's TMA box reads past "
                             f"%{bound}, which only stores masked to rows < %{bound} make harmless")
        if not proven_less(w, _indices(w)[0], c.rows):
            raise pass_error(NAME, w, f"{what} is not masked to rows < %{bound} by its scf.if guards: A's TMA box "
                             f"reads the rows past %{bound} (the next group's), which only such a mask makes harmless")


_GLOBAL_READS = (memref.LoadOp, vector.LoadOp, CopyOp, memref.DimOp, AssumeRowsAlignedOp)  # the rest may write


def _written(op: Operation) -> SSAValue | None:
    """The global memref `op` may write (a kernel's store, atomic, ...), None for a read or none."""
    if isinstance(op, _GLOBAL_READS):
        return None
    for v in op.operands:
        t = v.type
        if isinstance(t, MemRefType) and memory_space(t) not in (LDS_SPACE, PRIVATE_SPACE):
            return v
    return None


def _indices(op: Operation) -> list[SSAValue]:
    if not hasattr(op, "indices"):
        raise pass_error(NAME, op, f"{op.name} writes global memory at no indices tma-copies can read")
    return list(op.indices)


def _batch(loop: scf.ForOp) -> tuple[list[Operation], SSAValue | None]:
    """In a batched kernel (gemmc.transforms.batch), the ops computing the workgroup's batch,
    block_id.z / batch_split, and that value: a batched argument's boxes' batch coordinate."""
    kernel = _in_entry_block(loop).parent_op()
    if not batch_args(kernel):
        return [], None
    z = gpu.BlockIdOp(gpu.DimensionAttr(gpu.DimensionEnum("z")))
    split = batch_split(kernel)
    if split == 1:
        z.results[0].name_hint = "tma_batch"
        return [z], z.results[0]
    sc = _idx(split)
    b = arith.DivUIOp(z.results[0], sc.results[0])
    b.results[0].name_hint = "tma_batch"
    return [z, sc, b], b.results[0]


def _to_tma(copies: list[CopyOp], full: SSAValue, leader: SSAValue, batch: SSAValue | None) -> None:
    """One stage's copies as the leader's expect_tx and TMA boxes, in place of the copies; a batched
    argument's boxes at the workgroup's `batch` of its host memref."""
    slot = copies[0].indices[0]
    if any(c.indices[0] is not slot for c in copies):
        raise pass_error(NAME, copies[0], "expects one stage's copies into one slot")
    ops: list[Operation] = []
    total = 0
    for c in copies:
        r, cols = c.tile
        per = wgmma.SWIZZLE_BYTES // ELEMENT_BYTES[str(c.src.type.element_type)]
        for p in range(cols // per):
            at = _idx(p * per)
            col = arith.AddiOp(c.o1, at.results[0])
            zero = _idx(0)
            at_batch = [c.group] if c.group is not None else [batch] if _is_batched(c.src) else []
            load = TmaLoadOp(c.src, [*at_batch, c.o0, col.results[0]], c.dst, [slot, zero.results[0], at.results[0]],
                             full, [slot], (r, per))
            if "gemm.role" in c.attributes:
                load.attributes["gemm.role"] = c.attributes["gemm.role"]
            ops += [at, col, zero, load]
            total += load.box_bytes()
    issue = scf.IfOp(leader, [], [MbarrierArriveExpectTxOp(full, [slot], total), *ops, scf.YieldOp()])
    Rewriter.insert_op(issue, InsertPoint.before(copies[0]))
    for c in copies:
        c.detach()
        c.erase()


def rewrite_producer(loop: scf.ForOp) -> None:
    """warp-specialize's producer loop: its 128 threads' copies and noinc arrive on full[slot] become the
    first producer thread's expect_tx and TMA boxes on full[slot], whose phases then expect one arrival."""
    body = loop.body.block
    copies = [o for o in body.ops if isinstance(o, CopyOp)]
    arrive = next((o for o in body.ops if isinstance(o, CpAsyncMbarrierArriveOp)), None)
    if not copies or arrive is None or arrive.prev_op is not copies[-1]:
        raise pass_error(NAME, loop, "expects warp-specialize's producer loop: the tile's gemm.copy ops, then "
                         "nvgpu.cp_async_mbarrier_arrive on the slot's full mbarrier")
    tid = copies[0].tid
    for c in copies:
        _check_copy(c, tid)
    full = arrive.bars
    inits = [u.operation for u in full.uses if isinstance(u.operation, MbarrierInitOp)]
    if not inits:
        raise pass_error(NAME, arrive, "found no nvgpu.mbarrier_init of the full mbarriers")
    flag_ops, leader = _leader(tid)
    batch_ops, batch = _batch(loop)
    Rewriter.insert_op([*flag_ops, *batch_ops], InsertPoint.before(copies[0]))
    _to_tma(copies, full, leader, batch)
    arrive.detach()
    arrive.erase()
    block = inits[-1].parent_block()
    for init in inits:  # one arrival a phase now: the leader's expect_tx
        Rewriter.replace_op(init, MbarrierInitOp(full, list(init.indices), 1))
    if not any(isinstance(o, FenceProxyAsyncOp) for o in block.ops):  # the inits seen by the async proxy
        last = [o for o in block.ops if isinstance(o, MbarrierInitOp)][-1]
        Rewriter.insert_op(FenceProxyAsyncOp(), InsertPoint.after(last))
