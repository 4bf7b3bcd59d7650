"""4-bit integer GEMM (i4 / u4 operands packed two a byte, i32 accumulator and C): the language's
located errors, the arch tables (RDNA's iu4 WMMAs, CDNA's route through the i8 MFMAs), the IR
interpreter against numpy over shapes on every target and pipeline family, planted bugs failing
the exact check (a swapped nibble order, a lost sign, a permuted lane layout), the example on
all five AMD targets, and clang's assembly run by the AMDGCN interpreter."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from xdsl.dialects import arith
from xdsl.rewriter import Rewriter

import gemmc
from gemmc.dialects.amdgpu import MatrixOpBase
from gemmc.emit import fp4, int4
from gemmc.interp.check import execute
from gemmc.target.arch import ARCHS, Layout, Term, get_matrix_instr
from gemmc.target.toolchain import have_toolchain

EXAMPLE = Path(__file__).parent.parent / "examples" / "i4gemm.gemm"
CDNA, RDNA = ("gfx90a", "gfx942", "gfx950"), ("gfx1100", "gfx1201")
AMD = CDNA + RDNA
IU4 = {"gfx1100": ("v_wmma_i32_16x16x16_iu4",), "gfx1201": ("v_wmma_i32_16x16x16_iu4", "v_wmma_i32_16x16x32_iu4")}
needs_clang = pytest.mark.skipif(not have_toolchain(), reason="no clang with the AMDGPU backend")


def source(a: str = "i4", b: str = "u4", c: str = "i32", acc: str = "", assign: str = "A @ B",
           a_decl: str = "[M, K]", b_decl: str = "[K, N]") -> str:
    return (f"kernel g {{\n  dim M, N, K\n  A: {a}{a_decl}\n  B: {b}{b_decl}\n  C: {c}[M, N]\n"
            f"{acc}\n  C = {assign}\n}}\n")


# -- the language ------------------------------------------------------------------------------

ERRORS = [
    (dict(), {"K": 37}, "3:12", "'A' is i4, packed two elements a byte along its stored rows: its row length K = 37 "
                                "must be even"),
    (dict(), {"N": 5}, "4:12", "'B' is u4, packed two elements a byte along its stored rows: its row length N = 5 "
                               "must be even"),
    (dict(a_decl="[M, K] col_major", b_decl="[K, N] col_major"), {"K": 3}, "4:9",
     "'B' is u4, packed two elements a byte along its stored rows: its row length K = 3 must be even"),
    (dict(b="i8"), {}, "7:11", "'A' is i4 but 'B' is i8: A and B are both 8-bit (i8, u8) or both 4-bit (i4, u4)"),
    (dict(b="f16", c="f32"), {}, "7:11", "'B' is f16 but 'A' is i4: an integer product takes i8, u8, i4 or u4 "
                                        "operands only"),
    (dict(acc="  acc f32"), {}, "6:7", "i4 operands accumulate in i32, not f32"),
    (dict(c="f32"), {}, "5:6", "the output 'C' is f32; an integer product's output is i32"),
]


@pytest.mark.parametrize("kw,dims,where,message", ERRORS, ids=[e[3][:40] for e in ERRORS])
def test_int4_errors_are_located(kw, dims, where, message):
    with pytest.raises(gemmc.GemmcError) as e:
        gemmc.parse(source(**kw), "e.gemm", defines={"M": 4, "N": 4, "K": 4, **dims})
    assert f"e.gemm:{where}: error: {message}" in e.value.render()


def test_an_arch_without_a_route_refuses_i4_at_its_declaration():
    with pytest.raises(gemmc.GemmcError) as e:
        gemmc.parse(source(), "e.gemm", arch="sm_90")
    assert "e.gemm:3:6: error: sm_90 has no route for i4 operands" in e.value.render()


def test_ir_types():
    """i4 and u4 are signless i4 memrefs; u4 is gemm.unsigned on the argument and unsigned_b."""
    text = str(gemmc.parse(source(), "g.gemm"))
    assert "memref<?x?xi4>" in text and "unsigned_b" in text and "unsigned_a" not in text and "acc_type = i32" in text


# -- the arch tables -------------------------------------------------------------------------


def test_tables():
    """RDNA's iu4 WMMAs (builtins checked by compiling them with clang-22: tests below), eight
    nibbles a VGPR; CDNA has none and takes 4-bit operands as i8 (Arch.int4_frags)."""
    for arch in AMD:
        a = ARCHS[arch]
        got = tuple(i.mnemonic for i in a.matrix_instrs if i.in_type == "i4")
        assert got == IU4.get(arch, ()), arch
        assert a.int4_frags == ("i4" if arch in RDNA else "i8")
        for name in got:
            i = get_matrix_instr(a, name)
            assert i.signedness and i.out_type == "i32" and i.a_regs == i.a.items // 8 == i.b_regs
    assert ARCHS["sm_90"].int4_frags == ""
    wide = get_matrix_instr(ARCHS["gfx1201"], "v_wmma_i32_16x16x32_iu4")
    assert (wide.k, wide.a_regs) == (32, 2) and wide.builtin.endswith("_iu4_w32_gfx12")


def test_operand_words_put_element_e_at_bits_4e():
    """The HIP helper's packing (numpy twin): element e of a lane's fragment at bits 4e of its
    VGPRs, the low nibble first, as the layouts' bit_lo says and global memory packs rows."""
    codes = np.arange(16, dtype=np.uint8)[::-1].copy()
    words = int4.operand_words(codes)
    assert [hex(w) for w in words] == ["0x89abcdef", "0x1234567"]
    assert bytes(fp4.pack(codes[None])[0]) == words.astype("<u4").tobytes()


