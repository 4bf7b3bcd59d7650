"""The semantics of the VALU forms LLVM's backend uses beyond a plain 32-bit result: carries
(v_add_co_u32 and its carry-in and borrow kinds, the carry a lane mask), 64-bit moves and
shifts, SDWA (gfx9: a 32-bit op on selected bytes or words), 16-bit ops (gfx9: the low half,
the high half zero; gfx11+'s true16: the named half, the other half kept) and VOP3P's packed
f32 ops (two lanes of 32 bits, op_sel / op_sel_hi choosing each source's half).

BY_MNEMONIC maps an instruction to its handler (semantics.py has the protocol).  Sources: the
AMD Instinct MI300 (CDNA3) ISA guide's VOP2 / VOP3 / SDWA / VOP3P chapters and the RDNA3 ISA
guide's true16 operands (docs/amdgcn-asm.md).
"""

from __future__ import annotations

import numpy as np

from gemmc.amdgcn.interp.scalar_alu import COMPARE
from gemmc.amdgcn.interp.state import M32, U32, U64
from gemmc.amdgcn.interp.vector_alu import FLOAT, INTEGER, f32, u
from gemmc.dialects.amdgcn.registers import ImmType

_M64 = U64(0xFFFFFFFFFFFFFFFF)


def _carry(S, op):
    """D = S0 + S1 (+ carry-in), the carry-out a lane mask (sub: the borrow; subrev: S1 - S0)."""
    m, srcs, d0, dmask = op.MNEMONIC, list(op.srcs), op.dsts[0].type, op.dsts[1].type
    rev, sub = "subrev" in m or "subbrev" in m, "sub" in m

    def body(act, tgt):
        a, b = u(np.broadcast_to(S.rd_v(srcs[0]), (S.W, S.L))), u(np.broadcast_to(S.rd_v(srcs[1]), (S.W, S.L)))
        if rev:
            a, b = b, a
        c = S.lanes_of_mask(S.rd_scalar64(srcs[2])).astype(U64) if len(srcs) > 2 else U64(0)
        if sub:
            r = (a - b - c) & M32
            out = (b + c) > a
        else:
            r = a + b + c
            out = r > M32
        S.wr_v(d0, [(r & M32).astype(U32)], act)
        S.wr_s64(dmask, S.mask_of_lanes(out, act), act)
    return body


def _mov64(S, op):
    src, d0 = op.srcs[0], op.dsts[0].type

    def body(act, tgt):
        r = np.broadcast_to(S.rd_v64(src), (S.W, S.L))
        S.wr_v(d0, [(r & M32).astype(U32), (r >> U64(32)).astype(U32)], act)
    return body


def _shift64(S, op):
    """v_lshlrev_b64 / v_lshrrev_b64: D = S1 shifted by S0[5:0]."""
    n_src, x_src, d0, left = op.srcs[0], op.srcs[1], op.dsts[0].type, op.MNEMONIC == "v_lshlrev_b64"

    def body(act, tgt):
        n = u(S.rd_v(n_src)) & U64(63)
        x = S.rd_v64(x_src)
        r = np.broadcast_to(((x << n) if left else (x >> n)) & _M64, (S.W, S.L))
        S.wr_v(d0, [(r & M32).astype(U32), (r >> U64(32)).astype(U32)], act)
    return body


def _lshl_add64(S, op):
    """v_lshl_add_u64: D = (S0 << S1[2:0]) + S2, 64 bits (gfx942+)."""
    a_src, n_src, c_src, d0 = op.srcs[0], op.srcs[1], op.srcs[2], op.dsts[0].type

    def body(act, tgt):
        n = u(S.rd_v(n_src)) & U64(7)
        r = np.broadcast_to(((S.rd_v64(a_src) << n) + S.rd_v64(c_src)) & _M64, (S.W, S.L))
        S.wr_v(d0, [(r & M32).astype(U32), (r >> U64(32)).astype(U32)], act)
    return body


# -- SDWA ----------------------------------------------------------------------------------------

_SEL_SHIFT = {0: 0, 1: 8, 2: 16, 3: 24, 4: 0, 5: 16, 6: 0}
_SEL_BITS = {0: 8, 1: 8, 2: 8, 3: 8, 4: 16, 5: 16, 6: 32}


def _select(x, sel: int, signed: bool):
    """The byte or word `sel` of x, zero- or sign-extended to 32 bits."""
    shift, bits = _SEL_SHIFT[sel], _SEL_BITS[sel]
    if bits == 32:
        return u(x)
    v = (u(x) >> U64(shift)) & U64((1 << bits) - 1)
    if signed:
        v = np.where(v >> U64(bits - 1), v | (M32 & ~U64((1 << bits) - 1)), v)
    return v


