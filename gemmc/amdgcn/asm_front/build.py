"""LLVM's assembly of one kernel as an amdgcn.kernel the interpreter runs: each instruction
line becomes the dialect's op of that instruction (found by its spelling on the target, as
gemmc's own printer spells it), its operands in the op's slots, its modifiers integer
attributes, and its line (`loc`) for the interpreter's errors.

An instruction the dialect has no op for, or whose operands or modifiers fit none of the
ops of its spelling, is an error at its line: never an instruction skipped.
"""

from __future__ import annotations

import re
from functools import lru_cache

from xdsl.dialects.builtin import IntegerAttr, StringAttr, i32
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from gemmc.amdgcn.asm_front.abi import kernel_attributes
from gemmc.amdgcn.asm_front.dual import dual_pair
from gemmc.amdgcn.asm_front.operands import Operand, Parsed, parse_line
from gemmc.amdgcn.asm_front.text import AsmKernel, Line
from gemmc.amdgcn.interp.semantics import handler
from gemmc.support.diagnostics import GemmcError, Location
from gemmc.target.amdgcn_isa import GFX12_NAMES, MATRIX_FORMS, Form, Slot, matrix_op_name
from gemmc.target.arch import Arch
from gemmc.dialects.amdgcn.instructions import INSTRUCTIONS, GcnInstruction
from gemmc.dialects.amdgcn.kernel import KernelOp
from gemmc.dialects.amdgcn.pseudo import ConstantOp, LabelOp, RegOp
from gemmc.dialects.amdgcn.registers import AGPRType, SGPRType, SpecialRegType, VGPRType

_ENCODING = re.compile(r"_(e32|e64)$")  # (an _sdwa op is an op of its own; _dpp ones the interpreter lacks)
# operands LLVM writes that name no register of the op: the address `off` of a global access
# without an SGPR base
_OFF = Operand("special", "off")


# gfx10+ spellings LLVM's assembler takes for another op (llvm-mc -mcpu=gfx1100 assembles
# `v_add_u32_e32 v1, v2, v3` as v_add_nc_u32_e32): the no-carry adds of GFX10 renamed
GFX10_ALIASES = {"v_add_u32": "v_add_nc_u32", "v_sub_u32": "v_sub_nc_u32", "v_subrev_u32": "v_subrev_nc_u32"}


def generation(arch: Arch) -> str:
    return "gfx12" if arch.name.startswith("gfx12") else "gfx11" if arch.name.startswith("gfx11") else "gfx9"


@lru_cache(maxsize=None)
def spellings(arch: Arch) -> dict[str, list[str]]:
    """The dialect's ops by their spelling on arch (the encoding suffix dropped)."""
    gen = generation(arch)
    own = {matrix_op_name(arch, mi) for mi in arch.matrix_instrs}
    out: dict[str, list[str]] = {}
    for name, cls in INSTRUCTIONS.items():
        if name in MATRIX_FORMS and name not in own:
            continue
        spelled = _ENCODING.sub("", cls.mnemonic(cls, gen))  # type: ignore[arg-type]
        out.setdefault(spelled, []).append(name)
    if gen == "gfx12":
        for spelled, name in GFX12_NAMES.items():
            out.setdefault(spelled, []).append(name)
    for names in out.values():  # the op called as spelled first
        names.sort(key=lambda n: (n != _ENCODING.sub("", n), n))
    return out


def _printed(slot: Slot, form: Form) -> bool:
    """Whether LLVM writes the operand: SCC and VCC (s_cbranch_vccnz) never, EXEC where the
    form says so."""
    if slot.kind == "special:exec":
        return form.explicit_exec
    return not slot.kind.startswith("special:")


