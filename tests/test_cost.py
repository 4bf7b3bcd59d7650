"""The cost model (gemmc/cost/): counts against the interpreter, banks, occupancy against
clang, the tutorial's trends, and the explain / tune commands.  No timed assertions."""

from __future__ import annotations

import json
import math
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gemmc
from gemmc.target.toolchain import have_toolchain
from gemmc.target.arch import ARCHS, get_arch
from gemmc.driver.cli import main
from gemmc.cost import banks
from gemmc.cost.counts import count
from gemmc.cost.compiled import compiler_resources
from gemmc.cost.kernel import read_kernel
from gemmc.cost.model import RESOURCES, combine, predict
from gemmc.cost.occupancy import occupancy
from gemmc.driver.tune import Candidate, space

ROOT = Path(__file__).resolve().parent.parent
SGEMM = str(ROOT / "examples" / "sgemm.gemm")
ALPHA_BETA = str(ROOT / "examples" / "gemm_alpha_beta.gemm")
HGEMM = str(ROOT / "examples" / "hgemm.gemm")
STEPS = ["step1", "step2", "step3", "step4", "step5", "step6"]
# the interpreter counts block-id arithmetic as per-lane integer VALU (it batches
# workgroups as lanes); the model counts it as scalar work, as the hardware does
NOT_COMPARED = {"valu_int_instrs"}


def lowered(path: str, pipeline: str, arch: str = "gfx942", dims=None):
    m = gemmc.parse_file(path, dims)
    gemmc.lower(m, pipeline, arch)
    return m


# -- counts: the model's IR counters equal what the interpreter executes ----------------------


def _compare(path, pipeline, arch, dims):
    m = lowered(path, pipeline, arch, dims)
    k = read_kernel(m, dims)
    mine = count(k, get_arch(arch)).stats_dict()
    ran = gemmc.check(m, arch, dims).stats.as_dict()
    diff = {key: (mine[key], ran[key]) for key in mine if key in ran and key not in NOT_COMPARED
            and mine[key] != ran[key]}
    assert not diff, f"{pipeline} on {arch} {dims}: model vs interpreter {diff}"


@pytest.mark.parametrize("arch", ["gfx942", "gfx1100"])
@pytest.mark.parametrize("step", STEPS)
def test_counts_match_interpreter(step, arch):
    _compare(SGEMM, step, arch, {"M": 128, "N": 128, "K": 64})


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(m=st.integers(1, 80), n=st.integers(1, 80), k=st.integers(1, 40), step=st.sampled_from(STEPS))
def test_counts_match_interpreter_ragged(m, n, k, step):
    """Sizes that are not multiples of any tile: guards decide which waves issue."""
    _compare(ALPHA_BETA, step, "gfx942", {"M": m, "N": n, "K": k})


def test_counts_do_not_run_the_kernel():
    """4096^3 is counted from samples: the counters are exact products, not a run."""
    m = lowered(SGEMM, "step2")
    c = count(read_kernel(m), get_arch("gfx942"))
    assert c.flops == 2 * 4096**3
    assert c.barriers == 2 * 256 * 256 * 256  # two per K tile, per workgroup
    assert c.global_load_bytes == 2 * 4 * 4096**3 / 16


# -- LDS banks ----------------------------------------------------------------------------------


def _cycles(addr_words, access=4, arch="gfx942"):
    a = get_arch(arch)
    byte = np.asarray(addr_words, dtype=np.int64)[None, :] * 4
    live = np.ones_like(byte, dtype=bool)
    return banks.wave_cycles(byte, live, access, a)


def test_banks_consecutive_words_conflict_free():
    r = _cycles(np.arange(64))
    assert r.cycles[0] == r.ideal[0] == 2  # wave64, 32 lanes a cycle


def test_banks_broadcast_is_free():
    assert _cycles(np.zeros(64, dtype=int)).degree == 1.0


@pytest.mark.parametrize("stride, degree", [(2, 2), (4, 4), (16, 16), (32, 32), (33, 1)])
def test_banks_stride(stride, degree):
    assert _cycles(np.arange(64) * stride).degree == degree


def test_banks_wide_access_groups_fewer_lanes():
    r = _cycles(np.arange(64) * 4, access=16)  # ds_read_b128, consecutive: 8 lanes a cycle
    assert r.ideal[0] == 8 and r.degree == 1.0


def test_banks_match_interpreter_count():
    m = lowered(SGEMM, "step6", dims={"M": 128, "N": 128, "K": 32})
    stats = gemmc.check(m, "gfx942", {"M": 128, "N": 128, "K": 32}).stats
    c = count(read_kernel(m), get_arch("gfx942"))
    assert stats.lds_bank_conflicts > 0
    assert round(c.lds_bank_conflicts) == stats.lds_bank_conflicts


