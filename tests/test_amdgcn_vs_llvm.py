"""docs/amdgcn.md's three LLVM comparison tables are what the backends make now.

benchmarks/amdgcn_vs_llvm.py compiles the same kernel IR with gemmc's own backend and with clang
and counts both; this test runs its --check, so a change to either backend that moves a count
must come with the regenerated tables.  Skipped without clang-22 (the LLVM side)."""

from __future__ import annotations

import pytest
from benchmark_scripts import load

from gemmc.support.diagnostics import GemmcError


def _script():
    return load("amdgcn_vs_llvm")


def test_amdgcn_doc_tables_are_current(capsys):
    from gemmc.target.toolchain import find_toolchain

    try:
        find_toolchain()
    except GemmcError as e:
        pytest.skip(f"no HIP toolchain: {e}")
    rc = _script().main(["--check"])
    assert rc == 0, capsys.readouterr().err


def test_a_stale_table_fails_and_names_the_command(tmp_path, monkeypatch, capsys):
    mod = _script()
    begin, end = mod.markers("steps")
    others = "".join(f"{b}\n| {name} |\n{e}\n" for name in ("f16", "fp8") for b, e in [mod.markers(name)])
    doc = tmp_path / "amdgcn.md"
    doc.write_text(f"# x\n{begin}\n| a count the backend no longer makes |\n{end}\n{others}")
    monkeypatch.setattr(mod, "DOC", doc)
    monkeypatch.setattr(mod, "table", lambda path, rows=None: "| what the backends make |\n")
    assert mod.main(["--check"]) == 1
    assert "python benchmarks/amdgcn_vs_llvm.py --write" in capsys.readouterr().err
    assert mod.main(["--write"]) == 0
    assert doc.read_text().count("| what the backends make |") == 3 and "no longer" not in doc.read_text()
