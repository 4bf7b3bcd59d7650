"""Integer GEMM on the matrix cores (i8 / u8 operands, i32 accumulators): the arch tables' i8 MFMAs
and iu8 WMMAs, matrix-cores lowering to them (the interpreter against numpy at odd shapes, every
target), planted lane swaps and a dropped signedness flag failing the exact check, a u8 operand
refused on CDNA (whose i8 MFMAs are signed only) and kept on the FMAs by the default, and the
default on matrix cores, compiled by clang and run by the AMDGCN interpreter."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gemmc
from gemmc.dialects.amdgpu import MatrixOpBase
from gemmc.interp.check import execute
from gemmc.target.arch import ARCHS, Layout, Term, get_matrix_instr
from gemmc.target.toolchain import have_toolchain

from test_integer import _numpy_reference, source

EXAMPLE = Path(__file__).parent.parent / "examples" / "igemm.gemm"
CDNA, RDNA = ("gfx90a", "gfx942", "gfx950"), ("gfx1100", "gfx1201")
INT_INSTRS = {"gfx90a": ("v_mfma_i32_16x16x16i8", "v_mfma_i32_32x32x8i8"),
              "gfx942": ("v_mfma_i32_16x16x32_i8", "v_mfma_i32_32x32x16_i8"),
              "gfx950": ("v_mfma_i32_16x16x32_i8", "v_mfma_i32_32x32x16_i8", "v_mfma_i32_16x16x64_i8",
                         "v_mfma_i32_32x32x32_i8"),
              "gfx1100": ("v_wmma_i32_16x16x16_iu8",), "gfx1201": ("v_wmma_i32_16x16x16_iu8",)}
TILED = "gemm-to-kernel,lds-tiling{{block-m=64 block-n=64 block-k=64}},register-tiling{{thread-m=4 thread-n=4}},{m}"


def test_tables():
    """The integer instructions of each arch, their builtins (each checked by compiling it with
    clang-22) and packing: i8 bytes four to a VGPR, i32 C/D one a register."""
    for arch, names in INT_INSTRS.items():
        got = tuple(i.mnemonic for i in ARCHS[arch].matrix_instrs if i.in_type == "i8")
        assert got == names, arch
        for name in names:
            i = get_matrix_instr(ARCHS[arch], name)
            assert i.out_type == "i32" and i.c_regs == i.acc_len == i.d.items
            assert i.a_regs == i.a.items // 4 and i.signedness == (arch in RDNA)
            assert i.builtin == "__builtin_amdgcn_" + name[2:] + {"gfx1100": "_w32", "gfx1201": "_w32_gfx12"}.get(arch, "")
    fp8 = get_matrix_instr(ARCHS["gfx942"], "v_mfma_f32_16x16x32_fp8_fp8")
    assert get_matrix_instr(ARCHS["gfx942"], "v_mfma_i32_16x16x32_i8").a == fp8.a  # the FP8 form's k packing


def _lowered(arch: str, ua: bool, ub: bool, dims: dict, pipeline: str = "step7", **kw):
    module = gemmc.parse(source("u8" if ua else "i8", "u8" if ub else "i8", **kw), "g.gemm", defines=dims)
    gemmc.lower(module, pipeline, arch)
    return module


@pytest.mark.parametrize("arch", CDNA + RDNA)
@settings(max_examples=3, deadline=None)
@given(m=st.integers(1, 70), n=st.integers(1, 40), k=st.integers(1, 90),
       ua=st.booleans(), ub=st.booleans(), ta=st.booleans(), beta=st.booleans(), seed=st.integers(0, 2**16))
def test_matrix_cores_match_numpy(arch, m, n, k, ua, ub, ta, beta, seed):
    """step 7 (matrix-cores without fallback) on every target: C exact against numpy, wrapping."""
    ua, ub = (ua, ub) if arch in RDNA else (False, False)
    kw = dict(assign="A @ B + C" if beta else "A @ B", a_layout=" col_major" if ta else "")
    module = _lowered(arch, ua, ub, {"M": m, "N": n, "K": k}, **kw)
    assert re.search(r"amdgpu\.(mfma|wmma) .* : vector<\d+xi8>", str(module))
    rng = np.random.default_rng(seed)
    a = rng.integers(-128, 256, size=(k, m) if ta else (m, k))
    b = rng.integers(-128, 256, size=(k, n))
    c = rng.integers(-2**31, 2**31, size=(m, n))
    want = _numpy_reference(a, b, c, ua, ub, ta, False, beta)
    args = [a.copy(), b.copy(), c.copy()]
    execute(module, None, args, arch)
    assert np.array_equal(args[2], want)


DIMS = {"M": 64, "N": 64, "K": 64}


def _permuted(arch: str, name: str, **layouts):
    a = ARCHS[arch]
    return dataclasses.replace(a, matrix_instrs=tuple(dataclasses.replace(i, **layouts) if i.mnemonic == name else i
                                                      for i in a.matrix_instrs))


@pytest.mark.parametrize("arch,name", [("gfx942", "v_mfma_i32_16x16x32_i8"), ("gfx1100", "v_wmma_i32_16x16x16_iu8")])
def test_planted_lane_swap_fails(arch, name):
    """A's lanes paired up differently (each element still held as often): a wrong C."""
    module = gemmc.parse(source(), "g.gemm", defines=DIMS)
    gemmc.lower(module, TILED.format(m=f"matrix-cores{{instr={name}}}"), arch)
    assert gemmc.check(module, arch, DIMS).passed
    i = get_matrix_instr(ARCHS[arch], name)
    if arch == "gfx942":  # row = lane / 4 mod 16, k group = lane mod 4 (true: lane mod 16, lane / 16)
        a = Layout(64, 8, row=(Term("lane", div=4, mod=16),), col=(Term("lane", mod=4, scale=8), Term("item")))
    else:  # row = lane / 2 (true: lane mod 16; lanes 16-31 replicate either way)
        a = Layout(32, 16, row=(Term("lane", div=2),), col=i.a.col)
    bad = gemmc.check(module, _permuted(arch, name, a=a), DIMS)
    assert not bad.passed