# -- occupancy ---------------------------------------------------------------------------------


@pytest.mark.parametrize("vgprs, waves", [(24, 8), (64, 8), (65, 7), (128, 4), (129, 3), (256, 2), (512, 1)])
def test_occupancy_by_vgprs_gfx942(vgprs, waves):
    """512 registers per lane per SIMD, granule 8 (LLVM's gfx90a+ rules)."""
    from gemmc.target.toolchain import KernelResources

    m = lowered(SGEMM, "gemm-to-kernel{block-x=64 block-y=1}")  # one wave: VGPRs alone limit
    k = read_kernel(m)
    res = KernelResources("sgemm", "gfx942", vgprs, 0, 16, 0, 0, 0)
    assert occupancy(k, get_arch("gfx942"), count(k, get_arch("gfx942")), res).waves_per_simd == waves


@pytest.mark.skipif(not have_toolchain(), reason="needs clang with the AMDGPU backend")
@pytest.mark.parametrize("arch, pipeline", [
    ("gfx942", "step6"),
    ("gfx942", "gemm-to-kernel,lds-tiling{block-m=64 block-n=64 block-k=16},register-tiling{thread-m=4 thread-n=4},"
               "launch-bounds{max-threads=256}"),
    ("gfx90a", "step6"),
    ("gfx1100", "step6"),
])
def test_occupancy_equals_clang_when_launch_bounds_give_the_block(arch, pipeline):
    m = lowered(SGEMM, pipeline, arch)
    a = get_arch(arch)
    res = compiler_resources(m, a)
    k = read_kernel(m)
    assert occupancy(k, a, count(k, a), res).waves_per_simd == res.occupancy


@pytest.mark.skipif(not have_toolchain(), reason="needs clang with the AMDGPU backend")
def test_vgpr_budget_predicts_clangs_spills():
    """Without launch bounds clang budgets 128 VGPRs (1024-thread workgroups) on gfx942."""
    a = get_arch("gfx942")
    m = lowered(SGEMM, "step3")
    res = compiler_resources(m, a)
    k = read_kernel(m)
    occ = occupancy(k, a, count(k, a))
    assert occ.vgpr_budget == 128 and res.vgprs == 128 and res.vgpr_spill > 0 and occ.spilled_vgprs > 0


# -- the tutorial's trends (sgemm 4096^3 on gfx942) -------------------------------------------


@pytest.fixture(scope="module")
def steps_gfx942():
    return {r.name: r.prediction for r in gemmc.explain_file(SGEMM, "gfx942", compiler=False)}


def test_naive_is_slowest(steps_gfx942):
    naive = steps_gfx942["step1"].time_s
    assert all(p.time_s < naive for name, p in steps_gfx942.items() if name != "step1")


def test_lds_tiling_cuts_global_traffic_by_the_tile(steps_gfx942):
    ratio = steps_gfx942["step1"].traffic.requested / steps_gfx942["step2"].traffic.requested
    assert ratio == pytest.approx(16, rel=0.05)  # TILE_SIZE = 16


def test_register_tiling_cuts_lds_instructions(steps_gfx942):
    s2, s3 = (steps_gfx942[s].counts for s in ("step2", "step3"))
    assert s3.lds_load_instrs * 4 < s2.lds_load_instrs
    assert s3.issued("lds") * 4 < s2.issued("lds")


def test_vectorize_cuts_vmem_instructions(steps_gfx942):
    # step 5 vectorizes A's copy (a quarter of its loads), not B's: (1/4 + 1) / 2 of step 4's
    assert steps_gfx942["step5"].counts.issued("global") <= steps_gfx942["step4"].counts.issued("global") * 0.65


def test_predictions_are_sane(steps_gfx942):
    for p in steps_gfx942.values():
        assert 0 < p.time_s < 10 and p.bound in RESOURCES
        assert 0 < p.percent_of_peak <= 100


@settings(max_examples=20, deadline=None)
@given(st.dictionaries(st.sampled_from(RESOURCES), st.floats(1e-6, 1.0), min_size=1))
def test_combine_between_max_and_sum(times):
    t = combine(times)
    assert max(times.values()) * (1 - 1e-12) <= t <= sum(times.values()) * (1 + 1e-12)


