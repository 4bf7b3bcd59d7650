"""FP8 formats: the reference numerics (ml_dtypes), the accuracy tables derived from them,
random inputs in range, and the FP8 matrix instructions in gemmc/target/arch.py."""

from __future__ import annotations

from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gemmc
from gemmc.target.arch import ARCHS, FNUZ_FP8, OCP_FP8
from gemmc.support.arith_semantics import FP8_DTYPES, to_fp8
from gemmc.interp.accuracy import PRECISION, SMALLEST_NORMAL, UNIT_ROUNDOFF
from gemmc.interp.check import host_function, random_inputs

FORMATS = FNUZ_FP8 + OCP_FP8


def test_fnuz_formats_have_no_negative_zero_and_nan_0x80():
    for fmt in FNUZ_FP8:
        bits = np.array([-0.0, np.nan], np.float32).astype(FP8_DTYPES[fmt]).view(np.uint8)
        assert list(bits) == [0x00, 0x80]
        assert np.isnan(to_fp8(np.array([np.nan]), fmt)).all()
    # exponent bias 8 (e4m3) and 16 (e5m2): 1.0 is 0 1000 000 and 0 10000 00
    assert np.array([1.0]).astype(FP8_DTYPES["f8e4m3fnuz"]).view(np.uint8)[0] == 0x40
    assert np.array([1.0]).astype(FP8_DTYPES["f8e5m2fnuz"]).view(np.uint8)[0] == 0x40
    # OCP: bias 7 and 15, with a negative zero
    assert np.array([1.0]).astype(FP8_DTYPES["f8e4m3fn"]).view(np.uint8)[0] == 0x38
    assert np.array([-0.0]).astype(FP8_DTYPES["f8e5m2"]).view(np.uint8)[0] == 0x80


def test_accuracy_tables_come_from_the_formats():
    assert [UNIT_ROUNDOFF[f] for f in FORMATS] == [2.0**-4, 2.0**-3, 2.0**-4, 2.0**-3]
    assert [PRECISION[f] for f in FORMATS] == [4, 3, 4, 3]
    assert [SMALLEST_NORMAL[f] for f in FORMATS] == [2.0**-7, 2.0**-15, 2.0**-6, 2.0**-14]


@settings(max_examples=200, deadline=None)
@given(st.floats(-1e6, 1e6, allow_nan=False), st.sampled_from(FORMATS))
def test_rounding_is_once_to_nearest_even(x, fmt):
    """From float64 directly (no double rounding through float32): the nearest value of the
    format, ties to the even significand; beyond the range NaN (or Inf for OCP e5m2)."""
    got = float(to_fp8(np.float64(x), fmt))
    info = ml_dtypes.finfo(FP8_DTYPES[fmt])
    top = float(info.max)
    half_ulp = 2.0 ** np.floor(np.log2(top)) * float(info.eps) / 2  # of the largest finite value
    if abs(x) >= top + half_ulp:  # past the last rounding boundary (a tie there goes up: max is odd)
        overflowed = np.isnan(got) or (fmt == "f8e5m2" and np.isinf(got))
        assert overflowed or (abs(x) == top + half_ulp and abs(got) == top)
        return
    values = np.arange(256, dtype=np.uint8).view(FP8_DTYPES[fmt]).astype(np.float64)
    values = values[np.isfinite(values)]
    dist = np.abs(values - x)
    best = values[dist == dist.min()]
    assert got in best  # a tie has two candidates; ml_dtypes picks the even one
    if len(set(best)) == 2:
        even = [v for v in best if np.array([v]).astype(FP8_DTYPES[fmt]).view(np.uint8)[0] % 2 == 0]
        assert got == even[0]


def test_conversion_data_matches_the_reference_numerics():
    """The FP8 instructions state their f32 -> FP8 conversion does not saturate: so does
    to_fp8 (NaN past e4m3's 240 / 448)."""
    for arch in ("gfx942", "gfx950", "gfx1201"):
        fp8 = [i for i in ARCHS[arch].matrix_instrs if i.in_bits == 8 and not i.formats and i.in_type != "i8"]  # (f8f6f4: test_mx)
        assert len(fp8) == (8 if arch != "gfx1201" else 4)
        assert all(i.convert.startswith("v_cvt_pk_") and not i.convert_saturates for i in fp8)
    assert np.isnan(to_fp8(np.float64(1000.0), "f8e4m3fnuz")) and np.isnan(to_fp8(np.float64(1000.0), "f8e4m3fn"))


