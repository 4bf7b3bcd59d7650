"""The semantics of the matrix instructions, v_mfma_* and v_wmma_*: D = A * B + C per wave,
lane-accurately from the instruction's layouts in gemmc.target.arch (gemmc.interp.matrix.multiply,
as the kernel-IR interpreter does for amdgpu.mfma, amdgpu.scaled_mfma and amdgpu.wmma).

16-bit operands are unpacked two per register, element 2i from the low half (bf16: the upper
half of an f32); FP8 and i8 four (byte b of a register is element 4i + b, FP8 decoded by ml_dtypes in the
instruction's formats: A's in_type, B's b_in_type; i8 signed, or unsigned where an iu8 WMMA's
neg_lo bit clears A's or B's signedness; an iu4 WMMA's i4 eight a register, element e at bits 4e,
signed or not as iu8's), i32 C/D exactly (gemmc.interp.matrix.multiply).  All lanes of the wave must be active.

gfx950's f8f6f4 MFMAs take A's format from cbsz and B's from blgp (gemmc.target.arch.F8F6F4_FORMATS:
0 FP8 e4m3, 1 BF8 e5m2, 2 FP6 e2m3, 3 FP6 e3m2, 4 FP4 e2m1), 32 elements a lane: FP8 in 8
registers as above, FP6 in 6 and FP4 in 4, element e at bit 6e (4e) of the registers read as one
little-endian stream (gemmc.support.bitfields; the packing gemmc's HIP and MLIR's AMDGPUToROCDL
hand the builtin).  v_mfma_scale_* multiply every element of A (B) by the E8M0 scale of its
block of 32 along k: byte op_sel[0] | op_sel_hi[0] << 1 of the scale VGPR (op_sel[1],
op_sel_hi[1] for B's) of the lane the scale layout gives the block (MatrixInstr.sa / .sb: lane
i + m * g holds row i's block g).  The byte select is how clang-22 prints the builtin's op_sel_a /
op_sel_b (1: op_sel:[1,0,0], 2: op_sel_hi:[1,0,0], 3: both).
"""

from __future__ import annotations

import numpy as np

from gemmc.amdgcn.interp.buffers import BYTE_FORMATS, PACKED_BITS
from gemmc.amdgcn.interp.state import U32
from gemmc.support.bitfields import unpack_fields
from gemmc.target.arch import F8F6F4_FORMATS, MX_SCALE, Arch, MatrixInstr, get_matrix_instr
from gemmc.dialects.amdgcn.instructions import GcnInstruction
from gemmc.dialects.amdgcn.registers import ImmType, VGPRType

FORMAT_OF_CODE = {code: name for name, code in F8F6F4_FORMATS.items()}
# VOP3P's op_sel_hi where LLVM prints none: all ones (as the packed ops' default)
OP_SEL_HI_DEFAULT = 0b111


def matrix_instr(arch: Arch, op: GcnInstruction):
    """The gemmc.target.arch.MatrixInstr op is."""
    return get_matrix_instr(arch, op.FORM.asm or op.MNEMONIC)


def instr_of(S, op: GcnInstruction) -> MatrixInstr:
    """The MatrixInstr op runs: its mnemonic's, in the formats cbsz / blgp select where it is an
    f8f6f4 MFMA (whose cycles, and so its wait states, depend on them: MatrixInstr.with_formats)."""
    return with_formats(S, op, matrix_instr(S.arch, op))


def with_formats(S, op, instr: MatrixInstr) -> MatrixInstr:
    """instr with the formats op's cbsz (A) and blgp (B) select (gfx950's f8f6f4 MFMAs; the others'
    formats are their own), A and B checked to be the registers those formats take."""
    if not instr.formats:
        return instr
    codes = [op.mods.get("cbsz", 0), op.mods.get("blgp", 0)]
    if any(c not in FORMAT_OF_CODE for c in codes):
        raise S.error(op, f"cbsz:{codes[0]} blgp:{codes[1]}: an f8f6f4 format is 0 to 4")
    out = instr.with_formats(*(FORMAT_OF_CODE[c] for c in codes))
    for name, v, fmt, n in (("A", op.srcs[0], out.in_type, out.a_regs), ("B", op.srcs[1], out.b_in_type, out.b_regs)):
        if v.type.n != n:
            raise S.error(op, f"{name} is {v.type.n} registers; its format {fmt} takes {n}")
    return out


def scale_bytes(S, op) -> tuple[int, int]:
    """The byte of the scale VGPR that A's and B's scales are read from (op_sel, op_sel_hi)."""
    sel, hi = op.mods.get("op_sel", 0), op.mods.get("op_sel_hi", OP_SEL_HI_DEFAULT)
    if sel & 4:
        raise S.error(op, "op_sel on C is not supported")
    return (sel & 1) | (hi & 1) << 1, (sel >> 1 & 1) | (hi >> 1 & 1) << 1


