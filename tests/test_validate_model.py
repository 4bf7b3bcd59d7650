"""docs/cost-model.md's validation tables are what the code predicts now.

benchmarks/validate_model.py writes them from measured data it holds and the predictions of
gemmc.cost; this test runs its --check, so a change to the model or to a pass that moves a
prediction must come with the regenerated doc.  Skipped without clang-22: the AMD rows use
its VGPR report.
"""

from __future__ import annotations

import pytest
from benchmark_scripts import load

from gemmc.support.diagnostics import GemmcError


def _script():
    return load("validate_model")


def _need_toolchain():
    from gemmc.target.toolchain import find_toolchain

    try:
        find_toolchain()
    except GemmcError as e:
        pytest.skip(f"no HIP toolchain: {e}")


def test_cost_model_doc_is_current(capsys):
    _need_toolchain()
    rc = _script().main(["--check"])
    err = capsys.readouterr().err
    assert rc == 0, err


def test_check_names_the_command(tmp_path, monkeypatch, capsys):
    """A stale section fails with the command that regenerates it."""
    mod = _script()
    doc = tmp_path / "cost-model.md"
    doc.write_text(f"# x\n{mod.BEGIN}\n| a claim the code no longer makes |\n{mod.END}\n")
    monkeypatch.setattr(mod, "DOC", doc)
    monkeypatch.setattr(mod, "section", lambda: "| what the code predicts |\n")
    assert mod.main(["--check"]) == 1
    assert "python3 benchmarks/validate_model.py" in capsys.readouterr().err
    assert mod.main([]) == 0
    assert "| what the code predicts |" in doc.read_text() and "no longer" not in doc.read_text()
