"""HIP printers of the amdgpu dialect: matrix-core builtins and global_load_lds.

    amdgpu.mfma  -> d = __builtin_amdgcn_mfma_f32_32x32x8f16(a, b, c, 0, 0, 0);   (cbsz, abid, blgp)
    amdgpu.wmma  -> d = __builtin_amdgcn_wmma_f32_16x16x16_f16_w32(a, b, c);      (_gfx12 on RDNA4)
                    d = __builtin_amdgcn_wmma_f16_16x16x16_f16_w32(a, b, c, false);  (RDNA3 f16 acc: OPSEL)
                    d = __builtin_amdgcn_wmma_i32_16x16x16_iu8_w32(true, a, false, b, c, false);  (signed A,
                        unsigned B: the op's unsignedA / unsignedB; clamp off)
    amdgpu.gather_to_lds -> __builtin_amdgcn_global_load_lds((void*)&A[..], (void*)&tile[..][..], 4, 0, 0);

The builtin of each instruction is an arch fact (gemmc.target.arch.MatrixInstr.builtin): the op's
shape and types name the instruction on the emitter's arch.  Operands are the per-lane
vectors of the IR (v4half, v16float, ...); clang takes bf16 vectors where a builtin
declares 16-bit integer vectors.  FP8 operands (v8uchar, their bytes) are bit-cast to the
long (MFMA) or int2 (gfx12 WMMA) the FP8 builtins declare; the scaled MFMAs take A and B as
v8int, FP8's 32 bytes bit-cast, FP4's and FP6's 32 codes packed by gemmc_fp4_operand
(gemmc.emit.fp4) and gemmc_fp6_operand (gemmc.emit.fp6).
The printers enter gemmc.emit.function_printer's table when this module is imported.
"""

from __future__ import annotations

from xdsl.dialects.builtin import VectorType, i32
from xdsl.ir import Operation, SSAValue

from gemmc.dialects.amdgpu import lanes_of, transfer_bytes, unsigned_operands
from gemmc.emit import fp4, fp6, int4
from gemmc.emit.c_text import Expr, call
from gemmc.emit.c_types import is_fp4, is_sub_byte
from gemmc.emit.function_printer import READ_ONLY_USERS, FunctionPrinter, op_printer
from gemmc.emit.ir_access import emit_error


@op_printer("amdgpu.mfma", "amdgpu.wmma", pure=True)
def _print_matrix(p: FunctionPrinter, op: Operation) -> None:
    arch = p.emitter.arch
    instr = op.instr_on(arch)
    if instr is None:
        m, n, k = op.shape
        raise emit_error(op, f"{arch.name} has no {op.name} {m}x{n}x{k} with "
                         f"{lanes_of(op.sourceA.type)[0]} inputs")
    if instr.formats:
        _print_unscaled_f8f6f4(p, op, instr)
        return
    args = [p.value(v) for v in op.operands]
    for v in op.operands:
        p.type_name(v.type, op)
    for i, v in enumerate(op.operands[:2]):
        if instr.in_bits == 4:  # iu4: the codes packed eight a VGPR (gemmc.emit.int4)
            n = lanes_of(v.type)[1]
            args[i] = call(p.emitter.helper(*int4.operand_helper(n)), args[i])
        elif instr.in_bits == 8:  # FP8 / i8 bytes: the builtins take them as an int (1 VGPR), a long
            # (MFMA's 2) or an int vector (WMMA's, gfx950's 16-byte i8 MFMAs)
            regs = instr.a_regs
            word = ("int" if regs == 1 else "long" if regs == 2 and op.name == "amdgpu.mfma"
                    else p.type_name(VectorType(i32, [regs]), op))
            args[i] = call("__builtin_bit_cast", Expr(word), args[i])
    if op.name == "amdgpu.mfma":
        args += [Expr(str(getattr(op, n).value.data if getattr(op, n) is not None else 0))
                 for n in ("cbsz", "abid", "blgp")]
    if instr.signedness:  # iu8 / iu4 WMMA: (a_signed, a, b_signed, b, c, clamp)
        ua, ub = unsigned_operands(op)
        args = [Expr(str(not ua).lower()), args[0], Expr(str(not ub).lower()), args[1], args[2]]
    args += [Expr(x) for x in instr.builtin_args]  # RDNA3's 16-bit accumulators: OPSEL; iu8: clamp
    p.define(op.results[0], call(instr.builtin, *args))


