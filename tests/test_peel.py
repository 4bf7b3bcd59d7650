"""Peeled copies (vectorize with rows not provably aligned): the interpreter against numpy over
odd shapes, transposes, static and dynamic sizes and the copy paths (lower-copies, register
staging, k-major LDS), planted bugs that must FAIL, and the HIP compiled for every target."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from xdsl.dialects import vector

import gemmc
import gemmc.copy_lowering as copy_lowering
from gemmc.arch import ARCHS
from gemmc.dialects.gemm import CopyOp
from gemmc.pipeline import default_pipeline
from gemmc.interp.common import InterpError
from gemmc.ir_names import GLOBAL_SPACE, memory_space

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


def test_f16_rows_are_not_peeled_yet():
    """16-bit copies stay scalar at odd rows (gemmc's own backend could not select their vectors)."""
    src = source(False, True, {"M": 37, "N": 29, "K": 45}, "f16")
    assert not peeled(copies(src, PIPELINES["registers"]))
    module = lowered(src, PIPELINES["registers"], "gfx942")
    assert gemmc.check(module, "gfx942", {}, seed=5).passed


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