# -- the interpreter against numpy -------------------------------------------------------------


def _numpy_reference(a, b, ua, ub, tb):
    """Independent of gemmc.interp.integer: each nibble's two's-complement or unsigned value from
    its low 4 bits, the sum in int64, wrapped by numpy's int64 -> int32 cast."""
    def op(x, unsigned):
        x = np.asarray(x, dtype=np.int64) & 15
        return x if unsigned else (x ^ 8) - 8
    bb = op(b, ub)
    return (op(a, ua) @ (bb.T if tb else bb)).astype(np.int32)


PIPELINES = ("step1", "step3", "step6", "step7", None)


@pytest.mark.parametrize("arch", AMD)
@settings(max_examples=3, deadline=None)
@given(m=st.integers(1, 40), n2=st.integers(1, 20), k2=st.integers(1, 40), ua=st.booleans(), ub=st.booleans(),
       tb=st.booleans(), pipeline=st.sampled_from(PIPELINES), seed=st.integers(0, 2**16))
def test_interpreter_matches_numpy(arch, m, n2, k2, ua, ub, tb, pipeline, seed):
    """Naive, FMA, matrix-core and default kernels on every target: C exact against numpy, for
    stored rows of even length (A's K; B's N, or K where B is given transposed)."""
    n, k = 2 * n2, 2 * k2
    src = source("u4" if ua else "i4", "u4" if ub else "i4", b_decl="[N, K]" if tb else "[K, N]",
                 assign="A @ B.T" if tb else "A @ B")
    module = gemmc.parse(src, "g.gemm", defines={"M": m, "N": n, "K": k})
    gemmc.lower(module, pipeline, arch)
    rng = np.random.default_rng(seed)
    a = rng.integers(-8, 16, size=(m, k))  # any nibbles: the kernel reads their 4 bits
    b = rng.integers(-8, 16, size=(n, k) if tb else (k, n))
    args = [a.copy(), b.copy(), np.zeros((m, n), np.int64)]
    execute(module, None, args, arch)
    assert np.array_equal(args[2], _numpy_reference(a, b, ua, ub, tb))


# -- planted bugs fail the exact check ----------------------------------------------------------

DIMS = {"M": 32, "N": 32, "K": 64}


def _lowered(arch: str, pipeline: str | None = "step7", a: str = "i4", b: str = "u4"):
    module = gemmc.parse(source(a, b), "g.gemm", defines=DIMS)
    gemmc.lower(module, pipeline, arch)
    return module


@pytest.mark.parametrize("arch,pipeline", [("gfx942", "step1"), ("gfx1100", "step6"), ("gfx90a", "step7")])
def test_lost_sign_fails(arch, pipeline):
    """An i4 read as unsigned (its arith.extsi made an extui: -1 read as 15) fails; on CDNA's
    route that is the widening of a fragment to i8."""
    module = _lowered(arch, pipeline)
    assert gemmc.check(module, arch, DIMS).passed
    ext = next(op for op in module.walk() if isinstance(op, arith.ExtSIOp))
    Rewriter.replace_op(ext, arith.ExtUIOp(ext.operands[0], ext.results[0].type))
    assert not gemmc.check(module, arch, DIMS).passed


@pytest.mark.parametrize("arch", RDNA)
def test_dropped_wmma_signedness_fails(arch):
    """An iu4 WMMA that reads the signed A as unsigned (unsignedA planted) fails."""
    module = _lowered(arch)
    assert gemmc.check(module, arch, DIMS).passed
    for op in module.walk():
        if isinstance(op, MatrixOpBase):
            op.properties["unsignedA"] = op.properties["unsignedB"]
    assert not gemmc.check(module, arch, DIMS).passed


def test_permuted_iu4_lanes_fail():
    """gfx1201's 16x16x32 iu4 with A's k halves of the lanes swapped (each element still held
    once; B as it was): a wrong C."""
    name = "v_wmma_i32_16x16x32_iu4"
    pipeline = ("gemm-to-kernel,lds-tiling{block-m=64 block-n=32 block-k=32},register-tiling,"
                f"matrix-cores{{instr={name}}}")
    module = _lowered("gfx1201", pipeline)
    assert gemmc.check(module, "gfx1201", DIMS).passed
    arch = ARCHS["gfx1201"]
    i = get_matrix_instr(arch, name)
    true_k = (Term("lane", div=16, scale=8), Term("item", mod=8), Term("item", div=8, scale=16))
    a = Layout(32, 16, row=i.a.row, col=(Term("item", div=8, scale=8), Term("item", mod=8),
                                          Term("lane", div=16, scale=16)))
    assert i.a.col == true_k
    bad = dataclasses.replace(arch, matrix_instrs=tuple(dataclasses.replace(x, a=a) if x.mnemonic == name else x
                                                        for x in arch.matrix_instrs))
    assert not gemmc.check(module, bad, DIMS).passed


