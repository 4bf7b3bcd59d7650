"""The semantics of the vector ALU instructions but the matrix ones (VOP1, VOP2, VOP3, VOPC):
one value per lane, written in the lanes of EXEC.

BY_MNEMONIC and BY_PREFIX map an instruction to its handler (semantics.py has the protocol);
most are an element-wise function of the sources' 32-bit patterns, in INTEGER (the result's bits)
and FLOAT (an f32 result).
"""

from __future__ import annotations

import numpy as np

from gemmc.amdgcn.interp.scalar_alu import COMPARE
from gemmc.amdgcn.interp.state import M32, U32, U64


def f32(x):
    """32-bit patterns as f32."""
    return np.asarray(x, dtype=U32).view(np.float32)


def u(x):
    """32-bit patterns as u64, room for a carry or a product."""
    return np.asarray(x).astype(U64)


def v_perm_b32(s0, s1, sel):
    """v_perm_b32: byte b of D is byte sel_b of {S0, S1} (0-3: S1's, 4-7: S0's); 8-11: the sign
    of S1's (S0's) low or high half repeated, 12: 0x00, 13 and up: 0xFF (the CDNA3 ISA's table)."""
    s0, s1, sel = np.broadcast_arrays(s0, s1, sel)
    both = (s0 << U64(32)) | s1
    out = np.zeros(s0.shape, dtype=U64)
    for b in range(4):
        k = (sel >> U64(8 * b)) & U64(0xFF)
        byte = (both >> (U64(8) * np.minimum(k, U64(7)))) & U64(0xFF)
        signs = {8: (s1 >> U64(15)) & U64(1), 9: (s1 >> U64(31)) & U64(1),
                 10: (s0 >> U64(15)) & U64(1), 11: (s0 >> U64(31)) & U64(1)}
        for code, bit in signs.items():
            byte = np.where(k == U64(code), bit * U64(0xFF), byte)
        byte = np.where(k == U64(12), U64(0), np.where(k >= U64(13), U64(0xFF), byte))
        out |= byte << U64(8 * b)
    return out


_U24 = U64(0xFFFFFF)
_S31 = U64(31)
INTEGER = {
    "v_mov_b32": lambda a: a,
    "v_accvgpr_write_b32": lambda a: a,
    "v_accvgpr_read_b32": lambda a: a,
    "v_accvgpr_mov_b32": lambda a: a,
    "v_add_u32": lambda a, b: (u(a) + u(b)) & M32,
    "v_sub_u32": lambda a, b: (u(a) - u(b)) & M32,
    "v_mul_u32_u24": lambda a, b: ((u(a) & _U24) * (u(b) & _U24)) & M32,
    "v_lshlrev_b32": lambda a, b: (u(b) << (u(a) & _S31)) & M32,
    "v_lshrrev_b32": lambda a, b: u(b) >> (u(a) & _S31),
    "v_and_b32": lambda a, b: u(a) & u(b),
    "v_or_b32": lambda a, b: u(a) | u(b),
    "v_xor_b32": lambda a, b: u(a) ^ u(b),
    "v_max_u32": lambda a, b: np.maximum(u(a), u(b)),
    "v_min_u32": lambda a, b: np.minimum(u(a), u(b)),
    "v_mul_lo_u32": lambda a, b: (u(a) * u(b)) & M32,
    "v_mul_hi_u32": lambda a, b: (u(a) * u(b)) >> U64(32),
    "v_mad_u32_u24": lambda a, b, c: ((u(a) & _U24) * (u(b) & _U24) + u(c)) & M32,
    "v_lshl_add_u32": lambda a, b, c: ((u(a) << (u(b) & _S31)) + u(c)) & M32,
    "v_add_lshl_u32": lambda a, b, c: ((u(a) + u(b)) << (u(c) & _S31)) & M32,
    "v_lshl_or_b32": lambda a, b, c: ((u(a) << (u(b) & _S31)) | u(c)) & M32,
    "v_add3_u32": lambda a, b, c: (u(a) + u(b) + u(c)) & M32,
    "v_perm_b32": lambda a, b, c: v_perm_b32(u(a), u(b), u(c)),
    "v_bfe_u32": lambda a, b, c: (u(a) >> (u(b) & _S31)) & ((U64(1) << (u(c) & _S31)) - U64(1)),
    "v_cvt_f32_u32": lambda a: np.asarray(a).astype(np.float32).view(U32),
    # f16 in the low half, rounded to nearest even (numpy's cast); the high half zero
    "v_cvt_f16_f32": lambda a: f32(a).astype(np.float16).view(np.uint16).astype(U64),
    "v_pack_b32_f16": lambda a, b: ((u(b) & U64(0xFFFF)) << U64(16)) | (u(a) & U64(0xFFFF)),
    # the low half's f16, exactly
    "v_cvt_f32_f16": lambda a: (u(a) & U64(0xFFFF)).astype(np.uint16).view(np.float16).astype(np.float32).view(U32),
}

