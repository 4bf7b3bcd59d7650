"""Every shape fast? gemmc's FP32 kernels on the H200 over a suite of shapes, against cuBLAS and Triton.

    python3 benchmarks/h200/shapes.py gen .h200/shapes          # here: the programs and manifest.json
    OUT=h200-out bash benchmarks/h200/shapes.sh .h200/shapes     # on the H200: shapes.jsonl, triton.jsonl
    python3 benchmarks/h200/shapes.py collect benchmarks/h200/raw   # here: shapes.md and shapes.json
    python3 benchmarks/h200/shapes.py predict benchmarks/results    # the AMD targets, by the cost model

Per shape two gemmc programs (each gemmc.bench's: C checked against cuBLAS SGEMM in pedantic FP32,
then the median of 20 timed runs against cuBLAS's, inputs rotated through 4x the L2):
  fixed     the sm_90 default before per-shape selection: tuned-h200, whatever the shape;
  selected  what `gemmc compile --arch sm_90` runs now (gemmc.driver.selection: split-k where the grid
            leaves the GPU idle and the cost model predicts it faster).
Triton's FP32 matmul (triton_fp32.py: the tutorial kernel, IEEE FP32 dot, 8 autotuned
configurations) runs the same shapes as the second peer.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]

# name: (M, N, K, A transposed, B transposed, alpha/beta)
SHAPES = {
    "sq512": (512, 512, 512, False, False, False),
    "sq1024": (1024, 1024, 1024, False, False, False),
    "sq2048": (2048, 2048, 2048, False, False, False),
    "sq3000": (3000, 3000, 3000, False, False, False),
    "sq4096": (4096, 4096, 4096, False, False, False),
    "sq8192": (8192, 8192, 8192, False, False, False),
    "shallow_k": (8192, 8192, 1024, False, False, False),
    "deep_k": (1024, 1024, 8192, False, False, False),
    "deep_k_4_tiles": (256, 256, 16384, False, False, False),
    "deeper_k": (128, 128, 65536, False, False, False),
    "tall": (16384, 256, 4096, False, False, False),
    "wide": (256, 16384, 4096, False, False, False),
    "odd": (4097, 4095, 1023, False, False, False),
    "odd_nt_alpha_beta": (3001, 2999, 1537, False, True, True),
    "a_transposed": (4096, 4096, 4096, True, False, False),
    "b_transposed": (4096, 4096, 4096, False, True, False),
    "alpha_beta": (2048, 2048, 2048, False, False, True),
}
VARIANTS = ("fixed", "selected", "dynamic")


def source(m: int, n: int, k: int, ta: bool, tb: bool, ab: bool, dynamic: bool = False, t: str = "f32") -> str:
    """The suite's kernel with A and B of type t (matrix.py: f16, bf16, accumulating in f32)."""
    a = f"A: {t}[K, M]" if ta else f"A: {t}[M, K]"
    b = f"B: {t}[N, K]" if tb else f"B: {t}[K, N]"
    expr = f"{'A.T' if ta else 'A'} @ {'B.T' if tb else 'B'}"
    scalars = "  alpha: f32  beta: f32" if ab else ""
    if ab:
        expr = f"alpha * {expr} + beta * C"
    dims = "M, N, K" if dynamic else f"M = {m}, N = {n}, K = {k}"
    name, acc = ("sgemm", "") if t == "f32" else (f"{t}gemm", "  acc f32")
    return f"kernel {name} {{ dim {dims}  {a}  {b}  C: f32[M, N]{acc}{scalars}  C = {expr} }}"


