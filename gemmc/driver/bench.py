"""`gemmc bench`: build a kernel for the NVIDIA sm_90 target, check it against cuBLAS and time it.

The program is the kernel and launcher gemmc emits (CUDA-flavoured HIP) plus a
benchmark `main` written here: random inputs, a correctness check of C against
cuBLAS SGEMM in pedantic FP32 (no TF32; f16 and bf16 inputs: cublasGemmEx into an f32 C, accumulating
in f32: both sums of exact products; OCP FP8 inputs: cublasGemmEx on f16 copies of them, exact, as every
e4m3 and e5m2 value is an f16; 16-bit inputs may have a C of their own type, cuBLAS's C then too), then
timing with CUDA events (warm-up, the median of repeats, and several input sets in rotation so the inputs
are not L2-resident), and one JSON line with the results.  A batched product is checked against
cublasGemmStridedBatchedEx and a grouped one against cublasGemmEx looped over its groups
(gemmc.driver.bench_batched); a fused epilogue against the declared program (gemmc.driver.bench_epilogue).
nvcc builds it; it runs only where there is an NVIDIA GPU, and says so in one line elsewhere.
"""

from __future__ import annotations

import json
import math
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from xdsl.dialects.builtin import ModuleOp

from gemmc.driver import bench_epilogue
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
    m, k = shapes[spec.a][-2:][::-1] if spec.transpose_a else shapes[spec.a][-2:]
    n = shapes[spec.c][-1]

    def scalar(s, default):
        if s is None:
            return None
        return s.value if s.value is not None else default

    return Problem(m, n, k, spec.transpose_a, spec.transpose_b, scalar(spec.alpha, ALPHA),
                   scalar(spec.beta, BETA)), {"spec": spec, "shapes": shapes}


def bench_source(module: ModuleOp, arch: Arch, dims: dict[str, int], repeats: int = 20,
                 group_sizes: list[int] | None = None) -> str:
    """The whole .cu program: gemmc's kernel and launcher, then the benchmark main.  `group_sizes`
    fixes a grouped product's sizes (gemmc.driver.bench_batched.default_sizes without)."""
    kernel_text, fields = main_fields(module, arch, dims, repeats, group_sizes)
    return kernel_text + _MAIN.format(**fields)


def main_fields(module: ModuleOp, arch: Arch, dims: dict[str, int], repeats: int = 20,
                group_sizes: list[int] | None = None) -> tuple[str, dict]:
    """gemmc's kernel and launcher, and the fields of _MAIN (tests build parts of them on the host)."""
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
    _refuse_converted_outputs(module, spec)
    a_type, b_type, c_type = _input_types(module, spec)
    several = len(shapes[spec.c]) == 3 or spec.grouped  # a batched or grouped product
    if several and (spec.epilogue or a_type in FP8_INPUTS):
        raise usage_error("gemmc bench checks a batched or grouped product of f32, f16 or bf16 inputs without "
                          "an epilogue (against cuBLAS); `gemmc run` checks this one")
    if spec.epilogue and c_type != "f32":
        raise usage_error(f"gemmc bench checks an epilogue's C in f32; this kernel's C is {c_type}")
    epilogue = bench_epilogue.Fields(module, spec, prob, a_type) if spec.epilogue else None
    call = []
    for q in launcher.params:
        if q.kind == "memref" and q.arg in (spec.a, spec.b, spec.c):
            call.append({spec.a: "dA[s]", spec.b: "dB[s]", spec.c: "dC[s]"}[q.arg])
        elif q.kind == "memref" and q.arg == spec.group_sizes:
            call.append("dSizes")
        elif q.kind == "memref" or (epilogue and q.arg in epilogue.scalars):
            call.append(epilogue.argument(q.arg))
        elif q.kind == "dim":
            call.append(str(dims.get(q.dim, {"M": prob.m, "N": prob.n, "K": prob.k}.get(q.dim, 0))))
        else:
            which = "alpha" if spec.alpha is not None and spec.alpha.arg == q.arg else "beta"
            call.append(f"{which}_value")
    fields = _fp8_fields(prob, a_type, b_type) if a_type in FP8_INPUTS else _plain_fields(prob, a_type, c_type)
    fields |= epilogue.fields() if epilogue else cublas_check(c_type)
    fields |= dict(size_c="(long)M * N", flops="2.0 * M * N * K", extra_json="", group_setup="")
    if several:
        from gemmc.driver import bench_batched

        fields |= bench_batched.fields(prob, spec, shapes, _INPUTS[a_type][1], _INPUTS[c_type][1], group_sizes)
    return kernel_text, dict(
        launcher=launcher.name, call=", ".join(call), M=prob.m, N=prob.n, K=prob.k, **fields,
        size_a=math.prod(shapes[spec.a]), size_b=math.prod(shapes[spec.b]), c_t=_INPUTS[c_type][0],
        alpha=prob.alpha if prob.alpha is not None else 1.0,
        beta=prob.beta if prob.beta is not None else 0.0,
        repeats=repeats, l2=arch.l2_bytes,
    )


