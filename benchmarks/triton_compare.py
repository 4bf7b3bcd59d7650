"""gemmc's default kernels against Triton's tutorial matmul, side by side in the assembly.

    python3 benchmarks/triton_compare.py            # write docs/triton.md
    python3 benchmarks/triton_compare.py --check    # exit 1 if docs/triton.md is not current

Both compile offline, no GPU: gemmc's default pipeline through HIP and clang-22
(`gemmc compile --emit asm`), Triton's AMD backend (`triton.compile(ASTSource(...),
target=GPUTarget("hip", arch, wave))`).  The problems: hgemm (f16 A and B, f32 C) and sgemm
(f32) at 4096^3 as examples/hgemm.gemm and sgemm.gemm declare them (hgemm's A column-major),
sizes and strides static in both.  Triton's kernel is the
tutorial's (python/tutorials/03-matrix-multiplication.py: grouped tile order, masked K
loads, tl.dot into an f32 accumulator) at its HIP autotuning sizes (num_warps=8,
num_stages=2, matrix_instr_nonkdim=16); without a GPU there is no autotuning, so two
of its sizes are shown.  From each kernel's assembly: its K loop (the depth-1 loop, as
LLVM's loop comments mark it, holding the most matrix instructions), counted once per
iteration: matrix instructions, LDS bytes read per wave per matrix instruction, every
other instruction; and from its metadata VGPRs, AGPRs, scratch, LDS, and the occupancy
these allow (gemmc.arch's register file and LDS).  Needs `pip install 'gemmc[triton]'`
(the exact version below: another one compiles other code).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "triton.md"
TRITON_VERSION = "3.9.0"
COMMAND = "python3 benchmarks/triton_compare.py"
ARCHS = ("gfx942", "gfx950", "gfx1100", "gfx1201")
# problem: (Triton's element type, gemmc's source, A's strides (m, k)): hgemm.gemm stores A column-major
PROBLEMS = {"hgemm": ("fp16", "examples/hgemm.gemm", (1, 4096)), "sgemm": ("fp32", "examples/sgemm.gemm", (4096, 1))}
# Triton's tutorial HIP sizes (BLOCK_SIZE_M, _N, _K, GROUP_SIZE_M): two of the large ones that tile
# 4096^3 (256x256x64 spills on every arch and doubles the script's time)
TRITON_SIZES = ((128, 128, 64, 4), (256, 128, 64, 4))


@dataclass
class Kernel:
    who: str
    config: str
    mfma: int
    lds_read_bytes: int  # per lane, per K iteration
    other: int
    vgprs: int
    agprs: int
    scratch: int
    lds: int
    waves: int
    threads: int
    inner_loops: bool


def _blocks(lines: list[str]) -> list[tuple[set[str], list[str]]]:
    """Basic blocks as (the loop headers they lie in, their instructions)."""
    blocks, loops, body = [], set(), []
    for i, line in enumerate(lines):
        label = re.match(r"^(\.LBB\d+_\d+|; %bb\.\d+):", line)
        if label:
            blocks.append((loops, body))
            name = label.group(1).replace(".LBB", "BB").replace("; %bb.", "bb")
            loops, body = set(), []
            if "Loop Header" in line:
                loops.add(name)
            m = re.search(r"in Loop: Header=(BB\d+_\d+)", line)
            if m:
                loops.add(m.group(1))
            j = i + 1
            while j < len(lines) and lines[j].lstrip().startswith(";"):
                p = re.search(r"Parent Loop (BB\d+_\d+)", lines[j])
                if p:
                    loops.add(p.group(1))
                j += 1
            continue
        s = line.strip()
        if s and not s.startswith((";", ".")) and re.match(r"^[a-z_][a-z0-9_]*", s):
            body.append(s)
    blocks.append((loops, body))
    return blocks


def _lds_read_bytes(ins: str) -> int:
    """Bytes per lane an LDS read moves: ds_read_b128 / ds_load_b128 16, the two-address forms
    (ds_read2_b64, gfx12's ds_load_2addr_b64) twice their width, transposing reads
    (ds_read_b64_tr_b16) their data width; 16- and 8-bit reads 2 and 1."""
    m = re.match(r"ds_(?:read|load)(2st64|2|_2addr_stride64|_2addr)?_([a-z0-9_]+)", ins)
    if not m:
        return 0
    width = re.match(r"(?:tr\d+_)?b(\d+)", m.group(2))
    n = int(width.group(1)) // 8 if width else (2 if "16" in m.group(2) else 1)
    return n * (2 if m.group(1) else 1)


def analyze_asm(text: str) -> dict:
    """The K loop's instruction counts and the kernel's resources."""
    text = text.split(".end_amdgpu_metadata")[0]
    code = text.split(".amdhsa_kernel")[0].splitlines()
    blocks = _blocks(code)
    headers = {h for loops, _ in blocks for h in loops}

    def matrix(ins):
        return sum(1 for s in ins if s.startswith(("v_mfma", "v_wmma", "v_smfmac")))

    def in_loop(h):
        return [s for loops, ins in blocks if h in loops for s in ins]

    best = max(headers, key=lambda h: (matrix(in_loop(h)), -len(in_loop(h))), default=None)
    ins = in_loop(best) if best else []
    inner = best is not None and any(best in loops and len(loops) > 1 for loops, _ in blocks)
    lds = sum(_lds_read_bytes(s) for s in ins)

    def meta(key):
        m = re.search(rf"\.{key}:\s+(\d+)", text)
        return int(m.group(1)) if m else 0

    return {"mfma": matrix(ins), "lds": lds, "other": len(ins) - matrix(ins), "vgprs": meta("vgpr_count"),
            "agprs": meta("agpr_count"), "scratch": meta("private_segment_fixed_size"),
            "group": meta("group_segment_fixed_size"), "inner": inner}


def occupancy(arch_name: str, vgprs: int, agprs: int, lds: int, threads: int) -> int:
    """Waves per SIMD that registers, LDS and the workgroup size allow (gemmc.arch's facts)."""
    from gemmc.target.arch import get_arch

    a = get_arch(arch_name)
    per_wg = -(-threads // a.wave_size)
    simds = a.simds_per_cu * a.cus_per_wgp
    per_simd = -(-per_wg // simds)
    regs = (-(-vgprs // 4) * 4 if agprs else vgprs) + agprs  # AGPRs start at a 4-aligned offset
    alloc = -(-max(1, regs) // a.vgpr_granule) * a.vgpr_granule
    by_regs = min(a.max_waves_per_simd, a.vgpr_file_per_lane // alloc)
    lds_unit = a.lds_per_cu or a.lds_bytes * a.cus_per_wgp
    wgs = min(by_regs // per_simd, lds_unit // lds if lds else 10**9, a.max_waves_per_simd // per_simd)
    return min(wgs * per_simd, by_regs)


def gemmc_kernel(problem: str, arch: str) -> Kernel:
    import gemmc
    from gemmc.target.arch import get_arch
    from gemmc.support.ir_names import PIPELINE_ATTR

    path = ROOT / PROBLEMS[problem][1]
    dims = {"M": 4096, "N": 4096, "K": 4096}
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "k.s"
        subprocess.run([sys.executable, "-m", "gemmc.driver.cli", "compile", str(path), "--arch", arch, "-D", "M=4096",
                        "-D", "N=4096", "-D", "K=4096", "--emit", "asm", "-o", str(out)], check=True,
                       capture_output=True, text=True, cwd=ROOT)
        r = analyze_asm(out.read_text())
    module = gemmc.lower(gemmc.parse(path.read_text(), path.name, dims), None, get_arch(arch))
    threads = _threads(module)
    pipeline = module.attributes[PIPELINE_ATTR].data  # what the selection ran for this problem
    m = re.search(r"lds-tiling\{block-m=(\d+) block-n=(\d+) block-k=(\d+)\}", pipeline)
    config = f"default, {'x'.join(m.groups())}" if m else "default"
    return Kernel("gemmc", config, r["mfma"], r["lds"], r["other"], r["vgprs"], r["agprs"], r["scratch"],
                  r["group"], occupancy(arch, r["vgprs"], r["agprs"], r["group"], threads), threads, r["inner"])


def _threads(module) -> int:
    from xdsl.dialects import gpu

    for op in module.walk():
        if isinstance(op, gpu.FuncOp) and "gpu.known_block_size" in op.attributes:
            x, y, z = op.attributes["gpu.known_block_size"].get_values()
            return x * y * z
    return 256


def compile_matmul(arch: str, size: tuple[int, int, int, int], dims: tuple[int, int, int], types: tuple[str, str, str],
                   strides: tuple[int, ...], num_warps: int = 8):
    """Triton's tutorial matmul compiled for arch (triton.compile's CompiledKernel: .asm["amdgcn"],
    .metadata.shared, .metadata.name), sizes and strides static; `types` A's, B's and C's
    Triton element types, `strides` (am, ak, bk, bn, cm, cn); the tutorial's HIP options."""
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    from triton_matmul import matmul_kernel

    bm, bn, bk, group = size
    sig = {"a_ptr": f"*{types[0]}", "b_ptr": f"*{types[1]}", "c_ptr": f"*{types[2]}"}
    names = ("stride_am", "stride_ak", "stride_bk", "stride_bn", "stride_cm", "stride_cn")
    consts = dict(M=dims[0], N=dims[1], K=dims[2], **dict(zip(names, strides)), BLOCK_SIZE_M=bm, BLOCK_SIZE_N=bn,
                  BLOCK_SIZE_K=bk, GROUP_SIZE_M=group)
    sig.update({k: "constexpr" for k in consts})
    return triton.compile(ASTSource(matmul_kernel, sig, consts), target=GPUTarget("hip", arch, _wave(arch)),
                          options=dict(num_warps=num_warps, num_stages=2, matrix_instr_nonkdim=16))


def triton_kernel(problem: str, arch: str, size: tuple[int, int, int, int]) -> Kernel:
    el, _, (stride_am, stride_ak) = PROBLEMS[problem]
    wave = _wave(arch)
    num_warps = 8
    k = compile_matmul(arch, size, (4096, 4096, 4096), (el, el, "fp32"), (stride_am, stride_ak, 4096, 1, 4096, 1),
                       num_warps)
    bm, bn, bk, _ = size
    r = analyze_asm(k.asm["amdgcn"])
    lds = max(r["group"], k.metadata.shared)
    threads = num_warps * wave
    return Kernel("Triton", f"{bm}x{bn}x{bk}", r["mfma"], r["lds"], r["other"], r["vgprs"], r["agprs"],
                  r["scratch"], lds, occupancy(arch, r["vgprs"], r["agprs"], lds, threads), threads, r["inner"])


def row(arch: str, problem: str, k: Kernel) -> str:
    per = f"{k.lds_read_bytes * _wave(arch) / k.mfma:.0f}" if k.mfma else "—"
    other = f"{k.other / k.mfma:.1f}" if k.mfma else "—"
    inner = " (K loop holds a loop)" if k.inner_loops else ""
    return (f"| {arch} | {problem} | {k.who} {k.config}{inner} | {k.threads} | {k.mfma} | {per} | {k.other} | "
            f"{other} | {k.vgprs} | {k.agprs} | {k.scratch} | {k.lds} | {k.waves} |")


def _wave(arch: str) -> int:
    from gemmc.target.arch import get_arch

    return get_arch(arch).wave_size


def table() -> str:
    import triton

    if triton.__version__ != TRITON_VERSION:
        raise SystemExit(f"triton {triton.__version__} installed; the table is for {TRITON_VERSION} "
                         f"(pip install 'gemmc[triton]')")
    out = ["| arch | problem | kernel (tile M×N×K) | threads | matrix instrs / K iter | LDS B read / matrix "
           "instr (wave) | other instrs / K iter | other / matrix instr | VGPRs | AGPRs | scratch B | LDS B "
           "| waves / SIMD |", "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for arch in ARCHS:
        for problem in PROBLEMS:
            out.append(row(arch, problem, gemmc_kernel(problem, arch)))
            for size in TRITON_SIZES:
                try:
                    out.append(row(arch, problem, triton_kernel(problem, arch, size)))
                except Exception as e:  # a configuration Triton refuses: say so in its row
                    msg = str(e).strip().splitlines()[-1][:120] if str(e).strip() else type(e).__name__
                    out.append(f"| {arch} | {problem} | Triton {size[0]}x{size[1]}x{size[2]} | — | refused: "
                               f"{msg.replace('|', '/')} | | | | | | | | |")
    return "\n".join(out) + "\n"


HEAD = f"""# gemmc against Triton, in the assembly

Written by `{COMMAND}` (benchmarks/triton_compare.py says how each column is counted);
tests/test_triton_compare.py checks that this file is current (it skips without Triton {TRITON_VERSION},
`pip install 'gemmc[triton]'`, which setup.sh installs).  No GPU is involved: this compares
the code, not measured speed.

gemmc: the arch's default pipeline (`gemmc compile --emit asm`, HIP through clang-22).
Triton {TRITON_VERSION}: the tutorial matmul (python/tutorials/03-matrix-multiplication.py) at two of
its HIP autotuning sizes, num_warps=8, num_stages=2, matrix_instr_nonkdim=16.  Both at 4096³,
static sizes; hgemm is f16 A (column-major, as examples/hgemm.gemm declares it; Triton gets
its strides) and f16 B with an f32 C, sgemm f32, both otherwise row-major.  "K iter" is one iteration of
each kernel's own K loop: gemmc's block-k and Triton's BLOCK_SIZE_K differ, so compare the per
matrix instruction columns across them.  On RDNA gemmc's default runs no WMMA for f32 (its
default there is the tutorial's FMA pipeline) and neither does Triton (RDNA has no f32 WMMA),
hence 0 matrix instructions.  0 waves per SIMD: the kernel's LDS exceeds what a workgroup may
have on that arch (Triton compiles it; its autotuner would drop the configuration at launch).

"""


def document() -> str:
    os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")  # Triton 3.9's default, said explicitly
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    return HEAD + table()


# docs/triton.md's second part, the ISA-level model's predictions, is benchmarks/triton_isa.py's:
# this script writes and checks what comes before it and keeps it as it is
ISA_PART = "\n<!-- BEGIN generated by benchmarks/triton_isa.py"


def own_part(text: str) -> str:
    return text.split(ISA_PART)[0]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="fail if docs/triton.md is not current")
    args = ap.parse_args(argv)
    new = document()
    old = DOC.read_text() if DOC.exists() else ""
    if args.check:
        if own_part(old) != new:
            print(f"docs/triton.md is not what the compilers produce now; regenerate it with `{COMMAND}`",
                  file=sys.stderr)
            return 1
        return 0
    DOC.write_text(new + old[len(own_part(old)):])
    print(new, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
