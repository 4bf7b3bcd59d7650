"""The semantics of the matrix instructions, v_mfma_* and v_wmma_*: D = A * B + C per wave,
lane-accurately from the instruction's layouts in gemmc.target.arch (gemmc.interp.matrix.multiply,
as the kernel-IR interpreter does for amdgpu.mfma and amdgpu.wmma).

16-bit operands are unpacked two per register, element 2i from the low half (bf16: the upper
half of an f32); FP8 four (byte b of a register is element 4i + b, decoded by ml_dtypes in the
instruction's formats: A's in_type, B's b_in_type).  All lanes of the wave must be active.
"""

from __future__ import annotations

import numpy as np

from gemmc.amdgcn.interp.buffers import FP8_FORMATS
from gemmc.amdgcn.interp.state import U32
from gemmc.target.arch import Arch, get_matrix_instr
from gemmc.dialects.amdgcn.instructions import GcnInstruction
from gemmc.dialects.amdgcn.registers import ImmType


def matrix_instr(arch: Arch, op: GcnInstruction):
    """The gemmc.target.arch.MatrixInstr op is."""
    return get_matrix_instr(arch, op.FORM.asm or op.MNEMONIC)


def matrix(S, op):
    """The handler of every MFMA and WMMA (semantics.py has the protocol)."""
    from gemmc.interp.matrix import multiply

    instr = matrix_instr(S.arch, op)
    srcs, d = list(op.srcs), op.dsts[0].type

    def regs(v, n, dtype):
        const = isinstance(v.type, ImmType)  # an inline constant C: every element that value
        x = np.stack([np.broadcast_to(S.rd_v(v, 0 if const else i), (S.W, S.L)) for i in range(n)], axis=-1)
        if dtype == "bf16":
            return (x.view(np.uint16).astype(U32) << U32(16)).view(np.float32)
        if np.dtype(dtype).itemsize == 1:  # FP8: byte b of register i is element 4i + b
            return np.ascontiguousarray(x).view(np.uint8).view(dtype).astype(np.float32)
        return x.view(dtype)

    def operand_type(name: str):
        if name in FP8_FORMATS:
            from gemmc.support.arith_semantics import fp8_dtypes

            return fp8_dtypes()[name]
        t = {"f32": np.float32, "f16": np.float16, "bf16": "bf16"}.get(name)
        if t is None or instr.formats:  # (gfx950's f8f6f4 MFMAs: cbsz / blgp are not selected)
            raise S.error(op, f"{name} operands of {instr.mnemonic} are not interpreted by gemmc's AMDGCN "
                              "backend")
        return t

    ab, bb = operand_type(instr.in_type), operand_type(instr.b_in_type)

    def body(act, tgt):
        full = S.lanes.all(axis=1)
        if np.any(act & ~full):
            raise S.error(op, "a matrix instruction with some lanes of its wave masked off (EXEC is not all ones)",
                          act & ~full)
        a, b = regs(srcs[0], instr.a_regs, ab), regs(srcs[1], instr.b_regs, bb)
        c = regs(srcs[2], instr.c_regs, np.float32)
        out = c.copy()
        out[act] = multiply(instr, a[act], b[act], c[act])
        S.wr_v(d, [out[..., i].view(U32) for i in range(instr.c_regs)], act)
    return body
