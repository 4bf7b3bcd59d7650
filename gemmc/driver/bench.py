"""`gemmc bench`: build a kernel for the NVIDIA sm_90 target, check it against cuBLAS and time it.

The program is the kernel and launcher gemmc emits (CUDA-flavoured HIP) plus a
benchmark `main` written here: random inputs, a correctness check of C against
cuBLAS SGEMM in pedantic FP32 (no TF32; f16 and bf16 inputs: cublasGemmEx into an f32 C, accumulating
in f32: both sums of exact products), then timing with CUDA events (warm-up, the
median of repeats, and several input sets in rotation so the inputs are not
L2-resident), and one JSON line with the results.  nvcc builds it; it runs only
where there is an NVIDIA GPU, and says so in one line elsewhere.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from xdsl.dialects.builtin import ModuleOp

from gemmc.target.arch import Arch
from gemmc.support.diagnostics import EXIT_TOOLCHAIN, GemmcError, usage_error


@dataclass
class Problem:
    m: int
    n: int
    k: int
    transpose_a: bool
    transpose_b: bool
    alpha: float | None
    beta: float | None


ALPHA, BETA = 1.25, 0.75


def problem_of(module: ModuleOp, dims: dict[str, int]) -> tuple[Problem, dict]:
    """M, N, K and the operation, from the host function's recorded spec and -D sizes."""
    from gemmc.interp import host_function, matmul_spec
    from gemmc.interp.check import arg_shapes

    fn = host_function(module)
    spec = matmul_spec(module, fn)
    shapes = arg_shapes(fn, dims)
    m, k = shapes[spec.a][::-1] if spec.transpose_a else shapes[spec.a]
    n = shapes[spec.c][1]

    def scalar(s, default):
        if s is None:
            return None
        return s.value if s.value is not None else default

    return Problem(m, n, k, spec.transpose_a, spec.transpose_b, scalar(spec.alpha, ALPHA),
                   scalar(spec.beta, BETA)), {"spec": spec, "shapes": shapes}


def bench_source(module: ModuleOp, arch: Arch, dims: dict[str, int], repeats: int = 20) -> str:
    """The whole .cu program: gemmc's kernel and launcher, then the benchmark main."""
    from gemmc.emit.hip import HipEmitter

    if arch.vendor != "nvidia":
        raise usage_error(f"gemmc bench runs on NVIDIA GPUs: use --arch sm_90, not {arch.name}")
    emitter = HipEmitter(arch)
    kernel_text = emitter.emit(module)
    if len(emitter.launchers) != 1:
        raise GemmcError("gemmc bench needs exactly one host function that launches kernels")
    launcher = emitter.launchers[0]
    prob, info = problem_of(module, dims)
    spec, shapes = info["spec"], info["shapes"]
    if spec.epilogue:  # its check is cuBLAS's plain product, its call passes A, B, C and the scalars
        raise GemmcError("gemmc bench checks against cuBLAS's plain GEMM and has no fused epilogue yet; "
                         "`gemmc compile --arch sm_90 --harness` checks and times one")
    call = []
    for q in launcher.params:
        if q.kind == "memref":
            call.append({spec.a: "dA[s]", spec.b: "dB[s]", spec.c: "dC[s]"}[q.arg])
        elif q.kind == "dim":
            call.append(str(dims.get(q.dim, {"M": prob.m, "N": prob.n, "K": prob.k}.get(q.dim, 0))))
        else:
            which = "alpha" if spec.alpha is not None and spec.alpha.arg == q.arg else "beta"
            call.append(f"{which}_value")
    in_c, data_type = _input_types(module, spec)
    cublas_call = (_SGEMM if in_c == "float" else _GEMM_EX).format(data_type=data_type, **_operands(prob))
    return kernel_text + _MAIN.format(
        launcher=launcher.name, call=", ".join(call), M=prob.m, N=prob.n, K=prob.k, in_t=in_c,
        cublas_call=cublas_call,
        fill_inputs="" if in_c == "float" else f"template __global__ void bench_fill<{in_c}>({in_c}*, long, unsigned);", math_mode="CUBLAS_PEDANTIC_MATH" if in_c == "float" else "CUBLAS_DEFAULT_MATH",
        size_a=shapes[spec.a][0] * shapes[spec.a][1], size_b=shapes[spec.b][0] * shapes[spec.b][1],
        alpha=prob.alpha if prob.alpha is not None else 1.0,
        beta=prob.beta if prob.beta is not None else 0.0,
        repeats=repeats, l2=arch.l2_bytes,
    )