# A's and B's element type -> (its C type, cuBLAS's cudaDataType for cublasGemmEx)
_INPUTS = {"f32": ("float", "CUDA_R_32F"), "f16": ("__half", "CUDA_R_16F"), "bf16": ("__nv_bfloat16", "CUDA_R_16BF")}
# OCP FP8 (sm_90), gemmc's bytes: cuda_fp8.h's type of the format and cuBLASLt's cudaDataType
FP8_INPUTS = {"f8e4m3fn": ("__nv_fp8_e4m3", "CUDA_R_8F_E4M3"), "f8e5m2": ("__nv_fp8_e5m2", "CUDA_R_8F_E5M2")}


def _refuse_converted_outputs(module: ModuleOp, spec) -> None:
    """More outputs (gemm.output), an amax (gemm.amax), an FP8 or i8 C: a usage error, as the benchmark
    compares one C with cuBLAS's (`gemmc run` checks those)."""
    from gemmc.dialects.gemm import is_fp8, type_name
    from gemmc.interp import host_function

    c = type_name(host_function(module).args[spec.c].type.element_type)
    what = [w for w, on in (("more outputs (gemm.output)", spec.outputs), ("an amax output (gemm.amax)",
                            spec.amax is not None), (f"a {c} C", is_fp8(c) or c == "i8")) if on]
    if what:
        raise usage_error(f"gemmc bench compares one C (f32, or the 16-bit inputs' type) with cuBLAS's; this program writes {' and '.join(what)} "
                          f"(`gemmc run` checks it)")


def _input_types(module: ModuleOp, spec) -> tuple[str, str, str]:
    """A's, B's and C's types (f32, f16, bf16 inputs of one type, or two OCP FP8 formats; C f32, or
    16-bit inputs' own type: cuBLAS accumulates in f32 and rounds C once), or a usage error."""
    from gemmc.dialects.gemm import type_name
    from gemmc.interp import host_function

    fn = host_function(module)
    a, b, c = (type_name(fn.args[i].type.element_type) for i in (spec.a, spec.b, spec.c))
    half_c = c == a == b and a in ("f16", "bf16")
    if not (c == "f32" or half_c) or not ((a == b and a in _INPUTS) or (a in FP8_INPUTS and b in FP8_INPUTS)):
        raise usage_error(f"gemmc bench checks f32, f16 or bf16 inputs (A and B of one type) or OCP FP8 ones "
                          f"(f8e4m3fn, f8e5m2) with an f32 C (or a C of the 16-bit inputs' type) against cuBLAS; "
                          f"this kernel has A {a}, B {b}, C {c}")
    return a, b, c


def _plain_fields(prob: "Problem", t: str, c: str = "f32") -> dict:
    """_MAIN's fields for f32 and 16-bit inputs: cuBLAS checks and is timed on the inputs themselves."""
    in_c, data_type = _INPUTS[t]
    call = (_SGEMM if in_c == "float" else _GEMM_EX).format(data_type=data_type, dA="dA", dB="dB",
                                                            c_type=_INPUTS[c][1], **_operands(prob))
    call = f"BLAS_CHECK({call})"
    kind = "cublasSgemm (pedantic FP32)" if in_c == "float" else "cublasGemmEx"
    return dict(in_t=in_c, cublas_call=call, check_call=call, cublas_kind=kind, fill_a="fill", fill_b="fill",
                fill_inputs="",
                fp8_includes="", fp8_host="", fp8_setup="",
                math_mode="CUBLAS_PEDANTIC_MATH" if in_c == "float" else "CUBLAS_DEFAULT_MATH")


