"""Occupancy: how many waves a SIMD holds, and which resource limits it.

    occ = occupancy(k, arch, counts, resources=None)   # resources: the compiler's report
    occ.waves_per_simd, occ.workgroups_per_cu, occ.limiter

VGPRs come from the compiler's resource-usage report when one is given (gemmc.target.toolchain,
`source="compiler"`), else from an estimate from the IR (`source="estimate"`): the
accumulator and fragment register tiles (private memrefs), the prefetched tile elements
a double-buffered kernel holds, and a fixed base, weighed by gemmc.target.resources.vgprs (fitted
to clang-22's VGPR counts over 108 schedules on gfx942, mean relative error 22 %,
docs/cost-model.md; the tiling passes' check uses the same function's floor); a warpgroup-MMA
kernel (sm_90a) from its accumulators and its copies (gemmc.target.resources.wgmma_vgprs, checked
against ptxas).  The compiler
also caps VGPRs: without launch bounds it assumes 1024-thread workgroups, which on a
512-register SIMD leaves 128 VGPRs, and spills what does not fit.

The limits (LLVM AMDGPUBaseInfo's occupancy rules), per CU, or per WGP on RDNA, where
a workgroup's waves spread over the WGP's SIMDs and share its LDS (HIP's WGP mode):
    waves/SIMD by VGPRs  = floor(vgpr_file_per_lane / roundup(vgprs + agprs, granule))
    WGs by VGPRs         = floor(that / ceil(waves per WG / SIMDs))
    WGs by LDS           = floor(LDS per CU or WGP / LDS bytes per WG)
    WGs by waves         = floor(max_waves_per_simd / ceil(waves per WG / SIMDs))
    WGs by slots         = arch.max_workgroups_per_cu (workgroups of more than one wave)
    occupancy            = min(WGs * ceil(waves per WG / SIMDs), waves by VGPRs)
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import memref
from xdsl.dialects.builtin import IntegerAttr, MemRefType, StringAttr

from gemmc.target import resources
from gemmc.target.resources import residency_limits
from gemmc.target.arch import Arch
from gemmc.cost.counts import ASYNC_COPY, TO_LDS, Counts
from gemmc.cost.kernel import KernelIR
from gemmc.support.ir_names import (
    FLAT_WORK_GROUP_SIZE_ATTR,
    PRIVATE_SPACE,
    ROLE_ATTR,
    ROLE_K_LOOP,
    ROLE_LOAD_A,
    ROLE_LOAD_B,
    ROLE_PREFETCH,
    WAVES_PER_EU_ATTR,
    memory_space,
)

DEFAULT_FLAT_WORKGROUP = 1024  # what clang assumes without launch bounds
WGMMA = "nvgpu.wgmma_mma_async"  # sm_90a's warpgroup MMA: its kernels' registers by _wgmma_vgprs


@dataclass(frozen=True)
class Occupancy:
    vgprs: int
    agprs: int
    scratch_bytes: int  # per lane
    spilled_vgprs: int
    lds_bytes: int  # per workgroup
    waves_per_wg: int
    waves_per_simd: int
    workgroups_per_cu: float  # resident at once (per CU; a WGP's share on RDNA)
    limiter: str  # vgprs, lds, waves, barriers
    source: str  # compiler or estimate
    vgpr_budget: int

    @property
    def waves_per_cu(self) -> int:
        return self.workgroups_per_cu * self.waves_per_wg


def lds_bytes(k: KernelIR) -> int:
    """LDS a workgroup allocates (gemmc.target.resources.lds_bytes of the kernel)."""
    return resources.lds_bytes(k.kernel)


def vgpr_budget(k: KernelIR, arch: Arch) -> int:
    """VGPRs the compiler may use before spilling: from the launch bounds it was given
    (clang assumes 1024-thread workgroups without them; nvcc only caps at 255)."""
    attr = k.kernel.attributes.get(FLAT_WORK_GROUP_SIZE_ATTR)
    want = k.kernel.attributes.get(WAVES_PER_EU_ATTR)
    if arch.vendor != "amd" and attr is None:
        return arch.vgprs_per_lane
    flat = int(attr.data.split(",")[-1]) if isinstance(attr, StringAttr) else DEFAULT_FLAT_WORKGROUP
    waves = _ceil(_ceil(flat, arch.wave_size), _simds(arch))
    if want is not None:
        lo = int(want.value.data) if isinstance(want, IntegerAttr) else int(str(want.data).split(",")[0])
        waves = max(waves, lo)
    per_wave = arch.vgpr_file_per_lane // max(1, waves)
    per_wave -= per_wave % arch.vgpr_granule
    return max(arch.vgpr_granule, min(arch.vgprs_per_lane, per_wave))


def _simds(arch: Arch) -> int:
    """SIMDs a workgroup's waves spread over: a CU's, or a WGP's on RDNA."""
    return arch.simds_per_cu * arch.cus_per_wgp


