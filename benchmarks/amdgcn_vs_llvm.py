"""gemmc's own AMDGCN backend against LLVM, per tutorial step, on gfx942, gfx1100 and gfx1201.

    python benchmarks/amdgcn_vs_llvm.py [--gemm examples/sgemm.gemm] [--table steps|f16|all]
    python benchmarks/amdgcn_vs_llvm.py --write    # write the three tables into docs/amdgcn.md
    python benchmarks/amdgcn_vs_llvm.py --check    # exit 1 if docs/amdgcn.md's tables are not current

(tests/test_amdgcn.py runs --check, so a change to either backend comes with its tables.)

The second table (`--table f16`) is the 16-bit kernel, examples/hgemm.gemm (f16 A and B, f32 C),
under the default pipeline on all five archs (v_mfma_*_f16 on CDNA, v_wmma_f32_16x16x16_f16 on
RDNA; the copies global_load_ushort / dwordx2 and ds_write_b16, the fragments ds_read_b64/b128).
The third (`--table fp8`) is examples/fp8gemm.gemm (f8e4m3fnuz A and B, f32 C) on gfx942
(v_mfma_f32_*_fp8_fp8; the copies global_load_ubyte / dword and ds_write_b8).

For each named pipeline step1..step7 and arch (step 7: f32 MFMA on gfx942, f16 WMMA on gfx1100 and
gfx1201: the f32 tiles rounded to f16 fragments), the same kernel IR
goes two ways:
  * gemmc: unroll-loops, promote-private, lower-to-amdgcn, amdgcn-regalloc, insert-waitcnt,
    amdgcn-finalize (`--emit gcn`);
  * LLVM: the HIP printed from it, compiled by clang -O3 (`--emit asm`).
Both assembly files are read the same way: the instructions one iteration of the K loop
executes (gemmc marks the loop `; k_loop begin/end`; in LLVM's output it is the blocks
whose header comment puts them at loop depth >= 1, a depth-2 loop counted as often as it
must run to do the iteration's FMAs), how many of them are memory waits (s_waitcnt; gfx12's s_wait_loadcnt/dscnt/kmcnt), LDS (ds_*) and global
(global_*) instructions, the k steps one iteration covers (FMAs / thread-tile size;
v_pk_fma_f32 and a v_dual_fmac_f32 pair count as two FMAs, an MFMA v_mfma_*_MxNxK or a WMMA
v_wmma_*_MxNxK as K steps of its tile), and from the kernel descriptor the VGPRs, scratch (spill) bytes per lane, SGPRs (next
free register) and LDS bytes; "static" columns count the whole kernel's code.
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import gemmc
from gemmc.driver.gcn import emit_gcn
from gemmc.target.arch import get_arch
from gemmc.driver.pipeline import default_pipeline
from gemmc.support.ir_names import SCHEDULE_ATTR
from gemmc.transforms.schedule import Schedule

sys.path.insert(0, str(Path(__file__).resolve().parent))
import generated_section  # noqa: E402

STEPS = ["step1", "step2", "step3", "step4", "step5", "step6", "step7"]
ARCHS = ["gfx942", "gfx1100", "gfx1201"]
ROWS = [(step, arch) for step in STEPS for arch in ARCHS]
F16_GEMM = "examples/hgemm.gemm"
F16_ROWS = [("default", arch) for arch in ("gfx90a", "gfx942", "gfx950", "gfx1100", "gfx1201")]
F8_GEMM = "examples/fp8gemm.gemm"  # f8e4m3fnuz: gfx942's FP8
F8_ROWS = [("default", "gfx942")]
_WAITS = ("s_wait_loadcnt", "s_wait_dscnt", "s_wait_kmcnt", "s_wait_storecnt", "s_wait_loadcnt_dscnt")
_INSTR = re.compile(r"^\s+([a-z][a-z0-9_]*)\b")


@dataclass
class Counts:
    loop: float = 0  # instructions executed per iteration of the K loop (inner loops counted per trip)
    loop_static: int = 0  # instructions written in the K-loop nest
    loop_waits: float = 0
    loop_lds: float = 0
    loop_global: float = 0
    loop_fma: float = 0  # FMAs per K-loop iteration
    total: int = 0
    waits: int = 0
    vgprs: int = 0
    sgprs: int = 0
    lds: int = 0
    scratch: int = 0  # bytes per lane (spills)


def _kernel_lines(asm: str) -> list[str]:
    out, inside = [], False
    for line in asm.splitlines():
        if re.match(r"^[A-Za-z_][\w]*:", line) and not line.startswith(".L"):
            inside = True
            continue
        if inside and (line.startswith(".Lfunc_end") or line.strip().startswith(".section") or
                       line.strip().startswith(".rodata")):
            break
        if inside:
            out.append(line)
    return out


def _depths_llvm(lines: list[str]) -> list[int]:
    """Loop depth of each line, from LLVM's block header comments."""
    depths, cur = [], 0
    for i, line in enumerate(lines):
        if re.match(r"^(\.LBB\d+_\d+:|; %bb\.\d+:)", line):
            # the depth is on this line or on the comment line right after it
            text = line + (lines[i + 1] if i + 1 < len(lines) and lines[i + 1].lstrip().startswith(";") else "")
            m = re.findall(r"Depth=(\d+)", text)
            cur = max(map(int, m)) if m else 0
        depths.append(cur)
    return depths


