"""The interpreter at the last level: the AMDGCN LLVM emits (gemmc's kernels through clang,
the tutorial's HIP, a Triton matmul) read by gemmc.amdgcn.asm_front and run with the
interpreter's checks; C against numpy or the declared program.  Planted bugs (an MFMA lane
permutation in the semantics, an s_waitcnt edited out, an LDS read one dword off) must FAIL.

The sample here is CI's share (seconds each); scripts/asm_sweep.py runs every case."""

from __future__ import annotations

import pathlib
import re

import numpy as np
import pytest

import gemmc
from benchmark_scripts import load as load_script
from gemmc.amdgcn.asm_front import load, run
from gemmc.driver import api
from gemmc.driver.asm_level import asm_kernels, check_asm
from gemmc.support.diagnostics import GemmcError
from gemmc.target.toolchain import have_toolchain

ROOT = pathlib.Path(__file__).resolve().parent.parent
TRITON = ROOT / "tests/data/triton_matmul_gfx942.s"
SEED = pathlib.Path("/work/shared/seed-reference")
needs_clang = pytest.mark.skipif(not have_toolchain(), reason="no clang with the AMDGPU backend")


def _lowered(example: str, arch: str, pipeline: str | None, m: int, n: int, k: int):
    dims = {"M": m, "N": n, "K": k}
    module = gemmc.parse_file(str(ROOT / "examples" / example), defines=dims)
    gemmc.lower(module, pipeline, arch)
    return module, dims


def _triton_run(text: str, m=70, n=45, k=50):
    prog = load(str(TRITON), text)
    rng = np.random.default_rng(1)
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    c = np.zeros((m, n), np.float32)
    grid = (-(-m // 32) * -(-n // 32),)
    run(prog, "matmul", grid, (256,), [a, b, c, m, n, k, k, 1, n, 1, n, 1, None, None],
        elems=["f16", "f16", "f32"] + [None] * 11, dynamic_lds=2048)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    bound = k * 2.0 ** -23 * (np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64))) + 1e-30
    return c, ref, bound


def test_triton_gfx942_matmul_passes():
    """Triton's code object conventions: its target triple, preloaded kernargs (the compatible
    prologue loads them), dynamic LDS, its null scratch pointers."""
    c, ref, bound = _triton_run(TRITON.read_text())
    assert np.all(np.abs(c - ref) <= bound)


def test_descriptor_and_metadata():
    from gemmc.amdgcn.asm_front.text import parse_file

    f = parse_file(str(TRITON), TRITON.read_text())
    k = f.kernels["matmul"]
    assert f.target == "gfx942"
    assert k.descriptor["user_sgpr_count"] == 16 and k.descriptor["kernarg_size"] == 80
    kinds = [a["value_kind"] for a in k.meta["args"]]
    assert kinds[:3] == ["global_buffer"] * 3 and kinds.count("by_value") == 9


def test_an_instruction_the_interpreter_lacks_is_an_error_at_its_line():
    lines = TRITON.read_text().splitlines()
    i = next(i for i, l in enumerate(lines) if l.strip().startswith("v_perm_b32"))
    lines[i] = "\tv_frobnicate_b32 v1, v2"
    with pytest.raises(GemmcError) as e:
        load(str(TRITON), "\n".join(lines))
    assert e.value.loc is not None and e.value.loc.line == i + 1
    assert "v_frobnicate_b32" in e.value.message


def test_an_unknown_modifier_is_an_error_not_ignored():
    lines = TRITON.read_text().splitlines()
    i = next(i for i, l in enumerate(lines) if l.strip().startswith("ds_read_b64"))
    lines[i] += " swizzle:3"
    with pytest.raises(GemmcError, match="swizzle"):
        load(str(TRITON), "\n".join(lines))


@needs_clang
@pytest.mark.parametrize("example,arch,pipeline", [
    ("sgemm.gemm", "gfx942", "step1"),
    ("sgemm.gemm", "gfx1100", None),  # RDNA3: wave32, VOPD pairs, true16
    ("hgemm.gemm", "gfx942", None),  # MFMA
    ("hgemm.gemm", "gfx1201", None),  # gfx12: WMMA, split counters, trap-temporary workgroup ids
])
def test_llvm_assembly_passes(example, arch, pipeline):
    module, dims = _lowered(example, arch, pipeline, 67, 35, 19)
    r = api.check(module, arch, dims, level="asm")
    assert r.passed, r.summary()


