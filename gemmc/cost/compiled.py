"""Predictions with the compiler's registers: the cost model fed clang's resource report.

    p = predict_module(module, arch)     # the compiler's VGPRs where a toolchain is installed

Below the driver: the selection, explain, tune and the analyze-occupancy pass all predict
through it.
"""

from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp

from gemmc.cost.model import Prediction, predict
from gemmc.support.diagnostics import EXIT_USAGE, GemmcError
from gemmc.target.arch import Arch


def predict_module(module: ModuleOp, arch: Arch, dims=None, compiler: bool | None = None) -> Prediction:
    """predict(), with the compiler's resource report when one can be had."""
    _refuse_gcn(module)
    res = compiler_resources(module, arch) if compiler is not False else None
    if compiler and res is None:
        raise GemmcError(f"no resource report for {arch.name}: a HIP compiler with the AMDGPU backend is "
                         "needed (apt-get install clang-22 lld-22 llvm-22 or install ROCm)", code=4)
    return predict(module, arch, dims, res)


def _refuse_gcn(module: ModuleOp) -> None:
    """The model reads kernel IR (gpu.func); the own AMDGCN backend's program replaces it."""
    from gemmc.dialects.amdgcn.kernel import GcnModuleOp

    if any(isinstance(op, GcnModuleOp) for op in module.walk()):
        raise GemmcError("explain predicts kernel IR (a gpu.func), not gemmc's AMDGCN program "
                         "(lower-to-amdgcn's output); give the pipeline without the amdgcn passes", code=EXIT_USAGE)


def compiler_resources(module: ModuleOp, arch: Arch):
    """The kernel's line of the compiler's resource-usage report, or None without a
    toolchain (or for a target clang does not report on)."""
    if arch.vendor != "amd":
        return None
    from gemmc.cost.kernel import read_kernel

    try:
        name = read_kernel(module).name
    except GemmcError:
        return None
    try:
        from gemmc.emit import emit_hip
        from gemmc.target.toolchain import resource_report

        kernels = resource_report(emit_hip(module, arch), arch)
    except GemmcError:
        return None
    for k in kernels:
        if k.kernel == name or k.kernel.endswith(name):
            return k
    return kernels[0] if kernels else None
