"""The amdgcn interpreter's hazard checks: the wait states and instructions the hardware needs
between dependent instructions, which it does not enforce itself.

  * MFMA: each wave counts the wait states it issued (an instruction one, s_nop imm + 1);
    reading or overwriting a VGPR or AGPR an MFMA wrote fewer wait states ago than
    arch.GcnIsa requires (the same table amdgcn-finalize inserts s_nop from) is an error, as
    is an MFMA reading a VGPR a VALU wrote too recently.  The wait states are those issued
    between the two, the writer's own not counted (LLVM's getWaitStatesSince: a writer right
    before its reader is 0 wait states away); the error names the branches the wave took
    since the MFMA (hazard_paths.py);
  * WMMA: a WMMA reading as A or B what the WMMA just before it wrote (no VALU instruction
    between) is an error;
  * gfx12's SGPR reads: reading an SGPR whose pair a VALU read before an SALU (or VALU) wrote
    it, with no s_wait_alu between, is an error.

`checks(op)` gives the checks of one instruction, each a function of the active waves that
raises or records what op writes; the machine runs them before the instruction.
"""

from __future__ import annotations

import numpy as np

from gemmc.amdgcn.interp.hazard_paths import TakenBranches, diagnosis, where
from gemmc.amdgcn.interp.state import WaveState
from gemmc.amdgcn.interp.matrix_ops import instr_of
from gemmc.dialects.amdgcn.instructions import is_mfma, is_wmma, mfma_consumer
from gemmc.dialects.amdgcn.registers import VCC_INDEX, AGPRType, VGPRType, sgpr_numbers, sgpr_pair
from gemmc.target.amdgcn_isa import PLAIN_VALU_FORMATS, SALU_FORMATS, VALU_FORMATS