def gen(out: Path) -> None:
    import gemmc
    from gemmc.target.arch import get_arch
    from gemmc.driver.bench import bench_source
    from gemmc.cost.model import predict
    from gemmc.support.ir_names import PIPELINE_ATTR, SELECTED_ATTR

    sm90 = get_arch("sm_90")
    out.mkdir(parents=True, exist_ok=True)
    manifest = {"shapes": {}, "programs": []}
    for name, shape in SHAPES.items():
        text = source(*shape)
        entry = {"shape": shape, "source": text}
        for variant in VARIANTS:
            dynamic = variant == "dynamic"
            dims = dict(zip("MNK", shape[:3])) if dynamic else {}
            src = source(*shape, dynamic=True) if dynamic else text
            module = gemmc.lower(gemmc.parse(src, f"{name}.gemm"), "tuned-h200" if variant == "fixed" else None, sm90)
            f = out / f"shape_{name}_{variant}.cu"
            f.write_text(bench_source(module, sm90, dims, repeats=20))
            entry[variant] = {"pipeline": module.attributes[PIPELINE_ATTR].data,
                              "predicted_ms": predict(module, sm90, dims).time_s * 1e3}
            if SELECTED_ATTR in module.attributes:
                entry[variant]["why"] = module.attributes[SELECTED_ATTR].data
            manifest["programs"].append({"shape": name, "variant": variant, "file": f.name})
        manifest["shapes"][name] = entry
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1))
    print(f"{len(manifest['programs'])} programs for {len(SHAPES)} shapes in {out}")


def collect(raw: Path) -> None:
    manifest = json.loads((raw / "shapes_manifest.json").read_text())
    runs = [json.loads(line) for line in (raw / "shapes.jsonl").read_text().splitlines() if line.strip()]
    triton = {r["shape"]: r for r in map(json.loads, (raw / "triton.jsonl").read_text().splitlines()) if r}
    measured: dict[str, dict] = {}
    for r in runs:
        measured.setdefault(r["shape"], {})[r["variant"]] = r.get("result")
    rows = []
    for name, entry in manifest["shapes"].items():
        got = measured.get(name, {})
        fixed, selected = got.get("fixed"), got.get("selected")
        cublas_ms = next((x["cublas_ms"] for x in (selected, fixed) if x), None)
        tr = triton.get(name, {})
        row = {"shape": name, "M": entry["shape"][0], "N": entry["shape"][1], "K": entry["shape"][2],
               "cublas_ms": cublas_ms, "triton_ms": tr.get("ms"), "triton_config": tr.get("config"),
               "triton_rel_err": tr.get("rel_err")}
        for v in (v for v in VARIANTS if v in entry):
            x = got.get(v)
            row[f"{v}_ms"] = x["gemmc_ms"] if x else None
            row[f"{v}_pct"] = 100 * cublas_ms / x["gemmc_ms"] if x and cublas_ms else None
            row[f"{v}_rel_err"] = x["max_rel_err"] if x else None
            row[f"{v}_pipeline"] = entry[v]["pipeline"]
            row[f"{v}_predicted_ms"] = entry[v]["predicted_ms"]
        row["selected_why"] = entry["selected"].get("why", "")
        row["triton_pct"] = 100 * cublas_ms / tr["ms"] if tr.get("ms") and cublas_ms else None
        rows.append(row)
    (raw.parent / "shapes.json").write_text(json.dumps({"machine": _log(raw), "rows": rows}, indent=1))
    (raw.parent / "shapes.md").write_text(_markdown(rows, _log(raw)))
    print((raw.parent / "shapes.md").read_text())


def _log(raw: Path) -> str:
    f = raw / "shapes_log.txt"
    return f.read_text().strip() if f.exists() else ""


