"""Selection of f32 arithmetic and of the conversions between f32 and f16 / bf16.

addf / mulf / subf and math.fma are VALU (constants folded in f32, as the GPU computes them).
truncf rounds to nearest even: to f16 by v_cvt_f16_f32 (a vector packed two to a VGPR by
v_pack_b32_f16), to bf16 by integer rounding at bit 16 (NaN kept quiet) and the upper halves
put together; extf widens exactly.  No FP8 conversion is selected (refused).
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects import arith, math as xmath
from xdsl.dialects.builtin import BFloat16Type, Float16Type, Float32Type, VectorType
from xdsl.ir import Operation, SSAValue

from gemmc.amdgcn.lowering.elements import fp8_name, half_bits, half_value
from gemmc.amdgcn.lowering.ranges import RegisterRanges
from gemmc.amdgcn.values import E8, F, H, Packed, Vec


class FloatOps(RegisterRanges):
    def _float_binary(self, op: Operation) -> None:
        x, y = self.fval(op.operands[0], op), self.fval(op.operands[1], op)
        if x.reg is None and y.reg is None:
            import numpy as np

            a, b = np.float32(x.const), np.float32(y.const)
            r = {arith.AddfOp: a + b, arith.MulfOp: a * b, arith.SubfOp: a - b}[type(op)]  # type: ignore[index]
            self.env[op.results[0]] = F(const=float(r))
            return
        if isinstance(op, arith.AddfOp):
            self.env[op.results[0]] = F(self.vop2("v_add_f32", self.fmat(x), self.fmat(y), True))
        elif isinstance(op, arith.MulfOp):
            self.env[op.results[0]] = F(self.vop2("v_mul_f32", self.fmat(x), self.fmat(y), True))
        elif isinstance(op, arith.SubfOp):
            self.env[op.results[0]] = F(self.e1("v_sub_f32", [self.fmat(x), self.fvgpr(y)], self.V()))
        else:
            raise self.error(op, f"cannot select instructions for '{op.name}'")

    def _fma(self, op: xmath.FmaOp) -> None:
        a, b, c = (self.fval(v, op) for v in op.operands)
        srcs = [self.fmat(a), self.fmat(b), self.fmat(c)]
        self.env[op.results[0]] = F(self.vop3("v_fma_f32", srcs))

    def _truncf(self, op: arith.TruncFOp) -> None:
        """f32 vector -> f16 or bf16 vector, packed two per VGPR, rounded to nearest even as
        arith.truncf rounds."""
        src, t = self.env.get(op.input), op.result.type
        if fp8_name(t) is not None:
            raise self.error(op, f"truncf to {t} is not selected (no f32 -> FP8 conversion: neither "
                                 "v_cvt_pk_fp8_f32 nor the HIP's software rounding, gemmc/emit/fp8_soft.py); "
                                 "FP8 fragments are read from FP8 buffers")
        if isinstance(src, F) and isinstance(t, (Float16Type, BFloat16Type)):
            self.env[op.result] = self._round_to_half(src, t)
            return
        if not (isinstance(src, Vec) and src.n % 2 == 0 and isinstance(t, VectorType)
                and isinstance(t.element_type, (Float16Type, BFloat16Type))):
            raise self.error(op, f"truncf to {t} is not selected; only f32 vectors of even length to f16 or bf16 are")
        pack = self.pack_f16 if isinstance(t.element_type, Float16Type) else self.pack_bf16
        elems = self.vec_elems(src)
        self.env[op.result] = Packed(src.n, tuple(pack(lo, hi) for lo, hi in zip(elems[::2], elems[1::2])))

    def _round_to_half(self, x: F, t: Float16Type | BFloat16Type) -> H:
        """An f32 rounded to f16 (v_cvt_f16_f32) or bf16 (integer rounding, the upper half
        shifted down), to nearest even, in the low half of a VGPR (C stored as f16 / bf16)."""
        if x.reg is None:
            return H(bits=half_bits(float(x.const), t))  # type: ignore[arg-type]
        if isinstance(t, Float16Type):
            return H(self.e1("v_cvt_f16_f32", [self.fmat(x)], self.V()))
        return H(self.vop2("v_lshrrev_b32", self.const(16), self.round_bf16(x), False))

    def _extf(self, op: arith.ExtFOp) -> None:
        """f16 (v_cvt_f32_f16) or bf16 (its bits in the upper half) -> f32, exactly."""
        x, t = self.env.get(op.input), op.input.type
        if isinstance(x, E8) or isinstance(x, Packed) and x.elem_bytes == 1:
            raise self.error(op, f"extf of {t} to {op.result.type} is not selected (FP8 values reach the matrix "
                                 "instructions only; use a pipeline with matrix-cores, or the HIP path)")
        if not isinstance(x, H) or op.result.type != Float32Type():
            raise self.error(op, f"extf of {t} to {op.result.type} is not selected; f16 and bf16 to f32 are")
        if x.reg is None:
            self.env[op.result] = F(const=half_value(x.bits, t))  # type: ignore[arg-type]
        elif isinstance(t, Float16Type):
            self.env[op.result] = F(self.e1("v_cvt_f32_f16", [self.low_half(x)], self.V()))
        elif x.high:  # a bf16 in the high half is that f32 with its low bits cleared
            self.env[op.result] = F(self.vop2("v_and_b32", self.const(0xFFFF0000), x.reg, True))
        else:
            self.env[op.result] = F(self.vop2("v_lshlrev_b32", self.const(16), x.reg, False))

    def pack_f16(self, lo: F, hi: F) -> SSAValue:
        if lo.reg is None and hi.reg is None:
            import numpy as np

            bits = np.array([lo.const, hi.const], np.float32).astype(np.float16).view(np.uint32)[0]
            return self.to_vgpr(self.const(int(bits)))
        halves = [self.e1("v_cvt_f16_f32", [self.fmat(x)], self.V()) for x in (lo, hi)]
        return self.vop3("v_pack_b32_f16", halves)

    def pack_bf16(self, lo: F, hi: F) -> SSAValue:
        """Each f32 rounded to bf16 in its upper half, then lo's upper half below hi's."""
        if lo.reg is None and hi.reg is None:
            import numpy as np

            from gemmc.support.arith_semantics import to_bf16

            halves = to_bf16(np.array([lo.const, hi.const], np.float32)).view(np.uint32) >> np.uint32(16)
            return self.to_vgpr(self.const(int(halves[0] | halves[1] << np.uint32(16))))
        rlo, rhi = self.round_bf16(lo), self.round_bf16(hi)
        low = self.vop2("v_lshrrev_b32", self.const(16), rlo, False)
        high = self.vop2("v_and_b32", self.const(0xFFFF0000), rhi, True)
        return self.vop2("v_or_b32", low, high, True)

    def round_bf16(self, x: F) -> SSAValue:
        """x's f32 bits rounded at bit 16 to nearest even (+ 0x7fff + the lowest kept bit);
        a NaN stays a NaN, made quiet (| 0x400000), as LLVM's expansion does."""
        u = self.fvgpr(x)
        lsb = self.vop3("v_bfe_u32", [u, self.const(16), self.const(1)])
        rounded = self.vop3("v_add3_u32", [u, self.const(0x7FFF), lsb])
        quiet = self.vop2("v_or_b32", self.const(0x400000), u, True)
        nan = self.vop3("v_cmp_u_f32", [u, u], self.S(self.mask_n))
        return self.e1("v_cndmask_b32", [rounded, quiet, nan], self.V())


FLOAT_OPS: dict[type, Callable] = {
    arith.AddfOp: FloatOps._float_binary, arith.MulfOp: FloatOps._float_binary, arith.SubfOp: FloatOps._float_binary,
    xmath.FmaOp: FloatOps._fma, arith.TruncFOp: FloatOps._truncf, arith.ExtFOp: FloatOps._extf,
}
"""The handlers of f32 arithmetic and conversions, by op class."""
