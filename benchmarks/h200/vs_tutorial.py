"""gemmc's kernel of each tutorial step against the tutorial's own kernel, in one program.

    python3 benchmarks/h200/vs_tutorial.py gen TUTORIAL_DIR OUTDIR     # here: write the programs
    bash benchmarks/h200/vs_tutorial.sh OUTDIR                          # on the H200: build, run
    cp h200-out/vs_tutorial*.* benchmarks/h200/raw/; python3 benchmarks/h200/collect.py   # here

TUTORIAL_DIR holds the tutorial's example sources (shared/seed-reference/ in this project;
they are not part of the repository).  Each program includes gemmc's kernel for a pipeline and
the tutorial's source file for the same step (its `main` renamed away), fills A and B once,
and times both kernels on the same buffers: 8 rounds, alternating which goes first, each the
average of 10 launches after 3 warm-ups (the tutorial's own method), medians reported.  So
the two differ only in their kernel code, not in data, allocation, clocks or method.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

# step -> the tutorial's file and its launch of that step's kernel (4096^3)
TUTORIAL = {
    1: ("matrix_multiply_naive.hip", "matrix_multiply_naive<<<dim3(256, 256), dim3(16, 16)>>>"),
    2: ("matrix_multiply_lds.hip", "matrix_multiply_lds<<<dim3(256, 256), dim3(16, 16)>>>"),
    3: ("matrix_multiply_register_tiling.hip", "matrix_multiply_register_tiling<<<dim3(32, 32), dim3(16, 16)>>>"),
    4: ("matrix_multiply_double_buffer.hip",
        "matrix_multiply_buffered<SoftwareDoubleBufferTilePolicy><<<dim3(32, 32), dim3(16, 16)>>>"),
    5: ("matrix_multiply_vectorized.hip",
        "matrix_multiply_vectorized<VectorizedDoubleBufferTilePolicy<4>><<<dim3(32, 32), dim3(16, 16)>>>"),
    6: ("matrix_multiply_launch_bounds.hip", "matrix_multiply_launch_bounds<<<dim3(32, 32), dim3(16, 16)>>>"),
}

# name -> (step, gemmc pipeline): the named steps, and the variants that decided them
# (step 1's K-loop unrolling: 0 is nvcc's own choice; sm_90's default is 64)
VARIANTS = {f"step{i}": (i, f"step{i}") for i in range(1, 7)} | {
    **{f"step1_unroll{u}": (1, f"gemm-to-kernel{{unroll={u}}}") for u in (0, 4, 16, 32, 128, 256)},
    "step5_vectorize_b": (5, "step4,vectorize{width=4 operands=a,b}"),
}

SHIM = """// HIP's runtime names as CUDA's, so the tutorial's HIP sources build with nvcc.
#pragma once
#include <cuda_runtime.h>
"""
# HIP name -> CUDA name (hipX -> cudaX, but for the device properties' type)
SHIM_NAMES = {f"hip{x}": f"cuda{x}" for x in (
    "Error_t", "Success", "GetErrorString", "Malloc", "Free", "Memcpy", "MemcpyHostToDevice",
    "MemcpyDeviceToHost", "DeviceSynchronize", "GetLastError", "Event_t", "EventCreate",
    "EventDestroy", "EventRecord", "EventSynchronize", "EventElapsedTime", "GetDeviceProperties")} | {
    "hipDeviceProp_t": "cudaDeviceProp"}

HARNESS = r"""
#define main tutorial_main
#include "%(tutorial)s"
#undef main
#if !defined(__CUDA_ARCH__)
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>
template <typename F> static float average_ms(F launch) {
  for (int i = 0; i < 3; ++i) launch();
  cudaDeviceSynchronize();
  cudaEvent_t a, b;
  cudaEventCreate(&a); cudaEventCreate(&b);
  cudaEventRecord(a);
  for (int i = 0; i < 10; ++i) launch();
  cudaEventRecord(b); cudaEventSynchronize(b);
  float ms = 0; cudaEventElapsedTime(&ms, a, b);
  cudaEventDestroy(a); cudaEventDestroy(b);
  return ms / 10;
}
static float median(std::vector<float> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }
static void print_list(const char* key, const std::vector<float>& v) {
  printf(", \"%%s\": [", key);
  for (size_t i = 0; i < v.size(); ++i) printf("%%s%%.4f", i ? ", " : "", v[i]);
  printf("]");
}
int main() {
  const size_t n = 4096, bytes = n * n * sizeof(float);
  std::vector<float> hA(n * n), hB(n * n), c_tutorial(n * n), c_gemmc(n * n);
  std::mt19937 gen(42);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  for (auto& x : hA) x = dist(gen);
  for (auto& x : hB) x = dist(gen);
  float *dA, *dB, *dC;
  cudaMalloc(&dA, bytes); cudaMalloc(&dB, bytes); cudaMalloc(&dC, bytes);
  cudaMemcpy(dA, hA.data(), bytes, cudaMemcpyHostToDevice);
  cudaMemcpy(dB, hB.data(), bytes, cudaMemcpyHostToDevice);
  auto tutorial = [&] { %(tutorial_launch)s(dA, dB, dC, 4096, 4096, 4096); };
  auto gemmc = [&] { launch_sgemm(dA, dB, dC, 0); };
  std::vector<float> t, g;
  for (int r = 0; r < 8; ++r) {
    if (r %% 2) { t.push_back(average_ms(tutorial)); g.push_back(average_ms(gemmc)); }
    else { g.push_back(average_ms(gemmc)); t.push_back(average_ms(tutorial)); }
  }
  tutorial(); cudaMemcpy(c_tutorial.data(), dC, bytes, cudaMemcpyDeviceToHost);
  gemmc(); cudaMemcpy(c_gemmc.data(), dC, bytes, cudaMemcpyDeviceToHost);
  double diff = 0;
  for (size_t i = 0; i < n * n; ++i) diff = std::max(diff, (double)std::fabs(c_tutorial[i] - c_gemmc[i]));
  const double flop = 2.0 * n * n * n;
  printf("{\"variant\": \"%(name)s\", \"pipeline\": \"%(pipeline)s\", \"step\": %(step)d, "
         "\"tutorial_ms\": %%.4f, \"gemmc_ms\": %%.4f, \"tutorial_tflops\": %%.3f, \"gemmc_tflops\": %%.3f, "
         "\"max_abs_diff\": %%.3g, \"cuda_error\": \"%%s\"",
         median(t), median(g), flop / median(t) / 1e9, flop / median(g) / 1e9, diff,
         cudaGetErrorString(cudaGetLastError()));
  print_list("tutorial_ms_all", t);
  print_list("gemmc_ms_all", g);
  printf("}\n");
  return 0;
}
#endif
"""


def gemmc_source(pipeline: str) -> str:
    import gemmc

    module = gemmc.parse_file(str(ROOT / "examples" / "sgemm.gemm"))
    gemmc.lower(module, pipeline, "sm_90")
    return gemmc.emit(module, "sm_90", "hip")


def gen(tutorial_dir: Path, out: Path) -> None:
    (out / "hip").mkdir(parents=True, exist_ok=True)
    (out / "tutorial").mkdir(exist_ok=True)
    shim = SHIM + "".join(f"#ifndef {h}\n#define {h} {c}\n#endif\n" for h, c in SHIM_NAMES.items())
    (out / "hip" / "hip_runtime.h").write_text(shim)
    for file, _ in TUTORIAL.values():
        (out / "tutorial" / file).write_text((tutorial_dir / file).read_text())
    for name, (step, pipeline) in VARIANTS.items():
        file, launch = TUTORIAL[step]
        text = gemmc_source(pipeline) + HARNESS % dict(
            tutorial=f"tutorial/{file}", tutorial_launch=launch, name=name, pipeline=pipeline, step=step)
        (out / f"ab_{name}.cu").write_text(text)
    print(f"wrote {len(VARIANTS)} programs to {out}")


def main(argv: list[str]) -> int:
    if len(argv) == 3 and argv[0] == "gen":
        gen(Path(argv[1]), Path(argv[2]))
    else:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
