"""analyze-lds-banks: report the bank-conflict degree of every LDS access, as remarks.

Expects: anything; kernel IR to have something to say.  Produces: the module unchanged,
and on stderr one line per LDS load or store of each kernel,

    remark: analyze-lds-banks: @k: memref.load %tile_b_t (4 B/lane): 16-way bank conflict, 32 cycles/wave (2 without)

then one summary line per kernel.  The degree is the cost model's (gemmc.cost.banks): the
cycles the LDS needs for one wave instruction over the cycles without conflicts, from
every lane's address (sampled workgroups and loop iterations).  Dynamic sizes that the
IR does not fix are taken as `default-dim` (they only move guards).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from gemmc.target.module_arch import target_of

NAME = "analyze-lds-banks"


def remark(text: str) -> None:
    print(f"remark: {text}", file=sys.stderr)


@dataclass(frozen=True)
class AnalyzeLdsBanksPass(ModulePass):
    name = NAME

    default_dim: int = 1024

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        from gemmc.cost.analysis import kernel_counts, value_label

        arch = target_of(op)
        found = kernel_counts(op, arch, self.default_dim, NAME, remark)
        if found is None:
            return
        k, counts = found
        lds = [a for a in counts.accesses if a.space == "lds"]
        if not lds:
            remark(f"{NAME}: @{k.name}: no LDS accesses")
            return
        conflicted = 0
        for a in lds:
            from gemmc.cost.counts import memref_and_indices

            mem, _ = memref_and_indices(a.op)
            cycles, ideal = _ir_cycles(a, arch, k)
            degree = cycles / ideal if ideal else 1.0
            what = "no bank conflict" if degree <= 1.0 else f"{degree:.3g}-way bank conflict"
            conflicted += degree > 1.0
            remark(f"{NAME}: @{k.name}: {a.op.name} {value_label(mem)} ({a.width * a.elem_bytes} B/lane): "
                   f"{what}, {cycles:.3g} cycles/wave ({ideal:.3g} without)")
        extra = sum(a.extra_cycles for a in lds)
        remark(f"{NAME}: @{k.name}: {conflicted} of {len(lds)} LDS accesses conflict; "
               f"{extra:.4g} extra LDS cycles per launch as issued")


def _ir_cycles(a, arch, k) -> tuple[float, float]:
    """Cycles of one IR access (before the compiler merges accesses)."""
    from gemmc.cost.analysis import access_cycles

    return access_cycles(k, arch, a)
