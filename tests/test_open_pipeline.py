"""An open pipeline (issue 13 item 4): the user's passes by --load or gemmc.register_pass, and
xDSL's upstream passes, by name in -p."""

from __future__ import annotations

import dataclasses
import textwrap
from pathlib import Path

import pytest
from xdsl.passes import ModulePass

import gemmc
from gemmc.driver import pipeline
from gemmc.driver.cli import main

ROOT = Path(__file__).resolve().parent.parent
SGEMM = str(ROOT / "examples" / "sgemm.gemm")
EXAMPLE = str(ROOT / "examples" / "passes" / "mul_to_shift.py")


@pytest.fixture(autouse=True)
def _registry():
    """Each test starts from gemmc's own passes: registrations are process-wide."""
    saved = dict(pipeline.PASSES)
    yield
    pipeline.PASSES.clear()
    pipeline.PASSES.update(saved)


def run(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    assert "Traceback" not in err and "internal error" not in err, err
    return code, out, err


def write(tmp_path, name: str, body: str) -> str:
    f = tmp_path / name
    f.write_text(body)
    return str(f)


# -- --load ---------------------------------------------------------------------------


def test_load_example_between_gemmc_passes(capsys, tmp_path):
    """The passes after lds-tiling rewrite in place, so a loaded pass's change between them
    survives into the kernel, which still computes C (issue 13)."""
    src = write(tmp_path, "s.gemm", "kernel s { dim M, N, K  A: f32[M, K]  B: f32[K, N]  C: f32[M, N]  C = A @ B }")
    pipeline = "step3,mul-to-shift,double-buffer,vectorize{width=4}"
    code, out, err = run(["opt", src, "--load", EXAMPLE, "-p", pipeline], capsys)
    assert code == 0 and "arith.shli" in out and "memref<2x128x16xf32, 3 : i64>" in out, err
    code, out, err = run(["run", src, "--load", EXAMPLE, "-p", pipeline, "-D", "M=130", "-D", "N=70", "-D", "K=33"],
                         capsys)
    assert code == 0 and out.startswith("PASS"), out + err


def test_load_example_before_lds_tiling_is_refused(capsys):
    """lds-tiling reads the step-1 kernel's row mapping (block_id * block + thread_id); the
    loaded pass's shifted one is refused at its op, not dropped."""
    code, out, err = run(["opt", SGEMM, "--load", EXAMPLE, "-p", "gemm-to-kernel,mul-to-shift,lds-tiling"], capsys)
    assert code == 1 and not out, out
    assert err.startswith("error: lds-tiling: expects the epilogue's row") and "(at 'arith.addi'" in err, err


@pytest.mark.parametrize("command", ["compile", "opt", "run", "explain", "tune"])
def test_every_pipeline_command_takes_load(command, capsys):
    with pytest.raises(SystemExit):
        main([command, "--help"])
    assert "--load FILE.py" in capsys.readouterr().out


def test_run_with_loaded_pass_passes(capsys):
    code, out, err = run(["run", SGEMM, "--load", EXAMPLE, "-p", "step3,mul-to-shift",
                          "-D", "M=130", "-D", "N=66", "-D", "K=20"], capsys)
    assert code == 0 and out.startswith("PASS"), out + err


def test_loaded_pass_without_load_is_unknown(capsys):
    code, _, err = run(["opt", SGEMM, "-p", "gemm-to-kernel,mul-to-shift"], capsys)
    assert code == 2 and "error: unknown pass 'mul-to-shift'" in err


PASS_HEAD = "from xdsl.passes import ModulePass\n\n"


@pytest.mark.parametrize(
    "body, code, message",
    [
        # a syntax error is located in the file, with its line and a caret
        ("def broken(:\n    pass\n", 1, "{f}:1:12: error: --load: invalid syntax"),
        # an import-time failure: one line with the exception and the file's line
        (PASS_HEAD + "x = 1\nundefined_name\n", 2,
         "error: --load {f}: cannot import it: NameError: name 'undefined_name' is not defined (line 4)"),
        ("import sys\nsys.exit(0)\n", 2, "error: --load {f}: cannot import it: SystemExit: 0 (line 2)"),
        ("import no_such_module_here\n", 2,
         "error: --load {f}: cannot import it: ModuleNotFoundError: No module named 'no_such_module_here' (line 1)"),
        # no ModulePass subclass with a name; an imported pass does not count as the file's own
        (PASS_HEAD + "from gemmc.passes.lds_tiling import LdsTilingPass\n"
                     "class Unnamed(ModulePass):\n    def apply(self, ctx, op): pass\n", 2,
         "error: --load {f}: defines no pass (a subclass of xdsl.passes.ModulePass with a `name`)"),
        # gemmc's own names are not the user's to take
        (PASS_HEAD + "class Mine(ModulePass):\n    name = 'lds-tiling'\n    def apply(self, ctx, op): pass\n", 2,
         "error: register_pass: 'lds-tiling' (Mine) is the name of gemmc's own pass; choose another"),
        (PASS_HEAD + "class Mine(ModulePass):\n    name = 'step3'\n    def apply(self, ctx, op): pass\n", 2,
         "error: register_pass: 'step3' (Mine) is the name of gemmc's own pipeline; choose another"),
        (PASS_HEAD + "class Mine(ModulePass):\n    name = 'my pass'\n    def apply(self, ctx, op): pass\n", 2,
         "error: register_pass: Mine needs a class attribute `name`, a pass name such as 'my-pass'"),
    ],
    ids=["syntax", "name-error", "exit", "missing-module", "no-pass", "builtin-name", "pipeline-name", "bad-name"],
)
def test_bad_pass_file_is_one_line(tmp_path, body, code, message, capsys):
    f = write(tmp_path, "p.py", body)
    got, _, err = run(["opt", SGEMM, "--load", f, "-p", "gemm-to-kernel"], capsys)
    assert got == code
    assert err.splitlines()[0].startswith(message.format(f=f)), err


def test_missing_and_directory_pass_files(tmp_path, capsys):
    code, _, err = run(["opt", SGEMM, "--load", str(tmp_path / "none.py")], capsys)
    assert code == 3 and err.strip() == f"error: --load {tmp_path / 'none.py'}: no such file"
    code, _, err = run(["opt", SGEMM, "--load", str(tmp_path)], capsys)
    assert code == 3 and err.strip() == f"error: --load {tmp_path}: is a directory"


def test_two_files_cannot_take_one_name(tmp_path, capsys):
    body = PASS_HEAD + "class P(ModulePass):\n    name = 'same'\n    def apply(self, ctx, op): pass\n"
    a, b = write(tmp_path, "a.py", body), write(tmp_path, "b.py", body)
    code, _, err = run(["opt", SGEMM, "--load", a, "--load", a, "-p", "same"], capsys)
    assert code == 0, err  # the same file twice: its passes replace themselves
    code, _, err = run(["opt", SGEMM, "--load", a, "--load", b, "-p", "same"], capsys)
    assert code == 2 and "error: register_pass: 'same' is taken by" in err


def test_a_crashing_pass_is_named(tmp_path, capsys):
    f = write(tmp_path, "crash.py", PASS_HEAD + textwrap.dedent("""\
        class Crash(ModulePass):
            name = "crash"
            def apply(self, ctx, op):
                raise RuntimeError("went wrong\\nsecond line")
        """))
    code, _, err = run(["opt", SGEMM, "--load", f, "-p", "gemm-to-kernel,crash"], capsys)
    assert code == 1
    assert err.strip().startswith("error: pass 'crash' (") and err.strip().endswith(
        ") failed: RuntimeError: went wrong"), err


def test_options_of_a_loaded_pass(capsys):
    code, out, _ = run(["opt", SGEMM, "--load", EXAMPLE, "-p", "gemm-to-kernel,mul-to-shift{min-shift=5}"], capsys)
    assert code == 0 and "arith.shli" not in out  # the only factors are 16 = 2**4
    code, _, err = run(["opt", SGEMM, "--load", EXAMPLE, "-p", "mul-to-shift{shift=5}"], capsys)
    assert code == 2 and "error: pass 'mul-to-shift' has no option 'shift'; its options: min-shift" in err


# -- gemmc.register_pass --------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class CountOps(ModulePass):
    """Records how many operations the module has, as a module attribute."""

    name = "count-ops"

    def apply(self, ctx, op) -> None:
        from xdsl.dialects.builtin import IntegerAttr

        op.attributes["test.ops"] = IntegerAttr(sum(1 for _ in op.walk()), 64)


def test_register_pass_from_python():
    assert gemmc.register_pass(CountOps) is CountOps  # usable as a decorator
    gemmc.register_pass(CountOps)  # again: a notebook cell run twice
    m = gemmc.parse_file(SGEMM)
    gemmc.lower(m, "gemm-to-kernel,count-ops", "gfx942")
    assert m.attributes["test.ops"].value.data > 20


def test_register_pass_refuses_what_is_not_a_pass():
    with pytest.raises(gemmc.GemmcError, match="is not a subclass of xdsl.passes.ModulePass"):
        gemmc.register_pass(object)

    class Nameless(ModulePass):
        def apply(self, ctx, op) -> None:
            pass

    with pytest.raises(gemmc.GemmcError, match="Nameless needs a class attribute `name`"):
        gemmc.register_pass(Nameless)


# -- xDSL's upstream passes -----------------------------------------------------------


@pytest.mark.parametrize("name", ["canonicalize", "cse", "dce", "licm", "scf-for-loop-unroll"])
def test_upstream_passes_by_name(name):
    (p,) = pipeline.parse_pipeline_spec(name)
    assert type(p).__module__.startswith("xdsl.transforms.") and p.name == name


def test_gemmc_names_win_over_upstream(monkeypatch):
    class Impostor(ModulePass):
        name = "lds-tiling"

        def apply(self, ctx, op) -> None:
            raise AssertionError("xDSL's pass ran instead of gemmc's")

    monkeypatch.setitem(pipeline.upstream_passes(), "lds-tiling", lambda: Impostor)
    (p,) = pipeline.parse_pipeline_spec("lds-tiling")
    assert type(p).__module__ == "gemmc.passes.lds_tiling"


def test_canonicalize_cse_then_tiling_passes(capsys):
    # M == N: cse makes the launch's two grid sizes one op, which lds-tiling must then rewrite once
    code, out, err = run(["run", SGEMM, "-p", "gemm-to-kernel,canonicalize,cse,lds-tiling",
                          "-D", "M=48", "-D", "N=48", "-D", "K=20"], capsys)
    assert code == 0 and out.startswith("PASS"), out + err


def test_unknown_pass_suggests_a_name(capsys):
    code, _, err = run(["opt", SGEMM, "-p", "gemm-to-kernel,canonicalise"], capsys)
    assert code == 2 and err.startswith("error: unknown pass 'canonicalise'; known passes and pipelines: ")
    assert err.rstrip().endswith("; did you mean 'canonicalize'?")


@dataclasses.dataclass(frozen=True)
class _DropTerminators(ModulePass):
    """Breaks the IR: removes every function's return."""
    name = "drop-returns"

    def apply(self, ctx, op):
        for o in list(op.walk()):
            if o.name in ("func.return", "gpu.return"):
                o.detach()
                o.erase()


def test_a_pass_that_breaks_the_ir_is_stopped_after_it():
    """The user's pass is verified right after it runs, by lower() as by gemmc opt; gemmc's own
    passes after them are not blamed."""
    gemmc.register_pass(_DropTerminators)
    with pytest.raises(gemmc.GemmcError, match=r"^error: IR does not verify after pass 'drop-returns': [^\n]*"
                                                r"terminator"):
        gemmc.lower(gemmc.parse(open(SGEMM).read()), "gemm-to-kernel,drop-returns,lds-tiling", "gfx942")
