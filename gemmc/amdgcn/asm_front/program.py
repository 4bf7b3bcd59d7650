"""An assembly file's kernels for the interpreter, and running them: with the launches of a
gemmc program's host function (`check`, as `gemmc run --level asm`), or with the grid, block
and arguments a caller gives (`run`, for a kernel gemmc did not write)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.dialects.builtin import IntegerAttr, i64

from gemmc.amdgcn.asm_front.build import build_kernel
from gemmc.amdgcn.asm_front.text import parse_file
from gemmc.amdgcn.interp import Stats, run_kernel
from gemmc.support.diagnostics import GemmcError, Location
from gemmc.target.arch import Arch, get_arch
from gemmc.dialects.amdgcn.kernel import KernelOp


@dataclass
class AsmProgram:
    path: str
    arch: Arch
    kernels: dict[str, KernelOp]


def load(path: str, text: str, arch: Arch | str | None = None) -> AsmProgram:
    """The kernels of an assembly file, for `arch` (default: its .amdgcn_target)."""
    f = parse_file(path, text)
    target = get_arch(f.target)
    if arch is not None:
        want = get_arch(arch) if isinstance(arch, str) else arch
        if want.name != target.name:
            raise GemmcError(f"the assembly is for {target.name}, not {want.name}", Location(path, 1, 1))
    return AsmProgram(path, target, {name: build_kernel(k, target) for name, k in f.kernels.items()})


def find_kernel(program: AsmProgram, name: str) -> KernelOp:
    """The kernel called `name`, or whose C++ mangled name is of the function `name`."""
    if name in program.kernels:
        return program.kernels[name]
    mangled = [k for k in program.kernels if k.startswith(f"_Z{len(name)}{name}")]
    if len(mangled) == 1:
        return program.kernels[mangled[0]]
    raise GemmcError(f"no kernel '{name}' in {program.path}; it has {', '.join(program.kernels)}")


def run(program: AsmProgram, kernel: str, grid, block, args: list, elems: list[str] | None = None,
        counts=None, dynamic_lds: int = 0, sample=None) -> Stats:
    """Launch `kernel` on `args` (numpy arrays are buffers, updated in place; None a null
    pointer; other values by-value arguments), grid in workgroups and block in work-items,
    each (x, y[, z]); `dynamic_lds` bytes of LDS beyond the kernel's own (Triton's `shared`);
    `elems`: each buffer's element type as the device holds it (f32, f16, bf16, an FP8, FP6,
    FP4 or E8M0 format; default f32); `sample`: run_kernel's (the timing model's sampler: only the
    workgroups it names run, traced)."""
    k = find_kernel(program, kernel)
    g, b = tuple(grid) + (1,) * (3 - len(grid)), tuple(block) + (1,) * (3 - len(block))
    fixed = k.int_attr("lds_bytes")
    k.attributes["lds_bytes"] = IntegerAttr(fixed + dynamic_lds, i64)
    try:
        with np.errstate(all="ignore"):
            return run_kernel(k, program.arch, g, b, list(args), counts, elems, sample)
    finally:
        k.attributes["lds_bytes"] = IntegerAttr(fixed, i64)
