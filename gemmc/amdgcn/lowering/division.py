"""Unsigned division and remainder by compile-time constants.

Folded where the constant part or the register's known alignment allows; otherwise a power
of two is a shift or a mask, and another divisor a multiply-high by a magic number and a
shift (gemmc.amdgcn.values.magic_u32, chosen for the dividend's known bound).
"""

from __future__ import annotations

from xdsl.ir import Operation

from gemmc.amdgcn.lowering.integers import IntegerArithmetic
from gemmc.amdgcn.values import I, log2, magic_u32, pow2


class ConstantDivision(IntegerArithmetic):
    def divc(self, x: I, d: int, op: Operation) -> I:
        if d <= 0:
            raise self.error(op, f"division by {d}")
        bound = -(-x.bound // d) if x.bound is not None else None
        if x.reg is None:
            return I(None, x.const // d)
        if d == 1:
            return x
        rb = x.bound - x.const if x.bound is not None and x.const >= 0 else None
        if x.const > 0 and (x.const % d == 0 or x.align % d == 0):
            # floor((r + c) / d) = floor(r / d) + floor(c / d) when d divides c or r (r, c >= 0)
            q = self.divc(I(x.reg, 0, rb, x.align), d, op)
            return I(q.reg, q.const + x.const // d, bound, q.align)
        r = self.mat(x)
        if pow2(d):
            return I(self.shr(r, log2(d)), 0, bound, max(1, x.align // d) if x.const == 0 else 1)
        m, s = magic_u32(d, x.bound if x.bound is not None else 1 << 31)
        if not self.is_v(r):
            hi = self.e1("s_mul_hi_u32", [r, self.const(m)], self.S())
        else:
            hi = self.vop3("v_mul_hi_u32", [r, self.const(m)])
        return I(self.shr(hi, s), 0, bound)

    def remc(self, x: I, d: int, op: Operation) -> I:
        if d <= 0:
            raise self.error(op, f"remainder by {d}")
        if x.reg is None:
            return I(None, x.const % d)
        if x.bound is not None and x.const >= 0 and x.bound <= d and x.const == 0:
            return x
        if x.const > 0 and x.const % d == 0:  # (r + c) % d = r % d when d divides c
            return self.remc(I(x.reg, 0, x.bound - x.const if x.bound is not None else None, x.align), d, op)
        if x.align % d == 0 and x.const >= 0:  # d divides r
            return I(None, x.const % d)
        if pow2(d):
            r = self.mat(x)
            mask = self.const(d - 1)
            if not self.is_v(r):
                return I(self.emit("s_and_b32", [r, mask], [self.S(), self.scc()])[0], 0, d)
            return I(self.vop2("v_and_b32", mask, r, True), 0, d)
        q = self.divc(x, d, op)
        qd = self.mul(q, I(None, d))
        res = self.sub(I(self.mat(x), 0, x.bound), qd, op)
        return I(self.mat(res), 0, d)
