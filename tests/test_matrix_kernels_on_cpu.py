"""The default matrix-core kernels of the CDNA targets, emitted as HIP, run with their `--harness`
on the CPU and PASS its float64 check; a planted bug makes it FAIL.

No AMD GPU here: test_emit_hip.run_on_cpu runs the file with a thread per GPU thread, and
tests/cpu_mfma.py stands in for the MFMA builtins from gemmc.layout's lane tables.  What runs
is the kernels as gemmc prints them (fragment loads, swizzled LDS, register double buffering,
peeled vector copies, stores), at sizes with partial tiles in M, N and K.
"""

from __future__ import annotations

import pytest

from gemmc import api

import cpu_mfma
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
FP8 = {"gfx942": "f8e4m3fnuz", "gfx950": "f8e4m3fn"}
DIMS = ["130", "70", "72"]  # partial tiles in M and N, and K tiles of 16 .. 128 not filled


def _harness(arch: str, t: str) -> str:
    dtype = FP8[arch] if t == "fp8" else t
    m = api.parse(SOURCE.format(t=dtype, a_layout=TYPES[t]), "g.gemm")
    api.lower(m, None, arch)
    return api.emit(m, arch, "hip", harness=True)


CASES = [(a, t) for a in ("gfx90a", "gfx942", "gfx950") for t in TYPES if t != "fp8" or a in FP8]


@pytest.fixture
def llvm(toolchain):
    if toolchain.kind != "llvm":
        pytest.skip("the CPU run uses plain clang++ for the host")
    return toolchain


@pytest.mark.parametrize("arch,t", CASES)
def test_default_kernel_passes_on_cpu(llvm, tmp_path, arch, t):
    source = _harness(arch, t)
    assert "__builtin_amdgcn_mfma" in source
    proc = run_on_cpu(llvm, source, DIMS, tmp_path, cpu_mfma.builtins(arch))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert ": PASSED" in proc.stdout and "Checked     : 9100 elements" in proc.stdout, proc.stdout


@pytest.mark.parametrize("arch", ["gfx942", "gfx950"])
def test_default_kernel_fails_with_another_columns_fragment(llvm, tmp_path, arch):
    """The second MFMA of a K step takes the first one's B fragment (in each kernel of the
    launcher's choice: the default and its split-K variant): the harness FAILs."""
    source = _harness(arch, "f16")
    proc = run_on_cpu(llvm, _planted(source, "b_1, c_1", "b, c_1", every=True), DIMS, tmp_path,
                      cpu_mfma.builtins(arch))
    _assert_fails(proc)
