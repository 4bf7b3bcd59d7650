"""gemmc's own AMDGCN backend (docs/amdgcn.md): the dialect, lower-to-amdgcn, amdgcn-regalloc,
insert-waitcnt, amdgcn-finalize, the assembly (llvm-mc), and the amdgcn interpreter against numpy."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gemmc
from gemmc.amdgcn import GCN_PIPELINE, GCN_PREPARE
from gemmc.driver.gcn import emit_gcn
from gemmc.amdgcn.interp import GcnInterpError
from gemmc.amdgcn.interp import check as gcn_check
from gemmc import parse_ir, print_ir
from gemmc.support.diagnostics import GemmcError
from gemmc.dialects.amdgcn.instructions import GcnInstruction, instr, is_matrix, is_mfma, is_wmma
from gemmc.dialects.amdgcn.kernel import KernelOp
from gemmc.dialects.amdgcn.pseudo import ConstantOp
from gemmc.dialects.amdgcn.registers import AGPRType, SGPRType, VGPRType

ARCHS = ["gfx942", "gfx1100", "gfx1201"]
STEPS = [f"step{i}" for i in range(1, 7)]
SGEMM = "examples/sgemm.gemm"
NT = "examples/gemm_alpha_beta.gemm"  # dynamic dims, alpha, beta, B transposed
MC = shutil.which("llvm-mc-22") or shutil.which("llvm-mc")


def lowered(path: str, pipeline: str, arch: str, defines: dict | None = None, gcn: str = GCN_PIPELINE):
    m = gemmc.parse_file(path, defines=defines)
    gemmc.lower(m, f"{pipeline},{gcn}" if gcn else pipeline, arch)
    return m


def k_loop(asm: str) -> str:
    """The K loop's lines of an emitted kernel (amdgcn-finalize marks them)."""
    return asm[asm.index("; k_loop begin"):asm.index("; k_loop end")]


def kernel(m) -> KernelOp:
    return next(op for op in m.walk() if isinstance(op, KernelOp))


# -- the emitted assembly ---------------------------------------------------------------------------


@pytest.mark.skipif(MC is None, reason="llvm-mc (LLVM 22) is not installed")
@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("step", STEPS)
def test_every_step_assembles_and_links(step, arch, tmp_path):
    from gemmc.amdgcn.toolchain import assemble

    m = gemmc.parse_file(SGEMM)
    gemmc.lower(m, step, arch)
    asm = emit_gcn(m, arch)
    assert f'.amdgcn_target "amdgcn-amd-amdhsa--{arch}"' in asm
    assert ".amdhsa_kernel sgemm" in asm and "amdhsa.kernels:" in asm
    # the waits are encodable on this arch (llvm-mc checks too)
    lgkm_max = 15 if arch == "gfx942" else 63
    assert all(int(n) <= lgkm_max for n in re.findall(r"lgkmcnt\((\d+)\)", asm))
    assert all(int(n, 16) <= 63 for n in re.findall(r"s_wait_dscnt 0x([0-9a-f]+)", asm))
    hsaco = assemble(asm, arch)
    assert hsaco[:4] == b"\x7fELF"


@pytest.mark.skipif(MC is None, reason="llvm-mc (LLVM 22) is not installed")
@pytest.mark.parametrize("arch", ARCHS)
def test_dynamic_dims_assemble_with_64bit_addresses(arch):
    from gemmc.amdgcn.toolchain import assemble

    m = gemmc.parse_file(NT)
    gemmc.lower(m, "step1", arch)
    asm = emit_gcn(m, arch)
    assert re.search(r"v_mad_(co_)?u64_u32 v\[\d+:\d+\], (vcc|null), ", asm)
    assert re.search(r"global_load_(dword|b32) v\d+, v\[\d+:\d+\], off", asm)
    assert assemble(asm, arch, link=False)[:4] == b"\x7fELF"


def test_gfx12_waits_barriers_and_spellings():
    """gfx1201: a wait instruction per counter, the split barrier, s_wait_alu for the SGPR read
    hazards, gfx12's v_mad_co_u64_u32."""
    asm = emit_gcn(lowered(SGEMM, "step2", "gfx1201"), "gfx1201")
    assert "s_waitcnt" not in asm and "lgkmcnt" not in asm
    assert re.search(r"s_wait_dscnt 0x0\n\ts_barrier_signal -1\n\ts_barrier_wait -1\n", asm)
    assert "s_wait_loadcnt 0x0" in asm and "s_wait_kmcnt 0x0" in asm and "s_wait_alu depctr_sa_sdst(0)" in asm
    dyn = emit_gcn(lowered(NT, "step1", "gfx1201"), "gfx1201")
    assert "v_mad_co_u64_u32" in dyn


def test_missing_wait_alu_is_an_error():
    """Each s_wait_alu amdgcn-finalize puts in the step-2 kernel on gfx1201 is needed: without
    it, a read sees an SGPR an SALU wrote after a VALU had read it."""
    dims = {"M": 64, "N": 64, "K": 32}
    m = lowered(SGEMM, "step2", "gfx1201", dims)
    assert gcn_check(m, "gfx1201", dims).passed
    wait = next(op for op in kernel(m).body.block.ops if isinstance(op, GcnInstruction) and op.MNEMONIC == "s_wait_alu")
    wait.detach()
    wait.erase()
    with pytest.raises(GcnInterpError, match=r"reads s\d+, which an SALU instruction wrote after a VALU read it, "
                                              r"with no s_wait_alu depctr_sa_sdst\(0\) between"):
        gcn_check(m, "gfx1201", dims)


def test_gfx11_spellings_and_wave32():
    asm = emit_gcn(lowered(SGEMM, "step2", "gfx1100", gcn=""), "gfx1100")
    assert "ds_load_b128" in asm and "ds_store_b32" in asm and "global_load_b32" in asm
    assert "s_and_saveexec_b32" in asm and "exec_lo" in asm and ".amdhsa_wavefront_size32 1" in asm
    assert "v_add_nc_u32_e32" in asm and "global_load_dword" not in asm


# -- the interpreter against numpy ------------------------------------------------------------------


def _run(path, step, arch, dims, dynamic=False, gcn=GCN_PIPELINE):
    m = lowered(path, step, arch, defines=None if dynamic else dims, gcn=gcn)
    r = gcn_check(m, arch, dims, seed=dims["M"] * 7 + dims["K"])
    assert r.passed, f"{step} {arch} {dims}: {r.summary()}"


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    step=st.sampled_from(STEPS),
    arch=st.sampled_from(ARCHS),
    m=st.integers(1, 80),
    n=st.integers(1, 80),
    k=st.integers(1, 24),
)
def test_interpreter_matches_numpy_at_random_shapes(step, arch, m, n, k):
    _run(SGEMM, step, arch, {"M": m, "N": n, "K": k})


@pytest.mark.parametrize("step, arch", [("step4", "gfx942"), ("step6", "gfx1100")])
def test_odd_sizes_with_rolled_loops_pass(step, arch):
    """unroll-loops{limit=2} keeps the K loop, the copy loops and the kk loop rolled: nested scalar
    loops carrying the 8x8 register tile (promote-private's iter_args)."""
    _run(SGEMM, step, arch, {"M": 131, "N": 67, "K": 37},
         gcn=GCN_PIPELINE.replace("unroll-loops", "unroll-loops{limit=2}"))


