"""A small builder for kernel IR: index arithmetic, loads, loops and guards.

Passes use it so that the IR they write reads like the HIP it becomes: every value
that has a name in the tutorial's kernels gets that name as its SSA name hint.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.builder import Builder
from xdsl.dialects import arith, func, gpu, math, memref, scf
from xdsl.dialects.builtin import Float32Type, FloatAttr, IndexType, IntegerAttr, IntegerType, MemRefType
from xdsl.ir import Attribute, Block, BlockArgument, Operation, SSAValue
from xdsl.rewriter import InsertPoint
from xdsl.traits import is_side_effect_free

from gemmc.support.diagnostics import GemmcError
from gemmc.support.ir_names import LDS_SPACE


class KernelBuilder:
    """Builds at one insertion point; index constants are shared with nested builders
    (a constant defined earlier in an enclosing block dominates the nested ones), and
    index arithmetic on constants folds, so the IR carries no `x * 1` or `0 + x`."""

    def __init__(self, insert_point: InsertPoint, constants: dict[int, SSAValue] | None = None):
        self.b = Builder(insert_point)
        self.constants: dict[int, SSAValue] = dict(constants or {})

    @classmethod
    def at_end(cls, block: Block, constants: dict[int, SSAValue] | None = None) -> KernelBuilder:
        return cls(InsertPoint.at_end(block), constants)

    def nested(self, block: Block) -> KernelBuilder:
        return KernelBuilder.at_end(block, self.constants)

    @classmethod
    def before(cls, op: Operation) -> KernelBuilder:
        return cls(InsertPoint.before(op))

    def op(self, op: Operation, name: str | None = None) -> SSAValue:
        self.b.insert(op)
        if name is not None and op.results:
            op.results[0].name_hint = name
        return op.results[0] if op.results else None  # type: ignore[return-value]

    # -- constants and index arithmetic ----------------------------------------

    def index(self, value: int, name: str | None = None) -> SSAValue:
        if name is None and value in self.constants:
            return self.constants[value]
        v = self.op(index_constant(value), name)
        if name is None:
            self.constants[value] = v
        return v

    def float(self, value: float, type: Attribute, name: str | None = None) -> SSAValue:
        """A constant of a float type, or of an integer one (an integer product's zero)."""
        if isinstance(type, IntegerType):
            return self.op(arith.ConstantOp(IntegerAttr(int(value), type)), name)
        return self.op(arith.ConstantOp(FloatAttr(value, type)), name)

    def add(self, x, y, name=None):
        cx, cy = constant_value(x), constant_value(y)
        if cx is not None and cy is not None:
            return self.index(cx + cy)
        if cx == 0:
            return y
        if cy == 0:
            return x
        return self.op(arith.AddiOp(x, y), name)

    def sub(self, x, y, name=None):
        return self.op(arith.SubiOp(x, y), name)

    def mul(self, x, y, name=None):
        cx, cy = constant_value(x), constant_value(y)
        if cx is not None and cy is not None:
            return self.index(cx * cy)
        if (cx == 0 or cy == 0) and name is None:
            return self.index(0)
        if cx == 1:
            return y
        if cy == 1:
            return x
        return self.op(arith.MuliOp(x, y), name)

    def ceildiv(self, x, y, name=None):
        return self.op(arith.CeilDivUIOp(x, y), name)

    def lt(self, x, y, name=None):
        return self.op(arith.CmpiOp(x, y, "ult"), name)

    def land(self, x, y, name=None):
        return self.op(arith.AndIOp(x, y), name)

    def thread_id(self, dim: str, name=None):
        return self.op(gpu.ThreadIdOp(gpu.DimensionAttr(gpu.DimensionEnum(dim))), name)

    def block_id(self, dim: str, name=None):
        return self.op(gpu.BlockIdOp(gpu.DimensionAttr(gpu.DimensionEnum(dim))), name)

    def dim(self, memref_value: SSAValue, axis: int, name=None) -> SSAValue:
        """The size of one axis: a constant when the type knows it, memref.dim if not."""
        size = memref_value.type.get_shape()[axis]  # type: ignore[attr-defined]
        if size >= 0:
            return self.index(size, name)
        return self.op(memref.DimOp(memref_value, self.index(axis)), name)

    # -- memory and float arithmetic --------------------------------------------

    def load(self, mem: SSAValue, indices: Sequence[SSAValue], name=None) -> SSAValue:
        return self.op(memref.LoadOp.get(mem, indices), name)

    def alloca(self, t: MemRefType, name: str | None = None) -> SSAValue:
        op = memref.AllocaOp.get(t.element_type, shape=t.get_shape(), memory_space=t.memory_space)
        return self.op(op, name)

    def store(self, value: SSAValue, mem: SSAValue, indices: Sequence[SSAValue]) -> None:
        self.b.insert(memref.StoreOp.get(value, mem, indices))

    def fma(self, a, b, c, name=None):
        """a * b + c: math.fma, or for integers arith.muli and arith.addi (two's complement,
        wrapping: the integer product's multiply-add)."""
        if isinstance(a.type, IntegerType):
            return self.op(arith.AddiOp(self.op(arith.MuliOp(a, b), "prod"), c), name)
        return self.op(math.FmaOp(a, b, c), name)

    def fmul(self, a, b, name=None):
        return self.op((arith.MuliOp if isinstance(a.type, IntegerType) else arith.MulfOp)(a, b), name)

    def convert(self, value: SSAValue, to: Attribute, name=None, unsigned: bool = False) -> SSAValue:
        """extf or truncf between float types, extsi (extui where `unsigned`) or trunci between
        integer types; the value itself when they match.  A float to or from an integer is refused
        (no GEMM of gemmc's converts one into the other)."""
        if value.type == to:
            return value
        ints = isinstance(value.type, IntegerType), isinstance(to, IntegerType)
        if ints[0] != ints[1]:
            raise GemmcError(f"no conversion of {value.type} to {to} in an integer or float product")
        if ints[0]:
            if value.type.width.data > to.width.data:
                return self.op(arith.TruncIOp(value, to), name)
            return self.op((arith.ExtUIOp if unsigned else arith.ExtSIOp)(value, to), name)
        if value.type.bitwidth == to.bitwidth:  # f16 <-> bf16: no single op (nor C cast) does it
            value = self.op(arith.ExtFOp(value, Float32Type()))
        if value.type.bitwidth < to.bitwidth:
            return self.op(arith.ExtFOp(value, to), name)
        return self.op(arith.TruncFOp(value, to), name)

    # -- structure ------------------------------------------------------------------

    def if_(self, cond: SSAValue, body: Callable[[KernelBuilder], None]) -> scf.IfOp:
        block = Block()
        inner = self.nested(block)
        body(inner)
        inner.b.insert(scf.YieldOp())
        op = scf.IfOp(cond, [], [block])
        self.b.insert(op)
        return op

    def for_(
        self,
        lb: SSAValue,
        ub: SSAValue,
        step: SSAValue,
        iter_args: Sequence[SSAValue],
        body: Callable[[KernelBuilder, SSAValue, Sequence[SSAValue]], Sequence[SSAValue]],
        iv_name: str = "k",
    ) -> scf.ForOp:
        block = Block(arg_types=[IndexType(), *(v.type for v in iter_args)])
        block.args[0].name_hint = iv_name
        for arg in block.args[1:]:
            arg.name_hint = "acc"
        inner = self.nested(block)
        results = body(inner, block.args[0], block.args[1:])
        inner.b.insert(scf.YieldOp(*results))
        op = scf.ForOp(lb, ub, step, iter_args, block)
        self.b.insert(op)
        return op


_ID_OPS = (gpu.ThreadIdOp, gpu.BlockIdOp, gpu.LaneIdOp)


def repeat_values(
    values: Sequence[SSAValue],
    kb: KernelBuilder,
    argument: Callable[[BlockArgument], SSAValue],
    refused: Callable[[Operation | None], Exception],
) -> list[SSAValue]:
    """`values` computed again at the builder's point: the ops they come from cloned in the order
    they stand in their function (so that a launcher still asks for its sizes in the same order),
    down to block arguments, which `argument` maps.  Only pure ops that do not depend on which
    thread runs them (memref.dim included) are repeated; for any other, `refused(op)` is raised."""
    ops: set[Operation] = set()
    todo = list(values)
    while todo:
        v = todo.pop()
        if isinstance(v, BlockArgument) or v.owner in ops:
            continue
        op = v.owner
        if op.regions or isinstance(op, _ID_OPS) or not (is_side_effect_free(op) or isinstance(op, memref.DimOp)):
            raise refused(op)
        ops.add(op)
        todo += op.operands
    done: dict[SSAValue, SSAValue] = {}

    def value(v: SSAValue) -> SSAValue:
        if v not in done:
            done[v] = argument(v)  # the ops are cloned before their users: only arguments are left
        return done[v]

    for op in sorted(ops, key=_function_order(ops)):
        clone = op.clone_without_regions()
        for i, x in enumerate(op.operands):
            clone.operands[i] = value(x)
        kb.op(clone, op.results[0].name_hint)
        done[op.results[0]] = clone.results[0]
    return [value(v) for v in values]


def _function_order(ops: set[Operation]) -> Callable[[Operation], int]:
    """Position in a walk of the function holding `ops` (one function: a value's slice)."""
    if not ops:
        return lambda op: 0
    fn = next(iter(ops))
    while fn.parent_op() is not None and not isinstance(fn, (gpu.FuncOp, func.FuncOp)):
        fn = fn.parent_op()
    order = {op: i for i, op in enumerate(fn.walk())}
    return order.__getitem__


def index_constant(v: int) -> arith.ConstantOp:
    """An arith.constant of index type (not yet inserted)."""
    return arith.ConstantOp(IntegerAttr(v, IndexType()))


def constant_value(v: SSAValue) -> int | None:
    """The value of an index constant, None for anything else."""
    op = v.owner
    if isinstance(op, arith.ConstantOp) and isinstance(op.value, IntegerAttr):
        return op.value.value.data
    return None


def lds_type(shape: Sequence[int], element: Attribute) -> MemRefType:
    return MemRefType(element, shape, memory_space=IntegerAttr(LDS_SPACE, 64))