def fp8_cublaslt(prob: "Problem", a: str, b: str) -> bool:
    """Whether cuBLASLt's FP8 GEMM takes the problem: its "TN" layout alone (A [M][K], B stored [N][K],
    both k-contiguous), not e5m2 x e5m2 (cuBLASLt's FP8 type table), and M, N and K multiples of 16
    (its FP8 alignment rule: on an H100 it answered CUBLAS_STATUS_NOT_SUPPORTED at 3000^3 and 4097x4095x1023)."""
    return (not prob.transpose_a and prob.transpose_b and (a, b) != ("f8e5m2", "f8e5m2")
            and prob.m % 16 == prob.n % 16 == prob.k % 16 == 0)


def _fp8_fields(prob: "Problem", a: str, b: str) -> dict:
    """_MAIN's fields for OCP FP8 inputs: bytes filled through cuda_fp8.h's types; checked against
    cublasGemmEx on f16 copies (exact); timed against cuBLASLt's FP8 GEMM where it takes the
    problem (fp8_cublaslt), else against that f16 cublasGemmEx."""
    fa, fb = FP8_INPUTS[a][0], FP8_INPUTS[b][0]
    gemm_ex = _GEMM_EX.format(data_type="CUDA_R_16F", dA="dA16", dB="dB16", c_type="CUDA_R_32F", **_operands(prob))
    lt = fp8_cublaslt(prob, a, b)
    setup = _FP8_SETUP.format(fa=fa, fb=fb) + (_LT_SETUP.format(type_a=FP8_INPUTS[a][1], type_b=FP8_INPUTS[b][1])
                                               if lt else "")
    device = "\n".join(f"template __global__ void {k}<{f}>({args});" for f in dict.fromkeys((fa, fb))
                        for k, args in (("bench_fill_fp8", "unsigned char*, long, unsigned"),
                                        ("bench_fp8_to_half", "const unsigned char*, __half*, long")))
    return dict(in_t="unsigned char", cublas_call=f"BLAS_CHECK({_LT_MATMUL if lt else gemm_ex})",
                check_call=f"BLAS_CHECK({gemm_ex})",
                cublas_kind="cublasLt FP8" if lt else "cublasGemmEx f16 (the FP8 values)",
                fill_a=f"fill_fp8<{fa}>", fill_b=f"fill_fp8<{fb}>", fill_inputs=_FP8_DEVICE + device,
                fp8_includes="#include <cublasLt.h>\n#include <cuda_fp8.h>", fp8_host=_FP8_HOST, fp8_setup=setup,
                math_mode="CUBLAS_DEFAULT_MATH")


def _operands(prob: Problem) -> dict:
    return dict(op_a="CUBLAS_OP_T" if prob.transpose_a else "CUBLAS_OP_N",
                op_b="CUBLAS_OP_T" if prob.transpose_b else "CUBLAS_OP_N",
                lda=prob.m if prob.transpose_a else prob.k, ldb=prob.k if prob.transpose_b else prob.n)


# Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T.  f32: pedantic FP32 (no TF32);
# 16-bit inputs: cublasGemmEx accumulating in f32 into an f32 C, cuBLAS's default (tensor-core) math.
_SGEMM = ("cublasSgemm(handle, {op_b}, {op_a}, N, M, K, &alpha_value, {dB}[s], {ldb}, {dA}[s], {lda}, "
          "&beta_value, c, N)")
_GEMM_EX = ("cublasGemmEx(handle, {op_b}, {op_a}, N, M, K, &alpha_value, {dB}[s], {data_type}, {ldb}, {dA}[s], "
            "{data_type}, {lda}, &beta_value, c, {c_type}, N, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT)")