@pytest.mark.parametrize("arch,fmts", [("gfx942", FNUZ_FP8), ("gfx950", OCP_FP8), ("gfx1201", OCP_FP8)])
def test_fp8_instructions_name_their_formats(arch, fmts):
    """fp8 = e4m3, bf8 = e5m2 in the mnemonic; FNUZ on gfx942, OCP on gfx950 and gfx1201."""
    e4m3, e5m2 = fmts
    for i in ARCHS[arch].matrix_instrs:
        if i.in_bits != 8 or i.formats or i.in_type == "i8":  # (gfx950's f8f6f4 MFMAs: tests/test_mx.py)
            continue
        a, b = i.mnemonic.split("_")[-2:]
        assert (i.in_type, i.b_in_type) == tuple(e4m3 if x == "fp8" else e5m2 for x in (a, b)), i.mnemonic
        assert i.a.items == i.b.items == 8 and i.a_regs == i.b_regs == 2 and i.out_type == "f32"
        assert i.builtin == "__builtin_amdgcn_" + i.mnemonic[2:] + ("_w32_gfx12" if arch == "gfx1201" else "")


@pytest.mark.parametrize("a,b", [("f8e4m3fnuz", "f8e5m2fnuz"), ("f8e4m3fn", "f8e4m3fn")])
def test_random_inputs_are_values_of_the_format(a, b):
    module = gemmc.parse(f"kernel g {{ dim M = 40, N = 30, K = 50  A: {a}[M, K]  B: {b}[K, N]  C: f32[M, N]  "
                         "C = A @ B }")
    args = random_inputs(host_function(module), {}, seed=3)
    for x, fmt in zip(args[:2], (a, b)):
        assert x.dtype == np.float32 and np.all(np.abs(x) <= 1)
        assert np.array_equal(x, to_fp8(x, fmt))  # already rounded: exactly the format's values
        assert len(np.unique(x)) > 20  # and not collapsed onto a few


