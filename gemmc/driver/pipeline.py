"""Passes by name, pipelines in xdsl-opt's syntax, and the target a module is built for."""

from __future__ import annotations

import dataclasses
import importlib
import re
import sys
import typing
from collections.abc import Callable

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass, PassPipeline
from xdsl.utils.arg_spec import parse_pipeline
from xdsl.utils.exceptions import ArgSpecParseError

from gemmc.target.arch import Arch, instrs_taking
from gemmc.support.named_pipelines import NAMED_PIPELINES, STEP3
from gemmc.support.diagnostics import EXIT_IO, GemmcError, Location, usage_error, verifier_message
from gemmc.target.module_arch import set_target, target_of  # noqa: F401  (re-exported for callers of the pipeline API)


def _lazy(module: str, cls: str) -> Callable[[], type[ModulePass]]:
    """gemmc.passes.MODULE.CLS, imported on first use: a command pays only for the passes it runs."""

    def load() -> type[ModulePass]:
        return getattr(importlib.import_module(f"gemmc.passes.{module}"), cls)

    return load


BUILTIN_PASSES: dict[str, Callable[[], type[ModulePass]]] = {
    "gemm-to-kernel": _lazy("gemm_to_kernel", "GemmToKernelPass"),
    "lds-tiling": _lazy("lds_tiling", "LdsTilingPass"),
    "register-tiling": _lazy("register_tiling", "RegisterTilingPass"),
    "double-buffer": _lazy("double_buffer", "DoubleBufferPass"),
    "vectorize": _lazy("vectorize", "VectorizePass"),
    "launch-bounds": _lazy("launch_bounds", "LaunchBoundsPass"),
    "lower-copies": _lazy("lower_copies", "LowerCopiesPass"),
    # layout and loop passes that rewrite any kernel IR in place
    "pad-lds": _lazy("pad_lds", "PadLdsPass"),
    "swizzle-lds": _lazy("swizzle_lds", "SwizzleLdsPass"),
    "multi-buffer": _lazy("multi_buffer", "MultiBufferPass"),
    "pipeline": _lazy("pipeline_loop", "PipelinePass"),
    "wgmma-in-flight": _lazy("wgmma_in_flight", "WgmmaInFlightPass"),
    "warp-specialize": _lazy("warp_specialize", "WarpSpecializePass"),
    "tma-copies": _lazy("tma_copies", "TmaCopiesPass"),
    "pack-operands": _lazy("pack_operands", "PackOperandsPass"),
    "split-k": _lazy("split_k", "SplitKPass"),
    "stream-k": _lazy("stream_k", "StreamKPass"),
    "assume-aligned": _lazy("assume_aligned", "AssumeAlignedPass"),
    # cost-model analyses: remarks on stderr, IR unchanged
    "analyze-lds-banks": _lazy("analyze_lds_banks", "AnalyzeLdsBanksPass"),
    "analyze-occupancy": _lazy("analyze_occupancy", "AnalyzeOccupancyPass"),
    "mfma-lowering": _lazy("mfma_lowering", "MfmaLoweringPass"),
    "wmma-lowering": _lazy("wmma_lowering", "WmmaLoweringPass"),
    "matrix-cores": _lazy("matrix_cores", "MatrixCoresPass"),
    "direct-to-lds": _lazy("direct_to_lds", "DirectToLdsPass"),
    "ldmatrix": _lazy("ldmatrix", "LdmatrixPass"),
    # gemmc's own AMDGCN backend (docs/amdgcn.md); the first two run on any kernel IR
    "unroll-loops": _lazy("unroll_loops", "UnrollLoopsPass"),
    "promote-private": _lazy("promote_private", "PromotePrivatePass"),
    "lower-to-amdgcn": _lazy("lower_to_amdgcn", "LowerToAmdgcnPass"),
    "amdgcn-regalloc": _lazy("amdgcn_regalloc", "AmdgcnRegallocPass"),
    "insert-waitcnt": _lazy("insert_waitcnt", "InsertWaitcntPass"),
    "amdgcn-finalize": _lazy("amdgcn_finalize", "AmdgcnFinalizePass"),
}
"""gemmc's own passes."""

PASSES: dict[str, Callable[[], type[ModulePass]]] = dict(BUILTIN_PASSES)
"""gemmc's passes and those registered with `register_pass` or `--load` (docs/passes.md)."""