def test_sixty_four_bit_addresses_without_combining_or_hoisting():
    """saddr=false on static sizes: 64-bit addresses everywhere.  (Found by a random sweep: the
    kernel-argument range's aliases nest in its live range, which the allocator once mishandled.)"""
    _run(SGEMM, "step4", "gfx942", {"M": 145, "N": 21, "K": 35},
         gcn=GCN_PIPELINE.replace("lower-to-amdgcn", "lower-to-amdgcn{saddr=false hoist-loads=0 combine-loads=false}"))


@pytest.mark.parametrize("step, arch", [("step5", "gfx942"), ("step6", "gfx1100")])
def test_vectorized_copies_pass(step, arch):
    """Sizes that are multiples of 4 let vectorize{width=4} apply: dwordx4 loads, ds_write_b128."""
    m = lowered(SGEMM, step, arch, {"M": 68, "N": 36, "K": 20})
    instrs = {op.MNEMONIC for op in kernel(m).body.block.ops if isinstance(op, GcnInstruction)}
    assert "global_load_dwordx4_saddr" in instrs and "ds_write_b128" in instrs
    assert gcn_check(m, arch, {}).passed


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("step", ["step1", "step3"])
def test_dynamic_dims_alpha_beta_transposed(step, arch):
    _run(NT, step, arch, {"M": 37, "N": 29, "K": 23}, dynamic=True)


def test_interpreter_counts_what_it_executes():
    m = lowered(SGEMM, "step3", "gfx942", {"M": 128, "N": 128, "K": 32})
    r = gcn_check(m, "gfx942", {})
    st = r.stats
    assert r.passed and st.kernel_launches == 1 and st.threads == 256
    assert st.flops == 2 * 128 * 128 * 32  # one fma per k per element of C
    assert st.global_store_bytes == 4 * 128 * 128 and st.global_load_bytes == 4 * (128 * 32 + 32 * 128)
    assert st.barriers == 4 and st.lds_load_instrs < st.lds_load_bytes // (4 * 64)  # combined ds_read_b128


# -- MFMA (gfx942, f32): step 7 and the default pipeline ------------------------------------------

STEP7_X4 = ("gemm-to-kernel,lds-tiling{block-m=128 block-n=128 block-k=16},"
                          "register-tiling{thread-m=8 thread-n=8},double-buffer,vectorize{width=4},"
                          "mfma-lowering{instr=v_mfma_f32_16x16x4_f32}")


F16 = "step6,matrix-cores{convert=f16}"
BF16 = "step6,matrix-cores{convert=bf16}"


@pytest.mark.parametrize("pipeline, dims, arch", [
    ("step7", {"M": 160, "N": 96, "K": 72}, "gfx942"),  # the K loop unrolled (5 tiles)
    ("step7", {"M": 257, "N": 131, "K": 95}, "gfx942"),  # no multiple of anything: guarded copies and stores
    ("step7", {"M": 64, "N": 64, "K": 300}, "gfx942"),  # a scalar K loop carrying the 16-register accumulators
    (STEP7_X4, {"M": 160, "N": 96, "K": 72}, "gfx942"),  # v_mfma_f32_16x16x4_f32: 16 accumulators of 4
    ("step7", {"M": 100, "N": 70, "K": 40}, "gfx950"),  # gfx942's MFMA facts on CDNA4
    (F16, {"M": 257, "N": 131, "K": 95}, "gfx942"),  # f16 fragments: the XDL v_mfma_f32_32x32x8_f16
    (F16, {"M": 64, "N": 64, "K": 300}, "gfx942"),
    (F16, {"M": 100, "N": 70, "K": 40}, "gfx90a"),  # v_mfma_f32_32x32x8f16, gfx90a's wait states
    (BF16, {"M": 257, "N": 131, "K": 95}, "gfx942"),  # bf16 fragments: integer rounding, XDL too
])
def test_mfma_program_passes(pipeline, dims, arch):
    m = lowered(SGEMM, pipeline, arch, dims)
    instrs = [op for op in kernel(m).body.block.ops if isinstance(op, GcnInstruction)]
    assert any(is_mfma(op) for op in instrs)
    r = gcn_check(m, arch, dims)
    assert r.passed, r.summary()
    assert r.stats.matrix_instrs > 0 and r.stats.flops >= 2 * dims["M"] * dims["N"] * dims["K"]


AGPR = GCN_PIPELINE.replace("lower-to-amdgcn", "lower-to-amdgcn{accumulators=agpr}")


@pytest.mark.parametrize("arch, dims", [
    ("gfx942", {"M": 257, "N": 131, "K": 95}), ("gfx942", {"M": 64, "N": 64, "K": 300}),
    ("gfx90a", {"M": 100, "N": 70, "K": 40}),  # gfx90a's spelling (v_mfma_f32_32x32x2f32), its wait states
])
def test_mfma_with_agpr_accumulators_passes(arch, dims):
    m = lowered(SGEMM, "step7", arch, dims, gcn=AGPR)
    k = kernel(m)
    mfma = next(op for op in k.body.block.ops if is_mfma(op))
    assert isinstance(mfma.dsts[0].type, AGPRType) and k.int_attr("agprs") == 64
    assert gcn_check(m, arch, dims).passed


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(m=st.integers(1, 140), n=st.integers(1, 140), k=st.integers(1, 40))
def test_mfma_program_passes_at_random_shapes(m, n, k):
    _run(SGEMM, "step7", "gfx942", {"M": m, "N": n, "K": k})


def test_default_pipeline_is_mfma_and_passes():
    from gemmc.target.arch import get_arch
    from gemmc.driver.pipeline import default_pipeline

    dims = {"M": 130, "N": 70, "K": 40}
    m = lowered(SGEMM, default_pipeline(get_arch("gfx942")), "gfx942", dims)
    ops = list(kernel(m).body.block.ops)
    assert any(is_mfma(op) for op in ops)
    assert any(op.name == "amdgcn.v_xor_b32" for op in ops)  # the swizzled LDS columns (swizzle-lds)
    assert gcn_check(m, "gfx942", dims).passed


@pytest.mark.skipif(MC is None, reason="llvm-mc (LLVM 22) is not installed")
def test_mfma_kernel_assembles_and_links():
    from gemmc.amdgcn.toolchain import assemble

    m = gemmc.parse_file(SGEMM)
    gemmc.lower(m, "step7", "gfx942")
    asm = emit_gcn(m, "gfx942")
    loop = k_loop(asm)
    accs = re.findall(r"v_mfma_f32_32x32x2_f32 v\[(\d+):(\d+)\], v\d+, v\d+, v\[\1:\2\]\n", loop)
    assert len(accs) == 32  # every MFMA accumulates in place
    moved = {int(r) for r in re.findall(r"v_mov_b32_e32 v(\d+),", loop)}
    assert not any(int(lo) <= r <= int(hi) for lo, hi in accs for r in moved)  # and nothing copies them
    assert assemble(asm, "gfx942")[:4] == b"\x7fELF"
    agpr = emit_gcn(lowered(SGEMM, "step7", "gfx942", gcn=AGPR), "gfx942")
    assert ".amdhsa_accum_offset 40" in agpr and ".amdhsa_next_free_vgpr 104" in agpr  # 40 VGPRs, 64 AGPRs
    assert assemble(agpr, "gfx942")[:4] == b"\x7fELF"