def _sdwa(S, op):
    """op_sdwa: the base op on the selected parts of its sources, its result placed into the
    selected part of D; the rest of D zero (UNUSED_PAD), the result's sign (UNUSED_SEXT) or
    D's old bits (UNUSED_PRESERVE)."""
    base = op.MNEMONIC.removesuffix("_sdwa")
    mods, srcs, d0 = op.mods, list(op.srcs), op.dsts[0].type
    fn = INTEGER.get(base)
    if base in _OPS16:  # a 16-bit op (gfx9's v_add_u16_sdwa, in clang's packing of 4-bit codes): 16 bits
        fn = (lambda f: lambda *xs: f(*xs) & U64(0xFFFF))(_OPS16[base])
    is_float = fn is None
    if base == "v_cndmask_b32":  # the mask (VCC) read whole, not selected
        mask = srcs.pop()
        fn, is_float = (lambda a, b: np.where(S.lanes_of_mask(S.rd_scalar64(mask)), b, a)), False
    elif is_float:
        fn = FLOAT[base]
    for k in ("neg", "abs", "clamp"):
        if mods.get(k):
            raise S.error(op, f"the modifier {k} of {op.MNEMONIC} is not supported")
    sels = [mods.get(f"src{i}_sel", 6) for i in range(len(srcs))]
    sext = mods.get("sext", 0)
    dsel, unused = mods.get("dst_sel", 6), mods.get("dst_unused", 0)

    def body(act, tgt):
        vals = [_select(np.broadcast_to(S.rd_v(s), (S.W, S.L)), sel, bool(sext >> i & 1))
                for i, (s, sel) in enumerate(zip(srcs, sels))]
        r = fn(*vals)
        r = np.asarray(r, np.float32).view(U32).astype(U64) if is_float else u(r) & M32
        shift, bits = _SEL_SHIFT[dsel], _SEL_BITS[dsel]
        field = U64(((1 << bits) - 1) << shift)
        placed = (r << U64(shift)) & field
        if unused == 2:
            old = u(S.V[d0.first])
            out = (old & ~field & M32) | placed
        elif unused == 1 and bits < 32:
            sign = (r >> U64(bits - 1)) & U64(1)
            out = placed | np.where(sign == 1, M32 & ~U64((1 << (shift + bits)) - 1), U64(0))
        else:
            out = placed
        S.wr_v(d0, [out.astype(U32)], act)
    return body


def _cmp_sdwa(S, op):
    """v_cmp_<cc>_<u32|i32>_sdwa (gfx9 VOPC SDWA): the lanes where the selected part of S0 cc
    the selected part of S1 (zero-extended, or sign-extended where `sext` sets the source's bit;
    i32 compares the extended values as signed), as a mask in D (VCC or an SGPR pair)."""
    _, _, cc, ty, _ = op.MNEMONIC.split("_")
    cc = {"ne": "lg"}.get(cc, cc)
    srcs, d0, mods = list(op.srcs), op.dsts[0].type, op.mods
    sels = [mods.get(f"src{i}_sel", 6) for i in range(2)]
    sext = mods.get("sext", 0)

    def body(act, tgt):
        a, b = (_select(np.broadcast_to(S.rd_v(s), (S.W, S.L)), sel, bool(sext >> i & 1))
                for i, (s, sel) in enumerate(zip(srcs, sels)))
        a, b = a.astype(U32), b.astype(U32)
        if ty == "i32":
            a, b = a.view(np.int32), b.view(np.int32)
        S.wr_s64(d0, S.mask_of_lanes(np.broadcast_to(COMPARE[cc](a, b), (S.W, S.L)), act), act)
    return body


# -- 16 bits ---------------------------------------------------------------------------------

_OPS16 = {
    "v_lshlrev_b16": lambda a, b: b << (a & U64(15)),
    "v_lshrrev_b16": lambda a, b: b >> (a & U64(15)),
    "v_add_u16": lambda a, b: a + b,
    "v_sub_u16": lambda a, b: a - b,
    "v_mul_lo_u16": lambda a, b: a * b,
    "v_and_b16": lambda a, b: a & b,
    "v_or_b16": lambda a, b: a | b,
    "v_mov_b16": lambda a: a,
}


def _op16(S, op):
    """A 16-bit op: each source's low half (true16: the half it names), the result's 16 bits
    into D's low half with the high half zero (gfx9), or into the half D names (the other kept)."""
    fn, srcs, d0, mods = _OPS16[op.MNEMONIC], list(op.srcs), op.dsts[0].type, op.mods
    if mods.get("op_sel"):
        raise S.error(op, f"op_sel on {op.MNEMONIC} is not supported")
    halves = [mods.get(f"src{i}_half", 0) for i in range(len(srcs))]
    dhalf = mods.get("dst_half", -1)

    def body(act, tgt):
        vals = [(u(np.broadcast_to(S.rd_v(s), (S.W, S.L))) >> U64(16 * h)) & U64(0xFFFF) for s, h in zip(srcs, halves)]
        r = u(fn(*vals)) & U64(0xFFFF)
        if dhalf < 0:
            out = r
        else:
            old = u(S.V[d0.first])
            out = (old & ~U64(0xFFFF << (16 * dhalf)) & M32) | (r << U64(16 * dhalf))
        S.wr_v(d0, [out.astype(U32)], act)
    return body


