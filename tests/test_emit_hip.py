"""The HIP emitter and the toolchain driver.

Emitted HIP for step-1 kernels (static and dynamic dims, alpha/beta, transposes, f16,
bf16) must compile device-only, to assembly and to a code object, for every arch; the
compiler's resource report must parse; the harness must compile; the output must be
deterministic.  The compile tests need clang with the AMDGPU backend (or ROCm): they skip,
saying so, where there is none.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from gemmc.target.arch import ARCHS, get_arch
from gemmc.support.context import make_context
from gemmc.support.diagnostics import EXIT_TOOLCHAIN, GemmcError
from gemmc.emit import emit_hip
from gemmc.frontend import parse_gemm
from gemmc.driver.pipeline import NAMED_PIPELINES, parse_pipeline_spec, run_pipeline
from gemmc.target.toolchain import (
    INSTALL_HINT,
    KernelResources,
    compile_device,
    find_toolchain,
    format_report,
    parse_resource_remarks,
    resource_report,
)

ALL_ARCHS = ["gfx90a", "gfx942", "gfx950", "gfx1100", "gfx1201"]

KERNELS = {
    "sgemm": """kernel sgemm {
        dim M, N, K
        A: f32[M, K]  B: f32[K, N]  C: f32[M, N]
        alpha: f32  beta: f32
        C = alpha * A @ B + beta * C
    }""",
    "static": """kernel sgemm_static {
        dim M = 256, N = 128, K = 64
        A: f32[M, K]  B: f32[K, N]  C: f32[M, N]
        C = A @ B
    }""",
    "transposed": """kernel sgemm_tt {
        dim M, N, K
        A: f32[K, M]  B: f32[N, K]  C: f32[M, N]
        alpha: f32
        C = alpha * A.T @ B.T
    }""",
    "col_major": """kernel sgemm_cm {
        dim M = 100, N, K = 33
        A: f32[M, K] col_major  B: f32[K, N]  C: f32[M, N]
        C = A @ B + C
    }""",
    "f16": """kernel hgemm {
        dim M, N, K
        A: f16[M, K]  B: f16[K, N]  C: f16[M, N]
        acc f32
        C = 2.0 * A @ B + 0.5 * C
    }""",
    "f16_acc16": """kernel hgemm16 {
        dim M, N, K
        A: f16[M, K]  B: f16[K, N]  C: f16[M, N]
        acc f16
        alpha: f16
        C = alpha * A @ B
    }""",
    "bf16": """kernel bgemm {
        dim M, N, K = 512
        A: bf16[M, K]  B: bf16[K, N]  C: f32[M, N]
        C = A @ B
    }""",
}


def lower(source: str, pipeline: str = "gemm-to-kernel"):
    module = parse_gemm(source)
    run_pipeline(module, parse_pipeline_spec(pipeline), make_context())
    return module


@pytest.fixture(scope="module")
def sources() -> dict[str, str]:
    return {name: emit_hip(lower(src), get_arch("gfx942")) for name, src in KERNELS.items()}


def _elf_header(data: bytes) -> tuple[int, int]:
    """(e_type, e_machine) of a 64-bit little-endian ELF file."""
    assert data[:4] == b"\x7fELF", data[:16]
    return int.from_bytes(data[16:18], "little"), int.from_bytes(data[18:20], "little")


EM_AMDGPU, ET_REL, ET_DYN = 224, 1, 3


# -- compiling ------------------------------------------------------------------------------


@pytest.mark.parametrize("arch", ALL_ARCHS)
@pytest.mark.parametrize("kernel", sorted(KERNELS))
def test_compiles_to_asm_and_hsaco(toolchain, kernel, arch):
    source = emit_hip(lower(KERNELS[kernel]), get_arch(arch))
    asm = compile_device(source, arch, "asm", toolchain=toolchain)
    name = KERNELS[kernel].split()[1]
    assert f".amdhsa_kernel {name}" in asm  # extern "C": the symbol is the kernel's name
    assert f".amdgcn_target \"amdgcn-amd-amdhsa--{arch}" in asm
    hsaco = compile_device(source, arch, "hsaco", toolchain=toolchain)
    assert _elf_header(hsaco) == (ET_DYN, EM_AMDGPU)
    assert name.encode() in hsaco


def test_compiles_to_relocatable_object(toolchain, sources):
    obj = compile_device(sources["sgemm"], "gfx942", "obj", toolchain=toolchain)
    assert _elf_header(obj) == (ET_REL, EM_AMDGPU)


@pytest.mark.parametrize("arch", ALL_ARCHS)
def test_resource_report(toolchain, sources, arch):
    source = emit_hip(lower(KERNELS["sgemm"]), get_arch(arch))
    (k,) = resource_report(source, arch, toolchain=toolchain)
    assert isinstance(k, KernelResources)
    assert (k.kernel, k.arch) == ("sgemm", arch)
    assert k.vgprs > 0 and k.sgprs > 0 and k.occupancy > 0
    assert k.scratch_bytes == 0 and k.lds_bytes == 0
    if ARCHS[arch].agprs_per_lane == 0:
        assert k.agprs == 0
    table = format_report([k])
    assert "VGPRs" in table.splitlines()[0]
    assert table.splitlines()[1].split()[:3] == ["sgemm", arch, str(k.vgprs)]


def test_resource_report_counts_lds(toolchain):
    if "step2" not in NAMED_PIPELINES:
        pytest.skip("lds-tiling (step2) is not registered")
    module = lower(KERNELS["sgemm"], "step2")
    (k,) = resource_report(emit_hip(module, get_arch("gfx942")), "gfx942", toolchain=toolchain)
    assert k.lds_bytes > 0


@pytest.mark.parametrize("kernel", sorted(KERNELS))
def test_harness_compiles_device_only(toolchain, kernel):
    source = emit_hip(lower(KERNELS[kernel]), get_arch("gfx942"), harness=True)
    assert "int main(" in source
    asm = compile_device(source, "gfx942", "asm", toolchain=toolchain)
    assert ".amdhsa_kernel" in asm


@pytest.mark.parametrize("arch", ["gfx942", "gfx1201"])
@pytest.mark.parametrize("pipeline", ["step2", "step3", "step4", "step5", "step6"])
def test_later_pipelines_compile(toolchain, pipeline, arch):
    """What the tiling passes produce (LDS, barriers, vectors, launch bounds) compiles too."""
    if pipeline not in NAMED_PIPELINES:
        pytest.skip(f"pipeline {pipeline} is not registered")
    for src in (KERNELS["sgemm"], KERNELS["static"]):
        module = lower(src, pipeline)
        compile_device(emit_hip(module, get_arch(arch)), arch, "asm", toolchain=toolchain)


# A stand-in for <hip/hip_runtime.h>: declarations only, enough to type-check the host
# launcher and the harness with `clang++ -x hip -fsyntax-only` where ROCm is not installed.
STUB_HIP_RUNTIME = r"""
#pragma once
#include <cstddef>
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
inline constexpr int warpSize = 64;
struct stub_dim3_id {
    __declspec(property(get = get_x)) unsigned x;
    __declspec(property(get = get_y)) unsigned y;
    __declspec(property(get = get_z)) unsigned z;
    __device__ unsigned get_x() const { return __builtin_amdgcn_workitem_id_x(); }
    __device__ unsigned get_y() const { return __builtin_amdgcn_workitem_id_y(); }
    __device__ unsigned get_z() const { return __builtin_amdgcn_workitem_id_z(); }
};
extern const __device__ __attribute__((weak)) stub_dim3_id threadIdx, blockIdx, blockDim, gridDim;
__device__ void __syncthreads();
__device__ unsigned __lane_id();
enum hipError_t { hipSuccess = 0 };
enum hipMemcpyKind { hipMemcpyHostToDevice = 1, hipMemcpyDeviceToHost = 2 };
typedef struct ihipStream_t* hipStream_t;
typedef struct ihipEvent_t* hipEvent_t;
struct dim3 {
    unsigned x, y, z;
    __host__ __device__ constexpr dim3(unsigned x = 1, unsigned y = 1, unsigned z = 1) : x(x), y(y), z(z) {}
};
struct hipDeviceProp_t { char name[256]; int warpSize; };
extern "C" {
hipError_t __hipPushCallConfiguration(dim3 grid, dim3 block, size_t shared = 0, hipStream_t stream = 0);
hipError_t __hipPopCallConfiguration(dim3* grid, dim3* block, size_t* shared, hipStream_t* stream);
hipError_t hipLaunchKernel(const void* f, dim3 grid, dim3 block, void** args, size_t shared, hipStream_t stream);
hipError_t hipGetLastError();
const char* hipGetErrorString(hipError_t);
hipError_t hipGetDeviceProperties(hipDeviceProp_t*, int);
hipError_t hipMalloc(void**, size_t);
hipError_t hipFree(void*);
hipError_t hipMemcpy(void*, const void*, size_t, hipMemcpyKind);
hipError_t hipDeviceSynchronize();
hipError_t hipEventCreate(hipEvent_t*);
hipError_t hipEventRecord(hipEvent_t, hipStream_t);
hipError_t hipEventSynchronize(hipEvent_t);
hipError_t hipEventElapsedTime(float*, hipEvent_t, hipEvent_t);
hipError_t hipEventDestroy(hipEvent_t);
}
template <class T> hipError_t hipMalloc(T** p, size_t n) { return hipMalloc(reinterpret_cast<void**>(p), n); }
"""


@pytest.mark.parametrize("kernel", sorted(KERNELS))
def test_host_and_device_syntax(toolchain, kernel, tmp_path):
    """The whole file, launcher and harness included, type-checks for host and device."""
    if toolchain.kind != "llvm":
        pytest.skip("the stub HIP header is for plain LLVM; ROCm compiles with its own headers")
    (tmp_path / "hip").mkdir()
    (tmp_path / "hip" / "hip_runtime.h").write_text(STUB_HIP_RUNTIME)
    source = tmp_path / "k.hip"
    source.write_text(emit_hip(lower(KERNELS[kernel]), get_arch("gfx942"), harness=True))
    proc = subprocess.run(
        [toolchain.clang, "-x", "hip", "--offload-arch=gfx942", "-nogpulib", "-nogpuinc",
         f"-I{tmp_path}", "-fsyntax-only", "-Wall", "-Wextra", "-Werror", str(source)],
        capture_output=True, text=True,
    )
    assert proc.returncode == 0, proc.stderr


def test_device_only_build_has_no_warnings(toolchain, sources, tmp_path):
    source = tmp_path / "k.hip"
    source.write_text(sources["sgemm"])
    proc = subprocess.run(
        [toolchain.clang, "-x", "hip", "--cuda-device-only", "--offload-arch=gfx942", "-nogpulib",
         "-nogpuinc", "-DGEMMC_NO_HIP_HEADERS", "-O3", "-S", "-Wall", "-Wextra", "-Werror",
         str(source), "-o", os.devnull],
        capture_output=True, text=True,
    )
    assert proc.returncode == 0, proc.stderr


# -- the text -------------------------------------------------------------------------------


def test_deterministic():
    for src in KERNELS.values():
        first = emit_hip(lower(src), get_arch("gfx942"), harness=True)
        second = emit_hip(lower(src), get_arch("gfx942"), harness=True)
        assert first == second


def test_same_text_from_printed_ir():
    """Name hints survive printing and parsing, so emitting from .mlir gives the same file."""
    from xdsl.parser import Parser

    for src in KERNELS.values():
        module = lower(src)
        reparsed = Parser(make_context(), str(module)).parse_module()
        assert emit_hip(reparsed, "gfx942") == emit_hip(module, "gfx942")


def test_kernel_text(sources):
    text = sources["sgemm"]
    assert 'extern "C" __global__ void sgemm(const float* __restrict__ A,' in text
    assert "int M,\n" in text and "int N,\n" in text and "int K,\n" in text
    assert "const float a = A[row * K + k];" in text
    assert "const float b = B[k * N + col];" in text
    assert "for (int k = 0; k < K; ++k)" in text
    assert "hipError_t launch_sgemm(" in text and "hipStream_t stream)" in text
    static = sources["static"]
    assert "A[row * 64 + k]" in static and "B[k * 128 + col]" in static
    assert "int M" not in static.split("launch_sgemm_static")[0].split("void sgemm_static(")[1].split("{")[0]
    assert "B[col * K + k]" in sources["transposed"] and "A[k * M + row]" in sources["transposed"]
    assert "const _Float16* __restrict__ A" in sources["f16"]
    assert "const __bf16* __restrict__ A" in sources["bf16"]


def test_header_names_arch_and_pipeline():
    module = lower(KERNELS["sgemm"])
    from xdsl.dialects.builtin import StringAttr

    module.attributes["gemmc.pipeline"] = StringAttr("gemm-to-kernel{block-x=16 block-y=16}")
    text = emit_hip(module, get_arch("gfx950"))
    assert "// arch:     gfx950 (CDNA4" in text
    assert "// pipeline: gemm-to-kernel{block-x=16 block-y=16}" in text
    assert "#define GEMMC_WAVE_SIZE 64" in text


def test_harness_reads_the_gemm_back():
    text = emit_hip(lower(KERNELS["transposed"]), get_arch("gfx942"), harness=True)
    assert "const double alpha_ref = 1.5, beta_ref = 0.0;" in text
    assert "float alpha;\n    gemmc_set(alpha, 1.5f);" in text
    assert "h_A[static_cast<size_t>(k) * M + i]" in text
    assert "h_B[static_cast<size_t>(j) * K + k]" in text
    text = emit_hip(lower(KERNELS["f16"]), get_arch("gfx942"), harness=True)
    assert "const double alpha_ref = 2.0, beta_ref = 0.5;" in text
    assert "eps_acc = 1.1920928955078125e-07" in text  # f32 accumulator, f16 storage


def test_harness_names_avoid_user_dims():
    src = "kernel g { dim i, j, k  A: f32[i, k]  B: f32[k, j]  C: f32[i, j]  C = A @ B }"
    text = emit_hip(lower(src), get_arch("gfx942"), harness=True)
    assert "int i = 4096;" in text and "int k = 4096;" in text
    assert "for (int k_1 = 0; k_1 < k; ++k_1)" in text


# -- errors ---------------------------------------------------------------------------------


def test_gemm_level_ir_is_a_diagnostic():
    with pytest.raises(GemmcError, match="run gemm-to-kernel first"):
        emit_hip(parse_gemm(KERNELS["sgemm"]), "gfx942")


def test_compiler_error_is_a_toolchain_error(toolchain):
    with pytest.raises(GemmcError) as info:
        compile_device("__attribute__((global)) void k() { undeclared(); }", "gfx942", "asm", toolchain=toolchain)
    assert info.value.code == EXIT_TOOLCHAIN
    assert "error:" in info.value.message and "undeclared" in info.value.message
    assert "\n" not in info.value.message


def test_bad_gemmc_clang(monkeypatch):
    monkeypatch.setenv("GEMMC_CLANG", "/nonexistent/clang++")
    with pytest.raises(GemmcError) as info:
        find_toolchain()
    assert info.value.code == EXIT_TOOLCHAIN and "GEMMC_CLANG" in info.value.message


def test_no_toolchain_says_what_to_install(monkeypatch, tmp_path):
    if Path("/opt/rocm").exists():
        pytest.skip("/opt/rocm exists here")
    monkeypatch.delenv("GEMMC_CLANG", raising=False)
    monkeypatch.setenv("ROCM_PATH", str(tmp_path))
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(GemmcError) as info:
        find_toolchain()
    assert info.value.code == EXIT_TOOLCHAIN
    assert INSTALL_HINT in info.value.message


def test_parse_resource_remarks():
    stderr = "\n".join(
        f"k.hip:3:1: remark: {line} [-Rpass-analysis=kernel-resource-usage]"
        for line in [
            "Function Name: first", "    TotalSGPRs: 18", "    VGPRs: 40", "    AGPRs: 4",
            "    ScratchSize [bytes/lane]: 16", "    Dynamic Stack: False",
            "    Occupancy [waves/SIMD]: 6", "    SGPRs Spill: 0", "    VGPRs Spill: 3",
            "    LDS Size [bytes/block]: 8192", "Function Name: second", "    VGPRs: 9",
        ]
    )
    first, second = parse_resource_remarks(stderr, "gfx942")
    assert first == KernelResources("first", "gfx942", vgprs=40, agprs=4, sgprs=18, scratch_bytes=16,
                                    occupancy=6, lds_bytes=8192, vgpr_spill=3, sgpr_spill=0,
                                    dynamic_stack=False)
    assert (second.kernel, second.vgprs, second.sgprs) == ("second", 9, 0)


def test_module_entry_point(tmp_path):
    ir = tmp_path / "k.mlir"
    ir.write_text(str(lower(KERNELS["static"])))
    proc = subprocess.run([sys.executable, "-m", "gemmc.emit.hip", str(ir), "--arch", "gfx1100"],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    assert proc.stdout == emit_hip(lower(KERNELS["static"]), "gfx1100")
    bad = tmp_path / "bad.mlir"
    bad.write_text("builtin.module { %x = \n")
    proc = subprocess.run([sys.executable, "-m", "gemmc.emit.hip", str(bad)], capture_output=True, text=True)
    assert proc.returncode == 1 and proc.stderr.startswith(f"{bad}:")


# -- running the harness ------------------------------------------------------------------------
#
# No AMD GPU here, so the harness runs on the CPU: a stand-in for <hip/hip_runtime.h> runs
# each launch block by block, one fiber (ucontext) per GPU thread with a barrier for
# __syncthreads(), and the test rewrites `k<<<grid, block, shared, stream>>>(args)` into a
# call of that launcher.  This runs the emitted kernels, the launcher's grid arithmetic and
# the harness's reference check for real; a broken kernel must make the harness fail.

CPU_HIP_RUNTIME = r"""
#pragma once
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>
#include <ucontext.h>
#define __global__
#define __device__
#define __host__
#define __shared__ static
#ifndef GEMMC_WAVE_SIZE  // the emitted file's prelude defines it: 64 on CDNA, 32 on RDNA
#define GEMMC_WAVE_SIZE 64
#endif
inline constexpr int warpSize = GEMMC_WAVE_SIZE;
struct dim3 {
    unsigned x, y, z;
    constexpr dim3(unsigned x = 1, unsigned y = 1, unsigned z = 1) : x(x), y(y), z(z) {}
};
inline dim3 threadIdx, blockIdx, blockDim, gridDim;
// GPU threads are fibers (ucontext) on one OS thread, switched at barriers: a barrier phase
// costs a few user-level switches per thread, where an OS thread each cost futex waits and
// scheduler round trips (most of a run's time on two cores).
struct gemmc_barrier;
inline struct gemmc_fiber* gemmc_current_fiber;
inline ucontext_t gemmc_scheduler;
inline void gemmc_yield();
struct gemmc_barrier {
    explicit gemmc_barrier(unsigned n) : n(n) {}
    void arrive_and_wait() {
        const unsigned long g = gen;
        if (++count == n) { count = 0; ++gen; return; }
        while (gen == g) gemmc_yield();
    }
    unsigned n, count = 0;
    unsigned long gen = 0;
};
inline gemmc_barrier* gemmc_block_barrier;
inline void __syncthreads() { gemmc_block_barrier->arrive_and_wait(); }
enum hipError_t { hipSuccess = 0 };
enum hipMemcpyKind { hipMemcpyHostToDevice = 1, hipMemcpyDeviceToHost = 2 };
typedef struct ihipStream_t* hipStream_t;
typedef std::chrono::steady_clock::time_point* hipEvent_t;
struct hipDeviceProp_t { char name[256]; int warpSize; };
inline hipError_t hipGetLastError() { return hipSuccess; }
inline const char* hipGetErrorString(hipError_t) { return "no error"; }
inline hipError_t hipGetDeviceProperties(hipDeviceProp_t* p, int) { std::strcpy(p->name, "CPU"); return hipSuccess; }
template <class T> hipError_t hipMalloc(T** p, size_t n) { *p = static_cast<T*>(std::aligned_alloc(64, (n + 63) / 64 * 64)); return hipSuccess; }
inline hipError_t hipFree(void* p) { std::free(p); return hipSuccess; }
// a launcher's own buffers (split-k's workspace, pack-operands' padded operands): filled with 0xff bytes (NaN
// in every float format), as device memory holds what was there before, so a read of what no kernel wrote shows
template <class T> hipError_t hipMallocAsync(T** p, size_t n, hipStream_t) { hipMalloc(p, n); std::memset(*p, 0xff, n); return hipSuccess; }
inline hipError_t hipFreeAsync(void* p, hipStream_t) { return hipFree(p); }
inline hipError_t hipMemcpy(void* d, const void* s, size_t n, hipMemcpyKind) { std::memcpy(d, s, n); return hipSuccess; }
inline hipError_t hipDeviceSynchronize() { return hipSuccess; }
inline hipError_t hipEventCreate(hipEvent_t* e) { *e = new std::chrono::steady_clock::time_point(); return hipSuccess; }
inline hipError_t hipEventRecord(hipEvent_t e, hipStream_t) { *e = std::chrono::steady_clock::now(); return hipSuccess; }
inline hipError_t hipEventSynchronize(hipEvent_t) { return hipSuccess; }
inline hipError_t hipEventElapsedTime(float* ms, hipEvent_t a, hipEvent_t b) {
    *ms = std::chrono::duration<float, std::milli>(*b - *a).count(); return hipSuccess; }
