"""benchmarks/h200/pending.py and fp32_copies.py: what the next device call times is what the tables need."""
from __future__ import annotations

import json

import pytest

from benchmark_scripts import load
from gemmc.support.named_pipelines import NAMED_PIPELINES


def test_fp32_default_candidate_is_the_sm90_default():
    """fp32_copies' baseline row is sm_90's FP32 default, so its % is the default's."""
    assert load("h200/fp32_copies").CANDIDATES["default"] == NAMED_PIPELINES["tuned-h200"]


def _program(shape, variant, pipeline):
    return {"type": "f16", "shape": shape, "variant": variant, "pipeline": pipeline, "file": f"{shape}_{variant}.cu"}


@pytest.mark.parametrize("no_tma, kept", [
    ("gemm-to-kernel,lds-tiling{block-m=128},pipeline", False),  # the same tiles, TMA only added: not timed again
    ("gemm-to-kernel,lds-tiling{block-m=64},pipeline", True),    # the TMA model moved the tile: timed
])
def test_matrix_keeps_no_tma_where_the_tiles_differ(tmp_path, no_tma, kept):
    pending = load("h200/pending")
    programs = [_program("sq1024", "selected", "gemm-to-kernel,lds-tiling{block-m=128},pipeline,tma-copies,x"),
                _program("sq1024", "selected_no_tma", no_tma + ",x")]
    (tmp_path / "src").mkdir()
    for p in programs:
        (tmp_path / "src" / p["file"]).write_text("")
    (tmp_path / "src/manifest.json").write_text(json.dumps({"programs": programs}))
    keep = lambda p, m: p["variant"] == "selected" or pending._differs_beyond_tma(p, m)  # noqa: E731
    assert pending._keep(tmp_path / "src", tmp_path / "dst", keep) == 1 + kept
    assert (tmp_path / "dst" / programs[1]["file"]).exists() == kept


def test_fp32_table_marks_a_failed_check(tmp_path):
    """A candidate whose C did not match cuBLAS shows FAIL, and a missing run shows as an error row."""
    fp32 = load("h200/fp32_copies")
    programs = [{"label": label, "expr": "X @ W", "pipeline": p} for label, p in list(fp32.CANDIDATES.items())[:3]]
    (tmp_path / "fp32_copies_manifest.json").write_text(json.dumps({"programs": programs}))
    result = {"gemmc_ms": 3.0, "cublas_ms": 2.7, "passed": True, "device": "NVIDIA H100 80GB HBM3"}
    rows = [{"label": "default", "result": result}, {"label": "bk32", "result": result | {"passed": False}}]
    (tmp_path / "fp32_copies.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    data, text = fp32.render(tmp_path)
    assert "| default | X @ W | PASS | 3.000 | 45.8 | 2.700 | 90.0 |" in text
    assert "| bk32 | X @ W | FAIL |" in text and "| cp2 | X @ W | error |" in text
    assert set(data["rows"]) == {"default", "bk32"} and "NVIDIA H100 80GB HBM3" in text
