"""vectorize{row-lanes}: a copy's lanes in groups along a stored row, then down the rows
(gemm.copy's row_lanes).  The interpreter against numpy over shapes, copy paths and groups; a
planted wrong coordinate FAILs; the bank conflicts it exists for."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gemmc
import gemmc.transforms.copy_lowering as copy_lowering
from gemmc.target.arch import get_arch
from gemmc.cost.compiled import predict_module
from gemmc.dialects.gemm import CopyOp
from gemmc.interp.common import InterpError
from gemmc.transforms.kernel_builder import KernelBuilder

SETTINGS = settings(max_examples=12, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
TILES = "gemm-to-kernel,lds-tiling{block-m=32 block-n=32 block-k=16}"
PATHS = {
    "lower-copies": TILES.replace("{", "{{").replace("}", "}}") + ",vectorize{{width={w} row-lanes={g}}}",
    "registers": TILES.replace("{", "{{").replace("}", "}}")
                 + ",register-tiling{{thread-m=2 thread-n=2}},vectorize{{width={w} row-lanes={g}}},double-buffer{{stage=registers}}",
    "lds-stage": TILES.replace("{", "{{").replace("}", "}}")
                 + ",register-tiling{{thread-m=2 thread-n=2}},vectorize{{width={w} row-lanes={g}}},double-buffer",
}


def source(ta: bool, tb: bool, elem: str) -> str:
    a = f"A: {elem}[K, M]" if ta else f"A: {elem}[M, K]"
    b = f"B: {elem}[N, K]" if tb else f"B: {elem}[K, N]"
    return (f"kernel t {{ dim M, N, K  {a}  {b}  C: f32[M, N]  acc f32  "
            f"C = {'A.T' if ta else 'A'} @ {'B.T' if tb else 'B'} }}")


def lowered(src: str, pipeline: str, arch: str, dims: dict[str, int]):
    return gemmc.lower(gemmc.parse(src, "t.gemm", dims), pipeline, arch)


@SETTINGS
@given(ta=st.booleans(), tb=st.booleans(), elem=st.sampled_from(["f32", "f16"]), path=st.sampled_from(sorted(PATHS)),
       w=st.sampled_from([1, 2, 4]), g=st.sampled_from([1, 2, 4]), m=st.integers(1, 70), n=st.integers(1, 70),
       k=st.integers(1, 70), arch=st.sampled_from(["gfx942", "gfx1201"]))
def test_row_lanes_match_numpy(ta, tb, elem, path, w, g, m, n, k, arch):
    """Any group that divides a row's loads (16 / w of them), aligned rows or peeled ones (whose lanes
    follow peel-lanes instead): the kernel computes A @ B."""
    dims = {"M": m, "N": n, "K": k}
    module = lowered(source(ta, tb, elem), PATHS[path].format(w=w, g=g), arch, dims)
    r = gemmc.check(module, arch, dims)
    assert r.passed, r.summary()


def test_the_copies_are_marked_and_lowered_by_segments():
    module = gemmc.lower(gemmc.parse(source(True, False, "f16"), "t.gemm", {"M": 64, "N": 64, "K": 64}),
                         PATHS["lower-copies"].format(w=4, g=2), "gfx1201", finalize=False)
    assert [op.lanes_per_row for op in module.walk() if isinstance(op, CopyOp)] == [2, 2]


def test_a_wrong_segment_order_fails(monkeypatch):
    """Segments counted at half their stride (two runs of rows take one segment's columns, the
    other half of the columns is never copied): the check FAILs."""
    def planted(b: KernelBuilder, idx, e0: int, width: int, g: int):
        from xdsl.dialects import arith

        lane = b.op(arith.RemUIOp(idx, b.index(g)))
        run = b.op(arith.DivUIOp(idx, b.index(g)))
        i0 = b.op(arith.RemUIOp(run, b.index(e0)))
        segment = b.op(arith.DivUIOp(run, b.index(2 * e0)))  # planted
        column = b.add(b.mul(segment, b.index(g)), lane)
        return i0, b.mul(column, b.index(width))

    monkeypatch.setattr(copy_lowering, "_row_segment_coords", planted)
    dims = {"M": 40, "N": 36, "K": 48}
    module = lowered(source(False, False, "f32"), PATHS["lower-copies"].format(w=4, g=2), "gfx942", dims)
    assert not gemmc.check(module, "gfx942", dims).passed


def test_direct_to_lds_takes_the_mark_off():
    src = "kernel t { dim M = 64, N = 64, K = 64  A: f32[M, K]  B: f32[K, N]  C: f32[M, N]  C = A @ B }"
    module = gemmc.lower(gemmc.parse(src), TILES + ",vectorize{width=4 row-lanes=2},direct-to-lds", "gfx950",
                         finalize=False)
    assert all(op.row_lanes is None and op.direct is not None for op in module.walk() if isinstance(op, CopyOp))


def test_the_lds_stage_keeps_row_lanes_instead_of_column_first():
    """double-buffer's LDS stage marks scalar transposed copies column_first on CDNA; not one whose
    lanes row-lanes ordered."""
    module = gemmc.lower(gemmc.parse(source(False, True, "f32"), "t.gemm", {"M": 64, "N": 64, "K": 64}),
                         PATHS["lds-stage"].format(w=1, g=4), "gfx942", finalize=False)
    marks = [(op.lanes_per_row, op.column_first is None) for op in module.walk() if isinstance(op, CopyOp)]
    assert marks and all(m == (4, True) for m in marks)


@pytest.mark.parametrize("row_lanes,conflicts", [(0, True), (16, False)])
def test_gfx1201_transposed_16_bit_stores_conflict_without_row_lanes(row_lanes, conflicts):
    """gfx1201's 16-bit default shape: A's and B's tiles are written transposed, two bytes a lane.
    Whole rows put 32 lanes on 32 LDS rows, two to a bank (2-way); 16 lanes a row put two lanes on
    each word (its two halves), which the LDS serves at once."""
    pipeline = ("gemm-to-kernel,lds-tiling{block-m=128 block-n=128 block-k=16},register-tiling{thread-m=8 thread-n=8},"
                f"matrix-cores{{frag-read=0}},vectorize{{width=4 row-lanes={row_lanes}}},double-buffer{{stage=registers}},"
                "lower-copies,swizzle-lds{strict=false rows=0},launch-bounds{max-threads=256}")
    src = "kernel h { dim M, N, K  A: f16[M, K] col_major  B: f16[K, N]  C: f32[M, N]  acc f32  C = A @ B }"
    arch = get_arch("gfx1201")
    module = gemmc.lower(gemmc.parse(src, "h.gemm", {"M": 256, "N": 256, "K": 64}), pipeline, arch)
    stats = gemmc.check(module, arch).stats
    assert (stats.lds_bank_conflicts > 0) == conflicts
    assert (predict_module(module, arch, None, False).counts.stats_dict().get("lds_bank_conflicts", 0) > 0) == conflicts


@pytest.mark.parametrize("arch", ["gfx90a", "gfx942", "gfx950", "gfx1100", "gfx1201"])
@pytest.mark.parametrize("elem", ["f16", "f8"])
def test_the_defaults_take_every_stored_layout(arch, elem):
    """The matrix-core defaults were searched with A column-major; A's and B's other layouts give
    copies with fewer loads a row (row-lanes then leaves them whole) and still pass, aligned and odd."""
    from gemmc.driver.pipeline import matrix_defaults

    types = {"gfx942": "f8e4m3fnuz", "gfx950": "f8e4m3fn"}
    dtype = elem if elem == "f16" else types.get(arch)
    pipeline = matrix_defaults(dtype).get(arch) if dtype else None
    if pipeline is None:
        pytest.skip(f"no {elem} matrix-core default on {arch}")
    for ta, tb in ((False, False), (True, False), (False, True), (True, True)):
        for dims in ({"M": 67, "N": 45, "K": 37}, {"M": 96, "N": 160, "K": 64}):
            module = lowered(source(ta, tb, dtype), pipeline, arch, dims)
            r = gemmc.check(module, arch, dims)
            assert r.passed, (ta, tb, dims, r.summary())


@SETTINGS
@given(ta=st.booleans(), tb=st.booleans(), elem=st.sampled_from(["f32", "f16"]), path=st.sampled_from(sorted(PATHS)),
       w=st.sampled_from([1, 2, 4]), m=st.integers(1, 70), n=st.integers(1, 70), k=st.integers(1, 70),
       arch=st.sampled_from(["gfx942", "gfx1201"]))
def test_padded_rows_match_numpy(ta, tb, elem, path, w, m, n, k, arch):
    """Rows padded to more lanes than their loads (16 / w or 32 / w of them; 40 / w lanes, no
    multiple of either): the idle lanes neither load nor store, and the kernel computes A @ B."""
    dims = {"M": m, "N": n, "K": k}
    module = lowered(source(ta, tb, elem), PATHS[path].format(w=w, g=40 // w), arch, dims)
    r = gemmc.check(module, arch, dims)
    assert r.passed, r.summary()


PADDED_FP8 = ("gemm-to-kernel,lds-tiling{block-m=128 block-n=224 block-k=64},register-tiling{thread-m=8 thread-n=8},"
              "matrix-cores{frag-read=0},vectorize{width=8 blocks=true peel-lanes=rows row-lanes=32},"
              "double-buffer{stage=registers lds-slots=1},lower-copies,swizzle-lds{strict=false rows=0 fold=true},"
              "launch-bounds{max-threads=256}")
FP8_SRC = "kernel f { dim M, N, K  A: f8e4m3fnuz[M, K]  B: f8e4m3fnuz[K, N]  C: f32[M, N]  acc f32  C = A @ B }"


@pytest.mark.parametrize("row_lanes,conflicts", [("", True), (" row-lanes=32", False)])
def test_a_224_wide_tiles_blocks_conflict_unless_its_rows_are_padded(row_lanes, conflicts):
    """gfx942's FP8 128x224 tile: B's rows of 28 8x8 blocks copied 28 lanes a row put a wave's
    block stores on rows the folded swizzle does not spread; padded to the 32 lanes of the 256-wide
    default's rows (the last 4 idle), they are spread as there.  Both compute A @ B."""
    dims = {"M": 256, "N": 448, "K": 128}
    module = lowered(FP8_SRC, PADDED_FP8.replace(" row-lanes=32", row_lanes), "gfx942", dims)
    r = gemmc.check(module, "gfx942", dims)
    assert r.passed, r.summary()
    assert (r.stats.lds_bank_conflicts > 0) == conflicts


@pytest.mark.parametrize("dims", [{"M": 257, "N": 131, "K": 96}, {"M": 130, "N": 260, "K": 136}])
def test_padded_fp8_blocks_pass_at_partial_tiles(dims):
    module = lowered(FP8_SRC, PADDED_FP8, "gfx942", dims)
    r = gemmc.check(module, "gfx942", dims)
    assert r.passed, r.summary()


@pytest.mark.parametrize("path", ["lower-copies", "registers"])
def test_idle_lanes_that_store_fail(monkeypatch, path):
    """A padded row's idle lanes storing too (their column past the row: into the next LDS row, or
    past the tile): the interpreter stops at the out-of-bounds store or the check FAILs."""
    monkeypatch.setattr(copy_lowering, "in_row", lambda b, op, i1, body: body(b))
    dims = {"M": 40, "N": 36, "K": 48}
    module = lowered(source(False, False, "f32"), PATHS[path].format(w=1, g=40), "gfx942", dims)
    with pytest.raises((InterpError, AssertionError)):
        assert gemmc.check(module, "gfx942", dims).passed