def _depths_gemmc(lines: list[str]) -> list[int]:
    depths, cur = [], 0
    for line in lines:
        if "; k_loop begin" in line:
            cur = 1
        elif "; k_loop end" in line:
            cur = 0
        depths.append(cur)
    return depths


_MFMA = re.compile(r"^\s*v_(?:mfma|wmma)_\w*?_\d+x\d+x(\d+)")


def _fmas(line: str) -> int:
    """k steps of one thread-tile element: an FMA is one (packed: two), an MFMA or WMMA its k for one tile."""
    mfma = _MFMA.match(line)
    if mfma:
        return int(mfma.group(1))
    return sum(2 if p.strip().startswith("v_pk_fma_f32") else
               int(p.strip().startswith(("v_fma_f32", "v_fmac_f32", "v_mac_f32", "v_dual_fmac_f32")))
               for p in line.split("::"))


def analyze(asm: str, gemmc_style: bool, tile: int, block_k: int) -> Counts:
    c = Counts()
    lines = _kernel_lines(asm)
    depths = _depths_gemmc(lines) if gemmc_style else _depths_llvm(lines)
    per = {1: Counts(), 2: Counts()}
    for line, d in zip(lines, depths):
        m = _INSTR.match(line)
        if not m or line.strip().startswith((";", ".")):
            continue
        name = m.group(1)
        c.total += 1
        wait = name.startswith("s_waitcnt") or name in _WAITS
        c.waits += wait
        if d >= 1:
            x = per[min(d, 2)]
            c.loop_static += 1
            x.loop += 1
            x.loop_waits += wait
            x.loop_lds += name.startswith("ds_")
            x.loop_global += name.startswith(("global_", "buffer_"))
            x.loop_fma += _fmas(line)
    # inner loops run until the iteration's FMAs are done: tile * (k per outer iteration)
    inner = per[2]
    trips = 0.0
    if inner.loop_fma:
        trips = (tile * block_k - per[1].loop_fma) / inner.loop_fma
    for f in ("loop", "loop_waits", "loop_lds", "loop_global", "loop_fma"):
        setattr(c, f, getattr(per[1], f) + trips * getattr(inner, f))
    for key, attr in (("vgprs", "next_free_vgpr"), ("sgprs", "next_free_sgpr"), ("lds", "group_segment_fixed_size"),
                      ("scratch", "private_segment_fixed_size")):
        m = re.search(rf"\.amdhsa_{attr}\s+(\d+)", asm)
        setattr(c, key, int(m.group(1)) if m else -1)
    return c


def schedule_of(module) -> Schedule | None:
    for op in module.walk():
        a = op.attributes.get(SCHEDULE_ATTR)
        if a is not None:
            return Schedule.from_attr(a)
    return None


