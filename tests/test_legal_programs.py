"""The default is total (issue "Robustness round 3"): every legal program, on every target, goes
through `gemmc compile` and `gemmc run` without -p and PASSes; an explicit -p that names a pass
that cannot take it keeps its located refusal.

tests/legal_programs.py generates the programs (hypothesis, over the language and each target's
types); CI runs a few per target, scripts/legal_sweep.py many more.  Deterministic in CI
(`derandomize=True`, no example database).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

import gemmc
import gemmc.driver.selection as selection
from gemmc.cost.peaks import matrix_peak_tflops, vector_peak_tflops
from gemmc.driver.cli import main
from gemmc.support.diagnostics import GemmcError
from gemmc.target.arch import AMD_ARCHS, get_arch

import legal_programs as L

pytestmark = pytest.mark.xdist_group("legal")
EXAMPLES = Path(__file__).resolve().parent.parent / "examples"

ACC_F16 = """kernel h {
  dim M = 67, N = 45, K = 37
  A: f16[M, K]
  B: f16[K, N]
  C: f16[M, N]
  acc f16
  C = A @ B
}
"""


def run_console(argv: list[str], capsys) -> tuple[int, str, str]:
    """The CLI in this process: exit status, stdout, stderr."""
    code = main(argv)
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def _settings(n: int):
    return settings(max_examples=n, derandomize=True, database=None, deadline=None,
                    suppress_health_check=list(HealthCheck), print_blob=True)


@pytest.mark.parametrize("arch", AMD_ARCHS)
def test_acc_f16_passes_with_the_default(arch):
    """f16 inputs accumulated in f16: CDNA's MFMAs accumulate in f32 only, so its default takes
    the FMA pipeline there (and says so), RDNA's v_wmma_f16_16x16x16_f16 keeps the matrix cores.
    (sm_90 has no f16: the program is not legal there.)"""
    reason = L.run_default(L.Legal(arch, ACC_F16), host=False)
    cdna = get_arch(arch).family.startswith("CDNA")
    said = f"{arch}'s matrix cores cannot multiply f16 into f16 accumulators: the FMA pipeline"
    assert (said in reason) == cdna, reason
    module = gemmc.lower(gemmc.parse(ACC_F16, "h.gemm", None, arch), None, arch)
    assert ("matrix-cores" in module.attributes["gemmc.pipeline"].data) != cdna


def test_acc_f16_cli_run_compile_and_report(capsys, tmp_path):
    """`gemmc run` PASSes, `gemmc compile --report` names the FMA pipeline and why; `-p step7`,
    which names the matrix cores, keeps mfma-lowering's refusal."""
    src = tmp_path / "h.gemm"
    src.write_text(ACC_F16)
    code, out, _ = run_console(["run", str(src), "--arch", "gfx942"], capsys)
    assert code == 0 and out.startswith("PASS"), out
    code, out, err = run_console(["compile", str(src), "--arch", "gfx942", "--report", "-o", str(tmp_path / "h.hip")],
                                 capsys)
    assert code == 0 and "selected because gfx942's matrix cores cannot multiply f16 into f16" in out + err
    code, _, err = run_console(["compile", str(src), "--arch", "gfx942", "-p", "step7"], capsys)
    assert code == 1 and "mfma-lowering: MFMA on gfx942 accumulates in f32; the kernel accumulates in f16" in err


def test_an_fp8_pair_into_f16_says_why_it_keeps_the_fmas():
    """e4m3 x e5m2 accumulated in f16 on gfx942: no MFMA takes it, and the type-independent default
    (no table has mixed FP8 pairs) keeps its FMAs through matrix-cores{fallback=true}; --report's
    reason says so, and the kernel PASSes."""
    src = ("kernel q {\n  dim M = 40, N = 24, K = 36\n  A: f8e4m3fnuz[M, K]\n  B: f8e5m2fnuz[K, N]\n"
           "  C: f32[M, N]\n  acc f16\n  C = A @ B\n}\n")
    reason = L.run_default(L.Legal("gfx942", src), host=False)
    assert ("gfx942's matrix cores cannot multiply f8e4m3fnuz x f8e5m2fnuz into f16 accumulators: the default "
            "pipeline, whose matrix-cores{fallback=true} keeps the FMAs") in reason, reason


REFUSED = "gemm-to-kernel,lds-tiling{block-m=64 block-n=64 block-k=16},register-tiling,mfma-lowering{instr=v_mfma_f32_32x32x8_f16}"


