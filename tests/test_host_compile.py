"""The host side of the emitted HIP compiles: launchers and the `--harness` main, for every
example and for programs made of the catalogue's odd names (tests/fuzzing.py's NAMES: C++
keywords, HIP names, one-letter names), with the kernel named like one of its own dims,
matrices or scalars.

Every other compile test builds device code only (-DGEMMC_NO_HIP_HEADERS), where the host
code is #ifdef'd out.  Here clang compiles the host side (`--cuda-host-only`) against HIP's
runtime headers: ROCm's, or Debian's libamdhip64-dev that setup.sh installs.  Without them
the test falls back on the stand-in header of test_emit_hip.py, which declares the same HIP
API; both reject a launcher whose parameter hides the kernel it launches.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

import gemmc
from gemmc.target.arch import get_arch

from fuzzing import NAMES

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "examples").glob("*.gemm"))
# Beyond NAMES: names the HIP path rewrites (docs/language.md, "Names") or that the printed
# file itself defines.
EXTRA_NAMES = ("__Weird_Name_2", "gemmc_check", "GEMMC_CHECK", "v4float", "hipLaunchKernelGGL",
               "launch_N", "N_1", "dim3", "size_A", "h_A", "d_A", "argc")
ODD = tuple(dict.fromkeys(NAMES + EXTRA_NAMES))
ROLES = 8  # 3 dims, 3 matrices, 2 scalars per program

# The host code must really be compiled: the prelude leaves it out when no HIP header is found.
REQUIRE_HOST = "\n#ifndef GEMMC_HOST_CODE\n#error \"the host code was not compiled\"\n#endif\n"


def _hip_root(tc) -> str | None:
    """The install prefix holding include/hip/hip_runtime.h, if a real HIP is there."""
    for root in (tc.rocm_path, os.environ.get("ROCM_PATH"), "/usr"):
        if root and (Path(root) / "include" / "hip" / "hip_runtime.h").is_file():
            return root
    return None


def host_compile(tc, source: str, arch: str, tmp: Path) -> subprocess.CompletedProcess:
    """clang -fsyntax-only of the host side of `source` for `arch`."""
    a = get_arch(arch)
    path = tmp / "k.hip"
    path.write_text(source + REQUIRE_HOST)
    flags = ["-x", "hip", "--cuda-host-only", f"--offload-arch={a.name}", "-fsyntax-only", "-Werror"]
    root = _hip_root(tc)
    if root is not None:
        # /usr/include is searched anyway; ROCm's prefix is clang's --rocm-path.  Old HIP
        # headers expect the wave size from the compiler, which plain LLVM no longer defines
        # (as in gemmc.target.toolchain.device_flags).
        if tc.kind == "llvm":
            flags.append(f"-D__AMDGCN_WAVEFRONT_SIZE={a.wave_size}")
        if root != "/usr":
            flags.append(f"--rocm-path={root}")
    else:
        from test_emit_hip import STUB_HIP_RUNTIME

        (tmp / "hip").mkdir(exist_ok=True)
        (tmp / "hip" / "hip_runtime.h").write_text(STUB_HIP_RUNTIME)
        flags += ["-nogpulib", "-nogpuinc", f"-I{tmp}"]
    return subprocess.run([tc.clang, *flags, str(path)], capture_output=True, text=True, timeout=300)


def _assert_host_compiles(tc, text: str, arch: str, pipeline: str | None, tmp: Path, harness: bool = True) -> None:
    m = gemmc.parse(text, "odd.gemm")
    gemmc.lower(m, pipeline, arch)
    proc = host_compile(tc, gemmc.emit(m, arch, "hip", harness=harness), arch, tmp)
    assert proc.returncode == 0, f"{text}\n{proc.stderr[:3000]}"


def _batched(example: Path) -> bool:
    module = gemmc.parse_file(str(example))
    return any(getattr(a.type, "get_num_dims", lambda: 0)() == 3 for op in module.walk() if op.name == "func.func"
               for a in op.regions[0].blocks[0].args)


def _fp8(example: Path) -> bool:
    return "f8e" in example.read_text()


def _fp8_arch(example: Path) -> str:
    """gfx942 for AMD's FNUZ formats, else gfx950 for the OCP ones: read from the declared types."""
    module = gemmc.parse_file(str(example))
    types = {str(a.type) for op in module.walk() if op.name == "func.func" for a in op.regions[0].blocks[0].args}
    return "gfx942" if any("FNUZ" in t for t in types) else "gfx950"


