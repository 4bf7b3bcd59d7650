"""The nvgpu dialect (after MLIR's): NVIDIA's warp-level tensor-core op, for the sm_90 target.

    %d = nvgpu.mma_sync %a * %b + %c {m = 16 : i32, n = 8 : i32, k = 16 : i32}
           : vector<8xf16>, vector<4xf16>, vector<4xf32>

One warp computes D[16 x 8] = A[16 x 16] @ B[16 x 8] + C with `mma.sync.aligned.m16n8k16`, each
lane passing the elements of A, B and C that the instruction's lane layouts give it
(gemmc.target.arch.MatrixInstr.a / .b / .d, the PTX ISA's fragment tables).  MLIR's
nvgpu.mma.sync takes A as vector<4x2xf16> (its registers); gemmc's lowering, interpreter and
printer take every matrix op's operands as flat per-lane vectors, so this op does too.  It is
verified like amdgpu.mfma / amdgpu.wmma (the shapes and types must name an instruction of the
module's target: gemmc.dialects.amdgpu.MatrixOpBase).
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import IntegerAttr, i32
from xdsl.ir import Dialect, SSAValue
from xdsl.irdl import irdl_op_definition

from gemmc.dialects.amdgpu import MatrixOpBase


@irdl_op_definition
class MmaSyncOp(MatrixOpBase):
    """A warp matrix multiply-accumulate on NVIDIA's tensor cores: D = A * B + C over one warp."""

    name = "nvgpu.mma_sync"
    KIND: ClassVar[str] = "mma"

    def __init__(self, a: SSAValue, b: SSAValue, c: SSAValue, m: int, n: int, k: int):
        super().__init__(
            operands=[a, b, c], result_types=[c.type],
            properties={n_: IntegerAttr(v, i32) for n_, v in (("m", m), ("n", n), ("k", k))},
        )


NVGPU = Dialect("nvgpu", [MmaSyncOp], [])
