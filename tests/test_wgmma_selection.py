"""Per-shape selection around sm_90's wgmma default (MATRIX_16BIT_DEFAULTS["sm_90"]: wgmma + wgmma-in-flight + TMA
where tma-copies takes the candidate: tests/test_tma_selection.py).

* the rewrites (gemmc.driver.variants): a tile keeps the warpgroup MMA consistent (N and the warpgroups
  along m and n that the tile holds, launch-bounds' threads), a tile wgmma cannot take is named
  (wgmma_problem) and built from the mma.sync pipeline, which its label says (tile_variant);
* the selection builds every variant kind from the wgmma default and each lowers (smaller tiles,
  split-k, stream-k, the halved tile), falls back on mma.sync explicitly where wgmma cannot (K tiles
  under 64, sides of 224), and the dispatch's idle-grid variant for dynamic sizes is wgmma's;
* the interpreter against numpy (hypothesis, odd shapes): the new variant kinds, split-k (atomic and
  through a workspace) and stream-k composed with multi-buffer, pipeline and wgmma-in-flight; the
  halved tile with alpha, beta and B transposed;
* planted: the instruction's N left at 256 in a 128-wide tile is refused by matrix-cores at its kernel,
  and a split-k wgmma kernel whose splits are combined by a maximum instead of a sum FAILs.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gemmc
from gemmc.driver.dispatch import variant_pipeline
from gemmc.driver.pipeline import MATRIX_16BIT_DEFAULTS, variant_fallback, without_pass
from gemmc.driver.selection import select_pipeline
from gemmc.driver.variants import (
    SMALL_TILES, tile_variant, wgmma_problem, wgmma_shape, with_split_k, with_stream_k, with_tiles,
)
from gemmc.support.diagnostics import GemmcError
from gemmc.support.named_pipelines import NAMED_PIPELINES
from gemmc.target.arch import get_arch

SM90 = get_arch("sm_90")
DEFAULT = MATRIX_16BIT_DEFAULTS["sm_90"]
# the default with cp.async, as the selection runs a candidate tma-copies refuses (dynamic sizes; no packing then)
CP_ASYNC = without_pass(without_pass(DEFAULT, "pack-operands"), "tma-copies")
MMA_SYNC = NAMED_PIPELINES["mma-sync-128x256"]


def problem(m, n, k, t: str = "f16", c: str = "f32", dynamic: bool = False) -> str:
    dims = "M, N, K" if dynamic else f"M = {m}, N = {n}, K = {k}"
    return f"kernel g {{ dim {dims}  A: {t}[M, K]  B: {t}[K, N]  C: {c}[M, N]  acc f32  C = A @ B }}"


def _mc(spec: str) -> str:
    """The matrix-cores and launch-bounds passes of a pipeline."""
    return " ".join(p for p in spec.split(",") if p.startswith(("matrix-cores", "launch-bounds", "lds-tiling")))


# -- the rewrites -------------------------------------------------------------------------------


def test_the_default_is_wgmma_in_flight_and_mma_sync_stays_by_name():
    assert wgmma_shape(DEFAULT) == (256, 2, 1) and ",pipeline{stages=4},wgmma-in-flight," in DEFAULT
    assert wgmma_shape(MMA_SYNC) is None and "ldmatrix" in MMA_SYNC
    assert variant_fallback(SM90, DEFAULT) == MMA_SYNC and variant_fallback(SM90, MMA_SYNC) is None


@pytest.mark.parametrize("tile,want", [
    ((64, 128, 4, 8), "lds-tiling{block-m=64 block-n=128 block-k=64} matrix-cores{instr=wgmma_m64n128k16 waves-m=1 "
                      "waves-n=1} launch-bounds{max-threads=128}"),
    ((128, 64, 8, 4), "lds-tiling{block-m=128 block-n=64 block-k=64} matrix-cores{instr=wgmma_m64n64k16 waves-m=2 "
                      "waves-n=1} launch-bounds{max-threads=256}"),
    ((64, 64, 4, 4), "lds-tiling{block-m=64 block-n=64 block-k=64} matrix-cores{instr=wgmma_m64n64k16 waves-m=1 "
                     "waves-n=1} launch-bounds{max-threads=128}"),
    ((128, 128, 8, 8), "lds-tiling{block-m=128 block-n=128 block-k=64} matrix-cores{instr=wgmma_m64n128k16 waves-m=2 "
                       "waves-n=1} launch-bounds{max-threads=256}"),
    ((256, 256, 8, 8), "lds-tiling{block-m=256 block-n=256 block-k=64} matrix-cores{instr=wgmma_m64n256k16 waves-m=2 "
                       "waves-n=1} launch-bounds{max-threads=256}"),
])
def test_with_tiles_rewrites_the_warpgroups_with_the_tile(tile, want):
    assert _mc(with_tiles(DEFAULT, *tile)) == want


def test_a_tile_wgmma_cannot_take_is_named_and_refused():
    assert wgmma_problem(DEFAULT, 224, 128) == "wgmma's warpgroups take rows in 64s, not 224"
    assert wgmma_problem(DEFAULT, 128, 224) == "wgmma's warpgroups take columns in 64s, not 224"
    assert wgmma_problem(DEFAULT, 128, 256, 32) == "wgmma takes K tiles of a multiple of 64 (128-byte rows), not 32"
    assert wgmma_problem(DEFAULT, 64, 128) == "" and wgmma_problem(MMA_SYNC, 224, 128, 16) == ""
    with pytest.raises(ValueError, match="224x128 tiles: wgmma's warpgroups take rows in 64s"):
        with_tiles(DEFAULT, 224, 128)


def test_tile_variant_builds_what_wgmma_cannot_take_from_mma_sync_and_says_so():
    spec, note = tile_variant(DEFAULT, MMA_SYNC, 128, 256, block_k=16)
    assert note == "mma.sync: wgmma takes K tiles of a multiple of 64 (128-byte rows), not 16"
    assert spec == MMA_SYNC.replace("block-k=32", "block-k=16")
    assert tile_variant(DEFAULT, None, 224, 128) is None  # no fallback: not built
    spec, note = tile_variant(DEFAULT, MMA_SYNC, 64, 128, 4, 8)
    assert note == "" and spec == with_tiles(DEFAULT, 64, 128, 4, 8)


def test_a_wrong_instruction_n_is_refused_at_its_kernel():
    """Planted: the tile rewritten without its instruction (m64n256k16 in 128-wide tiles): matrix-cores refuses."""
    wrong = with_tiles(DEFAULT, 128, 128).replace("wgmma_m64n128k16", "wgmma_m64n256k16")
    with pytest.raises(GemmcError, match="block tile 128x128 is not a multiple of 2x1 warpgroups"):
        gemmc.lower(gemmc.parse(problem(256, 256, 256)), wrong, SM90)


# -- the selection ------------------------------------------------------------------------------


def test_an_idle_grid_weighs_every_variant_kind_on_wgmma():
    """256x256x16384: smaller tiles, split-k and stream-k of each, all on the default's warpgroup MMA,
    every one lowered (a variant a pass refuses would be missing); the fastest runs."""
    choice = select_pipeline(gemmc.parse(problem(256, 256, 16384)), SM90)
    want = {"default", "64x128 tiles (4x8 a thread)", "128x64 tiles (8x4 a thread)", "64x64 tiles",
            "64x128 tiles (4x8 a thread), split-k{factor=32}", "64x128 tiles (4x8 a thread), stream-k",
            "64x64 tiles, split-k{factor=16}", "64x64 tiles, stream-k"}
    names = {_name(label): label for label in choice.predicted}
    assert want <= set(names)
    assert all("instr=wgmma_" in p for p in choice.pipelines.values())
    split = choice.pipelines[names["64x128 tiles (4x8 a thread), split-k{factor=32}"]]
    assert ("split-k{factor=32 reduce=atomic},multi-buffer{factor=4},pipeline{stages=4},wgmma-in-flight,"
            in split) and "wgmma_m64n128k16 waves-m=1 waves-n=1" in split
    assert choice.pipeline == choice.pipelines[min(choice.predicted, key=choice.predicted.get)]


def _name(label: str) -> str:
    """A candidate's label without the note on a dropped tma-copies (tests/test_tma_selection.py tests it)."""
    return label.split(" (no tma-copies: ")[0]