def _check_scale_registers(S, op) -> None:
    """Only VGPR scales are interpreted: from an SGPR or an inline constant gfx950 reads bits
    [30:23] instead of op_sel's byte (llvm-project #158117, which since restricts them to VGPRs)."""
    for v in op.srcs[3:5]:
        if not isinstance(v.type, VGPRType):
            raise S.error(op, "a scale that is not a VGPR (gfx950 reads bits [30:23] of an SGPR or a constant "
                              "scale) is not interpreted")


def _words(S, v, n: int) -> np.ndarray:
    """(W, L, n) 32-bit words of an operand of n registers; an inline constant is n copies."""
    const = isinstance(v.type, ImmType)
    return np.stack([np.broadcast_to(S.rd_v(v, 0 if const else i), (S.W, S.L)) for i in range(n)], axis=-1)


def _narrow_dtype(name: str):
    from gemmc.support.arith_semantics import fp8_dtypes

    return fp8_dtypes()[name]


def decode(x: np.ndarray, fmt: str, items: int) -> np.ndarray:
    """A lane's `items` elements of format `fmt` from its words x (W, L, n), as float32 (bf16,
    FP8, FP6, FP4) or the format's own type (f32, f16)."""
    if fmt == "bf16":
        return (x.view(np.uint16).astype(U32) << U32(16)).view(np.float32)
    raw = np.ascontiguousarray(x).view(np.uint8)  # byte b of register i is byte 4i + b
    if fmt in PACKED_BITS:
        return unpack_fields(raw, PACKED_BITS[fmt], items).view(_narrow_dtype(fmt)).astype(np.float32)
    if fmt in BYTE_FORMATS:
        return raw.view(_narrow_dtype(fmt)).astype(np.float32)
    if fmt == "i8":  # held as int64 bytes of any sign: multiply reads them by the operand's signedness
        return raw.view(np.int8).astype(np.int64)
    if fmt == "i4":  # an iu4 WMMA's nibbles, element e at bits 4e: codes, read by the operand's signedness
        return unpack_fields(raw, 4, items).astype(np.int64)
    t = {"f32": np.float32, "f16": np.float16}.get(fmt)
    if t is None:
        raise ValueError(fmt)
    return np.ascontiguousarray(x).view(t)


def scales(S, v) -> np.ndarray:
    """(W, L, 4) E8M0 scales of a scale VGPR, byte b of each lane's word as a float."""
    w = np.ascontiguousarray(np.broadcast_to(S.rd_v(v), (S.W, S.L)), dtype=U32)
    return w.view(np.uint8).reshape(S.W, S.L, 4).view(_narrow_dtype(MX_SCALE)).astype(np.float64)


def _formats_interpreted(S, op, instr: MatrixInstr) -> None:
    for name in (instr.in_type, instr.b_in_type):
        if name not in ("f32", "f16", "bf16", "i8", "i4", *BYTE_FORMATS, *PACKED_BITS):
            raise S.error(op, f"{name} operands of {instr.mnemonic} are not interpreted by gemmc's AMDGCN backend")


def matrix(S, op):
    """The handler of every MFMA and WMMA (semantics.py has the protocol)."""
    from gemmc.interp.matrix import multiply

    instr = instr_of(S, op)
    _formats_interpreted(S, op, instr)
    srcs, d = list(op.srcs), op.dsts[0].type
    scaled = instr.scale_block > 0
    # an iu8 WMMA's signedness: neg_lo bit 0 (1) / bit 1 (2) set where A's / B's bytes are signed (as
    # clang-22 prints __builtin_amdgcn_wmma_i32_16x16x16_iu8_w32's a_signed / b_signed: neg_lo:[1,1,0])
    neg = op.mods.get("neg_lo", 0)
    unsigned = (not neg & 1, not neg & 2) if instr.signedness else (False, False)
    if scaled:
        _check_scale_registers(S, op)
        ia, ib = scale_bytes(S, op)

    def body(act, tgt):
        full = S.lanes.all(axis=1)
        if np.any(act & ~full):
            raise S.error(op, "a matrix instruction with some lanes of its wave masked off (EXEC is not all ones)",
                          act & ~full)
        a = decode(_words(S, srcs[0], instr.a_regs), instr.in_type, instr.a.items)
        b = decode(_words(S, srcs[1], instr.b_regs), instr.b_in_type, instr.b.items)
        words = _words(S, srcs[2], instr.c_regs)
        integer = instr.out_type == "i32"
        c = words.view(np.int32).astype(np.int64) if integer else words.view(np.float32)
        block = (scales(S, srcs[3])[act], ia, scales(S, srcs[4])[act], ib) if scaled else None
        out = c.copy()
        out[act] = multiply(instr, a[act], b[act], c[act], block, unsigned)
        if integer:
            out = out.astype(np.int32)
        S.wr_v(d, [out[..., i].view(U32) for i in range(instr.c_regs)], act)
    return body