# The 16-bit (f16, bf16) matrix-core defaults: per arch, the fastest pipeline the cost model
# predicts at 4096^3 among those benchmarks/matrix_defaults.py searches (a reproducible grid:
# LDS tiles, block-k, fragment reads (frag-read, k-pack), double-buffer stage, vectorize, swizzle-lds
# over the bank line, the copies' lanes in 16-load pieces of a row, vectorize{row-lanes=16}, and a
# transposed tile's stores by 4x4 blocks transposed in registers, vectorize{blocks=true}); the
# winners are pinned by tests/lit/pipelines/matrix-defaults.gemm.  The
# search predicts its best 20 by estimated VGPRs again with clang's: the best by estimate take 256
# VGPRs under clang on gfx942 and gfx950 (one wave per SIMD) and spill on gfx1201; a tie goes to the
# fewer VGPRs.  Its vectorize's treatment of rows that are not a multiple of 4 elements (peeled down
# the rows, along them, or scalar copies) is then the fastest at 4097x4095x1023, with clang's
# registers.  A default within 1% of the best stays: gfx950's 256x128x32 ties 128x256x32 at 4096^3
# (0.0957 ms), and at 4097x4095x1023 the selection's half K tile of it runs 0.065 ms against 0.157
# for either tile as it is (gemmc.driver.selection._full_grid).  (Since the model waits for a peeled
# copy's vectors where they load, docs/cost-model.md "Peeled copies on AMD", the selection takes scalar
# copies there on every AMD target: gfx950 128x128x32, 0.093 ms; the treatments below were chosen before,
# and still serve sizes given at launch.)  RDNA's two were searched again when the model gained its issue
# term (gemmc.cost.issue, 2026-12-07): gfx1100 now loads its copies 16 lanes a row (2.25 -> 2.22 ms at
# 4096^3; ISA-level model 2.39 -> 2.18, at 4097x4095x1023 0.98 -> 0.90), gfx1201 stores B's tile without
# 4x4 register blocks and takes scalar copies (1.57 -> 1.42 ms; ISA-level 1.61 -> 1.52, at 4097x4095x1023
# the same 0.72 the selection's scalar copies had).  An arch without an entry keeps the type-independent default.
MATRIX_16BIT_DEFAULTS: dict[str, str] = {
    "gfx90a":
        "gemm-to-kernel,lds-tiling{block-m=128 block-n=128 block-k=16},register-tiling{thread-m=8 thread-n=8},matrix-cores{frag-read=0},vectorize{width=4 row-lanes=16 blocks=true peel-lanes=rows},double-buffer{stage=registers},lower-copies,swizzle-lds{strict=false rows=0},launch-bounds{max-threads=256}",
    "gfx942":
        "gemm-to-kernel,lds-tiling{block-m=128 block-n=256 block-k=16},register-tiling{thread-m=8 thread-n=8},matrix-cores{frag-read=0},vectorize{width=4 row-lanes=16 blocks=true peel-lanes=rows},double-buffer{stage=registers},lower-copies,swizzle-lds{strict=false rows=0},launch-bounds{max-threads=256}",
    "gfx950":
        "gemm-to-kernel,lds-tiling{block-m=256 block-n=128 block-k=32},register-tiling{thread-m=8 thread-n=8},matrix-cores{frag-read=0},vectorize{width=4 row-lanes=16 blocks=true peel-lanes=rows},double-buffer{stage=registers},lower-copies,swizzle-lds{strict=false rows=0},launch-bounds{max-threads=256}",
    "gfx1100":
        "gemm-to-kernel,lds-tiling{block-m=128 block-n=128 block-k=16},register-tiling{thread-m=8 thread-n=8},matrix-cores{frag-read=2},vectorize{width=4 row-lanes=16 blocks=true peel=false},double-buffer{stage=registers},lower-copies,swizzle-lds{strict=false rows=0},launch-bounds{max-threads=256}",
    "gfx1201":
        "gemm-to-kernel,lds-tiling{block-m=128 block-n=128 block-k=16},register-tiling{thread-m=8 thread-n=8},matrix-cores{frag-read=0},vectorize{width=4 row-lanes=16 peel=false},double-buffer{stage=registers},lower-copies,swizzle-lds{strict=false rows=0},launch-bounds{max-threads=256}",
    # sm_90's tensor cores, issue #38: Hopper's warpgroup MMA (wgmma, sm_90a: gemmc.target.wgmma), two warpgroups of
    # m64n256k16 in 128x256 tiles, K tiles of 64 in the 128-byte swizzle read by descriptors, 4 slots with 4 stages
    # (dynamic shared memory), one wgmma group kept in flight across K tiles (wgmma-in-flight), the tiles copied
    # by TMA boxes (tma-copies: one thread's, completing on mbarriers) where tma-copies takes the program, else by
    # cp.async (OPTIONAL_PASSES: the selection runs it and drops it where it refuses), C stored in pairs
    # (vectorize's default).  Measured on an H100 as fixed pipelines (benchmarks/h200/raw/matrix_tma.jsonl,
    # 2026-12-07): with TMA 0.210 ms at f16 4096^3 (95% of cuBLAS) and 1.601 ms at 8192^3 (98%); without
    # (NAMED_PIPELINES["wgmma-cp-async-128x256"], the default before) 0.350 and 2.632 ms; the mma.sync default
    # before that (NAMED_PIPELINES["mma-sync-128x256"]) 338 TFLOP/s at 4096^3 (47%, raw/matrix_pairs_ws.jsonl).
    # The cp.async default's per-shape selection (raw/matrix_defaults_wgmma.jsonl, an H100, 2026-12-07): geometric
    # mean over the suite's 17 f16 shapes 62% of cuBLAS against the mma.sync default's selection's 53%.  The
    # selection builds its variants with wgmma (gemmc.driver.variants.with_tiles: 64x128 in one warpgroup of
    # m64n128, 64x64 of m64n64; split-k and stream-k before multi-buffer, wgmma-in-flight and tma-copies after
    # pipeline), takes a K tile under 64 or a side of 224, which wgmma cannot, from the mma.sync pipeline
    # (tile_variant), and runs each wgmma candidate without TMA where tma-copies refuses it (dynamic sizes without
    # assume-aligned), its label saying so.  Static rows not a multiple of 16 bytes (4097x4095x1023,
    # 3001x2999x1537 with B [N, K]), which tma-copies refuses, pack-operands first copies into zero-padded buffers
    # (PREPARES below; before it those shapes ran without TMA, 0.792 and 1.229 ms, 32% and 26% of cuBLAS, against
    # ~93% where TMA runs: benchmarks/h200/README.md; the packed default is not timed yet).  The selection's picks with TMA at the 14 suite programs tma-copies takes: f16 geometric
    # mean 97.5% of cuBLAS against 69.8% without (benchmarks/h200/matrix_tma_selection.md, an H100, 2026-12-07).
    "sm_90":
        "gemm-to-kernel,lds-tiling{block-m=128 block-n=256 block-k=64},register-tiling{thread-m=8 thread-n=8},matrix-cores{instr=wgmma_m64n256k16 waves-m=2 waves-n=1},vectorize{width=8},direct-to-lds{fallback=true},multi-buffer{factor=4},pipeline{stages=4},wgmma-in-flight,pack-operands,tma-copies,lower-copies,swizzle-lds{mode=sw128},launch-bounds{max-threads=256}",
}

