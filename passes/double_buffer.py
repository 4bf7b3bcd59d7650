"""double-buffer: the tutorial's step 4, two LDS buffers per operand.

Expects: an LDS-tiled kernel whose K loop (gemm.role = "k_loop") is
`copies; gpu.barrier; compute; gpu.barrier` with single-buffered LDS tiles (lds-tiling's
form, before any other pass multi-buffered them).
Produces, with stage=lds (the default), in place: the tiles the K loop's copies write get
a leading dimension of 2, indexed by the iteration's slot t mod 2 (multi-buffer{factor=2}),
and the loop is software-pipelined by two stages (pipeline{stages=2}): a prologue copies
tile 0 into slot 0 and waits at a barrier; iteration t prefetches tile t + 1 into slot
(t + 1) mod 2 (guarded by t + 1 < num_tiles), computes on slot t mod 2 while those loads
are in flight, and releases with one barrier, so the copy of the next tile overlaps the
compute of the current one and the loop needs one barrier per tile instead of two.
Everything else (the compute, the epilogue, a hand edit) is left as it is.

stage=registers still rewrites the kernel from its gemm.schedule (gemmc/tiled_kernel.py):
the loads of tile t + 1 are issued before the compute and their LDS stores after it, so
the loads' latency hides behind the compute (the values wait in registers); the copies
are lowered then, so vectorize and direct-to-lds must come before it.
Diagnostics: no LDS tiling yet, already double-buffered, a K loop of another form, twice
the LDS no longer fitting the arch.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import scf
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from gemmc.contraction import analyze, find_role, kernels
from gemmc.diagnostics import pass_error
from gemmc.ir_names import LDS_SPACE, ROLE_K_LOOP, memory_space
from gemmc.lds_access import ALLOC_OPS, check_lds_fits, written_memref
from gemmc.passes.multi_buffer import multi_buffer
from gemmc.passes.pipeline_loop import pipeline_loop
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
            if self.stage == "registers":
                new = con.schedule.with_(buffers=2, stage_regs=1)
                check_fits(self.name, kernel, new, con, arch)
                rebuild(con, new)
            elif self.stage == "lds":
                check_fits(self.name, kernel, con.schedule.with_(buffers=2), con, arch)
                self._in_place(kernel)
                check_lds_fits(self.name, kernel, arch)  # what the tiles hold besides (padding)
            else:
                raise pass_error(self.name, kernel, f"stage={self.stage}: expected lds or registers")

    def _in_place(self, kernel) -> None:
        loop = find_role(kernel, ROLE_K_LOOP)
        if not isinstance(loop, scf.ForOp):
            raise pass_error(self.name, kernel, "expects a K loop marked gemm.role = \"k_loop\"")
        allocs = []
        for op in loop.body.block.ops:
            for inner in op.walk():
                buf = written_memref(inner)
                if (buf is not None and isinstance(buf.owner, ALLOC_OPS) and memory_space(buf.type) == LDS_SPACE
                        and buf.owner not in allocs):
                    allocs.append(buf.owner)
        if not allocs:
            raise pass_error(self.name, loop, "the K loop writes no LDS buffer to double-buffer")
        multi_buffer(allocs, 2, self.name)
        pipeline_loop(loop, 2, self.name)