def test_combine_one_wave_per_simd_adds():
    """With one wave per SIMD no other wave's work overlaps its waits: the times add."""
    times = {"lds": 2.0, "matrix": 1.0, "latency": 1.5}
    assert combine(times, waves_per_simd=1) == pytest.approx(4.5)
    assert combine(times, waves_per_simd=2) == pytest.approx((4 + 1 + 2.25) ** 0.5)
    assert combine(times, waves_per_simd=8) == combine(times)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(arch=st.sampled_from(sorted(ARCHS)), step=st.sampled_from(STEPS))
def test_every_arch_predicts(arch, step):
    if "f32" not in ARCHS[arch].dtypes:
        return
    p = predict(lowered(SGEMM, step, arch), get_arch(arch))
    assert math.isfinite(p.time_s) and p.time_s > 0 and p.tflops <= p.peak_tflops * 1.0001


def test_larger_problem_takes_longer():
    small = predict(lowered(SGEMM, "step6", dims={"M": 2048, "N": 2048, "K": 2048}), get_arch("gfx942"))
    big = predict(lowered(SGEMM, "step6"), get_arch("gfx942"))
    assert big.time_s > 4 * small.time_s


def test_half_precision_problem():
    p = predict(lowered(HGEMM, "step3"), get_arch("gfx942"))
    assert p.kernel.problem.in_type == "f16" and p.time_s > 0


# -- the tuner's space ---------------------------------------------------------------------------


def test_space_respects_thread_limits():
    a = get_arch("gfx942")
    cands = space(a)
    assert cands and all(a.wave_size <= c.threads <= 1024 for c in cands)
    assert len({c.pipeline() for c in cands}) == len(cands)


def test_candidate_pipeline_text():
    c = Candidate(128, 128, 16, 8, 8, True, 4, 2)
    assert c.pipeline() == ("gemm-to-kernel{block-x=16 block-y=16},lds-tiling{block-m=128 block-n=128 block-k=16},"
                            "register-tiling{thread-m=8 thread-n=8},vectorize{width=4},double-buffer,"
                            "launch-bounds{max-threads=256 min-waves-per-eu=2}")


# -- the command line -----------------------------------------------------------------------------