@needs_clang
def test_bf16_c_stores_through_the_high_halves():
    """gau-nernst's v2 (benchmarks/validate_model.py): clang stores odd bf16 columns of C with
    global_store_short_d16_hi (the data VGPR's high half); C checked bit for bit on exact inputs."""
    vm = load_script("validate_model")
    v2 = next(c for c in vm.GAU_NERNST if c.label.startswith("v2 "))
    dims = {"M": 256, "N": 256, "K": 128}
    module = gemmc.parse(vm.GAU_SRC, "bf16_nt.gemm", defines=dims)
    gemmc.lower(module, v2.pipeline, "gfx942")
    assert "global_store_short_d16_hi" in gemmc.emit(module, "gfx942", "asm")
    r = api.check(module, "gfx942", dims, level="asm")
    assert r.passed, r.summary()


@needs_clang
def test_memory_data_in_agprs_gfx950():
    """gfx950's 16-bit default with scalar copies (vectorize{peel=false}) runs out of VGPRs, and
    clang moves LDS and global data through AGPRs (`ds_read_b128 a[0:3], v238`, `ds_write_b16 v212,
    a16`, `global_load_ushort a16, ...`: gfx90a+); the interpreter reads and writes them there."""
    from gemmc.driver.pipeline import MATRIX_16BIT_DEFAULTS
    from gemmc.driver.variants import with_unpeeled

    module, dims = _lowered("hgemm.gemm", "gfx950", with_unpeeled(MATRIX_16BIT_DEFAULTS["gfx950"]), 257, 129, 97)
    text = asm_kernels(module, "gfx950")[0]
    assert re.search(r"ds_read_b128 a\[", text) and re.search(r"global_load_ushort a\d", text)
    r = api.check(module, "gfx950", dims, level="asm")
    assert r.passed, r.summary()


@needs_clang
def test_planted_mfma_lane_permutation_fails(monkeypatch):
    import gemmc.interp.matrix as matrix

    real = matrix.multiply

    def swapped(instr, a, b, c, *rest):  # lanes 0 and 1 of A exchanged: a wrong operand layout
        a = a.copy()
        a[:, [0, 1]] = a[:, [1, 0]]
        return real(instr, a, b, c, *rest)

    module, dims = _lowered("hgemm.gemm", "gfx942", None, 40, 33, 16)
    monkeypatch.setattr(matrix, "multiply", swapped)
    assert not api.check(module, "gfx942", dims, level="asm").passed


def _asm(example, arch, pipeline, m, n, k):
    module, dims = _lowered(example, arch, pipeline, m, n, k)
    return module, dims, asm_kernels(module, arch)[0]


@needs_clang
def test_planted_missing_waitcnt_is_caught():
    module, dims, text = _asm("sgemm.gemm", "gfx942", "step1", 33, 21, 13)
    edited = text.replace("\ts_waitcnt vmcnt(0)\n", "", 1)
    assert edited != text
    with pytest.raises(GemmcError, match="missing s_waitcnt vmcnt"):
        check_asm(module, "gfx942", dims, text=edited, path="edited.s")


@needs_clang
def test_llvms_missed_wait_states_are_diagnosed():
    """sgemm's step 7 on gfx942: a wave whose stores are all out of bounds branches around the
    block with LLVM's s_nop 5 and overwrites an MFMA result 10 wait states after it (18 needed):
    an error naming the branch, the s_nop it skipped and LLVM's bug (docs/amdgcn-asm.md)."""
    module, dims = _lowered("sgemm.gemm", "gfx942", "step7", 257, 131, 95)
    with pytest.raises(GemmcError, match=r"overwrites v\d+ 10 wait states after the v_mfma_f32_32x32x2_f32 .*needs "
                       r"18.*the MFMA is at line \d+; the wave took the s_cbranch_execz at line \d+ to line \d+, past "
                       r"the s_nop 5 at line \d+: .*an LLVM bug"):
        api.check(module, "gfx942", dims, level="asm")


