"""vectorize's stores of C by pairs of accumulator items (gemmc/transforms/fragment_stores.py).

* the layouts: sm_90's mma.sync and wgmma D layouts pair items 2p, 2p + 1 at adjacent columns of one
  row; no MFMA / WMMA C layout of the AMD targets does (their epilogues stay as they are);
* the rewrite: a 2-element vector store of C where the pair lies inside C and C's row length is even
  (static, or checked at run time where it is dynamic), the original scalar stores otherwise; a static
  odd row length keeps the loop as it is; vectorize{stores=false} keeps it too;
* the interpreter against numpy (hypothesis: odd N, N = 1, dynamic sizes) for mma.sync and wgmma
  schedules, with a fused epilogue (bias + gelu, f16 C), and through split-k and stream-k;
* the HIP builds with nvcc: a float2 (f16 C: a 2-vector of halves) store in the PTX.
"""

from __future__ import annotations

import shutil

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gemmc
from gemmc.target import wgmma
from gemmc.target.arch import get_arch
from gemmc.transforms.fragment_stores import pairs_layout

SM90 = get_arch("sm_90")
MMA = ("gemm-to-kernel,lds-tiling{block-m=64 block-n=64 block-k=32},register-tiling{thread-m=4 thread-n=4},"
       "matrix-cores{waves-m=2 waves-n=2},ldmatrix,vectorize{width=8%s},direct-to-lds{fallback=true},"
       "double-buffer{stage=lds},lower-copies")
WGMMA = ("gemm-to-kernel,lds-tiling{block-m=64 block-n=64 block-k=64},register-tiling{thread-m=4 thread-n=4},"
         "matrix-cores{instr=wgmma_m64n64k16 waves-m=1 waves-n=1},vectorize{width=8%s},direct-to-lds{fallback=true},"
         "lower-copies,swizzle-lds{mode=sw128}")
SCHEDULES = {"mma": MMA, "wgmma": WGMMA}


def source(dims: str = "M, N, K", c: str = "f32", epilogue: bool = False) -> str:
    if epilogue:
        return (f"kernel g {{ dim {dims}  A: f16[M, K]  B: f16[K, N]  bias: f16[N]  C: {c}[M, N]  acc f32  "
                f"C = gelu(A @ B + bias) }}")
    return f"kernel g {{ dim {dims}  A: f16[M, K]  B: f16[K, N]  C: {c}[M, N]  acc f32  C = A @ B }}"


def lowered(schedule: str, text: str, defines=None, stores: bool = True):
    p = SCHEDULES[schedule] % ("" if stores else " stores=false")
    return gemmc.lower(gemmc.parse(text, defines=defines or {}), p, SM90)


def c_stores(module) -> list[str]:
    return [line.strip() for line in gemmc.print_ir(module).splitlines()
            if ("vector.store" in line or "memref.store" in line) and "%C" in line]


# -- the layouts ---------------------------------------------------------------------------


def test_sm90_layouts_pair_items():
    assert all(pairs_layout(i.d) for i in SM90.matrix_instrs)
    assert all(pairs_layout(wgmma.d_layout(n)) for n in wgmma.WGMMA_N)


@pytest.mark.parametrize("arch", ["gfx90a", "gfx942", "gfx950", "gfx1100", "gfx1201"])
def test_amd_layouts_do_not(arch):
    assert not any(pairs_layout(i.d) for i in get_arch(arch).matrix_instrs)


# -- the rewrite ---------------------------------------------------------------------------


@pytest.mark.parametrize("schedule", ["mma", "wgmma"])
def test_even_static_rows_store_pairs(schedule):
    stores = c_stores(lowered(schedule, source("M = 128, N = 128, K = 64")))
    assert any("vector.store" in s and "vector<2xf32>" in s for s in stores), stores
    assert any("memref.store" in s for s in stores)  # the pair's scalar stores at C's edge


@pytest.mark.parametrize("schedule", ["mma", "wgmma"])
def test_odd_static_rows_and_stores_false_keep_scalars(schedule):
    assert not any("vector.store" in s for s in c_stores(lowered(schedule, source("M = 64, N = 127, K = 64"))))
    assert not any("vector.store" in s for s in c_stores(lowered(schedule, source("M = 64, N = 128, K = 64"),
                                                                  stores=False)))


