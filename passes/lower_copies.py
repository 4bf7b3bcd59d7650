"""lower-copies: every gemm.copy becomes the tutorial's cooperative copy loops.

Expects: kernel IR whose gemm.copy ops sit in a gpu.func with gpu.known_block_size
(the copy is spread over that many threads).  Produces: each gemm.copy replaced in
place by its loops (gemmc/transforms/copy_lowering.py): `width`-element guarded global loads
(zeros outside the matrix) and LDS stores at the copy's leading indices, or
amdgpu.gather_to_lds transfers for a `direct` copy; everything else is left as it was.
The loads carry the copy's gemm.role and gemm.transposed.

gemmc runs it after the last pass of any pipeline that leaves gemm.copy ops (before
interpreting, emitting or explaining); name it in -p to run the layout passes that
need element stores (swizzle-lds) or to look at the loops.
Diagnostics: a gemm.copy outside a kernel with a known block size.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from gemmc.transforms.copy_lowering import UnsizedWorkgroup, lower_copies
from gemmc.support.diagnostics import pass_error


@dataclass(frozen=True)
class LowerCopiesPass(ModulePass):
    name = "lower-copies"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        try:
            lower_copies(op)
        except UnsizedWorkgroup as e:
            raise pass_error(self.name, e.op, str(e)) from None
