"""The LLVM/ROCm toolchain: find a HIP compiler for AMDGPU, compile device code, read
the compiler's resource-usage report.

    tc = find_toolchain()                                  # cached
    asm = compile_device(source, arch, "asm")              # str
    hsaco = compile_device(source, arch, "hsaco")          # bytes: a linked code object
    obj = compile_device(source, arch, "obj")              # bytes: a relocatable ELF object
    for k in resource_report(source, arch): print(k.kernel, k.vgprs, k.occupancy)
    print(format_report(resource_report(source, arch)))

Where the compiler comes from, first found wins:

1. `GEMMC_CLANG`: an explicit clang++ (ROCm's or LLVM's), used as given;
2. ROCm: `$ROCM_PATH`, then `/opt/rocm` (its `llvm/bin/clang++`, or `bin/amdclang++`), then
   `hipcc` or `amdclang++` on PATH;
3. plain LLVM with the AMDGPU backend: `clang++-22`, `$(llvm-config-22 --bindir)/clang++`,
   older versioned `clang++-NN`, then `clang++`.

A candidate counts only if `--print-targets` lists amdgcn; whether it knows a given arch
is checked (once, cached) with `--print-supported-cpus`.

Device code is always compiled the same way, ROCm or not, so that the numbers do not
depend on which HIP headers are installed:

    clang++ -x hip --cuda-device-only --offload-arch=gfxNNN -nogpulib -nogpuinc
            -DGEMMC_NO_HIP_HEADERS -O3 -cuid=<hash of the source> [-S]

The HIP emitter's prelude (gemmc.emit.hip) defines what the kernels need in that mode.
`hip_headers=True` compiles against the installed HIP headers instead (and passes
`-D__AMDGCN_WAVEFRONT_SIZE` from the arch description to plain LLVM, which old ROCm
headers expect).  Every failure is a `GemmcError` with code EXIT_TOOLCHAIN.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path

from gemmc.target.arch import Arch, get_arch
from gemmc.support.diagnostics import EXIT_TOOLCHAIN, GemmcError

INSTALL_HINT = "apt-get install clang-22 lld-22 llvm-22 or install ROCm"
LLVM_VERSIONS = (22, 21, 20, 19, 18)
COMPILE_TIMEOUT_S = 300
TRIPLE = "amdgcn-amd-amdhsa"
EMIT_KINDS = ("asm", "hsaco", "obj")


def toolchain_error(message: str) -> GemmcError:
    return GemmcError(message, code=EXIT_TOOLCHAIN)


@dataclass(frozen=True)
class Toolchain:
    kind: str  # "rocm" or "llvm"
    clang: str  # the clang++ driver that compiles HIP
    version: str  # first line of `clang++ --version`
    bindir: str  # the directory of the real clang binary, where llvm-mc and ld.lld live
    rocm_path: str | None = None
    hipcc: str | None = None

    def describe(self) -> str:
        where = f" (ROCm at {self.rocm_path})" if self.rocm_path else ""
        return f"{self.clang}: {self.version}{where}"

    def tool(self, name: str) -> str:
        """An LLVM tool (llvm-mc, ld.lld, llvm-objdump) of this toolchain's LLVM."""
        candidates = [Path(self.bindir) / name]
        m = re.search(r"-(\d+)$", Path(self.clang).name)
        if m:
            candidates.append(Path(self.bindir) / f"{name}-{m.group(1)}")
        for c in candidates:
            if c.is_file() and os.access(c, os.X_OK):
                return str(c)
        for v in ("", *(f"-{n}" for n in LLVM_VERSIONS)):
            found = shutil.which(f"{name}{v}")
            if found:
                return found
        raise toolchain_error(f"{name} not found beside {self.clang}; {INSTALL_HINT}")

    def supports(self, arch: Arch | str) -> bool:
        name = arch.name if isinstance(arch, Arch) else arch
        return name in _supported_cpus(self.clang)


# -- finding a compiler -----------------------------------------------------------------


def find_toolchain() -> Toolchain:
    """The compiler to use (see the module docstring); cached per environment."""
    key = tuple(os.environ.get(v) for v in ("GEMMC_CLANG", "ROCM_PATH", "PATH"))
    return _find_toolchain(key)


def have_toolchain() -> bool:
    """Whether find_toolchain finds a compiler (tests that need one skip without it)."""
    try:
        find_toolchain()
        return True
    except GemmcError:
        return False