def test_xdl_wait_states():
    """gfx942's f16 MFMAs are XDL (LLVM's GFX940_XDL_N_Pass* numbers), its f32 ones are not;
    gfx90a's numbers go by passes alone."""
    from gemmc.target.arch import get_arch, get_gcn_isa, get_matrix_instr

    isa = get_gcn_isa(get_arch("gfx942"))
    f16 = get_matrix_instr(get_arch("gfx942"), "v_mfma_f32_32x32x8_f16")  # 8 passes
    f32 = get_matrix_instr(get_arch("gfx942"), "v_mfma_f32_32x32x2_f32")  # 16 passes
    assert [isa.mfma_wait_states(f16, c) for c in ("read", "write", "srcab", "srcc_overlap", "srcc_same", "war")] \
        == [11, 11, 11, 9, 0, 7]
    assert [isa.mfma_wait_states(f32, c) for c in ("read", "srcab", "srcc_overlap", "war")] == [18, 18, 16, 0]
    isa90 = get_gcn_isa(get_arch("gfx90a"))
    f16_90 = get_matrix_instr(get_arch("gfx90a"), "v_mfma_f32_32x32x8f16")  # 16 passes
    assert [isa90.mfma_wait_states(f16_90, c) for c in ("read", "srcab", "war")] == [19, 19, 15]
    # gfx950: one more than gfx942 from 4 passes up (read, write, srcab), one more as an overlapping SrcC
    isa950 = get_gcn_isa(get_arch("gfx950"))
    x8 = get_matrix_instr(get_arch("gfx950"), "v_mfma_f32_32x32x16_f16")  # 8 passes
    x4 = get_matrix_instr(get_arch("gfx950"), "v_mfma_f32_16x16x32_bf16")  # 4 passes
    assert [isa950.mfma_wait_states(x8, c) for c in ("read", "write", "srcab", "srcc_overlap", "srcc_same", "war")] \
        == [12, 12, 12, 10, 0, 7]
    assert [isa950.mfma_wait_states(x4, c) for c in ("read", "srcab", "srcc_overlap", "war")] == [8, 8, 6, 3]
    assert [isa950.mfma_wait_states(get_matrix_instr(get_arch("gfx950"), "v_mfma_f32_32x32x2_f32"), c)
            for c in ("read", "srcab", "war")] == [18, 18, 0]  # f32: not XDL, as on gfx942


def test_missing_mfma_nop_is_an_error():
    """K=16: the epilogue's first store reads an MFMA result within 18 wait states; with the
    s_nop amdgcn-finalize put there one wait state short, or without it, the interpreter stops
    (the MFMA's own issue is no wait state: LLVM's getWaitStatesSince counts those between)."""
    from xdsl.dialects.builtin import IntegerAttr, i32

    m = lowered(SGEMM, "step7", "gfx942", {"M": 64, "N": 64, "K": 16})
    ops = list(kernel(m).body.block.ops)
    store = next(i for i, op in enumerate(ops) if isinstance(op, GcnInstruction) and op.MNEMONIC.startswith("global_store"))
    nop = ops[store - 1]
    assert isinstance(nop, GcnInstruction) and nop.MNEMONIC == "s_nop" and nop.mods["imm"] > 0
    assert gcn_check(m, "gfx942", {}).passed
    nop.attributes["imm"] = IntegerAttr(nop.mods["imm"] - 1, i32)
    with pytest.raises(GcnInterpError, match=r"reads v\d+ 17 wait states after the v_mfma_f32_32x32x2_f32 writing "
                                              r"v\[\d+:\d+\]; needs 18 \(missing s_nop\)"):
        gcn_check(m, "gfx942", {})
    nop.detach()
    nop.erase()
    with pytest.raises(GcnInterpError, match=r"reads v\d+ \d+ wait states after the v_mfma_f32_32x32x2_f32 writing "
                                              r"v\[\d+:\d+\]; needs 18 \(missing s_nop\)"):
        gcn_check(m, "gfx942", {})


def test_early_agpr_read_is_an_error():
    """AGPR accumulators: v_accvgpr_read_b32 of C right after the K loop needs the MFMA's 18 wait
    states too (at 4096^3 amdgcn-finalize puts s_nop 3 before it)."""
    m = lowered(SGEMM, "step7", "gfx942", {"M": 64, "N": 64, "K": 32}, gcn=AGPR)
    ops = list(kernel(m).body.block.ops)
    read = next(i for i, op in enumerate(ops) if isinstance(op, GcnInstruction) and op.MNEMONIC == "v_accvgpr_read_b32")
    assert ops[read - 1].MNEMONIC == "s_nop"  # type: ignore[attr-defined]
    ops[read - 1].detach()
    ops[read - 1].erase()
    with pytest.raises(GcnInterpError, match=r"reads a\d+ \d+ wait states after the v_mfma_f32_32x32x2_f32 writing "
                                              r"a\[\d+:\d+\]; needs 18"):
        gcn_check(m, "gfx942", {})


@pytest.mark.parametrize("text, message", [
    ("(!amdgcn.vgpr<v0>, !amdgcn.vgpr<v1>, !amdgcn.vgpr<v[4:19]>) -> !amdgcn.vgpr<v[8:23]>",
     "result v[8:23] partly overlaps the accumulator v[4:19]"),
    ("(!amdgcn.vgpr<v0>, !amdgcn.vgpr<v1>, !amdgcn.vgpr<v[4:7]>) -> !amdgcn.vgpr<v[4:7]>",
     "operand 2 is 16 register(s) wide, not 4"),
    ("(!amdgcn.vgpr<v0>, !amdgcn.vgpr<v1>, !amdgcn.agpr<a[0:15]>) -> !amdgcn.vgpr<v[4:19]>",
     "the accumulator and the result are in one register file"),
    ("(!amdgcn.sgpr<s0>, !amdgcn.vgpr<v1>, !amdgcn.vgpr<v[4:19]>) -> !amdgcn.vgpr<v[4:19]>",
     "operand 0 must be amdgcn.vgpr/amdgcn.agpr"),
])
def test_mfma_verifier(text, message):
    types = text.split(" -> ")[0][1:-1].split(", ")
    args = ", ".join(f"%a{i}: {t}" for i, t in enumerate(types))
    src = (f"func.func @f({args}) {{\n  %d = amdgcn.v_mfma_f32_32x32x2_f32 %a0, %a1, %a2 : {text}\n"
           "  func.return\n}")
    with pytest.raises(Exception, match=re.escape(message)):
        parse_ir(src).verify()



# -- 16-bit kernels: f16 / bf16 buffers on the matrix cores (the default pipeline) ---------------------

HGEMM = "examples/hgemm.gemm"  # A f16 column-major, B f16, C f32
GCN_ARCHS = ["gfx90a", "gfx942", "gfx950", "gfx1100", "gfx1201"]
X32_GFX950 = ("gemm-to-kernel,lds-tiling{block-m=128 block-n=128 block-k=32},register-tiling{thread-m=8 thread-n=8},"
              "matrix-cores{instr=v_mfma_f32_16x16x32_f16},double-buffer,vectorize{width=4 peel=false},lower-copies,"
              "swizzle-lds{strict=false}")  # scalar copies at odd rows, as gcn_default_pipeline has them on wave64


def _default(arch: str, in_type: str = "f16") -> str:
    from gemmc.target.arch import get_arch
    from gemmc.driver.pipeline import gcn_default_pipeline

    return gcn_default_pipeline(get_arch(arch), in_type)


def _gemm16(tmp_path, t: str, c: str) -> str:
    """A .gemm of t inputs (A row-major) and a C of type c."""
    path = tmp_path / f"g_{t}_{c}.gemm"
    path.write_text(f"kernel g16 {{\n dim M = 64, N = 64, K = 64\n A: {t}[M, K]\n B: {t}[K, N]\n C: {c}[M, N]\n"
                    f" acc f32\n C = A @ B\n}}\n")
    return str(path)


