"""Shared by the analysis passes (analyze-lds-banks, analyze-occupancy): find the kernel of
a module at any pipeline stage and count it, or say in a remark why there is nothing to say."""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects import func, gpu
from xdsl.dialects.builtin import ArrayAttr, MemRefType, ModuleOp
from xdsl.ir import SSAValue

from gemmc.target.arch import Arch
from gemmc.transforms.copy_lowering import with_copies_lowered
from gemmc.cost.counts import Access, Counts, count
from gemmc.cost.kernel import DIMS_ATTR, KernelIR, read_kernel
from gemmc.support.diagnostics import GemmcError


def dynamic_dims(module: ModuleOp) -> set[str]:
    """Names of the dims the host function's argument types leave dynamic."""
    out: set[str] = set()
    for fn in module.walk():
        if not isinstance(fn, func.FuncOp) or fn.arg_attrs is None:
            continue
        for arg, attrs in zip(fn.body.block.args, fn.arg_attrs.data):
            names = attrs.data.get(DIMS_ATTR)
            if isinstance(arg.type, MemRefType) and isinstance(names, ArrayAttr):
                for size, n in zip(arg.type.get_shape(), names.data):
                    if size < 0:
                        out.add(n.data)
    return out


def kernel_counts(
    module: ModuleOp, arch: Arch, default_dim: int, pass_name: str, remark: Callable[[str], None]
) -> tuple[KernelIR, Counts] | None:
    """The module's kernel and its counts; None (after a remark) when there is no kernel.
    Tile-level copies (gemm.copy) are counted as the loops they lower to, on a copy of
    the module: an analysis leaves the IR as it is."""
    if not any(isinstance(op, gpu.FuncOp) for op in module.walk()):
        remark(f"{pass_name}: no kernel IR yet (run gemm-to-kernel first)")
        return None
    module = with_copies_lowered(module)
    dims = {n: default_dim for n in dynamic_dims(module)}
    try:
        k = read_kernel(module, dims)
    except GemmcError as e:
        remark(f"{pass_name}: cannot analyze: {e.message}")
        return None
    return k, count(k, arch)


def value_label(v: SSAValue) -> str:
    return f"%{v.name_hint}" if v.name_hint else "%<value>"


def access_cycles(k: KernelIR, arch: Arch, a: Access) -> tuple[float, float]:
    """(cycles, conflict-free cycles) of one IR access per wave."""
    return a.ir_cycles, a.ir_ideal