# A's and B's element type -> (its C type, cuBLAS's cudaDataType for cublasGemmEx)
_INPUTS = {"f32": ("float", "CUDA_R_32F"), "f16": ("__half", "CUDA_R_16F"), "bf16": ("__nv_bfloat16", "CUDA_R_16BF")}


def _input_types(module: ModuleOp, spec) -> tuple[str, str]:
    """The C type and cuBLAS data type of A and B (one type; C must be f32), or a usage error."""
    from gemmc.dialects.gemm import type_name
    from gemmc.interp import host_function

    fn = host_function(module)
    a, b, c = (type_name(fn.args[i].type.element_type) for i in (spec.a, spec.b, spec.c))
    if a != b or a not in _INPUTS or c != "f32":
        raise usage_error(f"gemmc bench checks f32, f16 or bf16 inputs (A and B of one type) with an f32 C "
                          f"against cuBLAS; this kernel has A {a}, B {b}, C {c}")
    return _INPUTS[a]


def _operands(prob: Problem) -> dict:
    return dict(op_a="CUBLAS_OP_T" if prob.transpose_a else "CUBLAS_OP_N",
                op_b="CUBLAS_OP_T" if prob.transpose_b else "CUBLAS_OP_N",
                lda=prob.m if prob.transpose_a else prob.k, ldb=prob.k if prob.transpose_b else prob.n)


# Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T.  f32: pedantic FP32 (no TF32);
# 16-bit inputs: cublasGemmEx accumulating in f32 into an f32 C, cuBLAS's default (tensor-core) math.
_SGEMM = ("cublasSgemm(handle, {op_b}, {op_a}, N, M, K, &alpha_value, dB[s], {ldb}, dA[s], {lda}, "
          "&beta_value, c, N)")
_GEMM_EX = ("cublasGemmEx(handle, {op_b}, {op_a}, N, M, K, &alpha_value, dB[s], {data_type}, {ldb}, dA[s], "
            "{data_type}, {lda}, &beta_value, c, CUDA_R_32F, N, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT)")


def run_bench(module: ModuleOp, arch: Arch, dims: dict[str, int], repeats: int = 20) -> dict:
    """Build with nvcc, run, return the parsed JSON result."""
    from gemmc.target.cuda import build_executable

    source = bench_source(module, arch, dims, repeats)  # the input's errors (sizes, ...) come first
    if shutil.which("nvidia-smi") is None or subprocess.run(["nvidia-smi", "-L"], capture_output=True).returncode:
        raise GemmcError("gemmc bench: no NVIDIA GPU here (nvidia-smi finds none); run it on a machine with one",
                         code=EXIT_TOOLCHAIN)
    with tempfile.TemporaryDirectory(prefix="gemmc-bench-") as tmp:
        exe = Path(tmp) / "bench"
        build_executable(source, arch, exe, ["-lcublas"])
        proc = subprocess.run([str(exe)], capture_output=True, text=True, timeout=600)
    line = next((l for l in proc.stdout.splitlines() if l.startswith("{")), None)
    if proc.returncode != 0 or line is None:
        raise GemmcError(f"gemmc bench: the benchmark failed: {(proc.stderr or proc.stdout).strip()[:300]}",
                         code=EXIT_TOOLCHAIN)
    return json.loads(line)