def _geomean(xs: list[float]) -> float:
    xs = [x for x in xs if x]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def _markdown(rows: list[dict], log: str) -> str:
    def pct(x):
        return f"{x:.0f}" if x else "-"

    lines = ["# Every shape: gemmc FP32 on the H200 against cuBLAS and Triton",
             "", "Written by `benchmarks/h200/shapes.py collect` from `raw/shapes.jsonl`, `raw/triton.jsonl` and",
             "`raw/shapes_manifest.json` (machine below). % = cuBLAS time / its time x 100 (higher is faster).",
             "`fixed`: the sm_90 default before per-shape selection (tuned-h200); `selected`: what",
             "`gemmc compile --arch sm_90` runs now; `dynamic`: the same program with `dim M, N, K` given at",
             "launch (gemmc.dispatch's launcher). Triton: its FP32 matmul, IEEE dot, 8 autotuned configurations.",
             "", "| shape | M x N x K | cuBLAS ms | fixed % | selected % | dynamic % | Triton % | selected: why |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['shape']} | {r['M']}x{r['N']}x{r['K']} | {r['cublas_ms'] or 0:.3f} | {pct(r['fixed_pct'])} | "
                     f"{pct(r['selected_pct'])} | {pct(r.get('dynamic_pct'))} | {pct(r['triton_pct'])} | "
                     f"{r['selected_why']} |")
    columns = ("fixed", "selected", "dynamic", "triton")
    lines += ["", "| | " + " | ".join(columns) + " |", "|---|---|---|---|---|",
              "| geometric mean % of cuBLAS | " + " | ".join(
                  f"{_geomean([r.get(f'{v}_pct') for r in rows]):.0f}" for v in columns) + " |",
              "| lowest % of cuBLAS | " + " | ".join(
                  f"{min((r[f'{v}_pct'] for r in rows if r.get(f'{v}_pct')), default=float('nan')):.0f}"
                  for v in columns) + " |",
              "", "Machine:", "", "```", log, "```", ""]
    return "\n".join(lines)


AMD = ("gfx90a", "gfx942", "gfx950", "gfx1100", "gfx1201")


def predict_amd(out: Path) -> None:
    """The same suite on the AMD targets, through the cost model: the arch's fixed default pipeline
    against the per-shape selection (out/shapes_amd.md and .json)."""
    import gemmc
    from gemmc.target.arch import get_arch
    from gemmc.cost.model import predict
    from gemmc.driver.pipeline import default_pipeline
    from gemmc.driver.selection import select_pipeline

    sys.path.insert(0, str(HERE.parent))
    from machine import machine

    rows = []
    for arch in AMD:
        a = get_arch(arch)
        for name, shape in SHAPES.items():
            text = source(*shape)
            fixed = predict(gemmc.lower(gemmc.parse(text), default_pipeline(a), a), a).time_s
            choice = select_pipeline(gemmc.parse(text), a)
            selected = predict(choice.lowered, a).time_s
            rows.append({"arch": arch, "shape": name, "M": shape[0], "N": shape[1], "K": shape[2],
                         "fixed_ms": fixed * 1e3, "selected_ms": selected * 1e3, "gain": fixed / selected,
                         "why": choice.reason})
            print(arch, name, f"{fixed / selected:.2f}x", flush=True)
    out.mkdir(parents=True, exist_ok=True)
    (out / "shapes_amd.json").write_text(json.dumps({"machine": machine(), "rows": rows}, indent=1))
    lines = ["# The shapes suite on the AMD targets: predicted time, fixed default against per-shape selection",
             "", "Written by `python3 benchmarks/h200/shapes.py predict benchmarks/results` (the cost model;",
             "no AMD GPU ran). gain = fixed / selected.", "",
             "| shape | M x N x K | " + " | ".join(AMD) + " |", "|---|---|" + "---|" * len(AMD)]
    for name, shape in SHAPES.items():
        gains = [next(r for r in rows if r["arch"] == a and r["shape"] == name)["gain"] for a in AMD]
        lines.append(f"| {name} | {shape[0]}x{shape[1]}x{shape[2]} | " + " | ".join(f"{g:.2f}x" for g in gains) + " |")
    lines += ["", "| | " + " | ".join(AMD) + " |", "|---|" + "---|" * len(AMD),
              "| geometric mean gain | " + " | ".join(
                  f"{_geomean([r['gain'] for r in rows if r['arch'] == a]):.2f}x" for a in AMD) + " |", ""]
    (out / "shapes_amd.md").write_text("\n".join(lines))


if __name__ == "__main__":
    cmd, arg = sys.argv[1], Path(sys.argv[2])
    {"gen": gen, "collect": collect, "predict": predict_amd}[cmd](arg)