def test_dynamic_rows_check_their_parity():
    """A dynamic row length: its parity joins the pair's condition (memref.dim of C, remui by 2)."""
    ir = gemmc.print_ir(lowered("mma", source()))
    assert any("vector.store" in s for s in c_stores(lowered("mma", source())))
    dims = [line for line in ir.splitlines() if "memref.dim %C" in line]
    assert dims and any(f"arith.remui {d.split('=')[0].strip()}" in ir for d in dims)


def test_amd_epilogue_unchanged():
    text = source("M = 128, N = 128, K = 64")
    m = gemmc.lower(gemmc.parse(text), "step7", "gfx942")
    assert not any("vector.store" in s for s in c_stores(m))
    assert "epilogue_pairs" not in gemmc.print_ir(m)


# -- against numpy ---------------------------------------------------------------------------

_dims = st.fixed_dictionaries({"M": st.integers(1, 80), "N": st.sampled_from([1, 2, 3, 7, 8, 33, 64, 66, 67, 80]),
                               "K": st.integers(1, 40)})


@pytest.mark.parametrize("schedule", ["mma", "wgmma"])
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(dims=_dims)
def test_dynamic_sizes_match_numpy(schedule, dims):
    module = lowered(schedule, source())
    r = gemmc.check(module, SM90, dims)
    assert r.passed, r.summary()


@pytest.mark.parametrize("schedule", ["mma", "wgmma"])
@pytest.mark.parametrize("n", [1, 63, 64, 66])
def test_static_sizes_match_numpy(schedule, n):
    module = lowered(schedule, source(f"M = 70, N = {n}, K = 24"))
    r = gemmc.check(module, SM90, {})
    assert r.passed, r.summary()


@pytest.mark.parametrize("schedule", ["mma", "wgmma"])
@settings(max_examples=4, deadline=None)
@given(dims=_dims)
def test_bias_gelu_f16_c_matches_numpy(schedule, dims):
    module = lowered(schedule, source(c="f16", epilogue=True))
    assert "vector<2xf16>" in gemmc.print_ir(module)
    r = gemmc.check(module, SM90, dims)
    assert r.passed, r.summary()


@pytest.mark.parametrize("split,c", [("split-k{factor=2 reduce=workspace}", "f32"),
                                     ("split-k{factor=2 reduce=atomic}", "f32"),
                                     ("stream-k{workgroups=3}", "f32"), ("stream-k{workgroups=3}", "f16")])
def test_k_splits_take_the_pairs(split, c):
    """split-k through a workspace and stream-k's last contributor (an f16 C with bias + gelu) keep the
    pairs' vector stores; atomic adds (split-k's, stream-k's of an f32 C) take the pairs' scalar stores."""
    p = SCHEDULES["mma"] % ""
    p = p.replace(",double-buffer", f",{split},double-buffer")
    module = gemmc.lower(gemmc.parse(source(c=c, epilogue=c == "f16"), defines={}), p, SM90)
    vectors = any("vector.store" in s for s in c_stores(module))
    assert vectors == ("workspace" in split or c == "f16")
    for dims in ({"M": 70, "N": 66, "K": 96}, {"M": 33, "N": 67, "K": 80}):
        r = gemmc.check(module, SM90, dims)
        assert r.passed, r.summary()


# -- nvcc ------------------------------------------------------------------------------------


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc (CUDA) is not installed")
@pytest.mark.parametrize("schedule,c", [("mma", "f32"), ("wgmma", "f32"), ("mma", "f16")])
def test_nvcc_emits_vector_stores(schedule, c):
    from gemmc.target.cuda import compile_cuda

    module = lowered(schedule, source("M = 256, N = 256, K = 128", c=c, epilogue=c == "f16"))
    ptx = compile_cuda(gemmc.emit(module, SM90, "hip"), SM90, "asm")
    assert ("st.global.v2.f32" in ptx) if c == "f32" else ("st.global.b32" in ptx or "st.global.v2.b16" in ptx
                                                           or "st.global.v2.u16" in ptx), ptx[-2000:]
