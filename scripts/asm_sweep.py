#!/usr/bin/env python3
"""LLVM's AMDGCN for gemmc's kernels, run in gemmc's interpreter (`gemmc run --level asm`), and
the opcodes of those kernels and of foreign ones that the interpreter covers.

    python3 scripts/asm_sweep.py run [--only REGEX]          # every case at the odd shapes: PASS/FAIL
    python3 scripts/asm_sweep.py coverage --write docs/amdgcn-asm-coverage.md

A case is an example (or split-k / stream-k source) on one target with one pipeline: the
default pipeline of sgemm, hgemm, gemm_alpha_beta (its dims set by -D) and bf16gemm (hgemm with
bf16 inputs) on all five AMD targets, linear (a fused bias + gelu epilogue) on all five, fp8gemm on every target with FP8 (gfx942's FNUZ e4m3 as the
example declares it; gfx950 and gfx1201 its OCP e4m3: f8e4m3fn), the MX examples where their
pipeline is a matrix one (gfx950), sgemm's steps 1-7, split-k with atomics and with a workspace,
stream-k, and gemm_alpha_beta with its dims dynamic: the launcher gemmc.driver.dispatch writes
(the default, the idle-grid variant and, where the default vectorizes, the aligned-rows one; all
in one assembly file) on all five targets.  `run` checks C at 257x131x95 and 130x70x72 (MX: K a
multiple of 32; the dynamic launcher also at a grid that fills the GPU, which takes its default
kernel, and on RDNA with aligned rows, its aligned one) and exits 1 if any case fails; a case
whose assembly has one of LLVM's missed MFMA wait states (docs/amdgcn-asm.md) is listed as
LLVM-BUG, not as a failure.  `coverage` lists each kernel's opcodes (at the first shape), plus
the tutorial's three kernels on every target and the Triton matmul of tests/data/, and writes
the table docs/amdgcn-asm.md cites.
"""

from __future__ import annotations

import argparse
import pathlib
import re
import sys
import time
from typing import NamedTuple

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

AMD = ["gfx90a", "gfx942", "gfx950", "gfx1100", "gfx1201"]
SHAPES = [(257, 131, 95), (130, 70, 72)]
# the dynamic launcher at grids of at least its slots (the default's workgroups the GPU holds:
# gfx90a 220 of 128x128, gfx942 1520 of 64x128, gfx950 512 of 128x256, gfx1100 192 and gfx1201
# 128 of 128x128): its default kernel (odd rows) and, where it has one, its aligned one
FULL_GRID = {"gfx90a": [(1793, 2047, 17)], "gfx942": [(2497, 4863, 17)], "gfx950": [(3329, 4863, 17)],
             "gfx1100": [(1537, 2047, 17), (1536, 2048, 16)], "gfx1201": [(1153, 2047, 17), (1152, 2048, 16)]}
MX_SHAPES = [(257, 131, 96), (130, 70, 64)]
GEMM_AB = """kernel t {
  dim M, N, K
  A: f32[M, K]  B: f32[N, K]  C: f32[M, N]  alpha: f32  beta: f32
  C = alpha * A @ B.T + beta * C
}"""
ATTENTION = """kernel attention_scores {
  dim Bt = 3, M, N, K
  Q: f16[Bt, M, K]  Kt: f16[Bt, N, K]  S: f32[Bt, M, N]
  S = 0.125 * Q @ Kt.T
}"""  # examples/attention_scores.gemm with the sweep's dims: a batch of 3 along the grid's z
STEP3_SMALL = "gemm-to-kernel,lds-tiling{block-m=32 block-n=32 block-k=8},register-tiling{thread-m=2 thread-n=2}"
SPLIT = {
    "split-k atomic": f"{STEP3_SMALL},split-k{{factor=3 reduce=atomic}},double-buffer,vectorize{{width=4}}",
    "split-k workspace": f"{STEP3_SMALL},split-k{{factor=3 reduce=workspace}},double-buffer,vectorize{{width=4}}",
    "stream-k": f"{STEP3_SMALL},stream-k{{workgroups=5}},double-buffer,vectorize{{width=4}}",
}
TUTORIAL = {"matrix_multiply_naive.hip": ("matrix_multiply_naive", 16, 16),
            "matrix_multiply_lds.hip": ("matrix_multiply_lds", 16, 16),
            "matrix_multiply_register_tiling.hip": ("matrix_multiply_register_tiling", 128, 16)}
