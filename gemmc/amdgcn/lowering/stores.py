"""Selection of stores: memref.store and vector.store into global memory and LDS.

f32 data as dwords (global_store_dword..x4, ds_write_b32..b128 where aligned); a 16-bit
element from a VGPR's low half (global_store_short, ds_write_b16; from the high half into LDS,
ds_write_b16_d16_hi), an FP8 element from its low byte (global_store_byte, ds_write_b8; the third
byte of a packed word ds_write_b8_d16_hi); packed vectors into LDS as their dwords.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects import memref, vector
from xdsl.ir import Operation, SSAValue

from gemmc.amdgcn.lowering.addressing import GLOBAL_SUFFIX, Addressing
from gemmc.amdgcn.lowering.ranges import RegisterRanges
from gemmc.amdgcn.values import E8, F, GlobalMem, H, I, LdsMem, Packed, Vec
from gemmc.dialects.amdgcn.pseudo import ConcatOp, ExtractOp


class Stores(Addressing, RegisterRanges):
    def _store(self, op: Operation, value: object, base: SSAValue, idx_vals: Sequence[SSAValue], n: int) -> None:
        mem = self.env.get(base)
        idx = self.index_values(op, idx_vals)
        if isinstance(value, H):
            self._store16(op, value, mem, idx)
            return
        if isinstance(value, E8):
            self._store8(op, value, mem, idx)
            return
        if n == 1:
            assert isinstance(value, F)
            data = self.fvgpr(value)
        else:
            data = self.vec_range(value)  # type: ignore[arg-type]
        if isinstance(mem, GlobalMem):
            suffix, srcs, extra, c = self.global_access(op, mem, idx, n)
            self.emit(f"global_store_{GLOBAL_SUFFIX[n]}{suffix}", srcs + [data] + extra, [], cse=False, offset=c)
        elif isinstance(mem, LdsMem):
            a, c, al = self.lds_addr(op, mem, idx)
            if n > 1 and (n == 3 or al % (4 * n) != 0 or c % (4 * n) != 0):
                for e in range(n):
                    part = self.insert(ExtractOp(data, e, self.V())).results[0]
                    self.emit("ds_write_b32", [a, part], [], cse=False, offset=c + 4 * e)
                return
            self.emit(f"ds_write_b{32 * n}", [a, data], [], cse=False, offset=c)
        else:
            raise self.error(op, "store to an unknown memref")

    def _store16(self, op: Operation, value: H, mem: object, idx: list[I]) -> None:
        """One element of a 16-bit buffer: the low half of its VGPR (into LDS also the high
        half, ds_write_b16_d16_hi, as LLVM stores the odd elements of a vector)."""
        if isinstance(mem, LdsMem) and value.high:
            a, c, _ = self.lds_addr(op, mem, idx)
            self.emit("ds_write_b16_d16_hi", [a, value.reg], [], cse=False, offset=c)  # type: ignore[list-item]
            return
        data = self.low_half(value)
        if isinstance(mem, GlobalMem):
            suffix, srcs, extra, c = self.global_access(op, mem, idx, 1)
            self.emit(f"global_store_short{suffix}", srcs + [data] + extra, [], cse=False, offset=c)
        elif isinstance(mem, LdsMem):
            a, c, _ = self.lds_addr(op, mem, idx)
            self.emit("ds_write_b16", [a, data], [], cse=False, offset=c)
        else:
            raise self.error(op, "store to an unknown memref")

    def _ds_write_byte(self, a: SSAValue, c: int, x: E8) -> None:
        """One FP8 element into LDS: ds_write_b8 of its low byte (the third byte of a packed word
        with ds_write_b8_d16_hi, no shift)."""
        if x.reg is not None and x.byte == 2:
            self.emit("ds_write_b8_d16_hi", [a, x.reg], [], cse=False, offset=c)
        else:
            self.emit("ds_write_b8", [a, self.low_byte(x)], [], cse=False, offset=c)

    def _store8(self, op: Operation, value: E8, mem: object, idx: list[I]) -> None:
        """One element of an FP8 buffer: its byte (ds_write_b8, global_store_byte)."""
        if isinstance(mem, LdsMem):
            a, c, _ = self.lds_addr(op, mem, idx)
            self._ds_write_byte(a, c, value)
        elif isinstance(mem, GlobalMem):
            data = self.low_byte(value)
            suffix, srcs, extra, c = self.global_access(op, mem, idx, 1)
            self.emit(f"global_store_byte{suffix}", srcs + [data] + extra, [], cse=False, offset=c)
        else:
            raise self.error(op, "store to an unknown memref")

    def _packed_lds_store(self, op: vector.StoreOp, v: Packed) -> None:
        """A 16-bit (FP8) vector into LDS as its n/2 (n/4) dwords (ds_write_b64 / b128 where aligned,
        else ds_write_b32s), at an address known to be a multiple of 4 bytes; an FP8 vector at
        another address byte by byte (ds_write_b8, the third of each word ds_write_b8_d16_hi)."""
        mem = self.env.get(op.base)
        unit = "16-bit" if v.elem_bytes == 2 else "FP8"
        if not isinstance(mem, LdsMem):
            raise self.error(op, f"vector stores of {unit} elements are selected into LDS only")
        a, c, al = self.lds_addr16(op, mem, self.index_values(op, op.indices))
        nd = len(v.parts)
        if (al % 4 or c % 4) and v.elem_bytes == 1:
            for e in range(v.n):
                self._ds_write_byte(a, c + e, E8(v.parts[e // 4], byte=e % 4))
            return
        if al % 4 or c % 4:
            raise self.error(op, f"a vector of {v.n} 16-bit elements into LDS at an address not known to be a "
                                 "multiple of 4 bytes is not selected")
        if nd in (2, 4) and al % (4 * nd) == 0 and c % (4 * nd) == 0:
            data = self.whole_packed(v) or self.insert(ConcatOp(self.packed_pieces(v), self.V(nd))).results[0]
            self.emit(f"ds_write_b{32 * nd}", [a, data], [], cse=False, offset=c)
            return
        for e, part in enumerate(v.parts):
            self.emit("ds_write_b32", [a, part], [], cse=False, offset=c + 4 * e)

    def _memref_store(self, op: memref.StoreOp) -> None:
        v = self.env.get(op.value)
        if not isinstance(v, (F, H, E8)):
            raise self.error(op, "stores of f32, f16, bf16 and FP8 values only")
        self._store(op, v, op.memref, op.indices, 1)

    def _vector_store(self, op: vector.StoreOp) -> None:
        v = self.env.get(op.vector)
        if isinstance(v, Packed):
            self._packed_lds_store(op, v)
            return
        if not isinstance(v, Vec):
            raise self.error(op, "expects a vector value")
        self._store(op, v, op.base, op.indices, v.n)


STORE_OPS: dict[type, Callable] = {memref.StoreOp: Stores._memref_store, vector.StoreOp: Stores._vector_store}
"""The handlers of stores, by op class."""
