"""The cost model's sm_90 predictions against the H200 measurements (docs/cost-model.md).

    python3 benchmarks/h200/compare_model.py [--no-compiler]

Reads benchmarks/h200/results.json, predicts each measured case with gemmc.cost, prints a
table with the error per case and the Spearman rank correlation, writes model_vs_h200.json.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

import gemmc
from gemmc.target.arch import get_arch
from gemmc.cost.compiled import predict_module

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]


def ranks(x: list[float]) -> np.ndarray:
    order = np.argsort(x)
    r = np.empty(len(x))
    r[order] = np.arange(len(x))
    return r


def main() -> None:
    data = json.loads((HERE / "results.json").read_text())
    arch = get_arch("sm_90")
    src = (ROOT / "examples" / "sgemm.gemm").read_text()
    rows = []
    for r in data["results"]:
        pipeline = data["pipelines"][r["name"]]
        n = r["n"]
        module = gemmc.lower(gemmc.parse(src, "sgemm.gemm", {"M": n, "N": n, "K": n}), pipeline, arch)
        p = predict_module(module, arch, compiler=False)
        rows.append({"name": r["name"], "n": n, "measured_ms": r["gemmc_ms"], "predicted_ms": p.time_s * 1e3,
                     "bound": p.bound, "error": p.time_s * 1e3 / r["gemmc_ms"] - 1})
    meas = [r["measured_ms"] for r in rows]
    pred = [r["predicted_ms"] for r in rows]
    rho = float(np.corrcoef(ranks(meas), ranks(pred))[0, 1])
    by_n = {}
    for n in sorted({r["n"] for r in rows}):
        sub = [r for r in rows if r["n"] == n]
        by_n[n] = float(np.corrcoef(ranks([r["measured_ms"] for r in sub]), ranks([r["predicted_ms"] for r in sub]))[0, 1])
    print(f"{'pipeline':28} {'n':>5} {'measured ms':>12} {'predicted ms':>13} {'error':>8}  bound")
    for r in rows:
        print(f"{r['name']:28} {r['n']:5} {r['measured_ms']:12.3f} {r['predicted_ms']:13.3f} {r['error']:+8.0%}  {r['bound']}")
    mean_abs = float(np.mean([abs(r["error"]) for r in rows]))
    print(f"\nSpearman rank correlation, all {len(rows)} cases: {rho:.3f}; per size: "
          + ", ".join(f"{n}^3 {v:.3f}" for n, v in by_n.items()) + f"; mean |error| {mean_abs:.0%}")
    (HERE / "model_vs_h200.json").write_text(json.dumps(
        {"rows": rows, "spearman": rho, "spearman_by_n": by_n, "mean_abs_error": mean_abs}, indent=1) + "\n")


if __name__ == "__main__":
    main()
