"""The interpreter and the cost model's lane evaluator compute arith's integer ops alike,
and as MLIR defines them on `index` (64-bit two's complement; *ui ops read unsigned)."""

import numpy as np
import pytest
from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr, ModuleOp
from xdsl.interpreter import Interpreter

from gemmc.cost.lanes import Grid, LaneEvaluator
from gemmc.interp.ops import ArithFunctions

W = 2**64


def _u(x: int) -> int:
    return x % W


def _s(x: int) -> int:
    return (x + 2**63) % W - 2**63


def _trunc_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


# op, a, b, the result by MLIR's definition, computed with Python's unbounded integers
CASES = [
    (arith.AddiOp, -7, 2, -5),
    (arith.SubiOp, 3, 10, -7),
    (arith.MuliOp, -7, 3, -21),
    (arith.DivSIOp, -7, 2, -3),
    (arith.DivSIOp, 7, -2, -3),
    (arith.DivUIOp, -7, 2, _s(_u(-7) // 2)),
    (arith.DivUIOp, 7, -2, 0),
    (arith.DivUIOp, 12, 5, 2),
    (arith.RemSIOp, -7, 2, -1),
    (arith.RemUIOp, -7, 2, _u(-7) % 2),
    (arith.RemUIOp, -8, 3, _s(_u(-8) % 3)),
    (arith.FloorDivSIOp, -7, 2, -4),
    (arith.CeilDivSIOp, -7, 2, -3),
    (arith.CeilDivSIOp, 7, 2, 4),
    (arith.CeilDivUIOp, -7, 2, _s(-(-_u(-7) // 2))),
    (arith.CeilDivUIOp, 9, 4, 3),
    (arith.MinSIOp, -1, 3, -1),
    (arith.MinUIOp, -1, 3, 3),
    (arith.MaxUIOp, -1, 3, -1),
    (arith.MaxSIOp, -1, 3, 3),
    (arith.AndIOp, -8, 13, -8 & 13),
    (arith.OrIOp, -8, 3, -8 | 3),
    (arith.XOrIOp, -1, 5, -1 ^ 5),
    (arith.ShLIOp, -3, 2, -12),
    (arith.ShRSIOp, -16, 2, -4),
    (arith.ShRUIOp, -16, 60, _s(_u(-16) >> 60)),
    (arith.DivSIOp, 5, 0, 0),  # undefined in MLIR; both give 0 (see gemmc/support/arith_semantics.py)
    (arith.DivUIOp, -5, 0, 0),
]

CMPI_CASES = [("slt", -1, 3, True), ("ult", -1, 3, False), ("uge", -1, 3, True),
              ("sge", -1, 3, False), ("ule", 2, 2, True), ("ne", -4, -4, False)]


def _const(v: int) -> arith.ConstantOp:
    return arith.ConstantOp(IntegerAttr(v, IndexType()))


def _interpreted(op, a: int, b: int):
    interp = Interpreter(ModuleOp([]))
    interp.register_implementations(ArithFunctions())
    (r,) = interp.run_op(op, (np.int64(a), np.int64(b)))
    return r


def _lane_evaluated(op):
    lanes = LaneEvaluator(None, Grid((1, 1, 1), (1, 1, 1)), lambda v, i: None, max_depth=0)
    r = lanes.value(op.results[0])
    assert r is not None, f"the lane evaluator cannot evaluate {op.name}"
    return np.ravel(r)[0]


def _agree(op, a, b, expected):
    interpreted, lane = _interpreted(op, a, b), _lane_evaluated(op)
    assert interpreted == expected, f"interpreter: {op.name}({a}, {b}) = {interpreted}, not {expected}"
    assert lane == expected, f"lane evaluator: {op.name}({a}, {b}) = {lane}, not {expected}"


@pytest.mark.parametrize("cls, a, b, expected", CASES, ids=lambda x: getattr(x, "name", str(x)))
def test_int_binary_agree(cls, a, b, expected):
    ca, cb = _const(a), _const(b)
    _agree(cls(ca.result, cb.result), a, b, expected)


@pytest.mark.parametrize("pred, a, b, expected", CMPI_CASES)
def test_cmpi_agree(pred, a, b, expected):
    ca, cb = _const(a), _const(b)
    _agree(arith.CmpiOp(ca.result, cb.result, pred), a, b, expected)


def test_divui_is_unsigned():
    """-7 is 2^64 - 7 to divui: the quotient is huge and positive, not -4 or -3."""
    ca, cb = _const(-7), _const(2)
    op = arith.DivUIOp(ca.result, cb.result)
    assert _interpreted(op, -7, 2) == _lane_evaluated(op) == (2**64 - 7) // 2
