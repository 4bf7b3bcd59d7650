"""setup.sh, .ci/run and the README's first lines agree: one virtual environment, .venv, made by
setup.sh (a system Python may refuse pip, PEP 668) and activated by the README and by CI.  The
install itself downloads packages, too slow for the suite; these are its cheap halves: the
scripts parse, the three files name the same venv, and a wrong Python is refused in one line
before anything is installed or created."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SETUP = ROOT / "setup.sh"
BASH = shutil.which("bash")
pytestmark = pytest.mark.skipif(BASH is None, reason="needs bash")


def _readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text()
    block = re.search(r"```sh\n(.*?)```", text, re.S).group(1)
    return [line.split("#")[0].strip() for line in block.splitlines() if line.strip()]


def _venv() -> str:
    return re.search(r"^VENV=(\S+)$", SETUP.read_text(), re.M).group(1)


@pytest.mark.parametrize("script", ["setup.sh", ".ci/run"])
def test_scripts_parse(script):
    assert subprocess.run([BASH, "-n", str(ROOT / script)]).returncode == 0


def test_readme_and_ci_activate_the_venv_setup_makes():
    activate = f". {_venv()}/bin/activate"
    first, second = _readme_commands()[:2]
    assert first == f"./setup.sh && {activate} && gemmc compile examples/sgemm.gemm --arch gfx942 -o sgemm.hip"
    assert second == "python3 -m pytest"
    ci = [l.strip() for l in (ROOT / ".ci" / "run").read_text().splitlines() if l.strip() and l[0] != "#"]
    steps = [l for l in ci if l in ("./setup.sh", activate) or l.startswith("python3 -m pytest")]
    assert steps == ["./setup.sh", activate, "python3 -m pytest -q"], ci


def _fake_python(tmp_path: Path, version: str) -> str:
    p = tmp_path / "python3"
    major, minor = version.split(".")[:2]
    p.write_text("#!/bin/sh\n"
                 f"case \"$*\" in *platform*) echo {version};; *) exit {int((int(major), int(minor)) < (3, 10))};; "
                 "esac\n")
    p.chmod(0o755)
    return str(p)


@pytest.mark.parametrize("python, message", [
    ("{tmp}/no-such-python", "setup.sh: {tmp}/no-such-python not found; install Python 3.10 or later "
                             "(or set PYTHON=...)"),
    ("fake 3.8.10", "setup.sh: {tmp}/python3 is Python 3.8.10; gemmc needs 3.10 or later"),
], ids=["missing", "too-old"])
def test_a_wrong_python_is_refused_before_anything_is_done(python, message, tmp_path):
    if python.startswith("fake"):
        python = _fake_python(tmp_path, python.split()[1])
    python = python.replace("{tmp}", str(tmp_path))
    before = sorted(p.name for p in ROOT.iterdir())
    proc = subprocess.run([BASH, str(SETUP)], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHON": python})
    assert proc.returncode == 1 and proc.stderr.strip() == message.replace("{tmp}", str(tmp_path)), proc.stderr
    assert sorted(p.name for p in ROOT.iterdir()) == before
