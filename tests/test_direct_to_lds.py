"""direct-to-lds on FP8 tiles: a 4-byte word of global_load_lds holds four FP8 elements.

* the interpreter against numpy on random shapes (gfx942's FNUZ and gfx950's OCP formats,
  A row- or column-major, B stored [K, N] or [N, K]), with and without double-buffer;
* planted bugs: two elements a word (the original bug) races in LDS, and words proven
  aligned at 2 instead of 4 elements are caught misaligned;
* what cannot be proven keeps its ordinary copy (packed FP4, K not a multiple of 4), and a
  direct copy that a later pass transposed is refused at lower-copies;
* the HIP compiles to global_load_lds_dword for gfx942 and gfx950; gemmc's own AMDGCN backend
  refuses in one line.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gemmc
from gemmc.transforms import copy_lowering
from gemmc.support.diagnostics import GemmcError
from gemmc.dialects.amdgpu import GatherToLDSOp, transfer_bytes
from gemmc.interp.common import InterpError

FP8 = {"gfx942": "f8e4m3fnuz", "gfx950": "f8e4m3fn"}

SOURCE = """kernel g {{
  dim M, N, K
  A: {t}[M, K]{col}
  B: {t}{bshape}
  C: f32[M, N]
  acc f32
  C = A @ {bexpr}
}}"""

TILED = ("gemm-to-kernel,lds-tiling{{block-m={bm} block-n={bm} block-k={bk}}},register-tiling{{thread-m=4 "
         "thread-n=4}},matrix-cores")
ORDERS = ["{tiled},direct-to-lds", "{tiled},double-buffer,direct-to-lds", "{tiled},direct-to-lds,double-buffer"]
# (A column-major, B stored [N, K]): at least one operand with its K contiguous, which is the one
# register tiling stores as it lies in global memory (the other goes transposed into LDS)
LAYOUTS = [(False, False), (False, True), (True, True)]


def fp8_source(arch: str, col_major: bool = False, b_transposed: bool = False) -> str:
    return SOURCE.format(t=FP8[arch], col=" col_major" if col_major else "",
                         bshape="[N, K]" if b_transposed else "[K, N]", bexpr="B.T" if b_transposed else "B")


def lowered(arch: str, dims: dict, pipeline: str, col_major: bool = False, b_transposed: bool = False):
    module = gemmc.parse(fp8_source(arch, col_major, b_transposed), defines=dims)
    gemmc.lower(module, pipeline, arch)
    return module


def direct_roles(module) -> set[str]:
    return {op.attributes["gemm.role"].data for op in module.walk() if isinstance(op, GatherToLDSOp)}


def tiled(bm: int = 64, bk: int = 128) -> str:
    return TILED.format(bm=bm, bk=bk)


def test_a_word_is_four_bytes_of_any_element():
    from xdsl.dialects.builtin import Float8E4M3FNType, VectorType, f16, f32

    assert transfer_bytes(f32) == transfer_bytes(VectorType(f16, [2])) == 4
    assert transfer_bytes(VectorType(Float8E4M3FNType(), [4])) == 4
    assert transfer_bytes(VectorType(Float8E4M3FNType(), [2])) == 2


@pytest.mark.parametrize("arch", list(FP8))
@settings(max_examples=10, deadline=None)
@given(m=st.integers(1, 140), n=st.integers(1, 140), k4=st.integers(1, 75), layout=st.sampled_from(LAYOUTS),
       order=st.sampled_from(ORDERS), tile=st.sampled_from([(64, 128), (32, 64)]), seed=st.integers(0, 5))
def test_fp8_direct_random_shapes(arch, m, n, k4, layout, order, tile, seed):
    """K a multiple of 4: the K-contiguous operands go by global_load_lds, four FP8 elements
    a lane, on any M and N (words past the matrix's edges are zeros), and C matches."""
    col_major, b_t = layout
    module = lowered(arch, {"M": m, "N": n, "K": 4 * k4}, order.format(tiled=tiled(*tile)), col_major, b_t)
    k_contiguous = {"load_a": not col_major, "load_b": b_t}
    assert direct_roles(module) == {r for r, yes in k_contiguous.items() if yes}
    r = gemmc.check(module, arch, {}, seed=seed)
    assert r.passed, r.summary()


@pytest.mark.parametrize("arch", list(FP8))
def test_two_fp8_elements_a_word_race(monkeypatch, arch):
    """The bug this file was written for: a word taken as two FP8 elements.  Lanes step 4
    bytes in LDS but 2 elements in the tile, so a wave's words run into the next wave's."""
    real = copy_lowering.direct_per_lane
    monkeypatch.setattr(copy_lowering, "direct_per_lane", lambda elem: min(real(elem), 2))
    module = lowered(arch, {"M": 67, "N": 45, "K": 200}, tiled() + ",direct-to-lds")
    with pytest.raises(InterpError, match="LDS race on %tile_a: amdgpu.gather_to_lds"):
        gemmc.check(module, arch, {})


@pytest.mark.parametrize("arch", list(FP8))
def test_words_proven_at_two_elements_are_misaligned(monkeypatch, arch):
    """A planted bug in the proof: alignment to 2 elements instead of 4 lets K = 202 through,
    and a word then starts mid-row."""
    real = copy_lowering._word_unaligned
    monkeypatch.setattr(copy_lowering, "_word_unaligned", lambda copy, per: real(copy, min(per, 2)))
    module = lowered(arch, {"M": 67, "N": 45, "K": 202}, tiled() + ",direct-to-lds")
    with pytest.raises(InterpError, match="misaligned amdgpu.gather_to_lds of %A: a vector of 4"):
        gemmc.check(module, arch, {})


@pytest.mark.parametrize("arch", list(FP8))
@pytest.mark.parametrize("k", [201, 202, 203])
def test_k_not_a_multiple_of_4_is_refused(arch, k):
    """A's and B's rows are K long: words of 4 would straddle rows, so neither qualifies."""
    with pytest.raises(GemmcError, match=f"neither operand can be loaded directly \\(A: its row length {k} is not a "
                                         f"multiple of 4; B: its row length {k} is not a multiple of 4\\)"):
        lowered(arch, {"M": 64, "N": 64, "K": k}, tiled() + ",direct-to-lds", b_transposed=True)


@pytest.mark.parametrize("multiple,ok", [(2, False), (4, True), (8, True)])
def test_dynamic_rows_need_an_assumed_multiple_of_4(multiple, ok):
    """Dynamic row lengths: assume-aligned's multiple is the proof, and 2 is not enough for FP8."""
    module = gemmc.parse(fp8_source("gfx950", b_transposed=True))
    pipeline = f"gemm-to-kernel,assume-aligned{{multiple={multiple}}}," + tiled().removeprefix("gemm-to-kernel,")
    if not ok:
        with pytest.raises(GemmcError, match="its row length is dynamic, so 4-element words are not provably aligned"):
            gemmc.lower(module, pipeline + ",direct-to-lds", "gfx950")
        return
    gemmc.lower(module, pipeline + ",double-buffer,direct-to-lds", "gfx950")
    assert direct_roles(module) == {"load_a", "load_b"}
    r = gemmc.check(module, "gfx950", {"M": 67, "N": 40, "K": 200})
    assert r.passed, r.summary()


def test_packed_fp4_is_not_loaded_directly():
    module = gemmc.parse_file(str(Path(__file__).resolve().parents[1] / "examples" / "mxfp4gemm.gemm"), arch="gfx950",
                              defines={"M": 128, "N": 128, "K": 256})
    with pytest.raises(GemmcError, match="cannot load A directly: its f4e2m1fn elements are packed in global memory"):
        gemmc.lower(module, tiled() + ",direct-to-lds{strict=true}", "gfx950")


def test_a_direct_copy_transposed_by_a_later_pass_is_refused():
    """direct-to-lds before register tiling: B's tile is then stored transposed, its words no
    longer adjacent in LDS; lower-copies says so rather than move them wrong."""
    with pytest.raises(GemmcError, match="lower-copies: a direct copy cannot be moved by global_load_lds: its "
                                         "f8e4m3fn groups of 4 are adjacent in global memory but not in its LDS tile"):
        lowered("gfx950", {"M": 64, "N": 64, "K": 128}, "gemm-to-kernel,lds-tiling{block-m=64 block-n=64 "
                "block-k=128},direct-to-lds,register-tiling{thread-m=4 thread-n=4},lower-copies")


# -- compiling ---------------------------------------------------------------------------------


@pytest.mark.parametrize("arch", list(FP8))
@pytest.mark.parametrize("order", ORDERS)
def test_fp8_direct_hip_compiles_to_global_load_lds_dword(toolchain, arch, order):
    from gemmc.target.toolchain import compile_device

    module = lowered(arch, {"M": 67, "N": 45, "K": 200}, order.format(tiled=tiled()), b_transposed=True)
    hip = gemmc.emit(module, arch, "hip")
    assert hip.count("__builtin_amdgcn_global_load_lds(") == hip.count(", 4, 0, 0);") > 0
    asm = compile_device(hip, arch, "asm", toolchain=toolchain)
    assert "global_load_lds_dword" in asm
    assert ".private_segment_fixed_size: 0" in asm


@pytest.mark.parametrize("arch", list(FP8))
def test_gemmcs_own_backend_refuses_fp8_direct_copies_in_one_line(arch):
    from gemmc.amdgcn import GCN_PIPELINE

    with pytest.raises(GemmcError) as e:
        lowered(arch, {"M": 64, "N": 64, "K": 128}, tiled() + ",direct-to-lds,lower-copies," + GCN_PIPELINE)
    assert "'amdgpu.gather_to_lds' is not selected yet" in str(e.value)
    assert "\n" not in str(e.value)
