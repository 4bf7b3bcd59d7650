"""Assemble and link the AMDGCN assembly of gemmc's own backend into a code object.

    llvm-mc -triple=amdgcn-amd-amdhsa -mcpu=gfxNNN -filetype=obj kernel.s -o kernel.o
    ld.lld -shared kernel.o -o kernel.hsaco

The tools are those of the toolchain gemmc.target.toolchain finds (ROCm's LLVM or LLVM 22);
every failure is a GemmcError with the toolchain's exit code.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from gemmc.target.arch import Arch, get_arch
from gemmc.target.toolchain import TRIPLE, Toolchain, run_tool, find_toolchain


def assemble(asm: str, arch: Arch | str, link: bool = True, toolchain: Toolchain | None = None) -> bytes:
    """The object (link=False) or linked code object (.hsaco) of an assembly file."""
    target = arch if isinstance(arch, Arch) else get_arch(arch)
    tc = toolchain or find_toolchain()
    with tempfile.TemporaryDirectory(prefix="gemmc-gcn-") as tmp:
        src, obj, hsaco = Path(tmp) / "kernel.s", Path(tmp) / "kernel.o", Path(tmp) / "kernel.hsaco"
        src.write_text(asm)
        run_tool([tc.tool("llvm-mc"), f"-triple={TRIPLE}", f"-mcpu={target.name}", "-filetype=obj", str(src),
              "-o", str(obj)], tc, target, tmp)
        if not link:
            return obj.read_bytes()
        run_tool([tc.tool("ld.lld"), "-shared", str(obj), "-o", str(hsaco)], tc, target, tmp)
        return hsaco.read_bytes()