SEED = pathlib.Path("/work/shared/seed-reference")
TRITON = ROOT / "tests/data/triton_matmul_gfx942.s"


class Variant(NamedTuple):  # (not a dataclass: tests load this script without registering it)
    """An example with its element type edited (`old` -> `new` in its text); -D sets its dims as
    the example's."""
    example: str
    old: str
    new: str

    def text(self) -> str:
        return (ROOT / f"examples/{self.example}.gemm").read_text().replace(self.old, self.new)


BF16GEMM = Variant("hgemm", "f16[", "bf16[")
FP8_OCP = Variant("fp8gemm", "fnuz", "fn")  # gfx950 and gfx1201 have OCP's FP8, not AMD's FNUZ
FP8_AMAX_FNUZ = Variant("fp8_amax", "f8e4m3fn[", "f8e4m3fnuz[")  # gfx942's FNUZ e4m3 output


def cases():
    """(name, source: an example's path, a Variant or a program's text, arch, pipeline or None, shapes)."""
    for ex in ("sgemm", "hgemm", "gemm_alpha_beta"):
        for a in AMD:
            yield f"{ex} default", ROOT / f"examples/{ex}.gemm", a, None, SHAPES
    for a in AMD:
        yield "bf16gemm default", BF16GEMM, a, None, SHAPES
    for a in AMD:  # the fused epilogue: bias and gelu (exp, erf, division in LLVM's expansion)
        yield "linear default", ROOT / "examples/linear.gemm", a, None, SHAPES
    for a in AMD:  # requantization to i8: rintf, the clamp
        yield "int8_requant default", ROOT / "examples/int8_requant.gemm", a, None, SHAPES
    yield "fp8_amax default", FP8_AMAX_FNUZ, "gfx942", None, SHAPES  # an FP8 C and the amax's atomic max
    for a in ("gfx950", "gfx1201"):
        yield "fp8_amax default", ROOT / "examples/fp8_amax.gemm", a, None, SHAPES
    for a in AMD:  # the grouped GEMM: a walk over the group sizes, B's copies from the group's matrix
        yield "moe_grouped default", ROOT / "examples/moe_grouped.gemm", a, None, SHAPES
    yield "fp8gemm default", ROOT / "examples/fp8gemm.gemm", "gfx942", None, SHAPES
    for a in ("gfx950", "gfx1201"):
        yield "fp8gemm default", FP8_OCP, a, None, SHAPES
    for ex in ("mxfp4gemm", "mxfp6gemm", "mxfp8gemm"):
        yield f"{ex} default", ROOT / f"examples/{ex}.gemm", "gfx950", None, MX_SHAPES
    for s in range(1, 8):
        for a in AMD:
            yield f"sgemm step{s}", ROOT / "examples/sgemm.gemm", a, f"step{s}", SHAPES
    for name, pipe in SPLIT.items():
        for a in ("gfx942", "gfx1100", "gfx1201"):
            yield name, GEMM_AB, a, pipe, SHAPES
    for a in AMD:  # the batch: every batched pointer moved by blockIdx.z in clang's code
        yield "batched attention dynamic", ATTENTION, a, None, SHAPES
    for a in AMD:  # (a source text keeps its dims dynamic; no pipeline: the launcher)
        yield "dynamic launcher", GEMM_AB, a, None, SHAPES + FULL_GRID.get(a, [])


def module_for(src, arch, pipeline, shape):
    import gemmc

    dims = dict(zip("MNK", shape))
    if isinstance(src, pathlib.Path):
        module = gemmc.parse_file(str(src), defines=dims)
    elif isinstance(src, Variant):
        module = gemmc.parse(src.text(), f"{src.example}.gemm", defines=dims)
    else:
        module = gemmc.parse(src, "t.gemm")
    gemmc.lower(module, pipeline, arch)
    return module, dims


def check_case(src, arch: str, pipe, shape) -> tuple[str, str]:
    """(PASS, FAIL, ERROR or LLVM-BUG, what the run said) of one case at one shape."""
    from gemmc.amdgcn.interp.hazard_paths import LLVM_BUG
    from gemmc.driver import api
    from gemmc.support.diagnostics import GemmcError

    try:
        module, dims = module_for(src, arch, pipe, shape)
        r = api.check(module, arch, dims, level="asm")
    except GemmcError as e:
        return ("LLVM-BUG" if LLVM_BUG in e.message else "ERROR"), e.message
    line = r.summary().splitlines()[0]
    return ("PASS" if r.passed else "FAIL"), line[:110]


