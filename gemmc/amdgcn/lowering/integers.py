"""Integer arithmetic on lowered values: `register + constant` (gemmc.amdgcn.values.I).

Constant parts fold into each other and into the immediate offsets of memory instructions;
a sum or product of uniform values is SALU (s_add_u32, s_mul_i32), of lane-varying ones VALU;
multiplication by 2^k is a shift, by a small constant of a value below 2^24 v_mul_u32_u24.
Operands of commutative instructions are ordered by creation so value numbering finds repeats.
"""

from __future__ import annotations

from xdsl.ir import Operation, SSAValue

from gemmc.amdgcn.lowering.registers import RegisterFiles
from gemmc.amdgcn.values import I, log2, pow2


class IntegerArithmetic(RegisterFiles):
    def ival(self, v: SSAValue, op: Operation) -> I:
        x = self.env.get(v)
        if not isinstance(x, I):
            raise self.error(op, f"expected an integer value for {v.name_hint or 'an operand'}")
        return x

    def mat(self, x: I) -> SSAValue:
        """x as one register (or constant operand)."""
        if x.reg is None:
            return self.const(x.const)
        if x.const == 0:
            return x.reg
        return self.add_regs(x.reg, self.const(x.const))

    def add_regs(self, a: SSAValue, b: SSAValue) -> SSAValue:
        if self.is_imm(a) and self.is_imm(b):
            raise AssertionError("constant folding missed")
        if not self.is_v(a) and not self.is_v(b):
            return self.emit("s_add_u32", [a, b], [self.S(), self.scc()])[0]
        return self.vop2("v_add_u32", a, b, True)

    @staticmethod
    def bnd(x: I) -> int | None:
        return x.const + 1 if x.reg is None else x.bound

    def add(self, x: I, y: I) -> I:
        bx, by = self.bnd(x), self.bnd(y)
        bound = bx + by if bx is not None and by is not None else None
        if x.reg is None or y.reg is None:
            r = x.reg if x.reg is not None else y.reg
            al = x.align if x.reg is not None else y.align
            return I(r, x.const + y.const, bound, al)
        a, b = (x.reg, y.reg) if self.rank(x.reg) <= self.rank(y.reg) else (y.reg, x.reg)
        return I(self.add_regs(a, b), x.const + y.const, bound, min(x.align, y.align))

    def sub(self, x: I, y: I, op: Operation) -> I:
        if y.reg is None:
            return I(x.reg, x.const - y.const, x.bound, x.align)
        a, b = self.mat(x), self.mat(y)
        if not self.is_v(a) and not self.is_v(b):
            return I(self.emit("s_sub_u32", [a, b], [self.S(), self.scc()])[0], 0, x.bound)
        return I(self.e1("v_sub_u32", [a, self.to_vgpr(b)], self.V()), 0, x.bound)

    def mul_const(self, r: SSAValue, c: int, bound: int | None) -> SSAValue:
        if c == 1:
            return r
        uniform = not self.is_v(r)
        if pow2(c):
            sh = self.const(log2(c))
            if uniform:
                return self.emit("s_lshl_b32", [r, sh], [self.S(), self.scc()])[0]
            return self.e1("v_lshlrev_b32", [sh, r], self.V())
        if uniform:
            return self.e1("s_mul_i32", [r, self.const(c)], self.S())
        if bound is not None and bound <= 1 << 24 and 0 <= c < 1 << 24:
            return self.e1("v_mul_u32_u24", [self.const(c), r], self.V())
        return self.vop3("v_mul_lo_u32", [r, self.const(c)])

    def mul(self, x: I, y: I) -> I:
        bx, by = self.bnd(x), self.bnd(y)
        bound = bx * by if bx is not None and by is not None else None
        if x.reg is None and y.reg is None:
            return I(None, x.const * y.const)
        if y.reg is None or x.reg is None:
            if x.reg is None:
                x, y = y, x
            c = y.const
            if c == 0:
                return I(None, 0)
            rb = x.bound - x.const if x.bound is not None else None
            r = self.mul_const(x.reg, c, rb)  # type: ignore[arg-type]
            al = x.align * (c & -c) if c > 0 else 1
            return I(r, x.const * c, bound, al)
        a, b = self.mat(x), self.mat(y)
        if self.rank(a) > self.rank(b):
            a, b = b, a
        if not self.is_v(a) and not self.is_v(b):
            return I(self.e1("s_mul_i32", [a, b], self.S()), 0, bound)
        if bound is not None and bound <= 1 << 24:
            return I(self.vop2("v_mul_u32_u24", a, b, True), 0, bound)
        return I(self.vop3("v_mul_lo_u32", [a, b]), 0, bound)

    def shr(self, r: SSAValue, k: int) -> SSAValue:
        if k == 0:
            return r
        if not self.is_v(r):
            return self.emit("s_lshr_b32", [r, self.const(k)], [self.S(), self.scc()])[0]
        return self.e1("v_lshrrev_b32", [self.const(k), r], self.V())
