"""benchmarks/h200/model_rows.py: the committed table and doc section are the rendering of model_rows.json, and
every row's prediction there is what the cost model predicts now (one test per raw run, so the runs spread over
the test processes); a moved prediction or an edited table fails."""
from __future__ import annotations

import json

import pytest

from benchmark_scripts import load

RUNS = ["matrix", "matrix_defaults_wgmma", "matrix_inflight", "matrix_pairs_ws", "matrix_tma", "matrix_tma_selection",
        "matrix_defaults_tma", "batched", "batched_ldmatrix", "epilogue", "fp32_copies", "candidates", "shapes"]


@pytest.fixture(scope="module")
def mod():
    return load("h200/model_rows")


@pytest.fixture(scope="module")
def committed(mod):
    return json.loads(mod.JSON.read_text())


def test_committed_files_are_the_rendering(mod, committed):
    assert mod.stale(committed) == []


def test_the_last_step_is_now(mod, committed):
    """model_rows_steps.json's last change is the model of today: its predictions are model_rows.json's."""
    steps = json.loads(mod.STEPS.read_text())["steps"]
    assert steps[-1]["predicted"] == {r["key"]: r["predicted_ms"] for r in committed["rows"]}
    assert all(k in steps[-1]["predicted"] for k in steps[0]["examples"])


def test_every_run_is_read(mod, committed):
    assert sorted({r["run"] for r in committed["rows"]}) == sorted(RUNS)


@pytest.mark.parametrize("run", RUNS)
def test_predictions_are_the_models_now(mod, committed, run):
    """Every third row of the run (by key; lowering every one of the 524 took 4.5 CPU minutes of CI, and a model
    change moves rows by the mechanism, which each run's rows share): `model_rows.py --check` predicts all."""
    keys = sorted(r["key"] for r in committed["rows"] if r["run"] == run)[::3]
    rows, _ = mod.predict_all(only=lambda r: r.key in keys)
    assert len(rows) == len(keys) and mod.moved(committed, rows) == []


def test_a_moved_prediction_and_an_edited_table_fail(mod, committed, tmp_path, monkeypatch):
    row = next(r for r in committed["rows"] if r["run"] == "matrix_tma")
    now = mod.predict_row(next(r for r in mod.measured_rows.load(mod.RAW)[0] if r.key == row["key"]))
    assert mod.moved(committed, [dict(now, predicted_ms=now["predicted_ms"] * 1.01)]) != []
    table = tmp_path / "model_rows.md"
    table.write_text(mod.TABLE.read_text().replace(f"| {row['ratio']:.2f} |", "| 9.99 |", 1))
    monkeypatch.setattr(mod, "TABLE", table)
    assert mod.stale(committed) == ["model_rows.md"]


def test_fitted_rows_are_left_out_of_the_statistics(mod):
    rows = [{"ratio": 1.0, "fitted": [], "measured_ms": m, "predicted_ms": m} for m in (1.0, 2.0, 3.0)]
    rows.append({"ratio": 100.0, "fitted": ["Arch.launch_us"], "measured_ms": 4.0, "predicted_ms": 400.0})
    s = mod.group_stats(rows)
    assert (s["rows"], s["in_sample"], s["max"]) == (4, 1, 1.0)
