"""Selection of vector ops that only rearrange registers: broadcast, extract, insert, shuffle, poison.

Most pick registers and emit nothing; a 16-bit or FP8 broadcast fills a VGPR's halves (bytes),
and a shuffle that splits the 16-bit or FP8 elements of VGPRs (a copy's block transposed in
registers) is one v_perm_b32 per result VGPR.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects import vector
from xdsl.dialects.builtin import Float32Type, VectorType
from xdsl.dialects.ub import PoisonOp
from xdsl.ir import Operation, SSAValue

from gemmc.amdgcn.lowering.ranges import RegisterRanges
from gemmc.amdgcn.values import E8, F, H, Packed, Vec
from gemmc.dialects.amdgcn.pseudo import UndefOp


class VectorOps(RegisterRanges):
    def _broadcast(self, op: vector.BroadcastOp) -> None:
        x = self.env.get(op.source)
        n = op.vector.type.get_shape()[0]  # type: ignore[attr-defined]
        if isinstance(x, H) and n % 2 == 0:
            self.env[op.vector] = Packed(n, (self.half_pair(x),) * (n // 2))
            return
        if isinstance(x, E8) and n % 4 == 0:
            self.env[op.vector] = Packed(n, (self.byte_quad(x),) * (n // 4), 1)
            return
        if not isinstance(x, F):
            raise self.error(op, "broadcast of f32 only")
        self.env[op.vector] = Vec(n, elems=tuple([x] * n))

    def half_pair(self, x: H) -> SSAValue:
        """A VGPR holding x in both halves (a 16-bit vector.broadcast)."""
        if x.reg is None:
            return self.to_vgpr(self.const(x.bits | x.bits << 16))  # type: ignore[operator]
        low = self.vop2("v_and_b32", self.const(0xFFFF), self.low_half(x), True)
        return self.vop3("v_lshl_or_b32", [low, self.const(16), low])

    def byte_quad(self, x: E8) -> SSAValue:
        """A VGPR holding x in all four bytes (an FP8 vector.broadcast)."""
        if x.reg is None:
            return self.to_vgpr(self.const(x.bits * 0x01010101))  # type: ignore[operator]
        low = self.vop2("v_and_b32", self.const(0xFF), self.low_byte(x), True)
        pair = self.vop3("v_lshl_or_b32", [low, self.const(8), low])
        return self.vop3("v_lshl_or_b32", [pair, self.const(16), pair])

    def _extract(self, op: vector.ExtractOp) -> None:
        v = self.env.get(op.vector)
        pos = list(op.static_position.get_values())
        if isinstance(v, Packed) and v.elem_bytes == 1:
            if len(pos) != 1 or not 0 <= pos[0] < v.n or op.dynamic_position:
                raise self.error(op, "vector.extract of an FP8 vector with a constant position only")
            # element 4i + b in byte b of VGPR i (shifted down where it is used so)
            self.env[op.result] = E8(v.parts[pos[0] // 4], byte=pos[0] % 4)
            return
        if isinstance(v, Packed):
            if len(pos) != 1 or not 0 <= pos[0] < v.n or op.dynamic_position:
                raise self.error(op, "vector.extract of a 16-bit vector with a constant position only")
            # element 2i in the low half, 2i+1 in the high half (shifted down where it is used so)
            self.env[op.result] = H(v.parts[pos[0] // 2], high=pos[0] % 2 == 1)
            return
        if not isinstance(v, Vec) or len(pos) != 1 or pos[0] < 0 or op.dynamic_position:
            raise self.error(op, "vector.extract with a constant position only")
        if v.elems is not None:
            self.env[op.result] = v.elems[pos[0]]
            return
        self.env[op.result] = self.part(v.reg, pos[0])  # type: ignore[arg-type]

    def _insert_elem(self, op: vector.InsertOp) -> None:
        """No instruction: the vector's elements with one replaced (promote-private builds the
        register tile's vectors this way)."""
        v, x = self.env.get(op.dest), self.env.get(op.source)
        pos = list(op.static_position.get_values())
        if not isinstance(v, Vec) or not isinstance(x, F) or len(pos) != 1 or pos[0] < 0 or op.dynamic_position:
            raise self.error(op, "vector.insert of an f32 at a constant position only")
        elems = self.vec_elems(v)
        elems[pos[0]] = x
        self.env[op.result] = Vec(v.n, elems=tuple(elems))

    def _poison(self, op: PoisonOp) -> None:
        """An undefined value (an element of a register tile read before it is written): registers
        with no instruction writing them."""
        t = op.result.type
        if isinstance(t, VectorType) and t.get_num_dims() == 1 and t.element_type == Float32Type():
            n = t.get_shape()[0]
            self.env[op.result] = Vec(n, reg=self.insert(UndefOp(self.V(n))).results[0])
        elif t == Float32Type():
            self.env[op.result] = F(self.insert(UndefOp(self.V())).results[0])
        else:
            raise self.error(op, f"ub.poison of {t} is not selected")

    def _shuffle(self, op: vector.ShuffleOp) -> None:
        """Registers picked, no instruction (RDNA4's fragments: two runs of four f32 put
        together before they are rounded to 16 bits)."""
        v1, v2 = self.env.get(op.v1), self.env.get(op.v2)
        mask = list(op.mask.get_values())
        if isinstance(v1, Packed) and isinstance(v2, Packed) and v1.elem_bytes == v2.elem_bytes:
            self.env[op.result] = self._shuffle_packed(op, v1, v2, mask)
            return
        if not (isinstance(v1, Vec) and isinstance(v2, Vec)) or min(mask) < 0:
            raise self.error(op, "vector.shuffle is selected for f32 vectors with a defined mask only")
        elems = self.vec_elems(v1) + self.vec_elems(v2)
        self.env[op.result] = Vec(len(mask), elems=tuple(elems[i] for i in mask))

    def _shuffle_packed(self, op: vector.ShuffleOp, v1: Packed, v2: Packed, mask: list[int]) -> Packed:
        """16-bit (FP8) vectors put together a VGPR at a time: a whole source VGPR where the mask
        takes one as it is (gfx12's fragments: two runs of four f16 read from LDS), else
        v_perm_b32 picking the bytes of at most two source VGPRs (a copy's blocks transposed in
        registers: element c of two rows)."""
        if min(mask) < 0:
            raise self.error(op, f"vector.shuffle with mask {mask} is not selected: it must not leave elements undefined")
        k = v1.per_reg
        out = []
        for start in range(0, len(mask), k):
            places = [self._packed_place(v1, v2, e) for e in mask[start:start + k]]
            whole = [(reg, pos) for reg, pos in places] == [(places[0][0], i) for i in range(k)]
            out.append(places[0][0] if whole else self._perm(op, places, v1.elem_bytes))
        return Packed(len(mask), tuple(out), v1.elem_bytes)

    @staticmethod
    def _packed_place(v1: Packed, v2: Packed, e: int) -> tuple:
        """The VGPR holding element e of v1 ++ v2, and the element's place in it."""
        v, i = (v1, e) if e < v1.n else (v2, e - v1.n)
        return v.parts[i // v.per_reg], i % v.per_reg

    def _perm(self, op: Operation, places: list, elem_bytes: int) -> SSAValue:
        """One VGPR of the given elements (a VGPR and a place each; the rest zero): v_perm_b32
        D, S0, S1, sel takes byte b of D from byte sel_b of {S0, S1} (0-3: S1, 4-7: S0, 12: 0)."""
        regs = list(dict.fromkeys(reg for reg, _ in places))
        if len(regs) > 2:
            raise self.error(op, f"vector.shuffle is selected where each VGPR of its result takes elements of at "
                                 f"most two source VGPRs; one takes {len(regs)}")
        sel = [12, 12, 12, 12]
        for i, (reg, pos) in enumerate(places):
            for b in range(elem_bytes):
                sel[i * elem_bytes + b] = pos * elem_bytes + b + 4 * regs.index(reg)
        word = sel[0] | sel[1] << 8 | sel[2] << 16 | sel[3] << 24
        return self.vop3("v_perm_b32", [regs[-1], regs[0], self.const(word)])


VECTOR_OPS: dict[type, Callable] = {
    vector.BroadcastOp: VectorOps._broadcast, vector.ExtractOp: VectorOps._extract,
    vector.InsertOp: VectorOps._insert_elem, vector.ShuffleOp: VectorOps._shuffle, PoisonOp: VectorOps._poison,
}
"""The handlers of register-rearranging vector ops, by op class."""
