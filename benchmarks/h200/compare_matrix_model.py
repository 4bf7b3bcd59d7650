"""The cost model's sm_90 tensor-core predictions against the measurements (docs/cost-model.md).

    python3 benchmarks/h200/compare_matrix_model.py

Reads benchmarks/h200/matrix.json (matrix.py collect: each program's time as measured and as
`gemmc explain --arch sm_90` predicted it for the same pipeline when gen.py wrote it), prints the
ratio predicted / measured per case, the Spearman rank correlation (all cases, and the candidates
at each size, which is what choosing a default asks of the model) and the ratio range, and writes
model_vs_h200_matrix.json.  These are the predictions of the model of gen time; benchmarks/h200/model_rows.py
predicts every measured row of raw/ (these and the later runs') with today's model.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from compare_model import ranks

HERE = Path(__file__).resolve().parent


def spearman(rows: list[dict]) -> float:
    if len(rows) < 3:
        return float("nan")
    return float(np.corrcoef(ranks([r["measured_ms"] for r in rows]), ranks([r["predicted_ms"] for r in rows]))[0, 1])


def main() -> None:
    data = json.loads((HERE / "matrix.json").read_text())
    rows = [{"type": r["type"], "shape": r["shape"], "variant": r["variant"], "measured_ms": r["gemmc_ms"],
             "predicted_ms": r["predicted_ms"], "ratio": r["predicted_ms"] / r["gemmc_ms"]}
            for r in data["rows"] if r.get("gemmc_ms")]
    if not rows:
        raise SystemExit("matrix.json holds no measured gemmc times yet: run matrix.sh on the GPU, then matrix.py collect")
    groups = {}
    for r in rows:
        if r["variant"].startswith("cand_"):
            groups.setdefault(f"{r['type']} {r['shape']} candidates", []).append(r)
    print(f"{'type':5} {'shape':16} {'variant':32} {'measured ms':>12} {'predicted ms':>13} {'ratio':>7}")
    for r in rows:
        print(f"{r['type']:5} {r['shape']:16} {r['variant']:32} {r['measured_ms']:12.3f} {r['predicted_ms']:13.3f} "
              f"{r['ratio']:7.2f}")
    ratios = [r["ratio"] for r in rows]
    out = {"machine": data.get("machine", ""), "rows": rows, "spearman": spearman(rows),
           "spearman_by_group": {g: spearman(rs) for g, rs in groups.items() if len(rs) >= 3},  # (2 rank as +-1)
           "ratio_min": min(ratios), "ratio_max": max(ratios),
           "ratio_geomean": float(np.exp(np.mean(np.log(ratios))))}
    print(f"\nSpearman rank correlation, all {len(rows)} cases: {out['spearman']:.3f}; "
          + "; ".join(f"{g}: {v:.3f}" for g, v in out["spearman_by_group"].items())
          + f"\npredicted / measured: {out['ratio_min']:.2f} .. {out['ratio_max']:.2f} "
          f"(geometric mean {out['ratio_geomean']:.2f})")
    (HERE / "model_vs_h200_matrix.json").write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
