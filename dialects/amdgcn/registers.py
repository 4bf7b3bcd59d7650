"""The amdgcn dialect's register types: VGPRs, SGPRs, AGPRs (single or ranges, unallocated
or allocated), the registers with a fixed role, and the type of a constant operand.

    !amdgcn.vgpr           !amdgcn.vgpr<x4>          one VGPR / a range of 4, unallocated
    !amdgcn.vgpr<v5>       !amdgcn.vgpr<v[4:7]>      allocated
    !amdgcn.sgpr ... s5 ... s[0:1],  !amdgcn.agpr ... a0 ... a[0:3]
    !amdgcn.special<exec>  exec, vcc, scc, m0, null: registers with a fixed role
    !amdgcn.imm            a constant operand (inline constant or literal), no register
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.backend.register_type import RegisterType
from xdsl.dialects.builtin import IntAttr, NoneAttr, StringAttr
from xdsl.ir import Attribute, ParametrizedAttribute, SSAValue, TypeAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

class GcnRegisterType(RegisterType):
    """A VGPR, SGPR or AGPR, or an aligned-or-not range of `count` consecutive ones.

    `index` is the first register (None while unallocated), `count` the range's length.
    """

    count: IntAttr
    PREFIX: ClassVar[str] = "?"
    LIMIT: ClassVar[int] = 512

    def __init__(self, index: IntAttr | NoneAttr | int | None = None, count: IntAttr | int = 1):
        if index is None:
            index = NoneAttr()
        elif isinstance(index, int):
            index = IntAttr(index)
        if isinstance(count, int):
            count = IntAttr(count)
        ParametrizedAttribute.__init__(self, index, count)

    # -- xDSL's RegisterType protocol
    @classmethod
    def index_by_name(cls) -> dict[str, int]:
        return {f"{cls.PREFIX}{i}": i for i in range(cls.LIMIT)}

    @classmethod
    def infinite_register_prefix(cls) -> str:
        return f"_{cls.PREFIX}inf"

    @classmethod
    def unallocated(cls, count: int = 1):  # type: ignore[override]
        return cls(None, count)

    @classmethod
    def from_index(cls, index: int, count: int = 1):  # type: ignore[override]
        return cls(index, count)

    @property
    def n(self) -> int:
        return self.count.data

    @property
    def first(self) -> int:
        assert isinstance(self.index, IntAttr), "unallocated register"
        return self.index.data

    @property
    def register_name(self) -> str:
        if isinstance(self.index, NoneAttr):
            return ""
        i, n = self.index.data, self.count.data
        return f"{self.PREFIX}{i}" if n == 1 else f"{self.PREFIX}[{i}:{i + n - 1}]"

    def sub(self, offset: int, count: int = 1):
        """Registers offset .. offset+count-1 of this (allocated or not) range."""
        if isinstance(self.index, NoneAttr):
            return type(self)(None, count)
        return type(self)(self.index.data + offset, count)

    def same_class(self, other: Attribute) -> bool:
        return type(other) is type(self) and other.count == self.count  # type: ignore[attr-defined]

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        if not parser.parse_optional_punctuation("<"):
            return (NoneAttr(), IntAttr(1))
        pos = parser.pos
        name = parser.parse_identifier()
        if name == cls.PREFIX and parser.parse_optional_punctuation("["):
            lo = parser.parse_integer(allow_negative=False)
            parser.parse_punctuation(":")
            hi = parser.parse_integer(allow_negative=False)
            parser.parse_punctuation("]")
            parser.parse_punctuation(">")
            if hi < lo:
                parser.raise_error(f"empty register range {cls.PREFIX}[{lo}:{hi}]", pos, parser.pos)
            return (IntAttr(lo), IntAttr(hi - lo + 1))
        parser.parse_punctuation(">")
        if name.startswith("x") and name[1:].isdigit():
            return (NoneAttr(), IntAttr(int(name[1:])))
        if name.startswith(cls.PREFIX) and name[len(cls.PREFIX):].isdigit():
            return (IntAttr(int(name[len(cls.PREFIX):])), IntAttr(1))
        parser.raise_error(f"expected {cls.PREFIX}N, {cls.PREFIX}[N:M] or xN in {cls.name}", pos, parser.pos)
        raise AssertionError

    def print_parameters(self, printer: Printer) -> None:
        if isinstance(self.index, IntAttr):
            printer.print_string(f"<{self.register_name}>")
        elif self.count.data != 1:
            printer.print_string(f"<x{self.count.data}>")

    def verify(self) -> None:
        if self.count.data < 1:
            raise VerifyException(f"{self.name}: a register range has at least one register")
        if isinstance(self.index, IntAttr) and not 0 <= self.index.data <= self.LIMIT - self.count.data:
            raise VerifyException(f"{self.name}: {self.register_name} is outside the register file")


@irdl_attr_definition
class VGPRType(GcnRegisterType):
    """Vector registers: one 32-bit value per lane."""

    name = "amdgcn.vgpr"
    PREFIX = "v"
    LIMIT = 256


@irdl_attr_definition
class SGPRType(GcnRegisterType):
    """Scalar registers: one 32-bit value per wave (lane masks take a pair on wave64)."""

    name = "amdgcn.sgpr"
    PREFIX = "s"
    LIMIT = 106


@irdl_attr_definition
class AGPRType(GcnRegisterType):
    """Accumulation registers of the matrix cores (CDNA)."""

    name = "amdgcn.agpr"
    PREFIX = "a"
    LIMIT = 256


SPECIAL_REGISTERS = ("exec", "vcc", "scc", "m0", "null")


@irdl_attr_definition
class SpecialRegType(ParametrizedAttribute, TypeAttribute):
    """A register with a fixed role: exec, vcc (lane masks), scc (scalar condition), m0, null."""

    name = "amdgcn.special"
    reg: StringAttr

    def __init__(self, reg: str | StringAttr):
        super().__init__(StringAttr(reg) if isinstance(reg, str) else reg)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        parser.parse_punctuation("<")
        pos = parser.pos
        name = parser.parse_identifier()
        parser.parse_punctuation(">")
        if name not in SPECIAL_REGISTERS:
            parser.raise_error(f"unknown special register '{name}'", pos, parser.pos)
        return (StringAttr(name),)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{self.reg.data}>")

    def asm_name(self, wave_size: int) -> str:
        r = self.reg.data
        if wave_size == 32 and r in ("exec", "vcc"):
            return f"{r}_lo"
        return r


@irdl_attr_definition
class ImmType(ParametrizedAttribute, TypeAttribute):
    """A constant operand: an inline constant or a 32-bit literal; it takes no register."""

    name = "amdgcn.imm"


def vgpr(count: int = 1, index: int | None = None) -> VGPRType:
    return VGPRType(index, count)


def sgpr(count: int = 1, index: int | None = None) -> SGPRType:
    return SGPRType(index, count)


def is_reg(t: Attribute) -> bool:
    return isinstance(t, GcnRegisterType)


def is_allocated(t: Attribute) -> bool:
    return not isinstance(t, GcnRegisterType) or isinstance(t.index, IntAttr)


# -- SGPR numbers, for gfx12's SGPR read hazards ----------------------------------------------

VCC_INDEX = 128  # VCC among the SGPR numbers of sgpr_numbers (the hardware's s106:107)


def sgpr_numbers(values: Sequence[SSAValue]) -> list[int]:
    """The SGPRs the operands name, once each, VCC as VCC_INDEX (gfx12's SGPR read hazards)."""
    out: list[int] = []
    for v in values:
        t = v.type
        if isinstance(t, SGPRType):
            out += [r for r in range(t.first, t.first + t.n) if r not in out]
        elif isinstance(t, SpecialRegType) and t.reg.data == "vcc" and VCC_INDEX not in out:
            out.append(VCC_INDEX)
    return out


def sgpr_pair(r: int) -> int:
    """The aligned SGPR pair of SGPR number r (gfx12 tracks its SGPR read hazards per pair)."""
    return 53 if r == VCC_INDEX else r >> 1