@op_printer("amdgpu.scaled_mfma", pure=True)
def _print_scaled_mfma(p: FunctionPrinter, op: Operation) -> None:
    """__builtin_amdgcn_mfma_scale_f32_*_f8f6f4(a, b, c, cbsz, blgp, op_sel_a, scale_a, op_sel_b,
    scale_b): A and B as the builtin's int vectors (8, 6 or 4 VGPRs), each scale VGPR an int."""
    arch = p.emitter.arch
    instr = op.instr_on(arch)
    if instr is None:
        m, n, k = op.shape
        raise emit_error(op, f"{arch.name} has no scaled MFMA {m}x{n}x{k}")
    for v in op.operands:
        p.type_name(v.type, op)
    a, b = (_operand(p, v, regs) for v, regs in ((op.sourceA, instr.a_regs), (op.sourceB, instr.b_regs)))
    sa, sb = (call("__builtin_bit_cast", Expr("int"), p.value(v)) for v in (op.scalesA, op.scalesB))
    ia, ib = op.scale_indices
    args = [a, b, p.value(op.destC), Expr(str(instr.cbsz)), Expr(str(instr.blgp)),
            Expr(str(ia)), sa, Expr(str(ib)), sb]
    p.define(op.results[0], call(instr.builtin, *args))


def _print_unscaled_f8f6f4(p: FunctionPrinter, op: Operation, instr) -> None:
    """gfx950's unscaled v_mfma_f32_*_f8f6f4 has no builtin of its own: its scaled builtin with
    op_sel and scales 0, which LLVM selects as the unscaled instruction (clang-22's ISA shows
    v_mfma_f32_32x32x64_f8f6f4; MLIR's AMDGPUToROCDL lowers an unscaled amdgpu.mfma the same way)."""
    scaled = instr.builtin.replace("mfma_f32_", "mfma_scale_f32_")
    for v in op.operands:
        p.type_name(v.type, op)
    a, b = (_operand(p, v, regs) for v, regs in ((op.sourceA, instr.a_regs), (op.sourceB, instr.b_regs)))
    zero = Expr("0")
    args = [a, b, p.value(op.destC), Expr(str(instr.cbsz)), Expr(str(instr.blgp)), zero, zero, zero, zero]
    p.define(op.results[0], call(scaled, *args))


def _operand(p: FunctionPrinter, v: SSAValue, regs: int) -> Expr:
    """A or B as the builtin's v8int: FP8's 32 bytes as they are, FP4's and FP6's codes packed first."""
    t = v.type.element_type
    if is_sub_byte(t):
        fmt = fp4 if is_fp4(t) else fp6
        return call(p.emitter.helper(fmt.OPERAND_HELPER_NAME, fmt.OPERAND_HELPER, fmt.OPERAND_HELPER_TYPES),
                    p.value(v))
    return call("__builtin_bit_cast", Expr(p.type_name(VectorType(i32, [regs]), None)), p.value(v))


@op_printer("amdgpu.gather_to_lds")
def _print_gather_to_lds(p: FunctionPrinter, op: Operation) -> None:
    n_src = len(op.srcIndices)
    src = p.unpacked(op.src, op).element([p.value(i) for i in op.operands[1 : 1 + n_src]])
    dst = p.memref(op.dst, op).element([p.value(i) for i in op.dstIndices])
    size = transfer_bytes(op.transferType)
    p.line(f"__builtin_amdgcn_global_load_lds((void*)&{src.text}, (void*)&{dst.text}, {size}, 0, 0);")


READ_ONLY_USERS.add("amdgpu.gather_to_lds")  # it reads its global operand
