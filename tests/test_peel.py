"""Peeled copies (vectorize with rows not provably aligned): the interpreter against numpy over
odd shapes, transposes, static and dynamic sizes and the copy paths (lower-copies, register
staging, k-major LDS), planted bugs that must FAIL, and the HIP compiled for every target."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from xdsl.dialects import vector

import gemmc
import gemmc.transforms.copy_lowering as copy_lowering
from gemmc.target.arch import ARCHS
from gemmc.dialects.gemm import CopyOp
from gemmc.driver.pipeline import default_pipeline
from gemmc.interp.common import InterpError
from gemmc.support.ir_names import GLOBAL_SPACE, memory_space

SETTINGS = settings(max_examples=15, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])
TILES = "gemm-to-kernel,lds-tiling{block-m=32 block-n=32 block-k=8}"
PIPELINES = {
    "lower-copies": TILES + ",vectorize{width=4}",
    "registers": TILES + ",register-tiling{thread-m=2 thread-n=2},vectorize{width=4},double-buffer{stage=registers}",
    "k-major": TILES + ",register-tiling{thread-m=2 thread-n=2 lds-layout=k-major unroll=true},vectorize{width=4},"
                       "double-buffer{stage=registers}",
    "lds-stage": TILES + ",register-tiling{thread-m=2 thread-n=2},double-buffer,vectorize{width=4}",
}
SIZES = st.sampled_from([1, 3, 5, 67, 1023]) | st.integers(1, 80)


def source(ta: bool, tb: bool, dims: dict[str, int] | None, elem: str = "f32") -> str:
    a = f"A: {elem}[K, M]" if ta else f"A: {elem}[M, K]"
    b = f"B: {elem}[N, K]" if tb else f"B: {elem}[K, N]"
    acc = "  acc f32" if elem != "f32" else ""
    decl = "dim M, N, K" if dims is None else f"dim M = {dims['M']}, N = {dims['N']}, K = {dims['K']}"
    return (f"kernel t {{ {decl}  {a}  {b}  C: {elem}[M, N]{acc}  "
            f"C = {'A.T' if ta else 'A'} @ {'B.T' if tb else 'B'} }}")


def copies(src: str, pipeline: str, arch: str = "gfx942") -> list[CopyOp]:
    """The gemm.copy ops the pipeline leaves (before lower-copies)."""
    module = gemmc.lower(gemmc.parse(src), pipeline, arch, finalize=False)
    return [op for op in module.walk() if isinstance(op, CopyOp)]


def peeled(ops: list[CopyOp]) -> int:
    return sum(1 for op in ops if op.peel is not None)


def lowered(src: str, pipeline: str, arch: str):
    return gemmc.lower(gemmc.parse(src), pipeline, arch)


@SETTINGS
@given(ta=st.booleans(), tb=st.booleans(), m=SIZES, n=SIZES, k=SIZES, static=st.booleans(),
       path=st.sampled_from(sorted(PIPELINES)), arch=st.sampled_from(["gfx942", "gfx1100", "sm_90"]))
def test_peeled_copies_match_numpy(ta, tb, m, n, k, static, path, arch):
    """Any sizes, odd ones included: rows at every alignment, edges of every width."""
    assume(m * n * k <= 200_000)
    dims = {"M": m, "N": n, "K": k}
    module = lowered(source(ta, tb, dims if static else None), PIPELINES[path], arch)
    result = gemmc.check(module, arch, {} if static else dims, seed=m + 3 * n + 7 * k)
    assert result.passed, (path, result.summary())


@pytest.mark.parametrize("arch", ["gfx90a", "gfx942", "gfx950", "gfx1100", "gfx1201", "sm_90"])
def test_default_pipeline_peels_odd_static_rows(arch):
    """The arch's default pipeline at an odd static shape: peeled vector copies, and PASS."""
    src = source(False, False, {"M": 67, "N": 45, "K": 37})
    module = gemmc.lower(gemmc.parse(src), default_pipeline(ARCHS[arch]), arch)
    assert any(isinstance(op, vector.LoadOp) and memory_space(op.base.type) == GLOBAL_SPACE for op in module.walk())
    assert gemmc.check(module, arch, {}, seed=3).passed


F16_PIPELINE = PIPELINES["registers"].replace("width=4", "width=8")


