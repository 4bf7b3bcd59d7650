"""The amdgcn interpreter's memory counters and the check that s_waitcnt comes where it must.

A load writes its registers at once but marks them pending on its counter (vmcnt for global
loads, lgkmcnt for LDS and scalar loads; gfx11 counts stores in vscnt, gfx12 has one counter
each).  A wait completes all but the N youngest accesses of a counter, LDS in order, scalar
loads only at lgkmcnt(0) (they return out of order).  Reading, or overwriting, a pending
register is an error.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gemmc.amdgcn.interp.state import WaveState
from gemmc.dialects.amdgcn.registers import SGPRType, VGPRType

# what a register is pending on (0: nothing)
VM, LDS, SMEM = 1, 2, 3
LOAD_COUNTER = {"GLOBAL": VM, "SCRATCH": VM, "DS": LDS}  # the in-order counter of a format's loads


@dataclass
class Counters:
    """Per wave: the accesses issued on a counter and how many of them (the oldest) completed."""
    issued: np.ndarray
    done: np.ndarray


class Waitcnt:
    def __init__(self, S: WaveState):
        self.S = S
        W, nv, ns = S.W, S.V.shape[0], S.S.shape[0]
        # per register the counter its load is pending on (VM, LDS, SMEM) and that load's number
        self.vkind = np.zeros((W, nv), np.int8)
        self.vseq = np.zeros((W, nv), np.int64)
        # a VGPR's halves apart (a d16 load writes one): the number of the load writing each
        self.vhalf = np.zeros((W, nv, 2), np.int64)
        self.skind = np.zeros((W, ns), np.int8)
        self.sseq = np.zeros((W, ns), np.int64)
        z = lambda: Counters(np.zeros(W, np.int64), np.zeros(W, np.int64))  # noqa: E731
        self.vm, self.lds, self.smem, self.vs = z(), z(), z(), z()
        # registers that may be pending (a superset; kept so that most reads need no check)
        self.vmaybe = np.zeros((W, nv), bool)
        self.smaybe = np.zeros((W, ns), bool)

    def pending(self, kind: np.ndarray, seq: np.ndarray) -> np.ndarray:
        return (((kind == VM) & (seq > self.vm.done[:, None])) | ((kind == LDS) & (seq > self.lds.done[:, None]))
                | ((kind == SMEM) & (seq > self.smem.done[:, None])))

    def refresh_pending(self) -> None:
        """Recompute which registers may be pending (after waits); checks read this first."""
        self.vmaybe = self.pending(self.vkind, self.vseq)
        self.smaybe = self.pending(self.skind, self.sseq)

    def check_regs(self, op, vals, act: np.ndarray, what: str, in_order: int = 0, halves=None) -> None:
        """An error if op `what`s (reads, overwrites) a register of vals that is pending; a load
        on counter `in_order` (VM or LDS, whose loads return in order) may overwrite registers
        pending on that counter: its data lands after theirs (LLVM's SIInsertWaitcnts relies
        on it, and clang's spill reloads do it).  `halves`: per value, the half of its VGPR it
        reads (0 low, 1 high; -1 or None: all of it)."""
        for j, v in enumerate(vals):
            t = v.type
            half = halves[j] if halves is not None else -1
            if isinstance(t, VGPRType) and half >= 0:
                k, s, base, maybe = self.vkind, self.vhalf[:, :, half], t.first, self.vmaybe
            elif isinstance(t, VGPRType):
                k, s, base, maybe = self.vkind, self.vseq, t.first, self.vmaybe
            elif isinstance(t, SGPRType):
                k, s, base, maybe = self.skind, self.sseq, t.first, self.smaybe
            else:
                continue
            sl = slice(base, base + t.n)
            if not maybe[:, sl].any():
                continue
            p = self.pending(k[:, sl], s[:, sl]) & act[:, None]
            if in_order:
                p &= k[:, sl] != in_order
            if p.any():
                w, r = (int(x[0]) for x in np.nonzero(p))
                kinds = ({VM: "s_wait_loadcnt", LDS: "s_wait_dscnt", SMEM: "s_wait_kmcnt 0"}
                         if self.S.isa.split_counters
                         else {VM: "s_waitcnt vmcnt", LDS: "s_waitcnt lgkmcnt", SMEM: "s_waitcnt lgkmcnt(0)"})
                counter = kinds[int(k[w, base + r])]
                name = f"{'v' if isinstance(t, VGPRType) else 's'}{base + r}"
                raise self.S.error(op, f"{what} {name} before the load writing it completed "
                                       f"(missing {counter})", p.any(axis=1))

    # -- issuing ---------------------------------------------------------------------------------

    def saturate(self) -> None:
        """A counter holds at most its maximum: the wave stalls rather than issue more, so
        accesses with that many younger ones in flight have completed."""
        isa = self.S.isa
        self.vm.done = np.maximum(self.vm.done, self.vm.issued - isa.vmcnt_max)
        self.lds.done = np.maximum(self.lds.done, self.lds.issued - isa.lgkmcnt_max)

    def mark(self, t, kind: int, seq: np.ndarray, act: np.ndarray, half: int = -1) -> None:
        """Registers t pending on counter `kind` until access `seq` completes (`half` >= 0: a
        d16 load's, writing that half of the VGPR t only).  AGPRs (an LDS read into them, gfx90a+)
        are not tracked, as check_regs does not check their reads."""
        if not isinstance(t, (VGPRType, SGPRType)):
            return
        if isinstance(t, VGPRType):
            k, s = self.vkind, self.vseq
        else:
            k, s = self.skind, self.sseq
        sl = slice(t.first, t.first + t.n)
        k[:, sl] = np.where(act[:, None], kind, k[:, sl])
        s[:, sl] = np.where(act[:, None], seq[:, None], s[:, sl])
        if isinstance(t, VGPRType):
            for h in ((0, 1) if half < 0 else (half,)):
                self.vhalf[:, sl, h] = np.where(act[:, None], seq[:, None], self.vhalf[:, sl, h])
        (self.vmaybe if isinstance(t, VGPRType) else self.smaybe)[:, sl] |= act[:, None]

    def issue_load(self, kind: int, t, act: np.ndarray, half: int = -1) -> None:
        """A load into registers t (`half` >= 0: that half of one VGPR, a d16 load), on counter
        `kind`, issued by the waves of act."""
        c = {VM: self.vm, LDS: self.lds, SMEM: self.smem}[kind]
        c.issued += act
        if kind != SMEM:
            self.saturate()
        self.mark(t, kind, c.issued, act, half)

    def issue_lds_store(self, act: np.ndarray) -> None:
        self.lds.issued += act
        self.saturate()

    def issue_global_store(self, act: np.ndarray) -> None:
        (self.vs if self.S.isa.stores_in_vscnt else self.vm).issued += act

    # -- waiting ---------------------------------------------------------------------------------

    def wait(self, c: Counters, n: int, act: np.ndarray) -> None:
        """All but the n youngest accesses on counter c completed, in the waves of act."""
        c.done = np.where(act, np.maximum(c.done, c.issued - n), c.done)

    def wait_scalar_loads(self, act: np.ndarray) -> None:
        """All scalar loads completed (they return out of order: only a wait for 0 does that)."""
        self.smem.done = np.where(act, self.smem.issued, self.smem.done)

    def lds_outstanding(self, act: np.ndarray) -> np.ndarray:
        """The waves of act with LDS accesses in flight."""
        return act & (self.lds.issued > self.lds.done)
