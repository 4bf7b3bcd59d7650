"""Benchmark gemmc itself, per tutorial step: DSL -> HIP compile time, interpreter time.

    python3 benchmarks/steps.py [--sizes 256,512,1024] [--arch gfx942] [--json out.json]

Prints a table and writes JSON with the machine it ran on. This is a script, not a test:
timings depend on the machine and are recorded, not asserted.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import gemmc
from gemmc.interp import Stats

sys.path.insert(0, str(Path(__file__).resolve().parent))
from machine import machine as common_machine  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
STEPS = [f"step{i}" for i in range(1, 7)]


def machine() -> dict:
    import numpy

    return common_machine(numpy=numpy.__version__)


def compile_time(step: str, arch: str, repeats: int = 3) -> float:
    source = (ROOT / "examples" / "sgemm.gemm").read_text()
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        module = gemmc.parse(source, "sgemm.gemm")
        gemmc.lower(module, step, arch)
        gemmc.emit(module, arch, "hip")
        best = min(best, time.perf_counter() - t0)
    return best


def interp_time(step: str, arch: str, n: int) -> tuple[float, float, bool, Stats]:
    """(wall seconds, CPU seconds of this process, passed, counters) of `gemmc.check`.
    CPU time is what to compare across runs on a shared machine: other processes
    stretch the wall time, not this one's CPU time."""
    source = (ROOT / "examples" / "sgemm.gemm").read_text()
    module = gemmc.parse(source, "sgemm.gemm", defines={"M": n, "N": n, "K": n})
    gemmc.lower(module, step, arch)
    t0, c0 = time.perf_counter(), time.process_time()
    result = gemmc.check(module, arch)
    return time.perf_counter() - t0, time.process_time() - c0, result.passed, result.stats


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="256,512,1024")
    ap.add_argument("--arch", default="gfx942")
    ap.add_argument("--steps", default=",".join(STEPS))
    ap.add_argument("--json", default=str(ROOT / "benchmarks" / "results" / "steps.json"))
    args = ap.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    rows = []
    header = f"{'step':6} {'compile ms':>10} " + " ".join(f"{f'{n}^3 wall/cpu s':>16}" for n in sizes)
    print(header)
    print("-" * len(header))
    for step in args.steps.split(","):
        row = {"step": step, "compile_s": compile_time(step, args.arch), "interp": {}}
        cells = []
        for n in sizes:
            seconds, cpu, passed, stats = interp_time(step, args.arch, n)
            row["interp"][str(n)] = {"seconds": seconds, "cpu_seconds": cpu, "passed": passed,
                                     "stats": stats.as_dict()}
            cells.append(f"{seconds:6.2f} / {cpu:6.2f}{'' if passed else '!'}")
        rows.append(row)
        print(f"{step:6} {row['compile_s'] * 1e3:10.1f} " + " ".join(f"{c:>16}" for c in cells), flush=True)
    out = {"benchmark": "steps", "arch": args.arch, "machine": machine(), "rows": rows}
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    Path(args.json).write_text(json.dumps(out, indent=2) + "\n")
    print(f"\nwrote {args.json}  (interpreter seconds: wall / CPU of this process; '!' marks a FAIL)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
