"""Where an MFMA hazard happened: the branches a wave took between the MFMA and the instruction
that came too early, and whether those branches skipped the s_nop that would have been enough.

That second case is the pattern of an LLVM bug (docs/amdgcn-asm.md, "LLVM's missed wait
states"): GCNHazardRecognizer's getWaitStatesSince searches the predecessor blocks of a join
depth first with one `Visited` set for the whole search, so a block it reached through the
path that holds the s_nop is not walked again through the shorter path that branches around
it; the shorter path's wait states are never counted.  The interpreter still reports the
hazard (the hardware does not wait either); this only says where, and why LLVM let it pass.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import StringAttr

from gemmc.dialects.amdgcn.instructions import GcnInstruction

RING = 8  # taken branches remembered per wave (a hazard spans at most 20 wait states)
LLVM_BUG = "an LLVM bug"  # (what the sweep looks for in the message)


class TakenBranches:
    """Per wave, the last RING taken branches: (from, to) program indices and the wait states
    issued when the branch was taken."""

    def __init__(self, W: int):
        self.src = np.zeros((W, RING), np.int64)
        self.dst = np.zeros((W, RING), np.int64)
        self.at = np.full((W, RING), -1, np.int64)
        self.n = np.zeros(W, np.int64)

    def record(self, act: np.ndarray, p: int, nxt, ws: np.ndarray) -> None:
        nxt = np.broadcast_to(np.asarray(nxt), act.shape)
        rows = np.nonzero(act & (nxt != p + 1) & (nxt >= 0))[0]  # (s_endpgm: -1)
        if not len(rows):
            return
        slot = self.n[rows] % RING
        self.src[rows, slot], self.dst[rows, slot], self.at[rows, slot] = p, nxt[rows], ws[rows]
        self.n[rows] += 1

    def since(self, w: int, ws: int) -> list[tuple[int, int]]:
        """The (from, to) of the branches wave w took after `ws` wait states, oldest first."""
        order = np.argsort(self.at[w])
        return [(int(self.src[w, k]), int(self.dst[w, k])) for k in order if self.at[w, k] > ws]


def where(prog, i: int) -> str:
    """An instruction's line of the assembly ("line N", from the front's `loc`), else its index."""
    loc = prog[i][0].attributes.get("loc")
    return f"line {loc.data.rsplit(':', 1)[-1]}" if isinstance(loc, StringAttr) else f"instruction {i}"


def nop_wait_states(op) -> int:
    return op.mods.get("imm", 0) + 1 if op.MNEMONIC == "s_nop" else 1


def skipped(prog, src: int, dst: int) -> list[int]:
    """The instructions a forward branch from src to dst jumps over, up to the first
    unconditional branch among them (where the path that falls through leaves them)."""
    out = []
    for i in range(src + 1, dst):
        op = prog[i][0]
        if not isinstance(op, GcnInstruction):
            continue
        out.append(i)
        if op.MNEMONIC in ("s_branch", "s_endpgm"):
            break
    return out


def diagnosis(prog, jumps: list[tuple[int, int]], short: int) -> str:
    """What the wave's path says about a hazard `short` wait states short: the branches it took
    and, where forward branches skipped s_nops worth at least that much, that the wait states
    are on the other path only (in LLVM's code, from the assembly front: LLVM's bug)."""
    if not jumps:
        return ""
    said = [f"the {prog[s][0].MNEMONIC} at {where(prog, s)} to {where(prog, d)}" for s, d in jumps]
    text = "; the wave took " + ", then ".join(said)
    nops, extra = _skipped_nops(prog, jumps)
    if nops and extra >= short:
        text += f", past {', '.join(nops)}: the path that falls through has the wait states, this one does not"
        if isinstance(prog[jumps[0][0]][0].attributes.get("loc"), StringAttr):  # (LLVM's code, not gemmc's own)
            text += (f": {LLVM_BUG} (GCNHazardRecognizer's getWaitStatesSince walks each predecessor block once, "
                     "so it counted the other path only; docs/amdgcn-asm.md)")
    return text


def _skipped_nops(prog, jumps: list[tuple[int, int]]) -> tuple[list[str], int]:
    """The s_nops the forward branches jumped over and the wait states of all they jumped over
    (none where a branch went backwards: a loop is not the pattern)."""
    nops, extra = [], 0
    for src, dst in jumps:
        if dst <= src:
            return [], 0
        for i in skipped(prog, src, dst):
            extra += nop_wait_states(prog[i][0])
            if prog[i][0].MNEMONIC == "s_nop":
                nops.append(f"the s_nop {prog[i][0].mods.get('imm', 0)} at {where(prog, i)}")
    return nops, extra