@functools.lru_cache(maxsize=8)
def _find_toolchain(key: tuple[str | None, ...]) -> Toolchain:
    explicit = os.environ.get("GEMMC_CLANG")
    if explicit:
        path = shutil.which(explicit) or explicit
        if not (os.path.isfile(path) and os.access(path, os.X_OK)):
            raise toolchain_error(f"GEMMC_CLANG={explicit} is not an executable compiler")
        tc = _probe(path, kind=None)
        if tc is None:
            raise toolchain_error(f"GEMMC_CLANG={explicit} has no AMDGPU (amdgcn) backend; {INSTALL_HINT}")
        return tc
    for tc in _rocm_candidates():
        return tc
    for path in _llvm_candidates():
        tc = _probe(path, kind="llvm")
        if tc is not None:
            return tc
    raise toolchain_error(f"no HIP compiler with the AMDGPU backend found; {INSTALL_HINT}")


def _rocm_candidates():
    roots = []
    for root in (os.environ.get("ROCM_PATH"), "/opt/rocm"):
        if root and root not in roots:
            roots.append(root)
    hipcc = shutil.which("hipcc")
    if hipcc:
        roots.append(str(Path(os.path.realpath(hipcc)).parent.parent))
    for root in roots:
        for rel in ("llvm/bin/clang++", "bin/amdclang++", "lib/llvm/bin/clang++"):
            path = Path(root) / rel
            if path.is_file() and os.access(path, os.X_OK):
                tc = _probe(str(path), kind="rocm", rocm_path=root)
                if tc is not None:
                    yield tc
                    return
    amdclang = shutil.which("amdclang++")
    if amdclang:
        tc = _probe(amdclang, kind="rocm", rocm_path=str(Path(os.path.realpath(amdclang)).parent.parent.parent))
        if tc is not None:
            yield tc


def _llvm_candidates():
    seen = []
    first = shutil.which(f"clang++-{LLVM_VERSIONS[0]}")
    if first:
        seen.append(first)
    config = shutil.which(f"llvm-config-{LLVM_VERSIONS[0]}")
    if config:
        try:
            bindir = subprocess.run([config, "--bindir"], capture_output=True, text=True, timeout=10).stdout.strip()
            if bindir:
                seen.append(str(Path(bindir) / "clang++"))
        except (OSError, subprocess.SubprocessError):
            pass
    for v in LLVM_VERSIONS[1:]:
        found = shutil.which(f"clang++-{v}")
        if found:
            seen.append(found)
    plain = shutil.which("clang++")
    if plain:
        seen.append(plain)
    out = []
    for p in seen:
        if p not in out and os.path.isfile(p):
            out.append(p)
    return out