def i32(x):
    """32-bit patterns as signed values (int64)."""
    return (u(x).astype(np.int64) ^ 0x80000000) - 0x80000000


def _cvt_to_int(x, lo: int, hi: int):
    """f32 to an integer, truncated toward zero, saturated to [lo, hi], NaN to 0 (the ISA's
    V_CVT_U32_F32 / V_CVT_I32_F32)."""
    f = np.nan_to_num(np.trunc(f32(x).astype(np.float64)), nan=0.0, posinf=hi, neginf=lo)
    return np.clip(f, lo, hi).astype(np.int64).astype(U64) & M32


def _bits_of(fn):
    return lambda *a: np.asarray(fn(*a), np.float32).view(U32).astype(U64)


def _i24(x):
    """The low 24 bits as a signed value (int64): the i24 multiplies' sources (the bits above
    them dropped before the sign extension, which a -1 from v_bfe_i32 has set)."""
    return i32((u(x) << U64(8)) & M32) >> 8


def _bfe_i32(a, b, c):
    off, width = u(b) & _S31, u(c) & _S31
    field = (u(a) >> off) & ((U64(1) << width) - U64(1))
    sign = np.where(width > 0, (field >> np.maximum(width, U64(1)) - U64(1)) & U64(1), U64(0))
    return np.where(sign == 1, field | (M32 & ~((U64(1) << width) - U64(1))), field)


def _brev32(a):
    out = np.zeros(np.shape(a), U64)
    for i in range(32):
        out |= ((u(a) >> U64(i)) & U64(1)) << U64(31 - i)
    return out


def _scan_bits(a, leading: bool):
    """v_ffbh_u32 (leading zeros from bit 31) / v_ffbl_b32 (trailing zeros); -1 for 0."""
    out = np.full(np.shape(a), M32, U64)
    order = range(32) if leading else range(31, -1, -1)
    for i in order:
        out = np.where((u(a) >> U64(i)) & U64(1), U64(31 - i if leading else i), out)
    return out


