"""The semantics of the scalar ALU instructions (SOP1, SOP2, SOPK, SOPC): one value per wave,
computed in 64 bits and written back as 32 (or 64), SCC set as the ISA says.

BY_MNEMONIC and BY_PREFIX map an instruction to its handler: handler(machine, op) gives the
body the machine runs, body(act, target) for the active waves `act` (semantics.py has the
protocol).
"""

from __future__ import annotations

import numpy as np

from gemmc.amdgcn.interp.state import M32, U32, U64
from gemmc.dialects.amdgcn.registers import SpecialRegType

COMPARE = {
    "eq": lambda a, b: a == b, "lg": lambda a, b: a != b, "lt": lambda a, b: a < b,
    "le": lambda a, b: a <= b, "gt": lambda a, b: a > b, "ge": lambda a, b: a >= b,
    "u": lambda a, b: np.isnan(a) | np.isnan(b), "o": lambda a, b: ~(np.isnan(a) | np.isnan(b)),
}
"""The comparisons of s_cmp_* and v_cmp_*, by the ISA's condition name."""

# two operands: (the result, SCC of the result and operands or None: unchanged)
_SALU2 = {
    "s_add_u32": (lambda a, b: a + b, lambda r, a, b: r > M32),
    "s_sub_u32": (lambda a, b: (a - b) & M32, lambda r, a, b: b > a),
    "s_add_i32": (lambda a, b: a + b, None),
    "s_mul_i32": (lambda a, b: a * b, None),
    "s_mul_hi_u32": (lambda a, b: (a * b) >> U64(32), None),
    "s_lshl_b32": (lambda a, b: a << (b & U64(31)), lambda r, a, b: (r & M32) != 0),
    "s_lshr_b32": (lambda a, b: a >> (b & U64(31)), lambda r, a, b: r != 0),
    "s_and_b32": (lambda a, b: a & b, lambda r, a, b: r != 0),
    "s_or_b32": (lambda a, b: a | b, lambda r, a, b: r != 0),
    "s_xor_b32": (lambda a, b: a ^ b, lambda r, a, b: r != 0),
    "s_andn2_b32": (lambda a, b: a & ~b & M32, lambda r, a, b: r != 0),
    "s_min_u32": (lambda a, b: np.minimum(a, b), lambda r, a, b: a < b),
    "s_max_u32": (lambda a, b: np.maximum(a, b), lambda r, a, b: a > b),
}


def _i(x):
    """u64-held 32-bit patterns as signed values (int64)."""
    return (np.asarray(x).astype(np.int64) ^ 0x80000000) - 0x80000000


def _bfe(a, b, signed: bool):
    """s_bfe: the field of S0 at offset S1[4:0], width S1[22:16]."""
    off, width = b & U64(31), (b >> U64(16)) & U64(0x7F)
    field = (a >> off) & ((U64(1) << np.minimum(width, U64(32))) - U64(1))
    if not signed:
        return field
    sign = np.where(width > 0, (field >> np.maximum(width, U64(1)) - U64(1)) & U64(1), U64(0))
    return np.where(sign == 1, field | (M32 & ~((U64(1) << width) - U64(1))), field)


# LLVM's scalar ops beyond gemmc's own (the CDNA3 and RDNA3 ISA guides' SOP2 tables)
_SALU2_MORE = {
    "s_sub_i32": (lambda a, b: (a - b) & M32, lambda r, a, b: ((a ^ b) & (a ^ r) & U64(0x80000000)) != 0),
    "s_ashr_i32": (lambda a, b: (_i(a) >> (b & U64(31)).astype(np.int64)).astype(U64) & M32, lambda r, a, b: (r & M32) != 0),
    "s_min_i32": (lambda a, b: np.where(_i(a) < _i(b), a, b), lambda r, a, b: _i(a) < _i(b)),
    "s_max_i32": (lambda a, b: np.where(_i(a) > _i(b), a, b), lambda r, a, b: _i(a) > _i(b)),
    "s_mul_hi_i32": (lambda a, b: ((_i(a) * _i(b)) >> 32).astype(U64) & M32, None),
    "s_nor_b32": (lambda a, b: ~(a | b) & M32, lambda r, a, b: r != 0),
    "s_nand_b32": (lambda a, b: ~(a & b) & M32, lambda r, a, b: r != 0),
    "s_orn2_b32": (lambda a, b: (a | ~b) & M32, lambda r, a, b: r != 0),
    "s_xnor_b32": (lambda a, b: ~(a ^ b) & M32, lambda r, a, b: r != 0),
    "s_bfe_u32": (lambda a, b: _bfe(a, b, False), lambda r, a, b: (r & M32) != 0),
    "s_bfe_i32": (lambda a, b: _bfe(a, b, True), lambda r, a, b: (r & M32) != 0),
    "s_absdiff_i32": (lambda a, b: np.abs(_i(a) - _i(b)).astype(U64) & M32, lambda r, a, b: (r & M32) != 0),
    **{f"s_lshl{n}_add_u32": ((lambda n: lambda a, b: (a << U64(n)) + b)(n), lambda r, a, b: r > M32)
       for n in (1, 2, 3, 4)},
    "s_abs_i32": (lambda a: np.abs(_i(a)).astype(U64) & M32, lambda r, a: (r & M32) != 0),
    "s_brev_b32": (lambda a: _brev(a), None),
    "s_bcnt1_i32_b32": (lambda a: np.array([bin(int(x)).count("1") for x in np.ravel(a)], U64).reshape(np.shape(a)),
                        lambda r, a: r != 0),
    "s_ff1_i32_b32": (lambda a: _ff1(a), None),
    "s_flbit_i32_b32": (lambda a: _flbit(a), None),
    "s_sext_i32_i16": (lambda a: ((a & U64(0xFFFF)) ^ U64(0x8000)) - U64(0x8000) & M32, None),
}


