"""assume-aligned: vector copies on dynamic matrices whose rows the launcher knows to be aligned;
the interpreter holds the kernel to its assumption."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gemmc
from gemmc.interp.common import InterpError

SETTINGS = settings(max_examples=20, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])
PIPELINE = ("gemm-to-kernel,assume-aligned{multiple=4},lds-tiling{block-m=32 block-n=32 block-k=8},"
            "register-tiling{thread-m=2 thread-n=2},vectorize{width=4 strict=true},double-buffer")


def source(ta: bool, tb: bool) -> str:
    a = "A: f32[K, M]" if ta else "A: f32[M, K]"
    b = "B: f32[N, K]" if tb else "B: f32[K, N]"
    return (f"kernel t {{ dim M, N, K  {a}  {b}  C: f32[M, N]  alpha: f32  beta: f32  "
            f"C = alpha * {'A.T' if ta else 'A'} @ {'B.T' if tb else 'B'} + beta * C }}")


@SETTINGS
@given(ta=st.booleans(), tb=st.booleans(), m=st.integers(1, 25), n=st.integers(1, 25), k=st.integers(1, 40),
       arch=st.sampled_from(["gfx942", "gfx1100"]))
def test_aligned_rows_match_numpy(ta, tb, m, n, k, arch):
    """Any sizes whose row lengths are multiples of 4 (M, N, K = 4 x the drawn numbers)."""
    module = gemmc.lower(gemmc.parse(source(ta, tb)), PIPELINE, arch)
    assert gemmc.check(module, arch, {"M": 4 * m, "N": 4 * n, "K": 4 * k}, seed=m + n + k).passed


def test_a_launch_outside_the_assumption_is_an_error_not_a_wrong_result():
    module = gemmc.lower(gemmc.parse(source(False, False)), PIPELINE, "gfx942")
    with pytest.raises(InterpError, match="rows of 45 elements are not a multiple of 4"):
        gemmc.check(module, "gfx942", {"M": 8, "N": 45, "K": 16})


def test_the_compiler_is_told_too():
    module = gemmc.lower(gemmc.parse(source(False, True)), PIPELINE, "gfx942")
    hip = gemmc.emit(module, "gfx942")
    assert "__builtin_assume(K % 4 == 0);" in hip and "__builtin_assume(N % 4 == 0);" in hip
