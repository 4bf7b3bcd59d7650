"""What a kernel's matrix instructions do to A and B: the narrower type they take them in.

The checker (gemmc.interp.check) judges such a kernel with that rounding in its bound; it is
read from the IR (the operand types of amdgpu.mfma/wmma, or the mnemonic of gemmc's own
backend's v_mfma/v_wmma), never from what the kernel computes.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import ModuleOp, StringAttr

from gemmc.dialects.gemm import type_name
from gemmc.interp.accuracy import UNIT_ROUNDOFF
from gemmc.interp.common import element_type
from gemmc.support.named_pipelines import pass_names
from gemmc.target.arch import Arch

MATRIX_PASSES = ("matrix-cores", "mfma-lowering", "wmma-lowering")


@dataclass(frozen=True)
class Rounding:
    """The kernel multiplies A and B rounded to `type`; `by` says who rounds them."""

    type: str
    by: str

    def describe(self) -> str:
        return f"inputs rounded to {self.type} by {self.by}"


def fragment_rounding(module: ModuleOp, declared: str, arch: Arch) -> Rounding | None:
    """Whether the kernel's matrix instructions take A and B in a narrower type than
    declared: read from the operand types of amdgpu.mfma/wmma, or from the mnemonic of
    gemmc's AMDGCN backend's v_mfma/v_wmma (whose operands are untyped registers). `declared` is A's declared element type."""
    narrowest, op_name = None, ""
    for op in module.walk():
        t = _fragment_type(op, arch)
        if t is not None and UNIT_ROUNDOFF[t] > UNIT_ROUNDOFF[declared] and (
                narrowest is None or UNIT_ROUNDOFF[t] > UNIT_ROUNDOFF[narrowest]):
            narrowest, op_name = t, op.name
    if narrowest is None:
        return None
    pass_name = _matrix_pass(module)
    by = f"{pass_name}{{convert={narrowest}}}" if pass_name else f"the {narrowest} operands of {op_name}"
    return Rounding(narrowest, by)


def _fragment_type(op, arch: Arch) -> str | None:
    if op.name in ("amdgpu.mfma", "amdgpu.wmma"):
        t = type_name(element_type(op.operands[0].type))
        return t if t in UNIT_ROUNDOFF else None
    mnemonic = getattr(op, "MNEMONIC", "")
    if op.name.startswith("amdgcn.") and mnemonic.startswith(("v_mfma", "v_wmma")):
        from gemmc.target.amdgcn_isa import matrix_op_name

        instr = next((i for i in arch.matrix_instrs if matrix_op_name(arch, i) == mnemonic), None)
        return instr.in_type if instr is not None and instr.in_type in UNIT_ROUNDOFF else None
    return None


def _matrix_pass(module: ModuleOp) -> str | None:
    """The last matrix-core pass of the pipeline the module records (gemmc.driver.pipeline)."""
    recorded = module.attributes.get("gemmc.pipeline")
    if not isinstance(recorded, StringAttr):
        return None
    names = pass_names(recorded.data)
    return next((n for n in reversed(names) if n in MATRIX_PASSES), None)
