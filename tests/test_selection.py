"""Per-shape selection (gemmc.driver.selection): split-k where the grid leaves CUs idle and the model
predicts it faster, the default pipeline elsewhere, and the reason said by --report and explain."""

from __future__ import annotations

import re

import pytest

import gemmc
from gemmc.target.toolchain import have_toolchain
from gemmc.target.arch import get_arch
from gemmc.support.ir_names import PIPELINE_ATTR, SELECTED_ATTR
from gemmc.driver.pipeline import default_pipeline
from gemmc.driver.selection import (select_pipeline, seven_block_tiles, tile_fill, with_padded_rows, with_split_k,
                             with_unpeeled)
from gemmc.driver.variants import with_tiles


def problem(m: int, n: int, k: int, dtype: str = "f32") -> str:
    return (f"kernel s {{ dim M = {m}, N = {n}, K = {k}  A: {dtype}[M, K]  B: {dtype}[K, N]  C: f32[M, N]  "
            f"acc f32  C = A @ B }}")


def test_with_tiles_changes_the_workgroup_and_thread_tiles():
    spec = "lds-tiling{block-m=128 block-n=128 block-k=16},register-tiling{thread-m=8 thread-n=8 unroll=true}"
    assert with_tiles(spec, 64, 64, 4, 4) == ("lds-tiling{block-m=64 block-n=64 block-k=16},"
                                       "register-tiling{thread-m=4 thread-n=4 unroll=true}")
    assert with_tiles(spec, 224, 128) == ("lds-tiling{block-m=224 block-n=128 block-k=16},"
                                          "register-tiling{thread-m=8 thread-n=8 unroll=true}")


def test_small_problems_try_small_tiles_split_k_and_stream_k():
    choice = select_pipeline(gemmc.parse(problem(256, 256, 16384)), get_arch("gfx942"))
    assert {"default", "64x64 tiles", "default, stream-k", "64x64 tiles, stream-k",
            "64x64 tiles, split-k{factor=16}", "64x64 tiles, split-k{factor=32}"} <= set(choice.predicted)
    assert "64x64 tiles, split-k{factor=8}" not in choice.predicted  # the two largest factors only
    assert choice.predicted[choice.reason.split(":")[1].split(" predicted")[0].strip()] == min(choice.predicted.values())


def test_a_16_bit_output_is_split_through_a_workspace():
    src = "kernel h { dim M = 256, N = 256, K = 16384  A: f16[M, K]  B: f16[K, N]  C: f16[M, N]  acc f32  C = A @ B }"
    choice = select_pipeline(gemmc.parse(src), get_arch("gfx942"))
    assert "reduce=workspace" in choice.pipeline and "stream-k" not in choice.pipeline


def test_with_split_k_goes_before_double_buffer():
    spec = "gemm-to-kernel,lds-tiling,register-tiling,double-buffer,vectorize{width=4}"
    assert with_split_k(spec, 4) == ("gemm-to-kernel,lds-tiling,register-tiling,split-k{factor=4 reduce=workspace},"
                                     "double-buffer,vectorize{width=4}")
    assert with_split_k("gemm-to-kernel", 2, "atomic") == "gemm-to-kernel,split-k{factor=2 reduce=atomic}"


@pytest.mark.parametrize("arch", ["gfx90a", "gfx942", "gfx950", "gfx1100", "gfx1201", "sm_90"])
def test_deep_k_is_split_and_predicted_faster(arch):
    choice = select_pipeline(gemmc.parse(problem(512, 512, 8192)), get_arch(arch))
    assert "split-k{factor=" in choice.pipeline or "stream-k" in choice.pipeline, choice.reason
    assert min(choice.predicted.values()) < choice.predicted["default"]
    assert "predicted" in choice.reason and "for the default" in choice.reason


def test_a_full_grid_is_not_split():
    choice = select_pipeline(gemmc.parse(problem(4096, 4096, 4096)), get_arch("gfx942"))
    assert choice.pipeline == default_pipeline(get_arch("gfx942"), "f32")
    # 64x128 tiles; a CU holds 4 (clang's registers) or 5 (the estimate, without a toolchain)
    assert re.fullmatch(r"2048 workgroups for 304 CUs x [45]: the default pipeline", choice.reason), choice.reason


