"""docs/triton.md's ISA-level part (benchmarks/triton_isa.py): the rendering of
benchmarks/triton_isa.json and benchmarks/isa_validation.json, and the JSON what the code
predicts now (two rows timed again: timing every row takes minutes, over CI's budget).

The re-timing skips without Triton 3.9.0 or clang-22 (both make the code that is timed)."""

from __future__ import annotations

import copy
import json

import pytest
from benchmark_scripts import load

from gemmc.support.diagnostics import GemmcError


def _script():
    return load("triton_isa")


def test_doc_is_the_jsons_rendering(capsys):
    assert _script().main(["--check"]) == 0, capsys.readouterr().err


def test_every_row_is_in_the_json():
    mod = _script()
    rows = json.loads(mod.DATA.read_text())["rows"]
    assert [r["key"] for r in rows] == [k for k, *_ in mod.row_keys()]
    assert {r["arch"] for r in rows} == set(mod.ARCHS) == {"gfx90a", "gfx942", "gfx950", "gfx1100", "gfx1201"}


def test_rows_are_current():
    triton = pytest.importorskip("triton")
    mod = _script()
    from triton_compare import TRITON_VERSION

    if triton.__version__ != TRITON_VERSION:
        pytest.skip(f"triton {triton.__version__}, the table is for {TRITON_VERSION}")
    from gemmc.target.toolchain import find_toolchain

    try:
        find_toolchain()
    except GemmcError as e:
        pytest.skip(f"no HIP toolchain: {e}")
    # gemmc defaults (HIP through clang, its own launches) on CDNA and on RDNA (whose IR-level column
    # the issue term moves: gemmc.cost.issue) and one Triton kernel at the odd shape
    assert mod.verify(["gfx90a/4096³/gemmc", "gfx1201/4096³/gemmc", "gfx942/4097×4095×1023/triton128x128"]) == []


def _rows():
    g = {"key": "a/s/gemmc", "arch": "gfx942", "shape": "4096³", "kernel": "gemmc default", "ms": 1.0,
         "tflops": 100.0, "percent_of_achievable": 15.0, "bound": "wave issue", "resident": 2,
         "resident_limiter": "lds", "seconds": 1.0, "ir_ms": 0.9, "ir_tflops": 110.0, "ir_bound": "matrix"}
    fast = {**g, "key": "a/s/t1", "kernel": "Triton 128x128x64", "ms": 0.8, "bound": "LDS"}
    slow = {**g, "key": "a/s/t2", "kernel": "Triton 256x128x64", "ms": 2.0, "bound": "matrix pipe"}
    for r in (fast, slow):
        for k in ("ir_ms", "ir_tflops", "ir_bound"):
            r.pop(k)
    bad = {"key": "a/s/t3", "arch": "gfx950", "shape": "4096³", "kernel": "Triton 128x128x64", "seconds": 0.1,
           "not_timed": "t.s:1:1: error: the interpreter has no instruction 'x'"}
    return [g, fast, slow, bad]


def test_where_triton_is_faster_its_row_names_the_term():
    mod = _script()
    lines = mod.peers_table(_rows())
    fast, slow, bad = lines[3], lines[4], lines[5]
    assert "**1.25× faster**, bound by LDS (LDS)" in fast
    assert "0.50× (slower)" in slow and "bound by" not in slow
    assert "not timed: t.s:1:1: error: the interpreter has no instruction 'x'" in bad
    summary = mod.faster_summary(_rows())
    assert "in 1 of 2 timed Triton rows: gfx942 4096³ Triton 128x128x64 (LDS)" in summary
    assert "Not timed: gfx950 Triton 128x128x64" in summary


def test_a_changed_number_fails_the_check(monkeypatch, tmp_path, capsys):
    mod = _script()
    data = json.loads(mod.DATA.read_text())
    changed = copy.deepcopy(data)
    timed = next(r for r in changed["rows"] if "ms" in r)
    timed["ms"] *= 1.5
    path = tmp_path / "triton_isa.json"
    path.write_text(json.dumps(changed))
    monkeypatch.setattr(mod, "DATA", path)
    assert mod.main(["--check"]) == 1
    assert "--render" in capsys.readouterr().err
    original = mod.DOC.read_text()
    doc = tmp_path / "triton.md"
    doc.write_text(original)
    monkeypatch.setattr(mod, "DOC", doc)
    assert mod.main(["--render"]) == 0 and mod.main(["--check"]) == 0
    assert doc.read_text().count(mod.BEGIN) == 1  # the part replaced, not appended
    assert doc.read_text().split(mod.BEGIN)[0] == original.split(mod.BEGIN)[0]  # triton_compare.py's part kept
    assert f"| {timed['ms']:.3f} |" in doc.read_text()