inline hipError_t hipEventDestroy(hipEvent_t e) { delete e; return hipSuccess; }
// Kernels convert float to __bf16, which on x86 calls a helper older libgcc lacks.
extern "C" __bf16 __truncsfbf2(float x) {
    unsigned u; std::memcpy(&u, &x, sizeof u);
    const unsigned short bits = static_cast<unsigned short>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
    __bf16 r; std::memcpy(&r, &bits, sizeof r); return r;
}
// Split-K's atomic adds (clang's __hip_atomic_fetch_add on the host too): the scope HIP names.
#define __HIP_MEMORY_SCOPE_AGENT 3
// A wave's lanes: wave-wide builtins (tests/cpu_matrix.py's MFMA and WMMA) meet at its barrier.
inline gemmc_barrier* gemmc_wave_barrier;
inline unsigned gemmc_wave, gemmc_lane;
// a fiber's view of the GPU thread it runs, put back in the globals above when it resumes
struct gemmc_fiber {
    ucontext_t ctx;
    std::unique_ptr<char[]> stack;
    dim3 tid, bid;
    unsigned wave, lane;
    gemmc_barrier* wb;
    bool done;
    void (*body)(gemmc_fiber*, void*);
    void* env;
};
inline void gemmc_resume(gemmc_fiber* f) {
    gemmc_current_fiber = f;
    threadIdx = f->tid; blockIdx = f->bid; gemmc_wave = f->wave; gemmc_lane = f->lane; gemmc_wave_barrier = f->wb;
    swapcontext(&gemmc_scheduler, &f->ctx);
}
inline void gemmc_yield() {
    gemmc_fiber* f = gemmc_current_fiber;
    f->bid = blockIdx;
    swapcontext(&f->ctx, &gemmc_scheduler);
}
inline void gemmc_fiber_main() {
    gemmc_fiber* f = gemmc_current_fiber;
    f->body(f, f->env);
    f->done = true;  // returns to gemmc_scheduler (uc_link)
}
template <class... P, class... A>
void gemmc_cpu_launch(void (*kernel)(P...), dim3 grid, dim3 block, size_t, hipStream_t, A... args) {
    // One fiber per GPU thread of a block; they step through the blocks together, with a
    // barrier between blocks so that no block sees the last one's __shared__ data in use.
    const unsigned n = block.x * block.y * block.z;
    gemmc_barrier bar(n);
    std::vector<std::unique_ptr<gemmc_barrier>> waves;
    for (unsigned w = 0; w * warpSize < n; ++w)
        waves.push_back(std::make_unique<gemmc_barrier>(std::min<unsigned>(warpSize, n - w * warpSize)));
    gemmc_block_barrier = &bar; gridDim = grid; blockDim = block;
    auto run = [&](gemmc_fiber*) {
        for (unsigned bz = 0; bz < grid.z; ++bz)
            for (unsigned by = 0; by < grid.y; ++by)
                for (unsigned bx = 0; bx < grid.x; ++bx) {
                    blockIdx = dim3(bx, by, bz);
                    kernel(args...);
                    bar.arrive_and_wait();
                }
    };
    using Run = decltype(run);
    const size_t stack_size = 1 << 20;  // untouched pages are never allocated
    std::vector<gemmc_fiber> fibers(n);
    for (unsigned t = 0; t < n; ++t) {
        gemmc_fiber& f = fibers[t];
        f.tid = dim3(t % block.x, t / block.x % block.y, t / (block.x * block.y));
        f.bid = dim3(0, 0, 0); f.wave = t / warpSize; f.lane = t % warpSize; f.wb = waves[f.wave].get();
        f.done = false; f.env = &run;
        f.body = [](gemmc_fiber* self, void* env) { (*static_cast<Run*>(env))(self); };
        f.stack.reset(new char[stack_size]);
        getcontext(&f.ctx);
        f.ctx.uc_stack.ss_sp = f.stack.get(); f.ctx.uc_stack.ss_size = stack_size; f.ctx.uc_link = &gemmc_scheduler;
        makecontext(&f.ctx, gemmc_fiber_main, 0);
    }
    for (unsigned live = n; live;)
        for (gemmc_fiber& f : fibers)
            if (!f.done) {
                gemmc_resume(&f);
                live -= f.done;
            }
}
"""


def _for_cpu(hip_source: str) -> str:
    """The emitted file, with launches and AMDGPU-only attributes rewritten for the CPU."""
    text = re.sub(r"(\w+)<<<(.*?)>>>\((.*?)\);", r"gemmc_cpu_launch(\1, \2, \3);", hip_source, flags=re.S)
    return re.sub(r"__attribute__\(\((amdgpu_[^\n]*)\)\)", "", text)


def run_on_cpu(toolchain, hip_source: str, args: list[str], tmp_path: Path,
               builtins: str = "") -> subprocess.CompletedProcess:
    """Build `hip_source` for the CPU and run it with `args`; `builtins`: C++ that stands in
    for the AMDGPU builtins its kernels call (tests/cpu_matrix.py)."""
    (tmp_path / "hip").mkdir(exist_ok=True)
    (tmp_path / "hip" / "hip_runtime.h").write_text(CPU_HIP_RUNTIME + builtins)
    source = tmp_path / "harness.cpp"
    # no warm-up and one timed launch (then the checked one): the CPU's times mean nothing
    source.write_text(re.sub(r"(const int warmup_runs\w*) = 3, (timing_runs\w*) = 10;", r"\1 = 0, \2 = 1;",
                             _for_cpu(hip_source)))
    binary = tmp_path / "harness"
    build = subprocess.run(
        [toolchain.clang, "-x", "c++", "-std=c++20", "-O0", "-pthread", f"-I{tmp_path}", str(source),
         "-o", str(binary)],
        capture_output=True, text=True,
    )
    assert build.returncode == 0, build.stderr
    return subprocess.run([str(binary), *args], capture_output=True, text=True, timeout=600)


# Dynamic dims on the command line: sizes that are not multiples of any tile.
CPU_DIMS = {"sgemm": ["70", "50", "40"], "static": [], "transposed": ["33", "70", "17"],
            "col_major": ["50"], "f16": ["70", "50", "40"], "f16_acc16": ["70", "50", "40"],
            "bf16": ["70", "50"]}


@pytest.mark.parametrize("kernel", sorted(KERNELS))
def test_harness_runs_on_cpu(toolchain, kernel, tmp_path):
    if toolchain.kind != "llvm":
        pytest.skip("the CPU run uses plain clang++ for the host")
    source = emit_hip(lower(KERNELS[kernel]), get_arch("gfx942"), harness=True)
    proc = run_on_cpu(toolchain, source, CPU_DIMS[kernel], tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert ": PASSED" in proc.stdout


@pytest.mark.parametrize("pipeline", ["step2", "step3", "step4", "step5", "step6"])
@pytest.mark.parametrize("kernel", ["sgemm", "bf16"])
def test_tiled_harness_runs_on_cpu(toolchain, kernel, pipeline, tmp_path):
    """LDS tiles, barriers, register tiles, float4 copies, launch bounds: run for real."""
    if toolchain.kind != "llvm":
        pytest.skip("the CPU run uses plain clang++ for the host")
    if pipeline not in NAMED_PIPELINES:
        pytest.skip(f"pipeline {pipeline} is not registered")
    source = emit_hip(lower(KERNELS[kernel], pipeline), get_arch("gfx942"), harness=True)
    # Several blocks and partial tiles in both directions; step2's tiles are small, so are its dims.
    dims = ["40", "36"] if pipeline == "step2" else ["130", "150"]
    dims += ["40"] if kernel == "sgemm" else []
    proc = run_on_cpu(toolchain, source, dims, tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert ": PASSED" in proc.stdout


def test_harness_catches_a_wrong_kernel(toolchain, tmp_path):
    if toolchain.kind != "llvm":
        pytest.skip("the CPU run uses plain clang++ for the host")
    source = emit_hip(lower(KERNELS["transposed"]), get_arch("gfx942"), harness=True)
    wrong = source.replace("const float a = A[k * M + row];", "const float a = A[row * K + k];")
    assert wrong != source
    proc = run_on_cpu(toolchain, wrong, ["33", "70", "17"], tmp_path)
    assert proc.returncode == 1
    assert ": FAILED" in proc.stdout and "Mismatch at C[" in proc.stderr


@pytest.mark.parametrize("pipeline", ["gemm-to-kernel", "step3"])
def test_harness_same_with_or_without_spec(pipeline):
    """The harness reads gemm.matmul_spec when the lowering recorded it, and otherwise reads
    the GEMM back from the kernel (hand-written IR): both must give the same program."""
    if pipeline not in NAMED_PIPELINES and pipeline != "gemm-to-kernel":
        pytest.skip(f"pipeline {pipeline} is not registered")
    for src in KERNELS.values():
        module = lower(src, pipeline)
        host = next(op for op in module.body.block.ops if op.name == "func.func")
        with_spec = emit_hip(module, "gfx942", harness=True)
        if "gemm.matmul_spec" not in host.attributes:
            pytest.skip("gemm-to-kernel does not record gemm.matmul_spec")
        del host.attributes["gemm.matmul_spec"]
        assert emit_hip(module, "gfx942", harness=True) == with_spec


def test_device_flags():
    from gemmc.target.toolchain import Toolchain, device_flags

    llvm = Toolchain("llvm", "/usr/bin/clang++-22", "clang 22", "/usr/lib/llvm-22/bin")
    flags = device_flags(get_arch("gfx1100"), llvm)
    assert flags[:4] == ["-x", "hip", "--cuda-device-only", "--offload-arch=gfx1100"]
    assert {"-nogpulib", "-nogpuinc", "-DGEMMC_NO_HIP_HEADERS", "-O3"} <= set(flags)
    # Against installed HIP headers (old ROCm ones want the wave size from the arch).
    with_headers = device_flags(get_arch("gfx1100"), llvm, hip_headers=True)
    assert "-D__AMDGCN_WAVEFRONT_SIZE=32" in with_headers and "-nogpuinc" not in with_headers
    assert "-D__AMDGCN_WAVEFRONT_SIZE=64" in device_flags(get_arch("gfx942"), llvm, hip_headers=True)
