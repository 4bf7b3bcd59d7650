"""Shared by the bad-input catalogue (tests/errors/): run gemmc and judge what it printed.

A catalogue entry is a `Case`: files to create, a command line, the exit code and the
exact first line of stderr that docs/errors.md promises.  `run_in_process` calls
gemmc.driver.cli.main (fast); `run_console` runs the installed `gemmc` console script in a
subprocess, as a user would.  Both assert that no Python traceback reaches the user.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
SGEMM = EXAMPLES / "sgemm.gemm"

BASE = """kernel k {
  dim M = 8, N = 8, K = 8
  A: f32[M, K]
  B: f32[K, N]
  C: f32[M, N]
  C = A @ B
}
"""


def base_with(old: str, new: str) -> str:
    """The base program with one edit."""
    assert old in BASE, old
    return BASE.replace(old, new, 1)


@dataclass
class Case:
    """One bad input: `argv` may use {dir} (the test's directory) and {src} (files['k.gemm'])."""

    id: str
    argv: list[str]
    code: int
    expect: str  # the first line of stderr, exactly ({dir} and {src} substituted); or 're:<regex>'
    files: dict[str, str | bytes] = field(default_factory=dict)
    setup: Callable[[Path], None] | None = None
    stdin: bytes | None = None
    env: dict[str, str] = field(default_factory=dict)
    located: tuple[int, int] | None = None  # (line, col) the caret must point at

    @staticmethod
    def fill(text: str, d: Path) -> str:
        """{dir} and {src} substituted (plain replacement: messages hold other braces)."""
        return text.replace("{dir}", str(d)).replace("{src}", str(d / "k.gemm"))

    def prepare(self, d: Path) -> list[str]:
        for name, content in self.files.items():
            p = d / name
            p.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                p.write_bytes(content)
            else:
                p.write_text(content)
        if self.setup is not None:
            self.setup(d)
        return [self.fill(a, d) for a in self.argv]

    def check(self, d: Path, code: int, out: str, err: str) -> None:
        keep_stderr(self.id, err)
        assert "Traceback" not in err and "Traceback" not in out, err
        assert "internal error" not in err, err
        lines = err.rstrip("\n").split("\n")
        want = self.fill(self.expect, d)
        if want.startswith("re:"):
            assert re.fullmatch(want[3:], lines[0]), f"{lines[0]!r} !~ {want[3:]!r}"
        else:
            assert lines[0] == want, f"\n got: {lines[0]}\nwant: {want}"
        assert code == self.code, f"exit {code}, want {self.code}: {err}"
        check_render(lines)
        if self.located is not None:
            line, col = self.located
            m = re.match(r"(.*?):(\d+):(\d+): error: ", lines[0])
            assert m and (int(m.group(2)), int(m.group(3))) == (line, col), lines[0]


def keep_stderr(name: str, err: str) -> None:
    """With GEMMC_STDERR_DIR set, keep what each case printed there, so that
    `grep -r Traceback $GEMMC_STDERR_DIR` can show that none reached the user."""
    where = os.environ.get("GEMMC_STDERR_DIR")
    if where:
        Path(where).mkdir(parents=True, exist_ok=True)
        (Path(where) / f"{re.sub(r'[^A-Za-z0-9_.-]', '_', name)}.stderr").write_text(err)


def check_render(lines: list[str]) -> None:
    """One diagnostic line, plus the source line and a caret under the column when located."""
    m = re.match(r"(.*?):(\d+):(\d+): error: \S", lines[0])
    if m and not lines[0].startswith("error: "):
        assert len(lines) in (1, 3), lines  # 1: a position past the last line (the end of file)
        if len(lines) == 3:
            assert lines[2] == " " * (int(m.group(3)) - 1) + "^", lines
    else:
        assert lines[0].startswith("error: ") and len(lines) == 1, lines


def run_in_process(argv: list[str], stdin: bytes | None = None, env: dict[str, str] | None = None,
                   monkeypatch=None) -> tuple[int, str, str]:
    """gemmc.driver.cli.main(argv) with stdout and stderr captured (and stdin, env replaced)."""
    from gemmc.driver.cli import main

    out, err = io.StringIO(), io.StringIO()
    saved_stdin = sys.stdin
    saved_env = {k: os.environ.get(k) for k in (env or {})}
    try:
        if stdin is not None:
            sys.stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
        for k, v in (env or {}).items():
            os.environ[k] = v
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(argv)
            except SystemExit as e:  # --help, --version
                code = e.code if isinstance(e.code, int) else 0
    finally:
        sys.stdin = saved_stdin
        for k, v in saved_env.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    return code, out.getvalue(), err.getvalue()


def console_script() -> list[str]:
    """The installed `gemmc` entry point (the file pip wrote), not a pyenv shim or `-m`."""
    beside = Path(sys.executable).parent / "gemmc"
    if beside.is_file():
        return [str(beside)]
    found = shutil.which("gemmc")
    return [found] if found else [sys.executable, "-m", "gemmc.driver.cli"]


def run_console(argv: list[str], stdin: bytes | None = None, env: dict[str, str] | None = None,
                cwd: Path | None = None, timeout: float = 120) -> tuple[int, str, str]:
    full_env = {**os.environ, "GEMMC_DEBUG": "", **(env or {})}
    proc = subprocess.run(
        console_script() + argv, input=stdin if stdin is not None else b"", capture_output=True,
        env=full_env, cwd=cwd, timeout=timeout,
    )
    return proc.returncode, proc.stdout.decode("utf-8", "replace"), proc.stderr.decode("utf-8", "replace")
