"""The fuzzer (issue "Robustness"): random valid .gemm programs, mutations of them, and random
pass pipelines with random options, through gemmc's Python API.

Every case either succeeds -- and then the interpreter's run of the lowered IR matches
numpy, with every global and LDS access bounds- and race-checked (the interpreter raises
on an out-of-bounds access), and the IR prints, parses back and prints the same -- or
fails with a one-line GemmcError with a documented exit code.  Anything else (another
exception, a multi-line message, a wrong C, an OOB access) fails the test.
tests/fuzzing.py holds the generators and the judge.

Deterministic in CI: `derandomize=True` (a fixed seed per test) and no example database.
Set GEMMC_FUZZ_SCALE=10 to run ten times as many cases, with fresh random seeds.  A
crash found here is fixed at its root and kept in tests/errors/test_regressions.py.
"""

from __future__ import annotations

import os
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fuzzing as F
from errors.helpers import BASE, check_render, run_console

SCALE = float(os.environ.get("GEMMC_FUZZ_SCALE", "1"))
COUNTS: dict[str, int] = {}
# test_fuzz_case_count sums what the others counted in this process: under pytest-xdist
# (--dist loadgroup, pyproject.toml) the whole file runs on one worker
pytestmark = pytest.mark.xdist_group("fuzz")
OUTCOMES: dict[str, dict[str, int]] = {}


def fuzz_settings(n: int):
    return settings(
        max_examples=max(1, int(n * SCALE)), derandomize=SCALE == 1, database=None, deadline=None,
        suppress_health_check=list(HealthCheck), print_blob=True,
    )


def _count(test: str, outcome: str) -> None:
    COUNTS[test] = COUNTS.get(test, 0) + 1
    OUTCOMES.setdefault(test, {})
    OUTCOMES[test][outcome] = OUTCOMES[test].get(outcome, 0) + 1


@fuzz_settings(300)
@given(F.programs(), F.pipelines(), F.archs, st.integers(0, 3))
def test_fuzz_valid_programs(program, pipeline, arch, roundtrip):
    """Valid programs parse; any pipeline either lowers them to a kernel that computes C
    (checked against numpy on small sizes) or stops with a one-line diagnostic.  A quarter
    of the cases also print, parse back and print the IR (it must not change)."""
    outcome = F.run_case(program.text(), pipeline, arch, program.defines, program.run_dims(),
                         expect_parse=True, roundtrip=roundtrip == 0)
    _count("valid", outcome)


@fuzz_settings(1300)
@given(F.mutants(), F.archs, st.sampled_from(["step1", "gemm-to-kernel,lds-tiling{block-m=8 block-n=8 block-k=4}",
                                              "step2", ""]))
def test_fuzz_mutated_programs(text, arch, pipeline):
    """Token deletions, insertions, swaps, duplications, random characters and truncations:
    a located syntax or semantic error, or a program that still runs correctly."""
    _count("mutants", F.run_case(text, pipeline, arch, None, 6, roundtrip=False))


@fuzz_settings(250)
@given(st.one_of(F.raw_pipelines(), F.pipelines()), F.archs)
def test_fuzz_pipeline_strings(pipeline, arch):
    """Pipeline text from pass names, braces, options and junk: a usage or pass error, or a
    kernel that runs correctly."""
    _count("pipelines", F.run_case(BASE.replace("M = 8, N = 8, K = 8", "M, N = 9, K"), pipeline, arch,
                                   None, {"M": 7, "K": 5}, roundtrip=False))


@fuzz_settings(400)
@given(F.ir_mutants(), st.sampled_from([None, "", "lds-tiling", "vectorize", "register-tiling", "launch-bounds"]),
       F.archs)
def test_fuzz_mutated_ir(text, pipeline, arch):
    """IR input (`gemmc opt k.mlir`, `gemmc run k.mlir`) with tokens deleted or moved: parse
    errors, verifier errors (including values used where they are not defined), malformed
    gemmc attributes: one-line diagnostics, never a crash."""
    _count("ir", F.run_ir_case(text, pipeline, arch))


def test_fuzz_console_script(tmp_path):
    """A few mutants through the installed console script: exit 0..4, one diagnostic, no traceback."""
    rng = random.Random(5)
    for i in range(6):
        text = BASE
        for _ in range(rng.randint(1, 2)):
            text = F.random_mutation(rng, text)
        src = tmp_path / f"m{i}.gemm"
        src.write_text(text)
        code, out, err = run_console(["run", str(src), "-p", rng.choice(["step1", "step2", "step3"])])
        _count("console", str(code))
        assert code in (0, 1, 2, 3, 4), err
        assert "Traceback" not in err and "internal error" not in err, err
        if code == 0:
            assert out.startswith("PASS"), out
        elif not out.startswith("FAIL"):
            check_render(err.rstrip("\n").split("\n"))


def test_fuzz_oracle_sees_out_of_bounds():
    """The fuzzer's judge would catch a kernel that reads past a matrix: an off-by-one guard
    (row <= M) makes the interpreter raise, and run_case lets that exception through."""
    import gemmc
    from gemmc.interp import InterpError

    m = gemmc.parse(BASE)
    gemmc.lower(m, "step1", "gfx942")
    text = gemmc.print_ir(m)
    assert "arith.cmpi ult, %row, %M" in text
    bad = gemmc.parse_ir(text.replace("arith.cmpi ult, %row, %M", "arith.cmpi ule, %row, %M"), "bad.mlir")
    with pytest.raises(InterpError, match="out-of-bounds"):
        gemmc.check(bad, "gfx942")


def _clang():
    from gemmc.support.diagnostics import GemmcError
    from gemmc.target.toolchain import find_toolchain

    try:
        return find_toolchain()
    except GemmcError:
        return None


@fuzz_settings(40)
@given(F.programs(), F.coherent_pipelines(), st.sampled_from(["gfx90a", "gfx942", "gfx950", "gfx1100", "gfx1201"]),
       st.booleans())
def test_fuzz_emitted_hip_compiles(program, pipeline, arch, harness):
    """What gemmc emits for a valid program is valid HIP for clang (names that are C++
    keywords, mixed 16-bit types, odd tiles): checked with -fsyntax-only on a sample."""
    import subprocess
    import tempfile
    from pathlib import Path

    import gemmc
    from gemmc.target.arch import get_arch
    from gemmc.support.diagnostics import GemmcError
    from gemmc.target.toolchain import device_flags

    tc = _clang()
    if tc is None:
        pytest.skip("no clang with the AMDGPU backend")
    m = gemmc.parse(program.text(), "fuzz.gemm", program.defines)
    try:
        gemmc.lower(m, pipeline, arch)
        source = gemmc.emit(m, arch, "hip", harness=harness)
    except GemmcError as e:
        F.assert_diagnostic(e)
        _count("compiles", "lower")
        return
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "kernel.hip"
        path.write_text(source)
        proc = subprocess.run([tc.clang, *device_flags(get_arch(arch), tc), "-fsyntax-only", str(path)],
                              capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[:3000]
    _count("compiles", "ok")


def test_fuzz_case_count():
    """The CI run covers at least 2000 cases (when the tests above ran in this session)."""
    if not {"valid", "mutants", "pipelines", "ir", "console"} <= set(COUNTS):
        pytest.skip("the fuzz tests above were not all run")
    total = sum(COUNTS.values())
    print(f"fuzz: {total} cases: {OUTCOMES}")
    assert total >= 2000 * min(SCALE, 1)
