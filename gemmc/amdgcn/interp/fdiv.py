"""The semantics of LLVM's correctly rounded f32 division, three VOP3 instructions around a
refined reciprocal (AMDGPUISelLowering's LowerFDIV32):

    s_den, _ = v_div_scale_f32(den, den, num)      (the operands scaled out of the denormals /
    s_num, VCC = v_div_scale_f32(num, den, num)     the overflow, VCC: the quotient is scaled)
    ... v_rcp_f32, Newton steps, the quotient q and its residual e ...
    v = v_div_fmas_f32(e, r, q)                    (fma, then the scale undone where VCC)
    x = v_div_fixup_f32(v, den, num)               (the IEEE special cases: 0, inf, NaN)

Sources: the CDNA3 ISA guide, "VOP3A Instructions", V_DIV_SCALE_F32 / V_DIV_FMAS_F32 /
V_DIV_FIXUP_F32 (the RDNA3 guide's "VOP3" chapter has the same pseudocode).  `exponent(x)` there
is the biased exponent field; "DENORM" a nonzero value below 2^-126 in magnitude.
"""

from __future__ import annotations

import numpy as np

from gemmc.amdgcn.interp.state import U32
from gemmc.amdgcn.interp.vector_alu import f32, float_sources

_TINY = 2.0 ** -126  # the least normal f32


def exponent(x):
    """The biased exponent field of f32 values."""
    return ((np.asarray(x, np.float32).view(U32) >> U32(23)) & U32(0xFF)).astype(np.int64)


def _denorm(q):
    """Whether float64 values would be f32 denormals (nonzero, below 2^-126)."""
    return (q != 0) & (np.abs(q) < _TINY)


def div_scale(s0, den, num):
    """(D, VCC) of V_DIV_SCALE_F32: S0 scaled by 2^64 or 2^-64 where the denominator or the
    numerator would make the reciprocal or the quotient leave the normal range; VCC set where
    only one of them is scaled (the quotient then needs V_DIV_FMAS_F32's correction)."""
    s0, den, num = (np.asarray(x, np.float32).astype(np.float64) for x in (s0, den, num))
    exp_n, exp_d = exponent(num.astype(np.float32)), exponent(den.astype(np.float32))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        rcp_denorm, quo_denorm = _denorm(1.0 / den), _denorm(num / den)
    up, down = np.ldexp(s0, 64), np.ldexp(s0, -64)
    d, vcc = s0.copy(), np.zeros(s0.shape, bool)
    # the pseudocode's if / elsif chain, last case first so that the earlier ones win
    cases = [
        (exp_n <= 23, up, False),                 # numerator tiny
        (quo_denorm, np.where(s0 == num, up, s0), True),                     # only the numerator
        (rcp_denorm, down, False),
        (rcp_denorm & quo_denorm, np.where(s0 == den, down, s0), True),      # only the denominator
        (_denorm(den), up, False),
        (exp_n - exp_d >= 96, np.where(s0 == den, up, s0), True),                                 # N / D near the f32 max
        ((num == 0) | (den == 0), np.nan, False),
    ]
    for cond, value, flag in cases:
        d = np.where(cond, value, d)
        vcc = np.where(cond, flag, vcc)
    with np.errstate(over="ignore", invalid="ignore"):
        return d.astype(np.float32), vcc


def div_fmas(a, b, c, vcc):
    """V_DIV_FMAS_F32: fma(S0, S1, S2), times 2^64 where VCC and S2's exponent field is above 127
    (the quotient was computed 2^64 too small), else times 2^-64 where VCC; rounded once."""
    r = np.asarray(a, np.float32).astype(np.float64) * np.float32(b) + np.float32(c)
    scale = np.where(exponent(c) > 127, 64, -64)
    with np.errstate(over="ignore", invalid="ignore"):
        return np.where(vcc, np.ldexp(r, scale), r).astype(np.float32)


def div_fixup(q, den, num):
    """V_DIV_FIXUP_F32: the quotient num / den from its estimate S0: NaN in, NaN out (quietened);
    0 / 0 and inf / inf NaN; x / 0 and inf / x inf; x / inf and 0 / x zero; a quotient below
    2^-150 zero; a NaN estimate (the scaled quotient overflowed on its way) the signed overflow,
    inf; else |S0| with the sign of num / den."""
    q, den, num = (np.asarray(x, np.float32) for x in (q, den, num))
    neg = np.signbit(den) ^ np.signbit(num)
    signed = lambda mag: np.where(neg, -np.float32(mag), np.float32(mag))  # noqa: E731
    quiet = lambda x: (x.view(U32) | U32(0x400000)).view(np.float32)  # noqa: E731
    inf_d, inf_n = np.isinf(den), np.isinf(num)
    cases = [  # last case first, as in div_scale
        (exponent(den) == 255, signed(np.inf)),
        (exponent(num) - exponent(den) < -150, signed(0.0)),
        (inf_d | (num == 0), signed(0.0)),
        ((den == 0) | inf_n, signed(np.inf)),
        (inf_d & inf_n, np.float32(np.nan)),
        ((den == 0) & (num == 0), np.float32(np.nan)),
        (np.isnan(den), quiet(den)),
        (np.isnan(num), quiet(num)),
    ]
    d = np.where(np.isnan(q), signed(np.inf), signed(np.abs(q)))
    for cond, value in cases:
        d = np.where(cond, value, d)
    return d.astype(np.float32)


def _scale(S, op):
    srcs, d0, dmask = list(op.srcs), op.dsts[0].type, op.dsts[1].type

    def body(act, tgt):
        d, vcc = div_scale(*(f32(x) for x in float_sources(S, op, srcs)))
        S.wr_v(d0, [np.broadcast_to(d.view(U32), (S.W, S.L))], act)
        S.wr_s64(dmask, S.mask_of_lanes(np.broadcast_to(vcc, (S.W, S.L)), act), act)
    return body


def _fmas(S, op):
    srcs, d0 = list(op.srcs), op.dsts[0].type

    def body(act, tgt):
        a, b, c = (f32(x) for x in float_sources(S, op, srcs[:3]))
        vcc = S.lanes_of_mask(S.rd_scalar64(srcs[3]))
        S.wr_v(d0, [np.broadcast_to(div_fmas(a, b, c, vcc).view(U32), (S.W, S.L))], act)
    return body


def _fixup(S, op):
    srcs, d0 = list(op.srcs), op.dsts[0].type

    def body(act, tgt):
        d = div_fixup(*(f32(x) for x in float_sources(S, op, srcs)))
        S.wr_v(d0, [np.broadcast_to(d.view(U32), (S.W, S.L))], act)
    return body


BY_MNEMONIC = {"v_div_scale_f32": _scale, "v_div_fmas_f32": _fmas, "v_div_fixup_f32": _fixup}