def _brev(a):
    out = np.zeros(np.shape(a), U64)
    for i in range(32):
        out |= ((a >> U64(i)) & U64(1)) << U64(31 - i)
    return out


def _ff1(a):
    """The lowest set bit's index, -1 (all ones) for 0."""
    out = np.full(np.shape(a), M32, U64)
    for i in range(31, -1, -1):
        out = np.where((a >> U64(i)) & U64(1), U64(i), out)
    return out


def _flbit(a):
    """The count of leading zeros (from bit 31), -1 for 0."""
    out = np.full(np.shape(a), M32, U64)
    for i in range(32):
        out = np.where((a >> U64(i)) & U64(1), U64(31 - i), out)
    return out


def _carry(S, op):
    """s_addc_u32 / s_subb_u32: D = S0 +- S1 +- SCC, SCC the carry (borrow) out."""
    a_src, b_src, d0 = op.srcs[0], op.srcs[1], op.dsts[0].type
    sub = op.MNEMONIC == "s_subb_u32"

    def body(act, tgt):
        a, b, c = S.rd_s(a_src).astype(U64), S.rd_s(b_src).astype(U64), S.scc.astype(U64)
        r = (a - b - c) if sub else (a + b + c)
        S.wr_s(d0, [(r & M32).astype(U32)], act)
        S.scc = np.where(act, (b + c > a) if sub else (r > M32), S.scc)
    return body


def _shift64(S, op):
    """s_lshl_b64 / s_lshr_b64 / s_ashr_i64: D = S0 shifted by S1[5:0]; SCC = D != 0."""
    a_src, b_src, d0, m = op.srcs[0], op.srcs[1], op.dsts[0].type, op.MNEMONIC

    def body(act, tgt):
        a, n = S.rd_scalar64(a_src), S.rd_s(b_src).astype(U64) & U64(63)
        if m == "s_lshl_b64":
            r = a << n
        elif m == "s_lshr_b64":
            r = a >> n
        else:
            r = (a.view(np.int64) >> n.astype(np.int64)).view(U64)
        S.wr_s64(d0, r.astype(U64), act)
        S.scc = np.where(act, r != 0, S.scc)
    return body


def _bitset(S, op):
    """s_bitset1_b32 / s_bitset0_b32: bit S0[4:0] of D set (cleared), D's other bits kept."""
    src, d0, one = op.srcs[0], op.dsts[0].type, op.MNEMONIC == "s_bitset1_b32"

    def body(act, tgt):
        bit = U64(1) << (S.rd_s(src).astype(U64) & U64(31))
        d = S.S[d0.first].astype(U64)
        S.wr_s(d0, [((d | bit) if one else (d & ~bit & M32)).astype(U32)], act)
    return body


def _sopk(S, op):
    """s_addk_i32 (D += simm16, SCC the signed overflow), s_mulk_i32, s_cmpk_<cc>_<type>
    (SCC = S0 cc the 16-bit immediate, sign- or zero-extended as the type says)."""
    m, imm = op.MNEMONIC, op.mods.get("imm", 0) & 0xFFFF
    simm = imm - (1 << 16) if imm >= 1 << 15 else imm
    src = op.srcs[0]

    def body(act, tgt):
        a = S.rd_s(src)
        if m.startswith("s_cmpk_"):
            cc, ty = m.split("_")[2], m.split("_")[3]
            x, k = (a.view(np.int32).astype(np.int64), simm) if ty == "i32" else (a.astype(np.int64), imm)
            S.scc = np.where(act, COMPARE[cc](x, k), S.scc)
            return
        d0 = op.dsts[0].type
        if m == "s_mulk_i32":
            S.wr_s(d0, [((a.astype(np.int64) * simm) & 0xFFFFFFFF).astype(U32)], act)
            return
        r = (a.view(np.int32).astype(np.int64) + simm)
        S.wr_s(d0, [(r & 0xFFFFFFFF).astype(U32)], act)
        S.scc = np.where(act, (r > 0x7FFFFFFF) | (r < -0x80000000), S.scc)
    return body


