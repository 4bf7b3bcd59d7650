"""pipeline: software-pipeline a produce / barrier / consume / barrier loop (MLIR's
scf::pipelineForLoop, with the stages read off the loop's barriers).

Expects: an scf.for without loop-carried values whose body is
    P          the producer: everything before the first gpu.barrier (e.g. global -> LDS copies)
    gpu.barrier
    C          the consumer (e.g. the compute on the LDS tiles)
    gpu.barrier
in which every LDS buffer that P writes is multi-buffered (multi-buffer's output): each
access's first index is a `slot = (.. iv ..) mod F` computed from the induction variable,
with F >= stages, so the iterations in flight use distinct slots.  P writes nothing else,
touches nothing that C writes, and what C uses of P's results is pure (the slot, k0), which
stays in the loop and is recomputed.
Produces, with d = stages - 1:
    for j in 0 .. d-1:  if (lb + j*step < ub) { P(lb + j*step) }      (prologue)
    gpu.barrier
    for iv = lb to ub step step:
        if (iv + d*step < ub) { P(iv + d*step) }                        (prefetch)
        C(iv)
        gpu.barrier
Iteration iv fills the slot of iteration iv + d while it reads its own, and the loop
needs one barrier per iteration instead of two.  Why it is safe: P(iv + d) writes slot
(iv + d) mod F, last read by C(iv + d - F), which finished before the barrier of an
earlier iteration since F > d; and C(iv) reads what P(iv) wrote at least one barrier ago.
Loops of another form are left as they are; when no loop has this form the pass says so.
Options: stages (>= 2).  Staging through registers (loads before C, LDS stores after it)
is double-buffer{stage=registers}'s, not this pass's.
Diagnostics, each naming the op: no loop of the form, loop-carried values, a buffer written
in P without enough slots, a write in P to anything but such a buffer, an access in P to
memory that C writes, an impure result of P used in C.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, gpu, memref, scf
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import is_side_effect_free

from gemmc.support.diagnostics import pass_error
from gemmc.support.ir_names import LDS_SPACE, ROLE_ATTR, ROLE_PREFETCH, ROLE_PROLOGUE, memory_space
from gemmc.transforms.kernel_builder import constant_value, index_constant
from gemmc.transforms.lds_access import ALLOC_OPS, accesses, written_memref



@dataclass(frozen=True)
class PipelinePass(ModulePass):
    name = "pipeline"

    stages: int = 2

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.stages < 2:
            raise pass_error(self.name, op, f"stages={self.stages} must be at least 2")
        loops = [loop for loop in op.walk() if isinstance(loop, scf.ForOp) and _split(loop) is not None]
        if not loops:
            raise pass_error(
                self.name, op,
                "found no scf.for of the form producer, gpu.barrier, consumer, gpu.barrier to pipeline",
            )
        for loop in loops:
            self._pipeline(loop, *_split(loop))

    def _pipeline(self, loop: scf.ForOp, producer: list[Operation], first_barrier: Operation, consumer: list[Operation],
                  slotted: bool = True) -> None:
        if loop.results:
            raise pass_error(self.name, loop, "the loop carries values (iter_args); pipelining it would need to stage them")
        self._check(loop, producer, consumer, slotted)
        d = self.stages - 1
        iv = loop.body.block.args[0]
        # prologue: P for the first d iterations, each guarded by the trip count
        before = InsertPoint.before(loop)
        for j in range(d):
            first = _offset(before, loop.lb, loop.step, j, f"t{j}")
            _guarded_clone(before, producer, iv, first, loop.ub, ROLE_PROLOGUE)
        Rewriter.insert_op(first_barrier.clone(), before)
        # in the loop: P for iteration iv + d ahead of C(iv)
        at_top = InsertPoint.at_start(loop.body.block)
        ahead = _offset(at_top, iv, loop.step, d, "next_t")
        _guarded_clone(at_top, producer, iv, ahead, loop.ub, ROLE_PREFETCH)
        used_by_consumer = _used_by(producer, consumer)
        for o in reversed(producer):
            if o not in used_by_consumer:
                o.detach()
                o.erase()
        first_barrier.detach()
        first_barrier.erase()

    def _check(self, loop: scf.ForOp, producer: list[Operation], consumer: list[Operation], slotted: bool) -> None:
        consumer_writes = {id(m) for o in consumer for w in o.walk() if (m := written_memref(w)) is not None}
        for o in producer:
            for inner in o.walk():
                if written_memref(inner) is not None:
                    self._check_slotted(loop, inner, slotted)
                for v in inner.operands:
                    if id(v) in consumer_writes:
                        raise pass_error(self.name, inner, "the producer touches memory that the consumer writes; moving it ahead would reorder them")
        for o in _used_by(producer, consumer):
            if not _pure(o):
                raise pass_error(self.name, o, f"the consumer uses this '{o.name}' of the producer, which is not pure index arithmetic")

    def _check_slotted(self, loop: scf.ForOp, write: Operation, slotted: bool = True) -> None:
        buf = written_memref(write)
        owner = buf.owner
        if not (isinstance(owner, ALLOC_OPS) and memory_space(buf.type) == LDS_SPACE):
            raise pass_error(self.name, write, "the producer writes memory other than an LDS buffer; only LDS buffers with slots can be written ahead")
        if not slotted:
            return
        slots = buf.type.get_shape()[0]
        name = buf.name_hint or "buffer"
        for a in accesses(owner, self.name):
            if not loop.is_ancestor(a.op):
                continue
            if not a.indices or not _is_slot(a.indices[0], loop, slots):
                raise pass_error(
                    self.name, a.op,
                    f"%{name} is written ahead but this access does not index it by the iteration's slot "
                    "((.. iv ..) mod F); run multi-buffer first",
                )
        if slots < self.stages:
            raise pass_error(self.name, write, f"%{name} has {slots} slots, fewer than the {self.stages} stages in flight; run multi-buffer{{factor={self.stages}}}")


def pipeline_loop(loop: scf.ForOp, stages: int, pass_name: str, slotted: bool = True) -> None:
    """Pipeline one loop (double-buffer's second half); its checks report as `pipeline`.
    slotted=False leaves the LDS buffers single: only for a caller that then moves the
    prefetch's LDS stores behind a barrier after the consumer (double-buffer{stage=registers
    lds-slots=1}), which makes the early writes safe without slots."""
    split = _split(loop)
    if split is None:
        raise pass_error(pass_name, loop, "expects the loop to be producer, gpu.barrier, consumer, gpu.barrier")
    PipelinePass(stages=stages)._pipeline(loop, *split, slotted=slotted)


def _pure(o: Operation) -> bool:
    """Recomputing it for another iteration changes nothing: arith (division included: its
    operands are the same values P used), thread and block ids, memref.dim."""
    if o.regions:
        return False
    return o.name.startswith("arith.") or isinstance(o, gpu.ThreadIdOp | gpu.BlockIdOp | memref.DimOp) or is_side_effect_free(o)


def _split(loop: scf.ForOp):
    """(P, first barrier, C) for a body P; barrier; C; barrier; yield, else None."""
    ops = list(loop.body.block.ops)
    barriers = [i for i, o in enumerate(ops) if isinstance(o, gpu.BarrierOp)]
    if len(barriers) != 2 or barriers[1] != len(ops) - 2:
        return None
    b0 = barriers[0]
    return ops[:b0], ops[b0], ops[b0 + 1:barriers[1]]


def _is_slot(index: SSAValue, loop: scf.ForOp, slots: int) -> bool:
    """index = x mod slots, with x computed from the loop's induction variable."""
    rem = index.owner
    if not isinstance(rem, arith.RemUIOp) or constant_value(rem.rhs) != slots:
        return False
    iv = loop.body.block.args[0]
    frontier, seen = [rem.lhs], set()
    while frontier:
        v = frontier.pop()
        if v is iv:
            return True
        if id(v) in seen or not isinstance(v.owner, Operation) or not loop.is_ancestor(v.owner):
            continue
        seen.add(id(v))
        frontier.extend(v.owner.operands)
    return False


