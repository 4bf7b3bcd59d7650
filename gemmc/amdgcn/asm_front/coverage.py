"""Which instructions of an assembly file the interpreter runs: each kernel's mnemonics (as
LLVM spells them, a VOPD pair as its two v_dual_ ops), how often each occurs, and for each
either None (the front gives it an op the interpreter has semantics for) or why not, the
error the front would raise at its first line (scripts/asm_coverage.py tabulates it)."""

from __future__ import annotations

from xdsl.ir import Block

from gemmc.amdgcn.asm_front.build import Builder, dual_pair
from gemmc.amdgcn.asm_front.operands import parse_line
from gemmc.amdgcn.asm_front.text import parse_file
from gemmc.support.diagnostics import GemmcError
from gemmc.target.arch import get_arch


def opcodes(path: str, text: str) -> dict[str, dict[str, tuple[int, str | None]]]:
    """{kernel: {mnemonic: (count, None or why the interpreter cannot run it)}}."""
    f = parse_file(path, text)
    arch = get_arch(f.target)
    out: dict[str, dict[str, tuple[int, str | None]]] = {}
    for name, k in f.kernels.items():
        b = Builder(arch, Block())
        seen: dict[str, tuple[int, str | None]] = {}
        for line in k.lines:
            if line.text.endswith(":") and " " not in line.text:
                continue
            parts = line.text.split("::")
            names = [p.split()[0] for p in parts]
            why = None
            try:
                for p in (dual_pair(parts, line.loc) if len(parts) == 2 else [parse_line(line.text, line.loc)]):
                    b.instruction(p)
            except GemmcError as e:
                why = e.message
            for m in names:
                count, first_why = seen.get(m, (0, None))
                seen[m] = (count + 1, first_why or why)
        out[name] = seen
    return out
