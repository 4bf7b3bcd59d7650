"""The interpreter's assembly front: AMDGCN assembly as LLVM writes it (clang -S for
amdgcn-amd-amdhsa: gemmc's HIP, the tutorial's kernels, Triton's), read into the amdgcn
dialect and run by gemmc.amdgcn.interp with its checks (waitcnt, hazards, LDS races, bounds).

    text.py      the file: target, each kernel's lines, its descriptor, its metadata (YAML)
    operands.py  one instruction line: mnemonic, operands and their modifiers, modifiers
    build.py     a kernel's lines as dialect ops (an instruction the dialect lacks: an error at its line)
    dual.py      RDNA's VOPD pairs (v_dual_*) as two ops
    abi.py       the launch ABI: initial SGPRs and VGPRs, registers, LDS, scratch, the kernarg layout
    program.py   load a file, run a kernel with given grid, block and arguments
    code_object.py  an ELF code object back as assembly text (llvm-objdump, llvm-readelf)

docs/amdgcn-asm.md has the instruction families and their sources.
"""

from __future__ import annotations

from gemmc.amdgcn.asm_front.program import AsmProgram, load, run

__all__ = ["AsmProgram", "load", "run"]