def run(only: str | None) -> int:
    tally: dict[str, int] = {}
    for name, src, arch, pipe, shapes in cases():
        if only and not re.search(only, f"{name} {arch}"):
            continue
        for shape in shapes:
            t = time.time()
            verdict, said = check_case(src, arch, pipe, shape)
            tally[verdict] = tally.get(verdict, 0) + 1
            said = said if verdict == "LLVM-BUG" else said.removeprefix(verdict + ": ")
            print(f"{name:23} {arch:8} {'x'.join(map(str, shape)):14} {verdict:8} {said}  ({time.time() - t:.0f} s)",
                  flush=True)
    failed = tally.get("FAIL", 0) + tally.get("ERROR", 0)
    print(", ".join(f"{n} {v}" for v, n in sorted(tally.items())) or "no case")
    return 1 if failed else 0


def _kernels():
    """(label, assembly path, text) of every kernel the coverage table is about."""
    import gemmc

    for name, src, arch, pipe, shapes in cases():
        module, _ = module_for(src, arch, pipe, shapes[0])
        yield f"{name} {arch}", f"<{name} {arch}>", gemmc.emit(module, arch, "asm")
    from gemmc.amdgcn.asm_front.foreign import compile_hip

    for hip in TUTORIAL:
        for a in AMD:
            yield f"tutorial {hip.removesuffix('.hip')} {a}", str(SEED / hip), compile_hip(str(SEED / hip), a)
    yield "triton matmul gfx942", str(TRITON), TRITON.read_text()


def kernel_opcodes(path: str, text: str) -> dict[str, tuple[int, str | None]]:
    """{mnemonic: (occurrences, None or why the interpreter cannot run it)} over a file's kernels."""
    from gemmc.amdgcn.asm_front.coverage import opcodes

    ops: dict = {}
    for kernel_ops in opcodes(path, text).values():
        for m, (n, why) in kernel_ops.items():
            c, w = ops.get(m, (0, None))
            ops[m] = (c + n, w or why)
    return ops


def table_row(label: str, n: int, covered: int, bad: list[str]) -> str:
    return f"| {label} | {n} | {covered} | {' '.join(bad) or '-'} |"


def coverage(write: str | None) -> int:
    rows, total, missing = [], {}, {}
    for label, path, text in _kernels():
        ops = kernel_opcodes(path, text)
        bad = sorted(m for m, (_, why) in ops.items() if why)
        rows.append((label, len(ops), len(ops) - len(bad), bad))
        for m, (n, why) in ops.items():
            total[m] = total.get(m, 0) + n
            if why:
                missing[m] = why
        print(f"{label:45} {len(ops) - len(bad):4} of {len(ops):4} opcodes covered {' '.join(bad)}", flush=True)
    covered = len(total) - len(missing)
    lines = ["# LLVM's AMDGCN opcodes the interpreter covers", "",
             "Written by `python3 scripts/asm_sweep.py coverage --write docs/amdgcn-asm-coverage.md`: each kernel's",
             "distinct opcodes (as clang-22 spells them, at the first shape of the sweep) and how many of them",
             "the assembly front reads into an op the interpreter has semantics for (docs/amdgcn-asm.md).", "",
             f"All kernels: {covered} of {len(total)} distinct opcodes covered "
             f"({100 * covered / max(1, len(total)):.0f}%).", "",
             "| kernel | opcodes | covered | not covered |", "|---|---|---|---|"]
    lines += [table_row(label, n, c, bad) for label, n, c, bad in rows]
    lines += ["", "## Every opcode, by occurrences over all kernels", "", "| opcode | occurrences | covered |",
              "|---|---|---|"]
    lines += [f"| `{m}` | {n} | {'no: ' + missing[m] if m in missing else 'yes'} |"
              for m, n in sorted(total.items(), key=lambda x: (-x[1], x[0]))]
    if write:
        (ROOT / write).write_text("\n".join(lines) + "\n")
    print(f"{covered} of {len(total)} opcodes covered")
    return 0 if not missing else 1


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--only", help="the cases whose 'name arch' matches this regex")
    c = sub.add_parser("coverage")
    c.add_argument("--write", help="write the table to this file (relative to the repository)")
    args = p.parse_args()
    return run(args.only) if args.cmd == "run" else coverage(args.write)


if __name__ == "__main__":
    sys.exit(main())
