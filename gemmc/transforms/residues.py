"""Index expressions modulo a power of two, as polynomials over the values they are made of.

`known_multiple` (gemmc.transforms.lds_access) proves that one value is a multiple of n.  Some alignment
facts only hold for a sum: a peeled copy's vector starts at row g0's first aligned element,

    g0 * ld + o1 + j * w + head,   head = (w - (g0 * ld + o1) mod w) mod w,

which is a multiple of w although no term of it is.  Here an index value becomes a polynomial
with coefficients mod m (m a power of two) whose variables are the values the analysis cannot
see into (thread ids, loop variables, quotients, dynamic sizes); a remainder by a multiple of m
keeps its operand's residue, so head's polynomial is minus the row start's and the sum's is 0.

Sound for the hardware's wrapping 32- or 64-bit index arithmetic: every m here divides 2^32,
and +, -, * and `x mod d` (m dividing d) preserve residues mod m under wrapping.
"""

from __future__ import annotations

from collections import Counter

from xdsl.dialects import arith, gpu, memref
from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import BlockArgument, SSAValue

from gemmc.transforms.lds_access import known_multiple

Monomial = frozenset  # of (variable key, power) pairs; frozenset() is the constant term
Poly = dict  # Monomial -> coefficient in 1 .. m-1

MAX_TERMS = 64  # a larger polynomial stands as one opaque variable (the analysis stays cheap)
_PASS_THROUGH = (arith.IndexCastOp, arith.ExtUIOp)


def offset_is_multiple(base: SSAValue, indices, m: int) -> bool:
    """Whether the row-major element offset of `indices` into memref `base` is provably a
    multiple of m (a power of two): sum of index_i * (product of the sizes after i)."""
    shape = base.type.get_shape()
    total: Poly = {}
    stride: Poly = {frozenset(): 1}
    for i in reversed(range(len(indices))):
        total = _add(total, _mul(residue(indices[i], m), stride, m), m)
        size = {frozenset(): shape[i] % m} if shape[i] >= 0 else _var(("dim", base, i))
        stride = _mul(stride, size, m)
    return not total


def residue(value: SSAValue, m: int, depth: int = 24) -> Poly:
    """value mod m as a polynomial (the empty dict: a multiple of m)."""
    if m & (m - 1) or m <= 0:
        raise ValueError(f"residues are taken modulo a power of two, not {m}")
    if m == 1 or known_multiple(value) % m == 0:
        return {}
    if depth == 0 or isinstance(value, BlockArgument):
        return _var(_key(value))
    op = value.owner
    sub = lambda v: residue(v, m, depth - 1)  # noqa: E731
    if isinstance(op, arith.ConstantOp) and isinstance(op.value, IntegerAttr):
        return _const(op.value.value.data, m)
    if isinstance(op, arith.AddiOp):
        return _bounded(_add(sub(op.lhs), sub(op.rhs), m), value)
    if isinstance(op, arith.SubiOp):
        return _bounded(_add(sub(op.lhs), _scale(sub(op.rhs), -1, m), m), value)
    if isinstance(op, arith.MuliOp):
        return _bounded(_mul(sub(op.lhs), sub(op.rhs), m), value)
    if isinstance(op, arith.RemUIOp) and known_multiple(op.rhs) % m == 0:  # m divides the divisor
        return sub(op.lhs)
    if isinstance(op, _PASS_THROUGH):
        return sub(op.operands[0])
    if isinstance(op, memref.DimOp) and _constant(op.index) is not None:
        i = _constant(op.index)
        size = op.source.type.get_shape()[i]
        return _const(size, m) if size >= 0 else _var(("dim", op.source, i))
    return _var(_key(value))


def _key(value: SSAValue, depth: int = 8) -> object:
    """What identifies a value the analysis does not see into: equal keys, equal values.  An
    op without regions or effects is keyed by its name, properties and operands' keys, so two
    copies of one expression (the same quotient computed twice) are one variable."""
    if isinstance(value, BlockArgument) or depth == 0:
        return value
    op = value.owner
    if op.regions or not isinstance(op, _PURE):
        return value
    c = _constant(value)
    if c is not None:
        return ("const", c)
    props = tuple(sorted((k, str(v)) for k, v in op.properties.items()))
    return (op.name, value.index, props, tuple(_key(x, depth - 1) for x in op.operands))


_PURE = (arith.AddiOp, arith.SubiOp, arith.MuliOp, arith.DivUIOp, arith.RemUIOp, arith.DivSIOp,
         arith.RemSIOp, arith.ConstantOp, arith.MinUIOp, arith.MaxUIOp, arith.IndexCastOp,
         arith.SelectOp, arith.CmpiOp, arith.ShRUIOp, arith.ShLIOp, arith.AndIOp,
         gpu.ThreadIdOp, gpu.BlockIdOp, gpu.BlockDimOp, gpu.GridDimOp)


def _constant(value: SSAValue) -> int | None:
    op = value.owner
    if isinstance(op, arith.ConstantOp) and isinstance(op.value, IntegerAttr):
        return op.value.value.data
    return None


def _const(c: int, m: int) -> Poly:
    return {frozenset(): c % m} if c % m else {}


def _var(key: object) -> Poly:
    return {frozenset({(key, 1)}): 1}


def _bounded(p: Poly, value: SSAValue) -> Poly:
    return p if len(p) <= MAX_TERMS else _var(_key(value))


def _add(p: Poly, q: Poly, m: int) -> Poly:
    out = dict(p)
    for mono, c in q.items():
        out[mono] = (out.get(mono, 0) + c) % m
        if not out[mono]:
            del out[mono]
    return out


def _scale(p: Poly, s: int, m: int) -> Poly:
    return {mono: c * s % m for mono, c in p.items() if c * s % m}


def _mul(p: Poly, q: Poly, m: int) -> Poly:
    out: Poly = {}
    for pm, pc in p.items():
        for qm, qc in q.items():
            powers = Counter(dict(pm))
            powers.update(dict(qm))
            out = _add(out, {frozenset(powers.items()): pc * qc % m}, m)
    return out
