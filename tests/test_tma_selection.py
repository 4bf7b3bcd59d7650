"""TMA in sm_90's 16-bit default and its selection, and the cost model's TMA boxes.

* the default holds tma-copies (MATRIX_16BIT_DEFAULTS["sm_90"]), the cp.async default before it stays by name;
* lowering.lower_dropping: a pipeline whose tma-copies refuses the program runs without it (and without the
  pack-operands that prepares it) and returns the refusals; any other pass's refusal is raised, not dropped (a
  planted refusal before tma-copies);
* the selection: at an aligned shape every wgmma candidate copies by TMA (split-k / stream-k where tma-copies
  takes their K loop); at misaligned rows the default packed for TMA (pack-operands) is weighed against it unpacked; dynamic
  sizes: the dispatch's default is the cp.async one, the reason saying why;
* the interpreter against numpy (hypothesis): what the selection runs at small shapes whose rows TMA takes;
* the cost model: a box's counters are the interpreter's; its L2 and DRAM bytes are cp.async's (the same
  tiles), its issue (vmem) a fraction of theirs; a planted kernel whose boxes are dropped from the count
  fails the comparison.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gemmc
from gemmc.cost.counts import TMA_LOAD, count
from gemmc.cost.kernel import read_kernel
from gemmc.cost.model import predict, vmem_cycles
from gemmc.driver.lowering import lower_dropping
from gemmc.driver.pipeline import MATRIX_16BIT_DEFAULTS, without_pass
from gemmc.driver.selection import select_pipeline
from gemmc.support.diagnostics import GemmcError
from gemmc.support.named_pipelines import NAMED_PIPELINES
from gemmc.target.arch import get_arch

SM90 = get_arch("sm_90")
DEFAULT = MATRIX_16BIT_DEFAULTS["sm_90"]
CP_ASYNC = NAMED_PIPELINES["wgmma-cp-async-128x256"]


def problem(m, n, k, t: str = "f16", c: str = "f32", dynamic: bool = False) -> str:
    dims = "M, N, K" if dynamic else f"M = {m}, N = {n}, K = {k}"
    return f"kernel g {{ dim {dims}  A: {t}[M, K]  B: {t}[K, N]  C: {c}[M, N]  acc f32  C = A @ B }}"


def test_the_default_copies_by_tma_and_the_cp_async_default_stays_by_name():
    assert ",wgmma-in-flight,pack-operands,tma-copies,lower-copies," in DEFAULT
    assert without_pass(without_pass(DEFAULT, "pack-operands"), "tma-copies") == CP_ASYNC
    assert "tma-copies" not in CP_ASYNC


def test_lower_dropping_runs_without_a_refusing_tma_copies_and_says_why():
    """Dynamic sizes: pack-operands refuses the dynamic row length, so tma-copies sees rows it cannot prove
    aligned; both are left out, tma-copies' refusal first.  (Static misaligned rows are packed:
    tests/test_pack_operands.py.)"""
    module = gemmc.parse(problem(0, 0, 0, dynamic=True))
    lowered, ran, why = lower_dropping(module, DEFAULT, SM90)
    assert ran == CP_ASYNC and why.startswith("tma-copies: %A's rows are of a dynamic length not known to be a multiple")
    assert "; pack-operands: %A's row length is dynamic" in why
    assert lowered.attributes["gemmc.pipeline"].data == CP_ASYNC
    assert not any(op.name == TMA_LOAD for op in lowered.walk())
    assert "tma-copies" not in str(module)  # (the module given is left as it was)
    lowered, ran, why = lower_dropping(gemmc.parse(problem(64, 64, 128)), DEFAULT, SM90)
    aligned = without_pass(DEFAULT, "pack-operands")  # (it changed nothing: not in the pipeline that ran)
    assert (ran, why) == (aligned, "") and any(op.name == TMA_LOAD for op in lowered.walk())


def test_another_pass_refusing_is_raised_not_dropped():
    """Planted: a pass before tma-copies refuses (matrix-cores with the instruction's N too wide for the
    tile): the error is raised, not taken for tma-copies' and dropped."""
    wrong = DEFAULT.replace("block-n=256", "block-n=128")  # m64n256k16 in a 128-wide tile
    try:
        lower_dropping(gemmc.parse(problem(64, 64, 128)), wrong, SM90)
    except GemmcError as e:
        assert e.message.startswith("matrix-cores: ")
    else:
        raise AssertionError("a refusal other than tma-copies' was dropped")