def _used_by(producer: list[Operation], consumer: list[Operation]) -> set[Operation]:
    """The producer ops whose results the consumer (or what it uses of P) reads."""
    in_p = set(producer)
    needed: set[Operation] = set()
    frontier = [v for o in consumer for inner in o.walk() for v in inner.operands]
    while frontier:
        v = frontier.pop()
        owner = v.owner
        if isinstance(owner, Operation) and owner in in_p and owner not in needed:
            needed.add(owner)
            frontier.extend(owner.operands)
    return needed


_FOLDABLE = {arith.AddiOp: lambda a, b: a + b, arith.MuliOp: lambda a, b: a * b,
             arith.RemUIOp: lambda a, b: a % b if b > 0 <= a else None,
             arith.DivUIOp: lambda a, b: a // b if b > 0 <= a else None}


def _folded(op: Operation) -> Operation | None:
    """A constant for index arithmetic on constants (non-negative, as the loop's are), else None."""
    fold = _FOLDABLE.get(type(op))
    if fold is None:
        return None
    a, b = (constant_value(v) for v in op.operands)
    value = fold(a, b) if a is not None and b is not None else None
    if value is None:
        return None
    const = index_constant(value)
    const.result.name_hint = op.results[0].name_hint
    return const


def _offset(at: InsertPoint, base: SSAValue, step: SSAValue, times: int, name: str) -> SSAValue:
    """base + times * step, folded where base and step are constants."""
    if times == 0:
        return base
    b, s = constant_value(base), constant_value(step)
    ops: list[Operation] = []
    if b is not None and s is not None:
        ops.append(index_constant(b + times * s))
    elif s is not None:
        ops.append(index_constant(times * s))
        ops.append(arith.AddiOp(base, ops[-1].results[0]))
    else:
        ops.append(index_constant(times))
        ops.append(arith.MuliOp(step, ops[-1].results[0]))
        ops.append(arith.AddiOp(base, ops[-1].results[0]))
    ops[-1].results[0].name_hint = name
    Rewriter.insert_op(ops, at)
    return ops[-1].results[0]


def _guarded_clone(at: InsertPoint, producer: list[Operation], iv: SSAValue, value: SSAValue, ub: SSAValue, role: str) -> None:
    """if (value < ub) { P with iv = value }"""
    cond = arith.CmpiOp(value, ub, "ult")
    if role == ROLE_PREFETCH:
        cond.result.name_hint = "has_next"
    block = Block()
    mapper = {iv: value}
    for o in producer:
        clone = o.clone(value_mapper=mapper)
        folded = _folded(clone)
        if folded is None:
            block.add_op(clone)
        else:  # the prologue's iterations are constants: no `0 * 16` in the kernel
            block.add_op(folded)
            for old, new in zip(o.results, folded.results):
                mapper[old] = new
            clone.erase()
    block.add_op(scf.YieldOp())
    guard = scf.IfOp(cond, [], [block])
    guard.attributes[ROLE_ATTR] = StringAttr(role)
    Rewriter.insert_op([cond, guard], at)
