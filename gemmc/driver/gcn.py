"""gemmc's own AMDGCN backend, run: its pipeline (gemmc.amdgcn.GCN_PIPELINE) on kernel IR, then
the assembly printer and the assembler of gemmc.amdgcn.

    asm = emit_gcn(module, "gfx942")      # kernel IR, lowered in place, or a finalized amdgcn module
"""

from __future__ import annotations

from gemmc.amdgcn import GCN_PIPELINE
from gemmc.amdgcn.asm import print_module
from gemmc.amdgcn.toolchain import assemble
from gemmc.dialects.amdgcn.kernel import GcnModuleOp, KernelOp
from gemmc.driver.lowering import lower_with


def lower_to_gcn(module, arch) -> None:
    """Run GCN_PIPELINE on a module of kernel IR (in place)."""
    lower_with(module, GCN_PIPELINE, arch)


def emit_gcn(module, arch) -> str:
    """The assembly of a module of kernel IR (lowered in place) or of a finalized amdgcn module."""
    if not any(isinstance(op, GcnModuleOp) for op in module.walk()):
        lower_to_gcn(module, arch)
    elif any(isinstance(k, KernelOp) and not k.int_attr("finalized") for k in module.walk()):
        lower_with(module, "amdgcn-regalloc,insert-waitcnt,amdgcn-finalize", arch)
    return print_module(module)


def emit_gcn_hsaco(module, arch) -> bytes:
    """The code object: emit_gcn's assembly through llvm-mc and ld.lld."""
    return assemble(emit_gcn(module, arch), arch)
