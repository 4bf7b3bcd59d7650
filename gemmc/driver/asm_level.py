"""`gemmc run --level asm`: the kernels of a lowered module as clang compiles their HIP, read by
the interpreter's assembly front (gemmc.amdgcn.asm_front) and run with the module's launches.

The HIP kernel's parameters are not the gpu.func's arguments one for one (pointers first, then
one int per distinct dynamic dim, then the scalars: gemmc.emit.kernels.launch_params); each
kernel's kernarg entries are bound to what the launch passes by that rule.
"""

from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp

from gemmc.amdgcn.asm_front import load
from gemmc.amdgcn.interp import check as gcn_check
from gemmc.dialects.amdgcn.kernel import KernelOp, kernel_args, kernel_args_attr
from gemmc.emit import emit_hip
from gemmc.emit.ir_access import sym_name
from gemmc.emit.kernels import launch_params
from gemmc.support.diagnostics import GemmcError
from gemmc.target.arch import Arch, as_arch
from gemmc.target.toolchain import compile_device


def asm_kernels(module: ModuleOp, arch: Arch | str, path: str = "<llvm>", text: str | None = None):
    """(the assembly text, {kernel name: amdgcn.kernel}): the module's kernels as LLVM compiles
    its HIP for arch (or `text`, an assembly file of them such as an edited one), their
    kernargs bound to the module's launches."""
    target = as_arch(arch)
    if target.vendor != "amd":
        raise GemmcError(f"--level asm runs AMDGCN: {target.name} is not an AMD target", code=2)
    if text is None:  # (as `gemmc compile --emit asm` writes it)
        out = compile_device(emit_hip(module, target), target, "asm")
        assert isinstance(out, str)
        text = out
    kernels = load(path, text, target).kernels
    funcs = {sym_name(op): op for op in module.walk() if op.name == "gpu.func"}
    for name, k in kernels.items():
        if name not in funcs:
            raise GemmcError(f"{path}: kernel {name} is no gpu.func of the module")
        _bind(k, launch_params(funcs[name]), path)
    return text, kernels


def _bind(k: KernelOp, params: list[tuple], path: str) -> None:
    args = kernel_args(k)
    explicit = [a for a in args if "arg" in a]
    if len(explicit) != len(params):
        raise GemmcError(f"{path}: kernel {k.sym_name.data} takes {len(explicit)} arguments, its HIP "
                         f"{len(params)}")
    for a, p in zip(explicit, params):
        if p[0] == "dim":
            a.update(dim=1, dim_arg=p[1], dim_axis=p[2])
        else:
            a["arg"] = p[1]
    k.attributes["args"] = kernel_args_attr(args)


def check_asm(module: ModuleOp, arch: Arch | str, dims: dict[str, int] | None = None, seed: int = 0,
              text: str | None = None, path: str = "<llvm>"):
    """api.check of the kernels LLVM compiles the module to (or of `text`), run in the amdgcn
    interpreter with the module's launches."""
    target = as_arch(arch)
    kernels = asm_kernels(module, target, path, text)[1]
    return gcn_check(module, target, dims or {}, seed, kernels=kernels)


def explain_asm(module: ModuleOp, arch: Arch | str, dims: dict[str, int] | None = None, text: str | None = None,
                path: str = "<llvm>", **options):
    """The ISA-level prediction (gemmc.amdgcn.timing) of the kernels LLVM compiles the lowered
    module to (or of `text`), traced with the module's launches on zero inputs of the real size."""
    import numpy as np

    from gemmc.amdgcn.interp import execute
    from gemmc.amdgcn.timing import predict
    from gemmc.interp.check import arg_shapes, host_function, matmul_spec
    from gemmc.dialects.gemm import type_name
    from gemmc.interp.common import np_dtype

    target = as_arch(arch)
    text, kernels = asm_kernels(module, target, path, text)
    fn = host_function(module)
    args = [np.zeros(shape, np_dtype(a.type)) if shape is not None else np.float32(1.0)
            for a, shape in zip(fn.body.block.args, arg_shapes(fn, dims or {}))]
    spec = matmul_spec(module, fn)
    m, n, k = spec.mnk(args)
    if spec.grouped:  # the rows spread evenly over the groups, as the analytic model assumes
        from gemmc.cost.lanes import even_sizes

        args[spec.group_sizes] = even_sizes(m, len(args[spec.group_sizes]))
    in_type = type_name(fn.args[spec.a].type.element_type)
    return predict(lambda sampler: execute(module, args, target, kernels=kernels, sample=sampler), text, target,
                   2.0 * m * n * k, in_type, path, **options)
