"""LDS and VGPRs: the one count of each that the tiling passes' checks and the cost model use.

    lds_bytes(kernel)              bytes of the memory-space-3 allocations of a gpu.func
    buffer_bytes(shapes, bytes)    bytes of buffers of these shapes (what a schedule will allocate)
    vgprs(acc, fragments, staging) VGPRs per lane of a kernel holding that many values, as the
                                   compiler would want them (`fitted`) or at the least (not)
    residency_limits(arch, ...)    workgroups a CU (WGP) holds by waves, slots, LDS, registers

The tiling passes check a schedule before they build its kernel, so they count the
buffers the schedule will allocate (gemmc.transforms.schedule.Schedule.lds_tiles); the cost model
and the analyses count the kernel's allocations.  Both are `buffer_bytes`, so the two
agree on every kernel a schedule builds.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

from xdsl.dialects import memref
from xdsl.dialects.builtin import MemRefType
from xdsl.ir import Operation

from gemmc.support.ir_names import LDS_SPACE, memory_space
from gemmc.target.arch import Arch

ELEMENT_BYTES = {"f32": 4, "f16": 2, "bf16": 2, "f64": 8, "i8": 1, "u8": 1, "i32": 4, "i64": 8,
                 "i4": 1, "u4": 1,  # 4-bit integers: one a byte in LDS and registers, packed in global memory
                 "f8E4M3FNUZ": 1, "f8E5M2FNUZ": 1, "f8E4M3FN": 1, "f8E5M2": 1,
                 "f8e4m3fnuz": 1, "f8e5m2fnuz": 1, "f8e4m3fn": 1, "f8e5m2": 1,
                 # the MX formats: one element per byte in gemmc's kernels (FP6 and FP4 unpacked)
                 "f6E2M3FN": 1, "f6E3M2FN": 1, "f4E2M1FN": 1, "f8E8M0FNU": 1,
                 "f6e2m3fn": 1, "f6e3m2fn": 1, "f4e2m1fn": 1, "f8e8m0fnu": 1}
"""Bytes of an element type on the device, by its IR name (bf16 is 2; FP8 1, also by its
.gemm name, which the cost model's problem carries)."""


PACKED_GLOBAL_BYTES = {"f4E2M1FN": 0.5, "f4e2m1fn": 0.5, "i4": 0.5, "u4": 0.5, "f6E2M3FN": 0.75, "f6E3M2FN": 0.75,
                       "f6e2m3fn": 0.75, "f6e3m2fn": 0.75}
"""Bytes of an element in global memory where it is not ELEMENT_BYTES: FP4 and FP6 are packed there
(two FP4 codes a byte, FP6 rows as bit streams: gemmc.emit.fp4, fp6; i4 / u4 as FP4), unpacked in LDS
and registers."""


def global_bytes(name: str) -> float:
    """Bytes an element of the type named `name` (IR or .gemm name) occupies in global memory."""
    return PACKED_GLOBAL_BYTES.get(name, ELEMENT_BYTES.get(name, 4))


def lane_bytes(width: int, element_bytes: float) -> int:
    """Bytes one lane moves for `width` elements: whole bytes (a packed FP4 or FP6 element alone is
    loaded as the byte it is in)."""
    return max(1, math.ceil(width * element_bytes))


def device_bytes(element_type) -> int:
    """Bytes one element of `element_type` (an IR type) occupies in a kernel's LDS and registers:
    ELEMENT_BYTES, not the type's bit width (FP4 and FP6 take a byte each there)."""
    return ELEMENT_BYTES.get(str(element_type), max(1, element_type.bitwidth // 8))


def buffer_bytes(shapes: Iterable[Sequence[int]], elem_bytes: int) -> int:
    """Bytes of buffers of these static shapes (a dynamic dim counts as one element)."""
    total = 0
    for shape in shapes:
        n = 1
        for d in shape:
            n *= max(d, 1)
        total += n * elem_bytes
    return total


def lds_bytes(kernel: Operation) -> int:
    """LDS a workgroup of `kernel` allocates: its memref.alloca and memref.alloc ops in
    memory space 3 (gemmc's passes write alloca; hand-written IR may use alloc)."""
    total = 0
    for op in kernel.walk():
        t = op.memref.type if isinstance(op, (memref.AllocaOp, memref.AllocOp)) else None
        if isinstance(t, MemRefType) and memory_space(t) == LDS_SPACE:
            total += buffer_bytes([t.get_shape()], ELEMENT_BYTES.get(str(t.element_type), 4))
    return total


BASE_VGPRS = 40  # addresses, loop state, indices (fit to clang-22's counts: docs/cost-model.md)
FRAGMENT_WEIGHT = 4  # the compiler keeps several k-steps of fragments in flight
STAGING_WEIGHT = 2  # prefetched elements live across the compute of a double-buffered tile
FLOOR_BASE_VGPRS = 24  # addresses and loop state that no kernel does without


def vgprs(acc: int, fragments: float, staging: float, fitted: bool = True) -> int:
    """VGPRs per lane for `acc` accumulators, `fragments` fragment values and `staging`
    prefetched values.  fitted: what clang-22 allocates, as the cost model predicts it
    (weights fitted over 108 schedules on gfx942).  Not fitted: the floor, every value
    live once, which the tiling passes refuse a tile on: a tile over the budget even at
    its floor cannot fit, while the fitted count is a prediction the compiler may beat."""
    if not fitted:
        return int(round(FLOOR_BASE_VGPRS + acc + fragments + staging))
    return int(round(BASE_VGPRS + acc + FRAGMENT_WEIGHT * fragments + STAGING_WEIGHT * staging))



# sm_90a's warpgroup MMA kernels (nvcc's ptxas, not clang: the fitted weights above do not apply).  wgmma's
# accumulators live in registers, one f32 a register (a 64 x N tile over a warpgroup's 128 threads: N / 2), its
# fragments in shared memory (read by descriptors: no fragment registers), so a kernel holds its accumulators,
# what every kernel keeps (WGMMA_BASE_VGPRS: ids, descriptors, loop state, the epilogue's addresses), a 64-bit
# source address for each 16-byte cp.async a thread issues a K tile, and the 32-bit words of the values its
# copies load into registers before storing them to shared memory (peeled copies of misaligned rows).
# WGMMA_BASE_VGPRS is ptxas's count (nvcc 13.0, sm_90a) less the accumulators for the TMA kernels, which have
# neither copy term: 154 - 128 (128x256 tiles), 90 - 64 (128x128, and 64x128), 58 - 32 (64x64).  tests/test_wgmma_vgprs.py
# compares the estimate with ptxas's counts.
WGMMA_BASE_VGPRS = 26
ADDRESS_VGPRS = 2  # a 64-bit global address


def wgmma_vgprs(acc: int, async_copies: float, staged_words: float) -> int:
    """Registers a thread of a warpgroup-MMA kernel (sm_90a) holds: `acc` f32 accumulators, `async_copies`
    cp.async a K tile (an address each), `staged_words` 32-bit words loaded into registers on their way to
    shared memory."""
    return int(round(WGMMA_BASE_VGPRS + acc + ADDRESS_VGPRS * async_copies + staged_words))


SGPRS_PER_SIMD = 800  # wave64 CDNA: CDNA3 ISA guide; LLVM AMDGPUBaseInfo getTotalNumSGPRs for gfx9


def residency_limits(arch: Arch, waves_per_workgroup: int, vgprs: int, lds: int, cus: int,
                     sgprs: int = 0) -> tuple[dict[str, int], int]:
    """Workgroups of `waves_per_workgroup` waves a unit of `cus` CUs (a CU; an RDNA WGP) holds
    by each of its limits, and the waves a SIMD holds by registers: LLVM's rules (AMDGPUBaseInfo:
    getMaxWavesPerEU, getNumWavesPerEUWithNumVGPRs).  `vgprs`: architected plus accumulation
    registers a wave allocates; `sgprs` (0: not counted) bound wave64 SIMDs too.  The limits are
    in the order a tie is reported in: the hardware maximum first."""
    per_simd = -(-waves_per_workgroup // (arch.simds_per_cu * cus))
    alloc = -(-max(1, vgprs) // arch.vgpr_granule) * arch.vgpr_granule
    by_registers = min(arch.max_waves_per_simd, arch.vgpr_file_per_lane // alloc)
    if sgprs and arch.wave_size == 64:
        by_registers = min(by_registers, SGPRS_PER_SIMD // (-(-sgprs // 16) * 16))
    lds_unit = arch.lds_per_cu or arch.lds_bytes * cus
    limits = {
        "waves": arch.max_waves_per_simd // per_simd,
        "workgroup slots": arch.max_workgroups_per_cu if waves_per_workgroup > 1 else 10**9,
        "lds": lds_unit // lds if lds else 10**9,
        "vgprs": by_registers // per_simd,
    }
    return limits, by_registers