def test_dropped_signedness_fails():
    """An iu8 WMMA whose unsignedA flag is lost reads A's 128 .. 255 as -128 .. -1: a wrong C."""
    module = _lowered("gfx1201", True, False, DIMS)
    assert gemmc.check(module, "gfx1201", DIMS).passed
    for op in module.walk():
        if isinstance(op, MatrixOpBase):
            assert op.properties.pop("unsignedA") is not None
    assert not gemmc.check(module, "gfx1201", DIMS).passed


@pytest.mark.parametrize("arch", CDNA)
def test_u8_refused_on_cdna(arch):
    """CDNA's i8 MFMAs are signed only: an explicit matrix-cores refuses a u8 operand at the
    kernel; the default keeps the FMAs and says why."""
    with pytest.raises(gemmc.GemmcError) as e:
        _lowered(arch, False, True, DIMS)
    assert "multiplies signed bytes only; the kernel's B is u8" in e.value.render()
    assert "gpu.func" in e.value.render()
    module = _lowered(arch, True, False, DIMS, pipeline=None)
    assert "amdgpu.mfma" not in str(module)
    assert f"{arch}'s matrix cores cannot multiply u8 x i8 into i32" in str(module)
    assert gemmc.check(module, arch, DIMS).passed


@pytest.mark.skipif(not have_toolchain(), reason="no clang with the AMDGPU backend")
@pytest.mark.parametrize("arch", CDNA + RDNA)
def test_default_on_matrix_cores_compiles(arch):
    """igemm's default lowers to the integer matrix instructions (u8 B on RDNA: the iu8 WMMA with
    B unsigned), clang compiles it, and they are in its assembly."""
    text = EXAMPLE.read_text()
    if arch in RDNA:
        text = text.replace("B: i8", "B: u8")
    module = gemmc.parse(text, "igemm.gemm", defines={"M": 257, "N": 131, "K": 95})
    gemmc.lower(module, None, arch)
    asm = gemmc.emit(module, arch, "asm")
    mnemonic = "v_wmma_i32_16x16x16_iu8" if arch in RDNA else "v_mfma_i32_"
    assert mnemonic in asm
    if arch in RDNA:
        assert "neg_lo:[1,0,0]" in asm  # A signed, B unsigned


@pytest.mark.skipif(not have_toolchain(), reason="no clang with the AMDGPU backend")
@pytest.mark.parametrize("arch,dims", [("gfx1100", {"M": 67, "N": 35, "K": 64}), ("gfx942", DIMS)])
def test_clangs_assembly_runs_in_the_amdgcn_interpreter(arch, dims):
    """The AMDGCN interpreter runs clang's i8 MFMAs / iu8 WMMAs (neg_lo: the signedness) and
    i8 / i32 buffers.  (CDNA at an M with a wave of all-out-of-bounds rows stops at LLVM's
    missed MFMA wait states after a skipped store, docs/amdgcn-asm.md, as sgemm's step 7 does.)"""
    module = _lowered(arch, arch in RDNA, False, dims, pipeline=None)
    r = gemmc.check(module, arch, dims, level="asm")
    assert r.passed and r.stats.matrix_instrs > 0, r.summary()