def format_result(r: dict) -> str:
    return (f"{r['kernel']}: M={r['M']} N={r['N']} K={r['K']}  gemmc {r['gemmc_ms']:.3f} ms "
            f"{r['gemmc_tflops']:.2f} TFLOP/s | cuBLAS {r['cublas_ms']:.3f} ms {r['cublas_tflops']:.2f} TFLOP/s | "
            f"{r['pct_of_cublas']:.1f}% of cuBLAS | max rel err {r['max_rel_err']:.2e} "
            f"{'PASS' if r['passed'] else 'FAIL'} | {r['device']}")


_MAIN = r"""
// ---- Benchmark main (gemmc bench) --------------------------------------------------------------
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define BENCH_CHECK(x) do {{ cudaError_t e_ = (x); if (e_ != cudaSuccess) {{ \
    std::fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); std::exit(2); }} }} while (0)
#define BLAS_CHECK(x) do {{ cublasStatus_t s_ = (x); if (s_ != CUBLAS_STATUS_SUCCESS) {{ \
    std::fprintf(stderr, "cuBLAS error %d at %s:%d\n", (int)s_, __FILE__, __LINE__); std::exit(2); }} }} while (0)

template <typename T> __global__ void bench_fill(T* x, long n, unsigned seed)
{{
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    for (; i < n; i += (long)gridDim.x * blockDim.x) {{
        unsigned h = (unsigned)i * 2654435761u ^ seed * 2246822519u;
        h ^= h >> 15; h *= 2246822519u; h ^= h >> 13; h *= 3266489917u; h ^= h >> 16;
        x[i] = (T)((float)(h & 0xffffff) / (float)0x800000 - 1.0f);
    }}
}}
// Instantiated here: nvcc's device pass does not see the host code that launches them.
template __global__ void bench_fill<float>(float*, long, unsigned);
{fill_inputs}

#ifdef GEMMC_HOST_CODE  // nvcc's device pass sees the kernels only
template <typename T> static void fill(T* x, long n, unsigned seed) {{ bench_fill<<<1024, 256>>>(x, n, seed); BENCH_CHECK(cudaGetLastError()); }}

int main()
{{
    const int M = {M}, N = {N}, K = {K};
    const long size_a = {size_a}L, size_b = {size_b}L, size_c = (long)M * N;
    const float alpha_value = {alpha}f, beta_value = {beta}f;
    const double bytes_per_set = sizeof({in_t}) * (size_a + size_b) + 4.0 * size_c;
    const int sets = std::max(2, std::min(16, (int)std::ceil(4.0 * {l2} / bytes_per_set)));
    std::vector<{in_t}*> dA(sets), dB(sets);
    std::vector<float*> dC(sets);
    for (int s = 0; s < sets; ++s) {{
        BENCH_CHECK(cudaMalloc(&dA[s], sizeof({in_t}) * size_a)); BENCH_CHECK(cudaMalloc(&dB[s], sizeof({in_t}) * size_b));
        BENCH_CHECK(cudaMalloc(&dC[s], 4 * size_c));
        fill(dA[s], size_a, 3 * s + 1); fill(dB[s], size_b, 3 * s + 2); fill(dC[s], size_c, 3 * s + 3);
    }}
    float *dC0, *dRef;
    BENCH_CHECK(cudaMalloc(&dC0, 4 * size_c)); BENCH_CHECK(cudaMalloc(&dRef, 4 * size_c));
    BENCH_CHECK(cudaMemcpy(dC0, dC[0], 4 * size_c, cudaMemcpyDeviceToDevice));
    BENCH_CHECK(cudaMemcpy(dRef, dC[0], 4 * size_c, cudaMemcpyDeviceToDevice));
    cublasHandle_t handle;
    BLAS_CHECK(cublasCreate(&handle));
    BLAS_CHECK(cublasSetMathMode(handle, {math_mode}));  // FP32: pedantic, no TF32
    cudaStream_t stream = 0;

    // Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T.
    auto cublas = [&](int s, float* c) {{ BLAS_CHECK({cublas_call}); }};
    auto gemmc = [&](int s) {{ BENCH_CHECK({launcher}({call}, stream)); }};

    // Correctness on set 0, against cuBLAS from the same C.
    {{
        int s = 0;
        gemmc(s);
        BENCH_CHECK(cudaDeviceSynchronize());
        cublas(0, dRef);
        BENCH_CHECK(cudaDeviceSynchronize());
    }}
    std::vector<float> got(size_c), ref(size_c);
    BENCH_CHECK(cudaMemcpy(got.data(), dC[0], 4 * size_c, cudaMemcpyDeviceToHost));
    BENCH_CHECK(cudaMemcpy(ref.data(), dRef, 4 * size_c, cudaMemcpyDeviceToHost));
    double max_diff = 0, max_ref = 0, sum_sq = 0, ref_sq = 0;
    bool finite = true;
    for (long i = 0; i < size_c; ++i) {{
        double d = std::fabs((double)got[i] - ref[i]);
        finite = finite && std::isfinite(got[i]);
        max_diff = std::max(max_diff, d); max_ref = std::max(max_ref, (double)std::fabs(ref[i]));
        sum_sq += d * d; ref_sq += (double)ref[i] * ref[i];
    }}
    const double rel = max_diff / std::max(max_ref, 1e-30), norm_rel = std::sqrt(sum_sq / std::max(ref_sq, 1e-30));
    const bool passed = finite && norm_rel < 1e-5 * std::sqrt((double)K) && rel < 1e-4 * std::sqrt((double)K);

    cudaEvent_t t0, t1;
    BENCH_CHECK(cudaEventCreate(&t0)); BENCH_CHECK(cudaEventCreate(&t1));
    auto time_median = [&](auto&& run) {{
        for (int w = 0; w < 3; ++w) run(w % sets);
        BENCH_CHECK(cudaDeviceSynchronize());
        std::vector<float> ms;
        for (int r = 0; r < {repeats}; ++r) {{
            BENCH_CHECK(cudaEventRecord(t0, stream));
            run(r % sets);
            BENCH_CHECK(cudaEventRecord(t1, stream));
            BENCH_CHECK(cudaEventSynchronize(t1));
            float x; BENCH_CHECK(cudaEventElapsedTime(&x, t0, t1)); ms.push_back(x);
        }}
        std::sort(ms.begin(), ms.end());
        return (double)ms[ms.size() / 2];
    }};
    const double g_ms = time_median([&](int s) {{ gemmc(s); }});
    const double c_ms = time_median([&](int s) {{ cublas(s, dC[s]); }});
    const double flops = 2.0 * M * N * K;
    cudaDeviceProp prop; BENCH_CHECK(cudaGetDeviceProperties(&prop, 0));
    int driver = 0, runtime = 0; cudaDriverGetVersion(&driver); cudaRuntimeGetVersion(&runtime);
    std::printf("{{\"kernel\": \"{launcher}\", \"M\": %d, \"N\": %d, \"K\": %d, \"gemmc_ms\": %.6f, \"cublas_ms\": %.6f, "
                "\"gemmc_tflops\": %.4f, \"cublas_tflops\": %.4f, \"pct_of_cublas\": %.2f, \"max_rel_err\": %.3e, "
                "\"norm_rel_err\": %.3e, \"passed\": %s, \"input_sets\": %d, \"repeats\": %d, \"device\": \"%s\", "
                "\"cuda_driver\": %d, \"cuda_runtime\": %d}}\n",
                M, N, K, g_ms, c_ms, flops / g_ms / 1e9, flops / c_ms / 1e9, 100.0 * c_ms / g_ms, rel, norm_rel,
                passed ? "true" : "false", sets, {repeats}, prop.name, driver, runtime);
    return passed ? 0 : 1;
}}
#endif  // GEMMC_HOST_CODE
"""
