"""Every tiling pass, composed in the tutorial's order and in subsets, against numpy.

Hypothesis draws M, N, K (mostly not multiples of any tile), layouts, alpha/beta and
legal pass options; the interpreter must match the float64 reference, never read or
write out of bounds, and never race on LDS.
"""

from __future__ import annotations

import functools

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gemmc
from gemmc.support.diagnostics import GemmcError

SETTINGS = settings(max_examples=25, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])


@st.composite
def sources(draw):
    ta, tb = draw(st.booleans()), draw(st.booleans())
    a = "A: f32[K, M]" if ta else "A: f32[M, K]"
    b = "B: f32[N, K]" if tb else "B: f32[K, N]"
    expr = f"{'A.T' if ta else 'A'} @ {'B.T' if tb else 'B'}"
    if draw(st.booleans()):
        expr = f"alpha * {expr} + beta * C"
    return f"kernel t {{ dim M, N, K  {a}  {b}  C: f32[M, N]  alpha: f32  beta: f32  C = {expr} }}"


@st.composite
def pipelines(draw):
    bm, bn = draw(st.sampled_from([16, 32, 64])), draw(st.sampled_from([16, 32, 64]))
    bk = draw(st.sampled_from([4, 8, 16]))
    passes = ["gemm-to-kernel", f"lds-tiling{{block-m={bm} block-n={bn} block-k={bk}}}"]
    if draw(st.booleans()):
        tm = draw(st.sampled_from([t for t in (1, 2, 4, 8) if bm % t == 0]))
        tn = draw(st.sampled_from([t for t in (1, 2, 4, 8) if bn % t == 0]))
        layout = draw(st.sampled_from(["tutorial", "k-major"]))
        passes.append(f"register-tiling{{thread-m={tm} thread-n={tn} lds-layout={layout}}}")
    extras = draw(st.lists(st.sampled_from(["double-buffer", "double-buffer{stage=registers}",
                                            "double-buffer{stage=registers lds-slots=1}", "vectorize"]),
                           unique_by=lambda p: p.split("{")[0], max_size=2))
    for e in extras:
        passes.append(e if e != "vectorize" else f"vectorize{{width={draw(st.sampled_from([1, 2, 4]))}}}")
    return ",".join(passes)


@SETTINGS
@given(src=sources(), pipeline=pipelines(), m=st.integers(1, 150), n=st.integers(1, 150), k=st.integers(1, 90),
       arch=st.sampled_from(["gfx942", "gfx1100"]))
def test_tiled_kernels_match_numpy(src, pipeline, m, n, k, arch):
    module = gemmc.parse(src, "t.gemm")
    try:
        gemmc.lower(module, pipeline, arch)
    except GemmcError as e:  # a tile that does not fit: a diagnostic naming the pass
        assert str(e).startswith("error: ") and ":" in e.message
        return
    result = gemmc.check(module, arch, {"M": m, "N": n, "K": k}, seed=m * 7 + n)
    assert result.passed, (pipeline, result.summary())


@functools.cache
def _tuned_kernel():
    src = "kernel s { dim M, N, K  A: f32[M, K]  B: f32[K, N]  C: f32[M, N]  C = A @ B }"
    return gemmc.lower(gemmc.parse(src), "tuned-h200", "gfx942")


@settings(max_examples=8, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(m=st.integers(1, 280), n=st.integers(1, 280), k=st.integers(1, 280))
def test_tuned_pipeline_matches_numpy(m, n, k):
    """One kernel with dynamic sizes (lowered once) against numpy at shapes of one to three
    128 x 128 tiles, edges included."""
    assert gemmc.check(_tuned_kernel(), "gfx942", {"M": m, "N": n, "K": k}).passed


@settings(max_examples=12, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(m=st.integers(1, 200), n=st.integers(1, 200), k=st.integers(1, 120), arch=st.sampled_from(["gfx942", "gfx1201"]))
def test_one_lds_slot_matches_numpy(m, n, k, arch):
    """Register staging into one LDS buffer: the interpreter's race check and numpy both hold."""
    src = "kernel s { dim M, N, K  A: f32[M, K]  B: f32[K, N]  C: f32[M, N]  C = A @ B }"
    module = gemmc.lower(gemmc.parse(src), "gemm-to-kernel,lds-tiling{block-m=32 block-n=32 block-k=8},"
                         "register-tiling{thread-m=4 thread-n=4},vectorize{width=4},"
                         "double-buffer{stage=registers lds-slots=1}", arch)
    assert gemmc.check(module, arch, {"M": m, "N": n, "K": k}, seed=m + n).passed


IN_PLACE = ["register-tiling{thread-m=4 thread-n=4}", "double-buffer", "double-buffer{stage=registers}",
            "double-buffer{stage=registers lds-slots=1}",
            "vectorize{width=4}", "pad-lds{pad=4 buffers=tile_a}", "matrix-cores", "split-k{factor=3}"]


@st.composite
def in_place_orders(draw):
    """lds-tiling, then the in-place passes in any order: each applies where its preconditions
    hold in that order, or stops with a located error."""
    chosen = draw(st.lists(st.sampled_from(IN_PLACE), unique_by=lambda p: p.split("{")[0], max_size=4))
    return ",".join(["gemm-to-kernel", "lds-tiling{block-m=64 block-n=64 block-k=16}", *chosen])


@SETTINGS
@given(pipeline=in_place_orders(), m=st.integers(1, 100), n=st.integers(1, 100), k=st.integers(1, 60),
       arch=st.sampled_from(["gfx942", "gfx1100"]))
def test_in_place_passes_compose_in_any_order(pipeline, m, n, k, arch):
    src = "kernel t { dim M, N, K  A: f32[M, K]  B: f32[K, N]  C: f32[M, N]  C = A @ B }"
    module = gemmc.parse(src, "t.gemm")
    try:
        gemmc.lower(module, pipeline, arch)
    except GemmcError as e:  # an order a pass cannot take (matrix-cores before register-tiling, ...)
        assert str(e).startswith("error: ") and "(at '" in str(e), str(e)
        return
    result = gemmc.check(module, arch, {"M": m, "N": n, "K": k}, seed=m + 5 * n)
    assert result.passed, (pipeline, result.summary())