@needs_clang
@pytest.mark.parametrize("pipeline,arch", [("step1", "gfx942"), (None, "gfx1100")])
def test_swapped_nibble_order_fails(monkeypatch, pipeline, arch):
    """clang's assembly of a kernel that reads element 2j from a byte's high nibble (scalar reads;
    the default's vector reads) fails the AMDGCN interpreter's exact check, whose buffers hold
    rows packed low nibble first.  (The WMMA operand's packing is no place for this bug: one
    order for A's and B's nibbles alike permutes k within the sum, which does not see it.)"""
    module = _lowered(arch, pipeline)
    assert gemmc.check(module, arch, DIMS, level="asm").passed
    if pipeline == "step1":
        monkeypatch.setattr(fp4, "nibble", lambda byte, col: f"({byte} >> (({col} & 1) ^ 1) * 4) & 15")
    else:
        real = fp4.vector_nibbles
        monkeypatch.setattr(fp4, "vector_nibbles", lambda name, half: real(f"(({name} << 4) | ({name} >> 4))", half))
    assert not gemmc.check(module, arch, DIMS, level="asm").passed


# -- the example on every AMD target -----------------------------------------------------------


@pytest.mark.parametrize("arch", AMD)
def test_example_default_passes(arch):
    """examples/i4gemm.gemm's default: the matrix cores (iu4 WMMAs; CDNA: fragments widened to
    i8 for its MFMAs), exact."""
    module = gemmc.parse_file(str(EXAMPLE))
    gemmc.lower(module, None, arch)
    text = str(module)
    assert ("vector<16xi4>" if arch == "gfx1100" else "amdgpu.wmma" if arch in RDNA else "arith.extsi") in text
    assert gemmc.check(module, arch, {}).passed


@needs_clang
@pytest.mark.parametrize("arch", AMD)
def test_example_compiles_without_scratch_and_runs_as_assembly(arch):
    """clang-22 compiles the default's HIP to the arch's integer matrix instructions with no
    scratch, and the AMDGCN interpreter runs that assembly exactly."""
    module = gemmc.parse_file(str(EXAMPLE))
    gemmc.lower(module, None, arch)
    asm = gemmc.emit(module, arch, "asm")
    assert ("v_wmma_i32_16x16x16_iu4" if arch in RDNA else "v_mfma_i32_") in asm
    assert ".private_segment_fixed_size: 0" in asm or ".amdhsa_private_segment_fixed_size 0" in asm
    r = gemmc.check(module, arch, {}, level="asm")
    assert r.passed, r.summary()


# -- the emitted HIP, with its harness, on the CPU ------------------------------------------------


@pytest.mark.parametrize("arch,pipeline", [("gfx942", "step1"), ("gfx942", None)])
def test_harness_passes_on_cpu(llvm, tmp_path, arch, pipeline):
    """--harness fills the codes 0 .. 15, packs the rows as global memory holds them (low nibble
    first) and checks C exactly; reading the high nibble first fails it."""
    from test_emit_hip import run_on_cpu
    from test_harness_formats import _assert_fails, _planted

    import cpu_matrix

    module = gemmc.parse(source("i4", "u4", assign="A @ B + C"), "g.gemm")
    gemmc.lower(module, pipeline, arch)
    hip = gemmc.emit(module, arch, "hip", harness=True)
    dims = ["67", "46", "38"]
    proc = run_on_cpu(llvm, hip, dims, tmp_path, cpu_matrix.builtins(arch, hip))
    assert proc.returncode == 0 and ": PASSED" in proc.stdout, proc.stdout + proc.stderr
    if pipeline == "step1":
        _assert_fails(run_on_cpu(llvm, _planted(hip, ">> (k & 1) * 4) & 15", ">> ((k & 1) ^ 1) * 4) & 15"), dims,
                                 tmp_path))


def test_i24_multiplies_drop_the_bits_above_24():
    """v_mul_i32_i24 / v_mad_i32_i24 read each source's low 24 bits as signed: a v_bfe_i32's -1
    (0xffffffff, as clang's i4 sign extension leaves it) is -1, not 2^32 - 1."""
    from gemmc.amdgcn.interp.vector_alu import INTEGER

    minus1, three, five = (np.array([x], np.uint64) for x in (0xFFFFFFFF, 3, 5))
    assert int(INTEGER["v_mul_i32_i24"](minus1, three)[0]) == 0xFFFFFFFD
    assert int(INTEGER["v_mad_i32_i24"](minus1, three, five)[0]) == 2
    assert int(INTEGER["v_mul_i32_i24"](np.array([0x01800000], np.uint64), three)[0]) == (-(2**23) * 3) % 2**32
