"""Integer GEMM (i8 / u8 operands, i32 accumulator and C): the language's located errors, the
interpreter against numpy at odd shapes, the exact check failing planted bugs (a lost k, a u8
sign-extended), the HIP compiled for every AMD target, and the emitted HIP run on the CPU."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr
from xdsl.rewriter import InsertPoint, Rewriter

import gemmc
from gemmc.interp.check import check, execute
from gemmc.target.toolchain import find_toolchain

import cpu_matrix
from test_emit_hip import run_on_cpu
from test_harness_formats import _assert_fails, _planted

EXAMPLE = Path(__file__).parent.parent / "examples" / "igemm.gemm"
AMD = ("gfx90a", "gfx942", "gfx950", "gfx1100", "gfx1201")


def source(a: str = "i8", b: str = "i8", c: str = "i32", acc: str = "", assign: str = "A @ B",
           a_layout: str = "", b_decl: str = "[K, N]") -> str:
    return (f"kernel g {{\n  dim M, N, K\n  A: {a}[M, K]{a_layout}\n  B: {b}{b_decl}\n  C: {c}[M, N]\n"
            f"{acc}\n  C = {assign}\n}}\n")


# -- the language's rules, each located ------------------------------------------------------

ERRORS = [
    (dict(acc="  acc f32"), "6:7", "i8 operands accumulate in i32, not f32 (write 'acc i32', or leave the acc out)"),
    (dict(a="i32"), "3:6", "'A' is i32; integer operands are i8 or u8 (i32 is the accumulator's and the output's type)"),
    (dict(a="u8", b="f16"), "7:11", "'B' is f16 but 'A' is u8: an integer product takes i8, u8, i4 or u4 operands only"),
    (dict(a="f16", b="i8", c="f32"), "7:7", "'A' is f16 but 'B' is i8: an integer product takes i8, u8, i4 or u4 operands only"),
    (dict(b="u8", c="u8"), "5:6", "the output 'C' is u8; an integer product's output is i32 (or i8, requantized)"),
    (dict(c="f32"), "5:6", "the output 'C' is f32; an integer product's output is i32 (or i8, requantized)"),
    (dict(a="f32", b="f32"), "5:6", "the output 'C' is i32, the output of i8 and u8 operands; 'A' is f32"),
    (dict(a="f16", b="f16", c="f32", acc="  acc i32"), "6:7", "an i32 accumulator takes i8, u8, i4 or u4 operands, not f16"),
    (dict(acc="  alpha: i32", assign="alpha * A @ B"), "7:7",
     "an integer product takes no scale but 1 (it is computed in i32: C = A @ B or C = A @ B + C)"),
    (dict(assign="A @ B + 2 * C"), "7:15",
     "an integer product takes no scale but 1 (it is computed in i32: C = A @ B or C = A @ B + C)"),
]


@pytest.mark.parametrize("kw,where,message", ERRORS, ids=[e[2][:40] for e in ERRORS])
def test_integer_errors_are_located(kw, where, message):
    with pytest.raises(gemmc.GemmcError) as e:
        gemmc.parse(source(**kw), "e.gemm")
    assert f"e.gemm:{where}: error: {message}" in e.value.render()


def test_acc_defaults_to_i32_and_beta_one_is_allowed():
    m = gemmc.parse(source(a="u8", assign="1 * A @ B + 1.0 * C"), "g.gemm")
    text = str(m)
    assert "acc_type = i32" in text and "unsigned_a" in text and "unsigned_b" not in text
    assert "arith.constant 1 : i32" in text and "alpha" not in text


# -- the interpreter against numpy ----------------------------------------------------------


def _numpy_reference(a, b, c0, ua, ub, ta, tb, beta):
    """Independent of gemmc.interp.integer: bytes reinterpreted by numpy's own int8 / uint8, the
    sum in int64, wrapped by numpy's int64 -> int32 cast."""
    def op(x, unsigned, t):
        x = np.asarray(x, dtype=np.int64).astype(np.uint8 if unsigned else np.int8).astype(np.int64)
        return x.T if t else x
    out = op(a, ua, ta) @ op(b, ub, tb) + (np.asarray(c0, dtype=np.int64) if beta else 0)
    return out.astype(np.int32)


@settings(max_examples=8, deadline=None)
@given(m=st.integers(1, 37), n=st.integers(1, 37), k=st.integers(1, 41), ua=st.booleans(), ub=st.booleans(),
       ta=st.booleans(), tb=st.booleans(), beta=st.booleans(), pipeline=st.sampled_from(["step1", "step3"]),
       seed=st.integers(0, 2**16))