def test_dynamic_sizes_dispatch_at_launch():
    src = "kernel d { dim M, N, K  A: f32[M, K]  B: f32[K, N]  C: f32[M, N]  C = A @ B }"
    choice = select_pipeline(gemmc.parse(src), get_arch("gfx942"))
    assert not choice.runnable and choice.pipeline.startswith(default_pipeline(get_arch("gfx942"), "f32") + " | ")
    assert choice.reason.startswith("the sizes are dynamic: the launcher runs")


def test_lower_without_pipeline_runs_the_choice_and_says_why():
    module = gemmc.lower(gemmc.parse(problem(64, 64, 2048)), None, "gfx942")
    assert "-k{" in module.attributes[PIPELINE_ATTR].data  # split-k or stream-k
    assert module.attributes[SELECTED_ATTR].data.startswith("1 workgroups for 304 CUs x ")
    assert gemmc.check(module, "gfx942").passed


def test_selected_f16_kernel_passes():
    """16-bit inputs on the matrix cores: the selection's kernel is checked like any other."""
    module = gemmc.lower(gemmc.parse(problem(48, 80, 3000, "f16")), None, "gfx1201")
    assert "matrix-cores" in module.attributes[PIPELINE_ATTR].data
    assert "-k{" in module.attributes[PIPELINE_ATTR].data  # split-k or stream-k
    assert gemmc.check(module, "gfx1201").passed


def test_a_kernel_the_model_cannot_read_gets_the_default(monkeypatch):
    """The selection is advice: where the cost model fails, compile runs the default, never an error."""
    import gemmc.cost.compiled
    import gemmc.cost.model
    from gemmc.support.diagnostics import GemmcError

    def cannot(*args, **kwargs):
        raise GemmcError("cannot evaluate the launch's grid")

    monkeypatch.setattr(gemmc.cost.model, "predict", cannot)
    monkeypatch.setattr(gemmc.cost.compiled, "predict", cannot)  # (predict_module: the compiler's registers)
    for src in (problem(64, 64, 4096), "kernel d { dim M, N, K  A: f32[M, K]  B: f32[K, N]  C: f32[M, N]  C = A @ B }"):
        module = gemmc.lower(gemmc.parse(src), None, "gfx942")
        assert module.attributes[PIPELINE_ATTR].data == default_pipeline(get_arch("gfx942"), "f32")


def test_misaligned_rows_of_a_full_grid_try_half_the_k_tile():
    choice = select_pipeline(gemmc.parse(problem(4097, 4095, 1023)), get_arch("sm_90"))
    assert set(choice.predicted) == {"default", "block-k=8"}
    assert "rows misaligned" in choice.reason
    assert "block-k=8" in choice.pipelines["block-k=8"] and "block-k=16" in choice.pipelines["default"]


def test_aligned_rows_of_a_full_grid_keep_the_default_alone():
    choice = select_pipeline(gemmc.parse(problem(4096, 4096, 1024)), get_arch("sm_90"))
    assert set(choice.predicted) == {"default"} and choice.pipeline == default_pipeline(get_arch("sm_90"))


def test_misaligned_rows_weigh_scalar_copies_where_the_arch_allows():
    """gfx90a's 16-bit default peels misaligned rows: the selection weighs scalar copies too, and the
    fastest prediction runs.  (gfx1100's and gfx1201's take scalar copies already; sm_90 tries no
    scalar copies: Arch.unpeeled_candidates, measured slower than predicted.)"""
    choice = select_pipeline(gemmc.parse(problem(3001, 2999, 1537, "f16")), get_arch("gfx90a"))
    assert {"default", "scalar copies"} <= set(choice.predicted)
    best = min(choice.predicted, key=choice.predicted.get)
    assert choice.pipeline == choice.pipelines[best]
    assert "peel=false" in choice.pipelines["scalar copies"] and "peel=false" not in choice.pipelines["default"]


def test_with_unpeeled_keeps_scalar_copies():
    assert with_unpeeled("lds-tiling,vectorize{width=4},double-buffer") == \
        "lds-tiling,vectorize{width=4 peel=false},double-buffer"
    assert with_unpeeled("lds-tiling,double-buffer") == "lds-tiling,double-buffer"


