"""gemmc's 16-bit and FP8 kernels on the H200's tensor cores (mma.sync), against cuBLAS, PyTorch and Triton.

    python3 benchmarks/h200/matrix.py gen .h200/matrix          # here: the programs and manifest.json
    python3 benchmarks/h200/matrix.py gen .h200/ldm cand_ldm     # only the benchmarks whose file names hold
                                                                 # `cand_ldm` (and the sanitizer programs)
    OUT=h200-out bash benchmarks/h200/matrix.sh .h200/matrix     # on the GPU: matrix*.jsonl, sanitizer, log
    python3 benchmarks/h200/matrix.py ptxas .h200/matrix        # here (nvcc, no GPU): registers, shared memory
                                                                 # and spills of each kernel, into manifest.json
    python3 benchmarks/h200/matrix.py collect benchmarks/h200/raw   # here: matrix.md and matrix.json
    python3 benchmarks/h200/matrix.py defaults .h200/defaults    # here: sm_90's 16-bit default (wgmma, TMA) selected at
                                                                 # DEFAULT_SHAPES beside the selections without TMA
                                                                 # and around the mma.sync default

The FP32 suite's shapes (shapes.py) with f16 and bf16 inputs, f32 accumulation and an f32 C.  Programs
(each gemmc.driver.bench's: C checked against cublasGemmEx in the same input type accumulating in f32,
then the median of 20 timed runs against cuBLAS's, inputs rotated through 4x the L2):
  selected   what `gemmc compile --arch sm_90` runs (the 16-bit default, MATRIX_16BIT_DEFAULTS["sm_90"],
             and per-shape selection: smaller tiles, split-k, stream-k);
  dynamic    the same with `dim M, N, K` given at launch (f16, four shapes);
  cand_*     the candidates the default was chosen from (CANDIDATES, f16 at 4096^3 and 8192^3): sm_90's first
             default and its element-wise rivals, then ldmatrix alone and with cp.async at 2, 3 and 4
             stages, and larger tiles (issue #38); the EVERY_SHAPE ones at every shape of the suite too; and Hopper's
             warpgroup MMA (WGMMA_CANDIDATES, cand_wgmma_*, f16 and bf16 at both sizes, built for sm_90a).
FP8 (OCP: e4m3, and A e4m3 x B e5m2; FP8_TYPES): what `gemmc compile --arch sm_90` runs (MATRIX_FP8_DEFAULTS["sm_90"],
mma.sync m16n8k32, which ptxas runs on Hopper as f16 mma.sync after converting the fragments) at the suite's
shapes in the layout FP8 GEMMs take (`_tn`: A [M][K], B stored [N][K], both k-contiguous; FP8_SHAPES), and at
two in the suite's own (B [K][N]: a transposing copy into the k-contiguous tile); C checked against
cublasGemmEx on exact f16 copies of the inputs, timed against cuBLASLt's FP8 GEMM where it takes the problem
(TN), else against that f16 GemmEx (the JSON line's "cublas" says which).
Peers (triton_matrix.py): PyTorch's matmul in the same type (f16 / bf16 C: cuBLAS's own choice; FP8:
torch._scaled_mm with unit scales into an f32 C) and Triton's tutorial matmul with f32 accumulation into an f32 C.  compute-sanitizer memcheck and racecheck
run on `--harness` programs (float64 check on samples of C) at odd shapes.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from shapes import SHAPES  # noqa: E402
from shapes import source as shapes_source  # noqa: E402

TYPES = ("f16", "bf16")
# FP8 programs by label: (A's type, B's type)
FP8_TYPES = {"e4m3": ("f8e4m3fn", "f8e4m3fn"), "e4m3_e5m2": ("f8e4m3fn", "f8e5m2")}
# the suite's shapes in FP8's "TN" layout (A [M][K], B [N][K]), a_transposed's aside (A [K][M] is no FP8
# GEMM's layout), and two in the suite's own layout
FP8_NN = ("sq4096", "odd")
FP8_SHAPES = {**{f"{n}_tn": (m, nn, k, False, True, ab) for n, (m, nn, k, ta, tb, ab) in SHAPES.items() if not ta},
              **{n: SHAPES[n] for n in FP8_NN}}
# FP8 candidates (e4m3): the default's K tile halved at 4096^3 (0.55 ms predicted against 0.41), and where
# rows are not a multiple of 16 bytes its copies unpeeled (scalar bytes: ptxas 179 registers, no spills,
# where the peeled copies the default keeps take 255 and spill 24-172 bytes)
_FP8_DEFAULT = ("gemm-to-kernel,lds-tiling{{block-m=128 block-n=128 block-k={bk}}},register-tiling{{thread-m=8 thread-n=8}},"
                "matrix-cores{{waves-m=2 waves-n=4}},ldmatrix,vectorize{{width=16{peel}}},direct-to-lds{{fallback=true}},"
                "double-buffer{{stage=lds}},lower-copies,swizzle-lds{{strict=false rows=0 fold=true}},"
                "launch-bounds{{max-threads=256}}")
FP8_CANDIDATES = {"sq4096_tn": {"k64": _FP8_DEFAULT.format(bk=64, peel="")},
                  **{n: {"unpeeled": _FP8_DEFAULT.format(bk=128, peel=" peel=false")} for n in ("sq3000_tn", "odd_tn", "odd")}}
DYNAMIC = ("sq4096", "odd", "deep_k", "tall")
_BASE = "gemm-to-kernel,lds-tiling{{block-m={bm} block-n={bn} block-k={bk}}},register-tiling{{thread-m=8 thread-n=8}}," \
        "matrix-cores{{waves-m={wm} waves-n={wn}}},vectorize{{width=8 blocks=true}},{db}lower-copies,{lds}" \
        "launch-bounds{{max-threads={threads}}}"


def candidate(bm, bn, bk, wm, wn, db="double-buffer{stage=lds},", lds="pad-lds{pad=8},") -> str:
    return _BASE.format(bm=bm, bn=bn, bk=bk, wm=wm, wn=wn, db=db, lds=lds, threads=wm * wn * 32)


# issue #38: fragments by ldmatrix (the ldmatrix pass; B kept [k][n], read .trans), copies by cp.async
# (direct-to-lds) or not, 2 to 4 stages in flight, rows padded by 16 bytes or XOR-swizzled (no padding: what
# lets 3 stages of 128x128x32, or 2 of 128x256x32, fit sm_90's 48 KiB of static shared memory; past it the
# tiles are dynamic shared memory, which the launcher opts in to)
_LDM = "gemm-to-kernel,lds-tiling{{block-m={bm} block-n={bn} block-k={bk}}},register-tiling{{thread-m=8 thread-n=8}}," \
       "matrix-cores{{waves-m={wm} waves-n={wn}}},ldmatrix,vectorize{{width=8}},{copies}{stages}lower-copies,{lds}" \
       "launch-bounds{{max-threads={threads}}}"
SWIZZLE = "swizzle-lds{strict=false rows=0},"


def ldmatrix_candidate(bm, bn, bk, wm, wn, stages=2, cp_async=True, lds="pad-lds{pad=8},") -> str:
    pipelined = ("double-buffer{stage=lds}," if stages == 2
                 else f"multi-buffer{{factor={stages}}},pipeline{{stages={stages}}},")
    return _LDM.format(bm=bm, bn=bn, bk=bk, wm=wm, wn=wn, copies="direct-to-lds{fallback=true}," if cp_async else "",
                       stages=pipelined, lds=lds, threads=wm * wn * 32)


CANDIDATES = {
    # the element-wise fragment reads and synchronous copies (sm_90's first default: 128x128x32_w42_lds_pad,
    # the named pipeline mma-sync-elementwise) and the candidates it was chosen from
    "128x128x32_w42_lds_pad": candidate(128, 128, 32, 4, 2),
    "128x128x32_w22_lds_pad": candidate(128, 128, 32, 2, 2),
    "128x128x32_w42_regs_pad": candidate(128, 128, 32, 4, 2, db="double-buffer{stage=registers},"),
    "128x128x32_w42_single_pad": candidate(128, 128, 32, 4, 2, db=""),
    "128x128x32_w42_lds_swizzle": candidate(128, 128, 32, 4, 2, lds="swizzle-lds{strict=false rows=0},"),
    "128x128x16_w42_lds_pad": candidate(128, 128, 16, 4, 2),
    "128x256x16_w24_lds_pad": candidate(128, 256, 16, 2, 4),
    "64x128x32_w22_lds_pad": candidate(64, 128, 32, 2, 2),
    # ldmatrix only (synchronous vector copies, two LDS slots)
    "ldm_128x128x32_w42_s2_pad": ldmatrix_candidate(128, 128, 32, 4, 2, cp_async=False),
    # ldmatrix + cp.async at 2, 3 and 4 stages
    "ldm_async_128x128x32_w42_s2_pad": ldmatrix_candidate(128, 128, 32, 4, 2),
    "ldm_async_128x128x32_w42_s2_swizzle": ldmatrix_candidate(128, 128, 32, 4, 2, lds=SWIZZLE),
    "ldm_async_128x128x32_w42_s3_swizzle": ldmatrix_candidate(128, 128, 32, 4, 2, stages=3, lds=SWIZZLE),
    "ldm_async_128x128x16_w42_s3_pad": ldmatrix_candidate(128, 128, 16, 4, 2, stages=3),
    "ldm_async_128x128x16_w42_s4_pad": ldmatrix_candidate(128, 128, 16, 4, 2, stages=4),
    # past 48 KiB: dynamic shared memory, opted in by the launcher (227 KiB a block on sm_90)
    "ldm_async_128x128x32_w42_s3_pad": ldmatrix_candidate(128, 128, 32, 4, 2, stages=3),
    "ldm_async_128x128x32_w42_s4_pad": ldmatrix_candidate(128, 128, 32, 4, 2, stages=4),
    "ldm_async_128x128x32_w22_s2_pad": ldmatrix_candidate(128, 128, 32, 2, 2),
    # larger tiles: 8 warps of 64x64 (the default: 128x256x32_w24_s2_swizzle)
    "ldm_async_128x256x32_w24_s2_swizzle": ldmatrix_candidate(128, 256, 32, 2, 4, lds=SWIZZLE),
    "ldm_async_256x128x32_w42_s2_swizzle": ldmatrix_candidate(256, 128, 32, 4, 2, lds=SWIZZLE),
    "ldm_async_128x256x16_w24_s3_swizzle": ldmatrix_candidate(128, 256, 16, 2, 4, stages=3, lds=SWIZZLE),
    "ldm_async_128x256x32_w24_s3_swizzle": ldmatrix_candidate(128, 256, 32, 2, 4, stages=3, lds=SWIZZLE),
    "ldm_async_128x256x32_w24_s4_swizzle": ldmatrix_candidate(128, 256, 32, 2, 4, stages=4, lds=SWIZZLE),
    "ldm_async_256x128x32_w42_s3_swizzle": ldmatrix_candidate(256, 128, 32, 4, 2, stages=3, lds=SWIZZLE),
}
# Hopper's warpgroup MMA (wgmma.mma_async, sm_90a; matrix-cores{instr=wgmma_m64n<N>k16}, the type from the
# kernel): one or two warpgroups of 128 threads, K tiles of 64 (a 128-byte row of 16-bit elements), A and B
# by shared-memory descriptors from tiles in the hardware's 128-byte swizzle (swizzle-lds{mode=sw128}), B [k][n]
# read with imm-trans-b; cp.async copies at 2 to 4 stages (dynamic shared memory past 48 KiB); each K tile's
# wgmma group waited for (wait_group 0) before the barrier, or (`_inflight`) one group kept in flight.  f16 and bf16, both sizes (the instruction
# takes the type; nvcc builds these files with -arch=sm_90a: matrix.sh, gemmc.target.cuda).
_WGMMA = "gemm-to-kernel,lds-tiling{{block-m={bm} block-n={bn} block-k=64}},register-tiling{{thread-m=8 thread-n=8}}," \
         "matrix-cores{{instr=wgmma_m64n{n}k16 waves-m={wm} waves-n={wn}}},vectorize{{width=8}}," \
         "direct-to-lds{{fallback=true}},{stages}lower-copies,swizzle-lds{{mode=sw128}},launch-bounds{{max-threads={threads}}}"


def wgmma_candidate(bm: int, bn: int, n: int, wm: int, wn: int, stages: int, in_flight: bool = False,
                    slots: int | None = None, warp_specialized: bool = False, tma: bool = False) -> str:
    """in_flight: wgmma-in-flight after pipeline (wait_group 1, one group in flight across K tiles; the
    prefetch distance min(stages - 1, slots - 2)); slots: multi-buffer's factor (default: stages);
    warp_specialized: then warp-specialize (a producer warpgroup of cp.async on mbarriers: 128 threads more);
    tma: then tma-copies (thread 0 issues each stage's tiles as TMA boxes on the slot's mbarrier)."""
    pipelined = ("double-buffer{stage=lds}," if stages == 2 and not in_flight and not tma
                 else f"multi-buffer{{factor={slots or stages}}},pipeline{{stages={stages}}},")
    if in_flight or warp_specialized:
        pipelined += "wgmma-in-flight,"
    if warp_specialized:
        pipelined += "warp-specialize,"
    if tma:
        pipelined += "tma-copies,"
    return _WGMMA.format(bm=bm, bn=bn, n=n, wm=wm, wn=wn, stages=pipelined,
                         threads=(wm * wn + warp_specialized) * 128)


WGMMA_CANDIDATES = {
    # two warpgroups of 64x256 (128 accumulators a thread): 48 KiB a stage
    "wgmma_128x256x64_wg21_s3": wgmma_candidate(128, 256, 256, 2, 1, 3),
    "wgmma_128x256x64_wg21_s4": wgmma_candidate(128, 256, 256, 2, 1, 4),
    "wgmma_128x256x64_wg21_s2": wgmma_candidate(128, 256, 256, 2, 1, 2),
    # two warpgroups of 64x128: 32 KiB a stage
    "wgmma_128x128x64_wg21_s4": wgmma_candidate(128, 128, 128, 2, 1, 4),
    # one warpgroup of 128x128 (two m64n128 a K step)
    "wgmma_128x128x64_wg11_s4": wgmma_candidate(128, 128, 128, 1, 1, 4),
    # one wgmma group kept in flight across K tiles (wgmma-in-flight: wait_group 1, the prefetch after it
    # into the slot of tile t - 2): four slots, prefetch distance 2
    "wgmma_128x256x64_wg21_s4_inflight": wgmma_candidate(128, 256, 256, 2, 1, 4, in_flight=True),
    "wgmma_128x128x64_wg21_s4_inflight": wgmma_candidate(128, 128, 128, 2, 1, 4, in_flight=True),
    "wgmma_128x128x64_wg11_s4_inflight": wgmma_candidate(128, 128, 128, 1, 1, 4, in_flight=True),
    # five slots (160 KiB): pipeline's three tiles ahead kept
    "wgmma_128x128x64_wg21_f5_s4_inflight": wgmma_candidate(128, 128, 128, 2, 1, 4, in_flight=True, slots=5),
    # warp-specialized (warp-specialize): a producer warpgroup issues the cp.async, completing on the slot's
    # "full" mbarrier; the wgmma warpgroups wait on it and release the slot on its "empty" one; no barrier
    # in the K loop; setmaxnreg 40 / 232 with two consumer warpgroups
    "wgmma_128x256x64_ws_s4": wgmma_candidate(128, 256, 256, 2, 1, 4, warp_specialized=True),
    "wgmma_128x128x64_wg21_ws_s4": wgmma_candidate(128, 128, 128, 2, 1, 4, warp_specialized=True),
    "wgmma_128x128x64_wg11_ws_s4": wgmma_candidate(128, 128, 128, 1, 1, 4, warp_specialized=True),
    # TMA (tma-copies): thread 0 issues each stage's A box and B's 128-byte panels, completing on the slot's
    # mbarrier (expect_tx); every thread waits on its phase; the K loop's barrier stays (slot reuse).  Rows
    # must be a multiple of 16 bytes (the tensor map's stride): gemmc bench's suite shapes that are not are
    # refused at tma-copies
    "wgmma_128x256x64_wg21_s4_inflight_tma": wgmma_candidate(128, 256, 256, 2, 1, 4, in_flight=True, tma=True),
    "wgmma_128x256x64_wg21_s4_tma": wgmma_candidate(128, 256, 256, 2, 1, 4, tma=True),
    "wgmma_128x128x64_wg21_s4_inflight_tma": wgmma_candidate(128, 128, 128, 2, 1, 4, in_flight=True, tma=True),
    # warp-specialized with a TMA producer: the producer warpgroup's first thread issues the boxes after the
    # slot's empty wait, on full (one arrival: its expect_tx)
    "wgmma_128x256x64_ws_s4_tma": wgmma_candidate(128, 256, 256, 2, 1, 4, warp_specialized=True, tma=True),
}
CANDIDATE_SIZES = (4096, 8192)
# the candidates measured fastest at 4096^3 on an H100 (2026-12-07: three stages, 17-19% ahead of the
# two-stage default), timed at every shape of the suite before the default is changed
EVERY_SHAPE = ("ldm_async_128x256x32_w24_s3_swizzle", "ldm_async_128x128x32_w42_s3_swizzle")
SANITIZER = {"memcheck": [(4097, 4095, 1023), (64, 64, 2000)], "racecheck": [(257, 129, 95), (64, 64, 2000)]}


def source(t: str, m: int, n: int, k: int, ta: bool, tb: bool, ab: bool, dynamic: bool = False) -> str:
    """The suite's kernel in type t (f16, bf16) or FP8 label t (FP8_TYPES: A's and B's formats)."""
    if t not in FP8_TYPES:
        return shapes_source(m, n, k, ta, tb, ab, dynamic, t)
    a, b = FP8_TYPES[t]
    text = shapes_source(m, n, k, ta, tb, ab, dynamic, a)
    return text.replace(f"B: {a}[", f"B: {b}[").replace(f"kernel {a}gemm", f"kernel fp8_{t}_gemm")


