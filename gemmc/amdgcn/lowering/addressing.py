"""Where buffers are and how an element is addressed.

LDS buffers are placed by memref.alloca (16-byte aligned, within the arch's LDS).  An access's
offset is the linear combination of its indices; its constant part goes to the instruction's
immediate offset where it fits (LDS: 0..65535, global: 13-bit signed).  A global address is a
64-bit SGPR base plus a 32-bit VGPR byte offset (saddr) where the buffer is known to be below
2 GiB, else v_mad_u64_u32 of index, element size and base.  An LDS address register carries
the power of two known to divide it, from the values' alignments and from the kernel IR's
indices (lds_access.known_multiple), which decides the width of LDS accesses.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from xdsl.dialects import memref
from xdsl.dialects.builtin import MemRefType
from xdsl.ir import Operation, SSAValue

from gemmc.amdgcn.lowering.elements import element_bytes, memory_space
from gemmc.amdgcn.lowering.integers import IntegerArithmetic
from gemmc.amdgcn.values import GlobalMem, I, LdsMem
from gemmc.dialects.amdgcn.registers import SpecialRegType
from gemmc.support.ir_names import LDS_SPACE, PRIVATE_SPACE

GLOBAL_SUFFIX = {1: "dword", 2: "dwordx2", 3: "dwordx3", 4: "dwordx4"}
"""The suffix of a global load or store of n dwords."""


class Addressing(IntegerArithmetic):
    def _alloca(self, op: memref.AllocaOp) -> None:
        t = op.memref.type
        assert isinstance(t, MemRefType)
        space = memory_space(t)
        shape = list(t.get_shape())
        if any(s < 0 for s in shape):
            raise self.error(op, "dynamically sized allocations are not supported")
        eb = element_bytes(t)
        if eb is None:
            raise self.error(op, f"{t.element_type} buffers are not supported")
        if space == LDS_SPACE:
            self.lds_top = (self.lds_top + 15) // 16 * 16
            self.env[op.memref] = LdsMem(self.lds_top, shape, eb)
            self.lds_top += math.prod(shape) * eb
            if self.lds_top > self.arch.lds_bytes:
                raise self.error(op, f"LDS buffers need {self.lds_top} bytes but {self.arch.name} has {self.arch.lds_bytes}")
        elif space == PRIVATE_SPACE:
            raise self.error(op, f"private buffer %{op.memref.name_hint or 'buffer'} left in the kernel; run "
                                 "unroll-loops and promote-private first (they turn register tiles into values)")
        else:
            raise self.error(op, f"allocation in memory space {space} is not supported")

    def index_values(self, op: Operation, idx: Sequence[SSAValue]) -> list[I]:
        return [self.ival(v, op) for v in idx]

    def linear(self, idx: list[I], sizes: list, scale: int) -> I:
        """sum(idx[i] * stride[i]) * scale, the strides from the sizes (ints or I)."""
        total: I | None = None
        stride = I(None, scale)
        for i in reversed(range(len(idx))):
            term = self.mul(idx[i], stride)
            total = term if total is None else self.add(total, term)
            if i > 0:
                s = sizes[i]
                stride = self.mul(stride, s if isinstance(s, I) else I(None, s))
        return total if total is not None else I(None, 0)

    def split(self, x: I, lo: int, hi: int) -> tuple[SSAValue | None, int, int]:
        """(register part or None, immediate offset, alignment of the register part):
        the constant part goes to the offset field when it fits."""
        if lo <= x.const <= hi:
            return x.reg, x.const, x.align if x.reg is not None else 1 << 30
        return self.mat(x), 0, x.total_align()

    def global_access(self, op: Operation, mem: GlobalMem, idx: list[I], n: int):
        """(mnemonic suffix, address operands, operands after the data, offset)."""
        lo, hi = self.isa.global_offset_min, self.isa.global_offset_max
        if self.opts.saddr and mem.static_bytes is not None and mem.static_bytes < 1 << 31:
            r, c, _ = self.split(self.linear(idx, mem.sizes, mem.elem_bytes), lo, hi)
            voff = self.to_vgpr(r if r is not None else self.const(0))
            return "_saddr", [voff], [mem.base], c
        el = self.linear(idx, mem.sizes, 1)
        eb = mem.elem_bytes
        if lo <= el.const * eb <= hi:
            r, c = el.reg, el.const * eb
        else:
            r, c = self.mat(el), 0
        ridx = self.to_vgpr(r if r is not None else self.const(0))
        carry = SpecialRegType("vcc" if self.isa.generation == "gfx9" else "null")
        addr = self.emit("v_mad_u64_u32", self.legal_vop3([ridx, self.const(eb), mem.base]), [self.V(2), carry])[0]
        return "", [addr], [], c

    def lds_addr(self, op: Operation, mem: LdsMem, idx: list[I]) -> tuple[SSAValue, int, int]:
        off = self.add(self.linear(idx, mem.sizes, mem.elem_bytes), I(None, mem.offset))
        r, c, al = self.split(off, 0, self.isa.ds_offset_max)
        a = self.to_vgpr(r if r is not None else self.const(0))
        self.reg_align[a] = max(self.reg_align.get(a, 1), al)
        return a, c, al

    def ir_byte_multiple(self, op: Operation, sizes: list, elem_bytes: int, base: int) -> int:
        """A number the byte offset of op's element (base + its indices' linear offset) is
        known to be a multiple of (0: the offset is 0), proved on the kernel IR's indices
        (lds_access.known_multiple: it sees through the swizzle's remainders, which the
        register values' alignments do not keep)."""
        from gemmc.transforms.lds_access import known_multiple

        total, stride = base, elem_bytes
        for i in reversed(range(len(op.indices))):  # type: ignore[attr-defined]
            total = math.gcd(total, known_multiple(op.indices[i]) * stride)  # type: ignore[attr-defined]
            s = sizes[i] if isinstance(sizes[i], int) else sizes[i].const if sizes[i].reg is None else 1
            stride *= s
        return total

    def lds_addr16(self, op: Operation, mem: LdsMem, idx: list[I]) -> tuple[SSAValue, int, int]:
        """lds_addr, with the register's alignment also from what the IR proves of the whole
        offset (the register is the offset less the immediate c)."""
        a, c, al = self.lds_addr(op, mem, idx)
        total = self.ir_byte_multiple(op, mem.sizes, mem.elem_bytes, mem.offset)
        known = math.gcd(total, c) if total else 1 << 30
        return a, c, max(al, known & -known)


ADDRESSING_OPS: dict[type, Callable] = {memref.AllocaOp: Addressing._alloca}
"""The handler of memref.alloca (an LDS buffer)."""
