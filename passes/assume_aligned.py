"""assume-aligned: let the kernel assume that its matrices' rows are `multiple`-element aligned.

Expects: kernel IR whose kernels take 2-D global matrices with a dynamic row length (last
dimension).  Produces: at the top of each such kernel, one `gemm.assume_rows_aligned %X
{multiple}` per such matrix, nothing else; vectorize and direct-to-lds then take it as the proof
that a dynamic row starts aligned.  The assumption must be checked by whoever launches the kernel:
gemmc.driver.dispatch runs this variant only when every such row length is a multiple, and the
interpreter checks it at every launch (a violated assumption is an error, not a wrong result).
Diagnostics: multiple < 1, no kernel with a matrix of dynamic row length.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import MemRefType, ModuleOp
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from gemmc.transforms.contraction import kernels
from gemmc.support.diagnostics import pass_error
from gemmc.dialects.gemm import AssumeRowsAlignedOp
from gemmc.support.ir_names import GLOBAL_SPACE, memory_space


@dataclass(frozen=True)
class AssumeAlignedPass(ModulePass):
    name = "assume-aligned"

    multiple: int = 4

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.multiple < 1:
            raise pass_error(self.name, op, f"multiple={self.multiple} must be at least 1")
        assumed = 0
        for kernel in kernels(op, self.name):
            body = kernel.body.block
            have = {a.memref for a in kernel.walk() if isinstance(a, AssumeRowsAlignedOp)}
            for arg in body.args:
                t = arg.type
                if (isinstance(t, MemRefType) and t.get_num_dims() == 2 and t.get_shape()[1] < 0
                        and memory_space(t) == GLOBAL_SPACE and arg not in have):
                    Rewriter.insert_op(AssumeRowsAlignedOp(arg, self.multiple), InsertPoint.at_start(body))
                    assumed += 1
        if not assumed:
            raise pass_error(self.name, op, "no kernel takes a matrix with a dynamic row length to assume aligned")