@needs_clang
def test_llvm_misses_wait_states_by_block_order():
    """The evidence for the bug above: LLVM's own pass on two functions that differ only in the
    layout order of a join's predecessors puts the s_nop before the overwrite in one only."""
    import subprocess

    from gemmc.target.toolchain import find_toolchain

    mir = ROOT / "tests/data/llvm_missed_wait_states.mir"
    out = subprocess.run([find_toolchain().tool("llc"), "-mtriple=amdgcn-amd-amdhsa", "-mcpu=gfx942",
                          "-run-pass=post-RA-hazard-rec", str(mir), "-o", "-"],
                         capture_output=True, text=True, check=True).stdout
    before = {}
    for fn in out.split("\nname:")[1:]:
        lines = [x.strip() for x in fn.splitlines()]
        at = next(i for i, x in enumerate(lines) if "V_OR_B32" in x)
        before[lines[0].strip()] = lines[at - 1]
    assert before == {"short_first": "S_NOP 4", "long_first": "$exec = S_OR_B64 $exec, $sgpr0_sgpr1, implicit-def $scc"}


@needs_clang
def test_planted_missing_mfma_nop_is_caught():
    """LLVM's s_nop 5 before a store of an MFMA result deleted: the store's own hazard, no
    branch on the way and no word of LLVM's bug."""
    module, dims, text = _asm("sgemm.gemm", "gfx942", "step7", 257, 131, 95)
    edited = text.replace("\ts_nop 5\n", "", 1)
    assert edited != text
    with pytest.raises(GemmcError, match=r"global_store_dword.*reads v\d+ 12 wait states after the "
                       r"v_mfma_f32_32x32x2_f32 writing v\[\d+:\d+\]; needs 18 \(missing s_nop\); the MFMA is at "
                       r"line \d+$"):
        check_asm(module, "gfx942", dims, text=edited, path="edited.s")


@needs_clang
def test_planted_lds_read_off_by_one_fails():
    """One LDS read of LLVM's a dword off (its offset + 4): C is wrong, or the interpreter
    refuses the access (misaligned, out of bounds); either way not a PASS."""
    from gemmc.amdgcn.interp import GcnInterpError

    module, dims, text = _asm("sgemm.gemm", "gfx942", None, 33, 21, 13)
    m = re.search(r"\tds_read_b(32) (\S+), (v\d+) offset:(\d+)\n", text)
    assert m is not None
    edited = text.replace(m.group(0), f"\tds_read_b{m.group(1)} {m.group(2)}, {m.group(3)} offset:{int(m.group(4)) + 4}\n", 1)
    try:
        passed = check_asm(module, "gfx942", dims, text=edited, path="edited.s").passed
    except GcnInterpError:
        passed = False
    assert not passed


@needs_clang
def test_cli_level_asm(capsys):
    from gemmc.driver.cli import main

    rc = main(["run", str(ROOT / "examples/sgemm.gemm"), "--arch", "gfx942", "-p", "step1", "-D", "M=20",
               "-D", "N=9", "-D", "K=7", "--level", "asm"])
    assert rc == 0 and capsys.readouterr().out.startswith("PASS")


@needs_clang
def test_cli_dynamic_launcher_level_asm(capsys):
    """gemm_alpha_beta with its dims dynamic (--dynamic: -D at launch only): the launcher of
    gemmc.driver.dispatch and its three kernels in one assembly file; 67x35x19 leaves gfx1201's
    128 slots idle, so the launcher runs the stream-k variant (its init kernel, then the walk)."""
    from gemmc.driver.cli import main

    rc = main(["run", str(ROOT / "examples/gemm_alpha_beta.gemm"), "--arch", "gfx1201", "--dynamic", "-D", "M=67",
               "-D", "N=35", "-D", "K=19", "--level", "asm", "--stats"])
    out = capsys.readouterr().out
    assert rc == 0 and out.startswith("PASS"), out
    assert re.search(r"kernel_launches\s+2\n", out)


def _device_library():
    from gemmc.amdgcn.asm_front.foreign import have_device_library

    return have_device_library()


