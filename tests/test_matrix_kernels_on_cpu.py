"""The default kernels of every AMD target and input type, emitted as HIP, run with their
`--harness` on the CPU and PASS its float64 check; a planted bug makes it FAIL.

No AMD GPU here: test_emit_hip.run_on_cpu runs the file with a fiber per GPU thread (waves of
the arch's size), and tests/cpu_matrix.py stands in for the MFMA and WMMA builtins from
gemmc.driver.layout's lane tables.  What runs
is the kernels as gemmc prints them (fragment loads, swizzled LDS, register double buffering,
peeled vector copies, stores), at sizes with partial tiles in M, N and K.
"""

from __future__ import annotations

import re

import pytest

import gemmc
from gemmc.driver.pipeline import MATRIX_16BIT_DEFAULTS, MATRIX_FP8_DEFAULTS
from gemmc.driver.selection import with_padded_rows
from gemmc.driver.variants import with_tiles

import cpu_matrix
from benchmark_scripts import load
from test_emit_hip import run_on_cpu
from test_harness_formats import _assert_fails, _planted

SOURCE = """kernel g {{
  dim M, N, K
  A: {t}[M, K]{a_layout}
  B: {t}[K, N]
  C: f32[M, N]
  acc f32
  C = A @ B
}}
"""
# the examples' problems: hgemm's A column-major, sgemm's and fp8gemm's row-major
TYPES = {"f16": " col_major", "bf16": " col_major", "f32": "", "fp8": ""}
FP8 = {"gfx942": "f8e4m3fnuz", "gfx950": "f8e4m3fn", "gfx1201": "f8e4m3fn"}
RDNA = ("gfx1100", "gfx1201")  # f32 on the VALUs (no f32 WMMA)
DIMS = ["130", "70", "72"]  # partial tiles in M and N, and K tiles of 16 .. 128 not filled


def _harness(arch: str, t: str) -> str:
    dtype = FP8[arch] if t == "fp8" else t
    m = gemmc.parse(SOURCE.format(t=dtype, a_layout=TYPES[t]), "g.gemm")
    gemmc.lower(m, None, arch)
    return gemmc.emit(m, arch, "hip", harness=True)


# Every arch's f16 and f32 default, and FP8 where the arch has it; fewer compiles for CI's two
# cores where a case adds nothing: gfx90a's bf16 default is its f16 kernel with gfx942's bf16 MFMA
# (run there), gfx1100's with a WMMA whose lanes are the f16 one's; gfx1201's f32 kernel is
# gfx1100's (the VALUs, wave32).
SAME_AS = {("gfx90a", "bf16"), ("gfx1100", "bf16"), ("gfx1201", "f32")}
CASES = [(a, t) for a in ("gfx90a", "gfx942", "gfx950", *RDNA) for t in TYPES
         if (t != "fp8" or a in FP8) and (a, t) not in SAME_AS]


@pytest.mark.parametrize("arch,t", CASES)
def test_default_kernel_passes_on_cpu(llvm, tmp_path, arch, t):
    source = _harness(arch, t)
    assert (t == "f32" and arch in RDNA) or "__builtin_amdgcn_mfma" in source or "__builtin_amdgcn_wmma" in source
    proc = run_on_cpu(llvm, source, DIMS, tmp_path, cpu_matrix.builtins(arch, source))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert ": PASSED" in proc.stdout and "Checked     : 9100 elements" in proc.stdout, proc.stdout


# the second matrix instruction of a K step given the first one's B fragment (names as printed)
# (one MFMA target, one WMMA target)
OTHER_FRAGMENT = {"gfx942": ("b_1, c_1", "b, c_1"), "gfx1100": ("a_6, b_13, c_1", "a_6, b_6, c_1")}


@pytest.mark.parametrize("arch", sorted(OTHER_FRAGMENT))
def test_default_kernel_fails_with_another_columns_fragment(llvm, tmp_path, arch):
    """In each kernel of the launcher's choice (the default and its split-K variant): FAIL."""
    source = _planted(_harness(arch, "f16"), *OTHER_FRAGMENT[arch], every=True)
    _assert_fails(run_on_cpu(llvm, source, DIMS, tmp_path, cpu_matrix.builtins(arch, source)))


# Pipelines beyond the defaults: the validation series' kernels (benchmarks/validate_model.py) and
# the passes that rewrite the K loop, each at a size with partial tiles
vm = load("validate_model")
F16 = SOURCE.format(t="f16", a_layout=" col_major")
_F16_942 = MATRIX_16BIT_DEFAULTS["gfx942"]
_DYNAMIC = re.compile(r"dim M = \d+, N = \d+, K = \d+")
PIPELINES = {
    "gau-nernst v3b (k-pack=2)": ("gfx942", _DYNAMIC.sub("dim M, N, K", vm.GAU_SRC), vm.GAU_NERNST[-1].pipeline,
                                  ["136", "130", "136"]),
    "MI355X step 9 (256x256x128, 8 waves)": ("gfx950", _DYNAMIC.sub("dim M, N, K", vm.MI355_SRC),
                                             next(c.pipeline for c in vm.MI355X_FP8 if c.label.startswith("9 ")),
                                             ["260", "130", "256"]),
    "stream-k": ("gfx942", F16, _F16_942.replace(",double-buffer", ",stream-k{workgroups=3},double-buffer"),
                 ["136", "130", "200"]),
    "split-k": ("gfx942", F16, _F16_942.replace(",double-buffer", ",split-k{factor=3},double-buffer"), DIMS),
    "multi-buffer + pipeline": ("gfx942", F16, _F16_942.replace(",double-buffer{stage=registers}", "").replace(
        ",launch-bounds", ",multi-buffer{factor=3},pipeline{stages=3},launch-bounds"), DIMS),
    "128x224 FP8 tiles, rows padded (the selection's at 4096^3 on gfx942)": (
        "gfx942", SOURCE.format(t="f8e4m3fnuz", a_layout=""),
        with_padded_rows(with_tiles(MATRIX_FP8_DEFAULTS["gfx942"], 128, 224)), ["130", "260", "136"]),
    "224x128 16-bit tiles, rows padded (the selection's at 4096^3 on gfx942)": (
        "gfx942", F16, with_padded_rows(with_tiles(_F16_942, 224, 128)), ["260", "130", "40"]),
    "k-pack=2 on gfx950": ("gfx950", F16, MATRIX_16BIT_DEFAULTS["gfx950"].replace("frag-read=0", "frag-read=4 k-pack=2"),
                           DIMS),
}


@pytest.mark.parametrize("name", sorted(PIPELINES))
def test_pipeline_passes_on_cpu(llvm, tmp_path, name):
    arch, src, pipeline, dims = PIPELINES[name]
    m = gemmc.parse(src, "g.gemm")
    gemmc.lower(m, pipeline, arch)
    source = gemmc.emit(m, arch, "hip", harness=True)
    proc = run_on_cpu(llvm, source, dims, tmp_path, cpu_matrix.builtins(arch, source))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert ": PASSED" in proc.stdout, proc.stdout