def test_an_aligned_idle_grid_weighs_every_candidate_with_tma_where_it_applies():
    """256x256x4096: every wgmma candidate holds tma-copies where tma-copies took it, and runs without it
    exactly where its label says so (split-k's and stream-k's K loops today)."""
    choice = select_pipeline(gemmc.parse(problem(256, 256, 4096)), SM90)
    wgmma = {label: spec for label, spec in choice.pipelines.items() if "instr=wgmma_" in spec}
    assert "default" in wgmma and "tma-copies" in wgmma["default"]
    for label, spec in wgmma.items():
        assert ("(no tma-copies: " in label) == ("tma-copies" not in spec), label
    assert {label.split(",")[0] for label in wgmma if "tma-copies" in wgmma[label]} >= {"default", "64x64 tiles"}
    assert choice.pipeline == choice.pipelines[min(choice.predicted, key=choice.predicted.get)]


def test_misaligned_rows_weigh_packing_for_tma():
    """Rows not a multiple of 16 bytes: the default packs A and B (pack-operands) and copies by TMA, and the default
    without them (cp.async) is weighed beside it; the faster is the base of the variants (at 1031x1029x1027 the
    unpacked one: the packed one's allocations alone are 0.08 ms), whose wgmma candidates then pack as it does."""
    choice = select_pipeline(gemmc.parse(problem(1031, 1029, 1027)), SM90)
    packed, unpacked = choice.pipelines["default"], choice.pipelines["unpacked (cp.async)"]
    assert "pack-operands,tma-copies" in packed and "pack-operands" not in unpacked and "tma-copies" not in unpacked
    kept = "default" if choice.predicted["default"] <= choice.predicted["unpacked (cp.async)"] else "unpacked (cp.async)"
    assert "no tma-copies" not in " ".join(choice.predicted)
    for label, spec in choice.pipelines.items():
        if label not in ("default", "unpacked (cp.async)") and "instr=wgmma_" in spec:
            assert ("pack-operands,tma-copies" in spec) == (kept == "default"), label
    assert choice.pipeline == choice.pipelines[min(choice.predicted, key=choice.predicted.get)]


def test_dynamic_sizes_dispatch_the_cp_async_default():
    module = gemmc.lower(gemmc.parse(problem(0, 0, 0, dynamic=True)), None, SM90)
    reason = module.attributes["gemmc.selected"].data
    assert "(without tma-copies: " in reason and "run assume-aligned{multiple=8}" in reason
    assert module.attributes["gemmc.pipeline"].data.startswith(CP_ASYNC + " | ")
    assert gemmc.check(module, SM90, {"M": 70, "N": 65, "K": 136}).passed


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(m=st.integers(1, 150), n8=st.integers(1, 36), k8=st.integers(1, 40), t=st.sampled_from(["f16", "bf16"]))
def test_the_selected_tma_pipeline_matches_numpy(m, n8, k8, t):
    """Rows a multiple of 8 elements (16 bytes): TMA takes them, partial tiles zero-filled."""
    module = gemmc.lower(gemmc.parse(problem(m, 8 * n8, 8 * k8, t)), None, SM90)
    r = gemmc.check(module, SM90, {})
    assert r.passed, (module.attributes["gemmc.pipeline"].data, r.summary())


# -- the cost model ---------------------------------------------------------------------------


def _lowered(spec: str, m: int, n: int, k: int):
    return gemmc.lower(gemmc.parse(problem(m, n, k)), spec, SM90)


def test_box_counts_match_the_interpreter():
    module = _lowered(DEFAULT, 136, 264, 200)
    mine = count(read_kernel(module, {}), SM90).stats_dict()
    ran = gemmc.check(module, SM90, {}).stats.as_dict()
    assert mine["global_load_instrs"] == ran["global_load_instrs"] > 0
    assert mine["global_load_bytes"] == ran["global_load_bytes"]


def test_boxes_move_cp_async_bytes_with_less_issue():
    """The same tiles by TMA and by cp.async: the same L2 and DRAM bytes; the TMA kernel's vmem issue (one
    instruction a box) a fraction of cp.async's (one a warp for every 16 bytes a lane copies)."""
    tma, cp = (predict(_lowered(spec, 1024, 1024, 1024), SM90) for spec in (DEFAULT, CP_ASYNC))
    assert tma.traffic.l2 == cp.traffic.l2 and tma.traffic.dram == cp.traffic.dram

    def copies(p):  # the vmem cycles of the tiles' loads (C's stores are the same in both)
        return sum(a.issued * vmem_cycles(a, SM90) for a in p.counts.accesses if a.space == "global" and not a.store)

    assert 0 < copies(tma) < 0.1 * copies(cp)


def test_planted_uncounted_boxes_fail():
    """Planted: the boxes' loads dropped from the count (as the model had them before): the counters no
    longer match the interpreter's."""
    module = _lowered(DEFAULT, 136, 264, 200)
    c = count(read_kernel(module, {}), SM90)
    ran = gemmc.check(module, SM90, {}).stats.as_dict()
    boxes = sum(a.bytes for a in c.accesses if a.op.name == TMA_LOAD and a.space == "global")
    assert c.stats_dict()["global_load_bytes"] - boxes != ran["global_load_bytes"]
