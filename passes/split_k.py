"""split-k: split a kernel's K loop across the grid's z dimension (split-K).

Expects: kernel IR whose launched gpu.func has one K loop (`scf.for`, gemm.role = "k_loop")
that is not pipelined yet (run split-k after the compute passes, before double-buffer or
pipeline), writes global memory only in its epilogue (inside gemm.role = "epilogue"), into one
output C, and is launched once with a grid z size of 1.

Produces, with S = factor:
  * the launch's grid z is S, and workgroup z runs the K loop's iterations
    [lb + z*c*step, min(lb + (z+1)*c*step, ub)) with c = ceil(trips / S): whole iterations
    (whole K tiles), so the copies' alignment proofs still hold and a chunk past the end is empty;
  * reduce=atomic: the epilogue reads C as 0 and adds its value into C with
    `memref.atomic_rmw addf`; before it the host launches @<kernel>_splitk_init, the kernel
    without its K loop, whose epilogue (of a zero accumulator) writes beta*C, or 0.  The two
    add up to the epilogue applied once because it is linear in (accumulator, C) without a
    constant term, which the pass checks.  C must be f32 or f64: an atomic add of 16-bit values
    would round every partial sum;
  * reduce=workspace (deterministic): the host allocates W = memref<S x C's shape x acc>; the
    kernel stores its raw accumulator where the epilogue stored C, at W[z, ...]; then the host
    launches @<kernel>_splitk_reduce, the kernel without its K loop in which the accumulator is
    the sum of W[0, ...] .. W[S-1, ...] in that order, so its epilogue runs once per element,
    and frees W.
The accumulator, in the epilogue, is what the K loop returns or what an op with
gemm.role = "acc_read" loads.
A batched kernel (gemmc.transforms.batch), launched with z = batches, gets z = batches * S:
workgroup z runs split z % S of batch z / S (`gemm.batch_split` = S); the init or reduce kernel
runs on the batches' grid, and the workspace has a batch dim of its own (batched like C).
Diagnostics (each naming its op): factor < 2, an unknown reduce, no kernel with a K loop, a
pipelined K loop, a grid already split along z, a global store outside the epilogue, stores to
two outputs, and for atomic: a 16-bit C, a vector store, an epilogue not linear in the
accumulator; for workspace: a stored value that is not computed from exactly one accumulator
value of its type, indices defined after the accumulator is read.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint

from gemmc.support.diagnostics import pass_error
from gemmc.transforms.k_split import REDUCTIONS, KSplit, launched_k_loops
from gemmc.transforms.batch import batch_args, is_batched, set_batch
from gemmc.transforms.kernel_builder import KernelBuilder, constant_value


@dataclass(frozen=True)
class SplitKPass(ModulePass):
    name = "split-k"

    factor: int = 4
    reduce: str = "atomic"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.factor < 2:
            raise pass_error(self.name, op, f"factor={self.factor} must be at least 2")
        if self.reduce not in REDUCTIONS:
            raise pass_error(self.name, op, f"reduce={self.reduce!r} is not one of {', '.join(REDUCTIONS)}")
        for launch, kernel, loop in launched_k_loops(op, self.name):
            KSplit(self.name, self.reduce, self.factor, launch, kernel, loop, self._divide).run()

    def _divide(self, split: KSplit) -> SSAValue:
        """Workgroup z runs the z-th chunk of ceil(trips / factor) iterations; the grid gets z = factor.
        A batched kernel's z is batch * factor + split (its batch is z / factor: gemm.batch_split)."""
        head = KernelBuilder(InsertPoint.at_start(split.kernel.body.block))
        z = head.block_id("z", "bz")
        batched = is_batched(split.kernel)
        if batched:
            z = head.op(arith.RemUIOp(z, head.index(self.factor)), "split")
            set_batch(split.kernel, batch_args(split.kernel), self.factor)
        loop = split.loop
        kb = KernelBuilder.before(loop)
        span = loop.ub if constant_value(loop.lb) == 0 else kb.sub(loop.ub, loop.lb)
        trips = span if constant_value(loop.step) == 1 else kb.ceildiv(span, loop.step)
        chunk = kb.ceildiv(trips, kb.index(self.factor), "k_chunk")
        width = kb.mul(chunk, loop.step)
        begin = kb.add(loop.lb, kb.mul(z, width), "k_begin")
        end = kb.op(arith.MinUIOp(kb.add(begin, width), loop.ub), "k_end")
        loop.operands[0], loop.operands[1] = begin, end
        host = KernelBuilder.before(split.launch)
        splits = host.index(self.factor, "splits")
        split.launch.operands[2] = host.mul(split.launch.gridSizeZ, splits, "grid_z") if batched else splits
        return z