# FP8: the inputs' bytes from uniform values in [-1, 1) rounded to the format, and their f16 copies
_FP8_DEVICE = r"""
template <typename F> __global__ void bench_fill_fp8(unsigned char* x, long n, unsigned seed)
{{
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    for (; i < n; i += (long)gridDim.x * blockDim.x) {{
        unsigned h = (unsigned)i * 2654435761u ^ seed * 2246822519u;
        h ^= h >> 15; h *= 2246822519u; h ^= h >> 13; h *= 3266489917u; h ^= h >> 16;
        x[i] = F((float)(h & 0xffffff) / (float)0x800000 - 1.0f).__x;
    }}
}}
template <typename F> __global__ void bench_fp8_to_half(const unsigned char* x, __half* y, long n)
{{
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    for (; i < n; i += (long)gridDim.x * blockDim.x) {{ F f; f.__x = x[i]; y[i] = static_cast<__half>(f); }}
}}
"""
_FP8_HOST = ("template <typename F> static void fill_fp8(unsigned char* x, long n, unsigned seed) "
             "{ bench_fill_fp8<F><<<1024, 256>>>(x, n, seed); BENCH_CHECK(cudaGetLastError()); }")
_FP8_SETUP = """
    // The FP8 inputs as f16 (exact): cublasGemmEx's check, and its timing where cuBLASLt takes no FP8 GEMM
    std::vector<__half*> dA16(sets), dB16(sets);
    for (int s = 0; s < sets; ++s) {{
        BENCH_CHECK(cudaMalloc(&dA16[s], 2 * size_a)); BENCH_CHECK(cudaMalloc(&dB16[s], 2 * size_b));
        bench_fp8_to_half<{fa}><<<1024, 256>>>(dA[s], dA16[s], size_a);
        bench_fp8_to_half<{fb}><<<1024, 256>>>(dB[s], dB16[s], size_b);
        BENCH_CHECK(cudaGetLastError());
    }}"""
# cuBLASLt's FP8 GEMM, column-major: C^T [N x M] = (B [N][K] as K x N, transposed) x (A [M][K] as K x M)
_LT_SETUP = """
    cublasLtHandle_t lt;
    BLAS_CHECK(cublasLtCreate(&lt));
    cublasLtMatmulDesc_t lt_op;
    BLAS_CHECK(cublasLtMatmulDescCreate(&lt_op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    const cublasOperation_t lt_ta = CUBLAS_OP_T, lt_tb = CUBLAS_OP_N;
    BLAS_CHECK(cublasLtMatmulDescSetAttribute(lt_op, CUBLASLT_MATMUL_DESC_TRANSA, &lt_ta, sizeof(lt_ta)));
    BLAS_CHECK(cublasLtMatmulDescSetAttribute(lt_op, CUBLASLT_MATMUL_DESC_TRANSB, &lt_tb, sizeof(lt_tb)));
    cublasLtMatrixLayout_t lt_a, lt_b, lt_c;
    BLAS_CHECK(cublasLtMatrixLayoutCreate(&lt_a, {type_b}, K, N, K));
    BLAS_CHECK(cublasLtMatrixLayoutCreate(&lt_b, {type_a}, K, M, K));
    BLAS_CHECK(cublasLtMatrixLayoutCreate(&lt_c, CUDA_R_32F, N, M, N));
    size_t lt_ws_bytes = 32u << 20;
    void* lt_ws;
    BENCH_CHECK(cudaMalloc(&lt_ws, lt_ws_bytes));
    cublasLtMatmulPreference_t lt_pref;
    BLAS_CHECK(cublasLtMatmulPreferenceCreate(&lt_pref));
    BLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(lt_pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &lt_ws_bytes,
                                                    sizeof(lt_ws_bytes)));
    cublasLtMatmulHeuristicResult_t lt_algo;
    int lt_found = 0;
    BLAS_CHECK(cublasLtMatmulAlgoGetHeuristic(lt, lt_op, lt_a, lt_b, lt_c, lt_c, lt_pref, 1, &lt_algo, &lt_found));
    if (!lt_found) {{ std::fprintf(stderr, "cuBLASLt has no FP8 algorithm for this problem\\n"); std::exit(2); }}"""
_LT_MATMUL = ("cublasLtMatmul(lt, lt_op, &alpha_value, dB[s], lt_a, dA[s], lt_b, &beta_value, c, lt_c, c, lt_c, "
              "&lt_algo.algo, lt_ws, lt_ws_bytes, stream)")


