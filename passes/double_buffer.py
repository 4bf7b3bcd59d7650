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
Where the target's arch says so (`transposed_copy_column_first`: sm_90 and CDNA), each
scalar copy into a transposed tile (gemm.copy with transpose, width 1) is marked
`column_first`, so that its threads walk the tile's stored columns (conflict-free LDS
stores while other waves read fragments, each lane's load a row apart); on RDNA the copies
keep walking the global rows (coalesced loads: its L0 keeps no strided lines and the L2
would bind; gemmc/target/arch.py gives the measurements).
Everything else (the compute, the epilogue, a hand edit) is left as it is.

stage=registers does the same and then stages the prefetch through registers: the loads of
tile t + 1 (the prefetched gemm.copy ops, lowered as unrolled guarded loads) are issued
before the compute and their LDS stores after it, so the loads' latency hides behind the
compute while the values wait in registers.  Those copies are written out then, so
vectorize must come before it; a copy by global_load_lds (direct-to-lds) needs no registers
and is refused here.
With stage=registers, lds-slots=1 keeps one LDS buffer per operand (half the LDS, gau-nernst's
MI300X v3a): the prefetch's loads come before the compute as above, and their LDS stores
after a second barrier that waits for every wave's compute on the buffer, so the loop has
two barriers per tile instead of one.
Diagnostics: lds-slots other than 2 (or 1 with stage=registers), no LDS tiling yet, already
double-buffered, a K loop of another form, twice the LDS (or the staging registers) no
longer fitting the arch.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import scf
from xdsl.dialects.builtin import ModuleOp, UnitAttr
from xdsl.passes import ModulePass

from gemmc.transforms.contraction import analyze, find_role, working_kernels
from gemmc.support.diagnostics import pass_error
from gemmc.transforms.contraction import role
from gemmc.support.ir_names import LDS_SPACE, ROLE_K_LOOP, ROLE_PREFETCH, memory_space
from gemmc.transforms.copy_lowering import staged_copy, workgroup_threads
from gemmc.dialects.gemm import CopyOp
from gemmc.transforms.kernel_builder import KernelBuilder
from gemmc.transforms.lds_access import ALLOC_OPS, check_lds_fits, written_memref
from gemmc.passes.multi_buffer import multi_buffer
from gemmc.passes.pipeline_loop import pipeline_loop
from gemmc.target.module_arch import target_of
from gemmc.transforms.tiling_checks import check_fits


@dataclass(frozen=True)
class DoubleBufferPass(ModulePass):
    name = "double-buffer"

    stage: str = "lds"
    lds_slots: int = 2

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        arch = target_of(op)
        for kernel in working_kernels(op, self.name):
            con = analyze(kernel, self.name)
            if con.schedule is None:
                raise pass_error(self.name, kernel, "expects an LDS-tiled kernel; run lds-tiling first")
            if con.schedule.buffers != 1:
                raise pass_error(self.name, kernel, "the kernel is already double-buffered")
            if self.stage not in ("lds", "registers"):
                raise pass_error(self.name, kernel, f"stage={self.stage}: expected lds or registers")
            if self.lds_slots not in (1, 2) or (self.lds_slots == 1 and self.stage != "registers"):
                raise pass_error(self.name, kernel, f"lds-slots={self.lds_slots}: expected 2, or 1 with stage=registers")
            check_fits(self.name, kernel, con.schedule.with_(buffers=self.lds_slots), con, arch)
            loop = self._k_loop(kernel)
            if self.lds_slots == 2:
                multi_buffer(self._tiles(loop), 2, self.name)
            pipeline_loop(loop, 2, self.name, slotted=self.lds_slots == 2)
            if self.stage == "registers":
                self._through_registers(loop)  # staged copies run along the rows
            elif arch.transposed_copy_column_first:
                _walk_columns(kernel)
            check_lds_fits(self.name, kernel, arch)  # what the tiles hold besides (padding)

    def _k_loop(self, kernel) -> scf.ForOp:
        loop = find_role(kernel, ROLE_K_LOOP)
        if not isinstance(loop, scf.ForOp):
            raise pass_error(self.name, kernel, "expects a K loop marked gemm.role = \"k_loop\"")
        return loop

    def _tiles(self, loop: scf.ForOp) -> list:
        """The LDS buffers the K loop writes."""
        allocs = []
        for op in loop.body.block.ops:
            for inner in op.walk():
                buf = written_memref(inner)
                if (buf is not None and isinstance(buf.owner, ALLOC_OPS) and memory_space(buf.type) == LDS_SPACE
                        and buf.owner not in allocs):
                    allocs.append(buf.owner)
        if not allocs:
            raise pass_error(self.name, loop, "the K loop writes no LDS buffer to double-buffer")
        return allocs

    def _through_registers(self, loop: scf.ForOp) -> None:
        """The prefetch's copies as loads before the compute and LDS stores after it."""
        prefetch = next(op for op in loop.body.block.ops if role(op) == ROLE_PREFETCH)
        ops = list(prefetch.true_region.block.ops)[:-1]  # without its scf.yield
        for op in ops:
            if isinstance(op, CopyOp) and op.direct is not None:
                raise pass_error(self.name, op, "a copy by global_load_lds (direct-to-lds) goes to LDS without "
                                 "registers; use stage=lds")
            if not isinstance(op, CopyOp) and (op.regions or not _pure(op)):
                raise pass_error(self.name, op, f"stage=registers expects the prefetch to be gemm.copy ops and index "
                                 f"arithmetic; this '{op.name}' is neither")
        threads = workgroup_threads(loop)
        loads = KernelBuilder.before(prefetch)
        pending = []
        for op in ops:
            op.detach()
            if isinstance(op, CopyOp):
                pending += [(op, store) for store in staged_copy(loads, op, prefetch.cond, threads)]
            else:
                loads.b.insert(op)  # index arithmetic, needed by the loads and the stores
        last_barrier = loop.body.block.last_op.prev_op
        if self.lds_slots == 1:  # one buffer: every wave's compute reads it until this barrier
            KernelBuilder.before(last_barrier).b.insert(last_barrier.clone())
        stores = KernelBuilder.before(last_barrier)  # before the final gpu.barrier
        for op, store in pending:
            store(stores, list(op.indices))
        for op in dict.fromkeys(op for op, _ in pending):
            op.erase()
        prefetch.detach()
        prefetch.erase()


def _walk_columns(kernel) -> None:
    """Mark the kernel's scalar copies into transposed LDS tiles column_first (not those whose
    lanes vectorize{row-lanes} ordered)."""
    for op in kernel.walk():
        if (isinstance(op, CopyOp) and op.transpose is not None and op.direct is None
                and op.width.value.data == 1 and op.row_lanes is None):
            op.properties["column_first"] = UnitAttr()


def _pure(op) -> bool:
    return op.name.startswith("arith.")
