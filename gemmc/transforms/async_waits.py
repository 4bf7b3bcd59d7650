"""Where a kernel's cp.async copies are committed and waited for (sm_90's direct copies).

lower-copies turns a `direct` gemm.copy on an NVIDIA target into nvgpu.device_async_copy ops
(gemmc.transforms.copy_lowering.async_copy); unlike AMD's global_load_lds, which the barrier
after it waits for, cp.async lands only at a cp.async.wait_group.  `place_waits` then gives
each stage of copies its group and each barrier before a read of them its wait, by the
stages the K loop has (a group per stage, committed by every thread, an empty one where the
stage's guard is false, so the counts stay in step):

    single-buffered K loop:  copies; commit; wait 0; barrier; compute; barrier
    pipelined (double-buffer, or multi-buffer + pipeline with d = stages - 1 tiles ahead):
        prologue: for j < d: if (..) { copies of tile j }; commit
                  wait d-1; barrier                      (tile 0 landed; d-1 still in flight)
        K loop:   if (has_next) { copies of tile t + d }; commit
                  compute tile t; wait d-1; barrier      (tile t + 1 landed)

Copies in warp-specialize's producer loop (gemm.role = "ws_producer") get no group: the
nvgpu.cp_async_mbarrier_arrive after them is what completes them, on the slot's full mbarrier.
A copy elsewhere is a located error: there is no stage to count its group in.
"""

from __future__ import annotations

from xdsl.dialects import gpu, scf
from xdsl.ir import Block, Operation
from xdsl.rewriter import InsertPoint, Rewriter

from gemmc.dialects.nvgpu import DeviceAsyncCopyOp, DeviceAsyncCreateGroupOp, DeviceAsyncWaitOp
from gemmc.support.diagnostics import pass_error
from gemmc.support.ir_names import ROLE_K_LOOP, ROLE_PREFETCH, ROLE_PROLOGUE
from gemmc.transforms.contraction import role

PASS = "lower-copies"
ROLE_WS_PRODUCER = "ws_producer"  # passes/warp_specialize.py


def place_waits(root: Operation) -> None:
    """Commit and wait for the cp.async copies under `root` (module docstring)."""
    stages: dict[int, Operation] = {}
    for copy in [op for op in root.walk() if isinstance(op, DeviceAsyncCopyOp)]:
        if _producer(copy):
            continue  # warp-specialize's producer: its nvgpu.cp_async_mbarrier_arrive completes them
        stage = _stage_of(copy)
        stages.setdefault(id(stage), stage)
    ends = {}
    for stage in stages.values():
        end = stage if role(stage) in (ROLE_PROLOGUE, ROLE_PREFETCH) else _last_before_barrier(stage)
        ends.setdefault(id(end), end)
    for end in ends.values():
        Rewriter.insert_op(DeviceAsyncCreateGroupOp(), InsertPoint.after(end))
        barrier, ahead = _waiting_barrier(end)
        if not isinstance(barrier.prev_op, DeviceAsyncWaitOp):
            Rewriter.insert_op(DeviceAsyncWaitOp(max(0, ahead - 1)), InsertPoint.before(barrier))


def _producer(copy: Operation) -> bool:
    parent = copy.parent_op()
    while parent is not None:
        if isinstance(parent, scf.ForOp) and role(parent) == ROLE_WS_PRODUCER:
            return True
        parent = parent.parent_op()
    return False


def _stage_of(copy: Operation) -> Operation:
    """The pipeline's prologue or prefetch guard around the copy, or its op at the K loop's top level."""
    child, parent = copy, copy.parent_op()
    while parent is not None:
        if isinstance(parent, scf.IfOp) and role(parent) in (ROLE_PROLOGUE, ROLE_PREFETCH):
            return parent
        if isinstance(parent, scf.ForOp) and role(parent) == ROLE_K_LOOP:
            return child
        child, parent = parent, parent.parent_op()
    raise pass_error(PASS, copy, "a cp.async copy outside a K loop and its pipeline's prologue: there is no "
                     "stage to commit its group in and wait for it")


def _last_before_barrier(op: Operation) -> Operation:
    """The last op before the next gpu.barrier of op's block that holds a cp.async (the K loop's
    copies of one tile: one group)."""
    last, cur = op, op.next_op
    while cur is not None and not isinstance(cur, gpu.BarrierOp):
        if any(isinstance(o, DeviceAsyncCopyOp) for o in cur.walk()):
            last = cur
        cur = cur.next_op
    return last


def _waiting_barrier(end: Operation) -> tuple[Operation, int]:
    """The barrier after which the stage ending at `end` is read, and the stages in flight there
    (the tiles the pipeline runs ahead, d; 1 without a pipeline)."""
    block = end.parent_block()
    if role(end) == ROLE_PREFETCH:  # the K loop's last barrier: tile t + 1 must have landed
        loop = block.parent_op()
        barriers = [o for o in block.ops if isinstance(o, gpu.BarrierOp)]
        if not barriers:
            raise pass_error(PASS, loop, "expects a barrier at the end of the pipelined K loop to wait for cp.async at")
        return barriers[-1], _prologue_stages(loop)
    barrier = _next_barrier(end)
    if barrier is None:
        raise pass_error(PASS, end, "cp.async copies with no gpu.barrier after them in their block to wait at")
    ahead = _prologue_stages(barrier) if role(end) == ROLE_PROLOGUE else 1
    return barrier, ahead


def _next_barrier(op: Operation) -> Operation | None:
    cur = op.next_op
    while cur is not None and not isinstance(cur, gpu.BarrierOp):
        cur = cur.next_op
    return cur


def _prologue_stages(at: Operation) -> int:
    """The pipeline prologue's stages just before `at` in its block (at least 1)."""
    block: Block = at.parent_block()
    count, cur = 0, at.prev_op
    while cur is not None and (isinstance(cur, gpu.BarrierOp | DeviceAsyncCreateGroupOp | DeviceAsyncWaitOp)
                               or role(cur) == ROLE_PROLOGUE or not cur.regions):
        count += role(cur) == ROLE_PROLOGUE
        cur = cur.prev_op
    assert block is not None
    return max(1, count)