class Builder:
    """Builds one kernel's ops into a block."""

    def __init__(self, arch: Arch, block: Block):
        self.arch, self.block = arch, block
        self.wave = arch.wave_size
        self.by_spelling = spellings(arch)

    def add(self, op: Operation) -> Operation:
        self.block.add_op(op)
        return op

    # -- operands ------------------------------------------------------------------------------

    def value(self, o: Operand, loc: Location) -> SSAValue:
        if o.kind == "const":
            return self.add(ConstantOp(o.value)).results[0]  # type: ignore[arg-type]
        if o.kind == "special":
            # wave32: VCC is VCC_LO alone, VCC_HI a scalar register like any other (LLVM spills
            # SGPRs into it); wave64's VCC_HI is the mask's high half, not read apart here
            if o.value == "off" or (o.value in ("vcc_hi", "exec_hi") and self.arch.wave_size != (
                    32 if o.value == "vcc_hi" else 64)):
                raise GemmcError(f"the operand '{o.value}' is not supported here", loc)
            return self.add(RegOp(SpecialRegType(str(o.value)))).results[0]
        if o.kind in ("v", "s", "a"):
            t = {"v": VGPRType, "s": SGPRType, "a": AGPRType}[o.kind](int(o.value), o.n)  # type: ignore[arg-type]
            return self.add(RegOp(t)).results[0]
        raise GemmcError(f"the operand '{o.value}' is not a register or a constant", loc)

    # -- instructions ---------------------------------------------------------------------------

    def instruction(self, p: Parsed) -> GcnInstruction:
        base = _ENCODING.sub("", p.mnemonic)
        if generation(self.arch) != "gfx9":  # LLVM's assembler's aliases on gfx10+ (llvm-mc prints the _nc_ op)
            base = GFX10_ALIASES.get(base, base)
        names = self.by_spelling.get(base)
        if not names:
            raise GemmcError(f"the interpreter has no instruction '{p.mnemonic}' on {self.arch.name}", p.loc)
        why = ""
        for name in names:
            fit = self._fit(name, p)
            if isinstance(fit, str):
                why = why or fit
                continue
            return fit
        raise GemmcError(f"'{p.mnemonic}': {why}", p.loc)

    def _fit(self, name: str, p: Parsed) -> GcnInstruction | str:
        """The op `name` of p, or why its operands do not fit."""
        cls = INSTRUCTIONS[name]
        f: Form = cls.FORM
        ops, mods = list(p.operands), dict(p.mods)
        if f.fmt in ("GLOBAL", "SCRATCH"):
            ops, why = _global_operands(name, f, ops)
            if why:
                return why
        labels = [o for o in ops if o.kind == "label"]
        ops = [o for o in ops if o.kind not in ("label", "call")]
        if name == "s_waitcnt_vscnt" and len(ops) == 2 and ops[0] == Operand("special", "null") \
                and ops[1].kind == "const":  # gfx10+'s store counter: `s_waitcnt_vscnt null, 0x0`
            mods["vscnt"] = int(ops[1].value)  # type: ignore[arg-type]
            ops = []
        if name in ("s_barrier_signal", "s_barrier_wait") and ops == [Operand("const", -1)]:
            ops = []  # -1: the workgroup barrier, the only one gemmc's kernels and the interpreter know
        dst_slots = [s for s in f.dsts if _printed(s, f)]
        src_slots = [s for i, s in enumerate(f.srcs) if _printed(s, f) and i != f.tied]
        extra = len(ops) - len(dst_slots) - len(src_slots)
        if extra == 1 and ops[-1].kind == "const" and ("imm" in f.mods or "offset" in f.mods):
            mods["imm" if "imm" in f.mods else "offset"] = int(ops.pop().value)  # type: ignore[arg-type]
        elif f.fmt == "SOPP" and "imm" in f.mods and extra > 0:
            ops = []  # a hint's operands (s_sendmsg's message, s_clause's length)
        elif extra:
            return f"{len(ops)} operands, {name} takes {len(dst_slots) + len(src_slots)}"
        dsts_o, srcs_o = ops[:len(dst_slots)], ops[len(dst_slots):]
        if p.mnemonic.endswith("_e64") and f.fmt in ("VOP1", "VOP2", "VOPC"):  # VOP3: SGPRs, constants anywhere
            src_slots = [Slot("vs", s.width) if s.kind == "v" else s for s in src_slots]
        if f.acc is not None:  # a WMMA's C may be an inline constant too (LLVM's `..., 0`)
            src_slots = [Slot("vac", s.width) if i == f.acc and s.kind == "v" else s for i, s in enumerate(src_slots)]
        if any(not _fits(o, s) for o, s in zip(dsts_o + srcs_o, dst_slots + src_slots)):
            return f"an operand is not of the kind {name} takes"
        for i, o in enumerate(srcs_o):
            for flag in ("neg", "abs", "sext"):
                if getattr(o, flag):
                    mods[flag] = mods.get(flag, 0) | (1 << i)
        halves = {f"src{i}_half": o.half for i, o in enumerate(srcs_o) if o.half >= 0}
        if dsts_o and dsts_o[0].half >= 0:
            halves["dst_half"] = dsts_o[0].half
        mods.update(halves)
        unknown = sorted(k for k in mods if k not in f.mods)
        if unknown:
            return f"the modifier{'s' * (len(unknown) > 1)} {', '.join(unknown)} of {name} not supported"
        srcs = self._sources(f, srcs_o, dsts_o, p.loc)
        dst_types = self._dest_types(f, dsts_o)
        attrs: dict[str, Attribute] = {k: IntegerAttr(v, i32) for k, v in mods.items()}
        attrs["loc"] = StringAttr(f"{p.loc.file}:{p.loc.line}")
        if labels:
            attrs["target"] = StringAttr(str(labels[0].value))
        op = cls.create(operands=srcs, result_types=dst_types, attributes=attrs)
        try:
            handler(op)
        except GemmcError as e:  # checked here, where the line is known
            raise GemmcError(f"'{p.mnemonic}': {e.message.removeprefix('amdgcn interpreter: ')}", p.loc) from None
        return self.add(op)  # type: ignore[return-value]

    def _sources(self, f: Form, srcs_o: list[Operand], dsts_o: list[Operand], loc: Location) -> list[SSAValue]:
        it = iter(srcs_o)
        out = []
        for i, s in enumerate(f.srcs):
            if i == f.tied:
                out.append(self.value(dsts_o[0], loc))
            elif _printed(s, f):
                out.append(self.value(next(it), loc))
            else:
                out.append(self.add(RegOp(SpecialRegType(s.kind.split(":", 1)[1]))).results[0])
        return out

    def _dest_types(self, f: Form, dsts_o: list[Operand]) -> list[Attribute]:
        it = iter(dsts_o)
        out: list[Attribute] = []
        for s in f.dsts:
            if _printed(s, f):
                o = next(it)
                if o.kind == "special":
                    out.append(SpecialRegType(str(o.value)))
                else:
                    out.append({"v": VGPRType, "s": SGPRType, "a": AGPRType}[o.kind](int(o.value), o.n))  # type: ignore[arg-type]
            else:
                out.append(SpecialRegType(s.kind.split(":", 1)[1]))
        return out