def test_misaligned_rows_build_the_k_tiles_wgmma_cannot_take_with_mma_sync():
    """A full grid with misaligned rows: K tiles of 32 and 16 are mma.sync's (labelled so, without
    wgmma), the halved tile 128x128 is wgmma's; the reason says mma.sync where one runs."""
    choice = select_pipeline(gemmc.parse(problem(2049, 2047, 127)), SM90)  # (136 tiles of 128x256 for 132 SMs)
    fell = [label for label in choice.predicted if "(mma.sync: wgmma takes K tiles" in label]
    assert {label.split(" (")[0] for label in fell} >= {"block-k=32", "block-k=16", "128x128 tiles, block-k=16"}
    assert all("instr=wgmma" not in choice.pipelines[label] and "ldmatrix" in choice.pipelines[label]
               for label in fell)
    assert "wgmma_m64n128k16" in choice.pipelines[next(x for x in choice.predicted if _name(x) == "128x128 tiles")]
    if "instr=wgmma" not in choice.pipeline:
        assert "(mma.sync: wgmma takes K tiles" in choice.reason


def test_the_dynamic_sizes_idle_variant_is_wgmma():
    """The dispatch's idle-grid variant: 64x128 tiles in one warpgroup of m64n128, stream-k (f32 C) or
    split-k through a workspace (16-bit C), before multi-buffer; both lower."""
    stream = variant_pipeline(CP_ASYNC, "f32", SM90, 264)
    split = variant_pipeline(CP_ASYNC, "f16", SM90)  # (tma-copies refuses dynamic sources: the dispatch's is cp.async)
    for spec, division in ((stream, "stream-k{workgroups=264}"), (split, "split-k{factor=8 reduce=workspace}")):
        assert f"{division},multi-buffer{{factor=4}}" in spec and "wgmma_m64n128k16 waves-m=1 waves-n=1" in spec
    module = gemmc.lower(gemmc.parse(problem(0, 0, 0, "bf16", "f16", dynamic=True)), None, SM90)
    assert "idle grid: " + split in module.attributes["gemmc.pipeline"].data
    assert gemmc.check(module, SM90, {"M": 70, "N": 65, "K": 300}).passed


