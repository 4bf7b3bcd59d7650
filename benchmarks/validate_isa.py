"""The ISA-level model (gemmc.amdgcn.timing) on the published kernels' own code (issue #35,
deliverable 3): seb-v's RDNA3 SGEMM series (fp32_sgemm_amd: kernels 1-5 its HIP compiled by
clang-22 for gfx1100, 6-8 its hand-written gfx1100 assembly as it is) and gau-nernst's MI300X
BF16 series (learn-cuda 02d_matmul_cdna3: v1a-v3b, its HIP for gfx942), each launched at 4096^3
with the grid, block and arguments of its own harness (seb-v's src/main.cpp and kernel*.cpp,
gau-nernst's matmul_v*.cu host functions), beside the measured time from the repository's
README and the IR-level model's figure for the closest gemmc pipeline (benchmarks/validate_model.py).

    python3 benchmarks/validate_isa.py [--sebv DIR] [--gau DIR] [--only KEY ...] [--check]
                                       [--write]          # benchmarks/isa_validation.md + .json

The sources are read from local git mirrors (`git show HEAD:path`; never copied into gemmc):
the directories default to /work/.mirror/<owner>+<name>/repo; where one is absent the script
says so and skips its rows (exit 0: CI has no mirrors).  `--check` first runs each kernel at a
small size (seb-v's: 256^3 where the kernel takes any N, one 128x128 tile of 4096^3 for
kernel 8, whose addressing is fixed at N = 4096; gau-nernst's 256x256x128) and compares C with
numpy, so that what is timed is known to compute the product.
"""

from __future__ import annotations

import argparse
import datetime
import json
import pathlib
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SEBV_DIR = pathlib.Path("/work/.mirror/seb-v+fp32_sgemm_amd/repo")
GAU_DIR = pathlib.Path("/work/.mirror/gau-nernst+learn-cuda/repo")
SEBV_URL = "github.com/seb-v/fp32_sgemm_amd"
GAU_URL = "github.com/gau-nernst/learn-cuda"
N = 4096


@dataclass
class Kernel:
    """One published kernel: where its code is, how its harness launches it, what was measured."""
    key: str
    label: str
    repo: str  # "sebv" | "gau"
    arch: str
    path: str  # in the repository
    kernel: str  # the __global__ function (or the .s symbol)
    measured_ms: float
    launch: object  # launch(n) -> (grid, block, args, elems, dynamic_lds)
    instantiate: str = ""  # explicit template instantiation appended to the extracted kernel
    flags: tuple = ()  # clang flags of its build (build.sh: kernel 5's -mcumode)
    any_n: bool = True  # whether the kernel takes any multiple of its tile (else N = 4096 only)
    ir_row: str = ""  # the row of validate_model.py's table for the closest gemmc pipeline
    in_type: str = "f32"


# -- seb-v/fp32_sgemm_amd: README.md's table (RX 7900 XTX, 4096^3, the best of 16 runs) ---------------

SEBV_MS = {1: 136.006, 2: 34.2059, 3: 6.0341, 4: 5.3772, 5: 4.0994, 6: 3.6368, 7: 3.3314, 8: 2.8032}


