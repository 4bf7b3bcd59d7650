"""`gemmc bench` of batched and grouped products (gemmc.driver.bench_batched): the reference is
cublasGemmStridedBatchedEx (a broadcast operand's stride 0) or cublasGemmEx looped over the groups;
the programs build with nvcc (cuBLAS's header a compile-only stand-in), and on the host, with cuBLAS's
column-major semantics written out in C++, the generated reference calls and comparison PASS a correct
C and FAIL planted bugs (a wrong batch stride, a lost batch, a group's rows off by one, another group's B)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

import gemmc
from gemmc.driver.bench import bench_source, main_fields
from gemmc.driver.bench_batched import default_sizes, parse_sizes
from gemmc.support.diagnostics import GemmcError
from gemmc.target.arch import get_arch

SM90 = get_arch("sm_90")
STUB = Path(__file__).parent / "data" / "cublas_stub"
HAVE_NVCC = shutil.which("nvcc") is not None or Path("/usr/local/cuda/bin/nvcc").exists()


def batched(t: str = "f32", c: str = "f32", dims: str = "Bt = 3, M = 40, N = 24, K = 32", b: str = "B: {t}[Bt, K, N]",
            expr: str = "C = A @ B") -> str:
    return (f"kernel bmm {{\n  dim {dims}\n  A: {t}[Bt, M, K]\n  {b.format(t=t)}\n  C: {c}[Bt, M, N]\n  acc f32\n"
            f"  {expr}\n}}\n")


def grouped(t: str = "f32", c: str = "f32", dims: str = "M = 50, G = 4, N = 24, K = 32", w: str = "W: {t}[G, K, N]",
            expr: str = "Y = X @ W grouped by sizes") -> str:
    return (f"kernel moe {{\n  dim {dims}\n  X: {t}[M, K]\n  {w.format(t=t)}\n  sizes: i32[G]\n  Y: {c}[M, N]\n"
            f"  acc f32\n  {expr}\n}}\n")


def lowered(text: str):
    return gemmc.lower(gemmc.parse(text, "b.gemm"), None, SM90)


def test_batched_reference_is_one_strided_batched_call():
    text = bench_source(lowered(batched("f16")), SM90, {})
    assert ("cublasGemmStridedBatchedEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &alpha_value, dB[s], CUDA_R_16F, 24, "
            "768LL, dA[s], CUDA_R_16F, 32, 1280LL, &beta_value, c, CUDA_R_32F, N, 960LL, 3, CUBLAS_COMPUTE_32F") in text
    assert "size_c = (long)M * N * 3;" in text and "const double flops = 2.0 * M * N * K * 3;" in text
    assert '\\"batches\\": 3, \\"a_batched\\": true, \\"b_batched\\": true' in text
    assert "launch_bmm(dA[s], dB[s], dC[s], stream)" in text


def test_batched_broadcast_operand_has_stride_zero_and_a_transposed_b_its_own_ld():
    text = bench_source(lowered(batched("bf16", "bf16", b="B: {t}[N, K]", expr="C = A @ B.T")), SM90, {})
    assert ("cublasGemmStridedBatchedEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, N, M, K, &alpha_value, dB[s], CUDA_R_16BF, 32, "
            "0LL, dA[s], CUDA_R_16BF, 32, 1280LL, &beta_value, c, CUDA_R_16BF, N, 960LL, 3,") in text
    assert "size_b = 768L" in text and "B broadcast (stride 0)" in text
    assert "std::vector<__nv_bfloat16*> dC(sets);" in text and "const double c_unit = 0.00390625;" in text


def test_grouped_reference_is_cublas_looped_over_the_groups():
    text = bench_source(lowered(grouped("f16")), SM90, {}, group_sizes=[5, 0, 17, 20])
    assert "const std::vector<int> h_sizes = {5, 0, 17, 20};" in text
    assert ("for (int g = 0, r0 = 0; g < groups; r0 += h_sizes[g], ++g) if (h_sizes[g] > 0) BLAS_CHECK(cublasGemmEx("
            "handle, CUBLAS_OP_N, CUBLAS_OP_N, N, h_sizes[g], K, &alpha_value, dB[s] + (size_t)g * K * N, CUDA_R_16F, 24, "
            "dA[s] + (size_t)r0 * K, CUDA_R_16F, K, &beta_value, c + (size_t)r0 * N, CUDA_R_32F, N,") in text
    assert "launch_moe(dA[s], dB[s], dC[s], dSizes, stream)" in text
    assert "const double flops = 2.0 * 42 * N * K;" in text  # the groups' rows, not M
    assert '\\"groups\\": 4, \\"rows\\": 42, \\"group_sizes\\": [5, 0, 17, 20]' in text
    assert "cublasGemmEx looped over 4 groups" in text


def test_grouped_default_sizes_are_fixed_and_have_an_empty_group():
    sizes = default_sizes(8, 6336)
    assert sizes == default_sizes(8, 6336) and sum(sizes) == 6336 and 0 in sizes
    text = bench_source(lowered(grouped()), SM90, {})
    assert f"h_sizes = {{{', '.join(map(str, default_sizes(4, 50)))}}};" in text


@pytest.mark.parametrize("sizes,message", [
    ([10, 10, 10], "has 3 sizes; the kernel has 4 groups"),
    ([10, 10, 10, 21], r"their sum \(51\) at most M = 50"),
    ([10, -1, 10, 10], "each size >= 0"),
])
def test_grouped_sizes_are_checked(sizes, message):
    with pytest.raises(GemmcError, match=message):
        bench_source(lowered(grouped()), SM90, {}, group_sizes=sizes)


def test_group_sizes_option_and_its_refusals():
    assert parse_sizes("64,128, 256") == [64, 128, 256]
    with pytest.raises(GemmcError, match="as integers"):
        parse_sizes("64,x")
    with pytest.raises(GemmcError, match="for a grouped product"):
        bench_source(lowered(batched()), SM90, {}, group_sizes=[1, 2])
    with pytest.raises(GemmcError, match="without an epilogue"):
        bench_source(lowered(batched(expr="C = relu(A @ B)")), SM90, {})



def _json_line(text: str) -> dict:
    """The program's result line as printf writes it, for made-up values."""
    import json
    import re

    call = text[text.index('std::printf("{'):]
    literal = "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', call[:call.index('\\n",') + 4]))
    fmt = literal.replace('\\"', '"').replace("\\n", "\n")
    values = (64, 48, 32, 0.5, 0.25, 1.0, 2.0, 50.0, 1e-7, 1e-8, "true", 2, 20, "GPU", 13000, 13000)
    return json.loads(fmt % values)


