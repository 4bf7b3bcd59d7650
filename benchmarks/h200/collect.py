"""Turn the H200 run's raw output (benchmarks/h200/raw/) into results.json and results.md."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from configs import STEPS, TUNED  # noqa: E402

HERE = Path(__file__).resolve().parent


def tutorial_rows() -> list[dict]:
    """vs_tutorial.py's measurements: gemmc's and the tutorial's kernel in one program."""
    path = HERE / "raw" / "vs_tutorial.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines() if line.startswith("{")] if path.exists() else []


def load() -> tuple[list[dict], dict, list[dict]]:
    rows = []
    for line in (HERE / "raw" / "bench.jsonl").read_text().splitlines():
        rec = json.loads(line)
        m = re.fullmatch(r"bench_(.+)_(\d+)", rec["program"])
        if m and "result" in rec:
            rows.append({"name": m.group(1), "n": int(m.group(2)), **rec["result"]})
    log = (HERE / "raw" / "log.txt").read_text().splitlines()
    machine = {"date": log[0], "gpu": log[2], "nvcc": log[3].strip()}
    san = []
    text = (HERE / "raw" / "sanitizer.txt").read_text()
    for block in re.split(r"^== ", text, flags=re.M)[1:]:
        name = block.splitlines()[0].strip()
        san.append({"program": name, "clean": "ERROR SUMMARY: 0 errors" in block, "checked": "PASSED" in block})
    return rows, machine, san


INPLACE_RUNS = {
    "inplace_double_buffer": "double-buffer became multi-buffer{factor=2} + pipeline{stages=2}, in place; "
                             "its prologue still had `0 * 16` for k0, which later builds fold",
    "inplace_registers": "double-buffer{stage=registers} in place too (the prefetched copies staged through "
                         "registers); `tuned-h200` is the default sm_90 pipeline",
    "inplace_lds_tiling": "lds-tiling in place as well (the kernel's own ids are used; they are declared in "
                          "another order)",
}


def inplace_section(rows: list[dict]) -> list[str]:
    """Issue 13's checks that the in-place double-buffer keeps the speed: the kernels before
    (`old_`) and after each change, built and run in one session, against the table above."""
    table = {(r["name"], r["n"]): r["gemmc_tflops"] for r in rows}
    md = []
    for stem, what in INPLACE_RUNS.items():
        path = HERE / "raw" / f"{stem}.jsonl"
        if not path.exists():
            continue
        runs = {}
        for line in path.read_text().splitlines():
            rec = json.loads(line)
            m = re.fullmatch(r"bench_(old_)?(.+)_(\d+)", rec["program"])
            if m and "result" in rec:
                runs[(bool(m.group(1)), m.group(2), int(m.group(3)))] = rec["result"]
        log = (HERE / "raw" / f"{stem}_log.txt").read_text().splitlines()
        san = (HERE / "raw" / f"{stem}_sanitizer.txt").read_text()
        md += ["", f"## Issue 13: {what}", "",
               f"Measured {log[0]} on {log[2]}. `before` is the kernel of eeed638 (before issue 13's in-place passes), built and run",
               "in the same session as `after`.", "",
               "| pipeline | n | before TFLOP/s | after TFLOP/s | after / before | after / table above |",
               "|---|---|---|---|---|---|"]
        for (old, name, n), r in sorted(runs.items(), key=lambda kv: (kv[0][1], kv[0][2], kv[0][0])):
            if old:
                continue
            before = runs.get((True, name, n))
            ref = table.get((name.replace("tuned-h200", "tuned_128x128x16_8x8"), n))
            after = r["gemmc_tflops"]
            b = f"{before['gemmc_tflops']:.2f}" if before else ""
            ratio = f"{after / before['gemmc_tflops']:.3f}" if before else ""
            vs_ref = f"{after / ref:.3f}" if ref else ""
            md.append(f"| {name} | {n} | {b} | {after:.2f} | {ratio} | {vs_ref} |")
        repeat = HERE / "raw" / f"{stem}_repeat.jsonl"
        if repeat.exists():  # the same two kernels again, alternating old and new, one session
            by = {"old": [], "new": []}
            for line in repeat.read_text().splitlines():
                rec = json.loads(line)
                m = re.fullmatch(r"bench_[a-z]_(old|new)_\d+", rec["program"])
                if m and "result" in rec:
                    by[m.group(1)].append(f"{rec['result']['gemmc_tflops']:.2f}")
            md += ["", f"tuned-h200 at 4096^3 again, old and new alternating: old {', '.join(by['old'])}; "
                   f"new {', '.join(by['new'])} TFLOP/s."]
        programs = re.findall(r"^== (\S+)", san, flags=re.M)
        md += ["", f"compute-sanitizer memcheck ({', '.join(programs)}): "
               f"{san.count('ERROR SUMMARY: 0 errors')} of {len(programs)} programs with 0 errors."]
    return md


def main() -> None:
    rows, machine, san = load()
    versus = tutorial_rows()
    tutorial = {r["variant"]: r["tutorial_tflops"] for r in versus}  # 4096^3, same program as gemmc's
    pipelines = {s: s for s in STEPS} | TUNED
    best = max((r for r in rows if r["n"] == 4096), key=lambda r: r["gemmc_tflops"])
    out = {"machine": machine, "pipelines": pipelines, "results": rows, "sanitizer": san,
           "best_4096": {"name": best["name"], "pipeline": pipelines[best["name"]],
                         "tflops": best["gemmc_tflops"], "pct_of_cublas": best["pct_of_cublas"]}}
    (HERE / "results.json").write_text(json.dumps(out, indent=1) + "\n")
    md = ["# gemmc on an NVIDIA H200 (sm_90)", "",
          f"Measured {machine['date']} on {machine['gpu']}; {machine['nvcc']}.",
          "Median of 20 timed runs after 3 warm-ups (CUDA events), inputs rotated across enough sets",
          "to exceed 4x the L2; C checked against cuBLAS SGEMM with CUBLAS_PEDANTIC_MATH (FP32, no TF32).",
          "", "| pipeline | n | gemmc ms | gemmc TFLOP/s | cuBLAS TFLOP/s | % of cuBLAS | tutorial's kernel TFLOP/s | check |",
          "|---|---|---|---|---|---|---|---|"]
    for r in sorted(rows, key=lambda r: (list(pipelines).index(r["name"]), r["n"])):
        tut = tutorial.get(r["name"]) if r["n"] == 4096 else None
        md.append(f"| {r['name']} | {r['n']} | {r['gemmc_ms']:.3f} | {r['gemmc_tflops']:.2f} | {r['cublas_tflops']:.2f} | "
                  f"{r['pct_of_cublas']:.1f} | {f'{tut:.2f}' if tut else ''} | {'PASS' if r['passed'] else 'FAIL'} |")
    md += ["", f"Best at 4096^3: `{best['name']}` = `{pipelines[best['name']]}`: "
           f"{best['gemmc_tflops']:.1f} TFLOP/s, {best['pct_of_cublas']:.1f}% of cuBLAS.", "",
           "compute-sanitizer memcheck (harness programs, C checked against a float64 reference on samples):", ""]
    md += [f"- {s['program']}: {'0 errors' if s['clean'] else 'ERRORS'}, check {'PASSED' if s['checked'] else 'FAILED'}" for s in san]
    if versus:
        md += ["", "## Against the tutorial's kernels, in one program (vs_tutorial.py)", "",
               "Each program times gemmc's kernel and the tutorial's kernel of the same step on the same",
               "buffers, alternating, 8 rounds of the average of 10 launches (4096^3, one input set); medians.",
               "The `step1_unroll*` and `step5_vectorize_b` rows are the alternatives that were measured and lost.", "",
               "| variant | gemmc pipeline | gemmc TFLOP/s | tutorial TFLOP/s | gemmc / tutorial | max abs diff of C |",
               "|---|---|---|---|---|---|"]
        md += [f"| {r['variant']} | `{r['pipeline']}` | {r['gemmc_tflops']:.3f} | {r['tutorial_tflops']:.3f} | "
               f"{r['gemmc_tflops'] / r['tutorial_tflops']:.3f} | {r['max_abs_diff']:.3g} |" for r in versus]
    md += inplace_section(rows)
    (HERE / "results.md").write_text("\n".join(md) + "\n")
    print("\n".join(md))


if __name__ == "__main__":
    main()