def _f(x):
    return np.asarray(x).astype(U32).view(np.float32)


# gfx12's SALU f32 and conversions: the result's bits
_SALU_FLOAT = {
    "s_mul_f32": lambda a, b: _f(a) * _f(b), "s_add_f32": lambda a, b: _f(a) + _f(b),
    "s_sub_f32": lambda a, b: _f(a) - _f(b), "s_max_num_f32": lambda a, b: np.fmax(_f(a), _f(b)),
    "s_min_num_f32": lambda a, b: np.fmin(_f(a), _f(b)),
    "s_cvt_f32_u32": lambda a: np.asarray(a).astype(np.float32),
    "s_cvt_f32_i32": lambda a: _i(a).astype(np.float32),
    # within 1 ULP on the hardware, as v_rcp_f32 (vector_alu.FLOAT): LLVM's division corrects it
    "v_s_rcp_f32": lambda a: np.float32(1.0) / _f(a),
}


def _float_bits(fn):
    return lambda *a: np.asarray(fn(*a), np.float32).view(U32).astype(U64)


def _cvt_int(lo: int, hi: int):
    return lambda a: np.clip(np.nan_to_num(np.trunc(_f(a).astype(np.float64)), nan=0.0, posinf=hi, neginf=lo),
                             lo, hi).astype(np.int64).astype(U64) & M32


def _arith64(S, op):
    """gfx12's s_add_nc_u64 / s_sub_nc_u64 / s_mul_u64: 64 bits, SCC unchanged."""
    a_src, b_src, d0, m = op.srcs[0], op.srcs[1], op.dsts[0].type, op.MNEMONIC
    fn = {"s_add_nc_u64": lambda a, b: a + b, "s_sub_nc_u64": lambda a, b: a - b, "s_mul_u64": lambda a, b: a * b}[m]

    def body(act, tgt):
        with np.errstate(over="ignore"):
            S.wr_s64(d0, fn(S.rd_scalar64(a_src), S.rd_scalar64(b_src)).astype(U64), act)
    return body


_LOGIC64 = {"s_and_b64": lambda a, b: a & b, "s_or_b64": lambda a, b: a | b, "s_xor_b64": lambda a, b: a ^ b,
            "s_andn2_b64": lambda a, b: a & ~b, "s_andn2_b64_exec": lambda a, b: a & ~b,
            "s_andn2_b32_exec": lambda a, b: a & ~b, "s_nor_b64": lambda a, b: ~(a | b),
            "s_nand_b64": lambda a, b: ~(a & b), "s_orn2_b64": lambda a, b: a | ~b, "s_xnor_b64": lambda a, b: ~(a ^ b),
            "s_not_b64": lambda a: ~a}


def _value_sources(op) -> list:
    """op's sources but an SCC it reads implicitly."""
    return [v for v in op.srcs if not (isinstance(v.type, SpecialRegType) and v.type.reg.data == "scc")]


def _salu(fn, scc_fn=None):
    """The handler of a 32-bit op: D = fn(sources) (and SCC = scc_fn(D, sources)), in 64 bits."""
    def handler(S, op):
        srcs, d0 = _value_sources(op), op.dsts[0].type

        def body(act, tgt):
            vals = [S.rd_s(v).astype(U64) for v in srcs]
            r = fn(*vals)
            S.wr_s(d0, [(r & M32).astype(U32)], act)
            if scc_fn is not None:
                S.scc = np.where(act, scc_fn(r, *vals), S.scc)
        return body
    return handler


def _logic64(S, op):
    """64-bit and, or, xor, andn2, SCC = D != 0; the _exec forms keep D to the wave's lanes."""
    fn, srcs, d0 = _LOGIC64[op.MNEMONIC], _value_sources(op), op.dsts[0].type
    wave_mask = U64((1 << S.L) - 1) if S.L < 64 else U64(0xFFFFFFFFFFFFFFFF)
    exec_form = op.MNEMONIC.endswith("_exec")

    def body(act, tgt):
        r = fn(*[S.rd_scalar64(v) for v in srcs])
        r = (r & wave_mask if exec_form else r).astype(U64)
        S.wr_s64(d0, r, act)
        S.scc = np.where(act, r != 0, S.scc)
    return body


