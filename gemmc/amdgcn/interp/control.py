"""The semantics of control flow and synchronization: branches and s_endpgm (a body returns
each wave's next program counter), EXEC (s_and_saveexec), the waits on the memory counters,
barriers, and the instructions that only take time (s_nop, v_nop, s_wait_alu: hazards.py
counts them).

BY_MNEMONIC and BY_PREFIX map an instruction to its handler (semantics.py has the protocol).
"""

from __future__ import annotations

import numpy as np

from gemmc.amdgcn.interp.state import U64
from gemmc.target.amdgcn_isa import BARRIERS


def _nothing(S, op):
    return lambda act, tgt: None


def _branch(S, op):
    return lambda act, tgt: np.full(S.W, tgt)


def _cbranch_scc(S, op):
    want = op.MNEMONIC.endswith("1")
    return lambda act, tgt: np.where(S.scc == want, tgt, S.pc + 1)


def _cbranch_exec(S, op):
    z = op.MNEMONIC == "s_cbranch_execz"  # (s_cbranch_execnz ends in z too)
    return lambda act, tgt: np.where((S.exec_bits == 0) == z, tgt, S.pc + 1)


def _cbranch_vcc(S, op):
    nz = op.MNEMONIC.endswith("nz")
    return lambda act, tgt: np.where((S.vcc != 0) == nz, tgt, S.pc + 1)


def _endpgm(S, op):
    def body(act, tgt):
        S.done |= act
        return np.where(act, -1, S.pc)
    return body


_SAVEEXEC = {"and": lambda s, e: s & e, "or": lambda s, e: s | e, "xor": lambda s, e: s ^ e,
             "andn2": lambda s, e: s & ~e}


def _and_saveexec(S, op):
    """s_<op>_saveexec: D = EXEC, EXEC = S0 <op> EXEC (andn2: S0 & ~EXEC), SCC = EXEC != 0."""
    src, d0 = op.srcs[0], op.dsts[0].type
    fn = _SAVEEXEC[op.MNEMONIC.split("_")[1]]
    wave = U64((1 << S.L) - 1) if S.L < 64 else U64(0xFFFFFFFFFFFFFFFF)

    def body(act, tgt):
        old = S.exec_bits.copy()
        s = S.rd_scalar64(src)
        S.wr_s64(d0, old, act)
        new = fn(s, old) & wave
        S.set_exec(new, act)
        S.scc = np.where(act, new != 0, S.scc)
    return body


def _waitcnt(S, op):
    """s_waitcnt (s_waitcnt_vscnt): each counter named to at most its count; lgkmcnt(0) also
    waits for the scalar loads."""
    mods, w = op.mods, S.waits

    def body(act, tgt):
        S.stats.waits += int(act.sum())
        if "vmcnt" in mods:
            w.wait(w.vm, mods["vmcnt"], act)
        if "lgkmcnt" in mods:
            w.wait(w.lds, mods["lgkmcnt"], act)
            if mods["lgkmcnt"] == 0:
                w.wait_scalar_loads(act)
        if "vscnt" in mods:
            w.wait(w.vs, mods["vscnt"], act)
        w.refresh_pending()
    return body


def _wait_counter(S, op):
    """gfx12's s_wait_<counter> imm, one counter each (kmcnt: the scalar loads, only at 0)."""
    n, which, w = op.mods.get("imm", 0), op.MNEMONIC[len("s_wait_"):], S.waits

    if "_dscnt" in which and which != "dscnt":  # gfx12's combined waits: imm[13:8], dscnt imm[5:0]
        first = which.split("_")[0]

        def both(act, tgt):
            S.stats.waits += int(act.sum())
            w.wait({"loadcnt": w.vm, "storecnt": w.vs}[first], n >> 8 & 0x3F, act)
            w.wait(w.lds, n & 0x3F, act)
            w.refresh_pending()
        return both

    def body(act, tgt):
        S.stats.waits += int(act.sum())
        if which == "kmcnt":
            if n == 0:  # scalar loads return out of order
                w.wait_scalar_loads(act)
        else:
            w.wait({"loadcnt": w.vm, "dscnt": w.lds, "storecnt": w.vs}[which], n, act)
        w.refresh_pending()
    return body


def _barrier(S, op):
    """s_barrier (gfx12: s_barrier_signal, which publishes this wave's LDS writes, then
    s_barrier_wait, where the workgroup's waves meet): LDS accesses must have completed, and
    every live wave of the workgroup must arrive at the same barrier."""
    signal, wait = op.MNEMONIC != "s_barrier_wait", op.MNEMONIC != "s_barrier_signal"
    missing = "s_wait_dscnt 0x0" if S.isa.split_counters else "s_waitcnt lgkmcnt(0)"

    def body(act, tgt):
        outstanding = S.waits.lds_outstanding(act)
        if signal and np.any(outstanding):
            raise S.error(op, f"{op.MNEMONIC} with LDS accesses outstanding (missing {missing})", outstanding)
        if not wait:
            return
        wgs = np.unique(S.wg_of[act])
        for wgi in wgs:
            members = (S.wg_of == wgi) & ~S.done
            if np.any(members & ~act):
                raise S.error(op, f"{op.MNEMONIC} reached by only some waves of a workgroup", members & ~act)
        S.races.barrier(wgs)
    return body


BY_MNEMONIC = {
    "s_nop": _nothing,
    "s_wait_alu": _nothing,
    "v_nop": _nothing,
    **dict.fromkeys(BARRIERS, _barrier),
    **dict.fromkeys(("s_waitcnt", "s_waitcnt_vscnt"), _waitcnt),
    "s_branch": _branch,
    **dict.fromkeys(("s_cbranch_scc0", "s_cbranch_scc1"), _cbranch_scc),
    **dict.fromkeys(("s_cbranch_execz", "s_cbranch_execnz"), _cbranch_exec),
    "s_endpgm": _endpgm,
    **dict.fromkeys((f"s_{k}_saveexec_b{n}" for k in _SAVEEXEC for n in (32, 64)), _and_saveexec),
    **dict.fromkeys(("s_cbranch_vccnz", "s_cbranch_vccz"), _cbranch_vcc),
    # what only steers issue or caches (gemmc.target.amdgcn_isa: LLVM's hints)
    **dict.fromkeys(("s_clause", "s_delay_alu", "s_sendmsg", "s_waitcnt_depctr", "s_setprio", "s_sleep",
                     "buffer_gl0_inv", "buffer_gl1_inv", "buffer_wbl2", "buffer_inv", "s_set_inst_prefetch_distance",
                     "s_waitcnt_expcnt", "s_wait_expcnt", "global_inv", "global_wb", "global_wbinv",
                     "buffer_wbinvl1_vol", "buffer_wbinvl1"), _nothing),
}
BY_PREFIX = {"s_wait_": _wait_counter}
