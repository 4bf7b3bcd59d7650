"""The house's shape: gemmc/, passes/ and dialects/ import without a circle, no module reaches for
another's private name, the packages import only the levels docs/ARCHITECTURE.md allows, and no
source file is past 800 lines.

The graph is read with the standard library's ast, function-local imports included (a circle
through a function-local import is still a circle: it only moves the failure to run time).
"""

from __future__ import annotations

import ast
import pathlib
import re

import networkx as nx
import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
# the source folders and the package each one is (pyproject's package-dir)
PACKAGE_DIRS = {"gemmc": "gemmc", "passes": "gemmc.passes", "dialects": "gemmc.dialects"}
MAX_LINES = 800


def module_files() -> dict[str, pathlib.Path]:
    """{dotted module name: file} for every module of the three source folders."""
    out = {}
    for folder, package in PACKAGE_DIRS.items():
        for path in (ROOT / folder).rglob("*.py"):
            parts = list(path.relative_to(ROOT / folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join([package, *parts])] = path
    return out


def import_edges(name: str, path: pathlib.Path, modules: set[str]):
    """(imported module, private names taken from it, its line) for each import in the file,
    wherever in the file it is.  `from pkg import sub` names the module pkg.sub."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in modules:
                    yield alias.name, [], node.lineno
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([node.module] if node.module else []))
            if base.split(".")[0] != "gemmc":
                continue
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                if sub in modules:
                    yield sub, [], node.lineno
                else:
                    yield base, [alias.name] if alias.name.startswith("_") else [], node.lineno


def private_attributes(path: pathlib.Path, modules: set[str]):
    """(module, attribute, line) for each `alias._name` where alias is an imported module."""
    tree = ast.parse(path.read_text(), str(path))
    aliases = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name in modules and a.asname:
                    aliases[a.asname] = a.name
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for a in node.names:
                if f"{node.module}.{a.name}" in modules:
                    aliases[a.asname or a.name] = f"{node.module}.{a.name}"
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases
                and node.attr.startswith("_") and not node.attr.startswith("__")):
            yield aliases[node.value.id], node.attr, node.lineno


def import_graph() -> nx.DiGraph:
    files = module_files()
    graph = nx.DiGraph()
    graph.add_nodes_from(files)
    for name, path in files.items():
        for target, _, line in import_edges(name, path, set(files)):
            if target in files and target != name:
                graph.add_edge(name, target, line=line)
    return graph


def test_no_import_cycle():
    graph = import_graph()
    cycles = sorted(sorted(c) for c in nx.strongly_connected_components(graph) if len(c) > 1)
    assert not cycles, "modules that import each other (directly or around a circle): " + "; ".join(
        " <-> ".join(c) for c in cycles)


def test_no_private_name_across_modules():
    files = module_files()
    found = []
    for name, path in files.items():
        for target, privates, line in import_edges(name, path, set(files)):
            found += [f"{path.relative_to(ROOT)}:{line}: imports {target}.{p}" for p in privates if target != name]
        found += [f"{path.relative_to(ROOT)}:{line}: uses {m}.{a}"
                  for m, a, line in private_attributes(path, set(files)) if m != name]
    assert not found, "\n".join(found)


def allowed_levels() -> dict[str, set[str]]:
    """docs/ARCHITECTURE.md's table of what each package may import: `| package | may import |`."""
    text = (ROOT / "docs" / "ARCHITECTURE.md").read_text()
    section = text.split("## What each level may import", 1)[1].split("\n## ", 1)[0]
    table = {}
    for row in re.findall(r"^\| `([\w.]+)` \| ([^|]*) \|", section, re.M):
        table[row[0]] = set(re.findall(r"`([\w.]+)`", row[1]))
    return table


def level_of(module: str, levels: set[str]) -> str:
    """The longest package of the table that holds the module ("gemmc" for the facade)."""
    parts = module.split(".")
    for n in range(len(parts), 0, -1):
        if ".".join(parts[:n]) in levels:
            return ".".join(parts[:n])
    raise AssertionError(f"{module} is in no level of docs/ARCHITECTURE.md's table")


def test_levels_import_only_what_architecture_allows():
    table = allowed_levels()
    assert table, "docs/ARCHITECTURE.md has no 'What each level may import' table"
    graph = import_graph()
    wrong = []
    for a, b, data in graph.edges(data=True):
        la, lb = level_of(a, set(table)), level_of(b, set(table))
        if la != lb and lb not in table[la]:
            wrong.append(f"{a} (line {data['line']}) imports {b}: {la} may not import {lb}")
    assert not wrong, "\n".join(sorted(wrong))


def test_the_level_table_names_every_package():
    table = allowed_levels()
    packages = {m for m, p in module_files().items() if p.name == "__init__.py" and m.count(".") == 1}
    assert packages <= set(table), f"not in docs/ARCHITECTURE.md's table: {sorted(packages - set(table))}"


@pytest.mark.parametrize("folder", sorted(PACKAGE_DIRS))
def test_no_source_file_over_800_lines(folder):
    long = [f"{p.relative_to(ROOT)}: {n} lines" for p in sorted((ROOT / folder).rglob("*.py"))
            if (n := len(p.read_text().splitlines())) > MAX_LINES]
    assert not long, "\n".join(long)


def test_a_planted_circle_is_found(tmp_path, monkeypatch):
    """The check can fail: two modules that import each other, one of them inside a function."""
    pkg = tmp_path / "gemmc"
    (pkg / "a").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "a" / "__init__.py").write_text("")
    (pkg / "a" / "x.py").write_text("from gemmc.a.y import f\n")
    (pkg / "a" / "y.py").write_text("def f():\n    from gemmc.a import x\n    return x._hidden\n")
    for folder in ("passes", "dialects"):
        (tmp_path / folder).mkdir()
    monkeypatch.setattr(__import__(__name__), "ROOT", tmp_path)
    with pytest.raises(AssertionError, match="gemmc.a.x <-> gemmc.a.y"):
        test_no_import_cycle()
    with pytest.raises(AssertionError, match=r"uses gemmc\.a\.x\._hidden"):
        test_no_private_name_across_modules()
