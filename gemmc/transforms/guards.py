"""What the scf.if guards around an op prove: `a < b` of two index values, read from the conditions.

An op inside the then-region of `scf.if %c` runs only where %c holds, inside the else-region only
where it does not.  A condition is taken apart where that is exact: `andi` holding means both hold,
`ori` failing means both fail; a compare `arith.cmpi ult %a, %b` holding, or `uge` failing, proves
a < b (`ugt %b, %a` holding and `ule %b, %a` failing too; the signed forms likewise, for the
non-negative indices they compare here).  Anything else proves nothing, so a guard the IR writes
differently is refused by the caller, never guessed at.
"""

from __future__ import annotations

from xdsl.dialects import arith, gpu, scf
from xdsl.ir import Operation, SSAValue

# (predicate, holds) -> whether it proves lhs < rhs (False) or rhs < lhs (True: swapped)
_LESS = {("ult", True): False, ("slt", True): False, ("uge", False): False, ("sge", False): False,
         ("ugt", True): True, ("sgt", True): True, ("ule", False): True, ("sle", False): True}


def proven_less(op: Operation, a: SSAValue, b: SSAValue) -> bool:
    """Whether the scf.if guards around `op` (up to its gpu.func) prove a < b."""
    return any(_proves(cond, holds, a, b) for cond, holds in _guards(op))


def _guards(op: Operation) -> list[tuple[SSAValue, bool]]:
    """(condition, whether it holds) of every scf.if around op."""
    out = []
    child, parent = op, op.parent_op()
    while parent is not None and not isinstance(parent, gpu.FuncOp):
        if isinstance(parent, scf.IfOp):
            region = child.parent_region()
            out.append((parent.cond, region is parent.true_region))
        child, parent = parent, parent.parent_op()
    return out


def _proves(cond: SSAValue, holds: bool, a: SSAValue, b: SSAValue) -> bool:
    op = cond.owner
    if isinstance(op, arith.AndIOp) and holds or isinstance(op, arith.OrIOp) and not holds:
        return _proves(op.lhs, holds, a, b) or _proves(op.rhs, holds, a, b)
    if isinstance(op, arith.CmpiOp):
        swapped = _LESS.get((arith.CMPI_COMPARISON_OPERATIONS[op.predicate.value.data], holds))
        if swapped is None:
            return False
        lhs, rhs = (op.rhs, op.lhs) if swapped else (op.lhs, op.rhs)
        return lhs is a and rhs is b
    return False
