"""analyze-occupancy: report each kernel's occupancy and what limits it, as remarks.

Expects: anything; kernel IR to have something to say.  Produces: the module unchanged,
and on stderr

    remark: analyze-occupancy: @k: 2 waves/SIMD, 2 workgroups/CU, limited by lds (32768 B per workgroup)
    remark: analyze-occupancy: @k: VGPRs ~200 estimated (budget 256), 4 waves per workgroup

VGPRs are the cost model's estimate from the IR (gemmc.cost.occupancy), or, with
`compiler=true`, the compiler's resource report (needs clang with the AMDGPU backend).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from gemmc.target.module_arch import target_of

NAME = "analyze-occupancy"

DETAIL = {
    "vgprs": lambda o, a: f"{o.vgprs + o.agprs} VGPRs",
    "lds": lambda o, a: f"{o.lds_bytes} B LDS per workgroup",
    "waves": lambda o, a: f"{a.max_waves_per_simd} waves per SIMD",
    "workgroup slots": lambda o, a: f"{a.max_workgroups_per_cu} workgroups per CU",
}


def remark(text: str) -> None:
    print(f"remark: {text}", file=sys.stderr)


@dataclass(frozen=True)
class AnalyzeOccupancyPass(ModulePass):
    name = NAME

    default_dim: int = 1024
    compiler: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        from gemmc.cost.analysis import kernel_counts
        from gemmc.cost.compiled import compiler_resources
        from gemmc.cost.occupancy import occupancy

        arch = target_of(op)
        found = kernel_counts(op, arch, self.default_dim, NAME, remark)
        if found is None:
            return
        k, counts = found
        res = compiler_resources(op, arch) if self.compiler else None
        o = occupancy(k, arch, counts, res)
        wgs = f"{o.workgroups_per_cu:g}"
        remark(f"{NAME}: @{k.name}: {o.waves_per_simd} waves/SIMD, {wgs} workgroups/CU, "
               f"limited by {o.limiter} ({DETAIL[o.limiter](o, arch)})")
        how = "from the compiler" if o.source == "compiler" else "estimated"
        spill = f", {o.spilled_vgprs} spilled" if o.spilled_vgprs else ""
        remark(f"{NAME}: @{k.name}: VGPRs {'' if o.source == 'compiler' else '~'}{o.vgprs} {how} "
               f"(budget {o.vgpr_budget}{spill}), {o.waves_per_wg} waves per workgroup")
