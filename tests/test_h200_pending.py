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