# LLVM's VALU integer ops beyond gemmc's own (the CDNA3 / RDNA3 ISA guides' VOP1, VOP2, VOP3)
INTEGER.update({
    "v_ashrrev_i32": lambda a, b: (i32(b) >> (u(a) & _S31).astype(np.int64)).astype(U64) & M32,
    "v_max_i32": lambda a, b: np.where(i32(a) > i32(b), u(a), u(b)),
    "v_min_i32": lambda a, b: np.where(i32(a) < i32(b), u(a), u(b)),
    "v_subrev_u32": lambda a, b: (u(b) - u(a)) & M32,
    "v_mul_hi_u32_u24": lambda a, b: ((u(a) & _U24) * (u(b) & _U24)) >> U64(32),
    "v_mul_i32_i24": lambda a, b: ((_i24(a) * _i24(b)).astype(U64)) & M32,
    "v_mad_i32_i24": lambda a, b, c: ((_i24(a) * _i24(b) + i32(c)).astype(U64)) & M32,
    "v_bfrev_b32": _brev32,
    "v_not_b32": lambda a: ~u(a) & M32,
    "v_ffbh_u32": lambda a: _scan_bits(a, True),
    "v_ffbl_b32": lambda a: _scan_bits(a, False),
    "v_cvt_u32_f32": lambda a: _cvt_to_int(a, 0, 0xFFFFFFFF),
    "v_cvt_i32_f32": lambda a: _cvt_to_int(a, -(1 << 31), (1 << 31) - 1),
    "v_cvt_f32_i32": _bits_of(lambda a: i32(a).astype(np.float32)),
    **{f"v_cvt_f32_ubyte{k}": (lambda k: _bits_of(lambda a: ((u(a) >> U64(8 * k)) & U64(0xFF)).astype(np.float32)))(k)
       for k in range(4)},
    "v_and_or_b32": lambda a, b, c: (u(a) & u(b)) | u(c),
    "v_or3_b32": lambda a, b, c: u(a) | u(b) | u(c),
    "v_xor3_b32": lambda a, b, c: u(a) ^ u(b) ^ u(c),
    "v_xad_u32": lambda a, b, c: ((u(a) ^ u(b)) + u(c)) & M32,
    "v_bfe_i32": _bfe_i32,
    "v_bfi_b32": lambda a, b, c: (u(a) & u(b)) | (~u(a) & M32 & u(c)),
    "v_alignbit_b32": lambda a, b, c: (((u(a) << U64(32)) | u(b)) >> (u(c) & _S31)) & M32,
    "v_alignbyte_b32": lambda a, b, c: (((u(a) << U64(32)) | u(b)) >> (U64(8) * (u(c) & U64(3)))) & M32,
    "v_max3_i32": lambda a, b, c: np.maximum(np.maximum(i32(a), i32(b)), i32(c)).astype(U64) & M32,
    "v_min3_i32": lambda a, b, c: np.minimum(np.minimum(i32(a), i32(b)), i32(c)).astype(U64) & M32,
    # the high 32 bits of the signed 64-bit product (exact in int64: |a b| <= 2^62)
    "v_mul_hi_i32": lambda a, b: ((i32(a) * i32(b)) >> 32).astype(U64) & M32,
    "v_med3_i32": lambda a, b, c: np.median(np.stack(np.broadcast_arrays(i32(a), i32(b), i32(c))), axis=0)
                                    .astype(np.int64).astype(U64) & M32,
})

FLOAT = {
    "v_add_f32": lambda a, b: f32(a) + f32(b),
    "v_sub_f32": lambda a, b: f32(a) - f32(b),
    "v_mul_f32": lambda a, b: f32(a) * f32(b),
    "v_max_f32": lambda a, b: max_num(a, b, True),
    "v_min_f32": lambda a, b: max_num(a, b, False),
    # fused: the f32 product is exact in float64, the sum rounded once more to f32
    "v_fma_f32": lambda a, b, c: (f32(a).astype(np.float64) * f32(b) + f32(c)).astype(np.float32),
    "v_fmac_f32": lambda a, b, c: (f32(a).astype(np.float64) * f32(b) + f32(c)).astype(np.float32),
    "v_subrev_f32": lambda a, b: f32(b) - f32(a),
    # the hardware's reciprocal is within 1 ULP; LLVM's integer division refines it and
    # corrects the quotient, so the exact f32 reciprocal gives the same quotients
    "v_rcp_f32": lambda a: np.float32(1.0) / f32(a),
    "v_rcp_iflag_f32": lambda a: np.float32(1.0) / f32(a),
    "v_trunc_f32": lambda a: np.trunc(f32(a)),
    "v_floor_f32": lambda a: np.floor(f32(a)),
    "v_max_num_f32": lambda a, b: np.fmax(f32(a), f32(b)),
    "v_min_num_f32": lambda a, b: np.fmin(f32(a), f32(b)),
    "v_max3_f32": lambda a, b, c: np.maximum(np.maximum(f32(a), f32(b)), f32(c)),
    "v_min3_f32": lambda a, b, c: np.minimum(np.minimum(f32(a), f32(b)), f32(c)),
    "v_med3_f32": lambda a, b, c: np.median(np.stack(np.broadcast_arrays(f32(a), f32(b), f32(c))), axis=0),
    "v_maximum_f32": lambda a, b: maximum(a, b),
    "v_minimum_f32": lambda a, b: minimum(a, b),
    "v_maximum3_f32": lambda a, b, c: maximum(_bits(maximum(a, b)), c),
    "v_minimum3_f32": lambda a, b, c: minimum(_bits(minimum(a, b)), c),
    # gfx12: D = minimum(maximum(S0, S1), S2) and the other way round (RDNA4 ISA guide, "VOP3")
    "v_maximumminimum_f32": lambda a, b, c: minimum(_bits(maximum(a, b)), c),
    "v_minimummaximum_f32": lambda a, b, c: maximum(_bits(minimum(a, b)), c),
    "v_exp_f32": lambda a: _exp2(a),
    "v_ldexp_f32": lambda a, n: _ldexp(a, n),
    # V_RNDNE_F32 (VOP1): round to the nearest integer, ties to even; inf, NaN and -0 kept
    "v_rndne_f32": lambda a: np.rint(f32(a)),
    # VOP2 with a literal: the fma of the operands in their printed order (fmamk S0 * K + S1,
    # fmaak S0 * S1 + K), rounded once as v_fma_f32
    "v_fmamk_f32": lambda a, b, c: (f32(a).astype(np.float64) * f32(b) + f32(c)).astype(np.float32),
    "v_fmaak_f32": lambda a, b, c: (f32(a).astype(np.float64) * f32(b) + f32(c)).astype(np.float32),
}