def _write(out: Path, manifest: dict, name: str, t: str, variant: str, module, dims: dict, why: str = "") -> None:
    """A lowered module's benchmark program (gemmc.driver.bench: checked against cuBLAS, timed) and its
    kernel alone (for `ptxas`) into `out`, and its manifest entry."""
    import gemmc
    from gemmc.cost.model import predict
    from gemmc.driver.bench import bench_source
    from gemmc.support.ir_names import PIPELINE_ATTR, SELECTED_ATTR
    from gemmc.target.arch import get_arch

    sm90 = get_arch("sm_90")
    f = out / f"mx_{t}_{name}_{variant}.cu"
    f.write_text(bench_source(module, sm90, dims, repeats=20))
    (out / "kernels").mkdir(exist_ok=True)
    (out / "kernels" / f.name).write_text(gemmc.emit(module, sm90, "hip"))
    entry = {"shape": name, "type": t, "variant": variant, "file": f.name,
             "pipeline": module.attributes[PIPELINE_ATTR].data,
             "predicted_ms": predict(module, sm90, dims).time_s * 1e3}
    if why or SELECTED_ATTR in module.attributes:
        entry["why"] = why or module.attributes[SELECTED_ATTR].data
    manifest["programs"].append(entry)
    print(f.name, flush=True)