# -- VOP3P packed f32 ------------------------------------------------------------------------

_PACKED = {
    "v_pk_fma_f32": lambda a, b, c: (a.astype(np.float64) * b + c).astype(np.float32),
    "v_pk_mul_f32": lambda a, b: a * b,
    "v_pk_add_f32": lambda a, b: a + b,
}


def _packed(S, op):
    """v_pk_*_f32: D.lo = f(S.lo or .hi as op_sel says), D.hi = f(as op_sel_hi says); neg_lo /
    neg_hi negate a source of that half.  v_pk_mov_b32: D.lo = S0[op_sel[0]], D.hi = S1[op_sel[1]]."""
    m, srcs, d0, mods = op.MNEMONIC, list(op.srcs), op.dsts[0].type, op.mods
    n = len(srcs)
    if mods.get("clamp"):
        raise S.error(op, f"clamp on {m} is not supported")
    sel_lo, sel_hi = mods.get("op_sel", 0), mods.get("op_sel_hi", (1 << n) - 1)
    neg_lo, neg_hi = mods.get("neg_lo", 0), mods.get("neg_hi", 0)

    def half(s, i: int):
        if isinstance(s.type, ImmType):  # an inline constant: the same 32 bits in both halves
            return np.broadcast_to(S.rd_v(s, 0), (S.W, S.L))
        return np.broadcast_to(S.rd_v(s, i), (S.W, S.L))

    def body(act, tgt):
        if m == "v_pk_mov_b32":
            lo = half(srcs[0], sel_lo & 1)
            hi = half(srcs[1], sel_lo >> 1 & 1)
            S.wr_v(d0, [lo, hi], act)
            return
        fn = _PACKED[m]
        out = []
        for sel, neg in ((sel_lo, neg_lo), (sel_hi, neg_hi)):
            vals = []
            for i, s in enumerate(srcs):
                x = f32(half(s, sel >> i & 1))
                vals.append(-x if neg >> i & 1 else x)
            out.append(np.asarray(fn(*vals), np.float32).view(U32))
        S.wr_v(d0, out, act)
    return body


# -- f32 to FP8 ---------------------------------------------------------------------------------


def _cvt_pk_fp8(S, op):
    """v_cvt_pk_fp8_f32 / v_cvt_pk_bf8_f32 (gfx942, gfx950, gfx12): S0 and S1 rounded to the arch's
    E4M3 / E5M2 format (FNUZ on gfx942, OCP elsewhere; nearest even, not saturating without clamp:
    ml_dtypes' conversion) into bytes 0 and 1 of the word op_sel's D bit picks (low or high 16
    bits), the other word kept (CDNA3 ISA guide, VOP3)."""
    from gemmc.support.arith_semantics import fp8_dtypes

    srcs, d0, mods = list(op.srcs), op.dsts[0].type, op.mods
    if mods.get("clamp") or mods.get("neg") or mods.get("abs"):
        raise S.error(op, f"clamp, neg and abs on {op.MNEMONIC} are not supported")
    fnuz = "f8e4m3fnuz" in S.arch.dtypes
    fmt = ("f8e4m3" if "fp8" in op.MNEMONIC else "f8e5m2") + ("fnuz" if fnuz else ("fn" if "fp8" in op.MNEMONIC else ""))
    dtype = fp8_dtypes()[fmt]
    word = (mods.get("op_sel", 0) >> len(srcs)) & 1

    def body(act, tgt):
        a, b = (f32(np.broadcast_to(S.rd_v(x), (S.W, S.L))) for x in srcs)
        with np.errstate(all="ignore"):
            lo, hi = (x.astype(dtype).view(np.uint8).astype(U64) for x in (a, b))
        shift = U64(16 * word)
        old = u(S.V[d0.first])
        out = (old & ~(U64(0xFFFF) << shift) & M32) | (((hi << U64(8)) | lo) << shift)
        S.wr_v(d0, [out.astype(U32)], act)
    return body


BY_MNEMONIC = {
    **dict.fromkeys(("v_cvt_pk_fp8_f32", "v_cvt_pk_bf8_f32"), _cvt_pk_fp8),
    **dict.fromkeys(("v_add_co_u32", "v_sub_co_u32", "v_subrev_co_u32", "v_addc_co_u32", "v_subb_co_u32",
                     "v_subbrev_co_u32"), _carry),
    "v_mov_b64": _mov64,
    "v_lshl_add_u64": _lshl_add64,
    **dict.fromkeys(("v_lshlrev_b64", "v_lshrrev_b64"), _shift64),
    **dict.fromkeys(_OPS16, _op16),
    **dict.fromkeys((*_PACKED, "v_pk_mov_b32"), _packed),
    **{f"{m}_sdwa": _sdwa for m in (*INTEGER, *FLOAT, *_OPS16, "v_cndmask_b32")},
    **{f"v_cmp_{c}_{t}_sdwa": _cmp_sdwa for c in ("eq", "ne", "lt", "le", "gt", "ge") for t in ("u32", "i32")},
}