@pytest.mark.parametrize("arch", GCN_ARCHS)
def test_hgemm_default_pipeline_passes(arch):
    """examples/hgemm.gemm at odd sizes: guarded global_load_ushort copies, ds_write_b16 into the
    tiles, 16-bit MFMA / WMMA fragments from LDS; each element of A and B is read once (2 bytes)."""
    dims = {"M": 67, "N": 45, "K": 37}
    m = lowered(HGEMM, _default(arch), arch, dims)
    ops = [op for op in kernel(m).body.block.ops if isinstance(op, GcnInstruction)]
    names = {op.MNEMONIC for op in ops}
    assert {"global_load_ushort_saddr", "ds_write_b16"} <= names
    assert any(is_matrix(op) and "f16" in op.MNEMONIC for op in ops)  # (gfx90a: v_mfma_f32_32x32x8f16)
    r = gcn_check(m, arch, dims)
    assert r.passed, r.summary()
    assert r.stats.global_load_bytes == 2 * (67 * 37 + 37 * 45) and r.stats.global_store_bytes == 4 * 67 * 45


@pytest.mark.parametrize("t, c, arch, dims", [
    ("f16", "f16", "gfx942", {"M": 67, "N": 45, "K": 37}),  # C rounded by v_cvt_f16_f32, global_store_short
    ("bf16", "bf16", "gfx950", {"M": 67, "N": 45, "K": 37}),  # v_mfma_f32_32x32x16_bf16; C by integer rounding
    ("f16", "f16", "gfx1100", {"M": 132, "N": 68, "K": 40}),  # vectorized copies: dword loads, ds_write_b64
    ("bf16", "f32", "gfx1201", {"M": 132, "N": 68, "K": 40}),
    ("f16", "f32", "gfx90a", {"M": 132, "N": 68, "K": 40}),
])
def test_16bit_kernels_pass(tmp_path, t, c, arch, dims):
    m = lowered(_gemm16(tmp_path, t, c), _default(arch), arch, dims)
    names = {op.MNEMONIC for op in kernel(m).body.block.ops if isinstance(op, GcnInstruction)}
    assert ("global_store_short_saddr" in names) == (c != "f32")
    r = gcn_check(m, arch, dims)
    assert r.passed, r.summary()


@pytest.mark.parametrize("arch", ["gfx942", "gfx1201"])
def test_hgemm_vectorized_copies_pass(arch):
    """Sizes that are multiples of 4: A's copy (column-major, into the transposed tile) loads 4
    f16 as one global_load_dwordx2 and stores them one by one, the odd ones from the high half."""
    dims = {"M": 132, "N": 68, "K": 40}
    m = lowered(HGEMM, _default(arch), arch, dims)
    names = {op.MNEMONIC for op in kernel(m).body.block.ops if isinstance(op, GcnInstruction)}
    assert {"global_load_dwordx2_saddr", "ds_write_b16", "ds_write_b16_d16_hi"} <= names
    assert gcn_check(m, arch, dims).passed


@pytest.mark.parametrize("t, arch, step", [("f16", "gfx942", "default"), ("bf16", "gfx950", "default"),
                                           ("f16", "gfx1201", "step1"), ("bf16", "gfx1100", "step3")])
def test_16bit_dynamic_dims_alpha_beta_transposed(tmp_path, t, arch, step):
    """examples/gemm_alpha_beta.gemm with 16-bit buffers: 64-bit addresses (dynamic sizes), beta * C
    reading C (arith.extf: v_cvt_f32_f16, or the bf16 bits shifted up) and storing it rounded."""
    path = tmp_path / f"nt_{t}.gemm"
    path.write_text(open(NT).read().replace("f32[", f"{t}["))
    _run(str(path), _default(arch) if step == "default" else step, arch, {"M": 37, "N": 29, "K": 23}, dynamic=True)


@pytest.mark.skipif(MC is None, reason="llvm-mc (LLVM 22) is not installed")
@pytest.mark.parametrize("arch", GCN_ARCHS)
def test_hgemm_code_object_on_every_arch(tmp_path, arch):
    """`gemmc compile examples/hgemm.gemm --arch A --emit gcn-hsaco` (1024^3, the default pipeline), and
    the f16 alpha/beta kernel at step 1 (v_cvt_f32_f16 of C, global_store_short): llvm-mc takes the
    16-bit spellings of every generation."""
    out = tmp_path / "k.hsaco"
    r = _gemmc("compile", HGEMM, "--arch", arch, "--emit", "gcn-hsaco", "-o", str(out))
    assert r.returncode == 0, r.stderr
    assert out.read_bytes()[:4] == b"\x7fELF"
    nt = tmp_path / "nt16.gemm"
    nt.write_text(open(NT).read().replace("f32[", "f16["))
    r = _gemmc("compile", str(nt), "--arch", arch, "-p", "step1", "--emit", "gcn-hsaco", "-o", str(out))
    assert r.returncode == 0, r.stderr


def test_gfx950_16x16x32_mfma_passes():
    dims = {"M": 67, "N": 45, "K": 70}
    m = lowered(HGEMM, X32_GFX950, "gfx950", dims)
    assert any(op.MNEMONIC == "v_mfma_f32_16x16x32_f16" for op in kernel(m).body.block.ops if is_matrix(op))
    assert gcn_check(m, "gfx950", dims).passed


@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(m=st.integers(1, 140), n=st.integers(1, 140), k=st.integers(1, 40), arch=st.sampled_from(GCN_ARCHS))
def test_hgemm_passes_at_random_shapes(m, n, k, arch):
    _run(HGEMM, _default(arch), arch, {"M": m, "N": n, "K": k})


BLOCKS = ("gemm-to-kernel,lds-tiling{block-m=64 block-n=64 block-k=16},register-tiling{thread-m=4 thread-n=4},"
          "matrix-cores{frag-read=0},vectorize{width=4 row-lanes=4 blocks=true},double-buffer{stage=registers},"
          "lower-copies,swizzle-lds{strict=false rows=0}")


@pytest.mark.parametrize("t, arch", [("f16", "gfx942"), ("bf16", "gfx1201"), ("f16", "gfx90a"), ("bf16", "gfx950")])
def test_blocks_transposed_by_v_perm_pass(tmp_path, t, arch):
    """vectorize{blocks=true} (the 16-bit defaults' copies): each 4x4 block's columns put together
    by v_perm_b32 from two rows' dwords, stored by ds_write_b64; A column-major and B row-major
    both go through it."""
    path = tmp_path / f"h_{t}.gemm"
    path.write_text(open(HGEMM).read().replace("f16[", f"{t}["))
    dims = {"M": 132, "N": 68, "K": 40}
    m = lowered(str(path), BLOCKS, arch, dims)
    names = [op.MNEMONIC for op in kernel(m).body.block.ops if isinstance(op, GcnInstruction)]
    assert "v_perm_b32" in names and ("ds_write_b64" in names or "ds_store_b64" in names)
    r = gcn_check(m, arch, dims)
    assert r.passed, r.summary()


@pytest.mark.skipif(MC is None, reason="llvm-mc (LLVM 22) is not installed")
@pytest.mark.parametrize("arch", ["gfx942", "gfx1201"])
def test_blocks_code_object(tmp_path, arch):
    """llvm-mc takes v_perm_b32 (VOP3; gfx9 without a literal: the selector from an SGPR)."""
    out = tmp_path / "k.hsaco"
    r = _gemmc("compile", HGEMM, "--arch", arch, "-D", "M=256", "-D", "N=256", "-D", "K=64", "-p", BLOCKS,
               "--emit", "gcn-hsaco", "-o", str(out))
    assert r.returncode == 0, r.stderr
    assert out.read_bytes()[:4] == b"\x7fELF"


