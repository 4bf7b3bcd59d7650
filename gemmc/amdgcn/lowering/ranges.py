"""Lowered floating-point values as registers: f32 scalars, vectors and packed 16-bit / FP8 VGPRs.

A vector is a range of registers or a tuple of elements (gemmc.amdgcn.values.Vec); an element
extracted from a range remembers where it came from, so a vector whose elements are a range's
registers in order is that range again (no moves).  A 16-bit or FP8 element sits in a half or
a byte of a VGPR; packed vectors (Packed) are their VGPRs, read by the matrix instructions as
one range per fragment.
"""

from __future__ import annotations

from xdsl.ir import Operation, SSAValue

from gemmc.amdgcn.lowering.registers import RegisterFiles
from gemmc.amdgcn.values import E8, F, H, Packed, Vec
from gemmc.dialects.amdgcn.pseudo import ConcatOp, ExtractOp
from gemmc.dialects.amdgcn.registers import AGPRType


class RegisterRanges(RegisterFiles):
    def fval(self, v: SSAValue, op: Operation) -> F:
        x = self.env.get(v)
        if not isinstance(x, F):
            raise self.error(op, f"expected an f32 value for {v.name_hint or 'an operand'}")
        if x.reg is not None and isinstance(x.reg.type, AGPRType):
            # an AGPR accumulator read on its own (the epilogue): v_accvgpr_read where it is used
            return F(self.to_vgpr(x.reg))
        return x

    def fmat(self, x: F) -> SSAValue:
        return x.reg if x.reg is not None else self.const(float(x.const))  # type: ignore[arg-type]

    def fvgpr(self, x: F) -> SSAValue:
        return self.to_vgpr(self.fmat(x))

    def part(self, reg: SSAValue, e: int) -> F:
        """Register e of range reg, as an f32 value that remembers where it came from."""
        r = self.insert(ExtractOp(reg, e, type(reg.type).unallocated(1))).results[0]
        self.part_of[r] = (reg, e)
        return F(r)

    def vec_elems(self, v: Vec) -> list:
        return list(v.elems) if v.elems is not None else [self.part(v.reg, e) for e in range(v.n)]  # type: ignore[arg-type]

    def whole(self, v: Vec) -> SSAValue | None:
        """The range v is made of, when its elements are that range's registers in order (an
        accumulator stored to and loaded from a register tile): no moves needed."""
        if v.reg is not None:
            return v.reg
        parts = [self.part_of.get(e.reg) if isinstance(e, F) and e.reg is not None else None for e in v.elems]  # type: ignore[union-attr]
        if parts[0] is None:
            return None
        r = parts[0][0]
        ok = r.type.n == v.n and all(p == (r, i) for i, p in enumerate(parts))  # type: ignore[attr-defined]
        return r if ok else None

    def vec_range(self, v: Vec) -> SSAValue:
        r = self.whole(v)
        if r is not None:
            return r
        parts = [self.fvgpr(e) for e in v.elems]  # type: ignore[union-attr]
        return self.insert(ConcatOp(parts, self.V(v.n))).results[0]

    def low_half(self, x: H) -> SSAValue:
        """x's bits in the low half of a VGPR."""
        if x.reg is None:
            return self.to_vgpr(self.const(x.bits))  # type: ignore[arg-type]
        return self.vop2("v_lshrrev_b32", self.const(16), x.reg, False) if x.high else x.reg

    def low_byte(self, x: E8) -> SSAValue:
        """x's bits in the low byte of a VGPR (the bytes above not cleared)."""
        if x.reg is None:
            return self.to_vgpr(self.const(x.bits))  # type: ignore[arg-type]
        return self.vop2("v_lshrrev_b32", self.const(8 * x.byte), x.reg, False) if x.byte else x.reg

    def packed_range(self, v: SSAValue, op: Operation) -> SSAValue:
        x = self.env.get(v)
        if not isinstance(x, Packed):
            raise self.error(op, f"expects packed 16-bit operands (arith.truncf of an f32 vector), not {v.type}")
        r = self.packed_ranges.get(x) or self.whole_packed(x)
        if r is None:  # one range per fragment, however many instructions read it
            frame = max(self.def_frame.get(q, 0) for q in x.parts)  # (where the parts are, so it dominates)
            r = self.insert(ConcatOp(self.packed_pieces(x), self.V(len(x.parts))), frame).results[0]
            self.packed_ranges[x] = r
        return r

    def whole_packed(self, x: Packed) -> SSAValue | None:
        """The range a packed vector's VGPRs are, in order (a fragment read from LDS by one
        ds_read_b64 / b128): the matrix instruction reads it where it is, no moves."""
        parts = [self.part_of.get(p) for p in x.parts]
        if parts[0] is None:
            return None
        r = parts[0][0]
        return r if r.type.n == len(parts) and all(p == (r, i) for i, p in enumerate(parts)) else None  # type: ignore[attr-defined]

    def packed_pieces(self, x: Packed) -> list[SSAValue]:
        """x's VGPRs for an amdgcn.concat, runs that are a whole loaded range given as that
        range (a 16-element fragment read by two ds_read_b128): the allocator places the
        loads in the concat's registers, where single extracted registers would be moved."""
        pieces: list[SSAValue] = []
        i = 0
        while i < len(x.parts):
            src = self.part_of.get(x.parts[i])
            n = src[0].type.n if src is not None and src[1] == 0 else 0  # type: ignore[attr-defined]
            if n and i + n <= len(x.parts) and all(self.part_of.get(x.parts[i + j]) == (src[0], j) for j in range(n)):
                pieces.append(src[0])  # type: ignore[index]
                i += n
            else:
                pieces.append(x.parts[i])
                i += 1
        return pieces

    def agpr_range(self, v: Vec) -> SSAValue:
        """v in an AGPR range: itself where it is one, else its elements written in: inline
        constants and AGPRs by the moves of an amdgcn.concat, VGPRs through v_accvgpr_write."""
        whole = self.whole(v)
        if whole is not None and isinstance(whole.type, AGPRType):
            return whole
        parts = []
        for e in self.vec_elems(v):
            x = self.fmat(e)
            if not (isinstance(x.type, AGPRType) or self.is_imm(x) and self.literal_ok(x)):
                x = self.e1("v_accvgpr_write_b32", [self.fvgpr(e)], AGPRType.unallocated(1))
            parts.append(x)
        return self.insert(ConcatOp(parts, AGPRType.unallocated(v.n))).results[0]
