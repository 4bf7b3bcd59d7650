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
    "u": lambda a, b: np.isnan(a) | np.isnan(b),
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

_LOGIC64 = {"s_and_b64": lambda a, b: a & b, "s_or_b64": lambda a, b: a | b, "s_xor_b64": lambda a, b: a ^ b,
            "s_andn2_b64": lambda a, b: a & ~b, "s_andn2_b64_exec": lambda a, b: a & ~b,
            "s_andn2_b32_exec": lambda a, b: a & ~b}


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
        a, b = S.rd_s(a_src), S.rd_s(b_src)
        if ty == "i32":
            a, b = a.view(np.int32), b.view(np.int32)
        S.scc = np.where(act, COMPARE[cc](a, b), S.scc)
    return body


BY_MNEMONIC = {
    "s_mov_b32": _salu(lambda a: a),
    "s_not_b32": _salu(lambda a: ~a & M32, lambda r, a: r != 0),
    **{m: _salu(fn, sc) for m, (fn, sc) in _SALU2.items()},
    **dict.fromkeys(_LOGIC64, _logic64),
    **dict.fromkeys(("s_mov_b64", "s_mov_b64_exec", "s_mov_b32_exec"), _mov64),
    **dict.fromkeys(("s_cselect_b32", "s_cselect_b64"), _cselect),
    "s_movk_i32": _movk,
}
BY_PREFIX = {"s_cmp_": _cmp}
