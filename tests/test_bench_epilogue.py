"""`gemmc bench` with a fused epilogue (gemmc.driver.bench_epilogue): the program passes the epilogue's
operands, checks C against the declared program in float64, and builds; its comparison, built on the
host, PASSes a correct C and FAILs planted bugs (the bias on the wrong axis, a lost k, tanh-gelu for erf-gelu)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

import gemmc
from gemmc.driver.bench import bench_source
from gemmc.driver.bench_epilogue import Fields
from gemmc.interp import host_function, matmul_spec
from gemmc.support.diagnostics import GemmcError
from gemmc.target.arch import get_arch

SM90 = get_arch("sm_90")
STUB = Path(__file__).parent / "data" / "cublas_stub"


def program(expr: str, dims: str = "M = 64, N = 64, K = 48", t: str = "f32", extra: str = "  b: f32[N]\n") -> str:
    return (f"kernel lin {{\n  dim {dims}\n  X: {t}[M, K]\n  W: {t}[K, N]\n{extra}  Y: f32[M, N]\n  acc f32\n"
            f"  Y = {expr}\n}}\n")


def lowered(text: str):
    return gemmc.lower(gemmc.parse(text, "lin.gemm"), None, SM90)


def test_bench_passes_the_epilogue_operands_and_checks_in_float64():
    module = lowered(program("gelu(X @ W + b)"))
    (b,) = matmul_spec(module, host_function(module)).epilogue_args
    text = bench_source(module, SM90, {})
    assert f"fill(dE{b}, (long)N, {1000 + b}u);" in text and f"dE{b}, " in text  # allocated, filled, passed
    assert "std::erf(" in text and f"bench_to_double(hE{b}[j])" in text
    assert '\\"checked_against\\": \\"the declared program in float64\\"' in text
    assert "cublas_check(0, dRef)" not in text  # cuBLAS has no such epilogue: it only times


def test_bench_without_an_epilogue_still_checks_against_cublas():
    text = bench_source(lowered(program("X @ W", extra="")), SM90, {})
    assert "cublas_check(0, dRef)" in text and '\\"checked_against\\": \\"cuBLAS\\"' in text


def test_bench_refuses_an_fp8_epilogue_with_one_line():
    fp8 = program("relu(A @ B + b)".replace("A", "X").replace("B", "W"), t="f8e4m3fn")
    with pytest.raises(GemmcError, match="gemmc bench checks an epilogue on f32, f16 or bf16 inputs"):
        bench_source(lowered(fp8), SM90, {})


@pytest.mark.parametrize("text,what", [
    (program("saturate(s * (X @ W))", t="bf16", extra="  s: f32\n").replace("Y: f32", "Y: f8e4m3fn"),
     "a f8e4m3fn C"),
    (program("X @ W + b", extra="  b: f32[N]\n  m: f32\n").replace("\n}\n", "\n  m = amax(X @ W)\n}\n"),
     r"an amax output \(gemm.amax\)"),
    (program("X @ W + b", extra="  b: f32[N]\n  Z: f32[M, N]\n").replace("\n}\n", "\n  Z = relu(Y)\n}\n"),
     r"more outputs \(gemm.output\)"),
])
def test_bench_refuses_converted_and_more_outputs_with_one_line(text, what):
    with pytest.raises(GemmcError, match=f"gemmc bench compares one C \\(f32, or the 16-bit inputs' type\\) with cuBLAS's; this program writes "
                                         f"{what}") as e:
        bench_source(lowered(text), SM90, {})
    assert "\n" not in str(e.value).strip()


@pytest.mark.skipif(shutil.which("nvcc") is None and not Path("/usr/local/cuda/bin/nvcc").exists(),
                    reason="no nvcc")
def test_bench_program_with_an_epilogue_builds(tmp_path):
    """Host and device code through nvcc (cuBLAS's header a compile-only stand-in: no cuBLAS here)."""
    from gemmc.target.cuda import find_nvcc, target_flags, uses_wgmma

    src = tmp_path / "bench.cu"
    src.write_text(bench_source(lowered(program("silu(X @ W + b) * s", extra="  b: bf16[N]\n  s: f32\n")), SM90, {}))
    r = subprocess.run([find_nvcc(), "-O0", *target_flags(SM90, uses_wgmma(src.read_text())), "-std=c++17", f"-I{STUB}", "-x", "cu", "-c", str(src),
                        "-o", str(tmp_path / "bench.o")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-2000:]


# -- the comparison on the host ---------------------------------------------------------------------

_HOST = r"""
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <utility>
#include <vector>
static double bench_to_double(float x) { return x; }
int main() {
    const int M = 37, N = 29, K = 53;
    std::mt19937 g(1);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::vector<float> hA(M * K), hB(K * N), hE_B(N), hC0(M * N), got(M * N);
    for (auto& x : hA) x = u(g);
    for (auto& x : hB) x = u(g);
    for (auto& x : hE_B) x = u(g);
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
            float acc = 0.0f;
            for (int k = 0; k < LAST_K; ++k) acc += hA[i * K + k] * hB[k * N + j];
            const float x = acc + hE_B[BIAS_AT];
            got[i * N + j] = GELU;
        }
%s
    std::printf(passed ? "PASS\n" : "FAIL\n");
    return 0;
}
"""
_ERF = "0.5f * x * (1.0f + std::erf(x * 0.70710678f))"
_TANH = "0.5f * x * (1.0f + std::tanh(0.7978845608f * (x + 0.044715f * x * x * x)))"


@pytest.mark.skipif(shutil.which("c++") is None, reason="no host C++ compiler")
@pytest.mark.parametrize("last_k,bias_at,gelu,verdict", [
    ("K", "j", _ERF, "PASS"),
    ("K - 1", "j", _ERF, "FAIL"),  # a lost k
    ("K", "(i % N)", _ERF, "FAIL"),  # the bias on the wrong axis
    ("K", "j", _TANH, "FAIL"),  # gelu_tanh for gelu
])
def test_bench_comparison_fails_planted_bugs(tmp_path, last_k, bias_at, gelu, verdict):
    module = lowered(program("gelu(X @ W + b)", dims="M = 37, N = 29, K = 53"))
    spec = matmul_spec(module, host_function(module))
    fields = Fields(module, spec, None, "f32")
    src = tmp_path / "cmp.cpp"
    (b,) = spec.epilogue_args
    text = (_HOST % fields.compare()).replace(f"hE{b}[", "hE_B[")
    src.write_text(text.replace("LAST_K", last_k).replace("BIAS_AT", bias_at).replace("GELU", gelu))
    exe = tmp_path / "cmp"
    subprocess.run(["c++", "-O1", "-std=c++17", str(src), "-o", str(exe)], check=True)
    out = subprocess.run([str(exe)], capture_output=True, text=True)
    assert out.stdout.strip() == verdict, out.stderr[-1000:]


def test_epilogue_table_is_the_rendering_of_its_raw_files():
    """benchmarks/h200/epilogue.md is what epilogue.py renders from the device run kept in raw/."""
    from benchmark_scripts import load

    root = Path(__file__).resolve().parents[1]
    out, text = load("h200/epilogue").render(root / "benchmarks/h200/raw")
    assert (root / "benchmarks/h200/epilogue.md").read_text() == text
    assert out["gemmc"]["f32_bias_gelu"]["passed"]
