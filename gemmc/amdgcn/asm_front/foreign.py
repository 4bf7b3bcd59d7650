"""HIP kernels gemmc did not write, compiled for the interpreter: the tutorial's kernels use
the HIP headers, whose threadIdx / blockDim are calls into ROCm's device library (ockl); clang
links ockl.bc (from ROCm or Triton's AMD backend) and the code object ABI version it reads
(`__oclc_ABI_version`, 600 for code object v6, as ROCm's oclc_abi_version_600.bc defines it)
and a fence __syncthreads calls (_ABI_IR), so that the kernel is self-contained: no call the
interpreter would have to run.

    text = compile_hip("matrix_multiply_naive.hip", "gfx942")   # assembly text
"""

from __future__ import annotations

import importlib.util
import os
import pathlib
import subprocess
import tempfile

from gemmc.support.diagnostics import GemmcError
from gemmc.target.arch import Arch, get_arch
from gemmc.target.toolchain import compile_device, find_toolchain, toolchain_error

# What the HIP headers call besides ockl: the code object ABI version ockl reads, and
# __atomic_work_item_fence (ROCm's opencl.bc; __syncthreads' fences), here an agent-scope
# acq_rel fence whatever its arguments: at least as strong as any fence it is asked for
_ABI_IR = """target triple = "amdgcn-amd-amdhsa"
@__oclc_ABI_version = hidden local_unnamed_addr addrspace(4) constant i32 600, align 4
define linkonce_odr hidden void @__atomic_work_item_fence(i32 %flags, i32 %order, i32 %scope) #0 {
  fence syncscope("agent") acq_rel
  ret void
}
attributes #0 = { alwaysinline nounwind }
"""


def device_library() -> pathlib.Path:
    """ockl.bc: $GEMMC_OCKL, else ROCm's, else Triton's AMD backend's."""
    env = os.environ.get("GEMMC_OCKL")
    candidates = [pathlib.Path(env)] if env else []
    candidates += [pathlib.Path(p) / "amdgcn/bitcode/ockl.bc" for p in ("/opt/rocm", "/opt/rocm/lib/llvm/lib/clang")]
    spec = importlib.util.find_spec("triton")
    if spec is not None and spec.submodule_search_locations:
        candidates.append(pathlib.Path(list(spec.submodule_search_locations)[0]) / "backends/amd/lib/ockl.bc")
    for c in candidates:
        if c.is_file():
            return c
    raise toolchain_error("ROCm's device library ockl.bc not found (set GEMMC_OCKL, install ROCm or Triton)")


def have_device_library() -> bool:
    """Whether device_library finds an ockl.bc (tests skip HIP without one)."""
    try:
        device_library()
        return True
    except GemmcError:
        return False


def compile_hip(path: str, arch: Arch | str, extra_flags: tuple[str, ...] | list[str] = ()) -> str:
    """The AMDGCN assembly of a HIP file's kernels for arch, ockl linked in; `extra_flags` for
    clang (include directories, `-mcumode`)."""
    target = get_arch(arch) if isinstance(arch, str) else arch
    try:
        source = pathlib.Path(path).read_text()
    except OSError as e:
        raise GemmcError(f"cannot read {path}: {e.strerror}", code=3) from None
    ockl = device_library()
    with tempfile.TemporaryDirectory() as tmp:
        abi = pathlib.Path(tmp) / "abi.bc"
        (pathlib.Path(tmp) / "abi.ll").write_text(_ABI_IR)
        r = subprocess.run([find_toolchain().tool("llvm-as"), str(pathlib.Path(tmp) / "abi.ll"), "-o", str(abi)],
                           capture_output=True, text=True)
        if r.returncode:
            raise toolchain_error(f"llvm-as failed: {r.stderr.strip()}")
        # ockl first, then what it reads: the bitcode linker keeps only what is referenced so far
        flags = ["-Xclang", "-mlink-builtin-bitcode", "-Xclang", str(ockl),
                 "-Xclang", "-mlink-builtin-bitcode", "-Xclang", str(abi)] + list(extra_flags)
        text = compile_device(source, target, "asm", extra_flags=flags, hip_headers=True)
    assert isinstance(text, str)
    return text