def test_layout_csv_fp8_mfma_bytes(capsys):
    """gemmc layout --csv: A[i][k] of v_mfma_f32_16x16x32_fp8_fp8 is byte k % 4 of register
    (k / 4) % 2 of lane 16 (k / 8) + i (AMD Matrix Instruction Calculator, -a cdna3)."""
    from gemmc.driver import cli

    assert cli.main(["layout", "v_mfma_f32_16x16x32_fp8_fp8", "--arch", "gfx942", "--csv"]) == 0
    rows = [line.split(",") for line in capsys.readouterr().out.splitlines()[1:]]
    a = [r for r in rows if r[0] == "A"]
    assert len(a) == 16 * 32
    for _, _, i, k, gpr, lane, lo, hi in a:
        i, k = int(i), int(k)
        assert (int(gpr), int(lane), int(lo), int(hi)) == ((k // 4) % 2, 16 * (k // 8) + i, 8 * (k % 4), 8 * (k % 4) + 7)


def test_default_pipeline_lowers_fp8_to_mfma_and_passes():
    """The default pipeline on gfx942 takes FP8 to v_mfma_f32_32x32x16_fp8_fp8 (interpreted
    lane by lane) and the check against the declared program passes."""
    source = (Path(__file__).resolve().parents[1] / "examples" / "fp8gemm.gemm").read_text()
    module = gemmc.parse(source, defines={"M": 70, "N": 45, "K": 48})
    gemmc.lower(module, None, "gfx942")
    ir = gemmc.print_ir(module)
    assert "amdgpu.mfma" in ir and "vector<8xf8E4M3FNUZ>" in ir
    r = gemmc.check(module, "gfx942", {})
    assert r.passed and r.stats.matrix_instrs > 0, r.summary()


@pytest.mark.parametrize("arch, fmt", [("gfx942", "f8e4m3fnuz"), ("gfx942", "f8e5m2fnuz"), ("gfx950", "f8e4m3fn"),
                                       ("gfx1201", "f8e4m3fn"), ("gfx1201", "f8e5m2")])
def test_fp8_inputs_get_the_fp8_matrix_default(arch, fmt):
    """FP8 inputs compile without -p with MATRIX_FP8_DEFAULTS (the search's winner at 4096^3);
    gemmc's own backend keeps the type-independent default."""
    from gemmc.target.arch import get_arch
    from gemmc.driver.pipeline import MATRIX_FP8_DEFAULTS, default_pipeline, gcn_default_pipeline

    assert default_pipeline(get_arch(arch), fmt) == MATRIX_FP8_DEFAULTS[arch]
    assert gcn_default_pipeline(get_arch(arch), fmt) == default_pipeline(get_arch(arch))


def test_explain_peak_is_the_fp8_matrix_peak(capsys):
    """The IR names an FP8 type f8E4M3FNUZ, the arch's instructions f8e4m3fnuz: the peak of an
    FP8 problem is its own matrix peak (twice gfx942's f16 one), not the f16 fallback."""
    from gemmc.driver import cli
    from gemmc.target.arch import get_arch
    from gemmc.cost.peaks import matrix_peak_tflops, problem_peak_tflops

    gfx942 = get_arch("gfx942")
    fp8 = matrix_peak_tflops(gfx942, "f8E4M3FNUZ")
    assert fp8 == matrix_peak_tflops(gfx942, "f8e4m3fnuz") == problem_peak_tflops(gfx942, "f8E4M3FNUZ")
    assert fp8 == pytest.approx(2 * matrix_peak_tflops(gfx942, "f16"))
    path = Path(__file__).resolve().parents[1] / "examples" / "fp8gemm.gemm"
    assert cli.main(["explain", str(path), "--arch", "gfx942", "--no-compiler", "-p", "step1"]) == 0
    assert f"peak {fp8:.1f} TFLOP/s" in capsys.readouterr().out.splitlines()[0]


def test_gfx950_fp8_peak_is_the_f8f6f4_mfmas():
    """gfx950's FP8 peak is its f8f6f4 MFMAs' (2048 flops a cycle a SIMD: 5.0 PFLOP/s, the MI355X
    data sheet's dense FP8), twice its older v_mfma_f32_*_fp8_fp8; FP6 and FP4 twice that again."""
    from gemmc.target.arch import get_arch
    from gemmc.cost.peaks import matrix_peak_tflops, problem_peak_tflops

    gfx950 = get_arch("gfx950")
    fp8 = matrix_peak_tflops(gfx950, "f8E4M3FN")
    assert fp8 == pytest.approx(5033.2, abs=0.1) == problem_peak_tflops(gfx950, "f8e5m2")
    assert fp8 == pytest.approx(2 * matrix_peak_tflops(gfx950, "f16"))
    assert problem_peak_tflops(gfx950, "f4e2m1fn") == pytest.approx(2 * fp8)
    assert problem_peak_tflops(gfx950, "f6e3m2fn") == pytest.approx(2 * fp8)


def test_the_vgpr_floor_counts_fp8_staging_four_a_register():
    """The tiling passes' VGPR floor counts a double-buffered copy's prefetched FP8 elements four a
    VGPR: gfx950's 128 x 256 x 128 FP8 tile with the 16x16x128 f8f6f4 MFMA is not refused (it was,
    at "about 264 VGPRs", counting bytes as registers)."""
    from dataclasses import replace

    from gemmc.transforms.schedule import Schedule

    src = (Path(__file__).resolve().parents[1] / "examples" / "fp8gemm.gemm").read_text().replace("fnuz", "fn")
    module = gemmc.parse(src, defines={"M": 256, "N": 256, "K": 256})
    gemmc.lower(module, "gemm-to-kernel,lds-tiling{block-m=128 block-n=256 block-k=128},register-tiling{thread-m=8 "
                        "thread-n=8},matrix-cores{instr=v_mfma_f32_16x16x128_f8f6f4},vectorize{width=8},"
                        "double-buffer{stage=registers}", "gfx950")
    assert gemmc.check(module, "gfx950").passed
    s = Schedule(block_m=128, block_n=256, block_k=128, threads_x=16, threads_y=16, thread_m=8, thread_n=8)
    s = replace(s, width_a=64, width_b=128, buffers=2)
    assert s.vgpr_estimate(1) == s.vgpr_estimate(4) - 144
