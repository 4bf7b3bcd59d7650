"""The command line: what users see on good and bad input (issue 2's "Shown by")."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from gemmc.driver.cli import main

ROOT = Path(__file__).resolve().parent.parent
SGEMM = str(ROOT / "examples" / "sgemm.gemm")


def run(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    assert "Traceback" not in err and "Traceback" not in out
    return code, out, err


def test_help_lists_commands(capsys):
    with pytest.raises(SystemExit) as e:
        main(["--help"])
    out = capsys.readouterr().out
    assert e.value.code == 0
    for word in ("compile", "opt", "run", "gfx942", "step1"):
        assert word in out


@pytest.mark.parametrize("cmd", ["compile", "opt", "run"])
def test_subcommand_help(cmd, capsys):
    with pytest.raises(SystemExit):
        main([cmd, "--help"])
    assert "--pipeline" in capsys.readouterr().out


def test_opt_prints_gemm_ir_that_round_trips(tmp_path, capsys):
    code, out, _ = run(["opt", SGEMM], capsys)
    assert code == 0 and "gemm.matmul %A, %B, %C" in out
    ir = tmp_path / "s.mlir"
    ir.write_text(out)
    code, again, _ = run(["opt", str(ir)], capsys)
    assert code == 0 and again == out


def test_compile_writes_hip(tmp_path, capsys):
    out = tmp_path / "sgemm.hip"
    code, _, err = run(["compile", SGEMM, "--arch", "gfx942", "-o", str(out)], capsys)
    assert code == 0, err
    text = out.read_text()
    assert "__global__" in text and "sgemm" in text


@pytest.mark.parametrize(
    "argv, code, message",
    [
        (["compile", SGEMM, "--arch", "gfx1"], 2, "error: unknown arch 'gfx1'; known archs: gfx90a, gfx942, gfx950, gfx1100, gfx1201"),
        (["opt", SGEMM, "-p", "no-such-pass"], 2, "error: unknown pass 'no-such-pass'"),
        (["opt", SGEMM, "-p", "lds-tiling{bogus=1}"], 2, "error: pass 'lds-tiling'"),
        (["opt", "missing.gemm"], 3, "error: missing.gemm: no such file"),
        (["run", SGEMM, "-D", "Q=3"], 2, "error: -D Q: kernel 'sgemm' has no dim 'Q' (dims: M, N, K)"),
        (["run", SGEMM, "-D", "M=x"], 2, "error: -D M=x: 'x' is not an integer"),
        (["run", SGEMM, "-D", "M=0"], 2, "error: -D M=0: a dim must be positive"),
        (["compile"], 2, "error: gemmc compile: the following arguments are required: file"),
    ],
)
def test_bad_invocations_are_one_line(argv, code, message, capsys):
    got, _, err = run(argv, capsys)
    assert got == code
    assert err.strip().splitlines()[0].startswith(message), err


def test_malformed_source_points_at_the_token(tmp_path, capsys):
    bad = tmp_path / "bad.gemm"
    bad.write_text("kernel k {\n  dim M, N, K\n  A: f32[M K]\n}\n")
    code, _, err = run(["opt", str(bad)], capsys)
    lines = err.splitlines()
    assert code == 1
    assert lines[0] == f"{bad}:3:12: error: unexpected 'K'; expected ',', '/', ']'"
    assert lines[1] == "  A: f32[M K]"
    assert lines[2] == "           ^"


def test_output_equal_to_input_is_refused(tmp_path, capsys):
    src = tmp_path / "k.gemm"
    src.write_text(Path(SGEMM).read_text())
    code, _, err = run(["compile", str(src), "-o", str(src)], capsys)
    assert code == 3 and "would overwrite the input" in err
    assert src.read_text() == Path(SGEMM).read_text()


def test_failed_compile_leaves_no_output(tmp_path, capsys):
    out = tmp_path / "x.hip"
    code, _, _ = run(["compile", SGEMM, "-p", "gemm-to-kernel,register-tiling", "-o", str(out)], capsys)
    assert code == 1 and not out.exists()
    assert not list(tmp_path.iterdir())


def test_unwritable_output(tmp_path, capsys):
    code, _, err = run(["compile", SGEMM, "-o", str(tmp_path / "no" / "dir" / "x.hip")], capsys)
    assert code == 3 and "cannot write" in err


@pytest.mark.parametrize("content, message", [(b"", "is empty"), (b"\x00\x01\x02", "is a binary file")])
def test_empty_and_binary_inputs(tmp_path, content, message, capsys):
    f = tmp_path / "k.gemm"
    f.write_bytes(content)
    code, _, err = run(["opt", str(f)], capsys)
    assert code == 3 and message in err


def test_stdin_is_read_with_dash(capsys, monkeypatch):
    import io

    monkeypatch.setattr(sys, "stdin", io.StringIO(Path(SGEMM).read_text()))
    code, out, _ = run(["opt", "-"], capsys)
    assert code == 0 and "gemm.matmul" in out


def test_dash_output_is_stdout(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(["compile", SGEMM, "--arch", "gfx942", "-p", "step1", "-o", "-"], capsys)
    assert code == 0 and "__global__" in out
    assert not (tmp_path / "-").exists()
    code, _, err = run(["compile", SGEMM, "--arch", "gfx942", "--emit", "hsaco", "-o", "-"], capsys)
    assert code != 0 and "give -o FILE" in err


def test_print_ir_after_all(capsys):
    code, _, err = run(["opt", SGEMM, "-p", "step2", "--print-ir-after-all"], capsys)
    assert code == 0
    assert "IR Dump After gemm-to-kernel" in err and "IR Dump After lds-tiling" in err


def test_console_script_entry_point():
    proc = subprocess.run(
        [sys.executable, "-m", "gemmc.driver.cli", "opt", "nothing-here.gemm"],
        capture_output=True, text=True, env={**os.environ, "GEMMC_DEBUG": ""},
    )
    assert proc.returncode == 3
    assert proc.stderr.strip() == "error: nothing-here.gemm: no such file"


def test_cli_imports_only_what_help_needs():
    """Start-up time (issue 17 item 7): importing the CLI (all that --help needs) imports no
    frontend, pass, interpreter, cost model, emitter or AMDGCN dialect; each command imports its own."""
    code = ("import sys, gemmc.driver.cli; print(' '.join(m for m in sys.modules if m.startswith("
            "('lark', 'numpy', 'gemmc.', 'xdsl.interpreters', 'xdsl.transforms'))))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = set(proc.stdout.split())
    unwanted = {m for m in loaded if m.split(".")[0] in ("lark", "numpy") or m.startswith((
        "gemmc.frontend", "gemmc.passes", "gemmc.interp", "gemmc.cost", "gemmc.emit.", "gemmc.dialects.amdgcn",
        "gemmc.amdgcn", "gemmc.target.toolchain", "xdsl.interpreters", "xdsl.transforms."))}
    assert not unwanted, sorted(unwanted)
    assert "gemmc.driver.pipeline" in loaded  # (the check sees gemmc's modules at all)


def test_lit_commands_import_only_what_they_use():
    """Start-up time (lit runs gemmc ~600 times): a compile to HIP through the tiling passes
    imports no numpy (only interpreting, the cost model and FP8 constants need it), and `gemmc run`
    of a HIP-path kernel no AMDGCN dialect (its instruction tables)."""
    code = (
        "import contextlib, io, sys\n"
        "from gemmc.driver.cli import main\n"
        "def run(*argv):\n"
        "    with contextlib.redirect_stdout(io.StringIO()):\n"
        "        assert main(list(argv)) == 0, argv\n"
        f"run('compile', {SGEMM!r}, '--arch', 'gfx942', '-p', 'step3')\n"
        "print('numpy' in sys.modules, 'gemmc.transforms.tiled_kernel' in sys.modules)\n"
        f"run('run', {SGEMM!r}, '-p', 'step2', '-D', 'M=9', '-D', 'N=7', '-D', 'K=5')\n"
        "print('gemmc.dialects.amdgcn' in sys.modules, 'gemmc.interp' in sys.modules)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["False", "True", "False", "True"], proc.stdout