# -- the fused epilogues' f32 math (exp, erf, tanh as LLVM lowers them) ------------------------------


def _exp2(a):
    """v_exp_f32: D = 2^S0 (CDNA3 ISA guide, "VOP1 Instructions", V_EXP_F32; RDNA3 the same).
    The hardware is within 1 ULP; here it is exact 2^x rounded once to f32 (float64's exp2 is
    within a float64 ULP, 2^-29 of an f32 ULP, so its f32 rounding is 2^x's), -inf to +0, +inf
    to +inf, NaN to NaN.
    Denormal results are kept, not flushed: LLVM's expansion never asks for one (it adds 64 to
    an argument below -126 and scales the result by v_ldexp_f32 after), so its code computes the
    same either way."""
    with np.errstate(over="ignore"):  # past 2^128 the result is +inf, as the hardware's
        return np.exp2(f32(a).astype(np.float64)).astype(np.float32)


def _ldexp(a, n):
    """v_ldexp_f32: D = S0 * 2^S1, S1 a signed 32-bit integer (CDNA3 ISA guide, "VOP3A
    Instructions", V_LDEXP_F32), rounded once to f32: overflow to inf, underflow through the
    denormals to a signed 0; NaN, inf and 0 kept.  The exponent is clipped to +-400, past which
    every f32 over- or underflows alike, so that the float64 product stays exact."""
    k = np.clip(i32(n), -400, 400)
    return np.ldexp(f32(a).astype(np.float64), k).astype(np.float32)


def _bf16_rne(a):
    """f32 to bf16 bits, rounded to nearest even; a NaN stays a NaN (quietened)."""
    bits = u(a) & M32
    rounded = (bits + U64(0x7FFF) + ((bits >> U64(16)) & U64(1))) >> U64(16)
    return np.where(np.isnan(f32(a)), (bits >> U64(16)) | U64(0x40), rounded) & U64(0xFFFF)


def maximum(a, b):
    """IEEE 754-2019 maximum (gfx950's V_MAXIMUM3_F32, gfx12's V_MAXIMUM_F32: CDNA4 ISA guide
    "VOP3", RDNA4 ISA guide "VOP3"): NaN if either is NaN (quietened), +0 above -0."""
    a, b = f32(a), f32(b)
    r = np.where((a > b) | ((a == b) & ~np.signbit(a)), a, b)
    return np.where(np.isnan(a) | np.isnan(b), np.float32(np.nan), r)