def _probe(path: str, kind: str | None, rocm_path: str | None = None) -> Toolchain | None:
    """A Toolchain for `path` if it runs and has the amdgcn backend, else None."""
    try:
        version = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=30)
        targets = subprocess.run([path, "--print-targets"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    if version.returncode != 0 or "amdgcn" not in targets.stdout:
        return None
    first = version.stdout.splitlines()[0].strip() if version.stdout else path
    real = os.path.realpath(path)
    installed = re.search(r"^InstalledDir:\s*(.+)$", version.stdout, re.M)
    bindir = installed.group(1).strip() if installed else str(Path(real).parent)
    if kind is None:
        kind = "rocm" if ("AMD" in first or "/rocm" in real) else "llvm"
    if kind == "rocm" and rocm_path is None:
        rocm_path = str(Path(real).parent.parent.parent)
    hipcc = None
    if rocm_path:
        cand = Path(rocm_path) / "bin" / "hipcc"
        hipcc = str(cand) if cand.is_file() else None
    return Toolchain(kind, path, first, bindir, rocm_path, hipcc)


@functools.lru_cache(maxsize=8)
def _supported_cpus(clang: str) -> frozenset[str]:
    try:
        out = subprocess.run([clang, f"--target={TRIPLE}", "--print-supported-cpus"],
                             capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return frozenset()
    return frozenset(re.findall(r"^\s*(gfx[0-9a-z]+)\s*$", out.stdout + out.stderr, re.M))


# -- compiling --------------------------------------------------------------------------


def device_flags(arch: Arch, tc: Toolchain, hip_headers: bool = False) -> list[str]:
    """The clang flags of a device-only HIP compile for `arch` (without -S / -o)."""
    flags = ["-x", "hip", "--cuda-device-only", f"--offload-arch={arch.name}", "-O3"]
    if hip_headers:
        if tc.kind == "llvm":
            flags += ["-nogpulib", f"-D__AMDGCN_WAVEFRONT_SIZE={arch.wave_size}"]
        elif tc.rocm_path:
            flags.append(f"--rocm-path={tc.rocm_path}")
    else:
        flags += ["-nogpulib", "-nogpuinc", "-DGEMMC_NO_HIP_HEADERS"]
    return flags


def compile_device(
    hip_source: str,
    arch: Arch | str,
    emit: str = "asm",
    *,
    extra_flags: tuple[str, ...] | list[str] = (),
    hip_headers: bool = False,
    toolchain: Toolchain | None = None,
) -> str | bytes:
    """Compile the device code of a HIP source for `arch`.

    emit="asm": AMDGCN assembly text; "hsaco": a linked code object (ELF shared object,
    what hipModuleLoad takes); "obj": a relocatable ELF object, assembled from the asm with
    llvm-mc (the route a future gemmc assembly emitter takes too).
    """
    target = arch if isinstance(arch, Arch) else get_arch(arch)
    if emit not in EMIT_KINDS:
        raise toolchain_error(f"unknown device output '{emit}'; expected one of {', '.join(EMIT_KINDS)}")
    tc = toolchain or find_toolchain()
    _check_arch(tc, target)
    with tempfile.TemporaryDirectory(prefix="gemmc-") as tmp:
        src = Path(tmp) / "kernel.hip"
        src.write_text(hip_source)
        flags = device_flags(target, tc, hip_headers) + [_cuid(hip_source)] + list(extra_flags)
        if emit == "hsaco":
            out = Path(tmp) / "kernel.hsaco"
            run_tool([tc.clang, *flags, "--no-gpu-bundle-output", str(src), "-o", str(out)], tc, target, tmp)
            return out.read_bytes()
        asm = Path(tmp) / "kernel.s"
        run_tool([tc.clang, *flags, "-S", str(src), "-o", str(asm)], tc, target, tmp)
        if emit == "asm":
            return asm.read_text()
        obj = Path(tmp) / "kernel.o"
        mc = tc.tool("llvm-mc")
        run_tool([mc, f"-triple={TRIPLE}", f"-mcpu={target.name}", "-filetype=obj", str(asm), "-o", str(obj)],
             tc, target, tmp)
        return obj.read_bytes()


def _cuid(hip_source: str) -> str:
    """clang derives the HIP compilation-unit id (the `__hip_cuid_*` symbol) from the input's
    path, which is a fresh temporary directory each time; an id from the source keeps the
    assembly and the code object byte-identical from run to run."""
    return f"-cuid={hashlib.sha256(hip_source.encode()).hexdigest()[:16]}"


def _check_arch(tc: Toolchain, arch: Arch) -> None:
    cpus = _supported_cpus(tc.clang)
    if cpus and arch.name not in cpus:
        raise toolchain_error(
            f"{tc.clang} ({tc.version}) does not know {arch.name}; {INSTALL_HINT}"
        )


def run_tool(cmd: list[str], tc: Toolchain, arch: Arch, tmp: str) -> subprocess.CompletedProcess:
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=COMPILE_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise toolchain_error(f"{Path(cmd[0]).name} timed out after {COMPILE_TIMEOUT_S} s compiling for {arch.name}") from None
    except OSError as e:
        raise toolchain_error(f"cannot run {cmd[0]}: {e.strerror}; {INSTALL_HINT}") from None
    if proc.returncode != 0:
        raise toolchain_error(f"{Path(cmd[0]).name} failed for {arch.name}: {_first_error(proc.stderr, tmp)}")
    return proc


def _first_error(stderr: str, tmp: str) -> str:
    lines = [l.replace(tmp + os.sep, "") for l in stderr.splitlines() if l.strip()]
    for l in lines:
        if "error:" in l:
            return l.strip()
    return lines[0].strip() if lines else "no message"


# -- resource usage -----------------------------------------------------------------------


@dataclass(frozen=True)
class KernelResources:
    """One kernel's line of clang's -Rpass-analysis=kernel-resource-usage report."""

    kernel: str
    arch: str
    vgprs: int
    agprs: int
    sgprs: int
    scratch_bytes: int  # per lane
    occupancy: int  # waves per SIMD
    lds_bytes: int  # per workgroup
    vgpr_spill: int = 0
    sgpr_spill: int = 0
    dynamic_stack: bool = False
    # the assembly clang wrote in the same compile (all the source's kernels): the IR-level model's
    # issue term counts the K loop's instructions in it (gemmc.cost.issue)
    asm: str = field(default="", compare=False, repr=False)


_REMARK = re.compile(r"remark:\s+([A-Za-z][A-Za-z ]*?(?: \[[^\]]*\])?):\s*(\S+)\s*\[-Rpass-analysis=kernel-resource-usage\]")
_FIELDS = {
    "TotalSGPRs": "sgprs", "SGPRs": "sgprs", "VGPRs": "vgprs", "AGPRs": "agprs",
    "ScratchSize [bytes/lane]": "scratch_bytes", "Occupancy [waves/SIMD]": "occupancy",
    "LDS Size [bytes/block]": "lds_bytes", "VGPRs Spill": "vgpr_spill", "SGPRs Spill": "sgpr_spill",
    "Dynamic Stack": "dynamic_stack",
}


def parse_resource_remarks(stderr: str, arch: str) -> list[KernelResources]:
    """The kernels' resources from clang's remarks, in the order clang reports them."""
    kernels: list[dict] = []
    for m in _REMARK.finditer(stderr):
        key, value = m.group(1).strip(), m.group(2)
        if key == "Function Name":
            kernels.append({"kernel": value, "arch": arch})
            continue
        if not kernels or key not in _FIELDS:
            continue
        field_name = _FIELDS[key]
        if field_name == "dynamic_stack":
            kernels[-1][field_name] = value.lower() == "true"
        elif re.fullmatch(r"-?\d+", value):
            kernels[-1][field_name] = int(value)
    out = []
    for k in kernels:
        for f in ("vgprs", "agprs", "sgprs", "scratch_bytes", "occupancy", "lds_bytes"):
            k.setdefault(f, 0)
        out.append(KernelResources(**k))
    return out


def resource_report(
    hip_source: str,
    arch: Arch | str,
    *,
    toolchain: Toolchain | None = None,
) -> list[KernelResources]:
    """VGPRs, AGPRs, SGPRs, scratch, occupancy and LDS of each kernel, from the compiler."""
    target = arch if isinstance(arch, Arch) else get_arch(arch)
    tc = toolchain or find_toolchain()
    return list(_cached_report(hip_source, target.name, tc))


@functools.lru_cache(maxsize=64)
def _cached_report(hip_source: str, arch_name: str, tc: Toolchain) -> tuple[KernelResources, ...]:
    target = get_arch(arch_name)
    _check_arch(tc, target)
    with tempfile.TemporaryDirectory(prefix="gemmc-") as tmp:
        src = Path(tmp) / "kernel.hip"
        src.write_text(hip_source)
        asm = Path(tmp) / "kernel.s"
        cmd = [tc.clang, *device_flags(target, tc), "-S", "-Rpass-analysis=kernel-resource-usage",
               str(src), "-o", str(asm)]
        proc = run_tool(cmd, tc, target, tmp)
        text = asm.read_text() if asm.exists() else ""
    kernels = [replace(k, asm=text) for k in parse_resource_remarks(proc.stderr, arch_name)]
    if not kernels:
        raise toolchain_error(f"{Path(tc.clang).name} printed no kernel-resource-usage remarks for {arch_name}")
    return tuple(kernels)


def format_report(kernels: list[KernelResources]) -> str:
    """A table of resource usage, one kernel a row, as `gemmc` prints it."""
    header = ("kernel", "arch", "VGPRs", "AGPRs", "SGPRs", "scratch B/lane", "LDS B/block",
              "occupancy waves/SIMD", "spills V/S")
    rows = [header]
    for k in kernels:
        rows.append((k.kernel, k.arch, str(k.vgprs), str(k.agprs), str(k.sgprs), str(k.scratch_bytes),
                     str(k.lds_bytes), str(k.occupancy), f"{k.vgpr_spill}/{k.sgpr_spill}"))
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    lines = []
    for r in rows:
        cells = [r[0].ljust(widths[0]), r[1].ljust(widths[1])]
        cells += [c.rjust(w) for c, w in zip(r[2:], widths[2:])]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines) + "\n"


__all__ = [
    "KernelResources", "Toolchain", "compile_device", "device_flags", "find_toolchain",
    "format_report", "parse_resource_remarks", "resource_report",
]