def test_result_line_is_json_with_the_batches_and_the_groups():
    b = _json_line(bench_source(lowered(batched("f16", b="B: {t}[K, N]")), SM90, {}))
    assert (b["batches"], b["a_batched"], b["b_batched"]) == (3, True, False)
    assert b["cublas"] == "cublasGemmStridedBatchedEx, B broadcast (stride 0)"
    g = _json_line(bench_source(lowered(grouped("f16")), SM90, {}, group_sizes=[5, 0, 17, 20]))
    assert (g["groups"], g["rows"], g["group_sizes"], g["passed"]) == (4, 42, [5, 0, 17, 20], True)
    plain = _json_line(bench_source(lowered(batched().replace("Bt, ", "").replace("Bt = 3, ", "")), SM90, {}))
    assert "batches" not in plain and plain["checked_against"] == "cuBLAS"
    from gemmc.driver.bench import format_result

    assert "M=64 N=48 K=32 x 3 batches  gemmc 0.500 ms" in format_result(b)
    assert "M=64 N=48 K=32 in 4 groups of 5,0,17,20 rows  gemmc" in format_result(g)


@pytest.mark.skipif(not HAVE_NVCC, reason="no nvcc")
@pytest.mark.parametrize("text,sizes", [
    (batched("f16", "f16", b="B: {t}[K, N]"), None),
    (grouped("bf16", w="W: {t}[G, N, K]", expr="Y = X @ W.T grouped by sizes"), [5, 0, 17, 20]),
])
def test_bench_programs_build(tmp_path, text, sizes):
    """Host and device code through nvcc (cuBLAS's header a compile-only stand-in: no cuBLAS here)."""
    from gemmc.target.cuda import find_nvcc, target_flags, uses_wgmma

    src = tmp_path / "bench.cu"
    src.write_text(bench_source(lowered(text), SM90, {}, group_sizes=sizes))
    r = subprocess.run([find_nvcc(), "-O0", *target_flags(SM90, uses_wgmma(src.read_text())), "-std=c++17", f"-I{STUB}", "-x", "cu", "-c", str(src),
                        "-o", str(tmp_path / "bench.o")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-2000:]


# -- the reference calls and the comparison on the host, cuBLAS's semantics written out --------------

_HOST = r"""
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <utility>
#include <vector>
typedef int cudaError_t;
enum cudaMemcpyKind { cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost, cudaMemcpyDeviceToDevice };
template <typename T> cudaError_t cudaMalloc(T** p, size_t n) { *p = (T*)std::malloc(n); return 0; }
cudaError_t cudaMemcpy(void* d, const void* s, size_t n, cudaMemcpyKind) { std::memcpy(d, s, n); return 0; }
cudaError_t cudaDeviceSynchronize() { return 0; }
#define BENCH_CHECK(x) (void)(x)
#define BLAS_CHECK(x) (void)(x)
typedef int cublasHandle_t;
typedef int cublasStatus_t;
enum cublasOperation_t { CUBLAS_OP_N, CUBLAS_OP_T };
enum cudaDataType { CUDA_R_32F };
enum cublasComputeType_t { CUBLAS_COMPUTE_32F };
enum cublasGemmAlgo_t { CUBLAS_GEMM_DEFAULT };
// cuBLAS's documented column-major semantics on f32 operands: C = alpha op(A) op(B) + beta C, per batch
cublasStatus_t cublasGemmStridedBatchedEx(cublasHandle_t, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
        const void* alpha, const void* A, cudaDataType, int lda, long long sa, const void* B, cudaDataType, int ldb,
        long long sb, const void* beta, void* C, cudaDataType, int ldc, long long sc, int count, cublasComputeType_t,
        cublasGemmAlgo_t) {
    const float al = *(const float*)alpha, be = *(const float*)beta;
    for (int b = 0; b < count; ++b) {
        const float* a = (const float*)A + b * sa;
        const float* bb = (const float*)B + b * sb;
        float* c = (float*)C + b * sc;
        for (int i = 0; i < m; ++i)
            for (int j = 0; j < n; ++j) {
                double acc = 0;
                for (int l = 0; l < k; ++l)
                    acc += (double)(ta == CUBLAS_OP_N ? a[i + (long)l * lda] : a[l + (long)i * lda])
                           * (tb == CUBLAS_OP_N ? bb[l + (long)j * ldb] : bb[j + (long)l * ldb]);
                c[i + (long)j * ldc] = (float)(al * acc + be * c[i + (long)j * ldc]);
            }
    }
    return 0;
}
cublasStatus_t cublasGemmEx(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
        const void* alpha, const void* A, cudaDataType at, int lda, const void* B, cudaDataType bt, int ldb,
        const void* beta, void* C, cudaDataType ct, int ldc, cublasComputeType_t x, cublasGemmAlgo_t y) {
    return cublasGemmStridedBatchedEx(h, ta, tb, m, n, k, alpha, A, at, lda, 0, B, bt, ldb, 0, beta, C, ct, ldc, 0, 1, x, y);
}
static double bench_to_double(float x) { return x; }
int main() {
    const int M = %(M)d, N = %(N)d, K = %(K)d;
    const long size_a = %(size_a)dL, size_b = %(size_b)dL, size_c = %(size_c)s;
    const float alpha_value = %(alpha)sf, beta_value = %(beta)sf;
    cublasHandle_t handle = 0;
    std::mt19937 gen(1);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::vector<float*> dA(1), dB(1), dC(1);
    cudaMalloc(&dA[0], 4 * size_a); cudaMalloc(&dB[0], 4 * size_b); cudaMalloc(&dC[0], 4 * size_c);
    for (long i = 0; i < size_a; ++i) dA[0][i] = u(gen);
    for (long i = 0; i < size_b; ++i) dB[0][i] = u(gen);
    for (long i = 0; i < size_c; ++i) dC[0][i] = u(gen);
%(group_setup)s
    float* dRef;
    cudaMalloc(&dRef, 4 * size_c);
    cudaMemcpy(dRef, dC[0], 4 * size_c, cudaMemcpyDeviceToDevice);
    auto cublas_check = [&](int s, float* c) { %(check_call)s; };
    // the stand-in for gemmc's kernel, row-major, in f32
    auto gemmc = [&](int s) {
        const float* a = dA[s];
        const float* b = dB[s];
        float* c = dC[s];
        KERNEL
    };
%(check)s
    std::printf(passed ? "PASS\n" : "FAIL\n");
    return 0;
}
"""

# batch t's C = A[t] @ B[t] (B [Bt, K, N]; BT_B: B [Bt, N, K] used as B.T); SB: B's batch stride
_BATCHED = """for (int t = 0; t < BATCHES; ++t) for (int i = 0; i < M; ++i) for (int j = 0; j < N; ++j) {
            float acc = 0.0f;
            for (int k = 0; k < K; ++k) acc += a[(long)t * M * K + (long)i * K + k] * b[(long)t * SB + B_AT];
            c[(long)t * M * N + (long)i * N + j] = UPDATE;
        }"""
# group g's rows r0 + SHIFT .. r0 + sizes[g] + SHIFT times W[EXPERT]
_GROUPED = """for (int g = 0, r0 = 0; g < groups; r0 += h_sizes[g], ++g)
            for (int i = r0 + SHIFT; i < std::min(r0 + h_sizes[g] + SHIFT, M); ++i) for (int j = 0; j < N; ++j) {
                float acc = 0.0f;
                for (int k = 0; k < K; ++k) acc += a[(long)i * K + k] * b[(long)(EXPERT) * K * N + (long)k * N + j];
                c[(long)i * N + j] = UPDATE;
            }"""


def _host_verdict(tmp_path, module, kernel: str, sizes=None, update: str = "acc") -> str:
    _, f = main_fields(module, SM90, {}, group_sizes=sizes)
    src = tmp_path / "cmp.cpp"
    src.write_text((_HOST % f).replace("KERNEL", kernel).replace("UPDATE", update))
    exe = tmp_path / "cmp"
    subprocess.run(["c++", "-O1", "-std=c++17", str(src), "-o", str(exe)], check=True)
    out = subprocess.run([str(exe)], capture_output=True, text=True)
    return out.stdout.strip()


@pytest.mark.skipif(shutil.which("c++") is None, reason="no host C++ compiler")
@pytest.mark.parametrize("b,expr,batches,sb,b_at,verdict", [
    ("B: {t}[Bt, K, N]", "C = A @ B", "3", "K * N", "(long)k * N + j", "PASS"),
    ("B: {t}[Bt, K, N]", "C = A @ B", "3", "0", "(long)k * N + j", "FAIL"),  # every batch reads batch 0's B
    ("B: {t}[Bt, K, N]", "C = A @ B", "3", "(K - 1) * N", "(long)k * N + j", "FAIL"),  # a wrong batch stride
    ("B: {t}[Bt, K, N]", "C = A @ B", "2", "K * N", "(long)k * N + j", "FAIL"),  # the last batch lost
    ("B: {t}[K, N]", "C = A @ B", "3", "0", "(long)k * N + j", "PASS"),  # B broadcast: stride 0 in cuBLAS too
    ("B: {t}[Bt, N, K]", "C = A @ B.T", "3", "N * K", "(long)j * K + k", "PASS"),
    ("B: {t}[Bt, N, K]", "C = A @ B.T", "3", "N * K", "(long)k * N + j", "FAIL"),  # B read untransposed
])
def test_batched_comparison_fails_planted_bugs(tmp_path, b, expr, batches, sb, b_at, verdict):
    module = lowered(batched(b=b, expr=expr))
    kernel = _BATCHED.replace("BATCHES", batches).replace("SB", sb).replace("B_AT", b_at)
    assert _host_verdict(tmp_path, module, kernel) == verdict


_ALPHA_BETA = "C = alpha * A @ B + beta * C"


@pytest.mark.skipif(shutil.which("c++") is None, reason="no host C++ compiler")
@pytest.mark.parametrize("kind,update,verdict", [
    ("batched", "alpha_value * acc + beta_value * c[(long)t * M * N + (long)i * N + j]", "PASS"),
    ("batched", "alpha_value * acc", "FAIL"),  # C's old value lost
    ("grouped", "alpha_value * acc + beta_value * c[(long)i * N + j]", "PASS"),
    ("grouped", "acc + beta_value * c[(long)i * N + j]", "FAIL"),  # alpha lost
])
def test_alpha_and_beta_reach_the_reference(tmp_path, kind, update, verdict):
    """alpha and beta host scalars: the bench's values go to cuBLAS's calls, C's old value is each set's."""
    if kind == "batched":
        module = lowered(batched(expr=_ALPHA_BETA).replace("  acc f32", "  alpha: f32\n  beta: f32\n  acc f32"))
        kernel = _BATCHED.replace("BATCHES", "3").replace("SB", "K * N").replace("B_AT", "(long)k * N + j")
    else:
        module = lowered(grouped(expr="Y = alpha * X @ W + beta * Y grouped by sizes")
                         .replace("  acc f32", "  alpha: f32\n  beta: f32\n  acc f32"))
        kernel = _GROUPED.replace("SHIFT", "0").replace("EXPERT", "g")
    assert _host_verdict(tmp_path, module, kernel, [5, 0, 17, 20] if kind == "grouped" else None, update) == verdict


@pytest.mark.skipif(shutil.which("c++") is None, reason="no host C++ compiler")
@pytest.mark.parametrize("sizes,shift,expert,verdict", [
    ([5, 0, 17, 20], "0", "g", "PASS"),
    (None, "0", "g", "PASS"),  # the default sizes (one group empty)
    ([5, 0, 17, 20], "1", "g", "FAIL"),  # each group's rows one late: its first row another group's
    ([5, 0, 17, 20], "(g > 0 ? -1 : 0)", "g", "FAIL"),  # one early
    ([5, 0, 17, 20], "0", "(g == 3 ? 2 : g)", "FAIL"),  # the last group multiplies the one before's W
    ([5, 0, 17, 28], "0", "g", "PASS"),  # the sizes sum to M
])
def test_grouped_comparison_fails_planted_bugs(tmp_path, sizes, shift, expert, verdict):
    module = lowered(grouped())
    kernel = _GROUPED.replace("SHIFT", shift).replace("EXPERT", expert)
    assert _host_verdict(tmp_path, module, kernel, sizes) == verdict


# -- benchmarks/h200/batched.py ---------------------------------------------------------------------


def test_batched_table_is_the_rendering_of_its_raw_files():
    """benchmarks/h200/batched.md is what batched.py renders from raw/ (the manifest alone until a device
    run's batched*.jsonl are copied there), and the manifest holds batched.py's programs."""
    from benchmark_scripts import load

    root = Path(__file__).resolve().parents[1]
    script = load("h200/batched")
    out, text = script.render(root / "benchmarks/h200/raw")
    assert (root / "benchmarks/h200/batched.md").read_text() == text
    labels = {(r["label"], r["variant"]) for r in out["rows"]}
    required = {(x, "selected") for x in script.PROGRAMS} | {(x, "check") for x in script.CHECKS}
    # the candidates and the TMA checks where a run timed them (pending.py's keeps what differs from `selected`)
    optional = {(x, "cand_wgmma") for x in script.CANDIDATES} | {(x, "check_tma") for x in script.CHECKS}
    assert required <= labels <= required | optional


def test_batched_render_of_a_device_run(tmp_path):
    """The table from a device run's files: % of cuBLAS and of PyTorch's row of the same C, the target, errors."""
    import json

    from benchmark_scripts import load

    script = load("h200/batched")
    root = Path(__file__).resolve().parents[1]
    manifest = json.loads((root / "benchmarks/h200/raw/batched_manifest.json").read_text())
    (tmp_path / "batched_manifest.json").write_text(json.dumps(manifest))
    res = dict(gemmc_ms=0.1, cublas_ms=0.095, gemmc_tflops=343.6, cublas_tflops=361.7, max_rel_err=1e-7, passed=True)
    (tmp_path / "batched.jsonl").write_text(
        json.dumps({"label": "bmm_f16_c16", "variant": "selected", "result": res}) + "\n"
        + json.dumps({"label": "grouped_f16", "variant": "selected", "result": dict(res, gemmc_ms=0.2)}) + "\n"
        + json.dumps({"label": "grouped_bf16", "variant": "selected", "error": "BUILD FAILED x"}) + "\n")
    (tmp_path / "batched_peers.jsonl").write_text(
        json.dumps({"label": "torch_bmm_f16", "ms": 0.104, "tflops": 330.0, "rel_err": 3e-4}) + "\n"
        + json.dumps({"label": "torch_loop_mm_f16_f32out", "error": "TypeError('out_dtype')"}) + "\n")
    out, text = script.render(tmp_path)
    rows = {(r["label"], r["variant"]): r for r in out["rows"]}
    assert rows[("bmm_f16_c16", "selected")]["pct_of_cublas"] == pytest.approx(95.0)
    assert rows[("bmm_f16_c16", "selected")]["pct_of_torch"] == pytest.approx(104.0)
    assert "| bmm_f16_c16 | f16 | selected | PASS (1.0e-07) | 0.100 | 343.6 | 0.095 | 361.7 | 95.0 | 0.104 | 104.0 | yes |" in text
    assert "| grouped_f16 | f32 | selected | PASS (1.0e-07) | 0.200 |" in text and "| 47.5 | - | - | no |" in text
    assert "- grouped_bf16 selected: `BUILD FAILED x`" in text
    assert "| torch_loop_mm_f16_f32out | - | - | TypeError('out_dtype') |" in text
    assert "Not yet run" not in text