def minimum(a, b):
    """IEEE 754-2019 minimum: NaN if either is NaN, -0 below +0."""
    a, b = f32(a), f32(b)
    r = np.where((a < b) | ((a == b) & np.signbit(a)), a, b)
    return np.where(np.isnan(a) | np.isnan(b), np.float32(np.nan), r)


def _signaling(x):
    return np.isnan(x) & ((x.view(U32) & U32(0x400000)) == 0)


def max_num(a, b, larger: bool):
    """V_MAX_F32 / V_MIN_F32 in IEEE mode (the mode LLVM's kernels run in; CDNA3 ISA guide, "VOP2
    Instructions"): a signaling NaN source gives itself quietened, a quiet NaN source the other
    source; else the larger (smaller), +0 above -0."""
    a, b = f32(a), f32(b)
    both = maximum(a.view(U32), b.view(U32)) if larger else minimum(a.view(U32), b.view(U32))
    r = np.where(np.isnan(a), b, np.where(np.isnan(b), a, both))
    quiet = lambda x: (x.view(U32) | U32(0x400000)).view(np.float32)  # noqa: E731
    return np.where(_signaling(a), quiet(a), np.where(_signaling(b), quiet(b), r))


def _bits(x):
    return np.asarray(x, np.float32).view(U32)


INTEGER["v_cvt_pk_bf16_f32"] = lambda a, b: (_bf16_rne(b) << U64(16)) | _bf16_rne(a)  # gfx950, VOP3


def _integer(S, op):
    fn, srcs, d0 = INTEGER[op.MNEMONIC], list(op.srcs), op.dsts[0].type
    _no_modifiers(S, op, ("neg", "abs", "clamp", "omod"))
    halves = [op.mods.get(f"src{i}_half", -1) for i in range(len(srcs))]
    dhalf = op.mods.get("dst_half", -1)

    def body(act, tgt):
        r = np.broadcast_to(np.asarray(fn(*[true16_source(S.rd_v(s), h) for s, h in zip(srcs, halves)])).astype(U32),
                            (S.W, S.L))
        if dhalf >= 0:  # true16: the result's 16 bits into the half D names, the other half kept
            shift = U32(16 * dhalf)
            r = (S.V[d0.first] & ~(U32(0xFFFF) << shift)) | ((r & U32(0xFFFF)) << shift)
        S.wr_v(d0, [r], act)
    return body


def true16_source(x, half: int):
    """A source as the op reads it: gfx11+'s `v1.h` is the high half in the low 16 bits."""
    if half < 0:
        return x
    return (np.asarray(x, U32) >> U32(16 * half)) & U32(0xFFFF)


def _no_modifiers(S, op, names) -> None:
    """An error for a modifier of `names` on op: its handler does not compute it."""
    for k in names:
        if op.mods.get(k):
            raise S.error(op, f"the modifier {k} of {op.MNEMONIC} is not supported")


def float_sources(S, op, srcs):
    """The sources as f32, with the input modifiers (abs, then neg: a bit per source)."""
    neg, ab = op.mods.get("neg", 0), op.mods.get("abs", 0)
    out = []
    for i, s in enumerate(srcs):
        x = f32(S.rd_v(s))
        if ab >> i & 1:
            x = np.abs(x)
        if neg >> i & 1:
            x = -x
        out.append(x.view(U32) if (ab | neg) >> i & 1 else S.rd_v(s))
    return out


def _float(S, op):
    fn, srcs, d0 = FLOAT[op.MNEMONIC], list(op.srcs), op.dsts[0].type
    _no_modifiers(S, op, ("omod",))
    clamp = op.mods.get("clamp", 0)

    def body(act, tgt):
        r = np.asarray(fn(*float_sources(S, op, srcs)), dtype=np.float32)
        if clamp:  # to [0, 1], NaN to 0
            r = np.clip(np.nan_to_num(r, nan=0.0), 0.0, 1.0).astype(np.float32)
        S.wr_v(d0, [np.broadcast_to(r.view(U32), (S.W, S.L))], act)
    return body