# Passes a default pipeline holds where the program lets them: where one refuses a candidate (its located
# pass error, raised by running it on the candidate's IR), the selection and the dispatch lower that
# candidate without it and say why (gemmc.driver.lowering.lower_dropping).  tma-copies: TMA's tensor maps
# take sources whose rows are a multiple of 16 bytes (a dynamic row length only where assume-aligned proves it,
# a static one where pack-operands padded it), and a grouped X only where every store is masked to its group
# (passes/tma_copies.py says the rest).  pack-operands: refuses a dynamic row length (passes/pack_operands.py).
OPTIONAL_PASSES = ("tma-copies", "pack-operands")
# An optional pass there only for a later one (pass -> the pass it prepares): lower_dropping leaves it out where
# that pass refuses.  pack-operands gives A's and B's misaligned rows zero-padded copies whose rows TMA takes; it
# changes nothing where they are aligned (lower_dropping then leaves it out of the pipeline it ran, which stays
# byte for byte the pipeline before it), and a candidate tma-copies refuses anyway (a transposing copy, ...)
# is not made to pay for the copies.  Where it packs, the selection weighs the default against the default without
# it and tma-copies (gemmc.driver.selection._packing_treatment): the copies and allocations are in the prediction.
PREPARES = {"pack-operands": "tma-copies"}


# The FP8 matrix-core defaults (either operand format of the arch, A and B alike): the same search
# (benchmarks/matrix_defaults.py --arch gfx942 --types f8e4m3fnuz; gfx950: f8e4m3fn) on
# examples/fp8gemm.gemm's problem (4096^3, A row-major; B's tile transposed, by blocks), with K tiles
# of 32 to 128, 8-element blocks (also B's alone, 8 along a row), 8-byte fragment reads, one LDS
# buffer (double-buffer{lds-slots=1}) and the swizzle's folded key (fold=true) besides the 16-bit
# grid, where they are predicted at 0.093 ms on gfx942 (56.6% of the FP8 dense peak; the
# type-independent default: 0.745 ms, 7.1%; 128x256x32 with two LDS buffers ran 0.103 ms: at
# block-k 64 only one buffer leaves room for two workgroups, and only the folded key spreads the
# 8x8 blocks' stores; at 4096^3 the selection takes 128x224 tiles instead, 608 workgroups for 304 CUs,
# B's rows of 28 blocks copied by the 32 lanes of the default's: 0.087 ms, 60.4%) and 0.057 ms on
# gfx950 (47.7% of its FP8 peak, the unscaled f8f6f4 MFMAs' 5.0 PFLOP/s, which block-k 64 and 128
# take; 128x128x64 with two LDS buffers ran 0.073 ms, and 256x128x64 with them needs 256 VGPRs and
# AGPRs).  gfx1201 (--types f8e4m3fn): 0.886 ms, 79.7% of
# its FP8 WMMA peak (the type-independent default: 2.128 ms, 16-way conflicts); its candidates take
# 256 VGPRs and spill at 4097x4095x1023 whichever way they copy, where the selection's half K tile
# with scalar copies (gemmc.driver.selection._full_grid, clang's registers: 231, no scratch) runs 0.384 ms
# against the type-independent default's 0.467.
# sm_90 (OCP FP8 on mma.sync m16n8k32, which ptxas runs as f16 mma.sync after converting the
# fragments: gemmc.target.arch._mma_sync): 128x128 tiles, K tiles of 128 bytes, 8 warps of 64x32
# (the 64x64 warps of the 16-bit default spill: 255 registers, 68-80 bytes, as the converted fragments
# take registers too), fragments by ldmatrix (8-bit: k-contiguous tiles, no .trans), cp.async where
# the operand is k-contiguous in global memory (A row-major, B stored [N][K]) and a transposing
# copy where it is not, two stages (64 KiB: dynamic shared memory), the swizzle's folded key (the
# transposing copy's byte stores 8-way conflicted without it).  Of benchmarks/h200/matrix.py's FP8
# candidates the fastest the cost model predicts at 4096^3 with B [N][K] (0.41 ms against 0.55 for
# K tiles of 64, 128x256 tiles spill); ptxas (sm_90, clang-22's PTX): 174 registers with B [N][K],
# 180 with B [K][N], no spills.  Not yet timed.
MATRIX_FP8_DEFAULTS: dict[str, str] = {
    "sm_90":
        "gemm-to-kernel,lds-tiling{block-m=128 block-n=128 block-k=128},register-tiling{thread-m=8 thread-n=8},matrix-cores{waves-m=2 waves-n=4},ldmatrix,vectorize{width=16},direct-to-lds{fallback=true},double-buffer{stage=lds},lower-copies,swizzle-lds{strict=false rows=0 fold=true},launch-bounds{max-threads=256}",
    "gfx942":
        "gemm-to-kernel,lds-tiling{block-m=128 block-n=256 block-k=64},register-tiling{thread-m=8 thread-n=8},matrix-cores{frag-read=0},vectorize{width=8 blocks=true peel-lanes=rows},double-buffer{stage=registers lds-slots=1},lower-copies,swizzle-lds{strict=false rows=0 fold=true},launch-bounds{max-threads=256}",
    "gfx950":
        "gemm-to-kernel,lds-tiling{block-m=256 block-n=128 block-k=64},register-tiling{thread-m=8 thread-n=8},matrix-cores{frag-read=8},vectorize{width=8 blocks=true peel-lanes=rows},double-buffer{stage=registers lds-slots=1},lower-copies,swizzle-lds{strict=false rows=0},launch-bounds{max-threads=256}",
    "gfx1201":
        "gemm-to-kernel,lds-tiling{block-m=128 block-n=128 block-k=64},register-tiling{thread-m=8 thread-n=8},matrix-cores{frag-read=0},vectorize{width=8 blocks=true peel-lanes=rows},double-buffer{stage=registers lds-slots=1},lower-copies,swizzle-lds{strict=false rows=0 fold=true},launch-bounds{max-threads=256}",
}

