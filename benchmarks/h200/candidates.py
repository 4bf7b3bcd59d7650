"""Does the cost model rank the selection's candidates as the H200 does?

    python3 benchmarks/h200/candidates.py gen .h200/candidates        # here: every candidate as a program
    OUT=h200-out NAME=candidates SKIP_TRITON=1 bash benchmarks/h200/shapes.sh .h200/candidates   # on the H200
    python3 benchmarks/h200/candidates.py collect benchmarks/h200/raw  # here: candidates.md and .json

For the shapes of shapes.py whose grid leaves the H200's SMs idle, every candidate that
gemmc.driver.selection weighs (tiles, split-k, stream-k), with the tile candidates widened to TILES, is
built as a gemmc.driver.bench program (checked against cuBLAS, then timed). The table sets the model's
prediction beside the measured time, per candidate, and says whether the model's pick is the
measured best.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from shapes import SHAPES, source  # noqa: E402

CANDIDATE_SHAPES = ("sq512", "sq1024", "deep_k", "deep_k_4_tiles", "deeper_k", "sq2048", "odd")
TILES = ((64, 64, 4, 4), (64, 64, 8, 8), (128, 64, 8, 4), (64, 128, 4, 8), (32, 32, 4, 4))


def gen(out: Path) -> None:
    import gemmc
    from gemmc.driver import selection
    from gemmc.target.arch import get_arch
    from gemmc.driver.bench import bench_source
    from gemmc.cost.model import predict

    sm90 = get_arch("sm_90")
    selection.SMALL_TILES = TILES
    out.mkdir(parents=True, exist_ok=True)
    manifest = {"shapes": {}, "programs": []}
    for name in CANDIDATE_SHAPES:
        shape = SHAPES[name]
        choice = selection.select_pipeline(gemmc.parse(source(*shape)), sm90)
        entry = {"shape": shape, "chosen": choice.reason, "candidates": {}}
        for i, (label, pipeline) in enumerate(choice.pipelines.items()):
            module = gemmc.lower(gemmc.parse(source(*shape)), pipeline, sm90)
            f = out / f"shape_{name}_c{i}.cu"
            f.write_text(bench_source(module, sm90, {}, repeats=20))
            entry["candidates"][f"c{i}"] = {"label": label, "pipeline": pipeline,
                                            "predicted_ms": predict(module, sm90).time_s * 1e3}
            manifest["programs"].append({"shape": name, "variant": f"c{i}", "file": f.name})
        manifest["shapes"][name] = entry
        print(name, len(entry["candidates"]), "candidates", flush=True)
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1))
    print(f"{len(manifest['programs'])} programs in {out}")


def collect(raw: Path) -> None:
    manifest = json.loads((raw / "candidates_manifest.json").read_text())
    measured = {}
    for line in (raw / "candidates.jsonl").read_text().splitlines():
        r = json.loads(line)
        measured[(r["shape"], r["variant"])] = r.get("result")
    lines = ["# The selection's candidates on the H200: predicted against measured",
             "", "Written by `benchmarks/h200/candidates.py collect` from `raw/candidates.jsonl` (machine below).",
             "Every candidate gemmc.driver.selection weighs for the shapes whose grid leaves SMs idle, tile candidates",
             f"widened to {', '.join(f'{a}x{b} ({c}x{d})' for a, b, c, d in TILES)}. % = cuBLAS time / its time x 100.",
             "`model pick` is the candidate with the lowest prediction, `best` the fastest measured.", ""]
    rows = []
    for name, entry in manifest["shapes"].items():
        lines += [f"## {name} {'x'.join(map(str, entry['shape'][:3]))}", "",
                  "| candidate | predicted ms | measured ms | % of cuBLAS |", "|---|---|---|---|"]
        cands = []
        for v, c in entry["candidates"].items():
            r = measured.get((name, v))
            ms = r["gemmc_ms"] if r and r.get("passed") else None
            pct = 100 * r["cublas_ms"] / ms if ms else None
            cands.append((c["label"], c["predicted_ms"], ms, pct))
            rows.append({"shape": name, **c, "measured_ms": ms, "pct_of_cublas": pct})
        pick = min(cands, key=lambda x: x[1])
        best = min((x for x in cands if x[2]), key=lambda x: x[2], default=None)
        for label, pred, ms, pct in sorted(cands, key=lambda x: x[1]):
            tag = " (model pick)" if label == pick[0] else ""
            tag += " (best)" if best and label == best[0] else ""
            lines.append(f"| {label}{tag} | {pred:.4f} | {ms and f'{ms:.4f}' or 'FAILED'} | "
                         f"{pct and f'{pct:.0f}' or '-'} |")
        lines.append("")
    log = raw / "candidates_log.txt"
    lines += ["Machine:", "", "```", log.read_text().strip() if log.exists() else "", "```", ""]
    (raw.parent / "candidates.md").write_text("\n".join(lines))
    (raw.parent / "candidates.json").write_text(json.dumps({"rows": rows}, indent=1))
    print("\n".join(lines))


if __name__ == "__main__":
    cmd, arg = sys.argv[1], Path(sys.argv[2])
    {"gen": gen, "collect": collect}[cmd](arg)