# The f32 conditions of VOPC (CDNA3 ISA guide, "VOPC Instructions": V_CMP_{F,LT,EQ,LE,GT,LG,GE,O,
# U,NGE,NLG,NGT,NLE,NEQ,NLT,TRU}_F32): the ordered ones false where either source is NaN, the N
# ones their negations, so true there (nlt = !(a < b)); neq is !(a == b), lg (a < b) | (a > b).
F32_COMPARE = {
    **{cc: COMPARE[cc] for cc in ("lt", "eq", "le", "gt", "ge", "o", "u")},
    "lg": lambda a, b: (a < b) | (a > b),
    "neq": lambda a, b: ~(a == b), "nlt": lambda a, b: ~(a < b), "nle": lambda a, b: ~(a <= b),
    "ngt": lambda a, b: ~(a > b), "nge": lambda a, b: ~(a >= b), "nlg": lambda a, b: ~((a < b) | (a > b)),
}


def _cmp(S, op):
    """v_cmp_<cc>_<type>: the lanes where S0 cc S1, as a mask in D (an SGPR pair, VCC, or EXEC
    for v_cmpx); f32 sources take the abs / neg modifiers."""
    _, _, cc, ty = op.MNEMONIC.split("_")
    table = F32_COMPARE if ty == "f32" else COMPARE
    cc = cc if ty == "f32" else {"ne": "lg"}.get(cc, cc)
    a_src, b_src, d0 = op.srcs[0], op.srcs[1], op.dsts[0].type

    def body(act, tgt):
        a, b = float_sources(S, op, [a_src, b_src]) if ty == "f32" else (S.rd_v(a_src), S.rd_v(b_src))
        if ty == "i32":
            a, b = np.asarray(a, U32).view(np.int32), np.asarray(b, U32).view(np.int32)
        elif ty == "f32":
            a, b = f32(a), f32(b)
        r = np.broadcast_to(table[cc](a, b), (S.W, S.L))
        S.wr_s64(d0, S.mask_of_lanes(r, act), act)
    return body


def _cndmask(S, op):
    """D = S1 in the lanes of the mask S2, else S0."""
    srcs, d0 = op.srcs, op.dsts[0].type

    def body(act, tgt):
        sel = S.lanes_of_mask(S.rd_scalar64(srcs[2]))
        r = np.where(sel, S.rd_v(srcs[1]), S.rd_v(srcs[0]))
        S.wr_v(d0, [r], act)
    return body


def _mad_u64_u32(S, op):
    """D (64 bits) = S0 * S1 + S2 (64 bits)."""
    srcs, d0 = op.srcs, op.dsts[0].type

    def body(act, tgt):
        a, b = u(S.rd_v(srcs[0])), u(S.rd_v(srcs[1]))
        c = S.rd_v64(srcs[2])
        r = (a * b + c) & U64(0xFFFFFFFFFFFFFFFF)
        r = np.broadcast_to(r, (S.W, S.L))
        S.wr_v(d0, [(r & M32).astype(U32), (r >> U64(32)).astype(U32)], act)
    return body


def _readfirstlane(S, op):
    """The SGPR D = S0 in the first lane of EXEC."""
    src, d0 = op.srcs[0], op.dsts[0].type

    def body(act, tgt):
        first = np.argmax(S.lanes, axis=1)
        val = np.broadcast_to(S.rd_v(src), (S.W, S.L))[np.arange(S.W), first]
        S.wr_s(d0, [val], act)
    return body


def _lane_of(S, v) -> np.ndarray:
    """The lane a v_readlane / v_writelane names (an SGPR or a constant), per wave, mod the wave size."""
    return np.broadcast_to(S.rd_v(v), (S.W, 1))[:, 0].astype(np.int64) % S.L