def gen(out: Path, only: str = "") -> None:
    import gemmc
    from gemmc.support.ir_names import PIPELINE_ATTR
    from gemmc.target.arch import get_arch

    sm90 = get_arch("sm_90")
    out.mkdir(parents=True, exist_ok=True)
    manifest: dict = {"shapes": {n: s for n, s in SHAPES.items()}, "fp8_shapes": dict(FP8_SHAPES),
                      "fp8_types": dict(FP8_TYPES), "programs": [], "sanitizer": []}

    def program(name: str, t: str, shape: tuple, variant: str, pipeline: str | None, dynamic: bool = False) -> None:
        if only not in f"mx_{t}_{name}_{variant}.cu":
            return
        dims = dict(zip("MNK", shape[:3])) if dynamic else {}
        module = gemmc.lower(gemmc.parse(source(t, *shape, dynamic=dynamic), f"{name}.gemm"), pipeline, sm90)
        _write(out, manifest, name, t, variant, module, dims)

    for t in TYPES:
        for name, shape in SHAPES.items():
            program(name, t, shape, "selected", None)
            if t == "f16" and name in DYNAMIC:
                program(name, t, shape, "dynamic", None, dynamic=True)
        for n in CANDIDATE_SIZES if t == "f16" else ():  # (bf16 runs the same kernels)
            for cname, pipeline in CANDIDATES.items():
                program(f"sq{n}", t, (n, n, n, False, False, False), f"cand_{cname}", pipeline)
        for name, shape in SHAPES.items() if t == "f16" else ():
            for cname in EVERY_SHAPE if name not in ("sq4096", "sq8192") else ():
                program(name, t, shape, f"cand_{cname}", CANDIDATES[cname])
        for n in CANDIDATE_SIZES:  # wgmma: an instruction of each type
            for cname, pipeline in WGMMA_CANDIDATES.items():
                program(f"sq{n}", t, (n, n, n, False, False, False), f"cand_{cname}", pipeline)
    for t in FP8_TYPES:
        for name, shape in FP8_SHAPES.items():
            program(name, t, shape, "selected", None)
            for cname, pipeline in FP8_CANDIDATES.get(name, {}).items() if t == "e4m3" else ():
                program(name, t, shape, f"cand_{cname}", pipeline)
    for tool, shapes in SANITIZER.items():
        for t, tb in [(t, False) for t in TYPES] + [(t, tb) for t in FP8_TYPES for tb in (False, True)]:
            for m, n, k in shapes:
                module = gemmc.lower(gemmc.parse(source(t, m, n, k, False, tb, False)), None, sm90)
                f = out / f"san_{tool}_{t}_{m}x{n}x{k}{'_tn' if tb else ''}.cu"
                f.write_text(gemmc.emit(module, sm90, "hip", harness=True))
                manifest["sanitizer"].append({"tool": tool, "type": t, "shape": [m, n, k], "file": f.name,
                                              "pipeline": module.attributes[PIPELINE_ATTR].data})
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1))
    print(f"{len(manifest['programs'])} benchmarks, {len(manifest['sanitizer'])} sanitizer programs in {out}")