def compare(path: str, step: str, arch: str) -> tuple[Counts, Counts]:
    """(gemmc's counts, LLVM's) for `step` (a named pipeline, or "default": gemmc compile's)."""
    m = gemmc.parse_file(path)
    gemmc.lower(m, default_pipeline(get_arch(arch)) if step == "default" else step, arch)
    s = schedule_of(m)
    tile, bk = (s.thread_m * s.thread_n, s.block_k) if s else (1, 1)
    llvm = analyze(gemmc.emit(m, arch, "asm"), False, tile, bk)  # type: ignore[arg-type]
    ours = analyze(emit_gcn(m, arch), True, tile, bk)
    for c in (llvm, ours):
        c.k = c.loop_fma / tile  # type: ignore[attr-defined]
    return ours, llvm


def table(path: str, rows_of=ROWS) -> str:
    head = ("| step | arch | backend | instr / K iter | k / iter | instr / k | s_waitcnt / iter | LDS / iter "
            "| global / iter | VGPRs | scratch B/lane | SGPRs | LDS bytes | instr (static) | s_waitcnt (static) |")
    rows = [head, "|" + "---|" * 15]
    for step, arch in rows_of:
        for name, c in zip(("gemmc", "LLVM"), compare(path, step, arch)):
            k = c.k  # type: ignore[attr-defined]
            per_k = f"{c.loop / k:.1f}" if k else "-"
            rows.append(
                f"| {step} | {arch} | {name} | {c.loop:g} | {k:g} | {per_k} | {c.loop_waits:g} | {c.loop_lds:g} "
                f"| {c.loop_global:g} | {c.vgprs} | {c.scratch} | {c.sgprs} | {c.lds} | {c.total} | {c.waits} |"
            )
    return "\n".join(rows) + "\n"


ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "amdgcn.md"


def markers(name: str) -> tuple[str, str]:
    return (f"<!-- BEGIN generated by benchmarks/amdgcn_vs_llvm.py --write ({name}): edit the script, not this table -->",
            f"<!-- END generated by benchmarks/amdgcn_vs_llvm.py ({name}) -->")


def splice(doc: str, name: str, body: str) -> str:
    return generated_section.splice(doc, *markers(name), body, f"{DOC} ({name})", SystemExit)


def document() -> str:
    """docs/amdgcn.md with both tables as the backends make them now."""
    doc = DOC.read_text()
    doc = splice(doc, "steps", table(str(ROOT / "examples" / "sgemm.gemm")))
    doc = splice(doc, "f16", table(str(ROOT / F16_GEMM), F16_ROWS))
    return splice(doc, "fp8", table(str(ROOT / F8_GEMM), F8_ROWS))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--gemm", default="examples/sgemm.gemm")
    p.add_argument("--table", choices=("steps", "f16", "fp8", "all"), default="all",
                   help="steps: --gemm at step1..step7; f16: examples/hgemm.gemm, default pipeline, five archs; "
                        "fp8: examples/fp8gemm.gemm on gfx942")
    p.add_argument("--write", action="store_true", help="write the three tables into docs/amdgcn.md")
    p.add_argument("--check", action="store_true", help="fail if docs/amdgcn.md's tables are not current")
    args = p.parse_args(argv)
    if args.write or args.check:
        new = document()
        if args.check and new != DOC.read_text():
            print("docs/amdgcn.md's LLVM comparison tables are not what the backends make now; regenerate "
                  "them with `python benchmarks/amdgcn_vs_llvm.py --write`", file=sys.stderr)
            return 1
        if args.write:
            DOC.write_text(new)
        return 0
    if args.table in ("steps", "all"):
        sys.stdout.write(table(args.gemm))
    if args.table == "all":
        sys.stdout.write("\n")
    if args.table in ("f16", "all"):
        sys.stdout.write(table(F16_GEMM, F16_ROWS))
    if args.table == "all":
        sys.stdout.write("\n")
    if args.table in ("fp8", "all"):
        sys.stdout.write(table(F8_GEMM, F8_ROWS))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
