"""wgmma-in-flight: keep one warpgroup-MMA group in flight across K tiles (sm_90a wgmma).

After `pipeline`, a wgmma K loop waits for every group it issued before the tile's barrier, so the
tensor cores idle while the next copies are issued and the block meets at the barrier:

    prologue: for j < d: if (j < n) { P(j) }                       (d = stages - 1 tiles ahead)
    gpu.barrier
    for t = lb to ub step s:
        if (t + d < n) { P(t + d) }                                 (prefetch, into slot (t + d) mod F)
        compute { wgmma_fence; wgmma_mma_async ...; wgmma_commit_group; wgmma_wait_group 0 }
        gpu.barrier

Expects: that form (pipeline's output, before lower-copies places the cp.async waits by it), with
exactly one nvgpu.wgmma_wait_group {numGroups = 0} in the loop, after its wgmma_commit_group, and
LDS tiles of F slots written by the prefetch (multi-buffer's leading slot dimension).
Produces, with the prefetch distance d' (`distance`; 0: min(d, F - 2)):

    prologue: for j < d': if (j < n) { P(j) }                      (the last d - d' stages dropped)
    gpu.barrier
    for t = lb to ub step s:
        compute { wgmma_fence; wgmma_mma_async ...; wgmma_commit_group; wgmma_wait_group 1 }
        if (t + d' < n) { P(t + d') }                               (into slot (t + d') mod F = slot of t - 2 for d' = F - 2)
        gpu.barrier
    wgmma_wait_group 0                                              (before the accumulators are read)

lower-copies then commits each prefetch's cp.async group after it and waits for all but d' - 1
before each barrier (gemmc.transforms.async_waits, by the prologue's d' stages), so iteration t
still begins, after the barrier of t - 1, with tile t landed and visible to every thread.

Why it is safe.  Group t reads slot t mod F, which the copies of P(t) wrote before the barrier
that begins iteration t (the cp.async wait before it).  wait_group 1 in iteration t retires this
warpgroup's group t - 1 but leaves group t running; the accumulators are touched meanwhile only
by the wgmma ops of group t + 1 (the PTX ISA orders wgmma ops of one shape on one accumulator) and
after the loop's final wait_group 0.  P(t + d') writes slot (t + d') mod F, the slot last read by
group t + d' - F <= t - 2 (F >= d' + 2).  Group t - 2 of *every* warpgroup is retired before that
write: each warpgroup retired it at its wait_group 1 in iteration t - 1, before the barrier that
ends t - 1, which the writing thread passed.  Group t - 1 is not: another warpgroup may not yet
have reached its wait_group 1 of iteration t, and its group t - 1 may still read slot t - 1 --
which is why the distance drops to F - 2 (with F - 1, P(t + F - 1) would write slot t - 1; the
interpreter, gemmc.interp.wgmma_async, fails that kernel).  Every slot with a group or a copy in
flight is distinct: groups t - 1 and t, and the copies of tiles t + 1 .. t + d', are d' + 2 <= F
consecutive tiles.  A warpgroup with several accumulator tiles commits a group per tile inside the
compute (wgmma_kernel's warpgroup loop runs commit / wait once per tile): wait_group 1 there keeps
only the K tile's last group in flight, which the argument covers a fortiori.

Diagnostics, each naming the op: no pipelined K loop (run `pipeline` first), a pipelined loop with
no wgmma wait (not a wgmma kernel), one already keeping a group in flight, cp.async ops already
placed (run it before lower-copies), a prefetch distance it cannot read, too few slots
(F < d' + 2), a distance outside 1 .. d.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, gpu, scf
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from gemmc.dialects.nvgpu import (
    DeviceAsyncCopyOp,
    DeviceAsyncCreateGroupOp,
    DeviceAsyncWaitOp,
    WgmmaCommitGroupOp,
    WgmmaMmaAsyncOp,
    WgmmaWaitGroupOp,
)
from gemmc.support.diagnostics import pass_error
from gemmc.support.ir_names import ROLE_K_LOOP
from gemmc.transforms.contraction import prefetch_stage, prologue_stages, role
from gemmc.transforms.k_split import erase_if_dead
from gemmc.transforms.kernel_builder import constant_value, index_constant
from gemmc.transforms.lds_access import written_memref

NAME = "wgmma-in-flight"


@dataclass(frozen=True)
class WgmmaInFlightPass(ModulePass):
    name = NAME

    distance: int = 0  # the prefetch distance d' after the rewrite; 0: min(d, F - 2)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.distance < 0:
            raise pass_error(self.name, op, f"distance={self.distance} must be 0 (as many as the slots allow) or more")
        loops = [o for o in op.walk() if isinstance(o, scf.ForOp) and role(o) == ROLE_K_LOOP and prefetch_stage(o) is not None]
        if not loops:
            raise pass_error(self.name, op, "found no pipelined K loop (a prefetch scf.if inside it); run pipeline first")
        for loop in loops:
            keep_in_flight(loop, self.distance)


def keep_in_flight(loop: scf.ForOp, distance: int = 0, check_slots: bool = True) -> int:
    """Rewrite one pipelined wgmma K loop (module docstring); the prefetch distance it leaves.
    check_slots=False skips the F >= d' + 2 check: only for tests that plant the unsafe distance."""
    prefetch = prefetch_stage(loop)
    waits = [o for o in loop.walk() if isinstance(o, WgmmaWaitGroupOp)]
    if not waits or not any(isinstance(o, WgmmaMmaAsyncOp) for o in loop.walk()):
        raise pass_error(NAME, loop, "the pipelined K loop issues no wgmma (nvgpu.wgmma_mma_async with a "
                         "wgmma_wait_group): only a warpgroup MMA keeps a group in flight")
    if len(waits) != 1 or waits[0].groups != 0:
        raise pass_error(NAME, waits[-1], "expects one nvgpu.wgmma_wait_group {numGroups = 0} in the K loop; "
                         "this loop already keeps groups in flight")
    wait = waits[0]
    commit = wait.prev_op
    if not isinstance(commit, WgmmaCommitGroupOp):
        raise pass_error(NAME, wait, "expects the wait right after the K tile's nvgpu.wgmma_commit_group")
    placed = next((o for o in loop.walk() if isinstance(o, DeviceAsyncCopyOp | DeviceAsyncCreateGroupOp | DeviceAsyncWaitOp)), None)
    if placed is not None:
        raise pass_error(NAME, placed, "the K loop's cp.async groups are already placed; run wgmma-in-flight "
                         "before lower-copies (it counts the cp.async waits by the prefetch distance)")
    body = loop.body.block
    compute = _top_level(wait, body)
    barrier = body.last_op.prev_op if body.last_op is not None else None
    if not isinstance(barrier, gpu.BarrierOp) or compute.next_op is not barrier or not _before(prefetch, compute):
        raise pass_error(NAME, loop, "expects the pipelined K loop as pipeline leaves it: prefetch, compute, "
                         "gpu.barrier")
    d, nxt = _distance(loop, prefetch)
    prologue = prologue_stages(loop)
    if len(prologue) != d:
        raise pass_error(NAME, loop, f"the prefetch runs {d} tiles ahead but {len(prologue)} prologue stages "
                         "precede the loop")
    slots = _slots(prefetch)
    new = distance or min(d, slots - 2)
    if new > d:
        raise pass_error(NAME, prefetch, f"distance={new} is more than the {d} tiles pipeline prefetches ahead")
    if new < 1 or (check_slots and slots < new + 2):
        need = f"with prefetch distance {new}: it needs {new + 2} slots" if new >= 1 else ": it needs at least 3 slots"
        raise pass_error(NAME, prefetch, f"the prefetch's LDS tiles have {slots} slots, too few to keep a wgmma group "
                         f"in flight{' ' if new >= 1 else ''}{need} (distance + 2: groups t - 1 and t and the tiles ahead each need their "
                         "own); run multi-buffer with more slots")
    for stage in prologue[new:]:
        _erase_guarded(stage)
    if new != d:
        at = InsertPoint.before(nxt.owner)
        nxt.replace_all_uses_with(_ahead(at, loop, new, nxt.name_hint))
        erase_if_dead(nxt)
    prefetch.detach()
    Rewriter.insert_op(prefetch, InsertPoint.after(compute))
    Rewriter.replace_op(wait, WgmmaWaitGroupOp(1))
    Rewriter.insert_op(WgmmaWaitGroupOp(0), InsertPoint.after(loop))
    return new