def test_interpreter_matches_numpy(m, n, k, ua, ub, ta, tb, beta, pipeline, seed):
    src = source("u8" if ua else "i8", "u8" if ub else "i8", assign="A @ B + C" if beta else "A @ B",
                 a_layout=" col_major" if ta else "", b_decl="[N, K]" if tb else "[K, N]")
    if tb:
        src = src.replace("C = A @ B", "C = A @ B.T")
    module = gemmc.parse(src, "g.gemm", defines={"M": m, "N": n, "K": k})
    gemmc.lower(module, pipeline, "gfx942")
    rng = np.random.default_rng(seed)
    a = rng.integers(-128, 256, size=(k, m) if ta else (m, k))  # any bytes: the kernel reads their bits
    b = rng.integers(-128, 256, size=(n, k) if tb else (k, n))
    c = rng.integers(-2**31, 2**31, size=(m, n))
    want = _numpy_reference(a, b, c, ua, ub, ta, tb, beta)
    args = [a.copy(), b.copy(), c.copy()]
    execute(module, None, args, "gfx942")
    assert np.array_equal(args[2], want)


# -- planted bugs fail the exact check --------------------------------------------------------


def _step1(a: str = "i8", b: str = "u8"):
    module = gemmc.parse(source(a, b), "g.gemm")
    gemmc.lower(module, "step1", "gfx942")
    return module


DIMS = {"M": 19, "N": 23, "K": 29}


def test_correct_kernels_pass():
    for pipeline in ("step1", "step3", None):
        module = gemmc.parse(source("u8", "i8", assign="A @ B + C"), "g.gemm")
        gemmc.lower(module, pipeline, "gfx942")
        result = check(module, DIMS, "gfx942")
        assert result.passed, result.summary()
        assert "C against the declared program bit for bit" in result.summary()


def test_u8_sign_extended_fails():
    module = _step1()
    ext = next(op for op in module.walk() if isinstance(op, arith.ExtUIOp))
    Rewriter.replace_op(ext, arith.ExtSIOp(ext.operands[0], ext.results[0].type))
    result = check(module, DIMS, "gfx942")
    assert not result.passed and "elements differ" in result.summary(), result.summary()


def test_i8_zero_extended_fails():
    module = _step1()
    ext = next(op for op in module.walk() if isinstance(op, arith.ExtSIOp))
    Rewriter.replace_op(ext, arith.ExtUIOp(ext.operands[0], ext.results[0].type))
    assert not check(module, DIMS, "gfx942").passed


def test_lost_k_fails():
    module = _step1()
    loop = next(op for op in module.walk() if isinstance(op, scf.ForOp))
    one = arith.ConstantOp(IntegerAttr(1, IndexType()))
    Rewriter.insert_op(one, InsertPoint.before(loop))
    loop.operands[0] = one.result  # k from 1: A[i, 0] * B[0, j] lost
    result = check(module, DIMS, "gfx942")
    assert not result.passed, result.summary()


# -- the example, on every AMD target: the interpreter, and clang-22's assembly ---------------


def test_example_runs_on_the_cli():
    proc = subprocess.run([sys.executable, "-m", "gemmc.driver.cli", "run", str(EXAMPLE), "--arch", "gfx942",
                           "-D", "M=67", "-D", "N=45", "-D", "K=37"], capture_output=True, text=True)
    assert proc.returncode == 0 and proc.stdout.startswith("PASS"), proc.stdout + proc.stderr


def _example(arch: str):
    module = gemmc.parse_file(str(EXAMPLE), defines={"M": 67, "N": 45, "K": 37})
    gemmc.lower(module, None, arch)
    return module


@pytest.mark.parametrize("arch", AMD)
def test_example_default_passes_and_compiles(arch):
    """The default pipeline (the integer matrix instructions; tests/test_integer_matrix.py) PASSes
    the interpreter's exact check, and clang-22 compiles its HIP to them."""
    module = _example(arch)
    result = check(module, {}, arch)
    assert result.passed, result.summary()
    try:
        find_toolchain()
    except gemmc.GemmcError:
        pytest.skip("no HIP compiler with the AMDGPU backend")
    asm = gemmc.emit(module, arch, "asm")
    assert "v_mfma_i32_" in asm or "v_wmma_i32_16x16x16_iu8" in asm, asm[:2000]


# -- the emitted HIP on the CPU -----------------------------------------------------------------


@pytest.mark.parametrize("arch,pipeline", [("gfx942", "step1"), ("gfx1100", None)])
def test_harness_passes_on_cpu(llvm, tmp_path, arch, pipeline):
    module = gemmc.parse(source("i8", "u8", assign="A @ B + C"), "g.gemm")
    gemmc.lower(module, pipeline, arch)
    hip = gemmc.emit(module, arch, "hip", harness=True)
    proc = run_on_cpu(llvm, hip, ["67", "45", "37"], tmp_path, cpu_matrix.builtins(arch, hip))  # (gfx1100: iu8 WMMA)
    assert proc.returncode == 0 and ": PASSED" in proc.stdout, proc.stdout + proc.stderr
    if pipeline == "step1":  # B's u8 read as i8: the harness's exact check fails
        _assert_fails(run_on_cpu(llvm, _planted(hip, "(int32_t)(uint8_t)b", "(int32_t)b"), ["67", "45", "37"],
                                 tmp_path))
