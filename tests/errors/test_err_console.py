"""A representative subset of the catalogue run through the installed `gemmc` console script,
as a user runs it: the same one-line message and exit code, and no traceback on stderr."""

from __future__ import annotations

import dataclasses
import os

import pytest

from errors.helpers import Case, run_console
from errors.test_err_cli import CLI
from errors.test_err_cli import FILES as CLI_FILES
from errors.test_err_commands import COMMANDS
from errors.test_err_files import FILES, SKIPS
from errors.test_err_source import SOURCE

PICK = {
    "source": ["no-close-brace", "unknown-layout", "undeclared-operand", "b-shape", "scale-overflows-f16"],
    "cli": ["threads-over-1024", "vgpr-budget-register-tiling", "order-launch-bounds-before-tiling",
            "unknown-pass", "pipeline-open-brace", "define-not-int", "dtype-arch-cannot-do"],
    "files": ["missing-input", "fifo-without-writer", "stdin-not-utf8", "output-is-input", "clang-fails",
              "no-toolchain-asm"],
    "commands": ["explain-plot-format", "tune-budget-zero", "layout-unknown-instr", "bench-dynamic-dim"],
}


def _subset():
    by_id = {c.id: ("source", c) for c in SOURCE}
    by_id.update({c.id: ("cli", c) for c in CLI})
    by_id.update({c.id: ("files", c) for c in FILES})
    by_id.update({c.id: ("commands", c) for c in COMMANDS})
    return [by_id[i] for group in PICK.values() for i in group]


@pytest.mark.parametrize("group, case", _subset(), ids=lambda x: x.id if isinstance(x, Case) else x)
def test_console_script(group: str, case: Case, tmp_path):
    skip, why = SKIPS.get(case.id, (False, ""))
    if skip:
        pytest.skip(why)
    case = dataclasses.replace(case, id=f"console-{case.id}", files=CLI_FILES if group == "cli" else case.files)
    argv = case.prepare(tmp_path)
    env = {k: case.fill(v, tmp_path) for k, v in case.env.items()}
    code, out, err = run_console(argv, case.stdin, env)
    case.check(tmp_path, code, out, err)


def test_console_internal_error_is_one_line(tmp_path):
    """Even a bug reaches the user as one line with exit 5; GEMMC_DEBUG=1 shows the traceback."""
    # a pass whose apply raises a plain Python exception, registered through a sitecustomize
    (tmp_path / "sitecustomize.py").write_text(
        "from gemmc.driver import pipeline\n"
        "from dataclasses import dataclass\n"
        "from xdsl.passes import ModulePass\n"
        "@dataclass(frozen=True)\n"
        "class Boom(ModulePass):\n"
        "    name = 'boom'\n"
        "    def apply(self, ctx, op):\n"
        "        raise ZeroDivisionError('division by zero')\n"
        "pipeline.PASSES['boom'] = lambda: Boom\n"
    )
    (tmp_path / "k.gemm").write_text(open(os.path.join(os.path.dirname(__file__), "..", "..", "examples",
                                                       "sgemm.gemm")).read())
    env = {"PYTHONPATH": str(tmp_path)}
    code, _, err = run_console(["opt", str(tmp_path / "k.gemm"), "-p", "boom"], env=env)
    assert code == 5, err
    assert err.strip() == ("gemmc: internal error: ZeroDivisionError: division by zero "
                           "(set GEMMC_DEBUG=1 for a traceback)")
    code, _, err = run_console(["opt", str(tmp_path / "k.gemm"), "-p", "boom"], env={**env, "GEMMC_DEBUG": "1"})
    assert code == 5 and "Traceback" in err