# sm_90's 16-bit default (MATRIX_16BIT_DEFAULTS["sm_90"]: wgmma + wgmma-in-flight + TMA where tma-copies takes the
# candidate, misaligned rows packed for it by pack-operands, + pair stores) selected per shape, beside the selection
# around the same default without TMA (NAMED_PIPELINES["wgmma-cp-async-128x256"], the default before; no packing)
# and around the mma.sync default before that (NAMED_PIPELINES["mma-sync-128x256"]), at the suite's 17 shapes in
# f16 and in bf16 at 4096^3 / 8192^3 and the two shapes whose rows pack-operands pads (odd, odd_nt_alpha_beta):
# one device call times all three (`defaults`)
DEFAULT_SHAPES = {"f16": tuple(SHAPES), "bf16": ("sq4096", "sq8192", "odd", "odd_nt_alpha_beta")}
SELECTIONS = {"selected": None, "selected_no_tma": "wgmma-cp-async-128x256", "mma_sync_selected": "mma-sync-128x256"}


def defaults(out: Path) -> None:
    """Per shape of DEFAULT_SHAPES, each of SELECTIONS: `selected` (what `gemmc compile --arch sm_90` runs: the
    default's selection, TMA where tma-copies takes a candidate, A and B copied into zero-padded buffers first
    where their rows are not a multiple of 16 bytes: pack-operands), `selected_no_tma` (gemmc.driver.selection
    around the default without TMA) and `mma_sync_selected` (around the mma.sync default).  A selection that
    took a pipeline an earlier one of the shape took is not written again: its manifest entry under
    "same_as" names the program that times it.  Each program's manifest entry has its pipeline and why."""
    import gemmc
    from gemmc.driver.selection import select_pipeline
    from gemmc.support.named_pipelines import NAMED_PIPELINES
    from gemmc.target.arch import get_arch

    sm90 = get_arch("sm_90")
    out.mkdir(parents=True, exist_ok=True)
    manifest: dict = {"shapes": {n: s for n, s in SHAPES.items()}, "programs": [], "sanitizer": [], "same_as": []}
    for t, names in DEFAULT_SHAPES.items():
        for name in names:
            text = source(t, *SHAPES[name])
            written: dict[str, str] = {}  # pipeline -> the variant that times it
            for variant, default in SELECTIONS.items():
                choice = select_pipeline(gemmc.parse(text), sm90, default=NAMED_PIPELINES.get(default))
                if choice.pipeline in written:
                    manifest["same_as"].append({"shape": name, "type": t, "variant": variant,
                                                "same_as": written[choice.pipeline], "why": choice.reason})
                    continue
                written[choice.pipeline] = variant
                module = gemmc.lower(gemmc.parse(text, f"{name}.gemm"), choice.pipeline, sm90)
                _write(out, manifest, name, t, variant, module, {}, choice.reason)
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1))
    print(f"{len(manifest['programs'])} benchmarks in {out} ({len(manifest['same_as'])} selections the same as "
          "another of their shape)")