@pytest.mark.parametrize("arch", GCN_ARCHS)
def test_the_16bit_defaults_pass(arch):
    """The kernels `gemmc compile` runs for hgemm (MATRIX_16BIT_DEFAULTS: 128x256 or 256x128 tiles on
    gfx942 / gfx950; where a default copies in register blocks, `blocks=true`, the blocks transposed by
    v_perm_b32 -- gfx1201's default has none since the RDNA issue term) at rows a multiple of 4: the own
    backend takes them as they are.  (At odd rows gfx950's 256x128x32 needs more registers than its
    allocator has, which does not spill: gcn_default_pipeline keeps the type-independent default.)"""
    from gemmc.driver.pipeline import MATRIX_16BIT_DEFAULTS

    dims = {"M": 256, "N": 256, "K": 64}
    m = lowered(HGEMM, MATRIX_16BIT_DEFAULTS[arch], arch, dims)
    names = {op.MNEMONIC for op in kernel(m).body.block.ops if isinstance(op, GcnInstruction)}
    assert ("v_perm_b32" in names) == ("blocks=true" in MATRIX_16BIT_DEFAULTS[arch])
    r = gcn_check(m, arch, dims)
    assert r.passed, r.summary()


def test_a_wrong_perm_selector_fails():
    """One v_perm_b32 taking the other half of its first row (selector byte +2): FAIL."""
    from xdsl.dialects.builtin import IntegerAttr

    dims = {"M": 64, "N": 64, "K": 16}
    m = lowered(HGEMM, BLOCKS, "gfx942", dims)
    perm = next(op for op in kernel(m).body.block.ops if isinstance(op, GcnInstruction) and op.MNEMONIC == "v_perm_b32")
    user, sel = perm, perm.operands[2]
    while not isinstance(sel.owner, ConstantOp):  # (gfx9's VOP3 takes no literal: s_mov_b32 holds it)
        user, sel = sel.owner, sel.owner.operands[0]
    c = ConstantOp((sel.owner.value.value.data ^ 0x2) & 0xFFFFFFFF)
    user.parent_block().insert_op_before(c, user)
    user.operands = [c.result if x is sel else x for x in user.operands]
    assert not gcn_check(m, "gfx942", dims).passed


def test_v_perm_b32_bytes():
    """The interpreter's v_perm_b32 against the ISA's table, every selector class."""
    from gemmc.amdgcn.interp.vector_alu import v_perm_b32

    s0, s1 = np.uint64(0x8899AABB), np.uint64(0x11228344)
    def pick(k):
        both = (int(s0) << 32) | int(s1)
        signs = {8: int(s1) >> 15 & 1, 9: int(s1) >> 31 & 1, 10: int(s0) >> 15 & 1, 11: int(s0) >> 31 & 1}
        return (both >> 8 * k) & 0xFF if k < 8 else signs[k] * 0xFF if k < 12 else 0 if k == 12 else 0xFF
    for sel in ([0, 1, 2, 3], [7, 6, 5, 4], [4, 1, 12, 13], [8, 9, 10, 11], [2, 3, 6, 7]):
        word = sel[0] | sel[1] << 8 | sel[2] << 16 | sel[3] << 24
        want = sum(pick(k) << 8 * b for b, k in enumerate(sel))
        assert int(v_perm_b32(s0, s1, np.uint64(word))) == want, sel


def test_16bit_store_to_the_wrong_half_fails():
    """The interpreter holds LDS as 16-bit halves: a tile element written to the neighbouring
    half (offset + 2) gives a wrong C (or a race the interpreter stops at)."""
    from xdsl.dialects.builtin import IntegerAttr, i32

    dims = {"M": 64, "N": 64, "K": 16}
    m = lowered(HGEMM, _default("gfx942"), "gfx942", dims)
    store = next(op for op in kernel(m).body.block.ops if isinstance(op, GcnInstruction) and op.MNEMONIC == "ds_write_b16")
    store.attributes["offset"] = IntegerAttr(store.mods.get("offset", 0) + 2, i32)
    try:
        assert not gcn_check(m, "gfx942", dims).passed
    except GcnInterpError as e:
        assert "LDS race" in str(e)

def test_16bit_vector_load_not_known_aligned_is_refused():
    """A vector of 16-bit elements from global memory is read as dwords only where the offset is
    known to be a multiple of 4 bytes; here it is A[i, k] at any k: a one-line error at the op."""
    from xdsl.dialects import memref, vector
    from xdsl.dialects.builtin import VectorType

    m = lowered(HGEMM, "step1", "gfx942", {"M": 64, "N": 64, "K": 64}, gcn=GCN_PREPARE)
    load = next(op for op in m.walk() if isinstance(op, memref.LoadOp) and op.memref.name_hint == "A")
    vec = vector.LoadOp(load.memref, list(load.indices), VectorType(load.res.type, [2]))
    first = vector.ExtractOp(vec.result, [0], load.res.type)
    load.parent_block().insert_ops_before([vec, first], load)
    load.res.replace_all_uses_with(first.result)
    load.detach()
    load.erase()
    with pytest.raises(GemmcError, match=re.escape("a vector load of 2 16-bit elements from global memory is selected "
                                                   "for 2, 4 or 8 elements at an offset known to be a multiple of 4 "
                                                   "bytes (at 'vector.load' in @hgemm)")):
        gemmc.lower(m, "lower-to-amdgcn", "gfx942")

# -- FP8 kernels: FP8 buffers on the FP8 matrix instructions (the default pipeline) -------------------

FP8GEMM = "examples/fp8gemm.gemm"  # A, B f8e4m3fnuz (gfx942's FNUZ e4m3), C f32