def run_bench(module: ModuleOp, arch: Arch, dims: dict[str, int], repeats: int = 20,
              group_sizes: list[int] | None = None) -> dict:
    """Build with nvcc, run, return the parsed JSON result."""
    from gemmc.target.cuda import build_executable

    source = bench_source(module, arch, dims, repeats, group_sizes)  # the input's errors (sizes, ...) come first
    if shutil.which("nvidia-smi") is None or subprocess.run(["nvidia-smi", "-L"], capture_output=True).returncode:
        raise GemmcError("gemmc bench: no NVIDIA GPU here (nvidia-smi finds none); run it on a machine with one",
                         code=EXIT_TOOLCHAIN)
    with tempfile.TemporaryDirectory(prefix="gemmc-bench-") as tmp:
        exe = Path(tmp) / "bench"
        build_executable(source, arch, exe, ["-lcublas"] + (["-lcublasLt"] if "cublasLt.h" in source else []))
        proc = subprocess.run([str(exe)], capture_output=True, text=True, timeout=600)
    line = next((l for l in proc.stdout.splitlines() if l.startswith("{")), None)
    if proc.returncode != 0 or line is None:
        raise GemmcError(f"gemmc bench: the benchmark failed: {(proc.stderr or proc.stdout).strip()[:300]}",
                         code=EXIT_TOOLCHAIN)
    return json.loads(line)


def format_result(r: dict) -> str:
    several = (f" x {r['batches']} batches" if "batches" in r else
               f" in {r['groups']} groups of {','.join(map(str, r['group_sizes']))} rows" if "groups" in r else "")
    return (f"{r['kernel']}: M={r['M']} N={r['N']} K={r['K']}{several}  gemmc {r['gemmc_ms']:.3f} ms "
            f"{r['gemmc_tflops']:.2f} TFLOP/s | cuBLAS {r['cublas_ms']:.3f} ms {r['cublas_tflops']:.2f} TFLOP/s | "
            f"{r['pct_of_cublas']:.1f}% of cuBLAS | max rel err {r['max_rel_err']:.2e} "
            f"{'PASS' if r['passed'] else 'FAIL'} | {r['device']}")


_MAIN = r"""
// ---- Benchmark main (gemmc bench) --------------------------------------------------------------
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
{fp8_includes}
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <random>
#include <utility>
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
template __global__ void bench_fill<__half>(__half*, long, unsigned);
template __global__ void bench_fill<__nv_bfloat16>(__nv_bfloat16*, long, unsigned);
{fill_inputs}

#ifdef GEMMC_HOST_CODE  // nvcc's device pass sees the kernels only
template <typename T> static void fill(T* x, long n, unsigned seed) {{ bench_fill<<<1024, 256>>>(x, n, seed); BENCH_CHECK(cudaGetLastError()); }}
{fp8_host}
static double bench_to_double(float x) {{ return x; }}
static double bench_to_double(__half x) {{ return __half2float(x); }}
static double bench_to_double(__nv_bfloat16 x) {{ return __bfloat162float(x); }}

int main()
{{
    const int M = {M}, N = {N}, K = {K};
    const long size_a = {size_a}L, size_b = {size_b}L, size_c = {size_c};
    const float alpha_value = {alpha}f, beta_value = {beta}f;
    const double bytes_per_set = sizeof({in_t}) * (size_a + size_b) + sizeof({c_t}) * (double)size_c;
    const int sets = std::max(2, std::min(16, (int)std::ceil(4.0 * {l2} / bytes_per_set)));
    std::vector<{in_t}*> dA(sets), dB(sets);
    std::vector<{c_t}*> dC(sets);
    for (int s = 0; s < sets; ++s) {{
        BENCH_CHECK(cudaMalloc(&dA[s], sizeof({in_t}) * size_a)); BENCH_CHECK(cudaMalloc(&dB[s], sizeof({in_t}) * size_b));
        BENCH_CHECK(cudaMalloc(&dC[s], sizeof({c_t}) * size_c));
        {fill_a}(dA[s], size_a, 3 * s + 1); {fill_b}(dB[s], size_b, 3 * s + 2); fill(dC[s], size_c, 3 * s + 3);
    }}{fp8_setup}{epilogue_setup}{group_setup}
    {c_t} *dC0, *dRef;
    BENCH_CHECK(cudaMalloc(&dC0, sizeof({c_t}) * size_c)); BENCH_CHECK(cudaMalloc(&dRef, sizeof({c_t}) * size_c));
    BENCH_CHECK(cudaMemcpy(dC0, dC[0], sizeof({c_t}) * size_c, cudaMemcpyDeviceToDevice));
    BENCH_CHECK(cudaMemcpy(dRef, dC[0], sizeof({c_t}) * size_c, cudaMemcpyDeviceToDevice));
    cublasHandle_t handle;
    BLAS_CHECK(cublasCreate(&handle));
    BLAS_CHECK(cublasSetMathMode(handle, {math_mode}));  // FP32: pedantic, no TF32
    cudaStream_t stream = 0;

    // Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T.
    auto cublas = [&](int s, {c_t}* c) {{ {cublas_call}; }};
    auto cublas_check = [&](int s, {c_t}* c) {{ {check_call}; }};
    auto gemmc = [&](int s) {{ BENCH_CHECK({launcher}({call}, stream)); }};

{check}
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
    const double flops = {flops};
    cudaDeviceProp prop; BENCH_CHECK(cudaGetDeviceProperties(&prop, 0));
    int driver = 0, runtime = 0; cudaDriverGetVersion(&driver); cudaRuntimeGetVersion(&runtime);
    std::printf("{{\"kernel\": \"{launcher}\", \"M\": %d, \"N\": %d, \"K\": %d, \"gemmc_ms\": %.6f, \"cublas_ms\": %.6f, "
                "\"gemmc_tflops\": %.4f, \"cublas_tflops\": %.4f, \"pct_of_cublas\": %.2f, \"max_rel_err\": %.3e, "
                "\"norm_rel_err\": %.3e, \"passed\": %s, \"input_sets\": %d, \"repeats\": %d, \"device\": \"%s\", "
                "\"cuda_driver\": %d, \"cuda_runtime\": %d, \"cublas\": \"{cublas_kind}\", "
                "\"checked_against\": \"{checked_against}\"{extra_json}}}\n",
                M, N, K, g_ms, c_ms, flops / g_ms / 1e9, flops / c_ms / 1e9, 100.0 * c_ms / g_ms, rel, norm_rel,
                passed ? "true" : "false", sets, {repeats}, prop.name, driver, runtime);
    return passed ? 0 : 1;
}}
#endif  // GEMMC_HOST_CODE
"""