# -- the interpreter ----------------------------------------------------------------------------


KINDS = {
    "tiles": lambda spec, c: spec,
    "split-k": lambda spec, c: with_split_k(spec, 3, "workspace" if c == "f16" else "atomic"),
    "stream-k": lambda spec, c: with_stream_k(spec, 5),
}


@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(m=st.integers(1, 140), n=st.integers(1, 140), k=st.integers(1, 400), t=st.sampled_from(["f16", "bf16"]),
       c=st.sampled_from(["f32", "f16"]), tile=st.sampled_from(SMALL_TILES + ((128, 128, 8, 8),)),
       kind=st.sampled_from(sorted(KINDS)))
def test_variants_match_numpy(m, n, k, t, c, tile, kind):
    spec = KINDS[kind](with_tiles(CP_ASYNC, *tile), c)
    r = gemmc.check(gemmc.lower(gemmc.parse(problem(m, n, k, t, c)), spec, SM90), SM90, {})
    assert r.passed, (spec, r.summary())


@pytest.mark.parametrize("kind,c", [("split-k", "f32"), ("split-k", "f16"), ("stream-k", "f32")])
def test_k_division_with_wgmma_in_flight_passes_at_an_odd_shape(kind, c):
    """split-k / stream-k of the default's 64x128 variant (one warpgroup of m64n128, 4 slots, one group in flight)."""
    spec = KINDS[kind](with_tiles(CP_ASYNC, 64, 128, 4, 8), c)
    module = gemmc.lower(gemmc.parse(problem(70, 131, 333, "f16", c)), spec, SM90)
    assert "numGroups = 1" in gemmc.print_ir(module)  # (wgmma-in-flight's wait_group 1)
    r = gemmc.check(module, SM90, {})
    assert r.passed and r.stats.matrix_instrs > 0, r.summary()


def test_the_halved_tile_passes_where_the_selection_takes_it():
    """3001x2999x1537's choice in small (B transposed, alpha and beta, misaligned rows): 128x128 in two
    warpgroups of m64n128."""
    src = ("kernel g { dim M = 130, N = 131, K = 97  A: f16[M, K]  B: f16[N, K]  C: f32[M, N]  acc f32  alpha: f32  "
           "beta: f32  C = alpha * A @ B.T + beta * C }")
    r = gemmc.check(gemmc.lower(gemmc.parse(src), with_tiles(CP_ASYNC, 128, 128), SM90), SM90, {})
    assert r.passed and r.stats.matrix_instrs > 0, r.summary()


def test_splits_not_summed_fail():
    """Planted: split-k's atomic adds of the splits' sums into C made atomic maxima: FAIL."""
    from xdsl.dialects import memref
    from xdsl.dialects.builtin import IntegerAttr, i64

    spec = with_split_k(with_tiles(CP_ASYNC, 64, 64, 4, 4), 2, "atomic")
    module = gemmc.lower(gemmc.parse(problem(64, 64, 256)), spec, SM90)
    adds = [op for op in module.walk() if isinstance(op, memref.AtomicRMWOp)]
    assert adds
    for op in adds:
        op.properties["kind"] = IntegerAttr(3, i64)  # addf (0) -> maximumf (3)
    assert not gemmc.check(module, SM90, {}).passed