# FP8 products of two formats (e4m3 x e5m2, either way round), where a search covered them: sm_90's
# mma.sync takes the pair as one instruction (m16n8k32 .e4m3.e5m2), and the tiles, copies and reads
# are those of one format, so its FP8 default.  Elsewhere the type-independent default, whose
# matrix-cores{fallback=true} takes the arch's mixed instructions where it has them.
MATRIX_FP8_PAIR_DEFAULTS: dict[str, str] = {"sm_90": MATRIX_FP8_DEFAULTS["sm_90"]}

# The block-scaled (MX) defaults, by format (mx_format), from the same search over MX grids
# (benchmarks/matrix_defaults.py --arch gfx950 --types mxfp4 mxfp6 mxfp8): tiles of 128 x 128 x 128,
# the scaled MFMA, fragment pieces, the copies' vector and the swizzle's key, on the MX examples
# (examples/mx*gemm.gemm) at 4096^3; of the candidates within 1% there, the fastest at 4097x4095x1024.
# The copies keep peel=false: a packed FP4 / FP6 vector may not start mid-byte, so a row that is not a
# multiple of the vector is copied element by element.  Predicted at 4096^3 without bank conflicts:
# MXFP4 0.087 ms (16x16x128, one scale a lane a K tile where 32x32x64 reads two: the scales' L2 lines
# are most of the traffic; 32-element, 16-byte copies), MXFP6 0.121, MXFP8 0.099; at 4097x4095x1024
# 0.055, 0.041 and 0.038 ms.  double-buffer is in the grid and in none of the winners: its best
# conflict-free candidates take 240-256 VGPRs and are predicted at 0.112, 0.254 and 0.123 ms.
MX_DEFAULTS: dict[str, dict[str, str]] = {
    "mxfp4": {"gfx950": "gemm-to-kernel,lds-tiling{block-m=128 block-n=128 block-k=128},register-tiling{thread-m=8 thread-n=8},matrix-cores{instr=v_mfma_scale_f32_16x16x128_f8f6f4 frag-read=32},vectorize{width=32 peel=false},lower-copies,swizzle-lds{strict=false rows=0 fold=true},launch-bounds{max-threads=256}"},
    "mxfp6": {"gfx950": "gemm-to-kernel,lds-tiling{block-m=128 block-n=128 block-k=128},register-tiling{thread-m=8 thread-n=8},matrix-cores{frag-read=16},vectorize{width=16 peel=false},lower-copies,swizzle-lds{strict=false rows=0 fold=true},launch-bounds{max-threads=256}"},
    "mxfp8": {"gfx950": "gemm-to-kernel,lds-tiling{block-m=128 block-n=128 block-k=128},register-tiling{thread-m=8 thread-n=8},matrix-cores{instr=v_mfma_scale_f32_16x16x128_f8f6f4 frag-read=16},vectorize{width=16 peel=false},lower-copies,swizzle-lds{strict=false rows=0 fold=true},launch-bounds{max-threads=256}"},
}

