"""`--harness` with FP8, FP6, FP4 and E8M0 matrices (gemmc.emit.host_formats).

The host's C++ (the nearest-code fill and the FP4 / FP6 packing) is compiled and compared with
ml_dtypes' rounding and gemmc.emit.fp4 / fp6's layouts; FP8 and MX kernels run on the CPU
(test_emit_hip.run_on_cpu, the AMDGPU builtins standing in as tests/cpu_matrix.py writes them)
and must PASS, and FAIL with a planted bug.
"""

from __future__ import annotations

import subprocess

import ml_dtypes
import numpy as np
import pytest

import gemmc
from gemmc.support.arith_semantics import fp8_dtypes
from gemmc.emit import fp4, fp6, host_formats

import cpu_matrix
from test_emit_hip import run_on_cpu

HOST_CODE = "// ---- Host code"  # where the emitted file's kernels end
FORMATS = ("f8e4m3fnuz", "f8e5m2fnuz", "f8e4m3fn", "f8e5m2", "f6e2m3fn", "f6e3m2fn", "f4e2m1fn")


def _host_program(toolchain, tmp_path, body: list[str]) -> str:
    """Compile and run a host program made of every format's helpers and `body` (main's)."""
    lines = ["#include <cmath>", "#include <cstdio>", "#include <cstddef>", "#include <random>", "#include <vector>"]
    for name in (*FORMATS, "f8e8m0fnu"):
        lines += host_formats.helpers(name)
    lines += host_formats.PACK_HELPERS + ["int main()", "{", *body, "    return 0;", "}"]
    source = tmp_path / "formats.cpp"
    source.write_text("\n".join(lines))
    binary = tmp_path / "formats"
    build = subprocess.run([toolchain.clang, "-x", "c++", "-std=c++17", "-O1", str(source), "-o", str(binary)],
                           capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    return subprocess.run([str(binary)], capture_output=True, text=True, check=True).stdout


def test_fill_rounds_to_the_nearest_code_ties_to_even(llvm, tmp_path):
    """gemmc_<fmt>_set against ml_dtypes' rounding, on random floats and on every midpoint
    between two neighbouring codes of the fill's range (where ties go to the even code)."""
    rng = np.random.default_rng(0)
    cases = {}
    for name in FORMATS:
        dtype = fp8_dtypes()[name]
        values = host_formats.values(name)
        top = 1.0 if name.startswith("f8") else float(ml_dtypes.finfo(dtype).max)
        grid = np.unique(values[np.isfinite(values) & (np.abs(values) <= top)])
        x = np.concatenate([rng.uniform(-top, top, 200), (grid[1:] + grid[:-1]) / 2]).astype(np.float32)
        cases[name] = x
    body = []
    for name, x in cases.items():
        body += ["    {", "        unsigned char c;",
                 f"        const float xs[] = {{{', '.join(float(v).hex() + 'f' for v in x)}}};",
                 "        for (float x : xs)", "        {",
                 f"            gemmc_{name}_set(c, x);",
                 '            std::printf("%d ", c);', "        }", '        std::printf("\\n");', "    }"]
    out = _host_program(llvm, tmp_path, body).splitlines()
    for (name, x), line in zip(cases.items(), out):
        got = np.array(line.split(), np.uint8)
        want = x.astype(np.float64).astype(fp8_dtypes()[name]).view(np.uint8)
        # -0 and +0 are one value: the fill keeps code 0
        want = np.where(x.astype(np.float64).astype(fp8_dtypes()[name]).astype(np.float64) == 0, 0, want)
        assert (got == want).all(), (name, x[got != want], got[got != want], want[got != want])


def test_packed_rows_are_the_emitters_layout(llvm, tmp_path):
    """gemmc_pack_rows(codes, rows, n, bits) is gemmc.emit.fp4.pack / fp6.pack (odd rows too)."""
    rng = np.random.default_rng(1)
    shapes = [(3, 7), (2, 32), (5, 13)]
    body, want = [], []
    for bits, pack in ((4, fp4.pack), (6, fp6.pack)):
        for rows, n in shapes:
            codes = rng.integers(0, 2**bits, (rows, n), dtype=np.uint8)
            want.append(pack(codes).ravel())
            body += ["    {", f"        const std::vector<unsigned char> c = {{{', '.join(map(str, codes.ravel()))}}};",
                     f"        for (unsigned char b : gemmc_pack_rows(c, {rows}, {n}, {bits}))",
                     '            std::printf("%d ", b);', '        std::printf("\\n");', "    }"]
    out = _host_program(llvm, tmp_path, body).splitlines()
    for line, w in zip(out, want, strict=True):
        assert np.array(line.split(), np.uint8).tolist() == w.tolist()


def test_value_tables_hold_every_code(llvm, tmp_path):
    """The printed tables read back as ml_dtypes' values (hex literals, NaN where it has NaN)."""
    body = []
    for name in (*FORMATS, "f8e8m0fnu"):
        n = len(host_formats.values(name))
        body += [f"    for (int c = 0; c < {n}; ++c)", f'        std::printf("%a ", gemmc_{name}_to_double(c));',
                 '    std::printf("\\n");']
    out = _host_program(llvm, tmp_path, body).splitlines()
    for name, line in zip((*FORMATS, "f8e8m0fnu"), out, strict=True):
        got = np.array([float.fromhex(t) if "nan" not in t else np.nan for t in line.split()])
        np.testing.assert_array_equal(got, host_formats.values(name))


# -- FP8 kernels run on the CPU -------------------------------------------------------------

FP8_SRC = """kernel fp8h {{
  dim M, N, K
  A: {a}[M, K]
  B: {b}[{bdims}]
  C: f32[M, N]
  acc f32
  C = A @ {bexpr}
}}
"""
def _fp8_harness(arch: str, a: str, b: str, transpose_b: bool, pipeline: str) -> str:
    src = FP8_SRC.format(a=a, b=b, bdims="N, K" if transpose_b else "K, N", bexpr="B.T" if transpose_b else "B")
    m = gemmc.parse(src, "fp8h.gemm")
    gemmc.lower(m, pipeline, arch)
    return gemmc.emit(m, arch, "hip", harness=True)


@pytest.mark.parametrize("arch,a,b,transpose_b,pipeline", [
    ("gfx942", "f8e4m3fnuz", "f8e4m3fnuz", False, "gemm-to-kernel"),
    ("gfx942", "f8e4m3fnuz", "f8e5m2fnuz", True, "gemm-to-kernel"),
    ("gfx942", "f8e5m2fnuz", "f8e4m3fnuz", False, "step4"),
    ("gfx950", "f8e4m3fn", "f8e4m3fn", True, "gemm-to-kernel"),
    ("gfx950", "f8e5m2", "f8e4m3fn", False, "step3"),
])
def test_fp8_harness_runs_on_cpu(llvm, tmp_path, arch, a, b, transpose_b, pipeline):
    source = _fp8_harness(arch, a, b, transpose_b, pipeline)
    proc = run_on_cpu(llvm, source, ["70", "50", "40"], tmp_path, cpu_matrix.builtins(arch, source))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert ": PASSED" in proc.stdout


def _planted(source: str, old: str, new: str, every: bool = False) -> str:
    """`source` with the first `old` of its kernels (not of the harness; `every`: each of them,
    in every kernel the launcher may choose) replaced by `new`."""
    kernel, host = source.split(HOST_CODE, 1)
    assert old in kernel, old
    return kernel.replace(old, new, -1 if every else 1) + HOST_CODE + host


def _assert_fails(proc: subprocess.CompletedProcess) -> None:
    assert proc.returncode == 1 and ": FAILED" in proc.stdout, proc.stdout + proc.stderr


def test_harness_fill_matches_the_interpreters_ranges():
    """FP8 in [-1, 1]; FP6 and FP4 over their finite range (ml_dtypes' max); E8M0 2^-4 .. 2^4."""
    assert "dist(gen)" in host_formats.fill("f8e4m3fn", "x", "gen", "dist")
    assert host_formats.fill("f4e2m1fn", "x", "gen", "dist").startswith("gemmc_f4e2m1fn_set(x, 6.0f * ")
    assert "7.5f * " in host_formats.fill("f6e2m3fn", "x", "gen", "dist")
    assert "(-4, 4)" in host_formats.fill("f8e8m0fnu", "x", "gen", "dist")


# -- MX kernels run on the CPU (tests/cpu_matrix.py stands in for the scaled MFMAs) ------------

MX_SRC = """kernel mxh {{
  dim M, N, K = 256
  A: {a}[M, K]
  SA: f8e8m0fnu[M, K/32]
  B: {b}[K, N]
  SB: f8e8m0fnu[K/32, N]
  C: f32[M, N]
  C = A scaled SA @ B scaled SB
}}
"""


MX_TRANSPOSED = """kernel mxt {
  dim M, N, K = 256
  A: f8e4m3fn[K, M]
  SA: f8e8m0fnu[K/32, M]
  B: f4e2m1fn[N, K]
  SB: f8e8m0fnu[N, K/32]
  C: f32[M, N]
  C = A.T scaled SA @ B.T scaled SB
}
"""


def _mx_harness(a: str, b: str) -> str:
    m = gemmc.parse(MX_TRANSPOSED if (a, b) == ("A.T", "B.T") else MX_SRC.format(a=a, b=b), "mxh.gemm")
    gemmc.lower(m, None, "gfx950")
    return gemmc.emit(m, "gfx950", "hip", harness=True)


@pytest.mark.parametrize("a,b", [("f4e2m1fn", "f4e2m1fn"), ("f6e2m3fn", "f6e3m2fn"), ("f8e4m3fn", "f8e5m2"),
                                 ("f4e2m1fn", "f8e4m3fn"), ("A.T", "B.T")])
def test_mx_harness_runs_the_default_kernel_on_cpu(llvm, tmp_path, a, b):
    """The MX defaults (MXFP4, MXFP6, MXFP8, a mixed product, and A and B stored transposed with
    their scales) at 130 x 70 x 256: partial tiles, packed rows that are not a multiple of the
    copies' vector; all of C checked."""
    source = _mx_harness(a, b)
    proc = run_on_cpu(llvm, source, ["130", "70"], tmp_path, cpu_matrix.builtins("gfx950", source))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert ": PASSED" in proc.stdout and "Checked     : 9100 elements" in proc.stdout, proc.stdout


# A planted bug in a kernel (its first occurrence there): the harness must FAIL.
PLANTED = {
    "fp8: a lost k": ("for (int k = 0; k < K; ++k)", "for (int k = 1; k < K; ++k)"),
    "fp8: B read as the other format": ("__builtin_amdgcn_cvt_f32_fp8((int)b, 0)", "__builtin_amdgcn_cvt_f32_bf8((int)b, 0)"),
    "fp8: a swapped column": ("B[k * N + col]", "B[k * N + (col ^ 1)]"),
    "mx: B's scale for A's": ("__builtin_bit_cast(int, sb_vgpr))", "__builtin_bit_cast(int, sa_vgpr))"),
    "mx: a lost K tile": ("for (int t = 0; t < num_tiles; ++t)", "for (int t = 1; t < num_tiles; ++t)"),
    "mx: another column's fragment": ("gemmc_fp4_operand(b_1)", "gemmc_fp4_operand(b)"),
}


@pytest.mark.parametrize("bug", sorted(PLANTED))
def test_harness_fails_a_planted_bug(llvm, tmp_path, bug):
    if bug.startswith("fp8"):
        source, dims, arch = _fp8_harness("gfx942", "f8e4m3fnuz", "f8e4m3fnuz", False, "gemm-to-kernel"), \
            ["70", "50", "40"], "gfx942"
    else:
        source, dims, arch = _mx_harness("f4e2m1fn", "f4e2m1fn"), ["130", "70"], "gfx950"
    source = _planted(source, *PLANTED[bug])
    _assert_fails(run_on_cpu(llvm, source, dims, tmp_path, cpu_matrix.builtins(arch, source)))
