"""The clock a kernel runs at (gemmc/cost/clock.py) and the achievable peaks (gemmc/cost/peaks.py):
matrix load holds a CDNA chip below its boost clock, so no kernel is predicted above what the chip
sustains, and explain reports both percentages."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import gemmc
from gemmc.cost import clock
from gemmc.cost.model import combine
from gemmc.cost.peaks import achievable_peak_tflops, matrix_clock_limit_mhz, matrix_peak_tflops
from gemmc.driver.cli import main
from gemmc.target.arch import ARCHS, get_arch

ROOT = Path(__file__).resolve().parent.parent
HGEMM = str(ROOT / "examples" / "hgemm.gemm")
SGEMM = str(ROOT / "examples" / "sgemm.gemm")
BIG = {"M": 4096, "N": 4096, "K": 4096}


def _matrix_only(arch, busy: float) -> tuple[dict, float]:
    """Resource times at the boost clock of a kernel whose matrix pipes are busy `busy` of
    its 1 ms, and its matrix SIMD cycles."""
    cycles = busy * 1e-3 * arch.clock_mhz * 1e6 * arch.cu_count * arch.simds_per_cu
    return {"matrix": busy * 1e-3, "lds": 1e-3}, cycles


def _clock(arch, times, cycles, in_type="f16"):
    return clock.sustained_clock_mhz(arch, in_type, times, cycles, lambda ts: max(ts.values()))


def test_busy_matrix_pipes_run_at_the_achievable_clock():
    gfx942 = get_arch("gfx942")
    times, cycles = _matrix_only(gfx942, 1.0)
    f = _clock(gfx942, times, cycles)
    assert f == pytest.approx(matrix_clock_limit_mhz(gfx942, "f16"), rel=1e-6)
    # at that clock the f16 matrix peak is hipBLASLt's published 654 TFLOP/s
    assert matrix_peak_tflops(gfx942, "f16") * f / gfx942.clock_mhz == pytest.approx(654.0, rel=1e-6)


def test_idler_matrix_pipes_keep_a_higher_clock():
    gfx942 = get_arch("gfx942")
    limit = matrix_clock_limit_mhz(gfx942, "f16")
    times, cycles = _matrix_only(gfx942, 0.5)
    f = _clock(gfx942, times, cycles)
    # power ~ busy * f ** POWER_EXPONENT, busy constant as every time scales with the clock
    assert f == pytest.approx(limit * 0.5 ** (-1 / clock.POWER_EXPONENT), rel=1e-6)
    assert limit < f < gfx942.clock_mhz


def test_light_matrix_load_and_unpublished_archs_keep_the_boost():
    gfx942 = get_arch("gfx942")
    times, cycles = _matrix_only(gfx942, 0.01)
    assert _clock(gfx942, times, cycles) == gfx942.clock_mhz
    for name in ("gfx90a", "gfx1100", "gfx1201", "sm_90"):
        arch = ARCHS[name]
        times, cycles = _matrix_only(arch, 1.0)
        assert _clock(arch, times, cycles) == arch.clock_mhz, name


def test_dram_time_does_not_scale_with_the_clock():
    slowed = clock.at_clock({"matrix": 1.0, "lds": 2.0, "dram": 3.0}, 2.0)
    assert slowed == {"matrix": 2.0, "lds": 4.0, "dram": 3.0}


def test_a_type_without_a_figure_takes_the_lowest_published_clock():
    gfx942 = get_arch("gfx942")
    limits = [matrix_clock_limit_mhz(gfx942, t) for t in ("f16", "bf16")]
    assert matrix_clock_limit_mhz(gfx942, "f8e4m3fnuz") == min(limits)
    assert achievable_peak_tflops(gfx942, "f32") == gfx942.fp32_valu_peak_tflops  # the VALUs: no figure


def test_combine_is_what_the_model_uses():
    """The solve takes the model's own combination of times: a p-norm, not the max."""
    gfx942 = get_arch("gfx942")
    times, cycles = _matrix_only(gfx942, 0.9)
    by_norm = clock.sustained_clock_mhz(gfx942, "f16", times, cycles, lambda ts: combine(ts, 2))
    assert by_norm > _clock(gfx942, times, cycles)  # the p-norm's longer time: less busy, a higher clock


@pytest.mark.parametrize("arch", ["gfx942", "gfx950"])
def test_no_default_is_predicted_above_the_achievable_peak(arch):
    rows = gemmc.explain_file(HGEMM, arch, None, BIG, compiler=False)
    default = rows[-1].prediction
    assert default.tflops <= achievable_peak_tflops(get_arch(arch), "f16") * 1.0001
    assert default.clock_mhz < get_arch(arch).clock_mhz
    assert any("holds the clock" in n for n in default.notes)


def test_explain_prints_both_peaks(capsys):
    assert main(["explain", HGEMM, "--arch", "gfx942", "-D", "M=4096", "-D", "N=4096", "-D", "K=4096",
                 "-p", "step7", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["achievable_peak_tflops"] == pytest.approx(654.0)
    assert "hipBLASLt" in d["achievable_peak_source"]
    step = d["steps"][0]
    assert step["percent_of_achievable_peak"] == pytest.approx(100 * step["tflops"] / 654.0)
    assert step["percent_of_problem_peak"] == pytest.approx(100 * step["tflops"] / d["problem_peak_tflops"])
    assert main(["explain", HGEMM, "--arch", "gfx942", "-p", "step7"]) == 0
    out = capsys.readouterr().out
    assert "achievable 654.0" in out.splitlines()[0] and "% achv" in out and "MHz" in out


def test_fp32_vector_kernels_keep_the_boost():
    rows = gemmc.explain_file(SGEMM, "gfx942", "step6", BIG, compiler=False)
    assert rows[0].prediction.clock_mhz == get_arch("gfx942").clock_mhz