def _gemm8(tmp_path, a: str, b: str) -> str:
    """examples/fp8gemm.gemm with A of FP8 format a and B of b."""
    text = open(FP8GEMM).read().replace("A: f8e4m3fnuz", f"A: {a}").replace("B: f8e4m3fnuz", f"B: {b}")
    path = tmp_path / f"g_{a}_{b}.gemm"
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize("a, b, arch, dims, mfma", [
    # odd sizes: guarded global_load_ubyte copies (the rows' aligned interiors global_load_dword),
    # ds_write_b8 into the swizzled tiles, 8-byte fragments by ds_read_b64
    ("f8e4m3fnuz", "f8e4m3fnuz", "gfx942", {"M": 67, "N": 45, "K": 37}, "v_mfma_f32_32x32x16_fp8_fp8"),
    ("f8e5m2fnuz", "f8e5m2fnuz", "gfx942", {"M": 257, "N": 131, "K": 96}, "v_mfma_f32_32x32x16_bf8_bf8"),
    ("f8e4m3fnuz", "f8e4m3fnuz", "gfx942", {"M": 256, "N": 128, "K": 128}, "v_mfma_f32_32x32x16_fp8_fp8"),
    ("f8e4m3fnuz", "f8e5m2fnuz", "gfx942", {"M": 67, "N": 45, "K": 37}, "v_mfma_f32_32x32x16_fp8_bf8"),
    ("f8e5m2fnuz", "f8e4m3fnuz", "gfx942", {"M": 67, "N": 45, "K": 37}, "v_mfma_f32_32x32x16_bf8_fp8"),
    # the OCP formats under the same mnemonics (gfx950), and RDNA4's FP8 WMMA
    ("f8e4m3fn", "f8e5m2", "gfx950", {"M": 67, "N": 45, "K": 37}, "v_mfma_f32_32x32x16_fp8_bf8"),
    ("f8e4m3fn", "f8e4m3fn", "gfx1201", {"M": 67, "N": 45, "K": 37}, "v_wmma_f32_16x16x16_fp8_fp8_gfx12"),
])
def test_fp8gemm_passes(tmp_path, a, b, arch, dims, mfma):
    """The own backend's FP8 kernels in the amdgcn interpreter against numpy / ml_dtypes: each element of
    A and B is read once (one byte), C written once; the MFMA variant is A's and B's formats'."""
    m = lowered(_gemm8(tmp_path, a, b), _default(arch, a), arch, dims)
    ops = [op for op in kernel(m).body.block.ops if isinstance(op, GcnInstruction)]
    names = {op.MNEMONIC for op in ops}
    assert {op.MNEMONIC for op in ops if is_matrix(op)} == {mfma}
    odd = dims["K"] % 4 != 0 or dims["N"] % 4 != 0  # (the rows of A and B)
    assert ("global_load_ubyte_saddr" in names) == odd and "global_load_dword_saddr" in names
    assert "ds_write_b8" in names and "ds_read_b64" in names or arch == "gfx1201"
    r = gcn_check(m, arch, dims)
    assert r.passed, r.summary()
    M, N, K = dims["M"], dims["N"], dims["K"]
    bm, bn = (int(re.search(f"block-{x}=([0-9]+)", _default(arch, a)).group(1)) for x in "mn")
    assert r.stats.global_load_bytes == M * K * -(-N // bn) + K * N * -(-M // bm)  # A per block column, B per row
    assert r.stats.global_store_bytes == 4 * M * N


def test_fp8_wrong_mfma_variant_fails(tmp_path):
    """The interpreter decodes each operand in the format its mnemonic says: an e5m2 kernel run on the
    e4m3 variant (v_mfma_*_fp8_fp8 for _bf8_bf8), or a mixed one with B's format wrong, fails."""
    dims = {"M": 64, "N": 64, "K": 64}
    for a, b in (("f8e5m2fnuz", "f8e5m2fnuz"), ("f8e4m3fnuz", "f8e5m2fnuz")):
        m = lowered(_gemm8(tmp_path, a, b), _default("gfx942", a), "gfx942", dims)
        assert gcn_check(m, "gfx942", dims).passed
        for op in [op for op in kernel(m).body.block.ops if is_matrix(op)]:
            wrong = instr(op.MNEMONIC[:op.MNEMONIC.index("x16_") + 4] + "fp8_fp8", list(op.srcs),
                            [r.type for r in op.dsts])
            op.parent_block().insert_op_before(wrong, op)
            op.dsts[0].replace_all_uses_with(wrong.dsts[0])
            op.detach()
            op.erase()
        assert not gcn_check(m, "gfx942", dims).passed


@pytest.mark.parametrize("planted", [False, True])
def test_fp8_fragments_from_bytes(monkeypatch, planted):
    """Where a fragment's LDS address is not known to be a multiple of 4 bytes, its 8 FP8 values are
    read by ds_read_u8 and packed four to a VGPR (v_lshl_or_b32: element 4i + b in byte b of VGPR i);
    here the alignment proof is withheld.  The same kernel with the bytes of each pair packed in the
    wrong order fails."""
    from gemmc.passes import lower_to_amdgcn as lt

    K = lt.KernelLowering
    real_addr, real_load, real_pack = K.lds_addr16, K.packed8_lds_load, K.pack_bytes
    monkeypatch.setattr(K, "lds_addr16", lambda self, op, mem, idx: (*real_addr(self, op, mem, idx)[:2], 1))
    if planted:  # A's fragments only (the same order in both would permute k in both: no change in C)
        def load(self, op, mem, idx, n):
            self.planted = op.base.name_hint == "tile_a"
            return real_load(self, op, mem, idx, n)

        monkeypatch.setattr(K, "packed8_lds_load", load)
        monkeypatch.setattr(K, "pack_bytes", lambda self, b: real_pack(self, [b[1], b[0], b[2], b[3]] if self.planted
                                                                       else b))
    dims = {"M": 67, "N": 45, "K": 37}
    m = lowered(FP8GEMM, _default("gfx942", "f8e4m3fnuz"), "gfx942", dims)
    names = {op.MNEMONIC for op in kernel(m).body.block.ops if isinstance(op, GcnInstruction)}
    assert {"ds_read_u8", "v_lshl_or_b32"} <= names and "ds_read_b64" not in names
    assert gcn_check(m, "gfx942", dims).passed != planted


@pytest.mark.skipif(MC is None, reason="llvm-mc (LLVM 22) is not installed")
@pytest.mark.parametrize("a, b, arch", [("f8e4m3fnuz", "f8e4m3fnuz", "gfx942"), ("f8e5m2fnuz", "f8e4m3fnuz", "gfx942"),
                                        ("f8e4m3fn", "f8e5m2", "gfx950"), ("f8e4m3fn", "f8e4m3fn", "gfx1201")])
def test_fp8gemm_code_object(tmp_path, a, b, arch):
    """`gemmc compile examples/fp8gemm.gemm --arch gfx942 --emit gcn-hsaco` (1024^3) and the other formats
    at odd sizes: llvm-mc takes the byte accesses and the FP8 matrix instructions."""
    out = tmp_path / "k.hsaco"
    src = FP8GEMM if a == b == "f8e4m3fnuz" else _gemm8(tmp_path, a, b)
    extra = [] if src == FP8GEMM else ["-D", "M=67", "-D", "N=45", "-D", "K=37"]
    r = _gemmc("compile", src, "--arch", arch, "--emit", "gcn-hsaco", "-o", str(out), *extra)
    assert r.returncode == 0, r.stderr
    assert out.read_bytes()[:4] == b"\x7fELF"


def test_fp8_vector_load_not_known_aligned_is_refused():
    """A vector of FP8 elements from global memory is read as dwords only where the offset is known to
    be a multiple of 4 bytes; here it is A[i, k + 1] (k a multiple of 4, the K loop unrolled): a
    one-line error at the op."""
    from xdsl.dialects import arith, memref, vector
    from xdsl.dialects.builtin import IndexType, IntegerAttr, VectorType

    m = lowered(FP8GEMM, "step1", "gfx942", {"M": 64, "N": 64, "K": 64}, gcn=GCN_PREPARE)
    load = next(op for op in m.walk() if isinstance(op, memref.LoadOp) and op.memref.name_hint == "A")
    one = arith.ConstantOp(IntegerAttr(1, IndexType()))
    k1 = arith.AddiOp(load.indices[1], one.result)
    vec = vector.LoadOp(load.memref, [load.indices[0], k1.result], VectorType(load.res.type, [4]))
    first = vector.ExtractOp(vec.result, [0], load.res.type)
    load.parent_block().insert_ops_before([one, k1, vec, first], load)
    load.res.replace_all_uses_with(first.result)
    load.detach()
    load.erase()
    with pytest.raises(GemmcError, match=re.escape("a vector load of 4 FP8 elements from global memory is selected "
                                                   "for 4, 8 or 16 elements at an offset known to be a multiple of 4 "
                                                   "bytes (2 at an even one) (at 'vector.load' in @fp8gemm)")):
        gemmc.lower(m, "lower-to-amdgcn", "gfx942")


@pytest.mark.parametrize("src, arch, pipeline, message", [
    # no FP8 -> f32 conversion: step1 widens each element (arith.extf)
    (FP8GEMM, "gfx942", "step1", "lower-to-amdgcn: extf of f8E4M3FNUZ to f32 is not selected (FP8 values reach the "
     "matrix instructions only; use a pipeline with matrix-cores, or the HIP path) (at 'arith.extf' in @fp8gemm)"),
    # gfx950's f8f6f4 MFMAs (cbsz / blgp formats)
    ("ocp", "gfx950", "gemm-to-kernel,lds-tiling{block-m=128 block-n=128 block-k=128},register-tiling{thread-m=8 "
     "thread-n=8},matrix-cores{instr=v_mfma_f32_32x32x64_f8f6f4}",
     "lower-to-amdgcn: 'amdgpu.mfma' on v_mfma_f32_32x32x64_f8f6f4 is not selected (its cbsz / blgp formats); use the "
     "FP8 MFMAs (v_mfma_f32_*_fp8_fp8, ...) or the HIP path (at 'amdgpu.mfma' in @fp8gemm)"),
])
def test_fp8_unselected_is_refused(tmp_path, src, arch, pipeline, message):
    path = _gemm8(tmp_path, "f8e4m3fn", "f8e4m3fn") if src == "ocp" else src
    with pytest.raises(GemmcError, match=re.escape(message)):
        lowered(path, pipeline, arch, {"M": 128, "N": 128, "K": 128})


# -- WMMA (gfx1100): step 7, f32 data rounded to f16 fragments ----------------------------------------


@pytest.mark.parametrize("dims", [
    {"M": 160, "N": 96, "K": 72},  # the K loop unrolled (5 tiles)
    {"M": 257, "N": 131, "K": 95},  # no multiple of anything: guarded copies and stores
    {"M": 64, "N": 64, "K": 300},  # a scalar K loop carrying eight 8-register accumulators
])
@pytest.mark.parametrize("arch", ["gfx1100", "gfx1201"])  # gfx12: 8 f16 per lane, A and B in 4 VGPRs
def test_wmma_program_passes(dims, arch):
    m = lowered(SGEMM, "step7", arch, dims)
    instrs = [op for op in kernel(m).body.block.ops if isinstance(op, GcnInstruction)]
    assert any(is_wmma(op) for op in instrs)
    r = gcn_check(m, arch, dims)
    assert r.passed, r.summary()
    assert r.stats.matrix_instrs > 0 and r.stats.flops >= 2 * dims["M"] * dims["N"] * dims["K"]


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(m=st.integers(1, 140), n=st.integers(1, 140), k=st.integers(1, 40))
def test_wmma_program_passes_at_random_shapes(m, n, k):
    _run(SGEMM, "step7", "gfx1100", {"M": m, "N": n, "K": k})


@pytest.mark.parametrize("arch", ["gfx1100", "gfx1201"])
def test_bf16_wmma_program_passes(arch):
    dims = {"M": 257, "N": 131, "K": 95}
    m = lowered(SGEMM, BF16, arch, dims)
    assert any(op.MNEMONIC.startswith("v_wmma_f32_16x16x16_bf16") for op in kernel(m).body.block.ops
               if isinstance(op, GcnInstruction))
    assert gcn_check(m, arch, dims).passed


@pytest.mark.parametrize("arch", ["gfx942", "gfx1100"])
def test_bf16_rounding_is_to_nearest_even(arch):
    """C = A @ I gives A rounded to bf16, bit for bit, for A whose low halves are ties (0x8000),
    just below and just above them: the fragment rounding is nearest-even, as arith.truncf's."""
    from gemmc.amdgcn.interp import execute
    from gemmc.interp.common import to_bf16

    m = lowered(SGEMM, BF16, arch, {"M": 64, "N": 64, "K": 64})
    rng = np.random.default_rng(0)
    high = rng.integers(0x3F00, 0x4100, (64, 64)).astype(np.uint32) << np.uint32(16)
    low = rng.choice(np.array([0x8000, 0x7FFF, 0x8001, 0], np.uint32), (64, 64))
    a = (high | low).view(np.float32)
    c = np.zeros((64, 64), np.float32)
    execute(m, [a, np.eye(64, dtype=np.float32), c], arch)
    assert np.array_equal(c, to_bf16(a))


def test_wmma_operands_in_the_wrong_order_fail():
    """The check can fail: with A and B of every WMMA swapped the program computes something
    else, and the interpreter's C differs from numpy's."""
    dims = {"M": 64, "N": 64, "K": 32}
    m = lowered(SGEMM, "step7", "gfx1100", dims)
    assert gcn_check(m, "gfx1100", dims).passed
    for op in kernel(m).body.block.ops:
        if is_wmma(op):
            a, b = op.operands[0], op.operands[1]
            op.operands = [b, a, *op.operands[2:]]
    assert not gcn_check(m, "gfx1100", dims).passed


@pytest.mark.parametrize("operand", ["a", "b"])
def test_gfx1201_wmma_one_operand_in_the_old_layout_fails(operand):
    """The interpreter reads A and B each in the calculator's RDNA4 layout (k 0-3 and 8-11 in
    lanes 0-15): interpreting the program with one operand's layout in the old k order
    (lanes 0-15 k 0-7) gives a wrong C."""
    import dataclasses

    from gemmc.target.arch import ARCHS as TARGETS, Layout, Term

    dims = {"M": 64, "N": 64, "K": 32}
    m = lowered(SGEMM, "step7", "gfx1201", dims)
    assert gcn_check(m, "gfx1201", dims).passed
    old_k = (Term("lane", div=16, scale=8), Term("item"))
    arch = TARGETS["gfx1201"]
    instrs = []
    for i in arch.matrix_instrs:
        if i.mnemonic == "v_wmma_f32_16x16x16_f16":
            old = Layout(32, 8, row=i.a.row, col=old_k) if operand == "a" else Layout(32, 8, row=old_k, col=i.b.col)
            i = dataclasses.replace(i, **{operand: old})
        instrs.append(i)
    assert not gcn_check(m, dataclasses.replace(arch, matrix_instrs=tuple(instrs)), dims).passed


@pytest.mark.skipif(MC is None, reason="llvm-mc (LLVM 22) is not installed")
def test_wmma_kernel_assembles_and_links():
    from gemmc.amdgcn.toolchain import assemble

    m = gemmc.parse_file(SGEMM)
    gemmc.lower(m, "step7", "gfx1100")
    asm = emit_gcn(m, "gfx1100")
    loop = k_loop(asm)
    wmmas = re.findall(r"v_wmma_f32_16x16x16_f16 v\[(\d+):(\d+)\], v\[\d+:\d+\], v\[\d+:\d+\], v\[\1:\2\]\n", loop)
    assert len(wmmas) == 8  # every WMMA accumulates in place
    assert "v_mov_b32" not in loop.split("v_wmma")[1]  # the fragments are packed in place: no moves between
    assert assemble(asm, "gfx1100")[:4] == b"\x7fELF"


def test_missing_wmma_nop_is_an_error():
    """A WMMA reading the previous WMMA's result as A, with no VALU instruction between."""
    src = open("tests/lit/amdgcn-finalize/wmma-hazards.mlir").read()
    m = parse_ir(src)
    k = next(op for op in m.walk() if isinstance(op, KernelOp) and op.sym_name.data == "result_as_a")
    from gemmc.amdgcn.interp import Machine
    from gemmc.target.arch import get_arch

    with pytest.raises(GcnInterpError, match=r"reads v\[8:15\], which the WMMA just before it wrote; a VALU "
                                              r"instruction must come between \(missing v_nop\)"):
        Machine(k, get_arch("gfx1100"), (1, 1, 1), (32, 1, 1), [], np.zeros(0, np.uint32)).run()


# -- what the interpreter refuses ------------------------------------------------------------------


def test_missing_waitcnt_is_an_error():
    m = lowered(SGEMM, "step2", "gfx942", {"M": 20, "N": 20, "K": 20},
                gcn=GCN_PREPARE + ",lower-to-amdgcn,amdgcn-regalloc,amdgcn-finalize")
    with pytest.raises(GcnInterpError, match=r"before the load writing it completed \(missing s_waitcnt"):
        gcn_check(m, "gfx942", {})


def test_lds_race_without_barriers_is_an_error():
    m = lowered(SGEMM, "step2", "gfx942", {"M": 32, "N": 32, "K": 32})
    for op in list(kernel(m).body.block.ops):
        if isinstance(op, GcnInstruction) and op.MNEMONIC == "s_barrier":
            op.detach()
            op.erase()
    with pytest.raises(GcnInterpError, match="LDS race"):
        gcn_check(m, "gfx942", {})


def test_wrong_code_fails_the_check():
    """Start the accumulator at 1.0 instead of 0.0: the interpreter's C is off by one."""
    m = lowered(SGEMM, "step1", "gfx942", {"M": 16, "N": 16, "K": 20})
    from xdsl.dialects.builtin import Float32Type, FloatAttr

    zero = next(op for op in kernel(m).body.block.ops if isinstance(op, ConstantOp) and op.is_float)
    zero.properties["value"] = FloatAttr(1.0, Float32Type())
    assert not gcn_check(m, "gfx942", {}).passed


def test_out_of_bounds_access_is_an_error():
    m = lowered(SGEMM, "step1", "gfx942", {"M": 16, "N": 16, "K": 20})
    from xdsl.dialects.builtin import IntegerAttr, i32

    store = next(op for op in kernel(m).body.block.ops
                 if isinstance(op, GcnInstruction) and op.MNEMONIC.startswith("global_store"))
    store.attributes["offset"] = IntegerAttr(4000, i32)
    with pytest.raises(GcnInterpError, match="out-of-bounds global access"):
        gcn_check(m, "gfx942", {})


# -- the passes -------------------------------------------------------------------------------------


@pytest.mark.parametrize("level", [GCN_PREPARE, GCN_PREPARE + ",lower-to-amdgcn", GCN_PREPARE + ",lower-to-amdgcn,amdgcn-regalloc",
                                   GCN_PREPARE + ",lower-to-amdgcn,amdgcn-regalloc,insert-waitcnt", GCN_PIPELINE])
def test_ir_round_trips(level):
    m = lowered(SGEMM, "step2", "gfx942", {"M": 40, "N": 40, "K": 40}, gcn=level)
    text = print_ir(m)
    assert print_ir(parse_ir(text)) == text


def test_registers_are_aligned_and_within_budget():
    m = lowered(SGEMM, "step5", "gfx942", gcn=GCN_PREPARE + ",lower-to-amdgcn,amdgcn-regalloc")
    k = kernel(m)
    for op in k.walk():
        for v in (*op.results, *(a for r in op.regions for b in r.blocks for a in b.args)):
            t = v.type
            if isinstance(t, VGPRType) and t.n > 1:
                assert t.first % 2 == 0, f"{t.register_name} is not even-aligned (gfx942 needs it)"
            if isinstance(t, SGPRType) and t.n >= 2:
                assert t.first % min(t.n, 4) == 0, f"{t.register_name} is misaligned"
    assert 0 < k.int_attr("vgprs") <= 256 and 4 <= k.int_attr("sgprs") <= 96


def test_register_budget_is_a_one_line_error():
    with pytest.raises(GemmcError, match=r"amdgcn-regalloc: kernel @sgemm needs more than 32 VGPRs") as e:
        lowered(SGEMM, "step3", "gfx942", gcn=GCN_PREPARE + ",lower-to-amdgcn,amdgcn-regalloc{max-vgprs=32}")
    assert "\n" not in e.value.message


@pytest.mark.parametrize("pipeline, message", [
    ("step1,amdgcn-regalloc", "expects amdgcn.kernel ops; run lower-to-amdgcn first"),
    ("step1,lower-to-amdgcn,amdgcn-finalize", "expects allocated registers; run amdgcn-regalloc first"),
    ("step1,lower-to-amdgcn,insert-waitcnt", "expects allocated registers; run amdgcn-regalloc first"),
    ("lower-to-amdgcn", "expects kernel IR (a gpu.module); run gemm-to-kernel first"),
    ("step3,lower-to-amdgcn", "'gemm.copy' is a tile-level copy: run lower-copies first"),
    ("step3,lower-copies,lower-to-amdgcn", "private buffer %acc left in the kernel; run unroll-loops and promote-private first"),
    ("step3,promote-private", "%acc is indexed by a value that is not a compile-time constant; unroll the loops"),
])
def test_pass_preconditions(pipeline, message):
    m = gemmc.parse_file(SGEMM)
    with pytest.raises(GemmcError, match=re.escape(message)):
        gemmc.lower(m, pipeline, "gfx942")


def test_unsupported_arch_and_type():
    with pytest.raises(GemmcError, match="gemmc's AMDGCN backend does not support sm_90"):
        lowered(SGEMM, "step1", "sm_90")


def test_fma_chain_is_coalesced_into_fmac():
    """The K-loop accumulator, its init, yield and result share one VGPR: v_fmac_f32, no copy."""
    asm = emit_gcn(lowered(SGEMM, "step1", "gfx942", gcn=""), "gfx942")
    loop = k_loop(asm)
    assert "v_fmac_f32_e32" in loop and "v_mov_b32" not in loop


def test_magic_division_is_exact():
    from gemmc.amdgcn.values import magic_u32

    rng = np.random.default_rng(1)
    x = np.concatenate([rng.integers(0, 1 << 31, 20000, dtype=np.uint64), np.arange(4096, dtype=np.uint64),
                        np.array([(1 << 31) - 1], dtype=np.uint64)])
    for d in [3, 5, 6, 7, 12, 24, 48, 100, 255, 1000]:
        mul, s = magic_u32(d)
        assert np.array_equal((x * np.uint64(mul)) >> np.uint64(32 + s), x // np.uint64(d)), d


# -- the command line -------------------------------------------------------------------------------


def _gemmc(*args):
    return subprocess.run([sys.executable, "-m", "gemmc.driver.cli", *args], capture_output=True, text=True)


@pytest.mark.skipif(MC is None, reason="llvm-mc (LLVM 22) is not installed")
def test_cli_emit_gcn_and_code_object(tmp_path):
    s, o = tmp_path / "k.s", tmp_path / "k.hsaco"
    r = _gemmc("compile", SGEMM, "--arch", "gfx942", "-p", "step2", "--emit", "gcn", "-o", str(s), "--report")
    assert r.returncode == 0, r.stderr
    assert ".amdhsa_kernel sgemm" in s.read_text() and "VGPRs" in r.stderr
    r = _gemmc("compile", SGEMM, "--arch", "gfx1100", "-p", "step2", "--emit", "gcn-hsaco", "-o", str(o))
    assert r.returncode == 0, r.stderr
    assert o.read_bytes()[:4] == b"\x7fELF"
    r = _gemmc("compile", SGEMM, "--emit", "gcn-hsaco")
    assert r.returncode == 2 and r.stderr.strip() == "error: --emit gcn-hsaco writes a binary code object: give -o FILE"


def test_cli_run_interprets_the_emitted_program():
    r = _gemmc("run", SGEMM, "--arch", "gfx942", "-p", f"step2,{GCN_PIPELINE}", "-D", "M=33", "-D", "N=17",
               "-D", "K=21")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("PASS: M=33 N=17 K=21")
