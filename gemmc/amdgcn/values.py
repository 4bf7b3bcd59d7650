"""The values lower-to-amdgcn tracks for each kernel-IR value: a small lattice of what is
known about it (a register, a constant, a bound, an alignment) and the memories it reads.

I (integers: reg + const, with a bound and an alignment), F (f32), H (f16 / bf16), E8 (FP8), B (i1:
constant, uniform SGPR or lane mask), Vec and Packed (vectors, as ranges or parts), and the two memories
(GlobalMem, LdsMem; private buffers are values by then, promote-private's work).  The instructions that combine them are lower-to-amdgcn's;
this module only says what a lowered value is, plus the magic numbers of unsigned division.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.ir import SSAValue

from gemmc.dialects.amdgcn.registers import VGPRType


# -- lowered values ------------------------------------------------------------------------------


@dataclass(frozen=True)
class I:
    """An integer (index) value: `reg + const`; reg is an SGPR (uniform) or a VGPR, or None.

    bound: an exclusive upper bound of the value when known; align: a power of two known
    to divide reg's value."""

    reg: SSAValue | None = None
    const: int = 0
    bound: int | None = None
    align: int = 1

    @property
    def uniform(self) -> bool:
        return self.reg is None or not isinstance(self.reg.type, VGPRType)

    @property
    def is_const(self) -> bool:
        return self.reg is None

    def total_align(self) -> int:
        a = self.align if self.reg is not None else 1 << 30
        if self.const:
            a = min(a, self.const & -self.const)
        return a


@dataclass(frozen=True)
class F:
    """An f32 value: a register (VGPR, or SGPR for kernel arguments) or a constant."""

    reg: SSAValue | None = None
    const: float | None = None


@dataclass(frozen=True)
class H:
    """A 16-bit float (f16 or bf16, an element of a 16-bit buffer): its bits in the low half of a
    VGPR (the high half not read), or in the high half (high=True: an odd element of a packed
    vector, which an LDS store takes from there), or a constant's bits."""

    reg: SSAValue | None = None
    bits: int | None = None
    high: bool = False


@dataclass(frozen=True)
class E8:
    """An 8-bit float (an FP8 element of an FP8 buffer): its bits in byte `byte` (0..3) of a VGPR
    (the other bytes not read; byte > 0: an element of a packed vector, shifted down or stored
    from there where it is used), or a constant's bits."""

    reg: SSAValue | None = None
    bits: int | None = None
    byte: int = 0


@dataclass(frozen=True)
class B:
    """An i1: a constant, a uniform SGPR holding 0/1, or a lane mask (mask=True)."""

    reg: SSAValue | None = None
    const: bool | None = None
    mask: bool = False


@dataclass(frozen=True)
class Vec:
    """A vector: a VGPR range, or its elements (F values) not yet in one range."""

    n: int
    reg: SSAValue | None = None
    elems: tuple | None = None


@dataclass(frozen=True)
class Packed:
    """A vector of n f16 or bf16 values packed two to a VGPR, as the matrix instructions take
    them: element 2i in bits 0-15 of parts[i], element 2i+1 in bits 16-31; or (elem_bytes=1) of
    n FP8 values packed four to a VGPR: element 4i + b in byte b (bits 8b .. 8b + 7) of parts[i]."""

    n: int
    parts: tuple
    elem_bytes: int = 2

    @property
    def per_reg(self) -> int:
        """Elements per VGPR: 2 (16-bit) or 4 (FP8)."""
        return 4 // self.elem_bytes


@dataclass
class GlobalMem:
    base: SSAValue  # SGPR pair
    sizes: list[I]
    elem_bytes: int
    static_bytes: int | None


@dataclass
class LdsMem:
    offset: int
    sizes: list[int]
    elem_bytes: int


def pow2(x: int) -> bool:
    return x > 0 and x & (x - 1) == 0


def log2(x: int) -> int:
    return x.bit_length() - 1


def magic_u32(d: int, bound: int = 1 << 31) -> tuple[int, int]:
    """(m, s) with floor(x / d) == (x * m) >> (32 + s) for 0 <= x < bound, m < 2^32."""
    for s in range(32):
        m = -(-(1 << (32 + s)) // d)
        if m >= 1 << 32:
            break
        err = m * d - (1 << (32 + s))
        if err * (bound - 1) < (1 << (32 + s)):
            return m, s
    raise ValueError(f"no 32-bit magic number divides by {d}")
