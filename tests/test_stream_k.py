"""stream-k: the interpreter against numpy over shapes, persistent workgroup counts and pipelines,
planted bugs that must FAIL, and the HIP it prints compiled for every AMD target."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from xdsl.dialects import arith, gpu

import gemmc
from test_split_k import BASES, GEMM_AB, toolchain
from test_tiling_passes import sources

SETTINGS = settings(max_examples=20, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])

def stream_pipeline(base: str, workgroups: int) -> str:
    before, after = BASES[base]
    return f"{before},stream-k{{workgroups={workgroups}}}{after}"


@SETTINGS
@given(src=sources(), base=st.sampled_from(sorted(BASES)), workgroups=st.integers(1, 13),
       m=st.integers(1, 90), n=st.integers(1, 90), k=st.integers(1, 200),
       arch=st.sampled_from(["gfx942", "gfx1100", "gfx1201"]))
def test_stream_k_matches_numpy(src, base, workgroups, m, n, k, arch):
    """Any number of persistent workgroups, more or fewer than the tiles, gives the declared GEMM."""
    module = gemmc.lower(gemmc.parse(src, "t.gemm"), stream_pipeline(base, workgroups), arch)
    result = gemmc.check(module, arch, {"M": m, "N": n, "K": k}, seed=m + 3 * n + k)
    assert result.passed, (base, workgroups, result.summary())


@pytest.mark.parametrize("m,n,k", [(257, 131, 4099), (1, 1, 5000)])
def test_stream_k_at_the_issues_shapes(m, n, k):
    module = gemmc.lower(gemmc.parse(GEMM_AB), stream_pipeline("matrix-cores", 0), "gfx942")
    assert gemmc.check(module, "gfx942", {"M": m, "N": n, "K": k}).passed


def _stream():
    return gemmc.lower(gemmc.parse(GEMM_AB), stream_pipeline("step3", 5), "gfx942")


def _fails(module) -> bool:
    return not gemmc.check(module, "gfx942", {"M": 40, "N": 24, "K": 70}, seed=1).passed


def _op(module, name_hint: str):
    return next(op for op in module.walk() if op.results and op.results[0].name_hint == name_hint)


def test_planted_overlapping_walks_fail():
    """Each workgroup walking one iteration past its share adds the shared iterations twice."""
    module = _stream()
    end = _op(module, "walk_end")
    share = _op(module, "share")
    one = arith.ConstantOp.from_int_and_width(1, share.results[0].type)
    share.parent_block().insert_op_after(one, share)
    longer = arith.AddiOp(share.results[0], one.results[0])
    share.parent_block().insert_op_after(longer, one)
    end.operands[0].owner.operands[1] = longer.results[0]  # begin + share + 1
    assert _fails(module)


def test_planted_missing_init_kernel_fails():
    module = _stream()
    init = next(op for op in module.walk() if isinstance(op, gpu.LaunchFuncOp))
    init.detach()
    init.erase()
    assert _fails(module)


@pytest.mark.skipif(toolchain() is None, reason="no clang with the AMDGPU backend")
@pytest.mark.parametrize("arch", ["gfx90a", "gfx942", "gfx950", "gfx1100", "gfx1201"])
def test_stream_k_compiles_for_every_target(arch):
    module = gemmc.lower(gemmc.parse(GEMM_AB), stream_pipeline("matrix-cores", 0), arch)
    asm = gemmc.emit(module, arch, "asm")
    assert "_streamk_init" in asm and "global_atomic" in asm


@settings(max_examples=6, deadline=None, derandomize=True)
@given(m=st.integers(1, 90), n=st.integers(1, 90), k=st.integers(1, 120), workgroups=st.integers(1, 9),
       order=st.sampled_from(["direct-to-lds,stream-k", "stream-k,direct-to-lds"]),
       buffered=st.booleans())
def test_stream_k_with_direct_loads_matches_numpy(m, n, k, workgroups, order, buffered):
    """Direct copies in a stream-k kernel: their wave base (tid - tid % wave) is built where
    stream-k defines tid, inside its loop over tiles (it was built before that loop: an internal
    error in the interpreter, IR that does not verify)."""
    first, second = order.split(",")
    first = first if first == "direct-to-lds" else f"stream-k{{workgroups={workgroups}}}"
    second = second if second == "direct-to-lds" else f"stream-k{{workgroups={workgroups}}}"
    pipeline = (f"gemm-to-kernel,lds-tiling{{block-m=64 block-n=64 block-k=16}},{first},{second},"
                + ("double-buffer," if buffered else "") + "lower-copies")
    module = gemmc.lower(gemmc.parse(GEMM_AB), pipeline, "gfx942", verify_each=True)
    assert "amdgpu.gather_to_lds" in gemmc.print_ir(module)
    assert gemmc.check(module, "gfx942", {"M": m, "N": n, "K": k}, seed=m + n + k).passed