def test_a_refused_default_falls_back(monkeypatch):
    """Where a pass refuses the default (here one whose instruction takes f16, for an f32
    program), the selection lowers the type-independent default instead and says why."""
    monkeypatch.setattr(selection, "base_pipeline", lambda module, arch: (REFUSED, ""))
    module = gemmc.parse(ACC_F16.replace("f16", "f32"), "s.gemm")
    gemmc.lower(module, None, "gfx942")
    reason = module.attributes["gemmc.selected"].data
    assert reason.startswith("the default pipeline is refused (mfma-lowering: v_mfma_f32_32x32x8_f16 takes f16 inputs")
    assert reason.endswith(": the type-independent default"), reason
    assert gemmc.check(module, "gfx942", {}).passed


def test_the_defaults_refusal_stands_when_every_fallback_is_refused(monkeypatch):
    monkeypatch.setattr(selection, "base_pipeline", lambda module, arch: (REFUSED, ""))
    monkeypatch.setattr(selection, "fallbacks", lambda arch: [("another", REFUSED + ",launch-bounds")])
    with pytest.raises(GemmcError, match="v_mfma_f32_32x32x8_f16 takes f16 inputs"):
        gemmc.lower(gemmc.parse(ACC_F16.replace("f16", "f32"), "s.gemm"), None, "gfx942")


SPLIT_ALPHA = """kernel R {
  n: f32
  k: f32[auto, launch_k]
  a: f32[row, launch_k] col_major
  s: f32[row, auto] col_major
  dim row, auto, launch_k
  k = 3e-1 * s.T @ a + n * k
}
"""


def test_inexact_alpha_through_stream_k_passes():
    """Found by the sweep: sm_90's dispatch runs stream-k at 32x13x32, whose fix-up adds
    0.3 * each workgroup's partial sum into C with atomics; the exact run held C to one rounding
    of alpha * sum and FAILed it.  Each partial's rounding is now allowed for."""
    module = gemmc.lower(gemmc.parse(SPLIT_ALPHA, "r.gemm"), None, "sm_90")
    assert "stream-k" in module.attributes["gemmc.selected"].data
    result = gemmc.check(module, "sm_90", {"row": 32, "auto": 32, "launch_k": 13})
    assert result.passed and not result.exact.bitwise, result.summary()


@pytest.mark.parametrize("arch", L.TARGETS)
@_settings(3)
@given(data=L.st.data())
def test_legal_programs_pass_with_the_default(arch, data):
    """Generated legal programs for the target: the default lowers them, emits HIP with the
    harness, and the interpreter's run matches the declared program."""
    L.run_default(data.draw(L.legal_programs(arch)))


@pytest.mark.parametrize("arch", L.TARGETS)
@_settings(1)
@given(data=L.st.data())
def test_legal_programs_host_side_builds(toolchain, arch, data, tmp_path_factory):
    """One generated program a target with its host side built (clang's HIP host pass; nvcc's
    CUDA front end on sm_90), launcher and harness."""
    if arch == "sm_90":
        pytest.importorskip("shutil").which("nvcc") or pytest.skip("no nvcc")
    L.run_default(data.draw(L.legal_programs(arch)), host=True, tmp=tmp_path_factory.mktemp("host"))


def test_explain_json_peaks_are_the_problems(capsys):
    """An f16 problem's peak is the f16 matrix peak, named as such, and every step's share is of
    it (before: `peak_tflops` was step1's FP32 VALU peak, 163, beside shares of 1307)."""
    code, out, _ = run_console(["explain", str(EXAMPLES / "hgemm.gemm"), "--arch", "gfx942", "--json", "--no-compiler",
                                "-D", "M=512", "-D", "N=512", "-D", "K=512"], capsys)
    assert code == 0
    d = json.loads(out)
    arch = get_arch("gfx942")
    assert d["problem_type"] == "f16" and d["problem_peak_units"] == "f16 matrix cores"
    assert d["problem_peak_tflops"] == matrix_peak_tflops(arch, "f16") != vector_peak_tflops(arch)
    assert "peak_tflops" not in d
    for step in d["steps"]:
        assert "percent_of_peak" not in step
        assert step["percent_of_problem_peak"] == pytest.approx(100 * step["tflops"] / d["problem_peak_tflops"])
    code, out, _ = run_console(["explain", str(EXAMPLES / "sgemm.gemm"), "--arch", "gfx1100", "--json", "--no-compiler",
                                "-D", "M=256", "-D", "N=256", "-D", "K=256", "-p", "step3"], capsys)
    d = json.loads(out)
    assert (d["problem_type"], d["problem_peak_units"]) == ("f32", "f32 VALUs")
    assert d["problem_peak_tflops"] == vector_peak_tflops(get_arch("gfx1100"))
