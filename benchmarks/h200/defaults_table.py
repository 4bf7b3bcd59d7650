"""sm_90's 16-bit selections side by side, from a device run of `matrix.py defaults`' programs.

    python3 benchmarks/h200/matrix.py defaults .h200/d                        # here: the programs
    OUT=h200-out SKIP_PEERS=1 bash benchmarks/h200/matrix.sh .h200/d          # on the GPU
    for f in matrix.jsonl matrix_log.txt matrix_manifest.json; do cp h200-out/$f benchmarks/h200/raw/${f/matrix/NAME}; done
    python3 benchmarks/h200/defaults_table.py benchmarks/h200/raw NAME        # here: NAME.{json,md} beside raw/

One row per (type, shape), one column per variant of the manifest (`selected`: what `gemmc compile --arch
sm_90` runs; `selected_no_tma`, `mma_sync_selected`: the selections around the older defaults; a variant
whose pipeline equals another's at that shape is listed under `same_as` and shares its time).  % of cuBLAS
is cuBLAS's median time / gemmc's, both from the same program (the same launch sizes, checked against
cuBLAS first), so each row is its own baseline; the geometric means are over the f16 shapes of issue #38's
suite.  Runs kept (NAME): matrix_tma_selection (the selection with tma-copies added, beside it without).
tests/test_h200_defaults_table.py checks that each committed table is this rendering of its raw files.
"""
from __future__ import annotations

import json
import math
import sys
from pathlib import Path

def _geomean(xs: list[float]) -> float:
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")


def _results(raw: Path, name: str) -> tuple[dict, dict]:
    manifest = json.loads((raw / f"{name}_manifest.json").read_text())
    runs = {(r["type"], r["shape"], r["variant"]): r.get("result")
            for r in map(json.loads, (raw / f"{name}.jsonl").read_text().splitlines()) if r}
    for alias in manifest.get("same_as", []):  # a selection equal to another of its shape was built once
        runs[(alias["type"], alias["shape"], alias["variant"])] = runs.get((alias["type"], alias["shape"], alias["same_as"]))
    return manifest, runs


def render(raw: Path, name: str) -> tuple[dict, str]:
    manifest, runs = _results(raw, name)
    variants = list(dict.fromkeys(p["variant"] for p in manifest["programs"]))
    keys = list(dict.fromkeys((p["type"], p["shape"]) for p in manifest["programs"]))
    rows = [{"type": t, "shape": s, **{v: runs.get((t, s, v)) for v in variants}} for t, s in keys]
    summary = {}
    for t in dict.fromkeys(t for t, _ in keys):
        summary[t] = {v: {"geomean_pct_of_cublas": _geomean([r[v]["pct_of_cublas"] for r in rows if r["type"] == t and r[v]]),
                          "ran": sum(1 for r in rows if r["type"] == t and r[v]),
                          "all_checked": all(r[v]["passed"] for r in rows if r["type"] == t and r[v])} for v in variants}
    log = (raw / f"{name}_log.txt").read_text().strip()
    return {"machine": log, "variants": variants, "rows": rows, "summary": summary}, _markdown(name, rows, variants, summary, log)


def _cell(x: dict | None) -> str:
    return "-" if not x else f"{x['gemmc_ms']:.3f} ({x['pct_of_cublas']:.0f}%{'' if x['passed'] else ' FAIL'})"


def _markdown(name: str, rows: list[dict], variants: list[str], summary: dict, log: str) -> str:
    lines = ["# sm_90's 16-bit selections against cuBLAS, one device call", "",
             f"Written by `benchmarks/h200/defaults_table.py raw {name}` from `raw/{name}.jsonl` and",
             f"`raw/{name}_manifest.json` (each variant's pipeline, and why the selection took it). A cell: gemmc's",
             "median ms (cuBLAS's median time / gemmc's, in the same program, after checking C against cuBLAS:",
             "FAIL where it did not match). cuBLAS ms: its median in the first column's program. Geometric means",
             "over the shapes of the table that ran.", "",
             "| type | shape | " + " | ".join(variants) + " | cuBLAS ms |", "|---|---|" + "---|" * (len(variants) + 1)]
    for r in rows:
        cublas = next((r[v]["cublas_ms"] for v in variants if r[v]), None)
        lines.append(f"| {r['type']} | {r['shape']} | " + " | ".join(_cell(r[v]) for v in variants)
                     + f" | {'-' if cublas is None else f'{cublas:.3f}'} |")
    lines += ["", "| type | " + " | ".join(f"{v}: geomean % of cuBLAS" for v in variants) + " |",
              "|---|" + "---|" * len(variants)]
    for t, s in summary.items():
        lines.append(f"| {t} | " + " | ".join(f"{s[v]['geomean_pct_of_cublas']:.1f} ({s[v]['ran']} shapes, "
                                            f"{'all PASS' if s[v]['all_checked'] else 'not all PASS'})" for v in variants) + " |")
    return "\n".join(lines + ["", "Machine:", "", "```", log, "```", ""])


if __name__ == "__main__":
    raw, name = Path(sys.argv[1]), sys.argv[2]
    data, text = render(raw, name)
    (raw.parent / f"{name}.json").write_text(json.dumps(data, indent=1) + "\n")
    (raw.parent / f"{name}.md").write_text(text)
    print(text)