@pytest.mark.parametrize("arch", ["gfx942", "gfx1201"])
@pytest.mark.parametrize("example", [e for e in EXAMPLES if not _fp8(e)], ids=lambda p: p.stem)
def test_examples_host_side_compiles(toolchain, example, arch, tmp_path):
    """What `gemmc compile EXAMPLE --harness` writes (default pipeline) builds for the host; a batched
    example's launcher alone (--harness has no batched product yet)."""
    _assert_host_compiles(toolchain, example.read_text(), arch, None, tmp_path, harness=not _batched(example))


@pytest.mark.parametrize("example", [e for e in EXAMPLES if _fp8(e)], ids=lambda p: p.stem)
def test_fp8_examples_host_side_compiles(toolchain, example, tmp_path):
    """FP8, MXFP8, MXFP6 and MXFP4 examples on their arch (gfx942's FNUZ formats, else gfx950's
    OCP ones): the launcher and the harness, which fills FP8, FP6, FP4 and E8M0 matrices (and checks
    an FP8 C), build."""
    _assert_host_compiles(toolchain, example.read_text(), _fp8_arch(example), None, tmp_path)


def odd_program(names: tuple[str, ...], kernel: str) -> str:
    """A BLAS-form kernel over dynamic dims, all of whose names come from `names`."""
    m, n, k, a, b, c, alpha, beta = names
    return f"""kernel {kernel} {{
  dim {m}, {n}, {k}
  {a}: f32[{m}, {k}]
  {b}: f32[{k}, {n}]
  {c}: f32[{m}, {n}]
  {alpha}: f32
  {beta}: f32
  {c} = {alpha} * {a} @ {b} + {beta} * {c}
}}
"""


def odd_programs() -> list[tuple[str, str]]:
    """Each odd name as a dim, a matrix and a scalar; each program's kernel is named like one
    of its own names (a dim, a matrix, then a scalar: the ones a launcher parameter may hide)."""
    out = []
    for shift, kernel_role in ((0, 1), (3, 4), (6, 7)):
        rotated = ODD[shift:] + ODD[:shift]
        for start in range(0, len(rotated), ROLES):
            chunk = rotated[start:start + ROLES]
            if len(chunk) < ROLES:
                chunk += rotated[:ROLES - len(chunk)]
            out.append((f"{chunk[kernel_role]}-{start // ROLES}", odd_program(chunk, chunk[kernel_role])))
    return out


ODD_PROGRAMS = odd_programs()


@pytest.mark.parametrize("text", [t for _, t in ODD_PROGRAMS], ids=[i for i, _ in ODD_PROGRAMS])
def test_odd_names_host_side_compiles(toolchain, text, tmp_path):
    _assert_host_compiles(toolchain, text, "gfx942", "step1", tmp_path)


KERNEL_LIKE_DIM = """kernel N {
  dim M, N, K
  A: f32[M, K]
  B: f32[K, N]
  C: f32[M, N]
  C = A @ B
}
"""


def test_kernel_named_like_a_dynamic_dim(toolchain, tmp_path):
    """The launcher's `int N` hid the kernel N: 'called object type 'int' is not a function'."""
    m = gemmc.parse(KERNEL_LIKE_DIM, "n.gemm")
    gemmc.lower(m, None, "gfx942")
    source = gemmc.emit(m, "gfx942", "hip")
    assert "hipError_t launch_N(" in source and "int N_1" in source and "int N," not in source
    proc = host_compile(toolchain, source, "gfx942", tmp_path)
    assert proc.returncode == 0, proc.stderr[:3000]
    # the same file with the dim parameter named N again must not compile: the check can fail
    broken = source.replace("N_1", "N")
    proc = host_compile(toolchain, broken, "gfx942", tmp_path)
    assert proc.returncode != 0 and "not a function" in proc.stderr


def test_host_compile_requires_host_code(toolchain, tmp_path):
    """A file whose host code is left out (no HIP header found) fails the check instead of passing."""
    m = gemmc.parse(KERNEL_LIKE_DIM, "n.gemm")
    gemmc.lower(m, "step1", "gfx942")
    source = "#define GEMMC_NO_HIP_HEADERS 1\n" + gemmc.emit(m, "gfx942", "hip")
    proc = host_compile(toolchain, source, "gfx942", tmp_path)
    assert proc.returncode != 0 and "the host code was not compiled" in proc.stderr


