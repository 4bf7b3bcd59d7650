"""Register files and VALU operand rules.

A value's register file is its uniformity: an SGPR (or SCC, EXEC, an inline constant) holds a
wave-uniform value, a VGPR one per lane, an AGPR an MFMA accumulator.  VALU instructions take
SGPRs and constants only where the encoding allows: VOP2's second source must be a VGPR, VOP3
reads at most constant_bus_limit SGPRs and literals (and no literal on gfx9); the helpers here
move operands into registers until an instruction is legal.
"""

from __future__ import annotations

from xdsl.ir import SSAValue

from gemmc.amdgcn.lowering.context import SelectionContext
from gemmc.dialects.amdgcn.pseudo import constant_of
from gemmc.dialects.amdgcn.registers import AGPRType, ImmType, SGPRType, SpecialRegType, VGPRType, sgpr, vgpr


class RegisterFiles(SelectionContext):
    @staticmethod
    def is_v(x: SSAValue | None) -> bool:
        return x is not None and isinstance(x.type, VGPRType)

    @staticmethod
    def is_s(x: SSAValue | None) -> bool:
        return x is not None and isinstance(x.type, (SGPRType, SpecialRegType))

    @staticmethod
    def is_imm(x: SSAValue) -> bool:
        return isinstance(x.type, ImmType)

    def V(self, n=1):
        return vgpr(n)

    def S(self, n=1):
        return sgpr(n)

    def scc(self):
        return SpecialRegType("scc")

    def to_vgpr(self, x: SSAValue) -> SSAValue:
        if self.is_v(x):
            return x
        if isinstance(x.type, AGPRType):
            return self.e1("v_accvgpr_read_b32", [x], self.V())
        return self.e1("v_mov_b32", [x], self.V())

    def literal_ok(self, x: SSAValue) -> bool:
        c = constant_of(x)
        return c is None or c.is_inline()

    def vop2(self, mnemonic: str, a: SSAValue, b: SSAValue, commutative: bool, name=None) -> SSAValue:
        """VOP2: src1 must be a VGPR; src0 anything (SGPR, inline constant, literal)."""
        if not self.is_v(b):
            if commutative and self.is_v(a):
                a, b = b, a
            else:
                b = self.to_vgpr(b)
        if commutative and self.is_v(a) and self.is_v(b) and self.rank(a) > self.rank(b):
            a, b = b, a
        return self.e1(mnemonic, [a, b], self.V(), name=name)

    def legal_vop3(self, srcs: list[SSAValue]) -> list[SSAValue]:
        """Respect the constant bus (SGPRs + literals per VALU instruction) and, on gfx9,
        VOP3's lack of literals, moving operands into VGPRs as needed."""
        out = list(srcs)
        lits = [i for i, x in enumerate(out) if not self.literal_ok(x)]
        if not self.isa.vop3_literal:
            # no literal in VOP3 on gfx9: an SGPR holds it while the constant bus has room
            used = len({x for x in out if isinstance(x.type, SGPRType)})
            for i in lits:
                if used < self.isa.constant_bus_limit:
                    out[i] = self.e1("s_mov_b32", [out[i]], self.S())
                    used += 1
                else:
                    out[i] = self.to_vgpr(out[i])
        elif len({out[i] for i in lits}) > 1:
            for i in lits[1:]:
                out[i] = self.to_vgpr(out[i])
        bus: list = []
        for i, x in enumerate(out):
            if isinstance(x.type, SGPRType) or (self.is_imm(x) and not self.literal_ok(x)):
                if x in bus:
                    continue
                if len(bus) >= self.isa.constant_bus_limit:
                    out[i] = self.to_vgpr(x)
                else:
                    bus.append(x)
        return out

    def vop3(self, mnemonic: str, srcs: list[SSAValue], dst=None, name=None, cse=True) -> SSAValue:
        return self.e1(mnemonic, self.legal_vop3(srcs), dst or self.V(), name=name, cse=cse)