def _global_operands(name: str, f: Form, ops: list[Operand]) -> tuple[list[Operand], str]:
    """A global or scratch access's operands without its `off`s, or why `name` does not fit:
    `_saddr` ops take an SGPR base, the others `off` in its place; `_rtn` atomics a result."""
    saddr = name.endswith("_saddr")
    if name.startswith("buffer_"):  # data, `off` (no VGPR address), the resource, the SGPR offset
        if len(ops) != 4 or ops[1] != _OFF:
            return ops, f"{name}: only `off` for the address (scratch through the private segment buffer)"
        return [ops[0], ops[2], ops[3]], ""
    if f.fmt == "SCRATCH":  # `off` for the address VGPR; the SGPR offset `off` (or, _saddr, an SGPR)
        if len(ops) != 3 or ops[1 if ops[0] == _OFF else 0] == _OFF or _OFF not in ops[:2]:
            return ops, f"{name}: only `off` for the address VGPR"
        if saddr == (ops[2] == _OFF):
            return ops, f"{name} {'takes an SGPR offset' if saddr else 'takes `off` for the SGPR offset'}"
        return [o for o in ops if o != _OFF], ""
    if not ops:
        return ops, f"{name} takes operands"
    if saddr == (ops[-1] == _OFF):
        return ops, f"{name} {'takes an SGPR base' if saddr else 'takes `off` for the SGPR base'}"
    return (ops if saddr else ops[:-1]), ""


def _fits(o: Operand, s: Slot) -> bool:
    k = s.kind
    if o.kind == "const":
        return k in ("vs", "ss", "vac")
    if o.kind == "special":
        want = k.split(":", 1)[1] if k.startswith("special:") else None
        if want is not None:
            return o.value == want
        if o.value == "exec_hi":  # a source only: the mask's high half (v_mbcnt_hi_u32_b32's)
            return k == "vs"
        return k in ("mask", "ss", "s", "vs") and (o.value in ("exec", "vcc", "null", "m0", "vcc_hi")
                                                   or str(o.value).startswith("ttmp"))
    ok = {"v": ("v", "vs", "va", "vac", "vs_noconst"), "s": ("s", "ss", "vs", "mask", "vs_noconst"),
          "a": ("a", "va", "vac")}[o.kind]
    if k not in ok:
        return False
    return k == "mask" or s.takes(o.n)


def build_kernel(k: AsmKernel, arch: Arch) -> KernelOp:
    """The kernel's instructions as an amdgcn.kernel (its attributes: kernel_attributes)."""
    block = Block()
    b = Builder(arch, block)
    for line in k.lines:
        _line(b, line)
    return KernelOp(k.name, Region(block), kernel_attributes(k, arch))


def _line(b: Builder, line: Line) -> None:
    if line.text.endswith(":") and " " not in line.text:
        b.add(LabelOp(line.text[:-1]))
        return
    parts = line.text.split("::")
    if len(parts) == 2:  # RDNA's VOPD: two VALU ops issued as one; both read before either writes
        for p in dual_pair(parts, line.loc):
            b.instruction(p)
        return
    b.instruction(parse_line(line.text, line.loc))