# The f32 defaults: on CDNA its f32 MFMAs, on RDNA (no f32 WMMA) the VALUs, from the same search's
# f32 grids (benchmarks/matrix_defaults.py --types f32; CDNA: matrix cores with scalar or vector
# copies and the swizzle's line; RDNA: the H200's VALU kernel, k-major LDS fragments read as float4,
# with the copies' lanes and the swizzle), whose problem (examples/sgemm.gemm at 4096^3, A row-major)
# they are predicted at 3.71 ms on gfx90a (77.5% of the f32 matrix peak), 1.06 ms on gfx942 (79.3%),
# 1.11 ms on gfx950 (78.5%), 4.49 ms on gfx1100 (49.8% of the VALU peak) and 5.10 ms on gfx1201
# (55.3%), without LDS bank conflicts (the type-independent default: 4.75, 1.52, 1.02, 14.97 and
# 17.94 ms, 8- to 32-way conflicts).  CDNA copies element by element: a swizzle keeps a copy's
# vector whole, and 4-float chunks leave 32 rows of one k too few bank positions (gfx950's fastest
# conflict-free kernel with 2-float copies still conflicts 2-way).  gemmc's own AMDGCN backend keeps
# the type-independent default.
F32_DEFAULTS: dict[str, str] = {
    "gfx90a":
        "gemm-to-kernel,lds-tiling{block-m=128 block-n=128 block-k=16},register-tiling{thread-m=8 thread-n=8},matrix-cores{convert=none frag-read=0},double-buffer{stage=registers},lower-copies,swizzle-lds{strict=false rows=0},launch-bounds{max-threads=256}",
    "gfx942":
        "gemm-to-kernel,lds-tiling{block-m=64 block-n=128 block-k=8},register-tiling{thread-m=8 thread-n=8},matrix-cores{convert=none frag-read=0},double-buffer{stage=registers},lower-copies,swizzle-lds{strict=false rows=0},launch-bounds{max-threads=256}",
    "gfx950":
        "gemm-to-kernel,lds-tiling{block-m=128 block-n=256 block-k=8},register-tiling{thread-m=8 thread-n=8},matrix-cores{convert=none frag-read=0},double-buffer,lower-copies,swizzle-lds{strict=false rows=4},launch-bounds{max-threads=256}",
    "gfx1100":
        "gemm-to-kernel,lds-tiling{block-m=128 block-n=128 block-k=8},register-tiling{thread-m=8 thread-n=8 lds-layout=k-major unroll=true},vectorize{width=4 row-lanes=8 peel=false},double-buffer{stage=registers},lower-copies,swizzle-lds{strict=false rows=0},launch-bounds{max-threads=256}",
    "gfx1201":
        "gemm-to-kernel,lds-tiling{block-m=128 block-n=128 block-k=8},register-tiling{thread-m=8 thread-n=8 lds-layout=k-major unroll=true},vectorize{width=4 row-lanes=8 peel=false},double-buffer{stage=registers},lower-copies,swizzle-lds{strict=false rows=0},launch-bounds{max-threads=256}",
}


# What the selection builds a variant from where the default's warpgroup MMA cannot take its tile (K tiles
# under 64, a side of 224: gemmc.driver.variants.tile_variant): the arch's 16-bit mma.sync pipeline.
MMA_SYNC_16BIT: dict[str, str] = {"sm_90": NAMED_PIPELINES["mma-sync-128x256"]}


def variant_fallback(arch: Arch, base: str) -> str | None:
    """The pipeline a variant of `base` falls back on where base's warpgroup MMA cannot take the variant's
    tile (MMA_SYNC_16BIT); None for a base without wgmma."""
    return MMA_SYNC_16BIT.get(arch.name) if "instr=wgmma_" in base else None


def without_pass(spec: str, name: str) -> str:
    """`spec` without its pass `name` (and that pass's options); `spec` itself where it has none."""
    passes = top_level_passes(spec)
    kept = [p for p in passes if pass_name(p) != name]
    return ",".join(kept) if len(kept) != len(passes) else spec


def pass_name(text: str) -> str:
    """The name of one pass's text (`name{options}` or `name`)."""
    return text.split("{", 1)[0].strip()


