"""amdgcn: AMD GPU machine code as xDSL IR, modelled on xDSL's riscv and x86 dialects.

Ops are instructions, registers are types, and a register allocator works on top
(passes/amdgcn_regalloc.py).  The levels one module goes through:

1. after `lower-to-amdgcn`: instructions on *unallocated* registers (`!amdgcn.vgpr`,
   `!amdgcn.sgpr<x2>` for an unallocated pair), constants as `!amdgcn.imm` values, and
   structured control flow: `amdgcn.for` (a uniform loop with a scalar counter),
   `amdgcn.if` (EXEC-masked, lane-divergent), `amdgcn.if_uniform` (a scalar branch);
2. after `amdgcn-regalloc`: every register allocated (`!amdgcn.vgpr<v5>`,
   `!amdgcn.sgpr<s[4:5]>`), copies that became no-ops removed;
3. after `insert-waitcnt`: `amdgcn.s_waitcnt` where a use needs a load's result;
4. after `amdgcn-finalize`: one block of instructions with `amdgcn.label`s and branches,
   the EXEC manipulation spelled out, the kernel descriptor values on `amdgcn.kernel`.

Register types (single and ranges, unallocated and allocated):

    !amdgcn.vgpr           !amdgcn.vgpr<x4>          one VGPR / a range of 4, unallocated
    !amdgcn.vgpr<v5>       !amdgcn.vgpr<v[4:7]>      allocated
    !amdgcn.sgpr ... s5 ... s[0:1],  !amdgcn.agpr ... a0 ... a[0:3]
    !amdgcn.special<exec>  exec, vcc, scc, m0, null: registers with a fixed role
    !amdgcn.imm            a constant operand (inline constant or literal), no register

Every instruction op has the same textual form,
`%d = amdgcn.v_add_u32 %a, %b {mods} : (types) -> types`, and its assembly line is
printed by `assembly_line` in LLVM's syntax for the module's target (gfx9 or gfx11
spellings: `global_load_dword` / `global_load_b32`).
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from xdsl.backend.register_type import RegisterType
from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    Float32Type,
    FloatAttr,
    IntAttr,
    IntegerAttr,
    NoneAttr,
    StringAttr,
    i32,
    i64,
)
from xdsl.ir import Attribute, Dialect, Operation, ParametrizedAttribute, Region, SSAValue, TypeAttribute
from xdsl.irdl import (
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.traits import IsTerminator, NoTerminator, SymbolOpInterface, SymbolTable
from xdsl.utils.exceptions import VerifyException

# -- register types --------------------------------------------------------------------------


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


# -- constants -----------------------------------------------------------------------------------

INLINE_FLOATS = {0.5: "0.5", -0.5: "-0.5", 1.0: "1.0", -1.0: "-1.0", 2.0: "2.0", -2.0: "-2.0", 4.0: "4.0", -4.0: "-4.0"}


def f32_bits(x: float) -> int:
    return struct.unpack("<I", struct.pack("<f", x))[0]


def is_inline_int(v: int) -> bool:
    return -16 <= v <= 64


@irdl_op_definition
class ConstantOp(IRDLOperation):
    """A constant operand: `value` is an i32 (printed as an integer) or an f32 (printed as
    a float where it is an inline float constant, else as its bit pattern)."""

    name = "amdgcn.constant"
    value = prop_def(Attribute)
    result = result_def(ImmType)

    def __init__(self, value: int | float):
        if isinstance(value, float):
            attr: Attribute = FloatAttr(value, Float32Type())
        else:
            v = value & 0xFFFFFFFF
            attr = IntegerAttr(v - (1 << 32) if v >= 1 << 31 else v, i32)
        super().__init__(properties={"value": attr}, result_types=[ImmType()])

    @property
    def is_float(self) -> bool:
        return isinstance(self.value, FloatAttr)

    @property
    def bits(self) -> int:
        """The 32-bit pattern."""
        v = self.value
        if isinstance(v, FloatAttr):
            return f32_bits(v.value.data)
        return v.value.data & 0xFFFFFFFF  # type: ignore[attr-defined]

    @property
    def int_value(self) -> int:
        b = self.bits
        return b - (1 << 32) if b >= 1 << 31 else b

    def is_inline(self) -> bool:
        if isinstance(self.value, FloatAttr):
            x = self.value.value.data
            return x == 0.0 or x in INLINE_FLOATS
        return is_inline_int(self.int_value)

    def asm(self) -> str:
        if isinstance(self.value, FloatAttr):
            x = self.value.value.data
            if x == 0.0 and f32_bits(x) == 0:
                return "0"
            if x in INLINE_FLOATS:
                return INLINE_FLOATS[x]
            return f"0x{self.bits:x}"
        v = self.int_value
        return str(v) if -16 <= v <= 4095 else f"0x{self.bits:x}"

    @classmethod
    def parse(cls, parser: Parser) -> ConstantOp:
        attr = parser.parse_attribute()
        op = cls.__new__(cls)
        IRDLOperation.__init__(op, properties={"value": attr}, result_types=[ImmType()])
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_attribute(self.value)

    def verify_(self) -> None:
        v = self.value
        if isinstance(v, FloatAttr):
            if not isinstance(v.type, Float32Type):
                raise VerifyException("amdgcn.constant: a float constant is f32")
        elif not (isinstance(v, IntegerAttr) and v.type == i32):
            raise VerifyException("amdgcn.constant: the value is an i32 or f32 attribute")


def constant_of(v: SSAValue) -> ConstantOp | None:
    return v.owner if isinstance(v.owner, ConstantOp) else None


# -- instructions ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Slot:
    """One operand or result position: its register class and width in dwords.

    kind: "v" VGPR, "s" SGPR, "a" AGPR, "vs" VGPR or SGPR or constant (a VALU src0), "va" VGPR or
    AGPR, "vac" VGPR or AGPR or constant (an MFMA's SrcC: `0` starts an accumulation),
    "vs_noconst" VGPR or SGPR, "ss" SGPR or constant (an SALU source), "mask" a lane mask
    (SGPR, or exec / vcc), "special:<name>" that register.
    """

    kind: str
    width: int = 1


@dataclass(frozen=True)
class Form:
    fmt: str  # SOP1 SOP2 SOPK SOPC SOPP SMEM VOP1 VOP2 VOP3 VOPC DS GLOBAL PSEUDO
    dsts: tuple[Slot, ...]
    srcs: tuple[Slot, ...]
    mods: tuple[str, ...] = ()  # integer modifiers, printed `offset:16`
    gfx11: str | None = None  # the gfx11 spelling where it differs (gfx12's too, unless gfx12 says)
    suffix: str = ""  # _e32 / _e64 as LLVM prints it
    gfx9_suffix_only: bool = False
    asm: str | None = None  # the spelling where it differs from the op name (s_mov_b64_exec)
    explicit_exec: bool = False  # exec is written out as an operand (s_mov_b64 exec, s[4:5])
    tied: int | None = None  # this operand is the destination register too (not printed: v_fmac_f32)
    acc: int | None = None  # the accumulator operand (MFMA SrcC): the destination is exactly its
    # registers or disjoint from them, and in the same register file
    gfx12: str | None = None  # the gfx12 spelling where it differs from gfx11's


class GcnInstruction(IRDLOperation):
    """An AMDGCN instruction: results are the registers written, operands those read."""

    srcs = var_operand_def()
    dsts = var_result_def()

    FORM: ClassVar[Form]
    MNEMONIC: ClassVar[str]

    @property
    def mods(self) -> dict[str, int]:
        return {k: v.value.data for k, v in self.attributes.items() if isinstance(v, IntegerAttr)}

    def mnemonic(self, generation: str) -> str:
        f = self.FORM
        rdna = generation in ("gfx11", "gfx12")
        base = f.asm or self.MNEMONIC
        if rdna and f.gfx11:
            base = f.gfx11
        if generation == "gfx12" and f.gfx12:
            base = f.gfx12
        if f.suffix and not (f.gfx9_suffix_only and rdna):
            base += f.suffix
        return base

    def print(self, printer: Printer) -> None:
        if self.srcs:
            printer.print_string(" ")
            printer.print_list(self.srcs, printer.print_operand)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_function_type([s.type for s in self.srcs], [r.type for r in self.dsts])

    @classmethod
    def parse(cls, parser: Parser):
        operands = []
        first = parser.parse_optional_unresolved_operand()
        if first is not None:
            operands.append(first)
            while parser.parse_optional_punctuation(","):
                operands.append(parser.parse_unresolved_operand())
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        ft = parser.parse_function_type()
        ins = list(ft.inputs.data)
        if len(ins) != len(operands):
            parser.raise_error(f"{cls.name}: {len(operands)} operands but {len(ins)} operand types")
        resolved = [parser.resolve_operand(o, t) for o, t in zip(operands, ins)]
        return cls.create(operands=resolved, result_types=list(ft.outputs.data), attributes=attrs)

    def verify_(self) -> None:
        f = self.FORM
        if len(self.srcs) != len(f.srcs) or len(self.dsts) != len(f.dsts):
            raise VerifyException(
                f"{self.name} takes {len(f.srcs)} operands and writes {len(f.dsts)} registers, "
                f"not {len(self.srcs)} and {len(self.dsts)}"
            )
        for i, (v, slot) in enumerate(zip(self.srcs, f.srcs)):
            _check_slot(self, f"operand {i}", v.type, slot, is_src=True)
        for i, (v, slot) in enumerate(zip(self.dsts, f.dsts)):
            _check_slot(self, f"result {i}", v.type, slot, is_src=False)
        for k in self.mods:
            if k not in f.mods:
                raise VerifyException(f"{self.name} has no modifier '{k}'")


def _check_slot(op: Operation, where: str, t: Attribute, slot: Slot, is_src: bool) -> None:
    kind = slot.kind
    if kind.startswith("special:"):
        want = kind.split(":", 1)[1]
        if not (isinstance(t, SpecialRegType) and t.reg.data == want):
            raise VerifyException(f"{op.name}: {where} must be {want}, not {t}")
        return
    if isinstance(t, ImmType):
        if kind in ("vs", "ss", "vac") and is_src:
            return
        raise VerifyException(f"{op.name}: {where} cannot be a constant")
    if isinstance(t, SpecialRegType):
        if kind in ("mask", "ss", "s", "vs") and t.reg.data in ("exec", "vcc"):
            return
        if t.reg.data == "null" and kind in ("s", "mask") and not is_src:
            return
        raise VerifyException(f"{op.name}: {where} cannot be {t.reg.data}")
    ok = {
        "v": (VGPRType,), "s": (SGPRType,), "a": (AGPRType,), "vs": (VGPRType, SGPRType),
        "vs_noconst": (VGPRType, SGPRType), "ss": (SGPRType,), "mask": (SGPRType,), "va": (VGPRType, AGPRType),
        "vac": (VGPRType, AGPRType),
    }[kind]
    if not isinstance(t, ok):
        raise VerifyException(f"{op.name}: {where} must be {'/'.join(c.name for c in ok)}, not {t}")
    if kind != "mask" and t.n != slot.width:  # type: ignore[attr-defined]
        raise VerifyException(f"{op.name}: {where} is {slot.width} register(s) wide, not {t.n}")  # type: ignore[attr-defined]


class MatrixInstruction(GcnInstruction):
    """A matrix multiply-add over the wave (v_mfma_*, v_wmma_*): D = A * B + C.  D and C are in
    one register file and, as LLVM requires for results wider than 4 registers, either the same
    registers or disjoint ones."""

    def verify_(self) -> None:
        super().verify_()
        d, c = self.dsts[0].type, self.srcs[self.FORM.acc].type  # type: ignore[index]
        if isinstance(c, ImmType):
            return
        if type(d) is not type(c):
            raise VerifyException(f"{self.name}: the accumulator and the result are in one register file, "
                                  f"not {c.name} and {d.name}")  # type: ignore[attr-defined]
        if is_allocated(d) and is_allocated(c) and d.first != c.first:  # type: ignore[attr-defined]
            lo, hi = sorted((d, c), key=lambda t: t.first)  # type: ignore[attr-defined]
            if lo.first + lo.n > hi.first:  # type: ignore[attr-defined]
                raise VerifyException(f"{self.name}: result {d.register_name} partly overlaps the accumulator "  # type: ignore[attr-defined]
                                      f"{c.register_name}")  # type: ignore[attr-defined]


class MfmaInstruction(MatrixInstruction):
    """CDNA's v_mfma_*: D and C in VGPRs (gfx90a+) or AGPRs."""


class WmmaInstruction(MatrixInstruction):
    """RDNA's v_wmma_*: A, B, C and D in VGPRs."""


INSTRUCTIONS: dict[str, type[GcnInstruction]] = {}


def _camel(m: str) -> str:
    return "".join(p.capitalize() for p in m.split("_")) + "Op"


def _define(mnemonic: str, form: Form, terminator: bool = False,
            base: type[GcnInstruction] = GcnInstruction) -> type[GcnInstruction]:
    ns = {"name": f"amdgcn.{mnemonic}", "FORM": form, "MNEMONIC": mnemonic, "__module__": __name__,
          "__qualname__": _camel(mnemonic), "__annotations__": {"FORM": ClassVar[Form], "MNEMONIC": ClassVar[str]}}
    if terminator:
        ns["traits"] = traits_def(IsTerminator())
    cls = irdl_op_definition(type(_camel(mnemonic), (base,), ns))
    INSTRUCTIONS[mnemonic] = cls
    return cls


V, S = Slot("v"), Slot("s")
V2, V3, V4 = Slot("v", 2), Slot("v", 3), Slot("v", 4)
S2, S4, S8 = Slot("s", 2), Slot("s", 4), Slot("s", 8)
VS, SS, SS2 = Slot("vs"), Slot("ss"), Slot("ss", 2)
MASK = Slot("mask")
EXEC = Slot("special:exec")
SCC = Slot("special:scc")


def _sop(m, dsts, srcs, fmt, gfx11=None, **kw):
    return _define(m, Form(fmt, dsts, srcs, gfx11=gfx11, **kw))


# SOP1 / SOP2 / SOPK / SOPC: scalar ALU.  Ops that set SCC list it as a result.
for _m in ("s_mov_b32", "s_not_b32"):
    _sop(_m, (S,), (SS,), "SOP1")
_sop("s_mov_b64", (S2,), (SS2,), "SOP1")
_sop("s_and_saveexec_b64", (S2, EXEC, SCC), (S2, EXEC), "SOP1")
_sop("s_and_saveexec_b32", (S, EXEC, SCC), (S, EXEC), "SOP1")
for _m in ("s_add_u32", "s_sub_u32", "s_add_i32", "s_mul_hi_u32", "s_lshl_b32", "s_lshr_b32",
           "s_and_b32", "s_or_b32", "s_xor_b32", "s_min_u32", "s_max_u32", "s_andn2_b32"):
    _sop(_m, (S, SCC) if _m not in ("s_mul_hi_u32",) else (S,), (SS, SS), "SOP2",
         gfx11={"s_andn2_b32": "s_and_not1_b32"}.get(_m))
_sop("s_mul_i32", (S,), (SS, SS), "SOP2")
for _m in ("s_and_b64", "s_or_b64", "s_xor_b64", "s_andn2_b64"):
    _sop(_m, (S2, SCC), (SS2, SS2), "SOP2", gfx11={"s_andn2_b64": "s_and_not1_b64"}.get(_m))
_sop("s_cselect_b32", (S,), (SS, SS, SCC), "SOP2")
_sop("s_cselect_b64", (S2,), (SS2, SS2, SCC), "SOP2")
# exec writes, after amdgcn-finalize
_sop("s_mov_b64_exec", (EXEC,), (SS2,), "SOP1", asm="s_mov_b64", explicit_exec=True)
_sop("s_mov_b32_exec", (EXEC,), (SS,), "SOP1", asm="s_mov_b32", explicit_exec=True)
_sop("s_andn2_b64_exec", (EXEC, SCC), (SS2, EXEC), "SOP2", gfx11="s_and_not1_b64", asm="s_andn2_b64",
     explicit_exec=True)
_sop("s_andn2_b32_exec", (EXEC, SCC), (SS, EXEC), "SOP2", gfx11="s_and_not1_b32", asm="s_andn2_b32",
     explicit_exec=True)
_define("s_movk_i32", Form("SOPK", (S,), (), mods=("imm",)))
for _c in ("eq", "lg", "lt", "le", "gt", "ge"):
    _sop(f"s_cmp_{_c}_u32", (SCC,), (SS, SS), "SOPC")
    _sop(f"s_cmp_{_c}_i32", (SCC,), (SS, SS), "SOPC")

# SOPP: program control.  Branch targets are the `target` string attribute.
_define("s_nop", Form("SOPP", (), (), mods=("imm",)))
_define("s_barrier", Form("SOPP", (), ()))
_define("s_waitcnt", Form("SOPP", (), (), mods=("vmcnt", "expcnt", "lgkmcnt")))
_define("s_waitcnt_vscnt", Form("SOPP", (), (), mods=("vscnt",)))
# gfx12: one wait per counter, the split barrier, and s_wait_alu (a depctr field at 0 waits
# for that kind of SGPR write: sa_sdst SALU, va_sdst VALU, va_vcc VALU writing VCC)
for _c in ("loadcnt", "dscnt", "kmcnt", "storecnt"):
    _define(f"s_wait_{_c}", Form("SOPP", (), (), mods=("imm",)))
_define("s_wait_alu", Form("SOPP", (), (), mods=("sa_sdst", "va_sdst", "va_vcc")))
_define("s_barrier_signal", Form("SOPP", (), ()))
_define("s_barrier_wait", Form("SOPP", (), ()))
_define("s_branch", Form("SOPP", (), ()))
_define("s_cbranch_scc0", Form("SOPP", (), (SCC,)))
_define("s_cbranch_scc1", Form("SOPP", (), (SCC,)))
_define("s_cbranch_execz", Form("SOPP", (), (EXEC,)))
_define("s_cbranch_execnz", Form("SOPP", (), (EXEC,)))
_define("s_endpgm", Form("SOPP", (), ()), terminator=True)

# SMEM: kernel arguments.  Operands: the 64-bit base; modifier `offset` (bytes).
for _n, _suf, _g11 in ((1, "dword", "b32"), (2, "dwordx2", "b64"), (4, "dwordx4", "b128"), (8, "dwordx8", "b256")):
    _define(f"s_load_{_suf}", Form("SMEM", (Slot("s", _n),), (S2,), mods=("offset",), gfx11=f"s_load_{_g11}"))

# VOP1 / VOP2 / VOP3: vector ALU.  VOP2's second source is a VGPR; VOP3 takes SGPRs anywhere.
_define("v_mov_b32", Form("VOP1", (V,), (VS,), suffix="_e32"))
_define("v_readfirstlane_b32", Form("VOP1", (S,), (Slot("v"),)))
_define("v_cvt_f32_u32", Form("VOP1", (V,), (VS,), suffix="_e32"))
# f16 in bits 0-15 (RNE); VOP3 on gfx11, whose VOP1 encoding reaches only v0-v127 for a 16-bit result
_define("v_cvt_f16_f32", Form("VOP1", (V,), (VS,), suffix="_e32", gfx11="v_cvt_f16_f32_e64", gfx9_suffix_only=True))
_define("v_pack_b32_f16", Form("VOP3", (V,), (VS, VS)))  # src1's low half above src0's
# f16 in bits 0-15 -> f32 (exact); VOP3 on gfx11 for the same reason
_define("v_cvt_f32_f16", Form("VOP1", (V,), (VS,), suffix="_e32", gfx11="v_cvt_f32_f16_e64", gfx9_suffix_only=True))
_define("v_nop", Form("VOP1", (), ()))  # a VALU that does nothing (the WMMA hazard's fix)
for _m, _g11 in (("v_add_u32", "v_add_nc_u32"), ("v_sub_u32", "v_sub_nc_u32"), ("v_mul_u32_u24", None),
                 ("v_lshlrev_b32", None), ("v_lshrrev_b32", None), ("v_and_b32", None), ("v_or_b32", None),
                 ("v_xor_b32", None), ("v_max_u32", None), ("v_min_u32", None), ("v_add_f32", None), ("v_sub_f32", None),
                 ("v_mul_f32", None), ("v_max_f32", None), ("v_min_f32", None)):
    _define(_m, Form("VOP2", (V,), (VS, V), gfx11=_g11, suffix="_e32"))
_define("v_fmac_f32", Form("VOP2", (V,), (VS, V, V), suffix="_e32", tied=2))  # dst == src2
_define("v_cndmask_b32", Form("VOP3", (V,), (VS, VS, MASK), suffix="_e64"))
for _m in ("v_fma_f32", "v_mad_u32_u24", "v_lshl_add_u32", "v_add_lshl_u32", "v_lshl_or_b32", "v_bfe_u32",
           "v_add3_u32", "v_perm_b32"):
    _define(_m, Form("VOP3", (V,), (VS, VS, VS)))
for _m in ("v_mul_lo_u32", "v_mul_hi_u32"):
    _define(_m, Form("VOP3", (V,), (VS, VS)))
_define("v_mad_u64_u32", Form("VOP3", (V2, Slot("mask")), (VS, VS, Slot("vs", 2)), gfx12="v_mad_co_u64_u32"))
_define("v_lshl_add_u64", Form("VOP3", (V2,), (Slot("vs", 2), VS, Slot("vs", 2))))
for _c in ("eq", "ne", "lt", "le", "gt", "ge"):
    for _t in ("u32", "i32", "f32"):
        _cc = {"ne": "neq"}.get(_c, _c) if _t == "f32" else _c
        _define(f"v_cmp_{_cc}_{_t}", Form("VOPC", (MASK,), (VS, VS), suffix="_e64"))

_define("v_cmp_u_f32", Form("VOPC", (MASK,), (VS, VS), suffix="_e64"))  # unordered: either is NaN

# Accumulation registers (gfx90a+): AGPR <- VGPR or inline constant, VGPR <- AGPR, AGPR <- AGPR.
A = Slot("a")
_define("v_accvgpr_write_b32", Form("VOP3", (A,), (VS,)))
_define("v_accvgpr_read_b32", Form("VOP3", (V,), (A,)))
_define("v_accvgpr_mov_b32", Form("VOP1", (A,), (A,)))

# DS: LDS.  Address VGPR; modifier `offset` (bytes, unsigned).
for _n, _b in ((1, 32), (2, 64), (3, 96), (4, 128)):
    _define(f"ds_read_b{_b}", Form("DS", (Slot("v", _n),), (V,), mods=("offset",), gfx11=f"ds_load_b{_b}"))
    _define(f"ds_write_b{_b}", Form("DS", (), (V, Slot("v", _n)), mods=("offset",), gfx11=f"ds_store_b{_b}"))
# 16 bits (f16 / bf16 elements): the read zero-extends into the VGPR, the write takes its low half
_define("ds_read_u16", Form("DS", (V,), (V,), mods=("offset",), gfx11="ds_load_u16"))
_define("ds_write_b16", Form("DS", (), (V, V), mods=("offset",), gfx11="ds_store_b16"))
_define("ds_write_b16_d16_hi", Form("DS", (), (V, V), mods=("offset",), gfx11="ds_store_b16_d16_hi"))  # the high half
# 8 bits (FP8 elements): the read zero-extends into the VGPR, the write takes its low byte (_d16_hi:
# bits 16-23, the third byte of a packed word)
_define("ds_read_u8", Form("DS", (V,), (V,), mods=("offset",), gfx11="ds_load_u8"))
_define("ds_write_b8", Form("DS", (), (V, V), mods=("offset",), gfx11="ds_store_b8"))
_define("ds_write_b8_d16_hi", Form("DS", (), (V, V), mods=("offset",), gfx11="ds_store_b8_d16_hi"))
# two dwords at address + 4 * offset0 and + 4 * offset1 (8-bit offsets, in dwords)
_define("ds_read2_b32", Form("DS", (V2,), (V,), mods=("offset0", "offset1"), gfx11="ds_load_2addr_b32"))

# GLOBAL: a 64-bit VGPR address ("off"), or a 32-bit VGPR offset from a 64-bit SGPR base.
for _n, _suf, _g11 in ((1, "dword", "b32"), (2, "dwordx2", "b64"), (3, "dwordx3", "b96"), (4, "dwordx4", "b128")):
    _define(f"global_load_{_suf}", Form("GLOBAL", (Slot("v", _n),), (V2,), mods=("offset",),
                                        gfx11=f"global_load_{_g11}"))
    _define(f"global_load_{_suf}_saddr", Form("GLOBAL", (Slot("v", _n),), (V, S2), mods=("offset",),
                                              gfx11=f"global_load_{_g11}", asm=f"global_load_{_suf}"))
    _define(f"global_store_{_suf}", Form("GLOBAL", (), (V2, Slot("v", _n)), mods=("offset",),
                                         gfx11=f"global_store_{_g11}"))
    _define(f"global_store_{_suf}_saddr", Form("GLOBAL", (), (V, Slot("v", _n), S2), mods=("offset",),
                                               gfx11=f"global_store_{_g11}", asm=f"global_store_{_suf}"))

# 16 bits (f16 / bf16 elements): the load zero-extends into the VGPR, the store takes its low half
_define("global_load_ushort", Form("GLOBAL", (V,), (V2,), mods=("offset",), gfx11="global_load_u16"))
_define("global_load_ushort_saddr", Form("GLOBAL", (V,), (V, S2), mods=("offset",), gfx11="global_load_u16",
                                         asm="global_load_ushort"))
_define("global_store_short", Form("GLOBAL", (), (V2, V), mods=("offset",), gfx11="global_store_b16"))
_define("global_store_short_saddr", Form("GLOBAL", (), (V, V, S2), mods=("offset",), gfx11="global_store_b16",
                                         asm="global_store_short"))

# 8 bits (FP8 elements): the load zero-extends into the VGPR, the store takes its low byte (_d16_hi:
# bits 16-23)
_define("global_load_ubyte", Form("GLOBAL", (V,), (V2,), mods=("offset",), gfx11="global_load_u8"))
_define("global_load_ubyte_saddr", Form("GLOBAL", (V,), (V, S2), mods=("offset",), gfx11="global_load_u8",
                                        asm="global_load_ubyte"))
_define("global_store_byte", Form("GLOBAL", (), (V2, V), mods=("offset",), gfx11="global_store_b8"))
_define("global_store_byte_saddr", Form("GLOBAL", (), (V, V, S2), mods=("offset",), gfx11="global_store_b8",
                                        asm="global_store_byte"))


# VOP3P: the matrix instructions of every arch's table (gemmc.target.arch), in that arch's spelling:
# D (and C) one register per accumulator element, A and B their packed registers.
# MFMA (CDNA): SrcA/B take VGPRs or AGPRs, no SGPR or constant (llvm-mc: "invalid operand"); SrcC
# also an inline constant (`v_mfma_f32_16x16x4_f32 v[0:3], v16, v17, 0`).
# WMMA (RDNA): VGPRs only.  gfx12's WMMAs have gfx11's names but half the A/B registers (no
# replicated halves): they are ops of their own, `<name>_gfx12`, printed with the plain name.
def _matrix_form(mi) -> Form:
    if mi.kind == "mfma":
        return Form("VOP3P", (Slot("va", mi.c_regs),), (Slot("va", mi.a_regs), Slot("va", mi.b_regs),
                                                        Slot("vac", mi.c_regs)), acc=2)
    return Form("VOP3P", (Slot("v", mi.c_regs),), (Slot("v", mi.a_regs), Slot("v", mi.b_regs),
                                                   Slot("v", mi.c_regs)), acc=2,
                asm=mi.mnemonic)


def matrix_op_name(arch, mi) -> str:
    """The amdgcn op (its MNEMONIC key) for matrix instruction `mi` on `arch`."""
    return f"{mi.mnemonic}_gfx12" if mi.kind == "wmma" and arch.name.startswith("gfx12") else mi.mnemonic


def _define_matrix() -> None:
    from gemmc.target.arch import ARCHS

    for arch in ARCHS.values():
        for mi in arch.matrix_instrs:
            form, name = _matrix_form(mi), matrix_op_name(arch, mi)
            known = INSTRUCTIONS.get(name)
            if known is None:
                _define(name, form, base=MfmaInstruction if mi.kind == "mfma" else WmmaInstruction)
            elif known.FORM != form:
                raise AssertionError(f"{mi.mnemonic} has different operands on different archs")


_define_matrix()


def is_matrix(op: Operation) -> bool:
    """An MFMA or a WMMA: D = A * B + C, with D and C the same registers or disjoint ones."""
    return isinstance(op, MatrixInstruction)


def is_wmma(op: Operation) -> bool:
    return isinstance(op, WmmaInstruction)


def is_mfma(op: Operation) -> bool:
    return isinstance(op, MfmaInstruction)


def mfma_consumer(op: Operation, src_index: int, producer_dst: Attribute) -> str:
    """How source `src_index` of `op` reads registers an MFMA wrote as `producer_dst`, in the
    consumer kinds of GcnIsa.mfma_wait_states: "read" (not an MFMA), "srcab", "srcc_same"
    (exactly that MFMA's result: an accumulation chain) or "srcc_overlap"."""
    if not is_mfma(op):
        return "read"
    if src_index != op.FORM.acc:  # type: ignore[attr-defined]
        return "srcab"
    return "srcc_same" if op.srcs[src_index].type == producer_dst else "srcc_overlap"  # type: ignore[attr-defined]


def instr(mnemonic: str, srcs: Sequence[SSAValue], dst_types: Sequence[Attribute] = (), **mods: int) -> GcnInstruction:
    """Build instruction `mnemonic` reading `srcs` and writing registers of `dst_types`."""
    cls = INSTRUCTIONS[mnemonic]
    attrs = {k: IntegerAttr(v, i32) for k, v in mods.items()}
    return cls.create(operands=list(srcs), result_types=list(dst_types), attributes=attrs)


MEMORY_WAITS = ("s_waitcnt", "s_waitcnt_vscnt", "s_wait_loadcnt", "s_wait_dscnt", "s_wait_kmcnt", "s_wait_storecnt")
BARRIERS = ("s_barrier", "s_barrier_signal", "s_barrier_wait")


def is_memory_wait(op: Operation) -> bool:
    return isinstance(op, GcnInstruction) and op.MNEMONIC in MEMORY_WAITS


def is_barrier(op: Operation) -> bool:
    return isinstance(op, GcnInstruction) and op.MNEMONIC in BARRIERS


PLAIN_VALU_FORMATS = ("VOP1", "VOP2", "VOP3", "VOPC")  # vector ALU but the matrix instructions
VALU_FORMATS = (*PLAIN_VALU_FORMATS, "VOP3P")  # what LLVM's isVALU covers (MFMA, WMMA too)
SALU_FORMATS = ("SOP1", "SOP2", "SOPK", "SOPC")
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


def is_instruction(op: Operation, *fmts: str) -> bool:
    return isinstance(op, GcnInstruction) and (not fmts or op.FORM.fmt in fmts)


# -- pseudo instructions -----------------------------------------------------------------------


@irdl_op_definition
class InputOp(IRDLOperation):
    """A register the hardware fills at wave launch: `kernarg_segment_ptr` (s[0:1]),
    `workgroup_id_x`/`_y`, `workitem_ids` (v0).  Always allocated."""

    name = "amdgcn.input"
    what = prop_def(StringAttr)
    result = result_def()

    def __init__(self, what: str, t: Attribute):
        super().__init__(properties={"what": StringAttr(what)}, result_types=[t])

    assembly_format = "$what attr-dict `:` type($result)"


@irdl_op_definition
class UndefOp(IRDLOperation):
    """A register whose value does not matter (a loop-carried element never written before)."""

    name = "amdgcn.undef"
    result = result_def()
    assembly_format = "attr-dict `:` type($result)"

    def __init__(self, t: Attribute):
        super().__init__(result_types=[t])


@irdl_op_definition
class CopyOp(IRDLOperation):
    """A register-to-register copy of any width; `amdgcn-finalize` expands it to v_mov_b32 /
    s_mov_b32 / s_mov_b64 per dword, or drops it when source and destination coincide."""

    name = "amdgcn.copy"
    source = operand_def()
    result = result_def()
    assembly_format = "$source attr-dict `:` type($source) `->` type($result)"

    def __init__(self, source: SSAValue, t: Attribute):
        super().__init__(operands=[source], result_types=[t])


@irdl_op_definition
class ExtractOp(IRDLOperation):
    """Registers offset .. offset+count-1 of a range, as a value of their own (no instruction:
    the allocator places the result inside the source)."""

    name = "amdgcn.extract"
    source = operand_def()
    offset = prop_def(IntegerAttr)
    result = result_def()
    assembly_format = "$source `[` $offset `]` attr-dict `:` type($source) `->` type($result)"

    def __init__(self, source: SSAValue, offset: int, t: Attribute):
        super().__init__(operands=[source], properties={"offset": IntegerAttr(offset, i64)}, result_types=[t])

    def verify_(self) -> None:
        src, dst = self.source.type, self.result.type
        if not (isinstance(src, GcnRegisterType) and type(dst) is type(src)):
            raise VerifyException("amdgcn.extract: source and result are registers of one class")
        off = self.offset.value.data
        if off < 0 or off + dst.n > src.n:  # type: ignore[attr-defined]
            raise VerifyException(f"amdgcn.extract: [{off}, +{dst.n}) is outside a range of {src.n}")  # type: ignore[attr-defined]
        if is_allocated(src) and is_allocated(dst) and dst.first != src.first + off:  # type: ignore[attr-defined]
            raise VerifyException(f"amdgcn.extract: {dst.register_name} is not register {off} of {src.register_name}")  # type: ignore[attr-defined]


@irdl_op_definition
class ConcatOp(IRDLOperation):
    """A range made of the given registers, in order (LLVM's REG_SEQUENCE); `amdgcn-finalize`
    turns it into the moves of the parts that are not already in place."""

    name = "amdgcn.concat"
    parts = var_operand_def()
    result = result_def()
    assembly_format = "$parts attr-dict `:` type($parts) `->` type($result)"

    def __init__(self, parts: Sequence[SSAValue], t: Attribute):
        super().__init__(operands=[list(parts)], result_types=[t])

    def verify_(self) -> None:
        t = self.result.type
        if not isinstance(t, GcnRegisterType):
            raise VerifyException("amdgcn.concat: the result is a register range")
        width = 0
        for p in self.parts:
            if isinstance(p.type, ImmType):
                width += 1
            elif type(p.type) is type(t):
                width += p.type.n  # type: ignore[attr-defined]
            else:
                raise VerifyException(f"amdgcn.concat: part of type {p.type} in a {t.name} range")
        if width != t.n:
            raise VerifyException(f"amdgcn.concat: parts are {width} registers, the range {t.n}")


@irdl_op_definition
class RegOp(IRDLOperation):
    """The current content of an allocated register, as a new SSA value (xDSL's
    riscv.get_register): used once structured control flow is flattened."""

    name = "amdgcn.reg"
    result = result_def()
    assembly_format = "attr-dict `:` type($result)"

    def __init__(self, t: Attribute):
        super().__init__(result_types=[t])


@irdl_op_definition
class LabelOp(IRDLOperation):
    """A branch target in the flattened kernel."""

    name = "amdgcn.label"
    label = prop_def(StringAttr)
    assembly_format = "$label attr-dict"

    def __init__(self, label: str):
        super().__init__(properties={"label": StringAttr(label)})


@irdl_op_definition
class CommentOp(IRDLOperation):
    name = "amdgcn.comment"
    text = prop_def(StringAttr)
    assembly_format = "$text attr-dict"

    def __init__(self, text: str):
        super().__init__(properties={"text": StringAttr(text)})


# -- structured control flow (until amdgcn-finalize) ---------------------------------------------


@irdl_op_definition
class YieldOp(IRDLOperation):
    name = "amdgcn.yield"
    values = var_operand_def()
    traits = traits_def(IsTerminator())
    assembly_format = "($values^ `:` type($values))? attr-dict"

    def __init__(self, *values: SSAValue):
        super().__init__(operands=[list(values)])


@irdl_op_definition
class ForOp(IRDLOperation):
    """A uniform loop: the counter (block argument 0, an SGPR) runs from `lb` while below
    `ub` in steps of `step` (SGPRs or constants); the other block arguments are the
    loop-carried registers, initialised from `inits` and updated by the yield.

    Flattened by amdgcn-finalize into: counter = lb; (skip if lb >= ub, unless the loop is
    known to run: `nonempty`); L: body; counter += step; s_cmp_lt_u32 counter, ub;
    s_cbranch_scc1 L.  The allocator gives the counter, each carried value, its init copy,
    its yield operand and the loop's result one register.
    """

    name = "amdgcn.for"
    lb = operand_def()
    ub = operand_def()
    step = operand_def()
    inits = var_operand_def()
    res = var_result_def()
    body = region_def("single_block")
    nonempty = opt_prop_def(IntegerAttr)

    def __init__(self, lb, ub, step, inits: Sequence[SSAValue], body: Region, nonempty: bool = False):
        props = {"nonempty": IntegerAttr(1, i32)} if nonempty else {}
        super().__init__(
            operands=[lb, ub, step, list(inits)], result_types=[[v.type for v in inits]],
            regions=[body], properties=props,
        )

    def verify_(self) -> None:
        block = self.body.block
        if len(block.args) != len(self.inits) + 1:
            raise VerifyException("amdgcn.for: the body takes the counter and one argument per init")
        if not isinstance(block.args[0].type, SGPRType):
            raise VerifyException("amdgcn.for: the counter is an SGPR")
        for v in (self.lb, self.ub, self.step):
            if not isinstance(v.type, (SGPRType, ImmType)):
                raise VerifyException("amdgcn.for: bounds and step are SGPRs or constants")
        y = block.last_op
        if not isinstance(y, YieldOp) or len(y.values) != len(self.inits):
            raise VerifyException("amdgcn.for: the body ends in amdgcn.yield of one value per init")
        for i, (a, b, r, yv) in enumerate(zip(self.inits, block.args[1:], self.res, y.values)):
            if not (a.type == b.type == r.type == yv.type or not all(map(is_allocated, (a.type, b.type, r.type, yv.type)))):
                raise VerifyException(f"amdgcn.for: carried value {i} has types {a.type}, {b.type}, {yv.type}, {r.type}")


class _IfBase(IRDLOperation):
    cond = operand_def()
    inits = var_operand_def()  # amdgcn.if only
    res = var_result_def()
    then_region = region_def("single_block")
    else_region = region_def()

    def __init__(self, cond: SSAValue, result_types: Sequence[Attribute], then_region: Region, else_region: Region,
                 inits: Sequence[SSAValue] = ()):
        super().__init__(operands=[cond, list(inits)], result_types=[list(result_types)],
                         regions=[then_region, else_region])

    def verify_(self) -> None:
        for region in (self.then_region, self.else_region):
            if not region.blocks:
                continue
            y = region.block.last_op
            if not isinstance(y, YieldOp) or (len(y.values) != len(self.res) and
                                              not (region is self.else_region and not y.values)):
                raise VerifyException(f"{self.name}: each branch ends in amdgcn.yield of {len(self.res)} values")
        if self.res and not self.else_region.blocks and not self.inits:
            raise VerifyException(f"{self.name}: an if with results has an else branch (or inits)")


@irdl_op_definition
class IfOp(_IfBase):
    """Lane-divergent if: `cond` is a lane mask, and it is consumed: amdgcn-finalize writes
    `s_and_saveexec cond, cond` (cond now holds the old EXEC), runs the then branch on the
    lanes of the mask, the else branch on `cond & ~exec`, and restores EXEC from cond.
    A branch whose lanes are all off is skipped (s_cbranch_execz).  Results are VGPRs,
    written by each branch for its own lanes.  With `inits` (then no else branch) the results
    start as the inits, in all lanes, and the then branch overwrites its lanes."""

    name = "amdgcn.if"

    def verify_(self) -> None:
        super().verify_()
        if self.inits:
            if len(self.inits) != len(self.res):
                raise VerifyException("amdgcn.if: one init per result")
            if self.else_region.blocks and any(not isinstance(o, YieldOp) for o in self.else_region.block.ops):
                raise VerifyException("amdgcn.if: an if with inits has no else branch")


@irdl_op_definition
class IfUniformOp(_IfBase):
    """Uniform if: `cond` is an SGPR holding 0 or 1; the wave branches on s_cmp_lg_u32."""

    name = "amdgcn.if_uniform"

    def verify_(self) -> None:
        super().verify_()
        if self.inits:
            raise VerifyException("amdgcn.if_uniform takes no inits")


# -- kernels -------------------------------------------------------------------------------------


@irdl_op_definition
class KernelOp(IRDLOperation):
    """One kernel: its instructions, and what the kernel descriptor and metadata need:
    `args` (the kernarg layout: name, kind, offset, size per argument), `kernarg_size`,
    `lds_bytes`, `block` (workgroup size x, y, z), and after amdgcn-finalize the register
    counts `vgprs`, `sgprs` (next free register)."""

    name = "amdgcn.kernel"
    sym_name = prop_def(StringAttr)
    body = region_def("single_block")
    traits = traits_def(SymbolOpInterface(), NoTerminator())

    def __init__(self, sym_name: str, body: Region, attributes: dict[str, Attribute] | None = None):
        super().__init__(properties={"sym_name": StringAttr(sym_name)}, regions=[body], attributes=attributes or {})

    def int_attr(self, name: str, default: int = 0) -> int:
        a = self.attributes.get(name)
        return a.value.data if isinstance(a, IntegerAttr) else default


@irdl_op_definition
class GcnModuleOp(IRDLOperation):
    """The kernels of one gpu.module, for one target (`target` = "gfx942")."""

    name = "amdgcn.module"
    sym_name = prop_def(StringAttr)
    target = prop_def(StringAttr)
    body = region_def("single_block")
    traits = traits_def(SymbolOpInterface(), SymbolTable(), NoTerminator())

    def __init__(self, sym_name: str, target: str, body: Region):
        super().__init__(properties={"sym_name": StringAttr(sym_name), "target": StringAttr(target)}, regions=[body])


def kernel_args_attr(args: Sequence[dict]) -> ArrayAttr:
    out = []
    for a in args:
        d = {}
        for k, v in a.items():
            d[k] = StringAttr(v) if isinstance(v, str) else IntegerAttr(v, i64)
        out.append(DictionaryAttr(d))
    return ArrayAttr(out)


def kernel_args(kernel: KernelOp) -> list[dict]:
    a = kernel.attributes.get("args")
    out = []
    if isinstance(a, ArrayAttr):
        for d in a.data:
            assert isinstance(d, DictionaryAttr)
            out.append({k: (v.data if isinstance(v, StringAttr) else v.value.data) for k, v in d.data.items()})  # type: ignore[attr-defined]
    return out


AMDGCN = Dialect(
    "amdgcn",
    [ConstantOp, InputOp, UndefOp, CopyOp, ExtractOp, ConcatOp, RegOp, LabelOp, CommentOp, YieldOp, ForOp,
     IfOp, IfUniformOp, KernelOp, GcnModuleOp, *INSTRUCTIONS.values()],
    [VGPRType, SGPRType, AGPRType, SpecialRegType, ImmType],
)

__all__ = [
    "AMDGCN", "AGPRType", "ConcatOp", "MatrixInstruction", "MfmaInstruction", "WmmaInstruction", "ConstantOp", "CopyOp", "ExtractOp", "ForOp", "GcnInstruction",
    "GcnModuleOp", "GcnRegisterType", "INSTRUCTIONS", "IfOp", "IfUniformOp", "ImmType", "InputOp", "KernelOp",
    "LabelOp", "RegOp", "SGPRType", "SpecialRegType", "UndefOp", "VGPRType", "YieldOp", "instr", "sgpr", "vgpr",
]
