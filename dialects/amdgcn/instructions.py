"""The amdgcn dialect's instructions: one op class per entry of the ISA table
(gemmc.target.amdgcn_isa), all of one textual form,
`%d = amdgcn.v_add_u32 %a, %b {mods} : (types) -> types`: results are the registers
written, operands those read, integer attributes the modifiers (`offset`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import IntegerAttr, i32
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import IRDLOperation, irdl_op_definition, traits_def, var_operand_def, var_result_def
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import IsTerminator
from xdsl.utils.exceptions import VerifyException

from gemmc.target.amdgcn_isa import BARRIERS, FORMS, MATRIX_FORMS, MEMORY_WAITS, TERMINATORS, Form, Slot
from gemmc.dialects.amdgcn.registers import AGPRType, ImmType, SGPRType, SpecialRegType, VGPRType, is_allocated


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
    if kind != "mask" and not slot.takes(t.n):  # type: ignore[attr-defined]
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

def _define(mnemonic: str, form: Form, base: type[GcnInstruction] = GcnInstruction) -> None:
    ns = {"name": f"amdgcn.{mnemonic}", "FORM": form, "MNEMONIC": mnemonic, "__module__": __name__,
          "__qualname__": _camel(mnemonic), "__annotations__": {"FORM": ClassVar[Form], "MNEMONIC": ClassVar[str]}}
    if mnemonic in TERMINATORS:
        ns["traits"] = traits_def(IsTerminator())
    INSTRUCTIONS[mnemonic] = irdl_op_definition(type(_camel(mnemonic), (base,), ns))


def _define_all() -> None:
    for mnemonic, form in FORMS.items():
        _define(mnemonic, form)
    for mnemonic, (kind, form) in MATRIX_FORMS.items():
        _define(mnemonic, form, base=MfmaInstruction if kind == "mfma" else WmmaInstruction)


_define_all()


def instr(mnemonic: str, srcs: Sequence[SSAValue], dst_types: Sequence[Attribute] = (), **mods: int) -> GcnInstruction:
    """Build instruction `mnemonic` reading `srcs` and writing registers of `dst_types`."""
    cls = INSTRUCTIONS[mnemonic]
    attrs = {k: IntegerAttr(v, i32) for k, v in mods.items()}
    return cls.create(operands=list(srcs), result_types=list(dst_types), attributes=attrs)


def is_memory_wait(op: Operation) -> bool:
    return isinstance(op, GcnInstruction) and op.MNEMONIC in MEMORY_WAITS


def is_barrier(op: Operation) -> bool:
    return isinstance(op, GcnInstruction) and op.MNEMONIC in BARRIERS


def is_instruction(op: Operation, *fmts: str) -> bool:
    return isinstance(op, GcnInstruction) and (not fmts or op.FORM.fmt in fmts)


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

