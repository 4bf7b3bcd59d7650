"""What a run executed, counted the way the cost model needs it.

Instruction counts are per wave: an op executed by a wave with at least one active
lane is one instruction, whatever the number of active lanes (that is what a GPU
issues; a wave whose lanes are all masked off branches around it).  Lanes are grouped
into waves of `arch.wave_size` by linear thread id within the workgroup
(x fastest, then y, then z), as the hardware does.  Byte counts are per active lane:
they are the traffic the accesses generate before any cache or coalescing.
"""

from __future__ import annotations

from dataclasses import dataclass, fields


@dataclass
class Stats:
    kernel_launches: int = 0
    workgroups: int = 0  # workgroups launched, over all launches
    threads: int = 0  # threads (lanes) launched
    global_load_instrs: int = 0
    global_load_bytes: int = 0
    global_store_instrs: int = 0
    global_store_bytes: int = 0
    lds_load_instrs: int = 0
    lds_load_bytes: int = 0
    lds_store_instrs: int = 0
    lds_store_bytes: int = 0
    lds_bank_conflicts: int = 0  # extra LDS cycles from bank conflicts (model in memory.bank_conflicts)
    barriers: int = 0  # gpu.barrier executions, per workgroup
    valu_instrs: int = 0  # float VALU instructions (arith float ops, math.fma, conversions), per wave
    valu_int_instrs: int = 0  # integer ops on per-lane values (address arithmetic), per wave
    flops: int = 0  # float operations, per active lane and vector element; an fma counts 2
    matrix_instrs: int = 0  # MFMA/WMMA/mma.sync/wgmma per wave (warp): for the matrix-core lowerings to fill in

    def add(self, other: Stats) -> None:
        """Accumulate another run's counts into this one."""
        for f in fields(self):
            setattr(self, f.name, getattr(self, f.name) + getattr(other, f.name))

    def as_dict(self) -> dict[str, int]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def format(self) -> str:
        """The counters as aligned 'name  value' lines (what `gemmc run --stats` prints)."""
        width = max(len(f.name) for f in fields(self))
        return "\n".join(f"{f.name:<{width}}  {getattr(self, f.name):>14,}" for f in fields(self))
