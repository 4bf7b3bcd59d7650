"""benchmarks/h200/defaults_table.py: the committed tables are the rendering of their raw device runs."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from benchmark_scripts import load

ROOT = Path(__file__).resolve().parents[1]
RUNS = ["matrix_tma_selection", "matrix_defaults_tma"]


@pytest.mark.parametrize("name", RUNS)
def test_table_is_the_rendering_of_its_raw_files(name):
    data, text = load("h200/defaults_table").render(ROOT / "benchmarks/h200/raw", name)
    assert (ROOT / f"benchmarks/h200/{name}.md").read_text() == text
    assert all(r[v] is None or r[v]["passed"] for r in data["rows"] for v in data["variants"])


def test_a_failed_check_shows_as_fail(tmp_path):
    """A program whose C did not match cuBLAS is marked FAIL in its cell and in its geometric mean's verdict."""
    raw = ROOT / "benchmarks/h200/raw"
    for f in raw.glob("matrix_tma_selection*"):
        shutil.copy(f, tmp_path / f.name)
    rows = [json.loads(x) for x in (tmp_path / "matrix_tma_selection.jsonl").read_text().splitlines()]
    rows[0]["result"]["passed"] = False
    (tmp_path / "matrix_tma_selection.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    data, text = load("h200/defaults_table").render(tmp_path, "matrix_tma_selection")
    assert " FAIL)" in text and "not all PASS" in text
