"""Selection of arith's integer and i1 ops: constants, add / sub / mul, division and
remainder by constants, min / max, bitwise ops, compares, select, index casts.

Each result is a lowered value in the value map; instructions are emitted only where a
value is not known at compile time (the integers' and booleans' helpers fold the rest).
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects import arith
from xdsl.dialects.builtin import BFloat16Type, Float16Type, Float32Type, FloatAttr, IntegerAttr, IntegerType
from xdsl.ir import Operation

from gemmc.amdgcn.lowering.booleans import Booleans
from gemmc.amdgcn.lowering.division import ConstantDivision
from gemmc.amdgcn.lowering.elements import fp8_bits, fp8_name, half_bits
from gemmc.amdgcn.lowering.ranges import RegisterRanges
from gemmc.amdgcn.values import B, E8, F, H, I


class IntegerOps(ConstantDivision, Booleans, RegisterRanges):
    def _constant(self, op: arith.ConstantOp) -> None:
        v = op.value
        t = op.result.type
        if isinstance(v, IntegerAttr):
            if t == IntegerType(1):
                self.env[op.result] = B(const=bool(v.value.data))
            else:
                self.env[op.result] = I(None, v.value.data)
        elif isinstance(v, FloatAttr) and isinstance(t, Float32Type):
            self.env[op.result] = F(const=v.value.data)
        elif isinstance(v, FloatAttr) and isinstance(t, (Float16Type, BFloat16Type)):
            self.env[op.result] = H(bits=half_bits(v.value.data, t))
        elif isinstance(v, FloatAttr) and fp8_name(t) is not None:
            self.env[op.result] = E8(bits=fp8_bits(v.value.data, t))
        else:
            raise self.error(op, f"constant of type {t} is not supported")

    def _binary_int(self, op: Operation) -> None:
        x, y = self.ival(op.operands[0], op), self.ival(op.operands[1], op)
        if isinstance(op, arith.AddiOp):
            r = self.add(x, y)
        elif isinstance(op, arith.SubiOp):
            r = self.sub(x, y, op)
        elif isinstance(op, arith.MuliOp):
            r = self.mul(x, y)
        elif isinstance(op, (arith.DivUIOp, arith.CeilDivUIOp, arith.RemUIOp)):
            if y.reg is not None:
                raise self.error(op, "division by a value that is not a compile-time constant")
            if isinstance(op, arith.RemUIOp):
                r = self.remc(x, y.const, op)
            elif isinstance(op, arith.DivUIOp):
                r = self.divc(x, y.const, op)
            else:
                r = self.divc(self.add(x, I(None, y.const - 1)), y.const, op)
        elif isinstance(op, (arith.MinUIOp, arith.MaxUIOp)):
            if x.reg is None and y.reg is None:
                r = I(None, (min if isinstance(op, arith.MinUIOp) else max)(x.const, y.const))
            else:
                a, b = self.mat(x), self.mat(y)
                m = "min" if isinstance(op, arith.MinUIOp) else "max"
                if not self.is_v(a) and not self.is_v(b):
                    r = I(self.emit(f"s_{m}_u32", [a, b], [self.S(), self.scc()])[0])
                else:
                    r = I(self.vop2(f"v_{m}_u32", a, b, True))
        else:
            raise self.error(op, f"cannot select instructions for '{op.name}'")
        self.env[op.results[0]] = r

    _BITWISE = {arith.AndIOp: ("and", int.__and__), arith.OrIOp: ("or", int.__or__), arith.XOrIOp: ("xor", int.__xor__)}

    def _bitwise(self, op: Operation) -> None:
        x, y = self.env.get(op.operands[0]), self.env.get(op.operands[1])
        m, fold = self._BITWISE[type(op)]
        if isinstance(x, B) and isinstance(y, B):
            if m == "xor":
                raise self.error(op, "xor of i1 values is not selected")
            self.env[op.results[0]] = self.band(x, y, m == "and")
            return
        x, y = self.ival(op.operands[0], op), self.ival(op.operands[1], op)
        if x.reg is None and y.reg is None:
            self.env[op.results[0]] = I(None, fold(x.const, y.const))
            return
        a, b = self.mat(x), self.mat(y)
        if not self.is_v(a) and not self.is_v(b):
            self.env[op.results[0]] = I(self.emit(f"s_{m}_b32", [a, b], [self.S(), self.scc()])[0])
        else:
            self.env[op.results[0]] = I(self.vop2(f"v_{m}_b32", a, b, True))

    def _cmpi(self, op: arith.CmpiOp) -> None:
        self.env[op.result] = self.cmp(op.predicate.value.data, self.ival(op.lhs, op), self.ival(op.rhs, op), op)

    def _select(self, op: arith.SelectOp) -> None:
        c = self.env.get(op.cond)
        if not isinstance(c, B):
            raise self.error(op, "expects an i1 condition")
        t, f = self.env.get(op.lhs), self.env.get(op.rhs)
        if c.const is not None:
            self.env[op.result] = t if c.const else f
            return
        if isinstance(t, I) and isinstance(f, I):
            a, b = self.mat(t), self.mat(f)
            if not c.mask and not self.is_v(a) and not self.is_v(b):
                s = self.e1("s_cmp_lg_u32", [c.reg, self.const(0)], self.scc())  # type: ignore[list-item]
                self.env[op.result] = I(self.e1("s_cselect_b32", [a, b, s], self.S()))
                return
            m = self.to_mask(c)
            self.env[op.result] = I(self.vop3("v_cndmask_b32", [b, a, m]))
        elif isinstance(t, F) and isinstance(f, F):
            m = self.to_mask(c)
            self.env[op.result] = F(self.vop3("v_cndmask_b32", [self.fmat(f), self.fmat(t), m]))
        else:
            raise self.error(op, f"select of {op.result.type} is not supported")

    def _passthrough(self, op: Operation) -> None:
        self.env[op.results[0]] = self.env[op.operands[0]]


INTEGER_OPS: dict[type, Callable] = {
    arith.ConstantOp: IntegerOps._constant,
    arith.AddiOp: IntegerOps._binary_int, arith.SubiOp: IntegerOps._binary_int, arith.MuliOp: IntegerOps._binary_int,
    arith.DivUIOp: IntegerOps._binary_int, arith.RemUIOp: IntegerOps._binary_int,
    arith.CeilDivUIOp: IntegerOps._binary_int,
    arith.MinUIOp: IntegerOps._binary_int, arith.MaxUIOp: IntegerOps._binary_int,
    arith.AndIOp: IntegerOps._bitwise, arith.OrIOp: IntegerOps._bitwise, arith.XOrIOp: IntegerOps._bitwise,
    arith.CmpiOp: IntegerOps._cmpi, arith.SelectOp: IntegerOps._select,
    arith.IndexCastOp: IntegerOps._passthrough,
}
"""The handlers of arith's integer ops, by op class."""
