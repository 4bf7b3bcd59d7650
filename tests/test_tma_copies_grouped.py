"""tma-copies on grouped products (issue #36): X's box from the group's first row, running past the group's
end into the next group's rows where every store of Y is masked to the group; W [G, K, N] through a
rank-3 map at the group.

* the interpreter against numpy (hypothesis: M, G, odd N and K multiples of 8, random group sizes with
  empty ones, with and without split-k's atomics);
* planted bug FAILS: Y's row mask widened from the group's end to all rows (the next group's rows of X,
  multiplied by this group's W, stored over the next group's Y);
* nvcc (no GPU): issue #36's 8-group program on sm_90's default with tma-copies builds.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from xdsl.dialects import arith
from xdsl.rewriter import InsertPoint, Rewriter

import gemmc
from gemmc.target.arch import get_arch
from gemmc.transforms.kernel_builder import index_constant
from test_tma_copies_k_ranges import DEFAULT_TMA, builds_with_tma
from test_wgmma_in_flight import NVCC

SM90 = get_arch("sm_90")
_HEAD = ("gemm-to-kernel,lds-tiling{block-m=64 block-n=64 block-k=64},register-tiling{thread-m=4 thread-n=4},"
         "matrix-cores{instr=wgmma_m64n64k16 waves-m=1 waves-n=1},vectorize{width=8},direct-to-lds{fallback=true},")
_TAIL = "multi-buffer{factor=4},pipeline{stages=4},wgmma-in-flight,tma-copies,lower-copies,swizzle-lds{mode=sw128}"
SOURCE = "kernel moe { dim M, G, N, K  X: f16[M, K]  W: f16[G, K, N]  sizes: i32[G]  Y: f32[M, N]  acc f32  " \
         "Y = X @ W grouped by sizes }"
DIMS = {"M": 300, "G": 4, "N": 72, "K": 96}


def lowered(p: str, dims: dict, finalize: bool = True):
    return gemmc.lower(gemmc.parse(SOURCE, defines=dims), p, SM90, finalize=finalize)


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(m=st.integers(1, 200), g=st.integers(1, 5), n=st.integers(1, 12).map(lambda x: 8 * x),
       k=st.integers(1, 24).map(lambda x: 8 * x), split=st.booleans())
def test_grouped_vs_numpy(m, g, n, k, split):
    p = _HEAD + ("split-k{factor=2 reduce=atomic}," if split else "") + _TAIL
    r = gemmc.check(lowered(p, {"M": m, "G": g, "N": n, "K": k}), SM90, {})
    assert r.passed, r.summary()


def _mask_all_rows(m) -> None:
    """Y's stores masked at M's edge (an ungrouped kernel's mask) instead of the group's end."""
    for o in [o for o in m.walk() if isinstance(o, arith.CmpiOp) and o.rhs.name_hint == "group_end"
              and (o.lhs.name_hint or "").startswith("r")]:
        rows = index_constant(DIMS["M"])
        Rewriter.insert_op(rows, InsertPoint.before(o))
        o.operands[1] = rows.results[0]


def test_planted_unmasked_group_rows_fail():
    good = lowered(_HEAD + _TAIL, DIMS, finalize=False)
    assert gemmc.check(good, SM90, {}).passed
    bad = lowered(_HEAD + _TAIL, DIMS, finalize=False)
    _mask_all_rows(bad)
    assert not gemmc.check(bad, SM90, {}).passed


ISSUE_36 = {"M": 6336, "G": 8, "N": 4096, "K": 4096}


@pytest.mark.skipif(NVCC is None, reason="needs nvcc (the CUDA toolkit; no GPU)")
def test_issue_36_grouped_builds():
    builds_with_tma(lowered(DEFAULT_TMA, ISSUE_36), ["gemmc_tensor_map_3d(&W_map, W", "gemmc_tensor_map_2d(&X_map, X"])
