"""The named pipelines (`-p step1` ... `step7`, `tuned-h200`): pipeline text, and the pass names a
recorded pipeline holds.

Text only, below every level: gemmc.driver.pipeline expands them into passes, and the
interpreter's check reads which matrix-core pass a module's recorded pipeline ran.
"""

from __future__ import annotations

from xdsl.utils.arg_spec import parse_pipeline

STEP3 = "gemm-to-kernel,lds-tiling{block-m=128 block-n=128 block-k=16},register-tiling{thread-m=8 thread-n=8}"

NAMED_PIPELINES: dict[str, str] = {
    "step1": "gemm-to-kernel",
    "step2": "gemm-to-kernel,lds-tiling{block-m=16 block-n=16 block-k=16}",
    "step3": STEP3,
    "step4": STEP3 + ",double-buffer",
    "step5": STEP3 + ",double-buffer,vectorize{width=4 operands=a}",
    "step6": STEP3 + ",double-buffer,vectorize{width=4 operands=a},launch-bounds{max-threads=256 min-waves-per-eu=2}",
    # step 7: the arch's matrix cores (matrix-cores: mfma-lowering on CDNA, wmma-lowering on RDNA)
    # (matrix-cores rewrites the kernel from its schedule, so it comes before the in-place passes)
    "step7": STEP3 + ",matrix-cores,double-buffer,vectorize{width=4},launch-bounds{max-threads=256 min-waves-per-eu=2}",
    # The fastest FP32 pipeline measured on the H200 (benchmarks/h200/results.md): k-major LDS
    # fragments read as float4 without bank conflicts, register-staged double buffering.
    "tuned-h200": "gemm-to-kernel,lds-tiling{block-m=128 block-n=128 block-k=16},"
                  "register-tiling{thread-m=8 thread-n=8 lds-layout=k-major unroll=true},"
                  "vectorize{width=4},double-buffer{stage=registers},launch-bounds{max-threads=256}",
    # sm_90's first 16-bit default (before ldmatrix and cp.async, issue #38): each lane's fragments read
    # element run by element run, B's tile transposed by 8x8 blocks, synchronous copies; 102.9 TFLOP/s
    # at f16 4096^3 on an H100 (benchmarks/h200/matrix.md)
    "mma-sync-elementwise": "gemm-to-kernel,lds-tiling{block-m=128 block-n=128 block-k=32},"
                            "register-tiling{thread-m=8 thread-n=8},matrix-cores{waves-m=4 waves-n=2},"
                            "vectorize{width=8 blocks=true},double-buffer{stage=lds},lower-copies,pad-lds{pad=8},"
                            "launch-bounds{max-threads=256}",
    # sm_90's 16-bit default on warp-level mma.sync until wgmma's took its place (gemmc.driver.pipeline
    # MATRIX_16BIT_DEFAULTS): ldmatrix fragments, cp.async at 3 stages, 8 warps of 64x64 in 128x256 tiles;
    # 338 TFLOP/s at f16 4096^3 on an H100, 47% of cuBLAS (benchmarks/h200/README.md).  The selection builds
    # a variant from it where wgmma cannot take the tile (gemmc.driver.variants.tile_variant); the
    # benchmarks time it beside the default (benchmarks/h200/matrix.py gen --wgmma-default)
    "mma-sync-128x256": "gemm-to-kernel,lds-tiling{block-m=128 block-n=256 block-k=32},register-tiling{thread-m=8 thread-n=8},"
                        "matrix-cores{waves-m=2 waves-n=4},ldmatrix,vectorize{width=8},direct-to-lds{fallback=true},"
                        "multi-buffer{factor=3},pipeline{stages=3},lower-copies,swizzle-lds{strict=false rows=0},"
                        "launch-bounds{max-threads=256}",
    # sm_90a's warpgroup MMA (wgmma, gemmc/target/wgmma.py) for f16 / bf16 into f32: two warpgroups of 64x256,
    # K tiles of 64 in the 128-byte swizzle, cp.async at 3 stages (144 KiB of dynamic shared memory; ptxas:
    # 180 registers, no spills); benchmarks/h200/matrix.py's cand_wgmma_128x256x64_wg21_s3, not yet timed
    "wgmma-128x256": "gemm-to-kernel,lds-tiling{block-m=128 block-n=256 block-k=64},register-tiling{thread-m=8 thread-n=8},"
                     "matrix-cores{instr=wgmma_m64n256k16 waves-m=2 waves-n=1},vectorize{width=8},"
                     "direct-to-lds{fallback=true},multi-buffer{factor=3},pipeline{stages=3},lower-copies,"
                     "swizzle-lds{mode=sw128},launch-bounds{max-threads=256}",
    # sm_90's 16-bit default until TMA's copies joined it (gemmc.driver.pipeline MATRIX_16BIT_DEFAULTS): the same
    # wgmma kernel with cp.async into 4 slots and one group in flight; 0.350 ms at f16 4096^3 on an H100, 56% of
    # cuBLAS (benchmarks/h200/raw/matrix_tma.jsonl).  benchmarks/h200/matrix.py defaults times its selection
    # beside the default's
    "wgmma-cp-async-128x256": "gemm-to-kernel,lds-tiling{block-m=128 block-n=256 block-k=64},register-tiling{thread-m=8 thread-n=8},"
                              "matrix-cores{instr=wgmma_m64n256k16 waves-m=2 waves-n=1},vectorize{width=8},"
                              "direct-to-lds{fallback=true},multi-buffer{factor=4},pipeline{stages=4},wgmma-in-flight,"
                              "lower-copies,swizzle-lds{mode=sw128},launch-bounds{max-threads=256}",
}


def pass_names(spec: str) -> list[str]:
    """The pass names of a pipeline's text, named pipelines expanded; [] for text that is no pipeline."""
    try:
        specs = list(parse_pipeline(NAMED_PIPELINES.get(spec.strip(), spec)))
    except BaseException:  # xDSL's ArgSpecParseError is a BaseException
        return []
    names = []
    for s in specs:
        names += pass_names(NAMED_PIPELINES[s.name]) if s.name in NAMED_PIPELINES else [s.name]
    return names
