"""gfx950's block-scaled MFMAs and v_bitop3 in LLVM's AMDGCN (gemmc.amdgcn.asm_front and the
interpreter): an MX example through clang passes, a planted wrong scale block fails, a scale the
interpreter does not read is an error at its line; v_bitop3's truth table is indexed as LLVM's
instruction selection fills it; op_sel picks the scale's byte; the f8f6f4 operands decode as
gemmc's HIP packs them.  scripts/asm_sweep.py runs every MX example at the sweep's shapes."""

from __future__ import annotations

import re

import numpy as np
import pytest

import gemmc
from gemmc.amdgcn.asm_front import load, run
from gemmc.driver.asm_level import asm_kernels, check_asm
from gemmc.support.diagnostics import GemmcError
from gemmc.target.toolchain import compile_device, have_toolchain

needs_clang = pytest.mark.skipif(not have_toolchain(), reason="no clang with the AMDGPU backend")
DIMS = {"M": 67, "N": 35, "K": 64}  # odd M and N; K a multiple of the MX block (32)


@pytest.fixture(scope="module")
def mxfp4():
    """examples/mxfp4gemm.gemm lowered for gfx950 at DIMS, and the assembly clang makes of it: FP4
    operands (half the passes of FP8: the hazard check reads the formats) and v_bitop3_b16."""
    from pathlib import Path

    module = gemmc.parse_file(str(Path(__file__).resolve().parents[1] / "examples" / "mxfp4gemm.gemm"), DIMS, "gfx950")
    gemmc.lower(module, None, "gfx950")
    return module, asm_kernels(module, "gfx950")[0]


@needs_clang
def test_mxfp4_passes_through_llvm_assembly(mxfp4):
    module, text = mxfp4
    assert "v_mfma_scale_f32_16x16x128_f8f6f4" in text
    r = check_asm(module, "gfx950", DIMS, text=text)
    assert r.passed, r.summary()


@needs_clang
def test_planted_wrong_scale_block_fails(mxfp4, monkeypatch):
    """Each element scaled by the next block's scale (the blocks rolled along k: A's columns, B's
    rows, the shorter side of the scale matrix): C is wrong."""
    import gemmc.interp.matrix as matrix

    real = matrix.scale_matrix

    def rolled(layout, scales, idx, rows, cols):
        return np.roll(real(layout, scales, idx, rows, cols), 1, axis=-1 if cols < rows else -2)

    module, text = mxfp4
    monkeypatch.setattr(matrix, "scale_matrix", rolled)
    assert not check_asm(module, "gfx950", DIMS, text=text).passed


@needs_clang
def test_a_constant_scale_is_an_error_at_its_line(mxfp4):
    """gfx950 reads a constant's (or an SGPR's) bits [30:23] as the scale, not op_sel's byte
    (llvm-project #158117): not interpreted, and said so at the line."""
    module, text = mxfp4
    edited, n = re.subn(r"(v_mfma_scale_f32_16x16x128_f8f6f4 \S+, \S+, \S+, \S+,) v\d+,", r"\1 0,", text, 1)
    assert n == 1
    with pytest.raises(GemmcError, match=r"edited\.s:\d+: 'v_mfma_scale_f32_16x16x128_f8f6f4'.*not a VGPR"):
        check_asm(module, "gfx950", DIMS, text=edited, path="edited.s")


BITOP3_HIP = """
#define K(N, T, E) extern "C" __attribute__((global)) void N(T* o, const T* a, const T* b, const T* c) { \\
    int i = __builtin_amdgcn_workitem_id_x(); T x = a[i], y = b[i], z = c[i]; o[i] = (T)(E); }
K(f1_16, unsigned short, (x & ~y) ^ z)
K(f2_16, unsigned short, (x ^ y) | (z & ~x))
K(f1_32, unsigned, (x & ~y) ^ z)
K(f2_32, unsigned, (x ^ y) | (z & ~x))
"""
BITOP3_FUNCTIONS = {"f1": lambda x, y, z: (x & ~y) ^ z, "f2": lambda x, y, z: (x ^ y) | (z & ~x)}


