"""HIP kernels gemmc did not write, compiled for the interpreter: the tutorial's kernels use
the HIP headers, whose threadIdx / blockDim are calls into ROCm's device library (ockl); clang
links ockl.bc (from ROCm or Triton's AMD backend) and the code object ABI version it reads
(`__oclc_ABI_version`, 600 for code object v6, as ROCm's oclc_abi_version_600.bc defines it)
and the fence __syncthreads calls, as ROCm's opencl.bc defines it (_ABI_IR), so that the kernel
is self-contained: no call the interpreter would have to run.

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
# __atomic_work_item_fence, which HIP's __syncthreads calls (hip/amd_detail/amd_device_functions.h:
# __syncthreads -> __barrier(__CLK_LOCAL_MEM_FENCE) -> __work_group_barrier(flags,
# __memory_scope_work_group): a release fence, s_barrier, an acquire fence) and which ROCm's device
# library defines in opencl.bc (ROCm device libraries, amd/device-libs/opencl/src/misc/awif.cl:
# nothing for a relaxed order or work-item scope, else a fence of the order at the scope asked,
# irif's __llvm_fence_<order>_<scope>, `fence syncscope("workgroup") release` and so on).  Written
# here as that switch (alwaysinline: the constant arguments fold it to the one fence), so that a
# kernel's barriers carry the workgroup-scope fences hipcc's build gives them, not stronger ones.
# OpenCL's memory_scope values (clang's __OPENCL_MEMORY_SCOPE_*) and their LLVM sync scopes:
_FENCE_SCOPES = {1: 'syncscope("workgroup") ', 2: 'syncscope("agent") ', 3: "", 4: 'syncscope("wavefront") '}
# C11's memory_order values (clang's __ATOMIC_*) that fence: acquire, release, acq_rel, seq_cst
_FENCE_ORDERS = {2: "acquire", 3: "release", 4: "acq_rel", 5: "seq_cst"}


def _fence_ir() -> str:
    """__atomic_work_item_fence(flags, order, scope) as awif.cl's switch over scope, then order."""
    lines = ["define linkonce_odr hidden void @__atomic_work_item_fence(i32 %flags, i32 %order, i32 %scope) #0 {",
             "entry:",
             "  switch i32 %scope, label %done [" + " ".join(f"i32 {s}, label %s{s}" for s in _FENCE_SCOPES) + "]"]
    for s, sync in _FENCE_SCOPES.items():
        lines += [f"s{s}:", f"  switch i32 %order, label %done ["
                  + " ".join(f"i32 {o}, label %s{s}o{o}" for o in _FENCE_ORDERS) + "]"]
        for o, name in _FENCE_ORDERS.items():
            lines += [f"s{s}o{o}:", f"  fence {sync}{name}", "  br label %done"]
    return "\n".join(lines + ["done:", "  ret void", "}"])


_ABI_IR = """target triple = "amdgcn-amd-amdhsa"
@__oclc_ABI_version = hidden local_unnamed_addr addrspace(4) constant i32 600, align 4
""" + _fence_ir() + """
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