def _top_level(op: Operation, block) -> Operation:
    while op.parent_block() is not block:
        op = op.parent_op()
    return op


def _before(a: Operation, b: Operation) -> bool:
    cur = a.next_op
    while cur is not None and cur is not b:
        cur = cur.next_op
    return cur is b


def _distance(loop: scf.ForOp, prefetch: scf.IfOp) -> tuple[int, SSAValue]:
    """The tiles the prefetch runs ahead (its guard is `iv + d * step < ub`) and that iv + d * step."""
    cond = prefetch.cond.owner
    iv, step = loop.body.block.args[0], loop.step
    nxt = cond.lhs if isinstance(cond, arith.CmpiOp) else None
    add = nxt.owner if nxt is not None else None
    d = None
    if isinstance(add, arith.AddiOp) and iv in add.operands:
        other = add.rhs if add.lhs is iv else add.lhs
        s, c = constant_value(step), constant_value(other)
        if s and c is not None and c % s == 0:
            d = c // s
        elif isinstance(other.owner, arith.MuliOp) and step in other.owner.operands:
            m = other.owner
            d = constant_value(m.rhs if m.lhs is step else m.lhs)
    if not d or d < 1:
        raise pass_error(NAME, prefetch, "cannot read how many tiles the prefetch runs ahead (its guard is not "
                         "`iv + d * step < ub`, as pipeline writes it)")
    return d, nxt


def _slots(prefetch: scf.IfOp) -> int:
    """F: the fewest slots among the LDS buffers the prefetch writes (their leading dimension)."""
    written = [m for o in prefetch.walk() if (m := written_memref(o)) is not None]
    if not written:
        raise pass_error(NAME, prefetch, "the prefetch writes no LDS buffer")
    return min(m.type.get_shape()[0] for m in written)


def _ahead(at: InsertPoint, loop: scf.ForOp, times: int, name: str | None) -> SSAValue:
    """iv + times * step."""
    iv, step = loop.body.block.args[0], loop.step
    s = constant_value(step)
    ops: list[Operation] = [index_constant(times * s if s is not None else times)]
    if s is None:
        ops.append(arith.MuliOp(step, ops[-1].results[0]))
    ops.append(arith.AddiOp(iv, ops[-1].results[0]))
    ops[-1].results[0].name_hint = name or "next_t"
    Rewriter.insert_op(ops, at)
    return ops[-1].results[0]


def _erase_guarded(stage: scf.IfOp) -> None:
    cond = stage.cond
    stage.detach()
    stage.erase()
    erase_if_dead(cond)