@needs_clang
@pytest.mark.parametrize("bits", [16, 32])
def test_bitop3_computes_what_llvm_selected_it_for(bits):
    """clang selects v_bitop3_b16 / _b32 for three-input logic (its operands in an order of its
    own, its table by LLVM's BitOp3_Op); the interpreter's result is the C expression's."""
    text = compile_device(BITOP3_HIP, "gfx950", "asm")
    assert f"v_bitop3_b{bits}" in text
    prog = load("bitop3.s", text, "gfx950")
    rng = np.random.default_rng(bits)
    utype, held, elem = (np.uint16, np.float16, "f16") if bits == 16 else (np.uint32, np.float32, "f32")
    x, y, z = (rng.integers(0, 2 ** bits, 64, dtype=np.uint64).astype(utype) for _ in range(3))
    for name, fn in BITOP3_FUNCTIONS.items():
        out = np.zeros(64, utype).view(held)
        run(prog, f"{name}_{bits}", (1,), (64,), [out, x.view(held), y.view(held), z.view(held)], elems=[elem] * 4)
        assert np.array_equal(out.view(utype), fn(x, y, z)), name


SCALE_HIP = """
typedef int v8i __attribute__((ext_vector_type(8)));
typedef float v4f __attribute__((ext_vector_type(4)));
#define K(N, OA, OB) extern "C" __attribute__((global)) void N(v4f* d, const v8i* a, const v8i* b, const int* sa, \\
    const int* sb) { int i = __builtin_amdgcn_workitem_id_x(); \\
    d[i] = __builtin_amdgcn_mfma_scale_f32_16x16x128_f8f6f4(a[i], b[i], (v4f){0, 0, 0, 0}, 0, 0, OA, sa[i], OB, sb[i]); }
K(sel_0_0, 0, 0)
K(sel_1_2, 1, 2)
K(sel_3_0, 3, 0)
"""


@needs_clang
def test_op_sel_picks_the_scale_byte():
    """The builtin's op_sel_a / op_sel_b (clang-22 prints them as op_sel and op_sel_hi bits) pick
    the byte of the scale VGPR: scales in those bytes give what scales in byte 0 give with 0."""
    text = compile_device(SCALE_HIP, "gfx950", "asm")
    prog = load("scale.s", text, "gfx950")
    rng = np.random.default_rng(3)
    codes = rng.integers(0, 0x70, (2, 64, 32), dtype=np.uint8) | rng.integers(0, 2, (2, 64, 32), dtype=np.uint8) << 7
    a, b = (np.ascontiguousarray(c).view(np.float32) for c in codes)  # FP8 e4m3, no NaN
    exps = rng.integers(120, 128, (2, 64)).astype(np.uint32)  # the E8M0 scales; other bytes 128 .. 135
    junk = rng.integers(128, 136, (2, 64, 4)).astype(np.uint32)

    def words(byte: int, which: int) -> np.ndarray:
        w = junk[which].copy()
        w[:, byte] = exps[which]
        return (w[:, 0] | w[:, 1] << 8 | w[:, 2] << 16 | w[:, 3] << 24).astype(np.uint32).view(np.float32)

    def result(kernel: str, byte_a: int, byte_b: int) -> np.ndarray:
        d = np.zeros((64, 4), np.float32)
        run(prog, kernel, (1,), (64,), [d, a, b, words(byte_a, 0), words(byte_b, 1)], elems=["f32"] * 5)
        return d

    base = result("sel_0_0", 0, 0)
    assert np.array_equal(result("sel_1_2", 1, 2), base)
    assert np.array_equal(result("sel_3_0", 3, 0), base)
    assert not np.array_equal(result("sel_0_0", 1, 2), base)  # (the other bytes scale differently)


@pytest.mark.parametrize("fmt", ["f4e2m1fn", "f6e2m3fn"])
def test_f8f6f4_operands_decode_as_gemmc_s_hip_packs_them(fmt):
    """A lane's 32 FP4 / FP6 codes, packed by the arithmetic of gemmc's HIP helper
    (gemmc.emit.fp4 / fp6.operand_words), decode to the codes' values in order."""
    from gemmc.amdgcn.interp.matrix_ops import decode
    from gemmc.emit import fp4, fp6
    from gemmc.support.arith_semantics import fp8_dtypes

    pack, top = (fp4.operand_words, 16) if fmt == "f4e2m1fn" else (fp6.operand_words, 64)
    codes = np.random.default_rng(4).integers(0, top, 32, dtype=np.uint8)
    got = decode(pack(codes)[None, None, :], fmt, 32)[0, 0]
    assert np.array_equal(got, codes.view(fp8_dtypes()[fmt]).astype(np.float32))
