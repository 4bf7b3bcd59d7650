#!/usr/bin/env python3
"""The larger sweep of legal programs (issue "Robustness round 3"): many programs of
tests/legal_programs.py's generator on every target, each through the default pipeline (what
`gemmc compile` and `gemmc run` do without -p) and the interpreter's check, and, with --host,
its emitted HIP's host side built.  Prints the count of programs per target and kind, and each
failure (a refusal, a FAIL, a host side that does not build) with its program; exits 1 on any.

    python3 scripts/legal_sweep.py --per-target 60            # 360 programs
    python3 scripts/legal_sweep.py --per-target 20 --host     # with the host-side builds
    python3 scripts/legal_sweep.py --targets gfx942 --seed 3

CI runs a few dozen of them (tests/test_legal_programs.py).
"""

from __future__ import annotations

import argparse
import collections
import sys
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from hypothesis import HealthCheck, given, seed, settings  # noqa: E402

import legal_programs as L  # noqa: E402


def sweep(target: str, count: int, host: bool, random_seed: int, failures: list[str],
          kinds: collections.Counter) -> int:
    """Run `count` programs for `target`; failures are appended, not raised.  Returns the count run."""
    ran = 0

    @seed(random_seed)
    @settings(max_examples=count, database=None, deadline=None, suppress_health_check=list(HealthCheck))
    @given(L.legal_programs(target))
    def one(case):
        nonlocal ran
        ran += 1
        kinds[(target, case.kind)] += 1
        try:
            L.run_default(case, host=host)
        except AssertionError as e:
            failures.append(f"{target}: {e}")

    one()
    return ran


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--per-target", type=int, default=50, help="programs per target (default 50)")
    parser.add_argument("--targets", nargs="*", default=list(L.TARGETS), help="default: all six")
    parser.add_argument("--host", action="store_true", help="also build each program's host side")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    failures: list[str] = []
    kinds: collections.Counter = collections.Counter()
    start = time.time()
    total = 0
    for target in args.targets:
        total += sweep(target, args.per_target, args.host, args.seed, failures, kinds)
        print(f"{target}: {sum(v for (t, _), v in kinds.items() if t == target)} programs, "
              f"{sum(f.startswith(target + ':') for f in failures)} failures ({time.time() - start:.0f} s)", flush=True)
    for (target, kind), n in sorted(kinds.items()):
        print(f"  {target:8} {kind:16} {n}")
    for f in failures:
        print(f"\nFAILURE {f}")
    print(f"\n{total} programs on {len(args.targets)} targets ({', '.join(args.targets)})"
          f"{', host sides built' if args.host else ''}: {len(failures)} failures, {time.time() - start:.0f} s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