def _ff1_64(S, op):
    """s_ff1_i32_b64 (gfx11+: s_ctz_i32_b64): the lowest set bit of a 64-bit mask, -1 for 0 (LLVM's
    atomic optimizer walks the active lanes with it)."""
    src, d0 = op.srcs[0], op.dsts[0].type

    def body(act, tgt):
        a = S.rd_scalar64(src).astype(U64)
        lo, hi = _ff1(a & M32), _ff1(a >> U64(32))
        r = np.where(lo != M32, lo, np.where(hi != M32, hi + U64(32), M32))
        S.wr_s(d0, [(r & M32).astype(U32)], act)
    return body


def _bcnt64(S, op):
    """s_bcnt1_i32_b64: D (32 bits) = the set bits of the 64-bit S0, SCC = D != 0."""
    src, d0 = _value_sources(op)[0], op.dsts[0].type

    def body(act, tgt):
        r = np.array([bin(int(x)).count("1") for x in np.ravel(S.rd_scalar64(src))], U64)
        S.wr_s(d0, [r.astype(U32)], act)
        S.scc = np.where(act, r != 0, S.scc)
    return body


def _mov64(S, op):
    src, d0 = op.srcs[0], op.dsts[0].type

    def body(act, tgt):
        S.wr_s64(d0, S.rd_scalar64(src), act)
    return body


def _cselect(S, op):
    """D = SCC ? S0 : S1."""
    a_src, b_src, d0 = op.srcs[0], op.srcs[1], op.dsts[0].type
    b32 = op.MNEMONIC == "s_cselect_b32"

    def body(act, tgt):
        r = np.where(S.scc, S.rd_scalar64(a_src), S.rd_scalar64(b_src)).astype(U64)
        S.wr_s64(d0, r & M32 if b32 else r, act)
    return body


def _movk(S, op):
    """D = the sign-extended 16-bit immediate."""
    v, d0 = op.mods["imm"], op.dsts[0].type

    def body(act, tgt):
        S.wr_s(d0, [np.full(S.W, U32((v - (1 << 16) if v >= 1 << 15 else v) & 0xFFFFFFFF))], act)
    return body


def _cmp(S, op):
    """s_cmp_<cc>_<type>: SCC = S0 cc S1."""
    cc, ty = op.MNEMONIC.split("_")[2], op.MNEMONIC.split("_")[3]
    a_src, b_src = op.srcs[0], op.srcs[1]

    def body(act, tgt):
        a, b = (S.rd_scalar64(a_src), S.rd_scalar64(b_src)) if ty == "u64" else (S.rd_s(a_src), S.rd_s(b_src))
        if ty == "i32":
            a, b = a.view(np.int32), b.view(np.int32)
        S.scc = np.where(act, COMPARE[cc](a, b), S.scc)
    return body


BY_MNEMONIC = {
    "s_mov_b32": _salu(lambda a: a),
    "s_not_b32": _salu(lambda a: ~a & M32, lambda r, a: r != 0),
    **{m: _salu(fn, sc) for m, (fn, sc) in _SALU2.items()},
    **{m: _salu(fn, sc) for m, (fn, sc) in _SALU2_MORE.items()},
    **{m: _salu(_float_bits(fn)) for m, fn in _SALU_FLOAT.items()},
    "s_cvt_u32_f32": _salu(_cvt_int(0, 0xFFFFFFFF)),
    "s_cvt_i32_f32": _salu(_cvt_int(-(1 << 31), (1 << 31) - 1)),
    **dict.fromkeys(("s_add_nc_u64", "s_sub_nc_u64", "s_mul_u64"), _arith64),
    **dict.fromkeys(("s_addc_u32", "s_subb_u32"), _carry),
    **dict.fromkeys(("s_lshl_b64", "s_lshr_b64", "s_ashr_i64"), _shift64),
    **dict.fromkeys(("s_bitset1_b32", "s_bitset0_b32"), _bitset),
    "s_ff1_i32_b64": _ff1_64,
    **dict.fromkeys(("s_addk_i32", "s_mulk_i32"), _sopk),
    **dict.fromkeys(_LOGIC64, _logic64),
    **dict.fromkeys(("s_mov_b64", "s_mov_b64_exec", "s_mov_b32_exec"), _mov64),
    **dict.fromkeys(("s_cselect_b32", "s_cselect_b64"), _cselect),
    "s_movk_i32": _movk,
    "s_bcnt1_i32_b64": _bcnt64,
}
BY_PREFIX = {"s_cmp_": _cmp, "s_cmpk_": _sopk}
