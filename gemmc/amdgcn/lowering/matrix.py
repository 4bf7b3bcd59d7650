"""Selection of amdgpu.mfma and amdgpu.wmma: the arch's v_mfma_* / v_wmma_* on register ranges.

A and B are VGPR ranges (f32: one per item; 16-bit and FP8: packed, one range per fragment);
C is a range that the allocator may give D too, in AGPRs for MFMAs with accumulators=agpr.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.ir import Operation, SSAValue

from gemmc.amdgcn.lowering.ranges import RegisterRanges
from gemmc.amdgcn.values import F, Packed, Vec
from gemmc.dialects.amdgcn.registers import AGPRType, VGPRType
from gemmc.target.amdgcn_isa import f32_bits, matrix_op_name
from gemmc.dialects.amdgpu import MFMAOp, WMMAOp


class MatrixOps(RegisterRanges):
    def _matrix(self, op: MFMAOp | WMMAOp) -> None:
        """v_mfma / v_wmma D, A, B, C: A and B in VGPRs (f32: one per item; f16/bf16: packed
        pairs, one range per fragment), C a range that the allocator may give D too (an
        accumulation chain stays in its registers).  An MFMA's C may be AGPRs
        (accumulators=agpr), and the first MFMA of a chain adds to an inline 0; a WMMA's C is
        VGPRs, and the first of a chain adds to zeroed registers."""
        instr = op.instr_on(self.arch)
        assert instr is not None  # (the driver refused the ops it does not select)
        operand = self._vgpr_operand if instr.kind == "mfma" else self.packed_range
        a, b = (operand(v, op) for v in (op.sourceA, op.sourceB))
        c = self.env.get(op.destC)
        if not isinstance(c, Vec):
            raise self.error(op, "expects a vector accumulator")
        agpr = instr.kind == "mfma" and self.opts.accumulators == "agpr"
        if instr.kind == "mfma" and c.elems is not None and all(
                isinstance(e, F) and e.const is not None and f32_bits(e.const) == 0 for e in c.elems):
            acc = self.const(0.0)  # no zeroed registers
        else:
            acc = self.agpr_range(c) if agpr else self.vec_range(c)
        d = self.e1(matrix_op_name(self.arch, instr), [a, b, acc],
                    (AGPRType if agpr else VGPRType).unallocated(instr.c_regs), cse=False)
        self.env[op.destD] = Vec(instr.c_regs, reg=d)

    def _vgpr_operand(self, v: SSAValue, op: Operation) -> SSAValue:
        x = self.env.get(v)
        if isinstance(x, Packed):  # f16 fragments
            return self.packed_range(v, op)
        if isinstance(x, Vec):
            return self.vec_range(x)
        return self.fvgpr(self.fval(v, op))


MATRIX_OPS: dict[type, Callable] = {MFMAOp: MatrixOps._matrix, WMMAOp: MatrixOps._matrix}
"""The handlers of the matrix-core ops, by op class."""
