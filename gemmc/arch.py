"""Arch descriptions: every fact about a target that gemmc's code uses, in one place.

Passes, the interpreter, the emitters and the toolchain read targets from here and
nowhere else.  Figures are per device (per GCD for MI250X) and carry their public
source in the comment beside them; docs/arch.md explains them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gemmc.diagnostics import usage_error


@dataclass(frozen=True)
class MatrixInstr:
    """A matrix-core instruction: D[m x n] += A[m x k] * B[k x n] for one wave."""

    mnemonic: str  # the ISA spelling on this arch
    m: int
    n: int
    k: int
    in_type: str  # element type of A and B: f32, f16, bf16
    out_type: str  # element type of C and D
    cycles: int  # issue cycles (passes x 4) from the ISA guide


@dataclass(frozen=True)
class Arch:
    name: str
    family: str
    product: str
    wave_size: int
    cu_count: int
    simds_per_cu: int
    clock_mhz: int  # peak engine clock
    max_waves_per_simd: int
    vgprs_per_lane: int  # architected VGPRs a wave can address
    agprs_per_lane: int  # accumulation registers (0 where there are none)
    vgpr_granule: int  # allocation granule, in registers
    lds_bytes: int  # LDS a workgroup can allocate
    lds_banks: int
    lds_bank_bytes: int
    l2_bytes: int
    cache_line_bytes: int
    mem_bandwidth_gbs: float
    fp32_vector_tflops: float
    fp16_matrix_tflops: float
    max_threads_per_block: int = 1024
    dtypes: tuple[str, ...] = ("f32", "f16", "bf16")
    matrix_instrs: tuple[MatrixInstr, ...] = field(default=())

    @property
    def lds_kib(self) -> int:
        return self.lds_bytes // 1024

    @property
    def is_wave64(self) -> bool:
        return self.wave_size == 64


def _mfma(mn: str, m, n, k, t, cycles) -> MatrixInstr:
    return MatrixInstr(mn, m, n, k, t, "f32", cycles)


# CDNA3 ISA guide, section 7 (MFMA): shapes and pass counts; gfx90a spells the
# 16-bit-input variants without the underscore and bf16 with the _1k suffix.
_GFX90A_MFMA = (
    _mfma("v_mfma_f32_32x32x2f32", 32, 32, 2, "f32", 64),
    _mfma("v_mfma_f32_16x16x4f32", 16, 16, 4, "f32", 32),
    _mfma("v_mfma_f32_32x32x8f16", 32, 32, 8, "f16", 64),
    _mfma("v_mfma_f32_16x16x16f16", 16, 16, 16, "f16", 32),
    _mfma("v_mfma_f32_32x32x8bf16_1k", 32, 32, 8, "bf16", 64),
    _mfma("v_mfma_f32_16x16x16bf16_1k", 16, 16, 16, "bf16", 32),
)
_GFX942_MFMA = (
    _mfma("v_mfma_f32_32x32x2_f32", 32, 32, 2, "f32", 64),
    _mfma("v_mfma_f32_16x16x4_f32", 16, 16, 4, "f32", 32),
    _mfma("v_mfma_f32_32x32x8_f16", 32, 32, 8, "f16", 32),
    _mfma("v_mfma_f32_16x16x16_f16", 16, 16, 16, "f16", 16),
    _mfma("v_mfma_f32_32x32x8_bf16", 32, 32, 8, "bf16", 32),
    _mfma("v_mfma_f32_16x16x16_bf16", 16, 16, 16, "bf16", 16),
)
_GFX950_MFMA = _GFX942_MFMA + (
    _mfma("v_mfma_f32_16x16x32_f16", 16, 16, 32, "f16", 16),
    _mfma("v_mfma_f32_32x32x16_f16", 32, 32, 16, "f16", 32),
    _mfma("v_mfma_f32_16x16x32_bf16", 16, 16, 32, "bf16", 16),
    _mfma("v_mfma_f32_32x32x16_bf16", 32, 32, 16, "bf16", 32),
)
# RDNA3 ISA guide 7.9 / RDNA4 ISA guide: one 16x16x16 shape per input type, wave32.
_GFX11_WMMA = (
    MatrixInstr("v_wmma_f32_16x16x16_f16", 16, 16, 16, "f16", "f32", 32),
    MatrixInstr("v_wmma_f32_16x16x16_bf16", 16, 16, 16, "bf16", "f32", 32),
)
_GFX12_WMMA = (
    MatrixInstr("v_wmma_f32_16x16x16_f16", 16, 16, 16, "f16", "f32", 16),
    MatrixInstr("v_wmma_f32_16x16x16_bf16", 16, 16, 16, "bf16", "f32", 16),
)

ARCHS: dict[str, Arch] = {
    a.name: a
    for a in (
        # AMD Instinct MI250X data sheet (per GCD: half of 220 CUs, 3.2 TB/s, 47.9 TF
        # FP32 vector, 383 TF FP16 matrix); CDNA2 ISA guide for LDS and registers.
        Arch(
            name="gfx90a", family="CDNA2", product="AMD Instinct MI250X (one GCD)",
            wave_size=64, cu_count=110, simds_per_cu=4, clock_mhz=1700,
            max_waves_per_simd=8, vgprs_per_lane=256, agprs_per_lane=256,
            vgpr_granule=8, lds_bytes=64 * 1024, lds_banks=32, lds_bank_bytes=4,
            l2_bytes=8 * 2**20, cache_line_bytes=128, mem_bandwidth_gbs=1638.4,
            fp32_vector_tflops=23.95, fp16_matrix_tflops=191.5,
            matrix_instrs=_GFX90A_MFMA,
        ),
        # AMD Instinct MI300X data sheet (304 CUs, 2100 MHz, 5.3 TB/s, 81.7 TF FP32
        # vector, 1307.4 TF FP16 dense); CDNA3 ISA guide (unified 512-entry VGPR/AGPR file).
        Arch(
            name="gfx942", family="CDNA3", product="AMD Instinct MI300X",
            wave_size=64, cu_count=304, simds_per_cu=4, clock_mhz=2100,
            max_waves_per_simd=8, vgprs_per_lane=256, agprs_per_lane=256,
            vgpr_granule=8, lds_bytes=64 * 1024, lds_banks=32, lds_bank_bytes=4,
            l2_bytes=4 * 2**20, cache_line_bytes=128, mem_bandwidth_gbs=5300.0,
            fp32_vector_tflops=81.7, fp16_matrix_tflops=1307.4,
            matrix_instrs=_GFX942_MFMA,
        ),
        # AMD Instinct MI355X data sheet (256 CUs, 2400 MHz, 8 TB/s, 157.3 TF FP32
        # vector, 2516 TF FP16 dense); CDNA4 ISA guide (160 KiB LDS, 64 banks).
        Arch(
            name="gfx950", family="CDNA4", product="AMD Instinct MI355X",
            wave_size=64, cu_count=256, simds_per_cu=4, clock_mhz=2400,
            max_waves_per_simd=8, vgprs_per_lane=256, agprs_per_lane=256,
            vgpr_granule=8, lds_bytes=160 * 1024, lds_banks=64, lds_bank_bytes=4,
            l2_bytes=4 * 2**20, cache_line_bytes=128, mem_bandwidth_gbs=8000.0,
            fp32_vector_tflops=157.3, fp16_matrix_tflops=2516.0,
            matrix_instrs=_GFX950_MFMA,
        ),
        # AMD Radeon RX 7900 XTX specifications (96 CUs, 2500 MHz boost, 960 GB/s,
        # 61.4 TF FP32, 122.8 TF FP16 WMMA); RDNA3 ISA guide (1536 VGPRs/SIMD in wave32).
        Arch(
            name="gfx1100", family="RDNA3", product="AMD Radeon RX 7900 XTX",
            wave_size=32, cu_count=96, simds_per_cu=2, clock_mhz=2500,
            max_waves_per_simd=16, vgprs_per_lane=256, agprs_per_lane=0,
            vgpr_granule=16, lds_bytes=64 * 1024, lds_banks=32, lds_bank_bytes=4,
            l2_bytes=6 * 2**20, cache_line_bytes=128, mem_bandwidth_gbs=960.0,
            fp32_vector_tflops=61.4, fp16_matrix_tflops=122.8,
            matrix_instrs=_GFX11_WMMA,
        ),
        # AMD Radeon RX 9070 XT specifications (64 CUs, 2970 MHz boost, 644.6 GB/s,
        # 48.7 TF FP32, 194.7 TF FP16 dense WMMA); RDNA4 ISA guide.
        Arch(
            name="gfx1201", family="RDNA4", product="AMD Radeon RX 9070 XT",
            wave_size=32, cu_count=64, simds_per_cu=2, clock_mhz=2970,
            max_waves_per_simd=16, vgprs_per_lane=256, agprs_per_lane=0,
            vgpr_granule=24, lds_bytes=64 * 1024, lds_banks=32, lds_bank_bytes=4,
            l2_bytes=8 * 2**20, cache_line_bytes=128, mem_bandwidth_gbs=644.6,
            fp32_vector_tflops=48.7, fp16_matrix_tflops=194.7,
            matrix_instrs=_GFX12_WMMA,
        ),
    )
}

DEFAULT_ARCH = "gfx942"


def get_arch(name: str) -> Arch:
    """The description of `name`, or a usage error that lists the known archs."""
    try:
        return ARCHS[name]
    except KeyError:
        known = ", ".join(ARCHS)
        raise usage_error(f"unknown arch '{name}'; known archs: {known}") from None