@settings(max_examples=10, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(ta=st.booleans(), tb=st.booleans(), m=SIZES, n=SIZES, k=SIZES, elem=st.sampled_from(["f16", "bf16"]),
       width=st.sampled_from([2, 4, 8]), arch=st.sampled_from(["gfx942", "gfx1201"]))
def test_peeled_16bit_copies_match_numpy(ta, tb, m, n, k, elem, width, arch):
    """16-bit rows at every alignment: vectors of 2, 4 or 8 elements with their heads and tails."""
    assume(m * n * k <= 200_000)
    src = source(ta, tb, {"M": m, "N": n, "K": k}, elem)
    module = lowered(src, PIPELINES["registers"].replace("width=4", f"width={width}"), arch)
    assert gemmc.check(module, arch, {}, seed=m + n + k).passed


def gcn_lowered(src: str, pipeline: str, arch: str):
    from gemmc.amdgcn import GCN_PIPELINE

    return gemmc.lower(gemmc.parse(src), f"{pipeline},{GCN_PIPELINE}", arch)


def global_vector_loads(module) -> int:
    return len(re.findall(r"global_load_(?:dwordx[24]|b64|b128)", str(module)))


@pytest.mark.parametrize("arch, static, elem", [("gfx942", True, "f16"), ("gfx942", False, "bf16"),
                                                ("gfx1100", True, "bf16"), ("gfx1201", False, "f16")])
def test_own_backend_loads_peeled_16bit_rows_by_vectors(arch, static, elem):
    """Odd rows of f16/bf16: the peeled interiors are global_load_dwordx4 (gemmc.transforms.residues proves
    the index sum aligned), their heads and tails shorts; PASS in the amdgcn interpreter."""
    dims = {"M": 37, "N": 29, "K": 45}
    src = source(False, True, dims if static else None, elem)
    assert peeled(copies(src, F16_PIPELINE)) == 2
    module = gcn_lowered(src, F16_PIPELINE, arch)
    assert global_vector_loads(module) > 0
    assert gemmc.check(module, arch, {} if static else dims, seed=5).passed


def test_planted_bug_unaligned_16bit_vectors_are_refused_by_the_own_backend(monkeypatch):
    """With the row head taken as 0 the vectors start wherever the row does: the backend's proof
    fails and it refuses the load in one line (it does not load misaligned dwords)."""
    monkeypatch.setattr(copy_lowering, "_row_head", lambda b, op, g0, w: b.index(0))
    src = source(False, True, {"M": 37, "N": 29, "K": 45}, "f16")
    with pytest.raises(gemmc.GemmcError, match="a vector load of 8 16-bit elements from global memory is selected "
                                               "for 2, 4 or 8 elements at an offset known to be a multiple of 4"):
        gcn_lowered(src, F16_PIPELINE, "gfx942")


def test_own_backend_default_peels_16bit_rows_on_wave32_only():
    """gcn_default_pipeline: on wave64 the 16-bit copies of misaligned rows stay scalar (their
    lane masks exceed the allocator's 96 SGPRs at hgemm's tiles); f32 and wave32 peel."""
    from gemmc.driver.pipeline import gcn_default_pipeline

    assert "peel=false" in gcn_default_pipeline(ARCHS["gfx942"], "f16")
    assert "peel=false" not in gcn_default_pipeline(ARCHS["gfx942"], "f32")
    assert "peel=false" not in gcn_default_pipeline(ARCHS["gfx1201"], "bf16")
    src = source(False, True, {"M": 37, "N": 29, "K": 45}, "f16")
    module = gcn_lowered(src, gcn_default_pipeline(ARCHS["gfx1100"], "f16"), "gfx1100")
    assert global_vector_loads(module) > 0 and gemmc.check(module, "gfx1100", {}, seed=2).passed


@pytest.mark.parametrize("arch", ["gfx90a", "gfx942", "gfx950", "gfx1100", "gfx1201"])
def test_peeled_16bit_rows_compile_with_llvm(arch):
    """The HIP of a peeled f16 kernel through LLVM: 16-byte global loads, no scratch."""
    src = source(False, True, {"M": 37, "N": 29, "K": 45}, "f16")
    asm = gemmc.emit(lowered(src, F16_PIPELINE, arch), arch, "asm")
    assert "global_load_dwordx4" in asm or "global_load_b128" in asm
    assert ".private_segment_fixed_size: 0" in asm


def test_aligned_rows_do_not_peel():
    ops = copies(source(False, False, {"M": 64, "N": 64, "K": 64}), TILES + ",vectorize{width=4}")
    assert not peeled(ops) and all(op.width.value.data == 4 for op in ops)


def test_odd_rows_peel_and_peel_false_stays_scalar():
    src = source(False, False, {"M": 67, "N": 45, "K": 37})
    assert peeled(copies(src, TILES + ",vectorize{width=4}")) == 2
    ops = copies(src, TILES + ",vectorize{width=4 peel=false}")
    assert not peeled(ops) and all(op.width.value.data == 1 for op in ops)


# -- planted bugs -------------------------------------------------------------------------


def test_planted_bug_misaligned_vectors_are_refused(monkeypatch):
    """Vectors at the tile's first column (head taken as 0) are misaligned in most rows."""
    def no_head(b, op, g0, w):
        return b.index(0)

    monkeypatch.setattr(copy_lowering, "_row_head", no_head)
    module = lowered(source(False, False, {"M": 9, "N": 10, "K": 37}), PIPELINES["lower-copies"], "gfx942")
    with pytest.raises(InterpError, match="misaligned vector.load"):
        gemmc.check(module, "gfx942", {}, seed=1)


def test_planted_bug_lost_edges_fail(monkeypatch):
    """Items that skip the rows' head and tail elements must FAIL the check."""
    real = copy_lowering.PeeledItems.store

    def store(self, b, item, lead):
        if self.interior:
            real(self, b, item, lead)

    monkeypatch.setattr(copy_lowering.PeeledItems, "store", store)
    module = lowered(source(False, False, {"M": 9, "N": 10, "K": 37}), PIPELINES["lower-copies"], "gfx942")
    assert not gemmc.check(module, "gfx942", {}, seed=1).passed


def test_planted_bug_swapped_vector_elements_fail(monkeypatch):
    """A vector's elements stored in reverse order must FAIL the check."""
    real = copy_lowering.PeeledItems.store

    def store(self, b, item, lead):
        if self.interior:
            item.values = item.values[::-1]
        real(self, b, item, lead)

    monkeypatch.setattr(copy_lowering.PeeledItems, "store", store)
    module = lowered(source(False, False, {"M": 9, "N": 10, "K": 37}), PIPELINES["lower-copies"], "gfx942")
    assert not gemmc.check(module, "gfx942", {}, seed=1).passed