@pytest.mark.skipif(not have_toolchain(), reason="the full-grid path needs clang's registers (1 workgroup a CU)")
def test_misaligned_rows_of_a_wide_tile_try_half_the_tile():
    """gfx942's FP8 default (128x256x32) at 4097x4095x1023: the halved tile, with each K tile, is
    tried too, and with scalar copies the fastest; 128x128 tiles (the H200's) get no such variant
    (the test above)."""
    src = ("kernel f { dim M = 4097, N = 4095, K = 1023  A: f8e4m3fnuz[M, K]  B: f8e4m3fnuz[K, N]  C: f32[M, N]  "
           "acc f32  C = A @ B }")
    choice = select_pipeline(gemmc.parse(src), get_arch("gfx942"))
    assert {"128x128 tiles", "128x128 tiles, block-k=16"} <= set(choice.predicted)  # (block-k=8: no FP8 MFMA)
    assert "block-m=128 block-n=128 block-k=16" in choice.pipelines["128x128 tiles, block-k=16"]
    assert choice.predicted[choice.reason.split(": ")[1].split(" predicted")[0]] < choice.predicted["default"]


def test_seven_block_tiles_replace_a_256_side_in_both_orientations():
    assert seven_block_tiles(128, 256) == [(224, 128), (128, 224)]
    assert seven_block_tiles(256, 128) == [(224, 128), (128, 224)]
    assert seven_block_tiles(128, 128) == [] and seven_block_tiles(64, 128) == []


def test_padded_rows_give_a_row_the_lanes_of_a_256_wide_tile():
    assert with_padded_rows("a,vectorize{width=8 blocks=true},b") == "a,vectorize{width=8 blocks=true row-lanes=32},b"
    assert with_padded_rows("vectorize{width=8 operands=a},vectorize{width=4 operands=b}") == \
        "vectorize{width=8 operands=a row-lanes=32},vectorize{width=4 operands=b row-lanes=64}"
    assert with_padded_rows("vectorize{width=4 row-lanes=16 blocks=true}") == "vectorize{width=4 blocks=true row-lanes=64}"


def test_tile_fill_counts_the_busiest_cus_rounds():
    # 4096^2 on MI300X's 304 CUs: 512 tiles of 128x256 take two rounds of 304 (84%); 608 of 224x128
    # (the last row of tiles 64 rows deep) two rounds exactly, 96% of them C
    assert tile_fill(4096, 4096, 128, 256, 304) == pytest.approx(512 / 608)
    assert tile_fill(4096, 4096, 224, 128, 304) == pytest.approx(4096 * 4096 / (608 * 224 * 128))
    assert tile_fill(4096, 4096, 128, 256, 256) == 1.0  # MI355X's 256 CUs: two full rounds


FP8_SRC = ("kernel f {{ dim M = {m}, N = {n}, K = {k}  A: f8e4m3fnuz[M, K]  B: f8e4m3fnuz[K, N]  C: f32[M, N]  "
           "acc f32  C = A @ B }}")


def test_a_grid_that_leaves_cus_idle_in_its_last_round_tries_seven_block_tiles():
    """gfx942's FP8 default at 4096^3 (128x256 tiles: 512 on 304 CUs) against 224x128 and 128x224
    tiles (608): the faster conflict-free one wins, 128x224 with B's rows of 28 blocks copied by 32
    lanes (as it conflicts with 28); at 8192^3, where the default's rounds are as full, none is tried."""
    choice = select_pipeline(gemmc.parse(FP8_SRC.format(m=4096, n=4096, k=4096)), get_arch("gfx942"))
    assert choice.predicted["224x128 tiles"] < choice.predicted["default"]
    assert "128x224 tiles" not in choice.predicted  # its LDS accesses conflict
    padded = choice.predicted["128x224 tiles, rows padded"]
    assert padded == min(choice.predicted.values()) and "128x224 tiles, rows padded predicted" in choice.reason
    assert "block-m=128 block-n=224" in choice.pipeline and "row-lanes=32" in choice.pipeline
    choice = select_pipeline(gemmc.parse(FP8_SRC.format(m=8192, n=8192, k=1024)), get_arch("gfx942"))
    assert not any("224" in label for label in choice.predicted)


def test_the_seven_block_fp8_kernel_passes_without_bank_conflicts():
    """At a size with partial tiles in M and N, and without conflicts where the rows need no peeling."""
    choice = select_pipeline(gemmc.parse(FP8_SRC.format(m=4096, n=4096, k=4096)), get_arch("gfx942"))
    for m, n, k in ((257, 131, 96), (256, 448, 128)):
        module = gemmc.parse(FP8_SRC.format(m=m, n=n, k=k))
        gemmc.lower(module, choice.pipeline, "gfx942")
        result = gemmc.check(module, "gfx942", {})
        assert result.passed, result.summary()
    assert result.stats.lds_bank_conflicts == 0
