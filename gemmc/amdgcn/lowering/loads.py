"""Selection of loads: memref.load and vector.load from global memory and LDS.

f32 elements are dwords (global_load_dword..x4, ds_read_b32..b128 where the LDS address is
provably aligned, else one dword at a time); a 16-bit element is a VGPR's low half
(global_load_ushort, ds_read_u16), an FP8 element its low byte (global_load_ubyte,
ds_read_u8); vectors of them are packed two (four) to a VGPR, read as dwords where the byte
offset is proven a multiple of 4, else refused (FP8 fragments from LDS: byte by byte, packed
by v_lshl_or_b32).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects import memref, vector
from xdsl.ir import Operation, SSAValue

from gemmc.amdgcn.lowering.addressing import GLOBAL_SUFFIX, Addressing
from gemmc.amdgcn.lowering.ranges import RegisterRanges
from gemmc.amdgcn.values import E8, F, GlobalMem, H, I, LdsMem, Packed, Vec
from gemmc.transforms.residues import offset_is_multiple


class Loads(Addressing, RegisterRanges):
    def _load(self, op: Operation, base: SSAValue, idx_vals: Sequence[SSAValue], n: int) -> object:
        mem = self.env.get(base)
        idx = self.index_values(op, idx_vals)
        if isinstance(mem, (GlobalMem, LdsMem)) and mem.elem_bytes == 2:
            return self._load16(op, mem, idx, n)
        if isinstance(mem, (GlobalMem, LdsMem)) and mem.elem_bytes == 1:
            return self._load8(op, mem, idx, n)
        if isinstance(mem, GlobalMem):
            suffix, srcs, extra, c = self.global_access(op, mem, idx, n)
            r = self.e1(f"global_load_{GLOBAL_SUFFIX[n]}{suffix}", srcs + extra, self.V(n), cse=False, offset=c)
        elif isinstance(mem, LdsMem):
            a, c, al = self.lds_addr(op, mem, idx)
            if n > 4:  # a matrix-core fragment: 16 bytes at a time
                elems: list = []
                for e in range(0, n, 4):
                    elems += self.vec_elems(self._lds_read(a, c + 4 * e, al, 4))
                return Vec(n, elems=tuple(elems))
            return self._lds_read(a, c, al, n)
        else:
            raise self.error(op, "load from an unknown memref")
        return F(r) if n == 1 else Vec(n, reg=r)

    def _load16(self, op: Operation, mem: GlobalMem | LdsMem, idx: list[I], n: int) -> H | Packed:
        """An element of a 16-bit buffer (zero-extended into a VGPR), or a vector of them from
        LDS packed two to a VGPR as the matrix instructions take them."""
        if n == 1:
            return H(self._load_narrow(op, mem, idx, "global_load_ushort", "ds_read_u16"))
        if isinstance(mem, GlobalMem):
            return self._packed_global_load(op, mem, idx, n)
        return self._packed_lds_load(op, mem, idx, n)

    def _load_narrow(self, op: Operation, mem: GlobalMem | LdsMem, idx: list[I], global_load: str,
                     lds_read: str) -> SSAValue:
        """One 16-bit or FP8 element, zero-extended into a VGPR by the given global or LDS load."""
        if isinstance(mem, GlobalMem):
            suffix, srcs, extra, c = self.global_access(op, mem, idx, 1)
            return self.e1(f"{global_load}{suffix}", srcs + extra, self.V(), cse=False, offset=c)
        a, c, _ = self.lds_addr(op, mem, idx)
        return self.e1(lds_read, [a], self.V(), cse=False, offset=c)

    def _packed_global_load(self, op: Operation, mem: GlobalMem, idx: list[I], n: int) -> Packed:
        """2, 4 or 8 16-bit elements as 1, 2 or 4 dwords (global_load_dword..x4), where the
        element offset is known to be a multiple of 4 bytes: each index a multiple (vectorize
        proved its width), or their sum (a peeled copy's aligned interior, gemmc.transforms.residues)."""
        aligned = self.ir_byte_multiple(op, mem.sizes, 2, 0) % 4 == 0 or \
            offset_is_multiple(op.base, op.indices, 2)  # type: ignore[attr-defined]
        if n not in (2, 4, 8) or not aligned:
            raise self.error(op, f"a vector load of {n} 16-bit elements from global memory is selected for 2, 4 or 8 "
                                 "elements at an offset known to be a multiple of 4 bytes")
        suffix, srcs, extra, c = self.global_access(op, mem, idx, n // 2)
        r = self.e1(f"global_load_{GLOBAL_SUFFIX[n // 2]}{suffix}", srcs + extra, self.V(n // 2), cse=False, offset=c)
        return Packed(n, (r,) if n == 2 else tuple(self.part(r, i).reg for i in range(n // 2)))  # type: ignore[misc]

    def _load8(self, op: Operation, mem: GlobalMem | LdsMem, idx: list[I], n: int) -> E8 | Packed:
        """An element of an FP8 buffer (zero-extended into a VGPR: global_load_ubyte, ds_read_u8),
        or a vector of them packed four to a VGPR as the FP8 matrix instructions take them."""
        if n == 1:
            return E8(self._load_narrow(op, mem, idx, "global_load_ubyte", "ds_read_u8"))
        if isinstance(mem, GlobalMem):
            return self._packed8_global_load(op, mem, idx, n)
        return self.packed8_lds_load(op, mem, idx, n)

    def _packed8_global_load(self, op: Operation, mem: GlobalMem, idx: list[I], n: int) -> Packed:
        """4, 8 or 16 FP8 elements as 1, 2 or 4 dwords (global_load_dword..x4) where the byte
        offset is known to be a multiple of 4 (as _packed_global_load proves it), 2 as one
        global_load_ushort where it is known even."""
        def aligned(m: int) -> bool:
            return self.ir_byte_multiple(op, mem.sizes, 1, 0) % m == 0 or \
                offset_is_multiple(op.base, op.indices, m)  # type: ignore[attr-defined]

        if n == 2 and aligned(2):
            suffix, srcs, extra, c = self.global_access(op, mem, idx, 1)
            return Packed(2, (self.e1(f"global_load_ushort{suffix}", srcs + extra, self.V(), cse=False, offset=c),), 1)
        if n not in (4, 8, 16) or not aligned(4):
            raise self.error(op, f"a vector load of {n} FP8 elements from global memory is selected for 4, 8 or 16 "
                                 "elements at an offset known to be a multiple of 4 bytes (2 at an even one)")
        suffix, srcs, extra, c = self.global_access(op, mem, idx, n // 4)
        r = self.e1(f"global_load_{GLOBAL_SUFFIX[n // 4]}{suffix}", srcs + extra, self.V(n // 4), cse=False, offset=c)
        return Packed(n, (r,) if n == 4 else tuple(self.part(r, i).reg for i in range(n // 4)), 1)  # type: ignore[misc]

    def packed8_lds_load(self, op: Operation, mem: LdsMem, idx: list[I], n: int) -> Packed:
        """n FP8 elements from LDS as n/4 dwords (ds_read_b128 / b64 where aligned, else ds_read_b32s)
        where the address is known to be a multiple of 4 bytes; else byte by byte (ds_read_u8),
        each four packed into a VGPR by shifts and ors: element 4i + b in byte b of dword i."""
        a, c, al = self.lds_addr16(op, mem, idx)
        if n % 4:
            raise self.error(op, f"a vector of {n} FP8 elements from LDS is selected for multiples of 4 elements "
                                 "(matrix operands are read four to a VGPR)")
        if al % 4 == 0 and c % 4 == 0:
            parts: list[SSAValue] = []
            for d in range(0, n // 4, 4):
                v = self._lds_read(a, c + 4 * d, al, min(4, n // 4 - d))
                parts += [e.reg for e in (self.vec_elems(v) if isinstance(v, Vec) else [v])]
            return Packed(n, tuple(parts), 1)
        loaded = [self.e1("ds_read_u8", [a], self.V(), cse=False, offset=c + e) for e in range(n)]
        return Packed(n, tuple(self.pack_bytes(loaded[i:i + 4]) for i in range(0, n, 4)), 1)

    def pack_bytes(self, b: Sequence[SSAValue]) -> SSAValue:
        """Four zero-extended bytes (b[0] lowest) in one VGPR: (b1 << 8 | b0) | (b3 << 8 | b2) << 16."""
        lo = self.vop3("v_lshl_or_b32", [b[1], self.const(8), b[0]])
        hi = self.vop3("v_lshl_or_b32", [b[3], self.const(8), b[2]])
        return self.vop3("v_lshl_or_b32", [hi, self.const(16), lo])

    def _packed_lds_load(self, op: Operation, mem: LdsMem, idx: list[I], n: int) -> Packed:
        """n 16-bit elements from LDS as n/2 dwords (ds_read_b128 / b64 where aligned, else
        ds_read_b32s that load combining pairs up): element 2i in the low half of dword i."""
        a, c, al = self.lds_addr16(op, mem, idx)
        if n % 2 or al % 4 or c % 4:
            raise self.error(op, f"a vector of {n} 16-bit elements from LDS at an address not known to be a "
                                 "multiple of 4 bytes is not selected (matrix operands are read in pairs)")
        parts: list[SSAValue] = []
        for d in range(0, n // 2, 4):
            v = self._lds_read(a, c + 4 * d, al, min(4, n // 2 - d))
            parts += [e.reg for e in (self.vec_elems(v) if isinstance(v, Vec) else [v])]
        return Packed(n, tuple(parts))

    def _lds_read(self, a: SSAValue, c: int, al: int, n: int) -> F | Vec:
        """n dwords from LDS at register a + offset c (a known to be a multiple of al): one
        ds_read_b{32n} where the address is n-dword aligned, else one ds_read_b32 per dword."""
        if n > 1 and (n == 3 or al % (4 * n) != 0 or c % (4 * n) != 0):
            parts = [self.e1("ds_read_b32", [a], self.V(), cse=False, offset=c + 4 * e) for e in range(n)]
            return Vec(n, elems=tuple(F(p) for p in parts))
        r = self.e1(f"ds_read_b{32 * n}", [a], self.V(n), cse=False, offset=c)
        return F(r) if n == 1 else Vec(n, reg=r)

    def _memref_load(self, op: memref.LoadOp) -> None:
        self.env[op.res] = self._load(op, op.memref, op.indices, 1)

    def _vector_load(self, op: vector.LoadOp) -> None:
        t = op.result.type
        n = t.get_shape()[0]  # type: ignore[attr-defined]
        mem = self.env.get(op.base)
        if isinstance(mem, (GlobalMem, LdsMem)) and mem.elem_bytes in (1, 2) and t.get_num_dims() == 1:  # type: ignore[attr-defined]
            self.env[op.result] = self._load(op, op.base, op.indices, n)
            return
        lds_fragment = isinstance(mem, LdsMem) and n % 4 == 0  # matrix-core fragments: 16-byte pieces
        if t.get_num_dims() != 1 or not (n in (2, 3, 4) or lds_fragment):  # type: ignore[attr-defined]
            raise self.error(op, f"vector loads of {t} are not supported")
        self.env[op.result] = self._load(op, op.base, op.indices, n)


LOAD_OPS: dict[type, Callable] = {memref.LoadOp: Loads._memref_load, vector.LoadOp: Loads._vector_load}
"""The handlers of loads, by op class."""
