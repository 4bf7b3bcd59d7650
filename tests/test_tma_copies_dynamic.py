"""tma-copies with dynamic sizes: the tensor maps encoded at launch with the runtime sizes, the copies'
bounds the sources' dims by gemm.arg_dims, the rows' 16-byte multiple proven by assume-aligned.

* the interpreter against numpy (hypothesis: dynamic M, N, K of a plain, a batched and a grouped
  product; the grouped W's rows static, since assume-aligned covers 2-D matrices only);
* a launch whose row length breaks the assumption is refused by the interpreter, not miscomputed;
* nvcc (no GPU): the dynamic launcher, its maps of runtime sizes, builds.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gemmc
from gemmc.interp.common import InterpError
from gemmc.target.arch import get_arch
from test_tma_copies_k_ranges import builds_with_tma
from test_wgmma_in_flight import NVCC

SM90 = get_arch("sm_90")
PIPELINE = ("gemm-to-kernel,assume-aligned{multiple=8},lds-tiling{block-m=64 block-n=64 block-k=64},"
            "register-tiling{thread-m=4 thread-n=4},matrix-cores{instr=wgmma_m64n64k16 waves-m=1 waves-n=1},"
            "vectorize{width=8},direct-to-lds{fallback=true},multi-buffer{factor=4},pipeline{stages=4},"
            "wgmma-in-flight,tma-copies,lower-copies,swizzle-lds{mode=sw128}")
SOURCES = {
    "plain": "kernel g { dim M, N, K  A: f16[M, K]  B: f16[K, N]  C: f32[M, N]  acc f32  C = A @ B }",
    "batched": "kernel g { dim Bt, M, N, K  A: f16[Bt, M, K]  B: f16[K, N]  C: f32[Bt, M, N]  acc f32  C = A @ B }",
    "grouped": "kernel g { dim M, G, N = 72, K  X: f16[M, K]  W: f16[G, K, N]  sizes: i32[G]  Y: f32[M, N]  acc f32  "
               "Y = X @ W grouped by sizes }",
}


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kind=st.sampled_from(sorted(SOURCES)), m=st.integers(1, 140), n=st.integers(1, 12).map(lambda x: 8 * x),
       k=st.integers(1, 30).map(lambda x: 8 * x), b=st.integers(1, 3))
def test_dynamic_vs_numpy(kind, m, n, k, b):
    dims = {"M": m, "K": k, **({"N": n} if kind != "grouped" else {}), **({"Bt": b} if kind == "batched" else {}),
            **({"G": b + 1} if kind == "grouped" else {})}
    r = gemmc.check(gemmc.lower(gemmc.parse(SOURCES[kind]), PIPELINE, SM90), SM90, dims)
    assert r.passed, r.summary()


def test_unaligned_rows_at_launch_are_refused():
    """K = 100 halves: A's rows are 200 bytes, no multiple of 16 (and of the 8 elements assumed)."""
    m = gemmc.lower(gemmc.parse(SOURCES["plain"]), PIPELINE, SM90)
    with pytest.raises(InterpError, match="multiple of 8"):
        gemmc.check(m, SM90, {"M": 64, "N": 64, "K": 100})


@pytest.mark.skipif(NVCC is None, reason="needs nvcc (the CUDA toolkit; no GPU)")
def test_dynamic_launcher_builds():
    builds_with_tma(gemmc.lower(gemmc.parse(SOURCES["plain"]), PIPELINE, SM90),
                    ["gemmc_tensor_map_2d(&A_map, A, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, M, K,"])
