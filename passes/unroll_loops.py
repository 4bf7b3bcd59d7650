"""unroll-loops: unroll scf.for loops, fully or by a factor, in place.

Expects: kernel IR (any function; scf.for over index values, memref/vector/arith in the body).
Produces: every scf.for whose trip count is a compile-time constant of at most `limit`, and
every loop over which a private (address space 5) register tile is indexed, replaced by that
many copies of its body (the counter an arith.constant in each, the carried values threaded
from copy to copy); a loop with a constant trip count above `limit` that `factor` divides and
whose body is small (at most 16 ops, no nested loop or barrier) keeps running with its step
multiplied by `factor`, its body `factor` copies, the k-th with the counter plus k * step.
Other loops are left as they are.  Loops are decided outermost first, so a loop whose bounds
become constants once an enclosing loop is unrolled is decided on those constants.

This is what lets promote-private turn register tiles into values (their indices become
constants) and lower-to-amdgcn fold the copies' offsets into immediates (step 1's K loop: the
counter steps by 8, the k offsets of the loads are constants).
Options: limit (16), factor (8; 1: never unroll by a factor).
Diagnostics, each naming the op: a loop over a register tile whose bounds are not constants
(its elements could not become registers); a constant step that is not positive.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, gpu, memref, scf, vector
from xdsl.dialects.builtin import IntegerAttr, MemRefType, ModuleOp
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass

from gemmc.support.diagnostics import pass_error
from gemmc.support.fold import constant_int
from gemmc.support.ir_names import PRIVATE_SPACE, memory_space

SMALL_BODY_OPS = 16
"""A body with at most this many ops (and no nested loop or barrier) is unrolled by `factor`."""


@dataclass(frozen=True)
class UnrollLoopsPass(ModulePass):
    name = "unroll-loops"

    limit: int = 16
    """Fully unroll loops of at most this many iterations (loops over register tiles always)."""
    factor: int = 8
    """Unroll a small loop body this many times where it divides the constant trip count (1: never)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.limit < 0 or self.factor < 1:
            raise pass_error(self.name, op, f"limit={self.limit} factor={self.factor}: expected limit >= 0, factor >= 1")
        _block(self, op.body.block)


def _block(opts: UnrollLoopsPass, block: Block) -> None:
    for op in list(block.ops):
        _visit(opts, op)


def _visit(opts: UnrollLoopsPass, op: Operation) -> None:
    if isinstance(op, scf.ForOp):
        _loop(opts, op)
        return
    for region in op.regions:
        for block in region.blocks:
            _block(opts, block)


def _loop(opts: UnrollLoopsPass, loop: scf.ForOp) -> None:
    lb, ub, st = (constant_int(v) for v in (loop.lb, loop.ub, loop.step))
    if lb is not None and ub is not None and st is not None:
        if st <= 0:
            raise pass_error(opts.name, loop, f"loop step {st} must be positive")
        trip = max(0, -(-(ub - lb) // st))
        if trip <= opts.limit or indexes_register_tile(loop):
            for copy in unroll_fully(loop, lb, st, trip):
                _visit(opts, copy)  # inner loops, decided on the constants of this copy
            return
        if opts.factor > 1 and trip % opts.factor == 0 and _small_body(loop):
            unroll_by(loop, st, opts.factor)
    elif indexes_register_tile(loop):
        raise pass_error(opts.name, loop, "a loop over a private (register) buffer needs constant bounds "
                                          "(its elements become registers, which need constant indices)")
    _block(opts, loop.body.block)


def indexes_register_tile(loop: scf.ForOp) -> bool:
    """A private buffer is indexed (memref or vector load/store) by a value that depends on the
    loop's counter.  (lower-to-amdgcn used to look at memref accesses only, and refused the
    vector accesses of a matrix instruction's accumulator tile under a loop above its limit.)"""
    dep = {loop.body.block.args[0]}
    for op in loop.body.walk():
        if any(o in dep for o in op.operands):
            dep.update(op.results)
        if isinstance(op, tuple(_ACCESSES)):
            t = op.operands[_ACCESSES[type(op)]].type
            if isinstance(t, MemRefType) and memory_space(t) == PRIVATE_SPACE and any(i in dep for i in op.indices):
                return True
    return False


_ACCESSES = {memref.LoadOp: 0, memref.StoreOp: 1, vector.LoadOp: 0, vector.StoreOp: 1}
"""The element accesses and which operand is the memref."""


def _small_body(loop: scf.ForOp) -> bool:
    ops = list(loop.body.walk())
    return len(ops) <= SMALL_BODY_OPS and not any(isinstance(o, (scf.ForOp, gpu.BarrierOp)) for o in ops)


def _counter(value: int, like: SSAValue) -> arith.ConstantOp:
    c = arith.ConstantOp(IntegerAttr(value, like.type))
    c.result.name_hint = like.name_hint
    return c


def unroll_fully(loop: scf.ForOp, lb: int, st: int, trip: int) -> list[Operation]:
    """Replace the loop by `trip` copies of its body; returns the copied ops."""
    body = loop.body.block
    parent = loop.parent_block()
    assert parent is not None
    vals: list[SSAValue] = list(loop.iter_args)
    copies: list[Operation] = []
    for k in range(trip):
        iv = _counter(lb + k * st, body.args[0])
        parent.insert_op_before(iv, loop)
        mapper: dict[SSAValue, SSAValue] = {body.args[0]: iv.result, **dict(zip(body.args[1:], vals))}
        vals = _copy_body(body, mapper, loop, copies)
    for r, v in zip(loop.results, vals):
        r.replace_all_uses_with(v)
    loop.detach()
    loop.erase()
    return copies


def unroll_by(loop: scf.ForOp, st: int, factor: int) -> None:
    """Step by factor * st; the body becomes `factor` copies, copy k counting from iv + k * st."""
    body = loop.body.block
    parent = loop.parent_block()
    assert parent is not None
    step = arith.ConstantOp(IntegerAttr(st * factor, loop.step.type))
    parent.insert_op_before(step, loop)
    loop.operands[2] = step.result
    yield_op = body.last_op
    assert isinstance(yield_op, scf.YieldOp)
    originals = [o for o in body.ops if o is not yield_op]
    vals = list(yield_op.operands)
    for k in range(1, factor):
        off = arith.ConstantOp(IntegerAttr(k * st, body.args[0].type))
        iv = arith.AddiOp(body.args[0], off.result)
        iv.result.name_hint = body.args[0].name_hint
        body.insert_op_before(off, yield_op)
        body.insert_op_before(iv, yield_op)
        mapper: dict[SSAValue, SSAValue] = {body.args[0]: iv.result, **dict(zip(body.args[1:], vals))}
        for o in originals:
            body.insert_op_before(o.clone(value_mapper=mapper), yield_op)
        vals = [mapper.get(v, v) for v in yield_op.operands]
    yield_op.operands = vals


def _copy_body(body: Block, mapper: dict, before: Operation, out: list[Operation]) -> list[SSAValue]:
    """Clone body's ops (not its yield) in front of `before`; returns the yielded values."""
    parent = before.parent_block()
    assert parent is not None
    for o in body.ops:
        if isinstance(o, scf.YieldOp):
            return [mapper.get(v, v) for v in o.operands]
        c = o.clone(value_mapper=mapper)
        parent.insert_op_before(c, before)
        out.append(c)
    return []
