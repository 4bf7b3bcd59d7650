"""An AMDGPU code object (an ELF `.hsaco`, as Triton's `compiled.asm["hsaco"]` or clang
`--offload-device-only` writes it) read back as the assembly text the front reads: LLVM's own
tools say what is in it, so nothing of the ELF is decoded here.

    llvm-objdump -d -j .text --symbolize-operands   each kernel's instructions, branch targets
                                                     as labels (`<L0>:`)
    llvm-objdump -d -j .rodata                       each kernel descriptor as `.amdhsa_*` directives
    llvm-readelf --notes                             the metadata (the `.amdgpu_metadata` YAML)

The descriptor's disassembly has no `.amdhsa_user_sgpr_count`: it is the enabled user SGPRs
plus the preloaded kernargs' (AMDGPUUsage, "Initial Kernel Execution State").

    text = assembly_of("kernel.hsaco")
"""

from __future__ import annotations

import re
import subprocess

from gemmc.support.diagnostics import GemmcError
from gemmc.target.toolchain import find_toolchain, toolchain_error

ELF_MAGIC = b"\x7fELF"
# the user SGPRs each `.amdhsa_user_sgpr_*` enables, in their order (abi.py's)
_USER_SGPRS = (("private_segment_buffer", 4), ("dispatch_ptr", 2), ("queue_ptr", 2), ("kernarg_segment_ptr", 2),
               ("dispatch_id", 2), ("flat_scratch_init", 2), ("private_segment_size", 1))


def is_code_object(data: bytes) -> bool:
    return data[:4] == ELF_MAGIC


def _run(tool: str, args: list[str], path: str) -> str:
    r = subprocess.run([find_toolchain().tool(tool), *args, path], capture_output=True, text=True)
    if r.returncode:
        msg = (r.stderr.strip().splitlines() or ["failed"])[-1]
        raise toolchain_error(f"{tool} cannot read {path}: {msg}")
    return r.stdout


def _instructions(path: str) -> dict[str, list[str]]:
    """Each kernel's lines: its instructions (comments cut) and labels as `.LL0:`."""
    out: dict[str, list[str]] = {}
    cur: list[str] | None = None
    text = _run("llvm-objdump", ["-d", "-j", ".text", "--symbolize-operands", "--no-show-raw-insn",
                                 "--no-leading-addr"], path)
    for line in text.splitlines():
        m = re.match(r"^<([^>]+)>:$", line.strip())
        if m and not re.fullmatch(r"L\d+", m.group(1)):
            cur = out.setdefault(m.group(1), [])
        elif m and cur is not None:
            cur.append(f".L{m.group(1)}:")
        elif cur is not None and line.startswith("\t"):
            ins = line.split("//", 1)[0].strip()
            cur.append("\t" + re.sub(r"\bL(\d+)\b", r".LL\1", ins))
    return out


def _descriptors(path: str) -> dict[str, list[str]]:
    """Each kernel's `.amdhsa_*` lines, with the user SGPR count the disassembly leaves out."""
    out: dict[str, list[str]] = {}
    cur: list[str] | None = None
    for line in _run("llvm-objdump", ["-d", "-j", ".rodata"], path).splitlines():
        s = line.strip()
        if s.startswith(".amdhsa_kernel "):
            cur = out.setdefault(s.split()[1], [])
        elif s.startswith(".end_amdhsa_kernel") and cur is not None:
            cur.append(f".amdhsa_user_sgpr_count {_user_sgpr_count(cur)}")
            cur = None
        elif cur is not None and s.startswith(".amdhsa_"):
            cur.append(s)
    return out


def _user_sgpr_count(lines: list[str]) -> int:
    d = {k[len(".amdhsa_"):]: v for k, _, v in (s.partition(" ") for s in lines)}
    n = sum(size for name, size in _USER_SGPRS if d.get(f"user_sgpr_{name}", "0").strip() == "1")
    return n + int(d.get("user_sgpr_kernarg_preload_length", "0"))


def _metadata(path: str) -> tuple[str, str]:
    """(the metadata YAML, its amdhsa.target)."""
    notes = _run("llvm-readelf", ["--notes"], path)
    start = notes.find("---")
    end = notes.find("\n...", start)
    if start < 0 or end < 0:
        raise GemmcError(f"{path}: no AMDGPU metadata note (NT_AMDGPU_METADATA) in the code object")
    yaml = notes[start:end + 4]
    indent = len(yaml.splitlines()[1]) - len(yaml.splitlines()[1].lstrip()) if len(yaml.splitlines()) > 1 else 0
    yaml = "\n".join(l[indent:] if l.startswith(" " * indent) else l for l in yaml.splitlines())
    m = re.search(r"amdhsa\.target:\s+(\S+)", yaml)
    if m is None:
        raise GemmcError(f"{path}: the code object's metadata names no amdhsa.target")
    return yaml, m.group(1).strip("'\"")


def assembly_of(path: str) -> str:
    """The code object at `path` as assembly text for the front (gemmc.amdgcn.asm_front.load)."""
    code, descriptors = _instructions(path), _descriptors(path)
    yaml, target = _metadata(path)
    lines = [f'\t.amdgcn_target "{target}"', "\t.text"]
    for i, (name, body) in enumerate(code.items()):
        if name not in descriptors:
            continue  # a function that is no kernel
        lines += [f"{name}:", *body, f".Lfunc_end{i}:", f"\t.amdhsa_kernel {name}",
                  *("\t\t" + d for d in descriptors[name]), "\t.end_amdhsa_kernel"]
    lines += ["\t.amdgpu_metadata", yaml, "\t.end_amdgpu_metadata"]
    return "\n".join(lines) + "\n"
