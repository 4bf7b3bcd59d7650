"""split-k: the interpreter against numpy over shapes, factors and pipelines, planted bugs that
must FAIL, and the HIP it prints compiled for every AMD target."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from xdsl.dialects import gpu, memref, scf

import gemmc
from gemmc.support.diagnostics import GemmcError
from gemmc.support.ir_names import ROLE_ATTR
from test_tiling_passes import sources

SETTINGS = settings(max_examples=20, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])

STEP3_SMALL = "gemm-to-kernel,lds-tiling{block-m=32 block-n=32 block-k=8},register-tiling{thread-m=2 thread-n=2}"
BASES = {
    "step1": ("gemm-to-kernel", ""),
    "step3": (STEP3_SMALL, ",double-buffer,vectorize{width=4}"),
    "matrix-cores": ("gemm-to-kernel,lds-tiling{block-m=64 block-n=64 block-k=16},"
                     "register-tiling{thread-m=4 thread-n=4},matrix-cores{convert=none fallback=true}",
                     ",double-buffer,launch-bounds"),
}
GEMM_AB = """kernel t {
  dim M, N, K
  A: f32[M, K]  B: f32[N, K]  C: f32[M, N]  alpha: f32  beta: f32
  C = alpha * A @ B.T + beta * C
}"""


def split_pipeline(base: str, factor: int, reduce: str) -> str:
    before, after = BASES[base]
    return f"{before},split-k{{factor={factor} reduce={reduce}}}{after}"


@SETTINGS
@given(src=sources(), base=st.sampled_from(sorted(BASES)), factor=st.integers(2, 5),
       reduce=st.sampled_from(["atomic", "workspace"]), m=st.integers(1, 90), n=st.integers(1, 90),
       k=st.integers(1, 200), arch=st.sampled_from(["gfx942", "gfx1100", "gfx1201"]))
def test_split_k_matches_numpy(src, base, factor, reduce, m, n, k, arch):
    """Any split of K (K below the factor included: empty chunks) gives the declared GEMM."""
    module = gemmc.lower(gemmc.parse(src, "t.gemm"), split_pipeline(base, factor, reduce), arch)
    result = gemmc.check(module, arch, {"M": m, "N": n, "K": k}, seed=m + 3 * n + k)
    assert result.passed, (base, factor, reduce, result.summary())


@pytest.mark.parametrize("reduce", ["atomic", "workspace"])
@pytest.mark.parametrize("m,n,k", [(257, 131, 4099), (1, 1, 5000)])
def test_split_k_at_the_issues_shapes(reduce, m, n, k):
    module = gemmc.lower(gemmc.parse(GEMM_AB), split_pipeline("matrix-cores", 8, reduce), "gfx942")
    assert gemmc.check(module, "gfx942", {"M": m, "N": n, "K": k}).passed


def test_split_k_workspace_keeps_f16_output():
    """A 16-bit C: the workspace holds the f32 partial sums; the reduce kernel rounds once."""
    src = "kernel h { dim M, N, K  A: f16[M, K]  B: f16[K, N]  C: f16[M, N]  acc f32  C = A @ B }"
    module = gemmc.lower(gemmc.parse(src), split_pipeline("matrix-cores", 4, "workspace"), "gfx942")
    workspace = [op for op in module.walk() if isinstance(op, memref.AllocOp)]
    assert [str(op.memref.type.element_type) for op in workspace] == ["f32"]
    assert gemmc.check(module, "gfx942", {"M": 70, "N": 33, "K": 300}).passed


# -- planted bugs: each must make the check FAIL --------------------------------------------------


def _split(reduce: str):
    return gemmc.lower(gemmc.parse(GEMM_AB), split_pipeline("step3", 3, reduce), "gfx942")


def _launches(module):
    return [op for op in module.walk() if isinstance(op, gpu.LaunchFuncOp)]


def _fails(module) -> bool:
    return not gemmc.check(module, "gfx942", {"M": 40, "N": 24, "K": 70}, seed=1).passed


def test_planted_missing_init_kernel_fails():
    """Without the init kernel, beta * C is never added."""
    module = _split("atomic")
    init = _launches(module)[0]
    init.detach()
    init.erase()
    assert _fails(module)


def test_planted_every_workgroup_runs_all_of_k_fails():
    """Each z running the whole K range counts every product three times."""
    module = _split("atomic")
    loop = next(op for op in module.walk() if isinstance(op, scf.ForOp) and ROLE_ATTR in op.attributes
                and op.attributes[ROLE_ATTR].data == "k_loop")
    end = loop.ub.owner  # k_end = min(k_begin + k_chunk, the K loop's own bound)
    loop.operands[1] = end.operands[1]
    loop.operands[0] = _constant_before(loop, 0)
    assert _fails(module)


def test_planted_reduce_skips_a_slice_fails():
    """The reduce kernel adding two of the three partial sums loses a third of K."""
    module = _split("workspace")
    reduce_loop = next(op for op in module.walk() if isinstance(op, scf.ForOp)
                       and op.results and op.results[0].name_hint == "partial_sum")
    reduce_loop.operands[0] = _constant_before(reduce_loop, 1)
    assert _fails(module)


def _constant_before(op, value: int):
    from xdsl.rewriter import InsertPoint

    from gemmc.transforms.kernel_builder import KernelBuilder

    return KernelBuilder(InsertPoint.before(op)).index(value, "planted")


# -- what it prints ---------------------------------------------------------------------------------


def toolchain():
    from gemmc.target.toolchain import find_toolchain

    try:
        return find_toolchain()
    except GemmcError:
        return None


@pytest.mark.skipif(toolchain() is None, reason="no clang with the AMDGPU backend")
@pytest.mark.parametrize("arch", ["gfx90a", "gfx942", "gfx950", "gfx1100", "gfx1201"])
def test_split_k_compiles_for_every_target(arch):
    """The atomic epilogue becomes a float atomic add: an instruction, or on gfx90a (whose
    global_atomic_add_f32 is not safe on fine-grained memory and flushes denormals) LLVM's
    compare-and-swap loop, since the kernel cannot know which memory C is in."""
    module = gemmc.lower(gemmc.parse(GEMM_AB), split_pipeline("step3", 4, "atomic"), arch)
    asm = gemmc.emit(module, arch, "asm")
    assert ("global_atomic_cmpswap" if arch == "gfx90a" else "global_atomic_add_f32") in asm
    assert "_splitk_init" in asm
