#!/usr/bin/env python3
"""What gemmc writes for every example on every target, to compare two trees byte for byte.

    python3 scripts/same_outputs.py dump DIR        # run the CLI, one file per case in DIR
    python3 scripts/same_outputs.py compare A B     # exit 1, naming the cases, if they differ
    python3 scripts/same_outputs.py dump DIR --only '\.gcn\.s$'   # the cases whose name matches
    python3 scripts/same_outputs.py compare A B --subset          # only the cases B has

A case is a CLI command on one example and one arch: the default pipeline's HIP (with and
without --harness), its IR, its assembly through LLVM (--emit asm), gemmc's own backend's
(--emit gcn), `gemmc explain`'s table and JSON, and sgemm's and hgemm's HIP after each named
step.  What a case writes is its exit status, stdout and stderr, so a refusal must stay the same
refusal.  It goes through the CLI, not the Python API, so that a reorganised package is
compared on what users see (issue "The house by level").
"""

from __future__ import annotations

import argparse
import os
import pathlib
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

ROOT = pathlib.Path(__file__).resolve().parent.parent
AMD = ["gfx90a", "gfx942", "gfx950", "gfx1100", "gfx1201"]
ARCHS = AMD + ["sm_90"]
STEPS = [f"step{i}" for i in range(1, 8)]


def cases() -> dict[str, list[str]]:
    """{case name: gemmc arguments}."""
    out = {}
    for example in sorted((ROOT / "examples").glob("*.gemm")):
        rel = str(example.relative_to(ROOT))
        for arch in ARCHS:
            base = f"{example.stem}.{arch}"
            out[f"{base}.hip"] = ["compile", rel, "--arch", arch]
            out[f"{base}.harness.hip"] = ["compile", rel, "--arch", arch, "--harness"]
            out[f"{base}.mlir"] = ["compile", rel, "--arch", arch, "--emit", "mlir"]
            out[f"{base}.explain"] = ["explain", rel, "--arch", arch]
            out[f"{base}.explain.json"] = ["explain", rel, "--arch", arch, "--json"]
            if arch in AMD:
                out[f"{base}.s"] = ["compile", rel, "--arch", arch, "--emit", "asm"]
                out[f"{base}.gcn.s"] = ["compile", rel, "--arch", arch, "--emit", "gcn"]
            if example.stem in ("sgemm", "hgemm"):
                for step in STEPS:
                    out[f"{base}.{step}.hip"] = ["compile", rel, "--arch", arch, "-p", step]
    return out


def run_case(args: list[str]) -> bytes:
    gemmc = [sys.executable, "-c", "from gemmc.driver.cli import main; raise SystemExit(main())"]
    p = subprocess.run(gemmc + args, cwd=ROOT, capture_output=True, env={**os.environ, "PYTHONHASHSEED": "0"})
    return b"exit %d\n-- stdout\n%s\n-- stderr\n%s" % (p.returncode, p.stdout, p.stderr)


def dump(directory: pathlib.Path, jobs: int, only: str | None = None) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    todo = {n: a for n, a in cases().items() if only is None or re.search(only, n)}
    with ThreadPoolExecutor(jobs) as pool:
        for name, text in zip(todo, pool.map(run_case, todo.values())):
            (directory / name).write_bytes(text)
    print(f"{len(todo)} cases in {directory}")


def compare(a: pathlib.Path, b: pathlib.Path, subset: bool = False) -> int:
    names = sorted({p.name for p in b.iterdir()} | (set() if subset else {p.name for p in a.iterdir()}))
    differ = [n for n in names if not (a / n).exists() or not (b / n).exists()
              or (a / n).read_bytes() != (b / n).read_bytes()]
    for n in differ:
        print(f"differs: {n}")
    print(f"{len(names) - len(differ)} of {len(names)} cases byte for byte the same")
    return 1 if differ else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="command", required=True)
    d = sub.add_parser("dump")
    d.add_argument("directory", type=pathlib.Path)
    d.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    d.add_argument("--only", metavar="REGEX", help="the cases whose name matches")
    c = sub.add_parser("compare")
    c.add_argument("a", type=pathlib.Path)
    c.add_argument("b", type=pathlib.Path)
    c.add_argument("--subset", action="store_true", help="compare only the cases B has")
    args = ap.parse_args()
    if args.command == "dump":
        dump(args.directory, args.jobs, args.only)
        return 0
    return compare(args.a, args.b, args.subset)


if __name__ == "__main__":
    raise SystemExit(main())
