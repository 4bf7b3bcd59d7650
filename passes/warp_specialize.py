"""warp-specialize: a producer warpgroup feeds the wgmma warpgroups through mbarriers (sm_90a).

After `wgmma-in-flight` every thread issues the cp.async copies of the tile d' ahead and the block
meets at a gpu.barrier each K tile.  This pass gives the copies to one extra warpgroup, as CUTLASS's
sm90 warp-specialized mainloop (PipelineAsync) and FlashAttention-3 do, and drops every barrier of
the loop: each of the F LDS slots gets a "full" and an "empty" mbarrier.

Expects: wgmma-in-flight's form, before lower-copies (the copies are still gemm.copy):

    prologue stages P(0) .. P(d' - 1); gpu.barrier
    for t = 0 to n step 1 {                                               (gemm.role = "k_loop")
        compute { wgmma_fence; wgmma_mma_async ...; wgmma_commit_group; wgmma_wait_group 1 }
        if (t + d' < n) { P(t + d') }                                     (gemm.role = "prefetch")
        gpu.barrier
    }
    wgmma_wait_group 0; epilogue

in a gpu.func of 128 x W x 1 threads (warpgroup w = thread_id y, as matrix-cores lays wgmma kernels out),
the prefetch's LDS tiles having F >= 2 slots (multi-buffer's leading dimension), the tile's slot t mod F.
Produces, with the block grown to 128 x (W + 1) x 1 (gpu.known_block_size and the launch's block y:
the launcher follows from the IR):

    full, empty: memref<F x i64, 3>
    if (tid == 0) { mbarrier_init full[s] {count = 128}; mbarrier_init empty[s] {count = 128 W} }   s < F
    gpu.barrier
    if (ty >= W) {                                                        (gemm.role = "ws_producer")
        setmaxnreg dec 40
        for t = 0 to n {
            if (t >= F) mbarrier_wait_parity empty[t mod F], (t / F - 1) mod 2
            P(t), by the 128 producer threads (gemm.copy ... tid (tid - 128 W) {gemm.threads = 128})
            cp_async_mbarrier_arrive full[t mod F]                        (noinc: full's count is the 128)
        }
    } else {
        setmaxnreg inc 232
        for t = 0 to n {                                                  (gemm.role = "k_loop")
            mbarrier_wait_parity full[t mod F], (t / F) mod 2
            compute { ...; wgmma_wait_group 1 }
            if (t >= 1) mbarrier_arrive empty[(t - 1) mod F]
        }
        wgmma_wait_group 0; epilogue
    }

The if on ty carries gemm.role = "warp_specialized": the interpreter runs its two branches as
coroutines that switch where an mbarrier wait cannot complete (gemmc.interp.mbarrier).

Why it is safe.  Slot s holds tiles s, s + F, s + 2F, ...; the r-th use (tile t = s + rF) is phase r of
full[s] and phase r - 1 of empty[s].  full[s] expects the 128 producer threads' noinc arrivals, each of
which fires only once every cp.async that thread issued before it landed, so phase r completes exactly
when tile t is in the slot; a consumer waits for parity r mod 2 before its wgmma read the slot (the
parity of phase r: phases r - 1 and r + 1 have the other parity, and the wait cannot pass on phase
r - 2's because the consumer itself already waited for r - 1).  The fence.proxy.async of wgmma_fence then
orders the landed (generic-proxy) data before the wgmma's async-proxy reads.  A consumer warpgroup
releases slot (t - 1) mod F after the wgmma_wait_group 1 of iteration t, which retired its group t - 1
(the last reader of tile t - 1); empty[s] expects all 128 W consumer threads, so phase r - 1 of empty[s]
completes once every warpgroup retired its reads of tile t - F, and the producer waits for it (parity
(r - 1) mod 2) before writing tile t there.  The first F tiles need no wait (the slots are fresh).  The
producer thus runs at most F tiles ahead and needs no barrier; consumers need F >= 2 (with one slot,
tile t + 1 would wait on the release of tile t, which comes after tile t + 1's wait: a deadlock).  The
epilogue is the consumers' alone (the producer's accumulators hold nothing).

setmaxnreg (`maxnreg=true`, W = 2 only): the producer drops to 40 registers a thread and the consumers
rise to 232 (40 x 128 + 232 x 256 = 64512 <= 65536).

Diagnostics, each naming the op: no wgmma-in-flight K loop (run wgmma-in-flight first), cp.async already
placed (run before lower-copies), a K loop not from 0 in steps of 1, a block not 128 x W x 1, fewer
than 2 slots, a kernel already warp-specialized, a gpu.barrier after the K loop (an epilogue through LDS:
the producer, gone by then, would not reach it).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, gpu, memref, scf
from xdsl.dialects.builtin import (
    DenseArrayBase,
    DictionaryAttr,
    IndexType,
    IntegerAttr,
    ModuleOp,
    i32,
    i64,
)
from xdsl.ir import Block, Operation, Region
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from gemmc.dialects.gemm import CopyOp
from gemmc.dialects.nvgpu import (
    CpAsyncMbarrierArriveOp,
    DeviceAsyncCopyOp,
    MbarrierArriveOp,
    MbarrierInitOp,
    MbarrierWaitParityOp,
    SetMaxNRegOp,
    WgmmaWaitGroupOp,
)
from gemmc.support.diagnostics import pass_error
from gemmc.support.ir_names import LDS_SPACE, ROLE_K_LOOP, ROLE_WS_PRODUCER
from gemmc.transforms.contraction import prefetch_stage, prologue_stages, role, set_role
from gemmc.transforms.copy_lowering import COPY_THREADS_ATTR
from gemmc.transforms.k_split import erase_if_dead
from gemmc.transforms.kernel_builder import constant_value, index_constant as _idx
from gemmc.transforms.lds_access import written_memref

NAME = "warp-specialize"
WARPGROUP = 128
ROLE_WS = "warp_specialized"
ROLE_PRODUCER = ROLE_WS_PRODUCER
PRODUCER_REGS, CONSUMER_REGS = 40, 232


@dataclass(frozen=True)
class WarpSpecializePass(ModulePass):
    name = NAME

    maxnreg: bool = True  # setmaxnreg: producer dec 40, consumers inc 232 (two consumer warpgroups only)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if any(role(o) == ROLE_WS for o in op.walk()):
            raise pass_error(NAME, next(o for o in op.walk() if role(o) == ROLE_WS), "this kernel is already warp-specialized")
        loops = [o for o in op.walk() if isinstance(o, scf.ForOp) and role(o) == ROLE_K_LOOP and prefetch_stage(o) is not None]
        if not loops:
            raise pass_error(NAME, op, "found no pipelined K loop (a prefetch scf.if inside it); run pipeline and "
                             "wgmma-in-flight first")
        for loop in loops:
            specialize(op, loop, self.maxnreg)


def specialize(module: ModuleOp, loop: scf.ForOp, maxnreg: bool = True) -> None:
    prefetch = prefetch_stage(loop)
    kernel = loop.parent_op()
    while kernel is not None and not isinstance(kernel, gpu.FuncOp):
        kernel = kernel.parent_op()
    if kernel is None or kernel.known_block_size is None:
        raise pass_error(NAME, loop, "expects the K loop in a gpu.func with gpu.known_block_size")
    block = [int(v) for v in kernel.known_block_size.get_values()]
    if block[0] != WARPGROUP or block[2] != 1:
        raise pass_error(NAME, kernel, f"expects a block of 128 x W x 1 threads (one warpgroup per thread_id y, as "
                         f"matrix-cores lays a wgmma kernel out); this one is {block[0]} x {block[1]} x {block[2]}")
    consumers = block[1]
    placed = next((o for o in loop.walk() if isinstance(o, DeviceAsyncCopyOp)), None)
    if placed is not None:
        raise pass_error(NAME, placed, "the K loop's cp.async are already placed; run warp-specialize before lower-copies")
    waits = [o for o in loop.walk() if isinstance(o, WgmmaWaitGroupOp)]
    if len(waits) != 1 or waits[0].groups != 1:
        raise pass_error(NAME, waits[0] if waits else loop, "expects wgmma-in-flight's K loop (one "
                         "nvgpu.wgmma_wait_group {numGroups = 1}); run wgmma-in-flight first")
    after = loop.next_op
    if not (isinstance(after, WgmmaWaitGroupOp) and after.groups == 0):
        raise pass_error(NAME, loop, "expects the nvgpu.wgmma_wait_group {numGroups = 0} that wgmma-in-flight "
                         "places after the K loop")
    body = loop.body.block
    barrier = body.last_op.prev_op
    if not isinstance(barrier, gpu.BarrierOp) or prefetch.next_op is not barrier:
        raise pass_error(NAME, loop, "expects the K loop as wgmma-in-flight leaves it: compute, prefetch, gpu.barrier")
    if constant_value(loop.lb) != 0 or constant_value(loop.step) != 1:
        raise pass_error(NAME, loop, "expects a K loop from 0 in steps of 1 (over tile numbers)")
    copies = [o for o in prefetch.walk() if isinstance(o, CopyOp)]
    if not copies or any(o.tid is not copies[0].tid for o in copies):
        raise pass_error(NAME, prefetch, "expects the prefetch's gemm.copy ops, all by one thread id")
    tid = copies[0].tid
    written = [m for o in prefetch.walk() if (m := written_memref(o)) is not None]
    slots = min(m.type.get_shape()[0] for m in written)
    if slots < 2:
        raise pass_error(NAME, prefetch, f"the prefetch's LDS tiles have {slots} slot; a producer and its consumers "
                         "need at least 2 (the consumers release a slot only after waiting for the next one's tile); "
                         "run multi-buffer")
    ty = next((o.results[0] for o in kernel.walk() if isinstance(o, gpu.ThreadIdOp) and o.dimension.data == gpu.DimensionEnum("y")), None)
    if ty is None:
        raise pass_error(NAME, kernel, "expects the kernel to read gpu.thread_id y (its warpgroup)")
    if ty.owner.parent_block() is not loop.parent_block():
        raise pass_error(NAME, ty.owner, "expects gpu.thread_id y in the kernel's entry block")

    # the prologue and the barrier after it go: the producer loop issues every tile
    cur = loop.prev_op
    if not isinstance(cur, gpu.BarrierOp):
        raise pass_error(NAME, loop, "expects the gpu.barrier that ends the prologue right before the K loop")
    prologue_end = cur
    stages = prologue_stages(prologue_end)
    at = InsertPoint.before(prologue_end)

    # mbarriers, initialized by thread 0, visible after a barrier
    full, empty = memref.AllocaOp.get(i64, shape=[slots], memory_space=IntegerAttr(LDS_SPACE, i64)), \
        memref.AllocaOp.get(i64, shape=[slots], memory_space=IntegerAttr(LDS_SPACE, i64))
    full.results[0].name_hint, empty.results[0].name_hint = "full", "empty"
    zero, one, f_c, w_c = _idx(0), _idx(1), _idx(slots), _idx(consumers)
    is_first = arith.CmpiOp(tid, zero.results[0], "eq")
    is_first.results[0].name_hint = "is_first"
    inits: list[Operation] = []
    for s in range(slots):
        sc = _idx(s)
        inits += [sc, MbarrierInitOp(full.results[0], [sc.results[0]], WARPGROUP),
                  MbarrierInitOp(empty.results[0], [sc.results[0]], WARPGROUP * consumers)]
    init_if = scf.IfOp(is_first.results[0], [], [*inits, scf.YieldOp()])
    Rewriter.insert_op([full, empty, zero, one, f_c, w_c, is_first, init_if], at)
    for stage in stages:
        cond = stage.cond
        stage.detach()
        stage.erase()
        erase_if_dead(cond)
    # prologue_end stays: the barrier that publishes the mbarriers' initialization
    full_v, empty_v = full.results[0], empty.results[0]

    # the producer: P(t) for every t, after the slot's release
    iv_block = Block(arg_types=[IndexType()])
    t = iv_block.args[0]
    t.name_hint = "t"
    nxt = prefetch.cond.owner.lhs  # t + d' in the consumer loop
    mapping = {nxt: t}
    ops: list[Operation] = []
    base = _idx(WARPGROUP * consumers)
    ptid = arith.SubiOp(tid, base.results[0])
    ptid.results[0].name_hint = "ptid"
    slot = arith.RemUIOp(t, f_c.results[0])
    slot.results[0].name_hint = "slot"
    reuse = arith.CmpiOp(t, f_c.results[0], "uge")
    reuse.results[0].name_hint = "reuse"
    rnd = arith.DivUIOp(t, f_c.results[0])
    prev = arith.SubiOp(rnd.results[0], one.results[0])
    two = _idx(2)
    par = arith.RemUIOp(prev.results[0], two.results[0])
    par.results[0].name_hint = "empty_parity"
    wait_empty = scf.IfOp(reuse.results[0], [], [rnd, prev, two, par,
                                                  MbarrierWaitParityOp(empty_v, [slot.results[0]], par.results[0]),
                                                  scf.YieldOp()])
    ops += [slot, reuse, wait_empty]
    for o in list(prefetch.true_region.block.ops):
        if isinstance(o, scf.YieldOp):
            continue
        c = o.clone(value_mapper=mapping)
        if isinstance(c, CopyOp):
            c.operands[list(o.operands).index(tid)] = ptid.results[0]
            c.attributes[COPY_THREADS_ATTR] = IntegerAttr(WARPGROUP, i64)
        ops.append(c)
    ops += [CpAsyncMbarrierArriveOp(full_v, [slot.results[0]]), scf.YieldOp()]
    iv_block.add_ops(ops)
    producer_loop = scf.ForOp(loop.lb, loop.ub, loop.step, [], Region(iv_block))
    set_role(producer_loop, ROLE_PRODUCER)

    # the consumers: wait for the tile, release the previous one after its group retired
    compute_end = prefetch.prev_op
    prefetch_cond = prefetch.cond
    prefetch.detach()
    prefetch.erase()
    barrier.detach()
    barrier.erase()
    erase_if_dead(prefetch_cond)
    ct = body.args[0]
    cslot = arith.RemUIOp(ct, f_c.results[0])
    cslot.results[0].name_hint = "full_slot"
    crnd = arith.DivUIOp(ct, f_c.results[0])
    ctwo = _idx(2)
    cpar = arith.RemUIOp(crnd.results[0], ctwo.results[0])
    cpar.results[0].name_hint = "full_parity"
    Rewriter.insert_op([cslot, crnd, ctwo, cpar, MbarrierWaitParityOp(full_v, [cslot.results[0]], cpar.results[0])],
                       InsertPoint.at_start(body))
    had = arith.CmpiOp(ct, one.results[0], "uge")
    had.results[0].name_hint = "has_prev"
    pt = arith.SubiOp(ct, one.results[0])
    pslot = arith.RemUIOp(pt.results[0], f_c.results[0])
    pslot.results[0].name_hint = "empty_slot"
    release = scf.IfOp(had.results[0], [], [pt, pslot, MbarrierArriveOp(empty_v, [pslot.results[0]]), scf.YieldOp()])
    Rewriter.insert_op([had, release], InsertPoint.after(compute_end))

    # the split: ty >= W produces, the rest consume and write C
    is_prod = arith.CmpiOp(ty, w_c.results[0], "uge")
    is_prod.results[0].name_hint = "is_producer"
    moved = []
    cur = loop
    while cur is not None and not isinstance(cur, gpu.ReturnOp):
        moved.append(cur)
        cur = cur.next_op
    synced = next((b for o in moved for b in o.walk() if isinstance(b, gpu.BarrierOp)), None)
    if synced is not None:
        raise pass_error(NAME, synced, "a gpu.barrier after the K loop: the producer warpgroup has left by then, so "
                         "only the consumers would reach it; warp-specialize takes an epilogue without barriers")
    Rewriter.insert_op(is_prod, InsertPoint.before(loop))
    split = scf.IfOp(is_prod.results[0], [], [scf.YieldOp()], [scf.YieldOp()])
    Rewriter.insert_op(split, InsertPoint.before(loop))
    set_role(split, ROLE_WS)
    pblock, cblock = split.true_region.block, split.false_region.block
    prod_ops: list[Operation] = [base, ptid, producer_loop]
    cons_ops: list[Operation] = []
    if maxnreg and consumers == 2:
        prod_ops.insert(0, SetMaxNRegOp(PRODUCER_REGS, "dec"))
        cons_ops.append(SetMaxNRegOp(CONSUMER_REGS, "inc"))
    for o in prod_ops:
        pblock.insert_op_before(o, pblock.last_op)
    for o in cons_ops:
        cblock.insert_op_before(o, cblock.last_op)
    for o in moved:
        o.detach()
        cblock.insert_op_before(o, cblock.last_op)

    _grow_block(module, kernel, consumers + 1)


def _grow_block(module: ModuleOp, kernel: gpu.FuncOp, threads_y: int) -> None:
    """known_block_size y and the launches' block y become threads_y (the launcher follows the IR)."""
    sizes = [int(v) for v in kernel.known_block_size.get_values()]
    sizes[1] = threads_y
    kernel.attributes["gpu.known_block_size"] = DenseArrayBase.from_list(i32, sizes)
    sched = kernel.attributes.get("gemm.schedule")
    if isinstance(sched, DictionaryAttr) and "threads_y" in sched.data:
        data = dict(sched.data)
        data["threads_y"] = IntegerAttr(threads_y, i64)
        kernel.attributes["gemm.schedule"] = DictionaryAttr(data)
    name = kernel.sym_name.data
    launches = [o for o in module.walk() if isinstance(o, gpu.LaunchFuncOp)
                and o.kernel.nested_references and o.kernel.nested_references.data[-1].data == name]
    if not launches:
        raise pass_error(NAME, kernel, "found no gpu.launch_func of this kernel to give the producer warpgroup's threads")
    for launch in launches:
        c = _idx(threads_y)
        c.results[0].name_hint = "block_y"
        Rewriter.insert_op(c, InsertPoint.before(launch))
        old = launch.blockSizeY
        launch.operands[list(launch.operands).index(old)] = c.results[0]
        erase_if_dead(old)
