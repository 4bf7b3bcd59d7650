"""RDNA3/4's VOPD: `v_dual_X ... :: v_dual_Y ...`, two VALU ops issued as one instruction.
Both read their sources before either writes (the RDNA3 ISA guide, "VOPD"), so they are given
to the interpreter in an order in which neither reads what the other writes first; a pair
with no such order is an error at its line (LLVM's VOPD constraints should exclude it)."""

from __future__ import annotations

from gemmc.amdgcn.asm_front.operands import Operand, Parsed, parse_line
from gemmc.support.diagnostics import GemmcError, Location

# v_dual_<op> is that VOP1/VOP2 op; cndmask reads VCC without naming it
_IMPLICIT_VCC = ("v_dual_cndmask_b32",)


def _single(text: str, loc: Location) -> Parsed:
    p = parse_line(text.strip(), loc)
    if not p.mnemonic.startswith("v_dual_"):
        raise GemmcError(f"'{p.mnemonic}' in a VOPD pair is not a v_dual_ op", loc)
    ops = list(p.operands)
    if p.mnemonic in _IMPLICIT_VCC:
        ops.append(Operand("special", "vcc"))
    return Parsed("v_" + p.mnemonic[len("v_dual_"):], ops, p.mods, loc)


def _regs(o: Operand) -> set[tuple[str, int]]:
    return {(o.kind, int(o.value) + i) for i in range(o.n)} if o.is_reg else set()  # type: ignore[arg-type]


def dual_pair(parts: list[str], loc: Location) -> list[Parsed]:
    """The pair's two ops, in an order that gives the parallel semantics."""
    x, y = _single(parts[0], loc), _single(parts[1], loc)
    xd, yd = _regs(x.operands[0]), _regs(y.operands[0])
    x_reads = set().union(*(_regs(o) for o in x.operands[1:])) | (xd if x.mnemonic == "v_fmac_f32" else set())
    y_reads = set().union(*(_regs(o) for o in y.operands[1:])) | (yd if y.mnemonic == "v_fmac_f32" else set())
    if not (y_reads & xd):
        return [x, y]
    if not (x_reads & yd):
        return [y, x]
    raise GemmcError("a VOPD pair whose ops read each other's results", loc)
