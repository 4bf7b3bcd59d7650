"""i1 values: comparisons, and how a boolean is held.

A uniform i1 is an SGPR holding 0 or 1 (s_cmp + s_cselect_b32); a lane-varying one is a lane
mask, an SGPR pair on wave64 and one SGPR on wave32, written by v_cmp_*_e64.  A known bound
decides some unsigned compares against constants.
"""

from __future__ import annotations

from xdsl.ir import Operation, SSAValue

from gemmc.amdgcn.lowering.integers import IntegerArithmetic
from gemmc.amdgcn.values import B, I


class Booleans(IntegerArithmetic):
    CC = {0: ("eq", "u"), 1: ("lg", "u"), 2: ("lt", "i"), 3: ("le", "i"), 4: ("gt", "i"), 5: ("ge", "i"),
          6: ("lt", "u"), 7: ("le", "u"), 8: ("gt", "u"), 9: ("ge", "u")}

    PY = {"eq": lambda a, b: a == b, "lg": lambda a, b: a != b, "lt": lambda a, b: a < b,
          "le": lambda a, b: a <= b, "gt": lambda a, b: a > b, "ge": lambda a, b: a >= b}

    def cmp(self, pred: int, x: I, y: I, op: Operation) -> B:
        cc, sign = self.CC[pred]
        if x.reg is None and y.reg is None:
            return B(const=self.PY[cc](x.const, y.const))
        # a known bound decides `x < c` for unsigned compares against constants
        if sign == "u" and y.reg is None and x.bound is not None and cc in ("lt", "ge") and x.bound <= y.const:
            return B(const=cc == "lt")
        a, b = self.mat(x), self.mat(y)
        if not self.is_v(a) and not self.is_v(b):
            s = self.e1(f"s_cmp_{cc}_{sign}32", [a, b], self.scc())
            r = self.e1("s_cselect_b32", [self.const(1), self.const(0), s], self.S())
            return B(reg=r)
        vcc = "ne" if cc == "lg" else cc
        m = self.vop3(f"v_cmp_{vcc}_{sign}32", [a, b], self.S(self.mask_n))
        return B(reg=m, mask=True)

    def to_mask(self, x: B) -> SSAValue:
        if x.mask:
            return x.reg  # type: ignore[return-value]
        ones, zero = self.const(-1), self.const(0)
        if x.const is not None:
            return self.e1("s_mov_b64" if self.wave64 else "s_mov_b32", [ones if x.const else zero], self.S(self.mask_n))
        s = self.e1("s_cmp_lg_u32", [x.reg, zero], self.scc())  # type: ignore[list-item]
        return self.e1("s_cselect_b64" if self.wave64 else "s_cselect_b32", [ones, zero, s], self.S(self.mask_n))

    def band(self, x: B, y: B, is_and: bool) -> B:
        for p, q in ((x, y), (y, x)):
            if p.const is not None:
                if p.const == is_and:
                    return q
                return B(const=not is_and)
        if not x.mask and not y.mask:
            m = "s_and_b32" if is_and else "s_or_b32"
            return B(reg=self.emit(m, [x.reg, y.reg], [self.S(), self.scc()])[0])  # type: ignore[list-item]
        a, b = self.to_mask(x), self.to_mask(y)
        suffix = "b64" if self.wave64 else "b32"
        m = f"s_{'and' if is_and else 'or'}_{suffix}"
        return B(reg=self.emit(m, [a, b], [self.S(self.mask_n), self.scc()])[0], mask=True)
