"""promote-private: private (register) buffers become SSA values (mem2reg on structured control flow).

Expects: kernel IR whose private buffers (memref.alloca in address space 5) have static shapes
and are used only as the memref of memref.load/store and vector.load/store (1-D, along the last
dimension), every index a compile-time constant (arith on constants: run unroll-loops first,
which unrolls every loop over a register tile), and every access inside scf.for / scf.if only.
Produces: the same kernel without those buffers.  Each element's current value is tracked
through the kernel in program order: a load is replaced by the value last stored (a vector
load by the stored vector itself where it reads exactly one, else by vector.broadcast and
vector.insert of the elements; a scalar load of a stored vector by vector.extract), an element
read before any store by ub.poison.
  * scf.for carries, as new iter_args appended after its own, every element of the buffers
    allocated outside it and stored inside it: one value per element, or, where every vector
    access to a buffer in the loop has one width w dividing its last dimension, one
    vector<w x T> per w elements (a matrix instruction's accumulators then stay one range);
  * scf.if gets a new result for each element allocated outside it that a branch changes
    (an else branch yielding the old values is added where there was none).
The allocas, loads and stores are erased; nothing else changes.  lower-to-amdgcn expects
this form: it selects registers for values and refuses private buffers.
Diagnostics, each naming the op: a private buffer used other than by a load or store (or
of dynamic shape), an index that is not a compile-time constant, an index out of bounds,
an access inside a region that is neither scf.for nor scf.if.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func, gpu, memref, scf, ub, vector
from xdsl.dialects.builtin import MemRefType, ModuleOp, VectorType
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass

from gemmc.support.diagnostics import pass_error
from gemmc.support.fold import constant_int
from gemmc.support.ir_names import PRIVATE_SPACE, memory_space

PASS = "promote-private"

_ACCESSES = (memref.LoadOp, memref.StoreOp, vector.LoadOp, vector.StoreOp)


@dataclass(frozen=True)
class PromotePrivatePass(ModulePass):
    name = PASS

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        fns = [f for f in op.walk() if isinstance(f, (func.FuncOp, gpu.FuncOp)) and f.body.blocks]
        for fn in fns:
            _Promoter().run(fn)


@dataclass(eq=False)
class Lane:
    """Element e of a vector stored whole: `scalar`, its vector.extract, placed where the vector
    became the buffer's content (so it dominates every later load, and a computation on it can
    be hoisted there), and `vec` itself for a vector load of exactly that vector."""

    vec: SSAValue
    e: int
    scalar: SSAValue


def _is_private(v: SSAValue) -> bool:
    return isinstance(v.type, MemRefType) and memory_space(v.type) == PRIVATE_SPACE


def _buffer(op: Operation) -> SSAValue:
    return op.memref if isinstance(op, (memref.LoadOp, memref.StoreOp)) else op.base  # type: ignore[union-attr]


def _vector_type(op: Operation) -> VectorType | None:
    if isinstance(op, vector.LoadOp):
        return op.result.type  # type: ignore[return-value]
    if isinstance(op, vector.StoreOp):
        return op.vector.type  # type: ignore[return-value]
    return None


def _width(op: Operation) -> int:
    t = _vector_type(op)
    return 1 if t is None else t.get_shape()[-1]


class _Promoter:
    def __init__(self) -> None:
        self.allocas: dict[SSAValue, memref.AllocaOp] = {}  # the private buffers met so far
        self.state: dict[tuple, SSAValue | Lane] = {}  # (buffer, index) -> current value
        self.extracts: list[Operation] = []  # the Lanes' vector.extracts (unused ones go at the end)

    def run(self, fn: Operation) -> None:
        allocas = [a for a in fn.walk() if isinstance(a, memref.AllocaOp) and _is_private(a.memref)]
        for a in allocas:
            self._check_uses(a)
        if not allocas:
            return
        self._block(fn.regions[0].block)
        for x in self.extracts:
            if not x.results[0].uses:
                x.detach()
                x.erase()
        for a in allocas:
            a.detach()
            a.erase()

    def _check_uses(self, alloca: memref.AllocaOp) -> None:
        t = alloca.memref.type
        name = alloca.memref.name_hint or "buffer"
        if any(s < 0 for s in t.get_shape()):  # type: ignore[attr-defined]
            raise pass_error(PASS, alloca, f"%{name} has a dynamic shape; its elements cannot become values")
        for use in alloca.memref.uses:
            user = use.operation
            if not isinstance(user, _ACCESSES) or _buffer(user) is not alloca.memref:
                raise pass_error(PASS, user, f"%{name} is used by '{user.name}', which is not a load or store "
                                             "of its elements; the buffer cannot become values")
            vt = _vector_type(user)
            if vt is not None and vt.get_num_dims() != 1:
                raise pass_error(PASS, user, f"%{name}: only 1-D vector accesses are promoted")
            parent = user.parent_op()
            while parent is not None and parent is not alloca.parent_op():
                if not isinstance(parent, (scf.ForOp, scf.IfOp)):
                    raise pass_error(PASS, user, f"%{name} is accessed inside '{parent.name}'; values are threaded "
                                                 "through scf.for and scf.if only")
                parent = parent.parent_op()

    # -- walking the kernel in program order ---------------------------------------------------

    def _block(self, block: Block) -> None:
        for op in list(block.ops):
            self._op(op)

    def _op(self, op: Operation) -> None:
        if isinstance(op, memref.AllocaOp) and _is_private(op.memref):
            self.allocas[op.memref] = op
        elif isinstance(op, _ACCESSES) and _is_private(_buffer(op)):
            self._access(op)
        elif isinstance(op, scf.ForOp):
            self._for(op)
        elif isinstance(op, scf.IfOp):
            self._if(op)
        else:
            for region in op.regions:
                for block in region.blocks:
                    self._block(block)

    def _keys(self, op: Operation) -> list[tuple]:
        """The elements an access touches, checked to be constant and in bounds."""
        buf = _buffer(op)
        shape = list(buf.type.get_shape())  # type: ignore[attr-defined]
        idx = []
        for i in op.indices:  # type: ignore[attr-defined]
            c = constant_int(i)
            if c is None:
                raise pass_error(PASS, op, f"%{buf.name_hint or 'buffer'} is indexed by a value that is not a "
                                           "compile-time constant; unroll the loops over it first (unroll-loops)")
            idx.append(c)
        n = _width(op)
        if not shape:  # a 0-d buffer: one element
            return [(buf, ())]
        if not all(0 <= k < s for k, s in zip(idx, shape)) or idx[-1] + n > shape[-1]:
            raise pass_error(PASS, op, f"access of {n} at {tuple(idx)} is out of bounds of "
                                       f"%{buf.name_hint or 'buffer'} {tuple(shape)}")
        return [(buf, (*idx[:-1], idx[-1] + e)) for e in range(n)]

    def _access(self, op: Operation) -> None:
        keys = self._keys(op)
        if isinstance(op, memref.StoreOp):
            self.state[keys[0]] = op.value
        elif isinstance(op, vector.StoreOp):
            for k, lane in zip(keys, self.lanes(op.vector, op)):
                self.state[k] = lane
        elif isinstance(op, memref.LoadOp):
            op.res.replace_all_uses_with(self.scalar(keys[0], op))
        else:
            assert isinstance(op, vector.LoadOp)
            op.result.replace_all_uses_with(self.vector(keys, op))
        op.detach()
        op.erase()

    # -- values of elements ----------------------------------------------------------------------

    def _elem_type(self, key: tuple) -> Attribute:
        return key[0].type.element_type

    def lanes(self, vec: SSAValue, before: Operation) -> list[Lane]:
        """vec's elements, extracted in front of `before`."""
        t = vec.type
        out = []
        for e in range(t.get_shape()[0]):  # type: ignore[attr-defined]
            x = _insert(vector.ExtractOp(vec, [e], t.element_type), before)  # type: ignore[attr-defined]
            self.extracts.append(x)
            out.append(Lane(vec, e, x.results[0]))
        return out

    def scalar(self, key: tuple, before: Operation) -> SSAValue:
        """The element's current value as a scalar (ub.poison, in front of `before`, if none)."""
        v = self.state.get(key)
        if v is None:
            return _insert(ub.PoisonOp(self._elem_type(key)), before).results[0]
        return v.scalar if isinstance(v, Lane) else v

    def vector(self, keys: list[tuple], before: Operation) -> SSAValue:
        """The elements' current values as one vector, in front of `before`."""
        vals = [self.state.get(k) for k in keys]
        first = vals[0]
        n = len(keys)
        if isinstance(first, Lane) and first.vec.type.get_shape() == (n,) and all(  # type: ignore[attr-defined]
                isinstance(v, Lane) and v.vec is first.vec and v.e == e for e, v in enumerate(vals)):
            return first.vec  # the vector stored whole
        t = VectorType(self._elem_type(keys[0]), [n])
        if all(v is None for v in vals):
            return _insert(ub.PoisonOp(t), before).results[0]
        elems = [self.scalar(k, before) for k in keys]
        out = _insert(vector.BroadcastOp(elems[0], t), before).results[0]
        for e in range(1, n):
            if elems[e] is not elems[0]:
                out = _insert(vector.InsertOp(elems[e], out, [e], t), before).results[0]
        return out

    # -- loops -----------------------------------------------------------------------------------

    def _carried(self, loop: scf.ForOp) -> list[tuple]:
        """Groups of elements the loop carries: of buffers allocated outside it and stored in it;
        a group is w elements where all vector accesses in the loop to its buffer have width w."""
        bufs: dict[SSAValue, None] = {}
        widths: dict[SSAValue, set[int]] = {}
        for op in loop.body.walk():
            if isinstance(op, _ACCESSES) and _buffer(op) in self.allocas:
                if isinstance(op, (memref.StoreOp, vector.StoreOp)):
                    bufs[_buffer(op)] = None
                if isinstance(op, (vector.LoadOp, vector.StoreOp)):
                    widths.setdefault(_buffer(op), set()).add(_width(op))
        groups = []
        for buf in bufs:
            shape = buf.type.get_shape()  # type: ignore[attr-defined]
            ws = widths.get(buf, {1})
            w = next(iter(ws)) if len(ws) == 1 and shape and shape[-1] % next(iter(ws)) == 0 else 1
            for idx in itertools.product(*(range(s) for s in shape)):
                if w == 1:
                    groups.append(((buf, idx),))
                elif idx[-1] % w == 0:
                    groups.append(tuple((buf, (*idx[:-1], idx[-1] + e)) for e in range(w)))
        return groups

    def _group_value(self, grp: tuple, before: Operation) -> SSAValue:
        return self.scalar(grp[0], before) if len(grp) == 1 else self.vector(list(grp), before)

    def _set_group(self, grp: tuple, v: SSAValue, before: Operation) -> None:
        if len(grp) == 1:
            self.state[grp[0]] = v
        else:
            for k, lane in zip(grp, self.lanes(v, before)):
                self.state[k] = lane

    def _for(self, loop: scf.ForOp) -> None:
        groups = self._carried(loop)
        saved = dict(self.state)
        if not groups:
            self._block(loop.body.block)
            self.state = saved
            return
        inits = [self._group_value(grp, loop) for grp in groups]
        body = loop.body.block
        start = body.first_op
        assert start is not None
        for grp, v in zip(groups, inits):
            self._set_group(grp, body.insert_arg(v.type, len(body.args)), start)
        self._block(body)
        yield_op = body.last_op
        assert isinstance(yield_op, scf.YieldOp)
        outs = [self._group_value(grp, yield_op) for grp in groups]
        _replace(yield_op, scf.YieldOp(*yield_op.operands, *outs))
        self.state = saved
        new = scf.ForOp(loop.lb, loop.ub, loop.step, [*loop.iter_args, *inits], loop.detach_region(loop.body))
        new.attributes.update(loop.attributes)
        n = len(loop.results)
        _replace(loop, new, new.results[:n])
        after = new.next_op
        assert after is not None  # (a block ends with its terminator)
        for grp, r in zip(groups, new.results[n:]):
            self._set_group(grp, r, after)

    # -- branches --------------------------------------------------------------------------------

    def _if(self, op: scf.IfOp) -> None:
        entry = dict(self.state)
        ends = []
        for region in (op.true_region, op.false_region):
            self.state = dict(entry)
            if region.blocks:
                self._block(region.block)
            ends.append(self.state)
        self.state = entry
        changed = [k for k in dict.fromkeys([*ends[0], *ends[1]])
                   if any(st.get(k) is not entry.get(k) for st in ends)
                   and not op.is_ancestor(self.allocas[k[0]])]
        if not changed:
            return
        yields = [[self._branch_value(op, st, k) for k in changed] for st in ends]
        types = [*op.result_types, *(self._elem_type(k) for k in changed)]
        false_region = op.detach_region(op.false_region) if op.false_region.blocks else Region(Block())
        new = scf.IfOp(op.cond, types, op.detach_region(op.true_region), false_region)
        new.attributes.update(op.attributes)
        for region, vals in zip(new.regions, yields):
            old = region.block.last_op
            if isinstance(old, scf.YieldOp):
                _replace(old, scf.YieldOp(*old.operands, *vals))
            else:  # an else branch added, or a then branch without its (implicit) yield
                region.block.add_op(scf.YieldOp(*vals))
        n = len(op.results)
        _replace(op, new, new.results[:n])
        for k, r in zip(changed, new.results[n:]):
            self.state[k] = r

    def _branch_value(self, op: scf.IfOp, st: dict, key: tuple) -> SSAValue:
        """What a branch yields for an element: its value there (defined in the branch, or before
        the if: an else branch that only yields stays free of instructions); ub.poison, made in
        front of the if, where it has none."""
        v = st.get(key)
        if v is None:
            return _insert(ub.PoisonOp(self._elem_type(key)), op).results[0]
        return v.scalar if isinstance(v, Lane) else v


def _insert(op: Operation, before: Operation) -> Operation:
    block = before.parent_block()
    assert block is not None
    block.insert_op_before(op, before)
    return op


def _replace(old: Operation, new: Operation, results=None) -> None:
    """Put `new` where `old` is, its results (or `results`) standing for old's."""
    block = old.parent_block()
    assert block is not None
    block.insert_op_before(new, old)
    for a, b in zip(old.results, new.results if results is None else results):
        a.replace_all_uses_with(b)
    old.detach()
    old.erase()