@needs_clang
@pytest.mark.skipif(not SEED.is_dir() or not _device_library(), reason="no tutorial sources or no ockl.bc")
@pytest.mark.parametrize("hip,kernel,tile,block,arch", [
    ("matrix_multiply_naive.hip", "matrix_multiply_naive", 16, 16, "gfx942"),
    ("matrix_multiply_lds.hip", "matrix_multiply_lds", 16, 16, "gfx1100"),
    ("matrix_multiply_register_tiling.hip", "matrix_multiply_register_tiling", 128, 16, "gfx1201"),
])
def test_tutorial_kernels_pass(hip, kernel, tile, block, arch):
    from gemmc.amdgcn.asm_front.foreign import compile_hip

    prog = load(hip, compile_hip(str(SEED / hip), arch), arch)
    n = 128 if tile == 128 else 48  # (the tutorial's kernels take whole tiles)
    rng = np.random.default_rng(2)
    a, b = rng.standard_normal((n, n)).astype(np.float32), rng.standard_normal((n, n)).astype(np.float32)
    c = np.zeros((n, n), np.float32)
    run(prog, kernel, (n // tile, n // tile), (block, block), [a, b, c, np.int32(n), np.int32(n), np.int32(n)])
    ref = a.astype(np.float64) @ b.astype(np.float64)
    bound = n * 2.0 ** -23 * (np.abs(a).astype(np.float64) @ np.abs(b).astype(np.float64))
    assert np.all(np.abs(c - ref) <= bound)


_FENCES = """#include <hip/hip_runtime.h>
__global__ void barrier_only(float *x) {
    __shared__ float t[64];
    t[threadIdx.x] = x[threadIdx.x];
    __syncthreads();
    x[threadIdx.x] = t[63 - threadIdx.x];
}
__global__ void device_fence(float *x) {
    x[threadIdx.x] = 1.0f;
    __threadfence();
    x[threadIdx.x + 64] = 2.0f;
}
"""


@needs_clang
@pytest.mark.skipif(not _device_library(), reason="no ockl.bc")
def test_foreign_hip_fences_have_the_scope_hips_headers_ask_for(tmp_path):
    """__syncthreads' fences are workgroup-scope (HIP's __work_group_barrier with
    __memory_scope_work_group, ROCm's awif.cl): on gfx942 no L2 writeback or invalidate around the
    barrier, as hipcc builds it; __threadfence (device scope) keeps them."""
    from gemmc.amdgcn.asm_front.foreign import compile_hip

    src = tmp_path / "fences.hip"
    src.write_text(_FENCES)
    text = compile_hip(str(src), "gfx942")
    bodies = {name: body for name, body in re.findall(r"^(\w+):[^\n]*\n(.*?)s_endpgm", text, re.M | re.S)
              if name in ("_Z12barrier_onlyPf", "_Z12device_fencePf")}
    assert "s_barrier" in bodies["_Z12barrier_onlyPf"]
    assert not re.search(r"buffer_wbl2|buffer_inv", bodies["_Z12barrier_onlyPf"])
    assert re.search(r"buffer_wbl2 sc1", bodies["_Z12device_fencePf"])


@needs_clang
def test_the_coverage_table_is_current():
    """docs/amdgcn-asm-coverage.md is written by scripts/asm_sweep.py; two of its rows made again here
    (the whole table compiles every kernel: the script's job) must read as the doc does."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("asm_sweep", ROOT / "scripts" / "asm_sweep.py")
    sweep = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sweep)
    doc = (ROOT / "docs" / "amdgcn-asm-coverage.md").read_text()
    sgemm, _ = sweep.module_for(ROOT / "examples" / "sgemm.gemm", "gfx942", None, sweep.SHAPES[0])
    for label, path, text in [("triton matmul gfx942", str(sweep.TRITON), sweep.TRITON.read_text()),
                              ("sgemm default gfx942", "<sgemm default gfx942>", gemmc.emit(sgemm, "gfx942", "asm"))]:
        ops = sweep.kernel_opcodes(path, text)
        bad = sorted(m for m, (_, why) in ops.items() if why)
        assert sweep.table_row(label, len(ops), len(ops) - len(bad), bad) in doc.splitlines(), label
