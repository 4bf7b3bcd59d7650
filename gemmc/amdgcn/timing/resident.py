"""How many workgroups of a kernel a CU (an RDNA WGP) holds at once, from its descriptor in the
`.s` (the `.amdhsa_*` directives and the metadata's register counts) and the arch's limits.

The rules are LLVM's (AMDGPUBaseInfo: getMaxWavesPerEU, getNumWavesPerEUWithNumVGPRs), in
gemmc.target.resources.residency_limits, which gemmc.cost.occupancy applies to its estimates;
here with the compiler's own counts:

    waves/SIMD by VGPRs = min(max waves, VGPR file per lane / roundup(VGPRs (+ AGPRs), granule))
    waves/SIMD by SGPRs = 800 / roundup(SGPRs, 16) on wave64 CDNA (CDNA3 ISA guide: 800 SGPRs a SIMD)
    workgroups          = min(by VGPRs / waves per SIMD, LDS / LDS per workgroup,
                              max waves / waves per SIMD, workgroup slots)
"""

from __future__ import annotations

from dataclasses import dataclass

from gemmc.target.arch import Arch, get_gcn_isa
from gemmc.target.resources import residency_limits


@dataclass(frozen=True)
class Residency:
    vgprs: int  # architected + accumulation registers a wave allocates
    sgprs: int
    lds_bytes: int  # per workgroup
    waves_per_workgroup: int
    workgroups: int  # resident per CU (per WGP on RDNA in WGP mode)
    limiter: str
    cus: int = 1  # CUs a unit spans: RDNA's WGP mode 2 (a workgroup's waves on 4 SIMDs), CU mode 1

    @property
    def waves_per_simd(self) -> float:
        return self.workgroups * self.waves_per_workgroup


def units(arch: Arch, res: Residency | None = None) -> int:
    """The units a launch's workgroups spread over: CUs, or RDNA's WGPs in WGP mode (HIP's
    default; `res`: the kernel's mode, WGP mode where not given)."""
    return arch.cu_count // (res.cus if res is not None else arch.cus_per_wgp)


def simds(arch: Arch, res: Residency | None = None) -> int:
    """SIMDs of one unit."""
    return arch.simds_per_cu * (res.cus if res is not None else arch.cus_per_wgp)


def lds_half(slot: int, res: Residency, arch: Arch) -> int:
    """The LDS port that serves the `slot`-th resident workgroup.  In CU mode (and on CDNA) a unit
    has one.  In WGP mode the RDNA3 ISA guide ("WGP and CU Mode") gives the WGP 128 KB that a
    workgroup may allocate from whole; the model's picture, an assumption (docs/cost-model.md, "LDS
    halves in WGP mode"; chosen on seb-v's WGP-mode kernels 2-4, which are in-sample for it), is two
    64 KB halves (`arch.lds_bytes`), one a CU, each with `arch.lds_banks` banks and its own port, the
    workgroups' allocations packed from address 0 in launch order: a workgroup's accesses go to the
    half its allocation starts in, and workgroups whose LDS together fits 64 KB share one half."""
    if res.cus == 1 or res.lds_bytes <= 0:
        return 0
    return min(res.cus - 1, slot * res.lds_bytes // arch.lds_bytes)


def cus_per_unit(descriptor: dict, arch: Arch) -> int:
    """2 on RDNA in WGP mode, 1 in CU mode (`.amdhsa_workgroup_processor_mode 0`: clang's
    -mcumode, seb-v's kernels 5-8) and on CDNA.  RDNA3 ISA guide, "Work-group Processor (WGP)
    mode" / "CU mode": in CU mode a workgroup's waves run on the two SIMDs of one CU and share
    that CU's half of the WGP's LDS; the WGP's two CUs take workgroups independently."""
    if arch.cus_per_wgp == 1:
        return 1
    return arch.cus_per_wgp if int(descriptor.get("workgroup_processor_mode", 1)) else 1


def residency(descriptor: dict, meta: dict, arch: Arch, threads: int, dynamic_lds: int = 0) -> Residency:
    """Resident workgroups of `threads` work-items with the kernel's registers and LDS."""
    vg = max(int(descriptor.get("next_free_vgpr", 1)), int(meta.get("vgpr_count", 0) or 0))
    if not get_gcn_isa(arch).has_accum_offset:  # separate AGPR file (none on RDNA): VGPRs only
        vg = int(meta.get("vgpr_count", vg) or vg)
    sg = int(meta.get("sgpr_count", descriptor.get("next_free_sgpr", 16)) or 16)
    lds = int(descriptor.get("group_segment_fixed_size", 0)) + dynamic_lds
    wpg = -(-threads // arch.wave_size)
    cus = cus_per_unit(descriptor, arch)
    limits, _ = residency_limits(arch, wpg, vg, lds, cus, sgprs=max(1, sg))
    limiter = min(limits, key=lambda n: limits[n])
    # VGPRs and SGPRs together here: the compiler's counts of both
    return Residency(vg, sg, lds, wpg, max(1, limits[limiter]), "registers" if limiter == "vgprs" else limiter, cus)