def ptxas(src: Path, jobs: str = "2") -> None:
    """ptxas's report (`gemmc.target.cuda.resource_report`, nvcc -Xptxas -v) of each benchmark's kernels,
    built from gen's kernel-only sources: the registers, shared memory and spills known before a GPU is."""
    from concurrent.futures import ThreadPoolExecutor

    from gemmc.target.arch import get_arch
    from gemmc.target.cuda import resource_report

    sm90 = get_arch("sm_90")
    manifest = json.loads((src / "manifest.json").read_text())

    def report(entry: dict) -> None:
        kernels = resource_report((src / "kernels" / entry["file"]).read_text(), sm90)
        entry["ptxas"] = [{"kernel": k.kernel, "registers": k.vgprs, "smem_bytes": k.lds_bytes,
                           "spill_bytes": k.vgpr_spill, "stack_bytes": k.scratch_bytes} for k in kernels]
        worst = max(kernels, key=lambda k: (k.vgpr_spill, k.vgprs))
        print(f"{entry['file']}: {worst.vgprs} registers, {worst.lds_bytes} B smem, {worst.vgpr_spill} B spilled",
              flush=True)

    with ThreadPoolExecutor(int(jobs)) as pool:
        list(pool.map(report, manifest["programs"]))
    (src / "manifest.json").write_text(json.dumps(manifest, indent=1))


