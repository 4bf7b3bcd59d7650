"""Running amdgcn kernels from the host function: the launches of gpu.launch_func on the
machine, and the check of a finalized module's C against the declared program."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from xdsl.dialects import gpu
from xdsl.dialects.builtin import ModuleOp
from xdsl.interpreter import Interpreter, PythonValues, impl, register_impls
from xdsl.interpreters.func import FuncFunctions

from gemmc.amdgcn.interp.buffers import NARROW_FORMATS, device_words, host_values, kernarg_segment
from gemmc.amdgcn.interp.machine import Machine, Stats
from gemmc.amdgcn.interp.state import GcnInterpError
from gemmc.target.arch import Arch, get_arch
from gemmc.support.diagnostics import GemmcError
from gemmc.dialects.amdgcn.kernel import KernelOp
from gemmc.interp.host import HostMemrefFunctions, launch_geometry
from gemmc.interp.simt import ScfFunctions


class Workgroups:
    """A `sample` of run_kernel that runs the named workgroups (linear ids) untraced: a correctness
    check on a few workgroups of a large launch."""

    def __init__(self, ids):
        self.ids = list(ids)

    def workgroups(self, kernel, grid, block):
        return self.ids

    def attach(self, machine) -> None:
        pass


def run_kernel(kernel: KernelOp, arch: Arch, grid, block, operands: list, counts=None,
               elems: list[str] | None = None, sample=None) -> Stats:
    """Run `kernel` on the launch operands; `elems`: each operand's element type (f32, f16,
    bf16, a narrow format: buffers.device_words; all f32 if not given), which says how the device
    holds a buffer.  `sample` (timing: gemmc.amdgcn.timing.trace) runs only the workgroups
    `sample.workgroups(kernel, grid, block)` names (None: all) and `sample.attach(machine)` before
    the run (to set its tracer)."""
    buffers, index, types = [], {}, []
    for i, x in enumerate(operands):
        if isinstance(x, np.ndarray) and x.ndim > 0:
            index[i] = len(buffers)
            buffers.append(x)
            types.append(elems[i] if elems else "f32")
    images = [device_words(b, t) for b, t in zip(buffers, types)]
    work = [w for w, _ in images]
    seg = kernarg_segment(kernel, operands, index, grid, block)
    wgs = sample.workgroups(kernel, grid, block) if sample is not None else None
    m = Machine(kernel, arch, grid, block, work, seg, [n for _, n in images], wgs)
    if sample is not None:
        sample.attach(m)
    if counts is not None:
        counts.kernel_launches += 1
        counts.workgroups += m.nwg
        counts.threads += m.nwg * block[0] * block[1] * block[2]
    with np.errstate(all="ignore"):
        m.run(counts)
    for orig, t, flat in zip(buffers, types, m.buffers):
        orig[...] = host_values(flat, t, orig)
    return m.stats


@register_impls
@dataclass
class _GcnHost(HostMemrefFunctions):
    arch: Arch | None = None
    stats: list = field(default_factory=list)
    counts: object = None  # a gemmc.interp.Stats
    kernels: dict | None = None  # the kernels by name, where not the module's (LLVM's assembly)
    sample: object = None  # run_kernel's sample (timing)

    @impl(gpu.LaunchFuncOp)
    def run_launch(self, interp: Interpreter, op: gpu.LaunchFuncOp, args: PythonValues):
        values, grid, block = launch_geometry(op, args)
        if self.kernels is not None:
            kernel = self.kernels.get(_leaf(op.kernel))
            if kernel is None:
                raise GcnInterpError(f"amdgcn interpreter: no kernel {_leaf(op.kernel)} in the assembly")
        else:
            kernel = interp.get_op_for_symbol(op.kernel)
        if not isinstance(kernel, KernelOp):
            raise GcnInterpError(f"amdgcn interpreter: {op.kernel} is not an amdgcn.kernel; run lower-to-amdgcn")
        kb = block if "block" not in kernel.attributes else tuple(
            a.value.data for a in kernel.attributes["block"].data)  # type: ignore[attr-defined]
        if block != kb:
            raise GcnInterpError(f"amdgcn interpreter: launched with block {block}, the kernel is built for {kb}")
        self.stats.append(run_kernel(kernel, self.arch, grid, block, [values[v] for v in op.kernelOperands],
                                     self.counts, [_elem_name(v.type) for v in op.kernelOperands],
                                     self.sample))
        return ()


def _elem_name(t) -> str:
    """f32, f16, bf16 or the narrow format's name (FP8, FP6, FP4, E8M0) for a memref of those
    (scalars: f32), else the type's text."""
    from xdsl.dialects.builtin import BFloat16Type, Float16Type, Float32Type, MemRefType

    from gemmc.interp.common import fp8_format

    e = t.element_type if isinstance(t, MemRefType) else t
    fmt = fp8_format(e)
    if fmt in NARROW_FORMATS:
        return fmt
    return {Float32Type: "f32", Float16Type: "f16", BFloat16Type: "bf16"}.get(type(e), str(e))


def execute(module: ModuleOp, args: list, arch: Arch | str, counts=None, kernels: dict | None = None,
            sample=None) -> list[Stats]:
    """Run the host function with the amdgcn kernels; memref arguments are updated in place;
    `counts` (a gemmc.interp.Stats) accumulates the executed instructions, bytes and barriers;
    `kernels` (name: amdgcn.kernel) runs those for the launches instead of the module's;
    `sample`: each launch runs only the workgroups it names, traced (run_kernel)."""
    from gemmc.interp.check import bind_arguments, host_function
    from gemmc.interp.ops import ArithFunctions

    arch = get_arch(arch) if isinstance(arch, str) else arch
    fn = host_function(module)
    values, copies = bind_arguments(fn, args)
    interp = Interpreter(module)
    interp.register_implementations(FuncFunctions())
    interp.register_implementations(ArithFunctions())
    interp.register_implementations(ScfFunctions())  # a dynamic-dims launcher's choice of kernel (driver.dispatch)
    host = _GcnHost(arch, counts=counts, kernels=kernels, sample=sample)
    interp.register_implementations(host)
    try:
        with np.errstate(all="ignore"):
            interp.call_op(fn, tuple(values))
    except GemmcError as e:
        e.__notes__ = []
        raise
    finally:
        for original, work in copies:
            original[...] = work
    return host.stats


def check(module: ModuleOp, arch: Arch | str, dims: dict[str, int] | None = None, seed: int = 0,
          kernels: dict | None = None):
    """Run a finalized amdgcn module (or the host function of a lowered module with `kernels`,
    its kernels from LLVM's assembly) on random and exact inputs and compare C with the
    declared program (gemmc.interp.check.compare_runs, as gemmc.check)."""
    from gemmc.interp.check import compare_runs, host_function, matmul_spec

    arch = get_arch(arch) if isinstance(arch, str) else arch
    fn = host_function(module)
    return compare_runs(module, fn, matmul_spec(module, fn), dims or {}, arch, seed,
                        lambda args, counts: execute(module, args, arch, counts, kernels))


def _leaf(ref) -> str:
    """The kernel's own name in a reference @module::@kernel."""
    return (ref.nested_references.data[-1] if ref.nested_references.data else ref.root_reference).data
