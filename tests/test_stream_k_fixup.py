"""stream-k's fix-up through a workspace (gemmc/transforms/stream_fixup.py): a non-linear epilogue,
a 16-bit C, against the declared program over shapes and persistent workgroup counts; planted bugs
in the last-contributor protocol (the epilogue applied by every contributor or by the first, a fence
left out, the counters not zeroed, the wrong slot) FAIL; the linear epilogue keeps its atomics; the
HIP builds for every AMD target and `gemmc run` PASSes examples/linear.gemm on each, --level asm too."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from xdsl.dialects import arith, gpu
from xdsl.dialects.builtin import IntegerAttr, i1, i32

import gemmc
from gemmc.dialects.gemm import FenceOp
from gemmc.support.diagnostics import GemmcError
from test_split_k import BASES, toolchain

AMD = ["gfx90a", "gfx942", "gfx950", "gfx1100", "gfx1201"]
EXAMPLE = os.path.join(os.path.dirname(__file__), "..", "examples", "linear.gemm")
EPILOGUES = {  # the assignment, the declarations it needs beyond A, B and C
    "relu": ("C = relu(A @ B)", ""),
    "gelu": ("C = gelu(A @ B)", ""),
    "bias+gelu": ("C = gelu(A @ B + b)", "b: f32[N]"),
    "silu": ("C = silu(A @ B)", ""),
    "residual": ("C = s * (A @ B) + R", "s: f32[M]  R: bf16[M, N]"),
    "clamp": ("C = clamp(A @ B - C, -2.0, 2.0)", ""),
}


def source(epilogue: str, c_type: str = "f32") -> str:
    expr, decls = EPILOGUES[epilogue]
    return (f"kernel e {{ dim M, N, K  A: f32[M, K]  B: f32[K, N]  C: {c_type}[M, N]  {decls}  acc f32  {expr} }}")


def stream_pipeline(base: str, workgroups: int) -> str:
    before, after = BASES[base]
    return f"{before},stream-k{{workgroups={workgroups}}}{after}"


@settings(max_examples=16, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(epilogue=st.sampled_from(sorted(EPILOGUES)), base=st.sampled_from(sorted(BASES)),
       workgroups=st.integers(1, 13), m=st.integers(1, 80), n=st.integers(1, 80), k=st.integers(1, 160),
       arch=st.sampled_from(["gfx942", "gfx1100", "gfx1201"]))
def test_fixup_matches_the_declared_program(epilogue, base, workgroups, m, n, k, arch):
    """Tiles walked whole apply the epilogue; shared ones are finished once, by their last walker."""
    module = gemmc.lower(gemmc.parse(source(epilogue)), stream_pipeline(base, workgroups), arch)
    result = gemmc.check(module, arch, {"M": m, "N": n, "K": k}, seed=m + 3 * n + k)
    assert result.passed, (epilogue, base, workgroups, result.summary())


@settings(max_examples=6, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(base=st.sampled_from(sorted(BASES)), workgroups=st.integers(1, 9), m=st.integers(1, 70),
       n=st.integers(1, 70), k=st.integers(1, 130))
def test_fixup_takes_a_16_bit_c(base, workgroups, m, n, k):
    """A bf16 C, which atomic adds would round at every partial sum: the fix-up rounds once."""
    src = "kernel h { dim M, N, K  A: f16[M, K]  B: f16[K, N]  C: bf16[M, N]  acc f32  C = A @ B }"
    module = gemmc.lower(gemmc.parse(src), stream_pipeline(base, workgroups), "gfx942")
    assert "kind = 0" not in gemmc.print_ir(module)  # no float atomics: the counter's addi only
    assert gemmc.check(module, "gfx942", {"M": m, "N": n, "K": k}, seed=m + n + k).passed


def test_linear_epilogue_keeps_its_atomics():
    """The fast path as it was: partial sums added into C after the init kernel, no workspace, no fence."""
    src = "kernel l { dim M, N, K  A: f32[M, K]  B: f32[K, N]  C: f32[M, N]  s: f32[M]  C = s * (A @ B) + C }"
    ir = gemmc.print_ir(gemmc.lower(gemmc.parse(src), stream_pipeline("step3", 5), "gfx942"))
    assert "kind = 0" in ir and "_streamk_init" in ir
    assert "gemm.fence" not in ir and "workspace" not in ir and "_streamk_flags" not in ir


# -- planted bugs -------------------------------------------------------------------------------


def _fixed_up():
    return gemmc.lower(gemmc.parse(source("bias+gelu")), stream_pipeline("step3", 5), "gfx942")


def _fails(module) -> bool:
    try:
        return not gemmc.check(module, "gfx942", {"M": 40, "N": 24, "K": 70}, seed=1).passed
    except GemmcError:  # the interpreter's race between workgroups
        return True


def _named(module, name_hint: str):
    return next(op for op in module.walk() if op.results and op.results[0].name_hint == name_hint)


def _constant_instead(module, name_hint: str, value: int, type_) -> None:
    op = _named(module, name_hint)
    c = arith.ConstantOp(IntegerAttr(value, type_))
    op.parent_block().insert_op_after(c, op)
    op.results[0].replace_all_uses_with(c.results[0])


def test_unplanted_passes():
    assert not _fails(_fixed_up())


def test_planted_every_contributor_applies_the_epilogue_fails():
    module = _fixed_up()
    _constant_instead(module, "last", 1, i1)
    assert _fails(module)


def test_planted_first_contributor_applies_the_epilogue_fails():
    module = _fixed_up()
    last = _named(module, "last")
    zero = arith.ConstantOp(IntegerAttr(0, i32))
    last.parent_block().insert_op_before(zero, last)
    last.operands[1] = zero.results[0]  # arrived == 0: the first to arrive, not the last
    assert _fails(module)


@pytest.mark.parametrize("ordering", ["release", "acquire"])
def test_planted_missing_fence_fails(ordering):
    """Without the release (the partial sums not published before the count) or the acquire (the
    last contributor's reads not ordered after it), the interpreter's happens-before finds the race."""
    module = _fixed_up()
    fence = next(op for op in module.walk() if isinstance(op, FenceOp) and op.ordering.data == ordering)
    fence.detach()
    fence.erase()
    assert _fails(module)


def test_planted_counters_not_zeroed_fails():
    module = _fixed_up()
    launch = next(op for op in module.walk() if isinstance(op, gpu.LaunchFuncOp) and "flags" in str(op.kernel))
    launch.detach()
    launch.erase()
    assert _fails(module)


def test_planted_one_slot_for_all_fails():
    module = _fixed_up()
    slot = _named(module, "slot")
    slot.operands[1] = slot.operands[0]  # wg - wg: every contributor writes slot 0
    assert _fails(module)


# -- targets ------------------------------------------------------------------------------------

LINEAR_STREAM_K = ("gemm-to-kernel,lds-tiling{block-m=64 block-n=64 block-k=16},register-tiling{thread-m=4 thread-n=4},"
                   "matrix-cores{fallback=true},vectorize{width=4},stream-k,double-buffer,lower-copies,launch-bounds")


@pytest.mark.parametrize("arch", AMD)
def test_linear_example_runs_with_stream_k(arch):
    """examples/linear.gemm (bf16, bias, gelu) with one persistent workgroup a CU: 64 tiles of 32 K
    iterations shared among them."""
    with open(EXAMPLE) as f:
        module = gemmc.lower(gemmc.parse(f.read(), EXAMPLE), LINEAR_STREAM_K, arch)
    assert "gemm.fence" in gemmc.print_ir(module)
    result = gemmc.check(module, arch)
    assert result.passed, result.summary()


@pytest.mark.skipif(toolchain() is None, reason="no clang with the AMDGPU backend")
@pytest.mark.parametrize("arch", AMD)
def test_fixup_compiles_for_every_target(arch):
    module = gemmc.lower(gemmc.parse(source("bias+gelu")), stream_pipeline("matrix-cores", 0), arch)
    asm = gemmc.emit(module, arch, "asm")
    assert "_streamk_flags" in asm and "global_atomic_add" in asm


@pytest.mark.skipif(toolchain() is None, reason="no clang with the AMDGPU backend")
@pytest.mark.parametrize("arch", AMD)
def test_fixup_runs_as_llvm_assembly(arch):
    """--level asm: clang's AMDGCN of the fix-up (its counter through LLVM's atomic optimizer:
    v_mbcnt, s_bcnt1) in the amdgcn interpreter; a bias epilogue (the interpreter has no erf yet)."""
    src = "kernel b { dim M, N, K  A: f32[M, K]  B: f32[K, N]  b: f32[N]  C: f32[M, N]  C = A @ B + b }"
    module = gemmc.lower(gemmc.parse(src), stream_pipeline("step3", 5), arch)
    result = gemmc.check(module, arch, {"M": 40, "N": 24, "K": 70}, level="asm")
    assert result.passed, result.summary()