def _geomean(xs: list[float]) -> float:
    xs = [x for x in xs if x]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def collect(raw: Path) -> None:
    manifest = json.loads((raw / "matrix_manifest.json").read_text())
    bench = raw / "matrix.jsonl"  # absent until a GPU call has run the benchmarks (the table says so)
    runs = {(r["type"], r["shape"], r["variant"]): r.get("result")
            for r in map(json.loads, bench.read_text().splitlines() if bench.exists() else []) if r}
    peer_file = raw / "matrix_peers.jsonl"  # absent where matrix.sh ran with SKIP_PEERS=1
    peers = {(r["type"], r["shape"]): r for r in map(json.loads, peer_file.read_text().splitlines() if peer_file.exists() else [])
             if r and "type" in r}
    rows = []
    for p in manifest["programs"]:
        x = runs.get((p["type"], p["shape"], p["variant"]))
        peer = peers.get((p["type"], p["shape"]), {})
        m, n, k = {**manifest["shapes"], **manifest.get("fp8_shapes", {})}[p["shape"]][:3]
        row = dict(p, M=m, N=n, K=k)
        if x:
            row.update(gemmc_ms=x["gemmc_ms"], cublas_ms=x["cublas_ms"], pct_of_cublas=x["pct_of_cublas"],
                       gemmc_tflops=x["gemmc_tflops"], cublas_tflops=x["cublas_tflops"], passed=x["passed"],
                       max_rel_err=x["max_rel_err"], device=x["device"], cublas=x.get("cublas", "cublasGemmEx"))
        flops = 2 * m * n * k
        for peer_name in ("torch", "triton"):
            if peer.get(f"{peer_name}_ms"):
                row[f"{peer_name}_ms"] = peer[f"{peer_name}_ms"]
                row[f"{peer_name}_tflops"] = flops / peer[f"{peer_name}_ms"] / 1e9
                row[f"{peer_name}_rel_err"] = peer[f"{peer_name}_rel_err"]
                if x:
                    row[f"{peer_name}_pct_of_cublas"] = 100 * x["cublas_ms"] / peer[f"{peer_name}_ms"]
        rows.append(row)
    # the benchmarks' machine, and the peers' and sanitizer's where another call of the GPU ran them
    log = "\n\n".join(f"{what}:\n{(raw / name).read_text().strip()}" for what, name in
                       (("gemmc and cuBLAS", "matrix_log.txt"), ("PyTorch, Triton, compute-sanitizer", "matrix_peers_log.txt"))
                       if (raw / name).exists())
    sanitizer = (raw / "matrix_sanitizer.txt").read_text() if (raw / "matrix_sanitizer.txt").exists() else ""
    summary = _summary(rows, sanitizer)
    (raw.parent / "matrix.json").write_text(json.dumps({"machine": log, "summary": summary, "rows": rows}, indent=1))
    (raw.parent / "matrix.md").write_text(_markdown(rows, summary, log))
    print((raw.parent / "matrix.md").read_text())


