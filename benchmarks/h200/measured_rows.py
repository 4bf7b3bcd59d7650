"""Every measured sm_90 row of benchmarks/h200/raw/ whose manifest gives its program: the .gemm source, the
pipeline it was lowered with, the launch sizes and the measured time (model_rows.py predicts them again).

    rows, skipped = load(RAW)      # rows: Row per timed program; skipped: (raw file, why) for the rest

A run is a raw `NAME.jsonl` of `gemmc bench` results and its `NAME_manifest.json` (each program's pipeline;
written by the script that generated the programs).  What is read, per run:

  matrix, matrix_defaults_wgmma, matrix_inflight, matrix_pairs_ws, matrix_tma, matrix_tma_selection
      16-bit and FP8 programs of matrix.py (keyed type, shape, variant; the source is matrix.source of the
      shape's name, or of the launch's M x N x K for a shape outside the suite: odd8);
  batched    batched.py's batched and grouped products (the manifest holds each source);
  epilogue   epilogue.py's fused epilogues (the source from its label's type and expression);
  candidates, shapes   the FP32 suite's selection candidates and selections (H200; FMA kernels).

Runs whose rows are in `matrix.jsonl` already (matrix_every_shape, matrix_three_stage_default, matrix_wgmma:
merged into it by matrix.py's collect, manifest included) and raw files without a manifest of pipelines
(block_k, blocks_bench, inplace_*: their pipelines are in the scripts of the time, not in raw/; bench.jsonl's FP32
tutorial steps are benchmarks/validate_model.py's) are listed in `skipped` with the reason.  A dynamic-size program's pipeline is its dispatch
("default | idle grid: ... | aligned rows: ..."): its row carries the launch's sizes in `dims`.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

MATRIX_RUNS = ("matrix", "matrix_defaults_wgmma", "matrix_inflight", "matrix_pairs_ws", "matrix_tma",
               "matrix_tma_selection", "matrix_defaults_tma")
# runs whose programs matrix.py's collect merged into matrix.jsonl, manifest entries included: why a row of theirs is
# not read again
MERGED = {"matrix_every_shape": "its rows are in matrix.jsonl, but for the four dynamic ones, timed before a dispatch "
                                "fix and timed again there",
          "matrix_three_stage_default": "its rows are in matrix.jsonl",
          "matrix_wgmma": "its rows are in matrix.jsonl"}
NO_MANIFEST = ("block_k", "blocks_bench", "inplace_double_buffer", "inplace_lds_tiling", "inplace_lds_tiling_repeat",
               "inplace_registers")


@dataclass
class Row:
    run: str  # the raw file's stem
    device: str
    type: str  # f16, bf16, f32, or an FP8 label of matrix.FP8_TYPES (e4m3, e4m3_e5m2)
    shape: str
    variant: str
    source: str  # the .gemm text
    pipeline: str
    m: int
    n: int
    k: int
    measured_ms: float
    dims: dict = field(default_factory=dict)  # a dynamic program's sizes
    kind: str = ""  # batched, grouped (batched.py), epilogue, or "" for a plain product
    row_bytes: tuple = ()  # A's and B's stored row lengths in bytes

    @property
    def key(self) -> str:
        return f"{self.run}:{self.type}:{self.shape}:{self.variant}"


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()]


def _row_bytes(m: int, n: int, k: int, ta: bool, tb: bool, a_bytes: float, b_bytes: float) -> tuple:
    return ((m if ta else k) * a_bytes, (k if tb else n) * b_bytes)


def _matrix_rows(raw: Path, run: str, skipped: list) -> list[Row]:
    import matrix
    from gemmc.target.resources import global_bytes

    manifest = json.loads((raw / f"{run}_manifest.json").read_text())
    programs = {(p["type"], p["shape"], p["variant"]): p for p in manifest["programs"]}
    out = []
    for r in _jsonl(raw / f"{run}.jsonl"):
        res = r.get("result")
        p = programs.get((r["type"], r["shape"], r["variant"]))
        if not res or p is None:
            continue
        if "pipeline" not in p:  # matrix_pairs_ws: hand-named programs whose entries lack it
            skipped.append((f"{run}.jsonl", f"{r['type']} {r['shape']} {r['variant']}: its manifest entry has no pipeline"))
            continue
        m, n, k = res["M"], res["N"], res["K"]
        ta, tb, ab = {**matrix.SHAPES, **matrix.FP8_SHAPES}.get(r["shape"], (m, n, k, False, False, False))[3:]
        dynamic = " | " in p["pipeline"]
        a, b = matrix.FP8_TYPES.get(r["type"], (r["type"], r["type"]))
        out.append(Row(run, res["device"], r["type"], r["shape"], r["variant"],
                       matrix.source(r["type"], m, n, k, ta, tb, ab, dynamic=dynamic), p["pipeline"], m, n, k,
                       res["gemmc_ms"], dict(M=m, N=n, K=k) if dynamic else {},
                       row_bytes=_row_bytes(m, n, k, ta, tb, global_bytes(a), global_bytes(b))))
    return out


def _batched_rows(raw: Path, run: str) -> list[Row]:
    """batched.py's rows: `batched` the latest run, `batched_ldmatrix` the one before TMA (2026-12-07's, kept:
    Arch.launch_us was fitted on its three small checks)."""
    from gemmc.target.resources import global_bytes

    programs = {(p["label"], p["variant"]): p for p in json.loads((raw / f"{run}_manifest.json").read_text())["programs"]}
    out = []
    for r in _jsonl(raw / f"{run}.jsonl"):
        p, res = programs.get((r["label"], r["variant"])), r.get("result")
        if not res or p is None:
            continue
        d = p["dims"]
        tb = "[N, K]" in p["source"]
        eb = global_bytes(p["type"])
        out.append(Row(run, res["device"], p["type"], r["label"], r["variant"], p["source"], p["pipeline"],
                       d["M"], d["N"], d["K"], res["gemmc_ms"], kind=p["kind"],
                       row_bytes=_row_bytes(d["M"], d["N"], d["K"], False, tb, eb, eb)))
    return out


def _epilogue_rows(raw: Path, run: str) -> list[Row]:
    """epilogue.py's rows, or fp32_copies.py's (the same 4096^3 programs, one pipeline each)."""
    import epilogue
    from gemmc.target.resources import global_bytes

    programs = {p["label"]: p for p in json.loads((raw / f"{run}_manifest.json").read_text())["programs"]}
    out = []
    for r in _jsonl(raw / f"{run}.jsonl"):
        p, res = programs.get(r["label"]), r.get("result")
        if not res or p is None:
            continue
        n = epilogue.N
        eb = global_bytes(p["type"])
        variant = "selected" if run == "epilogue" else r["label"]
        out.append(Row(run, res["device"], p["type"], r["label"], variant, epilogue.source(p["type"], p["expr"]),
                       p["pipeline"], n, n, n, res["gemmc_ms"], kind="epilogue",
                       row_bytes=_row_bytes(n, n, n, False, p["type"] != "f32", eb, eb)))
    return out


def _f32_rows(raw: Path, run: str) -> list[Row]:
    import shapes

    manifest = json.loads((raw / f"{run}_manifest.json").read_text())
    out = []
    for r in _jsonl(raw / f"{run}.jsonl"):
        res, entry = r.get("result"), manifest["shapes"].get(r["shape"])
        if not res or entry is None:
            continue
        spec = entry["candidates"][r["variant"]] if run == "candidates" else entry[r["variant"]]
        m, n, k, ta, tb, ab = entry["shape"]
        dynamic = r["variant"] == "dynamic"
        out.append(Row(run, res["device"], "f32", r["shape"], r["variant"], shapes.source(m, n, k, ta, tb, ab, dynamic),
                       spec["pipeline"], m, n, k, res["gemmc_ms"], dict(M=m, N=n, K=k) if dynamic else {},
                       row_bytes=_row_bytes(m, n, k, ta, tb, 4, 4)))
    return out


def load(raw: Path) -> tuple[list[Row], list[tuple[str, str]]]:
    """The rows, and (raw file, why not read) for every other .jsonl of timed programs."""
    rows: list[Row] = []
    skipped: list[tuple[str, str]] = []
    for run in MATRIX_RUNS:
        rows += _matrix_rows(raw, run, skipped)
    rows += _batched_rows(raw, "batched") + _batched_rows(raw, "batched_ldmatrix") + _epilogue_rows(raw, "epilogue") + _epilogue_rows(raw, "fp32_copies")
    rows += _f32_rows(raw, "candidates") + _f32_rows(raw, "shapes")
    skipped += [(f"{name}.jsonl", why) for name, why in MERGED.items()]
    skipped += [("bench.jsonl", "the FP32 tutorial steps: benchmarks/validate_model.py predicts them from results.json")]
    skipped += [(f"{name}.jsonl", "no manifest of pipelines in raw/") for name in NO_MANIFEST]
    return rows, skipped
