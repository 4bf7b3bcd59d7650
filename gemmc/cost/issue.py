"""The issue term of the IR-level model, on archs whose SIMD has one issue port and runs its
matrix instructions on its VALU (RDNA3/4: Arch.issue_per_clk, Arch.matrix_on_valu).

There a WMMA occupies the VALU for its cycles, and every other VALU instruction of the K loop
(address arithmetic, the 16-bit packing of copies, compares) waits for the same pipe, so the
"matrix" resource is the VALU's: WMMA cycles + VALU cycles.  And each instruction of any type
(VALU, WMMA, SALU, LDS, VMEM, waits, hints, branches) takes one of the SIMD's issue cycles, one
a cycle: the "issue" resource.  Both are what the ISA-level model (gemmc.amdgcn.timing) charges
per instruction; this module gives the IR-level model the counts.

Sources (the rates are the arch's, gemmc.target.arch's issue_per_clk and matrix_on_valu): the
RDNA3 ISA guide (a SIMD issues one instruction a cycle; WMMA executes on the SIMD's VALU), LLVM's
AMDGPU scheduling models (llvm/lib/Target/AMDGPU/SISchedule.td: every SISchedMachineModel has
`IssueWidth = 1`; the GFX11/GFX12 models count in cycles, Write64Bit two), as the ISA-level model's
gemmc.amdgcn.timing.classes reads them; the VALU costs are gemmc.target.amdgcn_isa.valu_timing,
which both models use.

The counts are clang's when the compiler's report is at hand (KernelResources.asm, the assembly
of the same compile that gives the VGPRs): the K loop's instructions as clang lays them out,
each of its blocks once (a loop's blocks are those LLVM's comments put in it: "in Loop:
Header=BB0_22"), taken per matrix instruction of that loop, so that an unrolled loop counts
right, and scaled by the kernel's matrix instructions.  Without the compiler the IR's own
instructions stand in: its matrix, float VALU, LDS and global instructions and barriers, no
address arithmetic (a floor: the IR's integer ops are the interpreter's, not what clang leaves
in the loop).

    mix = loop_mix(asm_text, "hgemm_kernel", arch)   # LoopMix or None
    mix.valu_per_matrix, mix.issue_per_matrix
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gemmc.target.amdgcn_isa import valu_timing
from gemmc.target.arch import Arch

_HEADER = re.compile(r"Loop Header: Depth=(\d+)")
_IN_LOOP = re.compile(r"in Loop: Header=(\S+) Depth=(\d+)")
MATRIX_PREFIXES = ("v_wmma", "v_mfma", "v_smfmac", "v_swmmac")


@dataclass(frozen=True)
class LoopMix:
    """One iteration of a kernel's K loop in clang's code, a wave's instructions."""
    matrix: int  # matrix instructions
    valu_cycles: float  # the VALU's cycles for the other VALU instructions (gemmc.target.amdgcn_isa.valu_timing)
    instrs: int  # every instruction (VOPD's pair one)

    @property
    def valu_per_matrix(self) -> float:
        return self.valu_cycles / self.matrix

    @property
    def issue_per_matrix(self) -> float:
        return self.instrs / self.matrix


def _kernel_lines(asm: str, kernel: str) -> list[str]:
    lines = asm.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith(f"{kernel}:")), None)
    if start is None:
        return []
    end = next((i for i in range(start, len(lines)) if lines[i].startswith(".Lfunc_end")), len(lines))
    return lines[start + 1:end]


def _blocks(lines: list[str]) -> list[tuple[str | None, int, list[str]]]:
    """(the header of the loop the block is in, or None; its depth; its instructions' mnemonics)."""
    out: list = []
    loop, depth, instrs = None, 0, []
    for line in lines:
        s = line.strip()
        label = (s.startswith(".LBB") and ":" in s) or s.startswith("; %bb.")
        if label:
            out.append((loop, depth, instrs))
            h, m = _HEADER.search(s), _IN_LOOP.search(s)
            if h:  # a header's label: ".LBB0_22:", the comments' "BB0_22"
                loop, depth = s.split(":")[0][2:], int(h.group(1))
            elif m:
                loop, depth = m.group(1), int(m.group(2))
            else:
                loop, depth = None, 0
            instrs = []
            continue
        if not s or s.startswith((".", ";")) or s.endswith(":"):
            continue
        instrs.append(s.split()[0])
    out.append((loop, depth, instrs))
    return out


def loop_mix(asm: str, kernel: str, arch: Arch) -> LoopMix | None:
    """The K loop of `kernel` in clang's assembly (the loop with the most matrix instructions, its
    nested loops' blocks included once), or None where no loop holds one."""
    blocks = _blocks(_kernel_lines(asm, kernel))
    loops: dict[str, list[int]] = {}
    for i, (h, _, _) in enumerate(blocks):
        if h is not None:
            loops.setdefault(h, []).append(i)

    def members(h: str) -> list[int]:  # its blocks and, between them, those of deeper loops
        idx = loops[h]
        d = blocks[idx[0]][1]
        return [i for i in range(idx[0], idx[-1] + 1) if blocks[i][0] is not None and blocks[i][1] >= d]

    def mix(h: str) -> LoopMix:
        matrix = valu = instrs = 0
        for i in members(h):
            for m in blocks[i][2]:
                instrs += 1
                if m.startswith(MATRIX_PREFIXES):
                    matrix += 1
                elif m.startswith("v_"):
                    valu += valu_timing(arch, m)[0]
        return LoopMix(matrix, float(valu), instrs)

    mixes = [mix(h) for h in loops]
    mixes = [m for m in mixes if m.matrix]
    return max(mixes, key=lambda m: (m.matrix, m.instrs)) if mixes else None


def applies(arch: Arch, matrix_instrs: float) -> bool:
    """The term is the arch's (one issue port, matrix on the VALU) and the kernel runs matrix
    instructions (an FMA kernel's VALU is the valu term's already)."""
    return arch.issue_per_clk > 0 and arch.matrix_on_valu and matrix_instrs > 0


def issue_cycles(arch: Arch, c, resources=None, waves_per_wg: int = 1) -> tuple[float, float, str]:
    """(the VALU's cycles beside the matrix instructions, issue cycles, where the counts came
    from) over the launch, all SIMDs together.  c: gemmc.cost.counts.Counts; resources: the
    compiler's report (its asm), or None."""
    mix = None
    if resources is not None and getattr(resources, "asm", ""):
        mix = loop_mix(resources.asm, resources.kernel, arch)
    if mix is not None:
        return (c.matrix_instrs * mix.valu_per_matrix, c.matrix_instrs * mix.issue_per_matrix / arch.issue_per_clk,
                "clang's K loop")
    instrs = (c.matrix_instrs + c.valu_instrs + c.issued("lds") + c.issued("global")
              + c.barriers * c.workgroups * waves_per_wg)
    return 0.0, instrs / arch.issue_per_clk, "the IR's instructions (no compiler)"
