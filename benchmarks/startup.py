"""Benchmark gemmc's start-up: `gemmc compile` of a kernel against clang compiling the HIP it emits.

    python3 benchmarks/startup.py [--runs 5] [--arch gfx942] [--kernel examples/sgemm.gemm] [--json out.json]

Each command runs as a fresh process --runs times; the table gives the median wall time and the
median CPU time (user + system of the process and its children). Beside the two it compares it
times what bounds gemmc from below: Python starting, Python importing xDSL's builtin dialect
(which every gemmc command needs), and `gemmc --help`. clang compiles the emitted HIP to
assembly with the flags gemmc.target.toolchain uses for `--emit asm`.

Prints a table and writes JSON with the machine it ran on, its load average included. This is a
script, not a test: on a shared machine the wall times stretch with the other processes' load
(compare the CPU times), and nothing here is asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from machine import machine as common_machine  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def gemmc_command() -> list[str]:
    """The gemmc of the Python running this script (a venv's, when run from one)."""
    script = Path(sys.executable).parent / "gemmc"
    return [str(script)] if script.exists() else [sys.executable, "-m", "gemmc.driver.cli"]


def clang_command(hip: Path, asm: Path, arch_name: str) -> tuple[list[str], str]:
    """The device-only compile `gemmc compile --emit asm` runs, and clang's version line."""
    from gemmc.target.arch import get_arch
    from gemmc.target.toolchain import _cuid, device_flags, find_toolchain

    arch, tc = get_arch(arch_name), find_toolchain()
    flags = device_flags(arch, tc) + [_cuid(hip.read_text())]
    version = subprocess.run([tc.clang, "--version"], capture_output=True, text=True).stdout.splitlines()
    return [tc.clang, *flags, "-S", str(hip), "-o", str(asm)], (version[0] if version else tc.clang)


def timed(cmd: list[str], runs: int) -> dict:
    """Median wall and CPU seconds of `runs` fresh runs of cmd (output discarded)."""
    walls, cpus = [], []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        walls.append(time.perf_counter() - t0)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if proc.returncode != 0:
            raise SystemExit(f"error: {' '.join(cmd)} failed ({proc.returncode}): {proc.stderr.strip()}")
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return {"command": cmd, "runs": runs, "wall_s": statistics.median(walls), "cpu_s": statistics.median(cpus),
            "wall_all_s": walls, "cpu_all_s": cpus}


def machine(clang: str) -> dict:
    return common_machine(clang=clang)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=5, help="runs per command; the median is reported (default 5)")
    ap.add_argument("--arch", default="gfx942")
    ap.add_argument("--kernel", default=str(ROOT / "examples" / "sgemm.gemm"))
    ap.add_argument("--json", default=str(ROOT / "benchmarks" / "results" / "startup.json"))
    args = ap.parse_args(argv)
    if args.runs < 1:
        ap.error("--runs must be at least 1")
    with tempfile.TemporaryDirectory(prefix="gemmc-startup-") as tmp:
        hip, asm = Path(tmp) / "k.hip", Path(tmp) / "k.s"
        compile_cmd = [*gemmc_command(), "compile", args.kernel, "--arch", args.arch, "-o", str(hip)]
        subprocess.run(compile_cmd, check=True)  # the HIP that clang compiles below
        clang_cmd, clang_version = clang_command(hip, asm, args.arch)
        info = machine(clang_version)
        commands = {
            "gemmc compile": compile_cmd,
            "clang -S (its output)": clang_cmd,
            "python (nothing)": [sys.executable, "-c", "pass"],
            "python import xdsl builtin": [sys.executable, "-c", "import xdsl.dialects.builtin"],
            "gemmc --help": [*gemmc_command(), "--help"],
        }
        rows = {name: timed(cmd, args.runs) for name, cmd in commands.items()}
    info["load_average_after"] = os.getloadavg()

    print(f"{'command':28} {'wall s':>8} {'CPU s':>8}   (median of {args.runs}; {info['cpu']}, "
          f"{info['cores']} cores, load {info['load_average'][0]:.1f})")
    for name, r in rows.items():
        print(f"{name:28} {r['wall_s']:8.3f} {r['cpu_s']:8.3f}")
    g, c = rows["gemmc compile"], rows["clang -S (its output)"]
    print(f"\ngemmc compile / clang: {g['wall_s'] / c['wall_s']:.2f}x wall, {g['cpu_s'] / c['cpu_s']:.2f}x CPU")

    out = {"benchmark": "startup", "arch": args.arch, "kernel": os.path.relpath(args.kernel, ROOT),
           "machine": info, "rows": rows}
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    from gemmc import write_output

    write_output(args.json, json.dumps(out, indent=2) + "\n")
    print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