@pytest.mark.parametrize("dim", ["N", "float"])
def test_bench_passes_dims_by_the_users_names(dim):
    """`gemmc bench` calls the launcher with -D values looked up by the dim's own name, not its
    C name (N_1 beside a kernel N, float_): before, it passed 0 for them."""
    from gemmc.driver.bench import bench_source

    text = KERNEL_LIKE_DIM.replace("N", dim).replace("kernel " + dim, "kernel N")
    m = gemmc.parse(text, "n.gemm")
    gemmc.lower(m, "step1", "sm_90")
    source = bench_source(m, get_arch("sm_90"), {"M": 64, dim: 32, "K": 16})
    assert "launch_N(dA[s], dB[s], dC[s], 64, 32, 16, stream)" in source


@pytest.mark.parametrize("reduce", ["atomic", "workspace"])
def test_split_k_host_side_compiles(toolchain, reduce, tmp_path):
    """split-k's second launch and (workspace) its hipMallocAsync / hipFreeAsync build for the host."""
    text = (ROOT / "examples" / "gemm_alpha_beta.gemm").read_text()
    _assert_host_compiles(toolchain, text, "gfx942", f"step3,split-k{{factor=3 reduce={reduce}}}", tmp_path)


def test_stream_k_fixup_host_side_compiles(toolchain, tmp_path):
    """stream-k's fix-up (a bias and gelu): its workspace and tile counters, hipMallocAsync /
    hipFreeAsync, and the counters' zeroing launch before the persistent one build for the host."""
    text = (ROOT / "examples" / "linear.gemm").read_text()
    _assert_host_compiles(toolchain, text, "gfx942", "step3,stream-k{workgroups=7}", tmp_path)


# -- the output conversions' harnesses, run on the CPU (test_emit_hip.run_on_cpu) -------------------

CONVERTED = ["fp8_amax", "int8_requant"]
SMALL = {"M": 40, "N": 72, "K": 48}  # every element of C checked, and the amax both ways


def _converted_harness(name: str, arch: str, pipeline: str | None) -> str:
    module = gemmc.parse((ROOT / "examples" / f"{name}.gemm").read_text(), f"{name}.gemm", SMALL)
    return gemmc.emit(gemmc.lower(module, pipeline, arch), arch, "hip", harness=True)


def _run_harness(toolchain, source: str, arch: str, tmp_path: Path) -> subprocess.CompletedProcess:
    import cpu_matrix
    from test_emit_hip import run_on_cpu

    if toolchain.kind != "llvm":
        pytest.skip("the CPU run uses plain clang++ for the host")
    return run_on_cpu(toolchain, source, [], tmp_path, cpu_matrix.builtins(arch, source))


@pytest.mark.parametrize("name,arch", [("fp8_amax", "gfx942"), ("int8_requant", "gfx90a")])
def test_converted_examples_harness_passes_on_cpu(toolchain, name, arch, tmp_path):
    """The default kernel (gfx942's MFMAs with fp8_amax's OCP e4m3 C in software; gfx90a's for the
    i8 one) against the harness's float64 reference: C code for code within the bound, the amax,
    the scale spreading C over the format's range."""
    proc = _run_harness(toolchain, _converted_harness(name, arch, None), arch, tmp_path)
    assert proc.returncode == 0 and "Checked     : 2880 elements of C" in proc.stdout, proc.stdout + proc.stderr
    assert "(C spread over its range)" in proc.stdout
    assert ("Checked     : amax" in proc.stdout) == (name == "fp8_amax")


PLANTED = [
    ("fp8_amax", "a wrong scale", "s * (sum + b_e)", "2.0f * s * (sum + b_e)"),
    ("fp8_amax", "a missing saturate", "-448.0f), 448.0f)", "-1.0e30f), 1.0e30f)"),
    ("fp8_amax", "amax of the scaled value", "__builtin_fabsf(sum + b_e)", "__builtin_fabsf(s * (sum + b_e))"),
    ("int8_requant", "a scale on the wrong axis", "s_w[col]", "s_w[row]"),
    ("int8_requant", "a missing saturate", "-128.0f), 127.0f)", "-1.0e30f), 1.0e30f)"),
]


@pytest.mark.parametrize("name,bug,old,new", PLANTED, ids=[f"{n}: {b}" for n, b, _, _ in PLANTED])
def test_converted_harness_fails_a_planted_bug(toolchain, name, bug, old, new, tmp_path):
    from test_harness_formats import _assert_fails, _planted

    source = _planted(_converted_harness(name, "gfx942", "step1"), old, new)
    _assert_fails(_run_harness(toolchain, source, "gfx942", tmp_path))
