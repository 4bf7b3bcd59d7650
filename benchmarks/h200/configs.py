"""The H200 measurement plan: which pipelines at which sizes (benchmarks/h200/README.md)."""

STEPS = [f"step{i}" for i in range(1, 7)]

# Candidates for the tuned FP32 pipeline on the H200 (k-major LDS fragments, chunked
# thread tiles, register-staged double buffering, float4 copies, unrolled tile loops).
TUNED = {
    f"tuned_{name}": (
        f"gemm-to-kernel,lds-tiling{{block-m={bm} block-n={bn} block-k={bk}}},"
        f"register-tiling{{thread-m={tm} thread-n={tn} lds-layout=k-major unroll=true}},"
        f"vectorize{{width=4}},double-buffer{{stage={stage}}}"
        + (f",launch-bounds{{max-threads={(bm // tm) * (bn // tn)}}}" if lb else "")
    )
    for name, (bm, bn, bk, tm, tn, stage, lb) in {
        "128x128x8_8x8": (128, 128, 8, 8, 8, "registers", True),
        "128x128x16_8x8": (128, 128, 16, 8, 8, "registers", True),
        "128x128x8_8x8_lds": (128, 128, 8, 8, 8, "lds", True),
        "128x64x8_8x4": (128, 64, 8, 8, 4, "registers", True),
        "64x64x8_4x4": (64, 64, 8, 4, 4, "registers", True),
        "128x256x8_8x16": (128, 256, 8, 8, 16, "registers", True),
        "256x128x8_16x8": (256, 128, 8, 16, 8, "registers", True),
        "128x128x8_8x8_nolb": (128, 128, 8, 8, 8, "registers", False),
    }.items()
}

SIZES = [1024, 4096, 8192]
TUNED_SIZES = {4096: list(TUNED), 1024: list(TUNED)[:3], 8192: list(TUNED)[:3]}
SANITIZER_SHAPES = [(1000, 1000, 1000), (4097, 4095, 1023)]