class Hazards:
    def __init__(self, S: WaveState, has_mfma: bool, has_wmma: bool):
        self.S = S
        self.has_mfma, self.has_wmma = has_mfma, has_wmma
        W, nv, na = S.W, S.nv, S.na
        # wait states issued per wave; per VGPR (AGPR i: column nv + i) the count when an MFMA
        # (mfma_by: its index in mfma_ops, -1 none) or a VALU last wrote it
        self.ws = np.zeros(W, np.int64)
        self.mfma_at = np.zeros((W, nv + na), np.int64)
        self.mfma_by = np.full((W, nv + na), -1, np.int64)
        self.valu_at = np.full((W, nv + na), -(1 << 40), np.int64)
        self.mfma_ops: list = []  # (MatrixInstr, destination type, op)
        self.branches = TakenBranches(W)
        # WMMA hazard: the VGPRs the last VALU instruction wrote, where that was a WMMA
        self.wmma_d = np.zeros((W, nv), bool)
        # gfx12 SGPR read hazards: SGPR pairs a VALU read, SGPRs (VCC at amdgcn.VCC_INDEX) with an
        # uncommitted SALU / VALU write
        self.sg_tracked = np.zeros((W, 64), bool)
        self.sg_sa = np.zeros((W, VCC_INDEX + 1), bool)
        self.sg_va = np.zeros((W, VCC_INDEX + 1), bool)

    def checks(self, op) -> list:
        """The hazard checks op needs (none in a kernel without the instructions they are about)."""
        return [h for h in (self._mfma_check(op), self._wmma_check(op), self._sgpr_check(op)) if h is not None]

    def issued(self, act: np.ndarray, wait_states: int) -> None:
        """The waves of act issued an instruction worth `wait_states`."""
        if self.has_mfma:
            self.ws += np.where(act, wait_states, 0)

    def branched(self, act: np.ndarray, p: int, nxt) -> None:
        """The waves of act ran the branch at p to nxt (each wave's next program counter)."""
        if self.has_mfma:
            self.branches.record(act, p, nxt, self.ws)

    # -- MFMA ------------------------------------------------------------------------------------

    def _mfma_check(self, op):
        """The wait-state check of op's VGPR operands and the bookkeeping of its writes, or None."""
        fmt = op.FORM.fmt
        mfma = is_mfma(op)
        valu = fmt in PLAIN_VALU_FORMATS
        if not self.has_mfma or not (mfma or valu or fmt in ("GLOBAL", "DS")):
            return None  # (no MFMA, no hazard to track: the other kernels run as fast as before)
        S, isa = self.S, self.S.isa
        vector = (VGPRType, AGPRType)
        reads = [(v, i) for i, v in enumerate(op.srcs) if isinstance(v.type, vector)]
        writes = [v.type for v in op.dsts if isinstance(v.type, vector)]
        me = -1
        if mfma:
            me = len(self.mfma_ops)
            self.mfma_ops.append((instr_of(S, op), op.dsts[0].type, op))

        def check(act: np.ndarray) -> None:
            for v, i in reads:
                t = v.type
                cols = self._cols(t)
                self._check_mfma_writes(op, act, cols, lambda d, i=i: mfma_consumer(op, i, d),
                                        f"reads {t.PREFIX}{t.first}")
                if mfma:
                    since = self.ws[:, None] - self.valu_at[:, cols]
                    bad = act[:, None] & (since < isa.valu_then_mfma)
                    if bad.any():
                        raise S.error(op, f"reads a register of {t.register_name} "
                                          f"{int(since[bad].min())} wait states after a VALU wrote it; needs "
                                          f"{isa.valu_then_mfma} (missing s_nop)", bad.any(axis=1))
            after = self.ws[:, None] + 1  # (the count starts after this instruction)
            for t in writes:
                cols = self._cols(t)
                if not mfma:
                    self._check_mfma_writes(op, act, cols, lambda d: "write", f"overwrites {t.PREFIX}{t.first}")
                self.mfma_by[:, cols] = np.where(act[:, None], me, self.mfma_by[:, cols])
                self.mfma_at[:, cols] = np.where(act[:, None], after, self.mfma_at[:, cols])
                if valu:
                    self.valu_at[:, cols] = np.where(act[:, None], after, self.valu_at[:, cols])
        return check

    def _cols(self, t) -> slice:
        first = t.first + (self.S.nv if isinstance(t, AGPRType) else 0)
        return slice(first, first + t.n)

    def _check_mfma_writes(self, op, act, cols, consumer, what: str) -> None:
        by = self.mfma_by[:, cols]
        live = act[:, None] & (by >= 0)
        if not live.any():
            return
        since = self.ws[:, None] - self.mfma_at[:, cols]
        for k in np.unique(by[live]):
            instr, dst, mop = self.mfma_ops[int(k)]
            need = self.S.isa.mfma_wait_states(instr, consumer(dst))
            bad = live & (by == k) & (since < need)
            if bad.any():
                raise self.S.error(op, f"{what} {int(since[bad].min())} wait states after the {instr.mnemonic} "
                                       f"writing {dst.register_name}; needs {need} (missing s_nop)"
                                       f"{self._mfma_at(mop)}{self._path(bad, since, need)}", bad.any(axis=1))

    def _mfma_at(self, mop) -> str:
        i = next((i for i, (o, _) in enumerate(self.S.prog) if o is mop), None)
        return "" if i is None else f"; the MFMA is at {where(self.S.prog, i)}"

    def _path(self, bad: np.ndarray, since: np.ndarray, need: int) -> str:
        """The branches taken since the MFMA by the wave of the shortest bad distance, the one
        the message gives (hazard_paths.diagnosis)."""
        w, c = np.unravel_index(np.argmin(np.where(bad, since, np.iinfo(np.int64).max)), bad.shape)
        n = int(since[w, c])
        return diagnosis(self.S.prog, self.branches.since(int(w), int(self.ws[w]) - n), need - n)

    # -- WMMA ------------------------------------------------------------------------------------

    def _wmma_check(self, op):
        """A WMMA reading as A or B a VGPR that the VALU instruction before it, a WMMA, wrote
        is an error: a VALU instruction must come between (LLVM's fixWMMAHazards: v_nop)."""
        if not self.has_wmma or op.FORM.fmt not in VALU_FORMATS:
            return None
        wmma = is_wmma(op)
        reads = [v.type for v in op.srcs[:2]] if wmma else []
        written = self._cols(op.dsts[0].type) if wmma else None

        def check(act: np.ndarray) -> None:
            for t in reads:
                bad = act[:, None] & self.wmma_d[:, self._cols(t)]
                if bad.any():
                    raise self.S.error(op, f"reads {t.register_name}, which the WMMA just before it wrote; a VALU "
                                           "instruction must come between (missing v_nop)", bad.any(axis=1))
            rows = np.nonzero(act)[0]
            self.wmma_d[rows] = False
            if written is not None:
                self.wmma_d[rows, written] = True
        return check

    # -- gfx12 SGPR reads ------------------------------------------------------------------------

    def _sgpr_check(self, op):
        """gfx12: reading an SGPR whose pair a VALU read before an SALU (or VALU) wrote it, with
        no s_wait_alu (depctr_sa_sdst(0), depctr_va_sdst(0), depctr_va_vcc(0)) or scalar load
        since, is an error (the rules of LLVM's AMDGPUWaitSGPRHazards, which amdgcn-finalize
        follows)."""
        if not self.S.isa.sgpr_read_hazards:
            return None
        fmt, m = op.FORM.fmt, op.MNEMONIC
        if fmt == "SMEM":
            return self._commit_all
        if m == "s_wait_alu":
            return self._wait_alu(op.mods)
        valu = fmt in VALU_FORMATS
        if not (valu or fmt in SALU_FORMATS):
            return None
        uses, defs = sgpr_numbers(op.srcs), sgpr_numbers(op.dsts)

        def check(act: np.ndarray) -> None:
            for r in uses:
                self._check_sgpr_read(op, act, r, valu)
            for r in defs:
                pair = sgpr_pair(r)
                hit = act & self.sg_tracked[:, pair]
                (self.sg_va if valu else self.sg_sa)[hit, r] = True
        return check

    def _commit_all(self, act: np.ndarray) -> None:
        """A scalar load waits for the SALU and VALU writes of SGPRs before it."""
        self.sg_sa[act] = False
        self.sg_va[act] = False

    def _wait_alu(self, mods):
        def wait(act):
            if "sa_sdst" in mods:
                self.sg_sa[act] = False
            if "va_sdst" in mods:
                self.sg_va[act, :VCC_INDEX] = False
            if "va_vcc" in mods:
                self.sg_va[act, VCC_INDEX] = False
        return wait

    def _check_sgpr_read(self, op, act: np.ndarray, r: int, valu: bool) -> None:
        pair = sgpr_pair(r)
        tracked = act & self.sg_tracked[:, pair]
        name = "vcc" if r == VCC_INDEX else f"s{r}"
        bad = tracked & self.sg_sa[:, r]
        if bad.any():
            raise self.S.error(op, f"reads {name}, which an SALU instruction wrote after a VALU read it, "
                                   "with no s_wait_alu depctr_sa_sdst(0) between", bad)
        bad = tracked & self.sg_va[:, r] if valu else None
        if bad is not None and bad.any():
            field = "va_vcc" if r == VCC_INDEX else "va_sdst"
            raise self.S.error(op, f"reads {name}, which a VALU instruction wrote after a VALU read it, "
                                   f"with no s_wait_alu depctr_{field}(0) between", bad)
        if valu:
            self.sg_tracked[act, pair] = True
        elif r == VCC_INDEX:  # an SALU read commits VALU writes (of VCC, or of SGPRs)
            self.sg_va[tracked, VCC_INDEX] = False
        else:
            self.sg_va[tracked, :VCC_INDEX] = False
