"""CU mode for gemmc's RDNA defaults (issue #35, deliverable 5): gemmc's default kernel for an
example at 4096^3, compiled by clang as gemmc compiles it (WGP mode, RDNA's default) and with
`-mcumode` (each workgroup on one CU of a WGP, with that CU's 64 KB of LDS: RDNA3 ISA guide,
"WGP and CU Mode"), both timed by the ISA-level model (gemmc.amdgcn.timing; the descriptor's
`.amdhsa_workgroup_processor_mode` tells it the mode).

    python3 benchmarks/cu_mode.py [--arch gfx1100 gfx1201] [--example hgemm sgemm]

A default is worth switching only where CU mode is predicted faster by more than the model's
validated error on the published RDNA rows (benchmarks/isa_validation.json, written by
validate_isa.py): the larger of the worst single row's factor (max(r, 1/r) of its ratio) and the
worst factor between a WGP-mode and a CU-mode row's ratios (the model's error on exactly this
comparison, seb-v's kernels 1-4 against 5-8).  The script prints the numbers and that verdict;
it changes nothing.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

JSON = ROOT / "benchmarks" / "isa_validation.json"
DIMS = {"M": 4096, "N": 4096, "K": 4096}


def validated_error(arch: str, rows: list[dict] | None = None) -> tuple[float, str]:
    """(factor, what it is) of the ISA-level model's error on the published rows of `arch`."""
    rows = [r for r in (rows if rows is not None else json.loads(JSON.read_text())["rows"]) if r["arch"] == arch]
    if not rows:
        return float("inf"), f"no published {arch} rows"
    worst = max(rows, key=lambda r: max(r["ratio"], 1 / r["ratio"]))
    single = max(worst["ratio"], 1 / worst["ratio"])
    wgp = [r["ratio"] for r in rows if not r.get("cu_mode")]
    cu = [r["ratio"] for r in rows if r.get("cu_mode")]
    pair = max((max(c / w, w / c) for c in cu for w in wgp), default=1.0)
    if pair > single:
        return pair, "worst CU-mode row's ratio against a WGP-mode row's"
    return single, f"{worst['key']}'s ratio {worst['ratio']:.2f}"


def predict(example: str, arch: str) -> dict[str, float]:
    """ms of gemmc's default for the example in WGP mode and in CU mode (ISA-level model)."""
    from gemmc.driver.api import lower
    from gemmc.driver.asm_level import explain_asm
    from gemmc.driver.source import parse_file
    from gemmc.emit import emit_hip
    from gemmc.target.arch import as_arch
    from gemmc.target.toolchain import compile_device

    module = lower(parse_file(str(ROOT / "examples" / f"{example}.gemm"), DIMS, arch), None, arch)
    hip = emit_hip(module, as_arch(arch))
    out = {}
    for mode, flags in (("WGP", []), ("CU", ["-mcumode"])):
        text = compile_device(hip, arch, "asm", extra_flags=flags)
        out[mode] = explain_asm(module, arch, DIMS, text=text).time_s * 1e3
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--arch", nargs="+", default=["gfx1100", "gfx1201"])
    ap.add_argument("--example", nargs="+", default=["hgemm", "sgemm"])
    args = ap.parse_args(argv)
    err, why = validated_error("gfx1100")  # (the published RDNA rows: seb-v's, on gfx1100)
    print(f"validated error on the published RDNA rows: {err:.2f}x ({why})")
    print("| example | arch | WGP mode ms | CU mode ms | CU speed-up | switch |")
    print("|---|---|---|---|---|---|")
    for arch in args.arch:
        for ex in args.example:
            t = predict(ex, arch)
            gain = t["WGP"] / t["CU"]
            print(f"| {ex} | {arch} | {t['WGP']:.3f} | {t['CU']:.3f} | {gain:.3f} | "
                  f"{'yes' if gain > err else 'no'} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