def _summary(rows: list[dict], sanitizer: str) -> dict:
    out: dict = {}
    for t in TYPES + tuple(FP8_TYPES):
        sel = [r for r in rows if r["type"] == t and r["variant"] == "selected"]
        out[t] = {"geomean_pct_of_cublas": _geomean([r.get("pct_of_cublas") for r in sel]),
                  "all_checked": all(r.get("passed") for r in sel),
                  "programs": len(sel), "ran": sum(1 for r in sel if "passed" in r)}
        for peer in ("torch", "triton"):
            out[t][f"{peer}_geomean_pct_of_cublas"] = _geomean([r.get(f"{peer}_pct_of_cublas") for r in sel])
    lines = sanitizer.splitlines()
    out["sanitizer"] = {"programs": sum(1 for x in lines if x.startswith("== ")),
                        "clean": sanitizer.count("ERROR SUMMARY: 0 errors") + sanitizer.count("RACECHECK SUMMARY: 0 hazards"),
                        "checked": sum(1 for x in lines if x.startswith("Checked") and x.endswith("PASSED")),
                        "exit0": lines.count("exit 0")}
    return out


def _ptxas_cells(row: dict) -> str:
    kernels = row.get("ptxas")
    if not kernels:
        return "- | -"
    return f"{max(k['registers'] for k in kernels)} | {max(k['spill_bytes'] for k in kernels)}"


