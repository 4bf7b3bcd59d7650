"""wgmma-in-flight (passes/wgmma_in_flight.py): one warpgroup-MMA group kept in flight across K tiles.

* the interpreter against numpy (hypothesis: odd shapes, K tiles fewer than the stages, f16 and bf16,
  A column-major / B transposed, one and two warpgroups, four and five slots) after the rewrite;
* planted bugs FAIL in the interpreter (gemmc.interp.wgmma_async): the prefetch distance F - 1 with
  wait_group 1 (another warpgroup may still read the slot of t - 1), no wait_group 0 after the loop
  (the epilogue reads accumulators in flight), wait_group 1 with pipeline's prefetch before the compute
  (the slot of t - 1 overwritten while its group runs), an accumulator overwritten in flight;
* nvcc (no GPU needed): the candidates build for sm_90a without spills, and ptxas does not serialize
  their wgmma (a planted touch of the accumulators between commit and wait makes it say so).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from xdsl.dialects import scf
from xdsl.dialects.builtin import IntegerAttr, i32
from xdsl.rewriter import InsertPoint, Rewriter

import gemmc
from benchmark_scripts import load
from gemmc.dialects.nvgpu import WgmmaWaitGroupOp
from gemmc.interp.common import InterpError
from gemmc.passes.wgmma_in_flight import keep_in_flight
from gemmc.support.diagnostics import GemmcError
from gemmc.target.arch import get_arch

WGMMA_CANDIDATES = load("h200/matrix").WGMMA_CANDIDATES
SM90 = get_arch("sm_90")
_HEAD = ("gemm-to-kernel,lds-tiling{{block-m={bm} block-n={bn} block-k=64}},register-tiling{{thread-m=4 thread-n=4}},"
         "matrix-cores{{instr=wgmma_m64n{n}k16 waves-m={wm} waves-n={wn}}},vectorize{{width=8}},"
         "direct-to-lds{{fallback=true}},multi-buffer{{factor={slots}}},pipeline{{stages={stages}}}")
_TAIL = "lower-copies,swizzle-lds{mode=sw128}"
# (block m, block n, instr n, warpgroups m, n): two warpgroups sharing B, one of two accumulators, one
TILES = [(128, 128, 128, 2, 1), (128, 128, 128, 1, 1), (64, 64, 64, 1, 1)]


def head(tile=TILES[0], slots=4, stages=4) -> str:
    bm, bn, n, wm, wn = tile
    return _HEAD.format(bm=bm, bn=bn, n=n, wm=wm, wn=wn, slots=slots, stages=stages)


def source(t: str = "f16", col_major: bool = False, b_transposed: bool = False) -> str:
    b = f"B: {t}[N, K]" if b_transposed else f"B: {t}[K, N]"
    return (f"kernel g {{ dim M, N, K  A: {t}[M, K]{' col_major' if col_major else ''}  {b}  "
            f"C: f32[M, N]  acc f32  C = A @ {'B.T' if b_transposed else 'B'} }}")


def module(p: str, dims: dict, t: str = "f16", layout=(False, False)):
    return gemmc.lower(gemmc.parse(source(t, *layout), defines=dims), p, SM90)


def k_loop(m) -> scf.ForOp:
    return next(o for o in m.walk() if isinstance(o, scf.ForOp) and "gemm.role" in o.attributes
                and o.attributes["gemm.role"].data == "k_loop")


def planted(edit, dims, tile=TILES[0], slots=4, stages=4):
    """Lower to pipeline, edit the K loop in Python, finish lowering, interpret."""
    m = gemmc.lower(gemmc.parse(source(), defines=dims), head(tile, slots, stages), SM90, finalize=False)
    edit(k_loop(m))
    return gemmc.check(gemmc.lower(m, _TAIL, SM90), SM90, {})


# -- the interpreter against numpy ----------------------------------------------------------


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(m=st.integers(1, 140), n=st.integers(1, 140), k=st.integers(1, 330), t=st.sampled_from(["f16", "bf16"]),
       layout=st.sampled_from([(False, False), (True, False), (False, True)]),
       tile=st.sampled_from(TILES), slots=st.sampled_from([4, 5]))
def test_interpreter_vs_numpy(m, n, k, t, layout, tile, slots):
    r = gemmc.check(module(f"{head(tile, slots)},wgmma-in-flight,{_TAIL}", {"M": m, "N": n, "K": k}, t, layout), SM90, {})
    assert r.passed, r.summary()


@pytest.mark.parametrize("dims", [
    {"M": 128, "N": 128, "K": 64},    # one K tile: the loop's only group waited for after it
    {"M": 128, "N": 128, "K": 128},   # two K tiles, fewer than the stages (and than the slots)
    {"M": 128, "N": 128, "K": 640},   # ten tiles: every slot reused twice, cp.async (aligned rows)
    {"M": 257, "N": 131, "K": 300},   # odd: partial tiles, synchronous copies of misaligned rows
])
def test_shapes_pass(dims):
    r = gemmc.check(module(f"{head()},wgmma-in-flight,{_TAIL}", dims), SM90, {})
    assert r.passed, r.summary()


def test_three_stages_three_slots_keep_distance_one():
    """pipeline{stages=3} on three slots: distance 2 drops to 1 (F - 2), the prologue to one stage."""
    m = gemmc.lower(gemmc.parse(source(), defines={"M": 64, "N": 64, "K": 300}), head(TILES[2], 3, 3), SM90,
                    finalize=False)
    assert keep_in_flight(k_loop(m)) == 1
    assert gemmc.check(gemmc.lower(m, _TAIL, SM90), SM90, {}).passed


def test_candidates_lower():
    for name, p in WGMMA_CANDIDATES.items():
        if "inflight" in name:
            text = str(module(p, {"M": 4096, "N": 4096, "K": 4096}, "bf16"))
            assert "nvgpu.wgmma_wait_group {numGroups = 1 : i32}" in text, name


# -- planted bugs -----------------------------------------------------------------------------

ALIGNED, ODD = {"M": 128, "N": 128, "K": 512}, {"M": 130, "N": 70, "K": 300}


@pytest.mark.parametrize("dims", [ALIGNED, ODD], ids=["cp.async", "synchronous copies"])
def test_planted_distance_f_minus_1_fails(dims):
    """Prefetch distance 3 with four slots: P(t + 3) writes the slot of t - 1, which the other warpgroup's
    group t - 1 may still read (each warpgroup retired it in this barrier interval)."""
    with pytest.raises(InterpError, match="a gpu.barrier is missing between that nvgpu.wgmma_wait_group"):
        planted(lambda loop: keep_in_flight(loop, 3, check_slots=False), dims)


def test_distance_f_minus_1_with_one_warpgroup_is_no_race():
    """The model is not blunter than the hardware: with one warpgroup, the slot of t - 1 was read by that
    warpgroup's groups alone, which its own waits retired before its threads write it (the pass still
    asks for F - 2, for any number of warpgroups)."""
    assert planted(lambda loop: keep_in_flight(loop, 3, check_slots=False), ALIGNED, TILES[1]).passed


def test_planted_missing_final_wait_fails():
    def edit(loop):
        keep_in_flight(loop)
        final = loop.next_op
        assert isinstance(final, WgmmaWaitGroupOp) and final.groups == 0
        final.detach()
        final.erase()

    with pytest.raises(InterpError, match="reads %acc.*an accumulator of an nvgpu.wgmma_mma_async whose group is not retired"):
        planted(edit, ALIGNED)


def test_planted_wait_one_with_prefetch_first_fails():
    """wait_group 1 but pipeline's order (the prefetch of t + 3 ahead of the compute): the slot of t - 1
    is overwritten while group t - 1 still reads it."""
    def edit(loop):
        wait = next(o for o in loop.walk() if isinstance(o, WgmmaWaitGroupOp))
        wait.properties["numGroups"] = IntegerAttr(1, i32)
        Rewriter.insert_op(WgmmaWaitGroupOp(0), InsertPoint.after(loop))

    with pytest.raises(InterpError, match="while an nvgpu.wgmma_mma_async that reads it is in flight"):
        planted(edit, ALIGNED)


def test_planted_accumulator_overwrite_fails():
    """A store of zeros into the accumulators right after the loop, before its wait_group 0."""
    from xdsl.dialects import vector

    def edit(loop):
        keep_in_flight(loop)
        zero = next(o for o in loop.parent_block().ops if isinstance(o, vector.StoreOp))
        Rewriter.insert_op(zero.clone(), InsertPoint.after(loop))

    with pytest.raises(InterpError, match="overwrites %acc.*whose group is not retired"):
        planted(edit, ALIGNED)


def test_the_correct_rewrite_passes_where_the_plants_fail():
    assert planted(keep_in_flight, ALIGNED).passed and planted(keep_in_flight, ODD).passed


def test_slot_check_refuses_the_planted_distance():
    m = gemmc.lower(gemmc.parse(source(), defines=ALIGNED), head(), SM90, finalize=False)
    with pytest.raises(GemmcError, match="4 slots, too few .* distance 3: it needs 5 slots"):
        keep_in_flight(k_loop(m), 3)


# -- nvcc -----------------------------------------------------------------------------------

NVCC = shutil.which("nvcc") or ("/usr/local/cuda/bin/nvcc" if os.path.exists("/usr/local/cuda/bin/nvcc") else None)
STUB = os.path.join(os.path.dirname(__file__), "data", "cublas_stub")


def ptxas_v(hip: str) -> str:
    with tempfile.TemporaryDirectory(prefix="gemmc-inflight-") as tmp:
        src = os.path.join(tmp, "k.cu")
        with open(src, "w") as f:
            f.write(hip)
        proc = subprocess.run([NVCC, "-arch=compute_90a", "-code=sm_90a", "-O3", "-x", "cu", "-c", src, "-I", STUB,
                               "-Xptxas", "-v", "-o", os.path.join(tmp, "k.o")], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stderr


@pytest.mark.skipif(NVCC is None, reason="needs nvcc (the CUDA toolkit; no GPU)")
@pytest.mark.parametrize("name", ["wgmma_128x256x64_wg21_s4_inflight", "wgmma_128x128x64_wg11_s4_inflight"])
def test_candidates_build_without_spills_or_serialized_wgmma(name):
    hip = gemmc.emit(module(WGMMA_CANDIDATES[name], {"M": 4096, "N": 4096, "K": 4096}), SM90, "hip")
    assert "wgmma.wait_group.sync.aligned 1;" in hip
    out = ptxas_v(hip)
    assert "0 bytes spill stores, 0 bytes spill loads" in out and "serialized" not in out, out
    # the check is live: touching an accumulator between the commit and the wait serializes them
    commit = 'asm volatile("wgmma.commit_group.sync.aligned;\\n" ::: "memory");'
    assert commit in hip
    bad = hip.replace(commit, commit + " acc[0][0][5] *= 0.5f;", 1)
    assert "wgmma.mma_async instructions are serialized" in ptxas_v(bad)