def cublas_check(c: str = "f32") -> dict:
    """The check of a product without an epilogue: gemmc's C against cuBLAS's, both from the same C, on
    set 0, every element (of every batch).  A 16-bit C is both sums rounded once to it: its rounding
    unit (half an ulp, relative) on top of the f32 accumulation's bound, in the norm and at the worst element."""
    unit = {"f32": 0.0, "f16": 2.0**-11, "bf16": 2.0**-8}[c]
    return dict(epilogue_setup="", checked_against="cuBLAS",
                check=_CUBLAS_CHECK.replace("C_T", _INPUTS[c][0]).replace("UNIT", repr(unit)))


_CUBLAS_CHECK = r"""    // Correctness on set 0, against cuBLAS from the same C.
    {
        int s = 0;
        gemmc(s);
        BENCH_CHECK(cudaDeviceSynchronize());
        cublas_check(0, dRef);
        BENCH_CHECK(cudaDeviceSynchronize());
    }
    std::vector<C_T> got(size_c), ref(size_c);
    BENCH_CHECK(cudaMemcpy(got.data(), dC[0], sizeof(C_T) * size_c, cudaMemcpyDeviceToHost));
    BENCH_CHECK(cudaMemcpy(ref.data(), dRef, sizeof(C_T) * size_c, cudaMemcpyDeviceToHost));
    double max_diff = 0, max_ref = 0, sum_sq = 0, ref_sq = 0;
    bool finite = true;
    for (long i = 0; i < size_c; ++i) {
        const double g = bench_to_double(got[i]), r = bench_to_double(ref[i]), d = std::fabs(g - r);
        finite = finite && std::isfinite(g);
        max_diff = std::max(max_diff, d); max_ref = std::max(max_ref, std::fabs(r));
        sum_sq += d * d; ref_sq += r * r;
    }
    const double rel = max_diff / std::max(max_ref, 1e-30), norm_rel = std::sqrt(sum_sq / std::max(ref_sq, 1e-30));
    const double c_unit = UNIT;  // the rounding unit of C's type (0: f32, the accumulator's)
    const bool passed = finite && norm_rel < 1e-5 * std::sqrt((double)K) + c_unit
                        && rel < 1e-4 * std::sqrt((double)K) + 2 * c_unit;

"""