def top_level_passes(spec: str) -> list[str]:
    """A pipeline's text split at its top-level commas (an option's braces kept whole)."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(spec):
        depth += (ch == "{") - (ch == "}")
        if ch == "," and depth == 0:
            parts.append(spec[start:i])
            start = i + 1
    return parts + [spec[start:]]


def matrix_defaults(in_type: str | None) -> dict[str, str]:
    """The per-arch defaults for an input type: 16-bit and FP8 (matrix cores), f32 (CDNA's f32
    MFMAs, RDNA's VALUs), an MX format (mxfp4, mxfp6, mxfp8: MX_DEFAULTS), or none."""
    if in_type in ("f16", "bf16"):
        return MATRIX_16BIT_DEFAULTS
    if in_type == "f32":
        return F32_DEFAULTS
    if in_type in MX_DEFAULTS:
        return MX_DEFAULTS[in_type]
    return MATRIX_FP8_DEFAULTS if in_type is not None and in_type.startswith("f8") else {}


def default_pipeline(arch: Arch, in_type: str | None = None) -> str:
    """What `gemmc compile` runs without -p: the best pipeline built so far for the arch and,
    when given, the kernel's input element type (selection.input_type: the 16-bit, FP8 and f32
    defaults); without one, the type-independent default, which gemmc's own AMDGCN
    backend runs."""
    table = matrix_defaults(in_type)
    if arch.name in table and (in_type == "f32" or any(i.in_type == in_type for i in arch.matrix_instrs)):
        return table[arch.name]
    if arch.vendor == "nvidia":
        return NAMED_PIPELINES["tuned-h200"]
    if arch.matrix_instrs:  # step 7 where the matrix cores take the kernel's types as they are
        # CDNA: XOR-swizzled LDS rows; the cost model predicts sgemm at 4096^3 2.4x faster on gfx942,
        # 2.3x on gfx90a, 1.3x on gfx950 (bank conflicts of the MFMA fragment reads).  Not on RDNA yet:
        # predicted 13% faster there, but gemmc's own AMDGCN backend then runs out of VGPRs.
        swizzle = "lower-copies,swizzle-lds{strict=false}," if arch.family.startswith("CDNA") else ""
        return STEP3 + ",matrix-cores{convert=none fallback=true},double-buffer,vectorize{width=4}," \
            + swizzle + "launch-bounds{max-threads=256 min-waves-per-eu=2}"
    return NAMED_PIPELINES["step6"]


def matrix_cores_take(arch: Arch, a_type: str, b_type: str, acc: str) -> bool:
    """Whether the arch has an (unscaled) matrix instruction that multiplies `a_type` x `b_type`
    fragments, as they are, into `acc` accumulators (mfma-lowering's and wmma-lowering's choice,
    asked of the types alone: CDNA's MFMAs accumulate 16-bit inputs in f32 only).  A u8 operand
    is an i8 fragment that the instruction must read as unsigned: RDNA's iu8 WMMAs can (their
    signedness operands), CDNA's i8 MFMAs cannot."""
    if {a_type, b_type} <= {"i4", "u4"}:  # 4-bit: as the arch takes them (Arch.int4_frags; CDNA: unpacked
        # to bytes, which the signed i8 MFMAs multiply whatever the nibbles' signedness)
        frags = [arch.int4_frags] * 2 if arch.int4_frags else ["i4"] * 2
        unsigned = "u4" in (a_type, b_type) and arch.int4_frags == "i4"
    else:
        unsigned = "u8" in (a_type, b_type)
        frags = ["i8" if t == "u8" else t for t in (a_type, b_type)]
    return any(i.out_type == acc and (i.signedness or not unsigned) for i in instrs_taking(arch, *frags))


def fma_pipeline(arch: Arch) -> str:
    """The type-independent default without its matrix cores: the FMA kernel that its
    `matrix-cores{fallback=true}` leaves where they cannot take a kernel's types."""
    return re.sub(r"matrix-cores\{[^}]*\},", "", default_pipeline(arch))


def typed_default(arch: Arch, a_type: str | None, b_type: str | None, acc: str) -> tuple[str, str]:
    """default_pipeline for a kernel of A's, B's and the accumulator's types, and why, where it is
    not the per-type table's pipeline ("" where it is): a table's matrix-core pipeline whose
    matrix cores cannot multiply these types into this accumulator (`acc f16` on CDNA, whose MFMAs
    accumulate in f32; bf16 or FP8 into f16 on RDNA) gives way to the FMA kernel (fma_pipeline),
    decided from the types before anything is lowered; the type-independent default, whose
    matrix-cores{fallback=true} keeps its FMAs by itself, stays, with the same why."""
    in_type = a_type if a_type == b_type else None
    pipeline = default_pipeline(arch, in_type)
    if in_type is None and all(t is not None and t.startswith("f8") for t in (a_type, b_type)):
        pipeline = MATRIX_FP8_PAIR_DEFAULTS.get(arch.name, pipeline)
    if a_type is None or b_type is None or "matrix-cores" not in pipeline:
        return pipeline, ""
    if matrix_cores_take(arch, a_type, b_type, acc):
        return pipeline, ""
    why = f"{arch.name}'s matrix cores cannot multiply {_inputs(a_type, b_type)} into {acc} accumulators"
    if "fallback=true" in pipeline:  # the type-independent default keeps its FMAs by itself
        return pipeline, f"{why}: the default pipeline, whose matrix-cores{{fallback=true}} keeps the FMAs"
    return fma_pipeline(arch), f"{why}: the FMA pipeline"


def _inputs(a_type: str, b_type: str) -> str:
    return a_type if a_type == b_type else f"{a_type} x {b_type}"


def with_vectorize_option(spec: str, option: str) -> str:
    """`spec` with `option` ("peel=false", "peel-lanes=rows"; "" for none) added to its vectorize
    pass; a spec without vectorize is returned as it is."""
    return re.sub(r"vectorize\{([^}]*)\}", lambda m: "vectorize{" + f"{m.group(1)} {option}".strip() + "}", spec)


def gcn_default_pipeline(arch: Arch, in_type: str | None = None) -> str:
    """What gemmc's own AMDGCN backend runs without -p: the type-independent default, whose
    16-bit copies stay scalar at rows that are not a multiple of the vector width on wave64
    targets: a peeled copy keeps a lane mask (an SGPR pair) per condition, and hgemm's
    128x128 tiles then need more than the 96 SGPRs its allocator has, which does not spill.
    (The backend takes MATRIX_16BIT_DEFAULTS too, tests/test_amdgcn.py, but not gfx950's at odd
    rows: 256x128x32 with peeled or scalar copies needs more VGPRs or SGPRs than it has.)"""
    pipeline = default_pipeline(arch)
    if in_type in ("f16", "bf16") and arch.wave_size == 64:
        return with_vectorize_option(pipeline, "peel=false")
    return pipeline


def mx_format(a_bits: int, b_bits: int) -> str:
    """The MX_DEFAULTS key of a block-scaled product whose A and B elements have these bit widths:
    the wider of the two (an FP8 x BF8 product is MXFP8, FP6 x FP4 MXFP6)."""
    return f"mxfp{max(a_bits, b_bits)}"


def scaled_pipeline(arch: Arch, fmt: str) -> str:
    """The default pipeline of a block-scaled (MX) product of format `fmt` (mx_format): MX_DEFAULTS
    where the arch has scaled MFMAs (gfx950), the naive kernel elsewhere."""
    return MX_DEFAULTS.get(fmt, {}).get(arch.name, NAMED_PIPELINES["step1"])


def parse_pipeline_spec(spec: str) -> list[ModulePass]:
    """Parse 'a,b{opt=1}' or a named pipeline ('step1') into pass instances."""
    spec = NAMED_PIPELINES.get(spec.strip(), spec)
    try:
        specs = list(parse_pipeline(spec))
    except (Exception, ArgSpecParseError) as e:  # ArgSpecParseError is a BaseException
        raise usage_error(f"malformed pipeline '{spec}': {_spec_error(e)}") from None
    passes = []
    for s in specs:
        if s.name in NAMED_PIPELINES:
            if s.parameters:
                raise usage_error(f"pipeline '{s.name}' takes no options; spell out its passes to change them")
            passes.extend(parse_pipeline_spec(NAMED_PIPELINES[s.name]))
            continue
        cls = pass_class(s.name)
        if cls is None:
            raise usage_error(_unknown_pass(s.name))
        _check_options(s.name, cls, s.parameters)
        try:
            passes.append(cls.from_pass_spec(s))
        except Exception as e:
            raise usage_error(f"pass '{s.name}': {_option_message(e)}") from None
    return passes


def pass_class(name: str) -> type[ModulePass] | None:
    """The pass called `name`: gemmc's or a registered one, else xDSL's upstream pass of that
    name (canonicalize, cse, dce, licm, scf-for-loop-unroll, ...); gemmc's names win a clash."""
    if name in PASSES:
        return PASSES[name]()
    upstream = upstream_passes().get(name)
    return upstream() if upstream is not None else None


def upstream_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """xDSL's own passes by name, each imported on first use (xdsl.transforms.get_all_passes)."""
    global _UPSTREAM
    if _UPSTREAM is None:
        from xdsl.transforms import get_all_passes

        _UPSTREAM = get_all_passes()
    return _UPSTREAM


_UPSTREAM: dict[str, Callable[[], type[ModulePass]]] | None = None


def _unknown_pass(name: str) -> str:
    import difflib

    known = ", ".join([*PASSES, *NAMED_PIPELINES])
    close = difflib.get_close_matches(name, [*PASSES, *NAMED_PIPELINES, *upstream_passes()], n=1)
    hint = f"; did you mean '{close[0]}'?" if close else ""
    return (f"unknown pass '{name}'; known passes and pipelines: {known}, "
            f"and xDSL's passes by their names (canonicalize, cse, dce, licm, ...){hint}")


# -- the user's own passes ----------------------------------------------------------


_PASS_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*\Z")


def register_pass(cls: type[ModulePass]) -> type[ModulePass]:
    """Make a ModulePass subclass usable by its `name` in pipelines (`-p`); returns the class,
    so that it also works as a decorator. A name of gemmc's own passes or pipelines is refused;
    registering a class of the same module and name again (a notebook cell run twice) replaces it."""
    if not (isinstance(cls, type) and issubclass(cls, ModulePass)):
        raise usage_error(f"register_pass: {cls!r} is not a subclass of xdsl.passes.ModulePass")
    name = getattr(cls, "name", None)
    if not isinstance(name, str) or not _PASS_NAME.match(name):
        raise usage_error(f"register_pass: {cls.__qualname__} needs a class attribute `name`, a pass "
                          f"name such as 'my-pass' (letters, digits, '-', '_', '.'), not {name!r}")
    if name in BUILTIN_PASSES or name in NAMED_PIPELINES:
        raise usage_error(f"register_pass: '{name}' ({cls.__qualname__}) is the name of gemmc's own "
                          f"{'pass' if name in BUILTIN_PASSES else 'pipeline'}; choose another")
    old = PASSES[name]() if name in PASSES else None
    if old is not None and (old.__module__, old.__qualname__) != (cls.__module__, cls.__qualname__):
        raise usage_error(f"register_pass: '{name}' is taken by {old.__module__}.{old.__qualname__}; "
                          f"{cls.__module__}.{cls.__qualname__} needs another name")
    PASSES[name] = lambda: cls
    _REGISTERED.add(cls)
    return cls


_REGISTERED: set[type[ModulePass]] = set()
"""Classes registered by register_pass: the user's, whose failures are theirs (_apply_foreign)."""


def load_pass_file(path: str) -> list[str]:
    """Import a Python file and register every ModulePass subclass with a `name` that it
    defines (`--load FILE.py`); returns their names. A file that does not import, or defines no
    such pass, is an error naming the file."""
    module = _import_file(path)
    found = [c for c in vars(module).values()
             if isinstance(c, type) and issubclass(c, ModulePass) and c.__module__ == module.__name__
             and isinstance(getattr(c, "name", None), str)]
    if not found:
        raise usage_error(f"--load {path}: defines no pass (a subclass of xdsl.passes.ModulePass "
                          "with a `name`)")
    return [register_pass(c).name for c in found]


def _import_file(path: str):
    """The module a Python file defines, run once more on every call; its failures as GemmcErrors."""
    import importlib.util
    from pathlib import Path

    file = Path(path)
    if not file.is_file():
        raise GemmcError(f"--load {path}: {'is a directory' if file.is_dir() else 'no such file'}", code=EXIT_IO)
    resolved = file.resolve()
    # one module name per file: loading a file twice replaces its passes instead of clashing
    modname = "gemmc_user_passes." + re.sub(r"\W", "_", str(resolved))
    spec = importlib.util.spec_from_file_location(modname, resolved)
    if spec is None or spec.loader is None:
        raise usage_error(f"--load {path}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[modname] = module  # dataclasses and typing look the module up while it runs
    try:
        spec.loader.exec_module(module)
    except SyntaxError as e:
        sys.modules.pop(modname, None)
        loc = Location(path, e.lineno, e.offset or 1, e.text) if e.lineno else None
        raise GemmcError(f"--load: {e.msg}" + ("" if loc else f" in {path}"), loc) from None
    except BaseException as e:  # noqa: BLE001  the user's code: any failure is theirs to see, sys.exit too
        sys.modules.pop(modname, None)
        if isinstance(e, KeyboardInterrupt):
            raise
        raise usage_error(f"--load {path}: cannot import it: {type(e).__name__}: "
                          f"{_first_line(e)}{_line_in(e, resolved)}") from None
    return module


def _first_line(e: BaseException) -> str:
    lines = [l for l in str(e).splitlines() if l.strip()]
    return lines[0].strip() if lines else ""


def _line_in(e: BaseException, file) -> str:
    """' (line N)': the last line of `file` in the exception's traceback, if any."""
    line = None
    tb = e.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == str(file):
            line = tb.tb_lineno
        tb = tb.tb_next
    return f" (line {line})" if line is not None else ""


def _check_options(name: str, cls: type[ModulePass], params: dict[str, tuple]) -> None:
    """Unknown options and values of the wrong type, in words (xDSL's say 'Incompatible types')."""
    try:
        hints = typing.get_type_hints(cls)
    except Exception:  # an annotation that does not resolve: leave the types to xDSL
        hints = {}
    fields = {f.name.replace("_", "-"): hints.get(f.name) for f in dataclasses.fields(cls)}
    for key, values in params.items():
        option = key.replace("_", "-")
        if option not in fields:
            known = ", ".join(fields) or "none"
            raise usage_error(f"pass '{name}' has no option '{key}'; its options: {known}")
        kind = fields[option]
        shown = ",".join(str(v).lower() if isinstance(v, bool) else f'"{v}"' if isinstance(v, str) else str(v)
                         for v in values) or "nothing"
        if kind is bool and not (len(values) == 1 and isinstance(values[0], bool)):
            raise usage_error(f"pass '{name}': option '{option}' expects true or false, not {shown}")
        if kind is int and not (len(values) == 1 and isinstance(values[0], int) and not isinstance(values[0], bool)):
            raise usage_error(f"pass '{name}': option '{option}' expects an integer, not {shown}")


def _spec_error(e: BaseException) -> str:
    """xDSL's multi-line pipeline parse error as 'what (column N)'."""
    text = str(e)
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    where = re.search(r"pass-pipeline:\d+:(\d+)", text)
    what = lines[-1] if lines else type(e).__name__
    what = what[:1].lower() + what[1:]
    return f"{what} (column {where.group(1)})" if where else what


def _option_message(e: Exception) -> str:
    text = str(e).strip().splitlines()
    return text[0] if text else type(e).__name__


def run_pipeline(
    module: ModuleOp,
    passes: list[ModulePass],
    ctx: Context,
    after_each: Callable[[ModulePass, ModuleOp], None] | None = None,
    verify_each: bool = True,
    verify: bool = True,
) -> None:
    """Apply passes in order.  The IR is verified after each pass that is not gemmc's own (the
    user's, xDSL's: what breaks the IR is stopped where it broke), after every pass with
    `verify_each` (as `gemmc opt` runs them), and after the last unless `verify` is off (its caller
    verifies later: the selection, once per chosen candidate).  Verifying is half of the time a
    pipeline of gemmc's passes takes, and every one of them is tested alone, verified."""
    verified = True
    for p in passes:
        foreign = type(p) in _REGISTERED or type(p).__module__.startswith("xdsl.")
        if foreign:
            _apply_foreign(p, ctx, module)
        else:
            p.apply(ctx, module)
        verified = foreign or verify_each or after_each is not None
        if verified:
            verify_module(module, f"after pass '{p.name}'")
        if after_each is not None:
            after_each(p, module)
    if verify and not verified:
        verify_module(module, AFTER_THE_PIPELINE)


AFTER_THE_PIPELINE = "after the pipeline (gemmc opt verifies after each pass, to find the one that broke it)"


def verify_module(module: ModuleOp, where: str) -> None:
    """A GemmcError naming `where` if `module` does not verify."""
    from xdsl.utils.exceptions import VerifyException

    try:
        module.verify()
    except VerifyException as e:
        raise GemmcError(f"IR does not verify {where}: {verifier_message(e)}") from None


def _apply_foreign(p: ModulePass, ctx: Context, module: ModuleOp) -> None:
    """A pass that is not gemmc's (xDSL's, the user's): its crash is an error that names it,
    not an internal error of gemmc."""
    from xdsl.utils.exceptions import DiagnosticException, VerifyException

    try:
        p.apply(ctx, module)
    except (GemmcError, VerifyException, DiagnosticException):
        raise
    except Exception as e:  # noqa: BLE001
        module_name = type(p).__module__
        where = module_name  # xDSL's: its module; the user's: the file it was loaded from
        if module_name.startswith("gemmc_user_passes."):
            where = getattr(sys.modules.get(module_name), "__file__", None) or module_name
        raise GemmcError(f"pass '{p.name}' ({where}) failed: {type(e).__name__}: {_first_line(e)}") from None


__all__ = [
    "PassPipeline", "load_pass_file", "parse_pipeline_spec", "pass_class", "register_pass", "run_pipeline",
    "AFTER_THE_PIPELINE", "verify_module",
    "set_target", "target_of",
]
