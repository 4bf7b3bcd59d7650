"""The two timing models on gemmc's defaults (issue #35): the IR-level one (gemmc.cost, what tune and
the selection use; with clang's registers and K loop) against the ISA-level one (gemmc.amdgcn.timing,
`gemmc explain --level asm`), hgemm and sgemm at 4096^3 and 4097x4095x1023 on every AMD target; with
--selection, each of the selection's candidates at those problems timed by both, and whether the
ISA-level model's fastest is the one the selection chose.

    python3 benchmarks/ir_vs_isa.py [--arch gfx1100 gfx1201] [--kernels hgemm sgemm] [--selection] [--json OUT]

Each row a few seconds on 2 cores (the ISA-level model traces a sample of the launch).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import gemmc
from gemmc.cost.compiled import predict_module
from gemmc.driver.asm_level import explain_asm
from gemmc.driver.lowering import lower_with
from gemmc.driver.selection import select_pipeline
from gemmc.target.arch import get_arch

ROOT = Path(__file__).resolve().parents[1]
ARCHS = ("gfx90a", "gfx942", "gfx950", "gfx1100", "gfx1201")
SHAPES = {"4096^3": (4096, 4096, 4096), "4097x4095x1023": (4097, 4095, 1023)}


def both(src: str, name: str, arch, dims: dict, pipeline: str | None):
    """(IR-level prediction, ISA-level prediction, the pipeline) of the source lowered by `pipeline`
    (None: the selection's)."""
    module = gemmc.parse(src, f"{name}.gemm", dims)
    if pipeline is None:
        gemmc.lower(module, None, arch)
    else:
        lower_with(module, pipeline, arch)
    return predict_module(module, arch, dims, None), explain_asm(module, arch, dims)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--arch", nargs="+", default=list(ARCHS))
    ap.add_argument("--kernels", nargs="+", default=["hgemm", "sgemm"])
    ap.add_argument("--selection", action="store_true", help="time every candidate of the selection too")
    ap.add_argument("--json", help="write the rows here")
    args = ap.parse_args(argv)
    rows = []
    print("| arch | kernel | problem | IR-level ms (bound) | ISA-level ms (bound) | ISA / IR |\n|---|---|---|---|---|---|")
    for a in args.arch:
        arch = get_arch(a)
        for name in args.kernels:
            src = (ROOT / "examples" / f"{name}.gemm").read_text()
            for shape, mnk in SHAPES.items():
                dims = dict(zip("MNK", mnk))
                ir, isa = both(src, name, arch, dims, None)
                r = {"arch": a, "kernel": name, "shape": shape, "ir_ms": ir.time_s * 1e3, "ir_bound": ir.bound,
                     "isa_ms": isa.time_s * 1e3, "isa_bound": isa.main.bound, "ratio": isa.time_s / ir.time_s}
                print(f"| {a} | {name} | {shape} | {r['ir_ms']:.3f} ({ir.bound}) | {r['isa_ms']:.3f} ({isa.main.bound}) "
                      f"| {r['ratio']:.2f} |", flush=True)
                if args.selection:
                    choice = select_pipeline(gemmc.parse(src, f"{name}.gemm", dims), arch)
                    cands = {}
                    for label, spec in choice.pipelines.items():
                        i, s = both(src, name, arch, dims, spec)
                        cands[label] = {"ir_ms": i.time_s * 1e3, "isa_ms": s.time_s * 1e3, "chosen": spec == choice.pipeline}
                    best = min(cands, key=lambda k: cands[k]["isa_ms"])
                    chosen = next(k for k, c in cands.items() if c["chosen"])
                    r.update(candidates=cands, chosen=chosen, isa_fastest=best)
                    print(f"|   selection: {chosen}; ISA-level fastest: {best} "
                          f"({'agree' if best == chosen else 'disagree'}) | | | | | |", flush=True)
                rows.append(r)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