def _readlane(S, op):
    """The SGPR D = S0 in the lane S1 names, whatever EXEC holds."""
    src, lane_src, d0 = op.srcs[0], op.srcs[1], op.dsts[0].type

    def body(act, tgt):
        val = np.broadcast_to(S.rd_v(src), (S.W, S.L))[np.arange(S.W), _lane_of(S, lane_src)]
        S.wr_s(d0, [val], act)
    return body


def _writelane(S, op):
    """D's lane S1 = the scalar S0, whatever EXEC holds; D's other lanes kept."""
    val_src, lane_src, d0 = op.srcs[0], op.srcs[1], op.dsts[0].type

    def body(act, tgt):
        w = np.nonzero(act)[0]
        val = np.broadcast_to(S.rd_v(val_src), (S.W, 1))[:, 0]
        S.V[d0.first][w, _lane_of(S, lane_src)[w]] = np.asarray(val, U32)[w]
    return body


def _bitop3(S, op):
    """v_bitop3_b32 and _b16 (gfx950): bit i of D = bit (S0[i] << 2 | S1[i] << 1 | S2[i]) of the
    8-bit truth table `bitop3` (LLVM's BitOp3_Op: S0, S1, S2 are the table's 0xf0, 0xcc, 0xaa).
    _b16 reads the sources' low halves and writes D's low half, the high half zero, as gfx9's
    other 16-bit ops here (LLVM assumes neither kept nor zeroed high bits: zeroesHigh16BitsOfDest
    does not list it); op_sel, which would pick other halves, is refused."""
    srcs, d0, table = list(op.srcs), op.dsts[0].type, op.mods.get("bitop3", 0)
    if op.mods.get("op_sel"):
        raise S.error(op, f"op_sel on {op.MNEMONIC} is not supported")
    mask = U64(0xFFFF) if op.MNEMONIC == "v_bitop3_b16" else M32

    def body(act, tgt):
        a, b, c = (u(np.broadcast_to(S.rd_v(s), (S.W, S.L))) & mask for s in srcs)
        out = np.zeros((S.W, S.L), U64)
        for idx in range(8):
            if table >> idx & 1:
                ma = a if idx & 4 else ~a & mask
                mb = b if idx & 2 else ~b & mask
                mc = c if idx & 1 else ~c & mask
                out |= ma & mb & mc
        S.wr_v(d0, [out.astype(U32)], act)
    return body


def _mbcnt(S, op):
    """v_mbcnt_lo_u32_b32 / _hi: D = S1 + the set bits of the 32-bit mask S0 below the lane
    (lo: S0 is lanes 0-31's half of a mask; hi: lanes 32-63's)."""
    srcs, d0, hi = op.srcs, op.dsts[0].type, op.MNEMONIC == "v_mbcnt_hi_u32_b32"

    def body(act, tgt):
        mask = u(np.broadcast_to(S.rd_v(srcs[0]), (S.W, S.L)))
        lane = np.arange(S.L, dtype=np.int64) - (32 if hi else 0)
        below = np.clip(lane, 0, 32).astype(U64)
        keep = np.where(below >= U64(32), M32, (U64(1) << below) - U64(1))
        bits = mask & keep
        count = np.zeros((S.W, S.L), U64)
        for i in range(32):
            count += (bits >> U64(i)) & U64(1)
        r = (count + u(np.broadcast_to(S.rd_v(srcs[1]), (S.W, S.L)))) & M32
        S.wr_v(d0, [r.astype(U32)], act)
    return body


BY_MNEMONIC = {
    "v_mbcnt_lo_u32_b32": _mbcnt,
    "v_mbcnt_hi_u32_b32": _mbcnt,
    "v_bitop3_b32": _bitop3,
    "v_bitop3_b16": _bitop3,
    **dict.fromkeys(INTEGER, _integer),
    **dict.fromkeys(FLOAT, _float),
    "v_cndmask_b32": _cndmask,
    "v_mad_u64_u32": _mad_u64_u32,
    "v_readfirstlane_b32": _readfirstlane,
    "v_readlane_b32": _readlane,
    "v_writelane_b32": _writelane,
}
BY_PREFIX = {"v_cmp_": _cmp, "v_cmpx_": _cmp}