def _markdown(rows: list[dict], summary: dict, log: str) -> str:
    def f(x, p=0):
        return "-" if x is None or x != x else f"{x:.{p}f}"

    lines = ["# gemmc's 16-bit kernels on Hopper's tensor cores (mma.sync) against cuBLAS, PyTorch and Triton", "",
             "Written by `benchmarks/h200/matrix.py collect` from `raw/matrix.jsonl`, `raw/matrix_peers.jsonl`,",
             "`raw/matrix_manifest.json` and `raw/matrix_sanitizer.txt` (machine below). % = cuBLAS time / its",
             "time x 100 (higher is faster); cuBLAS: cublasGemmEx, same input type, f32 accumulation and C;",
             "PyTorch: `A @ B` in the input type (a 16-bit C); Triton: its tutorial matmul, f32 C.",
             "predicted: `gemmc explain`'s time for the same pipeline. registers / spilled: ptxas's report of the",
             "kernel with the most (`matrix.py ptxas`, nvcc without a GPU; `-` where it was not run).", "",
             "A `-` is a number not measured: see the note under the table.", "",
             "| type | shape | M x N x K | variant | gemmc TFLOP/s | cuBLAS TFLOP/s | PyTorch TFLOP/s | Triton TFLOP/s "
             "| gemmc % | PyTorch % | Triton % | checked | predicted ms | measured ms | registers | spilled B |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['type']} | {r['shape']} | {r['M']}x{r['N']}x{r['K']} | {r['variant']} | "
                     f"{f(r.get('gemmc_tflops'), 1)} | {f(r.get('cublas_tflops'), 1)} | {f(r.get('torch_tflops'), 1)} | "
                     f"{f(r.get('triton_tflops'), 1)} | {f(r.get('pct_of_cublas'))} | "
                     f"{f(r.get('torch_pct_of_cublas'))} | {f(r.get('triton_pct_of_cublas'))} | "
                     f"{'PASS' if r.get('passed') else ('FAIL' if 'passed' in r else '-')} | "
                     f"{f(r['predicted_ms'], 3)} | {f(r.get('gemmc_ms'), 3)} | {_ptxas_cells(r)} |")
    lines += ["", "| type | geometric mean % of cuBLAS (selected) | PyTorch | Triton | every result checked |",
              "|---|---|---|---|---|"]
    for t in TYPES + tuple(FP8_TYPES):
        s = summary[t]
        lines.append(f"| {t} | {f(s['geomean_pct_of_cublas'])} | {f(s['torch_geomean_pct_of_cublas'])} | "
                     f"{f(s['triton_geomean_pct_of_cublas'])} | {s['all_checked']} ({s['ran']} of {s['programs']} ran) |")
    s = summary["sanitizer"]
    ran = sum(1 for r in rows if "passed" in r)
    if not ran:
        lines += ["", "Not measured: gemmc's and cuBLAS's times (no benchmark ran: the first GPU call's programs "
                  "launched an uninstantiated fill kernel, fixed since in gemmc.driver.bench; no later call got a "
                  "machine). The PyTorch and Triton columns and the sanitizer runs are measured."]
    lines += ["", f"compute-sanitizer: {s['programs']} runs, {s['clean']} clean summaries, {s['exit0']} exit 0; "
              f"{s['checked']} `--harness` programs' float64 checks of C (run on the tensor cores) PASSED.",
              "", "Machine:", "", "```", log, "```", ""]
    return "\n".join(lines)


if __name__ == "__main__":
    cmd, arg = sys.argv[1], Path(sys.argv[2])
    {"gen": gen, "defaults": defaults, "ptxas": ptxas, "collect": collect}[cmd](arg, *sys.argv[3:])