def run(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    assert "Traceback" not in err and "Traceback" not in out
    return code, out, err


def test_explain_table(capsys):
    code, out, _ = run(["explain", SGEMM, "--arch", "gfx942", "--no-compiler"], capsys)
    assert code == 0
    for word in ("step1", "step6", "TFLOP/s", "bound", "VGPRs", "bank confl", "MI300X"):
        assert word in out


def test_explain_json(capsys):
    code, out, _ = run(["explain", SGEMM, "--arch", "gfx90a", "--json", "--no-compiler",
                        "-D", "M=1024", "-D", "N=1024", "-D", "K=1024"], capsys)
    assert code == 0
    d = json.loads(out)
    assert d["arch"] == "gfx90a" and d["problem"]["M"] == 1024
    names = [s["name"] for s in d["steps"]]
    assert names[:6] == STEPS
    for s in d["steps"]:
        for key in ("pipeline", "time_s", "tflops", "bound", "occupancy", "vgprs", "lds_bytes", "vmem_instrs",
                    "lds_instrs", "valu_instrs", "mfma_instrs", "bank_conflict_cycles", "scratch_bytes"):
            assert key in s


def test_explain_one_pipeline_and_dynamic_dims(capsys):
    code, out, _ = run(["explain", ALPHA_BETA, "-p", "step3", "--json", "--no-compiler",
                        "-D", "M=300", "-D", "N=200", "-D", "K=100"], capsys)
    d = json.loads(out)
    assert code == 0 and [s["name"] for s in d["steps"]] == ["step3"] and d["problem"]["N"] == 200


def test_explain_kernel_ir_input(tmp_path, capsys):
    ir = tmp_path / "k.mlir"
    ir.write_text(gemmc.print_ir(lowered(SGEMM, "step2")))
    code, out, _ = run(["explain", str(ir), "--json", "--no-compiler"], capsys)
    assert code == 0 and json.loads(out)["steps"][0]["name"] == "input"


def test_explain_plot(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    out = tmp_path / "roof.svg"
    code, _, _ = run(["explain", SGEMM, "--plot", str(out), "--no-compiler",
                      "-D", "M=512", "-D", "N=512", "-D", "K=512"], capsys)
    assert code == 0 and out.read_text().startswith("<?xml")


@pytest.mark.parametrize("argv, code, message", [
    (["explain", SGEMM, "--arch", "gfx1"], 2, "unknown arch"),
    (["explain", "nope.gemm"], 3, "no such file"),
    (["explain", SGEMM, "--plot", "x.txt"], 2, "--plot writes"),
    (["explain", SGEMM, "-p", "bogus-pass"], 2, "unknown pass"),
    (["explain", ALPHA_BETA, "--no-compiler"], 1, "give its size with -D"),
    (["tune", SGEMM, "--budget", "0"], 2, "--budget"),
])
def test_explain_and_tune_errors(argv, code, message, capsys):
    got, _, err = run(argv, capsys)
    assert got == code and message in err and err.count("\n") <= 3


def test_tune_writes_winner_and_test(tmp_path, capsys):
    best = tmp_path / "best.pipeline"
    code, out, err = run(["tune", SGEMM, "--arch", "gfx942", "--budget", "8", "--seed", "3", "--no-compiler",
                          "-o", str(best), "--emit-test", str(tmp_path / "lit")], capsys)
    assert code == 0 and "tune [" in err and "pipeline" in out
    winner = best.read_text().strip()
    assert winner.startswith("gemm-to-kernel") and winner in out
    test = tmp_path / "lit" / "sgemm-gfx942-tuned.gemm"
    text = test.read_text()
    assert "// RUN: %gemmc opt %s" in text and "CHECK: gemm.schedule = {" in text and "INTERP: PASS" in text
    # the winner compiles and passes the interpreter at a small size
    assert main(["compile", SGEMM, "-p", winner, "-o", str(tmp_path / "w.hip")]) == 0
    assert main(["run", SGEMM, "-p", winner, "-D", "M=70", "-D", "N=90", "-D", "K=20"]) == 0
    capsys.readouterr()


def test_tune_is_deterministic_for_a_seed():
    a = gemmc.tune_file(SGEMM, "gfx942", budget=6, seed=7, compiler=False)
    b = gemmc.tune_file(SGEMM, "gfx942", budget=6, seed=7, compiler=False)
    assert [t.pipeline for t in a.trials] == [t.pipeline for t in b.trials]
    assert a.best.pipeline == b.best.pipeline


def test_tune_prunes_what_the_passes_refuse():
    from gemmc.driver.tune import evaluate

    big = Candidate(256, 256, 32, 8, 8, True, 4, 0)  # 2 x 2 x 256 x 32 x 4 B = 128 KiB of LDS
    t = evaluate(lambda: gemmc.parse_file(SGEMM), get_arch("gfx942"), big)
    assert t.prediction is None and "LDS" in t.error


@pytest.mark.skipif(shutil.which("filecheck") is None, reason="needs filecheck")
def test_emitted_lit_test_passes(tmp_path, capsys):
    """The pinned test runs under lit's substitutions, spelled out here."""
    assert main(["tune", SGEMM, "--budget", "4", "--no-compiler", "--emit-test", str(tmp_path)]) == 0
    capsys.readouterr()
    test = tmp_path / "sgemm-gfx942-tuned.gemm"
    gemmc_cmd = f"{sys.executable} -m gemmc.driver.cli"
    for line in test.read_text().splitlines():
        if line.startswith("// RUN:"):
            cmd = line[len("// RUN:"):].replace("%gemmc", gemmc_cmd).replace("%s", str(test))
            proc = subprocess.run(cmd, shell=True, capture_output=True, text=True)
            assert proc.returncode == 0, proc.stdout + proc.stderr


def test_roofline_peak_is_the_problems_element_types():
    """explain --plot's ceiling: an f16 problem's is the f16 matrix peak (1307 TFLOP/s on gfx942),
    not the FP32 VALU peak of step 1 (163); an f32 problem's stays the FP32 one."""
    from gemmc.driver.explain import explain_steps, predicted
    from gemmc.cost.peaks import matrix_peak_tflops, problem_peak_tflops, vector_peak_tflops
    from gemmc.driver.roofline import roofline_peak

    arch = get_arch("gfx942")
    dims = {"M": 512, "N": 512, "K": 512}
    assert problem_peak_tflops(arch, "f16") == matrix_peak_tflops(arch, "f16") == pytest.approx(1307.4, rel=0.01)
    assert problem_peak_tflops(arch, "f32") == vector_peak_tflops(arch) == pytest.approx(163.4, rel=0.01)
    for path, expected in ((HGEMM, problem_peak_tflops(arch, "f16")),
                           (SGEMM, vector_peak_tflops(arch))):
        rows = predicted(explain_steps(lambda: gemmc.parse_file(path, defines=dims), arch, "step1", dims, False))
        assert rows[0].prediction.peak_tflops == vector_peak_tflops(arch)  # step 1: FMAs on the VALUs
        assert roofline_peak(rows, arch) == expected