def estimate_vgprs(k: KernelIR, counts: Counts) -> int:
    """VGPRs the kernel would like (before the compiler's cap)."""
    private = sorted((_elements(op.memref.type) for op in k.kernel.walk()
                      if isinstance(op, memref.AllocaOp) and _space(op.memref.type) == PRIVATE_SPACE),
                     reverse=True)
    acc = private[0] if private else 1
    if any(op.name == WGMMA for op in k.kernel.walk()):
        return _wgmma_vgprs(k, counts, acc)
    frags = sum(private[1:])
    staging = 0.0
    if any(a.role == ROLE_PREFETCH for a in counts.accesses):
        threads = max(1, k.grid.workgroups * k.grid.threads)
        lanes = sum(a.lanes * a.width for a in counts.accesses
                    if a.space == "global" and not a.store and a.role in (ROLE_LOAD_A, ROLE_LOAD_B))
        tiles = _k_iterations(k)
        staging = lanes / threads / max(1, tiles)
    return resources.vgprs(acc, frags, staging)


def _wgmma_vgprs(k: KernelIR, counts: Counts, acc: int) -> int:
    """A warpgroup-MMA kernel's registers (gemmc.target.resources.wgmma_vgprs): its accumulators (the
    largest private buffer), and per thread and K tile its cp.async (each an address) and the words its
    copies load into registers before their shared-memory stores; a TMA box takes neither (one thread's
    instruction on a tensor map: no per-thread address math, nothing through registers)."""
    per_tile = max(1, k.grid.workgroups * k.grid.threads) * max(1, _k_iterations(k))
    loads = [a for a in counts.accesses if a.space == "global" and not a.store and a.role in (ROLE_LOAD_A, ROLE_LOAD_B)]
    async_copies = sum(a.lanes for a in loads if a.op.name == ASYNC_COPY) / per_tile
    staged = sum(a.bytes for a in loads if a.op.name not in TO_LDS) / 4 / per_tile
    return resources.wgmma_vgprs(acc, async_copies, staged)


def occupancy(k: KernelIR, arch: Arch, counts: Counts, resources=None) -> Occupancy:
    """Occupancy from the compiler's VGPRs (a gemmc.target.toolchain.KernelResources) or an estimate.

    The limits are computed here in both cases, for the launch's real workgroup size
    (clang's own occupancy remark assumes the largest workgroup the launch bounds allow)."""
    budget = vgpr_budget(k, arch)
    lds = lds_bytes(k)
    if resources is not None:
        vgprs, agprs = resources.vgprs, resources.agprs
        scratch, spilled, source = resources.scratch_bytes, resources.vgpr_spill, "compiler"
        lds = max(lds, resources.lds_bytes)
    else:
        want = estimate_vgprs(k, counts)
        vgprs, agprs = min(want, budget), 0
        spilled = max(0, want - budget)
        scratch, source = 4 * spilled, "estimate"
    wpg = _ceil(k.grid.threads, arch.wave_size)
    per_simd = _ceil(wpg, _simds(arch))
    limits, by_vgpr_waves = residency_limits(arch, wpg, vgprs + agprs, lds, arch.cus_per_wgp)
    limiter = min(limits, key=lambda n: limits[n])  # on a tie, the first: the hardware maximum
    wgs_unit = max(0, limits[limiter])
    waves = min(wgs_unit * per_simd, by_vgpr_waves, arch.max_waves_per_simd)
    wgs_cu = wgs_unit / arch.cus_per_wgp
    return Occupancy(vgprs, agprs, scratch, spilled, lds, wpg, waves, wgs_cu, limiter, source, budget)


def _k_iterations(k: KernelIR) -> int:
    from xdsl.dialects import scf

    for op in k.kernel.walk():
        if isinstance(op, scf.ForOp) and op.attributes.get(ROLE_ATTR) == StringAttr(ROLE_K_LOOP):
            return k.evaluator().samples(op).trip
    return 1


def _space(t) -> int:
    return memory_space(t) if isinstance(t, MemRefType) else 0


def _elements(t: MemRefType) -> int:
    n = 1
    for d in t.get_shape():
        n *= max(d, 1)
    return n


def _ceil(a: int, b: int) -> int:
    return -(-a // b)