def _sebv_launch(kind: str):
    def launch(n: int):
        rng = np.random.default_rng(7)
        a = rng.standard_normal((n, n)).astype(np.float32)
        b = rng.standard_normal((n, n)).astype(np.float32)
        c = np.zeros((n, n), np.float32)
        one, zero = np.float32(1.0), np.float32(0.0)
        if kind == "naive":  # kernel1_naive.cpp: dim3(16, 16) threads, dim3(N / 16, N / 16) blocks
            return (n // 16, n // 16), (16, 16), [a, b, c, np.int32(n), np.int32(n), np.int32(n), one, zero]
        if kind == "lds":  # kernel2_lds.cpp: TILE_SIZE 32
            return (n // 32, n // 32), (32, 32), [a, b, c, np.int32(n)]
        threads = 256 if kind == "256" else 128  # kernel3/4: BLOCK_SIZE 256; 5-8: 128
        return (n // 128, n // 128), (threads,), [a, b, c, np.int32(n), one, zero]
    return launch


def _sebv_kernels() -> list[Kernel]:
    kid = "kernel{0}<1>"
    sig = "(float *, float *, float *, int, float, float)"
    return [
        Kernel("sebv1", "1 naive", "sebv", "gfx1100", "src/kernel1_naive.cpp", "kernel1_naive", SEBV_MS[1],
               _sebv_launch("naive"), ir_row="1 naive, 16×16"),
        Kernel("sebv2", "2 LDS tiling", "sebv", "gfx1100", "src/kernel2_lds.cpp", "kernel2_lds", SEBV_MS[2],
               _sebv_launch("lds"), ir_row="2 LDS 32×32, BK 32"),
        Kernel("sebv3", "3 register tiling", "sebv", "gfx1100", "src/kernel3_registers.cpp", "kernel3_registers",
               SEBV_MS[3], _sebv_launch("256"), ir_row="3 registers 128×128×8, 8×8 per thread"),
        Kernel("sebv4", "4 GMEM double buffer", "sebv", "gfx1100", "src/kernel4_gmem_df.cpp", "kernel4_gmem_db",
               SEBV_MS[4], _sebv_launch("256"), f"template __global__ void {kid.format('4_gmem_db')}{sig};",
               ir_row="4 + global prefetch, launch bounds"),
        Kernel("sebv5", "5 LDS optimisation, CU mode", "sebv", "gfx1100", "src/kernel5_lds_optim.cpp",
               "kernel5_lds_optim", SEBV_MS[5], _sebv_launch("128"),
               f"template __global__ void {kid.format('5_lds_optim')}{sig};", flags=("-mcumode",),
               ir_row="5 + LDS padding, CU mode, 16×8 per thread"),
        Kernel("sebv6", "6 ISA VALU optimisation (hand-written .s)", "sebv", "gfx1100", "src/kernel6_valu_optim.s",
               "kernel", SEBV_MS[6], _sebv_launch("128")),
        Kernel("sebv7", "7 unrolled inner loop (hand-written .s)", "sebv", "gfx1100", "src/kernel7_unroll.s",
               "kernel", SEBV_MS[7], _sebv_launch("128")),
        Kernel("sebv8", "8 batched GMEM loads (hand-written .s)", "sebv", "gfx1100", "src/kernel8_batched_gmem.s",
               "kernel", SEBV_MS[8], _sebv_launch("128"), any_n=False),
    ]


# -- gau-nernst/learn-cuda 02d_matmul_cdna3: README.md's table (MI300X, BF16 4096^3, TFLOP/s) ----------

GAU_TFLOPS = {"v1a": 122.21, "v1b": 244.72, "v2": 369.57, "v3a": 421.10, "v3b": 454.12}


def _gau_launch(smem_stride: int):
    def launch(n: int, m: int | None = None, k: int | None = None):
        m, k = m or n, k or n
        rng = np.random.default_rng(8)
        bf = lambda x: _to_bf16(x)  # noqa: E731
        a = bf(rng.standard_normal((m, k)).astype(np.float32))
        b = bf(rng.standard_normal((n, k)).astype(np.float32))  # main.py: B = randn(N, K).T, read as N x K
        c = np.zeros((m, n), np.float32)
        # matmul_v*: grid cdiv(M, 128) * cdiv(N, 128), 2 x 2 warps of 64, smem (128 + 128) * stride bf16
        grid = ((m // 128) * (n // 128),)
        return grid, (256,), [a, b, c, np.int32(m), np.int32(n), np.int32(k)], \
            ["bf16", "bf16", "bf16", None, None, None], (128 + 128) * smem_stride * 2
    return launch


def _gau_kernels() -> list[Kernel]:
    ms = {k: 2 * N ** 3 / (v * 1e12) * 1e3 for k, v in GAU_TFLOPS.items()}
    sig = "(const __hip_bfloat16 *, const __hip_bfloat16 *, __hip_bfloat16 *, int, int, int)"
    rows = {"v1a": "v1a basic (LDS rows of 64 bf16, 8-byte fragment reads)", "v1b": "v1b padded LDS (+8 bf16 a row)",
            "v2": "v2 LDS swizzle", "v3a": "v3a register double buffering", "v3b": "v3b 16-byte LDS reads"}
    # the template arguments each host function (matmul_v1a ... matmul_v3b) instantiates
    inst = {"v1a": ("matmul_v1.cu", "matmul_v1_kernel<128, 128, 64, 64, 2, 2>", 64),
            "v1b": ("matmul_v1.cu", "matmul_v1_kernel<128, 128, 64, 72, 2, 2>", 72),
            "v2": ("matmul_v2.cu", "matmul_v2_kernel<128, 128, 64, 2, 2>", 64),
            "v3a": ("matmul_v3.cu", "matmul_v3_kernel<128, 128, 64, 2, 2, false>", 64),
            "v3b": ("matmul_v3.cu", "matmul_v3_kernel<128, 128, 64, 2, 2, true>", 64)}
    out = []
    for key, (f, name, stride) in inst.items():
        out.append(Kernel(f"gau_{key}", key, "gau", "gfx942", f"02d_matmul_cdna3/{f}", name.split("<")[0], ms[key],
                          _gau_launch(stride), f"template __global__ void {name}{sig};", ir_row=rows[key],
                          in_type="bf16"))
    return out


def _to_bf16(x: np.ndarray) -> np.ndarray:
    """x rounded to bf16 (to nearest even), held as float32."""
    u = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    u = (u + 0x7FFF + ((u >> 16) & 1)) & 0xFFFF0000
    return u.astype(np.uint32).view(np.float32)


# -- the sources ------------------------------------------------------------------------------------------

def git_show(repo: pathlib.Path, path: str) -> str:
    return subprocess.run(["git", "-C", str(repo), "show", f"HEAD:{path}"], capture_output=True, text=True,
                          check=True).stdout


def git_head(repo: pathlib.Path) -> tuple[str, str]:
    out = subprocess.run(["git", "-C", str(repo), "log", "-1", "--format=%H %cs"], capture_output=True, text=True,
                         check=True).stdout.split()
    return out[0], out[1]


# A stand-in for ROCm's hip/hip_bf16.h, which the LLVM-only toolchain here lacks: what the kernels
# use of it (the 2-byte type, its copy through float4 / short vectors, __float2bfloat16 rounding
# to nearest even with quiet NaNs, as ROCm's amd_hip_bf16.h does).
BF16_SHIM = """#pragma once
struct __hip_bfloat16 { unsigned short data; };
static __device__ __host__ inline __hip_bfloat16 __float2bfloat16(float f) {
  unsigned int u = __builtin_bit_cast(unsigned int, f);
  if (~u & 0x7f800000u) u += 0x7fffu + ((u >> 16) & 1u);
  else if (u & 0xffffu) u |= 0x10000u;
  __hip_bfloat16 r; r.data = (unsigned short)(u >> 16); return r;
}
"""


def extract_hip(k: Kernel, repo: pathlib.Path, tmp: pathlib.Path) -> pathlib.Path:
    """The kernel's translation unit without its host code: the repository's own includes
    dropped (seb-v's class headers, sgemm.h) or provided (gau-nernst's common.h; hip_bf16.h by the
    shim above), everything from the first host function on cut, the harness's template
    instantiation appended."""
    src = git_show(repo, k.path)
    if k.repo == "sebv":
        src = re.sub(r'^#include\s+"[^"]+"\s*$', "", src, flags=re.M)
        host = re.search(r"^void\s+Kernel\w+::", src, flags=re.M)
    else:
        (tmp / "common.h").write_text("#include <algorithm>\n" + git_show(repo, "02d_matmul_cdna3/common.h"))
        (tmp / "hip").mkdir(exist_ok=True)
        (tmp / "hip" / "hip_bf16.h").write_text(BF16_SHIM)
        # torch's extension build (main.py) compiles the .cu with hipcc, whose HIP runtime header
        # (float4) comes in implicitly
        src = "#include <hip/hip_runtime.h>\n" + src.replace('#include "common.h"', f'#include "{tmp / "common.h"}"')
        host = re.search(r"^void\s+matmul_v(?!\w*_kernel)\w+\(", src, flags=re.M)
    body = src[:host.start()] if host else src
    out = tmp / (pathlib.Path(k.path).stem + ".hip")
    out.write_text(body + "\n" + k.instantiate + "\n")
    return out


def assembly(k: Kernel, repo: pathlib.Path) -> str:
    """The kernel's AMDGCN assembly: seb-v's .s as it is, else its HIP through clang-22."""
    if k.path.endswith(".s"):
        return git_show(repo, k.path)
    from gemmc.amdgcn.asm_front.foreign import compile_hip

    with tempfile.TemporaryDirectory() as tmp:
        hip = extract_hip(k, repo, pathlib.Path(tmp))
        return compile_hip(str(hip), k.arch, ["-I", tmp, *k.flags])


def clang_version() -> str:
    from gemmc.target.toolchain import find_toolchain

    out = subprocess.run([find_toolchain().clang, "--version"], capture_output=True, text=True).stdout
    return out.splitlines()[0].strip() if out else "?"


# -- running them -----------------------------------------------------------------------------------------

class _Only:
    """A run_kernel sample that runs the named workgroups untraced (the correctness check of a
    kernel whose addressing is fixed at N = 4096)."""

    def __init__(self, ids):
        self.ids = list(ids)

    def workgroups(self, kernel, grid, block):
        return self.ids

    def attach(self, machine):
        pass


def check(k: Kernel, text: str) -> str:
    """Run the kernel at a small size and compare C with numpy (float64), element-wise within
    the f32 accumulation bound (bf16: C rounded to bf16 as well); 'PASS ...' or raise."""
    from gemmc.amdgcn.asm_front import load, run

    prog = load(k.path, text, k.arch)
    if k.repo == "gau":
        m, n, kk = 256, 256, 128
        grid, block, args, elems, lds = k.launch(n, m, kk)
        a, b, c = args[:3]
        run(prog, k.kernel, grid, block, args, elems, dynamic_lds=lds)
        ref = a.astype(np.float64) @ b.astype(np.float64).T
        bound = kk * 2.0 ** -23 * (np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64)).T) + np.abs(ref) * 2.0 ** -8
        rows = cols = slice(None)
    else:
        n = 256 if k.any_n else N
        grid, block, args = k.launch(n)
        a, b, c = args[:3]
        sample = None
        rows = cols = slice(None)
        if not k.any_n:  # one workgroup's 128 x 128 tile, (x, y) = (5, 3): C[384:512, 640:768]
            sample = _Only([3 * grid[0] + 5])
            rows, cols = slice(3 * 128, 4 * 128), slice(5 * 128, 6 * 128)
        run(prog, k.kernel, grid, block, args, sample=sample)
        ref = a[rows].astype(np.float64) @ b[:, cols].astype(np.float64)
        bound = n * 2.0 ** -23 * (np.abs(a[rows]).astype(np.float64) @ np.abs(b[:, cols]).astype(np.float64))
    err = np.abs(c[rows, cols] - ref)
    bad = int(np.count_nonzero(~(err <= bound)))
    if bad:
        raise AssertionError(f"{k.key}: {bad} of {err.size} elements of C outside the bound")
    shape = f"{m}x{n}x{kk}" if k.repo == "gau" else (f"{n}^3" if k.any_n else f"one 128x128 tile of {n}^3")
    return f"PASS {shape}: max |error| / bound {float(np.max(err / np.maximum(bound, 1e-300))):.2g}"


def time_kernel(k: Kernel, text: str):
    """The ISA-level prediction (gemmc.amdgcn.timing.predict) of the kernel at 4096^3 with its
    harness's launch: the interpreter traces the workgroups one CU holds, on zero inputs."""
    from gemmc.amdgcn.asm_front import load, run
    from gemmc.amdgcn.timing import predict

    prog = load(k.path, text, k.arch)
    if k.repo == "gau":
        grid, block, args, elems, lds = k.launch(N)
    else:
        (grid, block, args), elems, lds = k.launch(N), None, 0
    args = [np.zeros_like(x) if isinstance(x, np.ndarray) else x for x in args]  # (no timing reads values)
    return predict(lambda sampler: run(prog, k.kernel, grid, block, args, elems, dynamic_lds=lds, sample=sampler),
                   text, prog.arch, 2.0 * N ** 3, k.in_type, k.path, dynamic_lds=lds)


def _validate_model():
    import importlib.util

    if "validate_model" not in sys.modules:
        spec = importlib.util.spec_from_file_location("validate_model", ROOT / "benchmarks" / "validate_model.py")
        vm = importlib.util.module_from_spec(spec)
        sys.modules["validate_model"] = vm
        spec.loader.exec_module(vm)
    return sys.modules["validate_model"]


def ir_level(k: Kernel) -> tuple[float, str, str] | None:
    """(ms, pipeline, bound) of the IR-level model's closest gemmc pipeline: the row of
    benchmarks/validate_model.py's table that names this kernel (None: no pipeline)."""
    vm = _validate_model()
    cases, src, arch = (vm.SEBV, vm.SEBV_SRC, "gfx1100") if k.repo == "sebv" else (vm.GAU_NERNST, vm.GAU_SRC, "gfx942")
    case = next((c for c in cases if c.label == k.ir_row and c.pipeline), None)
    if case is None:
        return None
    p = vm.predict(src, case.pipeline, arch)
    return p.time_s * 1e3, case.pipeline, p.bound


# -- the table --------------------------------------------------------------------------------------------

# Which rows each calibrated constant of the ISA-level model was chosen on (in-sample); every other
# row is out of sample for it.  Kept with the constants' sources in docs/cost-model.md ("The
# ISA-level model": "Calibration").
FITTED: dict[str, list[str]] = {}


def row(k: Kernel, repo: pathlib.Path, with_check: bool) -> dict:
    t0 = time.time()
    text = assembly(k, repo)
    out = {"key": k.key, "kernel": k.label, "arch": k.arch, "source": f"{k.path}" + (" (clang-22)" if not k.path.endswith(".s") else " (as written)"),
           "measured_ms": k.measured_ms, "measured_tflops": 2 * N ** 3 / (k.measured_ms * 1e-3) / 1e12}
    if with_check:
        out["check"] = check(k, text)
    p = time_kernel(k, text)
    lt = p.main
    out.update({"predicted_ms": p.time_s * 1e3, "predicted_tflops": p.tflops,
                "ratio": k.measured_ms / (p.time_s * 1e3),  # predicted / measured speed
                "bound": lt.bound, "clock_mhz": lt.clock_mhz, "resident": lt.res.workgroups,
                "resident_limiter": lt.res.limiter, "cu_mode": lt.res.cus == 1 and k.arch == "gfx1100",
                "loop_traced": lt.loop.traced if lt.loop else None,
                "loop_total": lt.loop.traced + lt.loop.remaining + 1 if lt.loop else None,
                "seconds": round(time.time() - t0, 1)})
    ir = ir_level(k) if k.ir_row else None
    if ir is not None:
        out.update({"ir_ms": ir[0], "ir_ratio": k.measured_ms / ir[0], "ir_pipeline": ir[1], "ir_bound": ir[2]})
    out["in_sample_for"] = [c for c, rows in FITTED.items() if k.key in rows]
    return out


def _order(rows: list[dict], key: str) -> list[str]:
    return [r["key"] for r in sorted(rows, key=lambda r: -r[key])]


def markdown(rows: list[dict], prov: dict) -> str:
    lines = ["# The ISA-level model on the published kernels' own code", "",
             "Written by `python3 benchmarks/validate_isa.py --write` (issue #35, deliverable 3): each kernel's "
             "own code run by gemmc's interpreter (C checked against numpy at a small size first) and timed by "
             "the ISA-level model (`gemmc.amdgcn.timing`, docs/cost-model.md \"The ISA-level model\") at 4096³ "
             "with its harness's grid, block and arguments.  Ratio: predicted / measured speed (>1: the model "
             "is too optimistic); the goal is every row within 1.25× and the measured order kept.  IR-level: "
             "benchmarks/validate_model.py's closest gemmc pipeline (not the same kernel), beside it.", "",
             "Provenance: " + "; ".join(f"{name} at {c} ({d})" for name, (c, d) in prov["mirrors"].items())
             + f"; {prov['clang']}; written {prov['date']} on gemmc {prov['gemmc']}.", ""]
    for arch, title, cite in (("gfx1100", "RX 7900 XTX (gfx1100), FP32 4096³ — seb-v/fp32_sgemm_amd",
                               f"measured: {SEBV_URL} README.md (best of 16 runs, ms)"),
                              ("gfx942", "MI300X (gfx942), BF16 4096³, C = A Bᵀ — gau-nernst/learn-cuda 02d_matmul_cdna3",
                               f"measured: {GAU_URL} 02d_matmul_cdna3/README.md (TFLOP/s, triton do_bench)")):
        rs = [r for r in rows if r["arch"] == arch]
        if not rs:
            continue
        lines += [f"## {title}", "", cite + ".", "",
                  "| kernel | code | measured ms (TFLOP/s) | ISA-level ms (TFLOP/s) | ratio | bound | resident | IR-level ms | IR ratio | in-sample for |",
                  "|---|---|---|---|---|---|---|---|---|---|"]
        for r in rs:
            ir = (f"{r['ir_ms']:.3f} | {r['ir_ratio']:.2f}" if "ir_ms" in r else "— | —")
            mode = " CU mode" if r.get("cu_mode") else ""
            lines.append(f"| {r['kernel']} | `{r['source']}` | {r['measured_ms']:.3f} ({r['measured_tflops']:.1f}) | "
                         f"{r['predicted_ms']:.3f} ({r['predicted_tflops']:.1f}) | {r['ratio']:.2f} | {r['bound']} | "
                         f"{r['resident']} ({r['resident_limiter']}){mode} | {ir} | "
                         f"{', '.join(r['in_sample_for']) or 'out of sample'} |")
        within = [r["key"] for r in rs if 1 / 1.25 <= r["ratio"] <= 1.25]
        worst = max(rs, key=lambda r: max(r["ratio"], 1 / r["ratio"]))
        mo, po = _order(rs, "measured_ms"), _order(rs, "predicted_ms")
        lines += ["", f"Within 1.25×: {len(within)} of {len(rs)} ({', '.join(within) or 'none'}); worst "
                      f"{worst['key']} at {worst['ratio']:.2f}.  Measured order (slowest first): {' > '.join(mo)}; "
                      f"ISA-level: {' > '.join(po)} ({'the same' if mo == po else 'not the same'}).", ""]
        checks = [f"{r['key']}: {r['check']}" for r in rs if "check" in r]
        if checks:
            lines += ["Checks against numpy before timing: " + "; ".join(checks) + ".", ""]
    return "\n".join(lines) + "\n"


def provenance(dirs: dict) -> dict:
    gemmc_rev = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                               text=True).stdout.strip()
    return {"mirrors": {name: git_head(d) for name, d in dirs.items()}, "clang": clang_version(),
            "date": datetime.date.today().isoformat(), "gemmc": gemmc_rev}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sebv", type=pathlib.Path, default=SEBV_DIR, help="seb-v/fp32_sgemm_amd checkout")
    ap.add_argument("--gau", type=pathlib.Path, default=GAU_DIR, help="gau-nernst/learn-cuda checkout")
    ap.add_argument("--only", nargs="*", default=None, help="kernel keys (sebv1 .. sebv8, gau_v1a .. gau_v3b)")
    ap.add_argument("--check", action="store_true", help="check each kernel's C against numpy first")
    ap.add_argument("--write", action="store_true", help="write benchmarks/isa_validation.md and .json")
    args = ap.parse_args(argv)
    dirs, kernels = {}, []
    for name, d, ks in (("seb-v/fp32_sgemm_amd", args.sebv, _sebv_kernels()),
                        ("gau-nernst/learn-cuda", args.gau, _gau_kernels())):
        if not (d / ".git").exists() and not (d / "HEAD").exists():
            print(f"validate_isa: no checkout of {name} at {d}: its rows skipped")
            continue
        dirs[name] = d
        kernels += [(k, d) for k in ks if args.only is None or k.key in args.only]
    if not kernels:
        print("validate_isa: nothing to validate (the published repositories are not on this machine)")
        return 0
    rows = []
    from gemmc.support.diagnostics import GemmcError

    for k, d in kernels:
        try:
            r = row(k, d, args.check)
        except GemmcError as e:  # (no ockl.bc for the HIP rows: set GEMMC_OCKL)
            print(f"validate_isa: {k.key} skipped: {e.message}")
            continue
        rows.append(r)
        print(f"{r['key']:8s} measured {r['measured_ms']:8.3f} ms  ISA-level {r['predicted_ms']:8.3f} ms  "
              f"ratio {r['ratio']:.2f}  {r['bound']:<12s} {r.get('check', '')}  ({r['seconds']} s)", flush=True)
    prov = provenance(dirs)
    text = markdown(rows, prov)
    if args.write:
        (ROOT / "benchmarks" / "isa_validation.md").write_text(text)
        (ROOT / "benchmarks" / "isa_validation.json").write_text(json.dumps({"provenance": prov, "fitted": FITTED,
                                                                             "rows": rows}, indent=1) + "\n")
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
