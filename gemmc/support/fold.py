"""Compile-time values of index arithmetic: what unroll-loops and promote-private need to know
about loop bounds and register-tile indices without running canonicalize (which would also
rewrite the rest of the kernel)."""

from __future__ import annotations

from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import IntegerAttr, MemRefType
from xdsl.ir import SSAValue

_BINARY = {
    arith.AddiOp: lambda a, b: a + b,
    arith.SubiOp: lambda a, b: a - b,
    arith.MuliOp: lambda a, b: a * b,
    arith.DivUIOp: lambda a, b: a // b if b else None,
    arith.RemUIOp: lambda a, b: a % b if b else None,
    arith.CeilDivUIOp: lambda a, b: -(-a // b) if b else None,
    arith.MinUIOp: min,
    arith.MaxUIOp: max,
    arith.AndIOp: lambda a, b: a & b,
    arith.OrIOp: lambda a, b: a | b,
    arith.XOrIOp: lambda a, b: a ^ b,
}


def constant_int(value: SSAValue, depth: int = 32) -> int | None:
    """The integer `value` always holds, where arith on constants (and the static sizes of
    memref.dim) decide it; None otherwise.  Unsigned ops fold only on non-negative operands."""
    op = value.owner
    if depth == 0 or not hasattr(op, "name"):
        return None
    if isinstance(op, arith.ConstantOp):
        v = op.value
        return v.value.data if isinstance(v, IntegerAttr) else None
    if isinstance(op, arith.IndexCastOp):
        return constant_int(op.input, depth - 1)
    if isinstance(op, memref.DimOp):
        axis = constant_int(op.index, depth - 1)
        t = op.source.type
        if axis is None or not isinstance(t, MemRefType) or not 0 <= axis < len(t.get_shape()):
            return None
        size = t.get_shape()[axis]
        return size if size >= 0 else None
    fn = _BINARY.get(type(op))
    if fn is None:
        return None
    a, b = (constant_int(o, depth - 1) for o in op.operands)
    if a is None or b is None:
        return None
    unsigned = type(op) in (arith.DivUIOp, arith.RemUIOp, arith.CeilDivUIOp, arith.MinUIOp, arith.MaxUIOp)
    if unsigned and (a < 0 or b < 0):
        return None
    return fn(a, b)
