"""The CUDA toolchain, for the sm_90 target: find nvcc, compile, read ptxas's report.

gemmc's kernels for NVIDIA are the same kernel IR printed as CUDA-flavoured HIP
(gemmc/emit/hip.py with an nvidia Arch).  This module builds them with nvcc; it is
only useful on a machine with the CUDA toolkit (the project's H200), and says so
in one line elsewhere.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from gemmc.target.arch import Arch
from gemmc.target import wgmma
from gemmc.support.diagnostics import EXIT_TOOLCHAIN, GemmcError
from gemmc.target.toolchain import KernelResources


def find_nvcc() -> str:
    """nvcc from GEMMC_NVCC, CUDA_HOME / CUDA_PATH, /usr/local/cuda or PATH."""
    candidates = [os.environ.get("GEMMC_NVCC")]
    for var in ("CUDA_HOME", "CUDA_PATH"):
        if os.environ.get(var):
            candidates.append(str(Path(os.environ[var]) / "bin" / "nvcc"))
    candidates += ["/usr/local/cuda/bin/nvcc", shutil.which("nvcc")]
    for c in candidates:
        if c and Path(c).is_file() and os.access(c, os.X_OK):
            return c
    raise GemmcError(
        "nvcc not found: building for sm_90 needs the CUDA toolkit (set GEMMC_NVCC or CUDA_HOME)",
        code=EXIT_TOOLCHAIN,
    )


def sm(arch: Arch) -> str:
    return arch.name.replace("sm_", "")


def nvcc_flags(arch: Arch, source: str = "") -> list[str]:
    """nvcc's flags for `source` on `arch`: its PTX target, sm_90a where the source issues wgmma
    (gemmc.target.wgmma.PTX_TARGET; the arch-specific target, whose cubin runs on sm_90 alone), else
    the arch's own."""
    return ["-O3", *target_flags(arch, uses_wgmma(source)), "-x", "cu", "-std=c++17"]


def target_flags(arch: Arch, with_wgmma: bool) -> list[str]:
    """-arch=sm_90, or where a kernel issues wgmma sm_90a's virtual target and its cubin only: -arch=sm_90a
    alone also embeds compute_90 PTX, which ptxas cannot build with wgmma (nvcc 13.0, H100, 2026-12-07)."""
    if not with_wgmma:
        return [f"-arch={arch.name}"]
    target = wgmma.ptx_target(arch)
    return [f"-arch={target.replace('sm_', 'compute_')}", f"-code={target}"]


def uses_wgmma(source: str) -> bool:
    return "wgmma.mma_async" in source


def compile_cuda(source: str, arch: Arch, emit: str = "asm", extra: list[str] | None = None) -> str | bytes:
    """PTX text ("asm") or a cubin ("hsaco" means the device binary here)."""
    nvcc = find_nvcc()
    with tempfile.TemporaryDirectory(prefix="gemmc-cuda-") as tmp:
        src = Path(tmp) / "kernel.cu"
        src.write_text(source)
        out = Path(tmp) / ("kernel.ptx" if emit == "asm" else "kernel.cubin")
        mode = "-ptx" if emit == "asm" else "-cubin"
        _run([nvcc, *nvcc_flags(arch, source), mode, str(src), "-o", str(out), *(extra or [])])
        return out.read_text() if emit == "asm" else out.read_bytes()


def build_executable(source: str, arch: Arch, exe: Path, libs: list[str] = ()) -> None:
    nvcc = find_nvcc()
    src = exe.with_suffix(".cu")
    src.write_text(source)
    _run([nvcc, *nvcc_flags(arch, source), str(src), "-o", str(exe), *libs])


def _run(cmd: list[str]) -> subprocess.CompletedProcess:
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        first = next((l for l in proc.stderr.splitlines() if "error" in l), proc.stderr.strip()[:200])
        raise GemmcError(f"nvcc failed: {first}", code=EXIT_TOOLCHAIN)
    return proc


def resource_report(source: str, arch: Arch) -> list[KernelResources]:
    """Registers, shared memory and spills per kernel, from `ptxas -v`."""
    nvcc = find_nvcc()
    with tempfile.TemporaryDirectory(prefix="gemmc-cuda-") as tmp:
        src = Path(tmp) / "kernel.cu"
        src.write_text(source)
        proc = _run([nvcc, *nvcc_flags(arch, source), "-cubin", "-Xptxas", "-v", str(src), "-o", str(Path(tmp) / "k.cubin")])
    return parse_ptxas(proc.stderr, arch.name)


def parse_ptxas(text: str, arch: str) -> list[KernelResources]:
    kernels: list[KernelResources] = []
    name, frame, spill = None, 0, 0
    for line in text.splitlines():
        if m := re.search(r"Function properties for (\w+)", line):
            name = m.group(1)
        elif m := re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores", line):
            frame, spill = int(m.group(1)), int(m.group(2))
        elif (m := re.search(r"Compiling entry function '(\w+)'", line)):
            name = m.group(1)
        elif m := re.search(r"Used (\d+) registers", line):
            smem = re.search(r"(\d+) bytes smem", line)
            kernels.append(KernelResources(
                kernel=name or "?", arch=arch, vgprs=int(m.group(1)), agprs=0, sgprs=0,
                scratch_bytes=frame, occupancy=0, lds_bytes=int(smem.group(1)) if smem else 0,
                vgpr_spill=spill,
            ))
    return kernels
