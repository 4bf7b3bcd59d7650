"""double-buffer: the tutorial's step 4, two LDS buffers per operand.

Expects: an LDS-tiled kernel with one buffer per operand.
Produces: tile_a and tile_b get a leading dimension of 2.  A prologue copies tile 0
into buffer 0 and waits at a barrier; iteration t of the K loop then prefetches tile
t + 1 into buffer (t + 1) % 2 (guarded by `t + 1 < num_tiles`), computes on buffer
t % 2 while those loads are in flight, and releases with one barrier, so the copy of
the next tile overlaps the compute of the current one and the loop needs one barrier
per tile instead of two.  With stage=registers the loads of tile t + 1 are issued before
the compute and their LDS stores after it, so the loads' latency hides behind the compute
(the values wait in registers).  Diagnostics: no LDS tiling yet, already double-buffered, or
twice the LDS no longer fitting the arch.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from gemmc.contraction import analyze, kernels
from gemmc.diagnostics import pass_error
from gemmc.target import target_of
from gemmc.tiled_kernel import rebuild
from gemmc.tiling_checks import check_fits


@dataclass(frozen=True)
class DoubleBufferPass(ModulePass):
    name = "double-buffer"

    stage: str = "lds"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        arch = target_of(op)
        for kernel in kernels(op, self.name):
            con = analyze(kernel, self.name)
            if con.schedule is None:
                raise pass_error(self.name, kernel, "expects an LDS-tiled kernel; run lds-tiling first")
            if con.schedule.buffers != 1:
                raise pass_error(self.name, kernel, "the kernel is already double-buffered")
            if self.stage not in ("lds", "registers"):
                raise pass_error(self.name, kernel, f"stage={self.stage}: expected lds or registers")
            new = con.schedule.with_(buffers=2, stage_regs=int(self.stage == "registers"))
            check_fits(self.name, kernel, new, con, arch)
            rebuild(con, new)
