"""The amdgcn interpreter's machine: a finalized kernel's program, compiled once into one body
per instruction (its semantics, semantics.py, behind its checks), run for every wave of the
grid at once.

Scheduling: the waves whose program counter is lowest run the next instruction together (the
others wait), which keeps waves in step through uniform control flow and lets s_barrier check
that every wave of a workgroup arrived at the same one.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from xdsl.ir import Operation

from gemmc.amdgcn.interp.hazards import Hazards
from gemmc.amdgcn.interp.matrix_ops import matrix_instr
from gemmc.amdgcn.interp.memory import Memory
from gemmc.amdgcn.interp.memory_ops import access_bytes, read_halves
from gemmc.amdgcn.interp.races import LdsRaces
from gemmc.amdgcn.interp.semantics import handler
from gemmc.amdgcn.interp.state import GcnInterpError, WaveState
from gemmc.amdgcn.interp.waitcnt import LOAD_COUNTER, Waitcnt
from gemmc.target.arch import Arch
from gemmc.dialects.amdgcn.control_flow import ForOp, IfOp, IfUniformOp
from gemmc.dialects.amdgcn.instructions import GcnInstruction, is_matrix, is_mfma, is_wmma
from gemmc.dialects.amdgcn.kernel import KernelOp
from gemmc.dialects.amdgcn.pseudo import ConcatOp, CopyOp, LabelOp
from gemmc.dialects.amdgcn.registers import GcnRegisterType
from gemmc.target.amdgcn_isa import PLAIN_VALU_FORMATS

MAX_STEPS = 20_000_000


@dataclass
class Stats:
    instructions: int = 0  # executed per wave, summed over waves
    steps: int = 0
    waits: int = 0
    by_class: dict = field(default_factory=dict)


class Machine(WaveState):
    """The registers (WaveState), memory (`mem`), the checks' state (`waits`, `races`,
    `hazards`) and the compiled program of one launch of `kernel`."""

    def __init__(self, kernel: KernelOp, arch: Arch, grid, block, buffers: list[np.ndarray], kernarg: np.ndarray,
                 buffer_bytes: list[int] | None = None, workgroups=None):
        super().__init__(kernel, arch, grid, block, workgroups)
        self.mem = Memory(self, buffers, kernarg, buffer_bytes)
        self.races = LdsRaces(self, 4 * self.mem.lds_words)  # (by byte)
        self.waits = Waitcnt(self)
        self.stats = Stats()
        self.prog, self.labels = self._program()
        self.hazards = Hazards(self, has_mfma=any(is_mfma(op) for op, _ in self.prog),
                               has_wmma=any(is_wmma(op) for op, _ in self.prog))
        self.prog = [(op, self._compile(op)) for op, _ in self.prog]
        self.kinds = {op: self._counter(op) for op, _ in self.prog}
        # called as tracer(pc, op, act) before each instruction runs (gemmc.amdgcn.timing's
        # trace); None: nothing to record, one test a step
        self.tracer = None

    @property
    def buffers(self) -> list[np.ndarray]:
        """The buffers' words, as the kernel left them."""
        return self.mem.buffers

    # -- the program -----------------------------------------------------------------------------

    def _program(self) -> tuple[list, dict[str, int]]:
        """The kernel's instructions (not compiled yet) and the program index of each label."""
        prog: list[tuple[Operation, object]] = []
        labels: dict[str, int] = {}
        for op in self.kernel.body.block.ops:
            if isinstance(op, LabelOp):
                labels[op.label.data] = len(prog)
            elif isinstance(op, GcnInstruction):
                prog.append((op, None))
            elif isinstance(op, (ForOp, IfOp, IfUniformOp, CopyOp, ConcatOp)):
                raise GcnInterpError("amdgcn interpreter: the kernel is not finalized; run amdgcn-finalize")
        return prog, labels

    def _compile(self, op: GcnInstruction):
        """op's body behind its checks: no pending register read or overwritten, no hazard."""
        reg_srcs, halves = [], []
        for v, h in zip(op.srcs, read_halves(op)):
            if isinstance(v.type, GcnRegisterType):
                reg_srcs.append(v)
                halves.append(h)
        reg_dsts = [v for v in op.dsts if isinstance(v.type, GcnRegisterType)]
        body = handler(op)(self, op)
        target = op.attributes.get("target")
        tgt = self.labels.get(target.data) if target is not None else None  # type: ignore[attr-defined]
        if target is not None and tgt is None:
            raise GcnInterpError(f"amdgcn interpreter: branch to unknown label {target.data}")  # type: ignore[attr-defined]
        hazards = self.hazards.checks(op)
        wait_states = op.mods.get("imm", 0) + 1 if op.MNEMONIC == "s_nop" else 1
        in_order = LOAD_COUNTER.get(op.FORM.fmt, 0) if reg_dsts else 0
        tied_in_order = in_order if op.FORM.tied is not None else 0  # a d16 load reads the half it keeps

        def run(act: np.ndarray):
            self.waits.check_regs(op, reg_srcs, act, "reads", tied_in_order, halves)
            self.waits.check_regs(op, reg_dsts, act, "overwrites", in_order)
            for hazard in hazards:
                hazard(act)
            out = body(act, tgt)
            self.hazards.issued(act, wait_states)
            return out

        return run

    # -- running ---------------------------------------------------------------------------------

    def run(self, counts=None) -> None:
        """Run to the end; `counts` (a gemmc.interp.Stats) accumulates what was executed."""
        n = len(self.prog)
        steps = 0
        at_barrier = np.array([op.MNEMONIC in ("s_barrier", "s_barrier_wait") for op, _ in self.prog] + [False])
        while True:
            alive = ~self.done
            if not alive.any():
                return
            ready = alive & ~self._waiting(alive, at_barrier)
            if not ready.any():
                raise self.error(self.prog[int(self.pc[alive].min())][0], "the waves of a workgroup wait at "
                                 "different barriers (a deadlock on a GPU)", alive)
            p = int(self.pc[ready].min())
            if p >= n:
                raise GcnInterpError("amdgcn interpreter: a wave ran past the end of the program (no s_endpgm)")
            act = ready & (self.pc == p)
            op, fn = self.prog[p]
            if self.tracer is not None:
                self.tracer(p, op, act)
            if counts is not None:
                self.count(op, act, counts)
            nxt = fn(act)
            if nxt is None:
                self.pc = np.where(act, p + 1, self.pc)
            else:
                self.pc = np.where(act, nxt, self.pc)
                self.hazards.branched(act, p, nxt)
            k = int(act.sum())
            self.stats.instructions += k
            self.stats.steps += 1
            steps += 1
            if steps > MAX_STEPS:
                raise GcnInterpError(f"amdgcn interpreter: more than {MAX_STEPS} steps; an endless loop?")

    def _waiting(self, alive: np.ndarray, at_barrier: np.ndarray) -> np.ndarray:
        """The waves at a barrier that waits for waves of their workgroup still elsewhere (LLVM's
        divergent branches bring a workgroup's waves to a barrier along different paths)."""
        pcs = np.minimum(self.pc, len(at_barrier) - 1)
        there = alive & at_barrier[pcs]
        if not there.any():
            return there
        big = np.iinfo(np.int64).max
        lo = np.where(alive, self.pc, big).reshape(self.nwg, self.wpg).min(axis=1)
        hi = np.where(alive, self.pc, -1).reshape(self.nwg, self.wpg).max(axis=1)
        return there & (lo != hi)[self.wg_of]

    # -- counting --------------------------------------------------------------------------------

    def _counter(self, op: GcnInstruction):
        """(gemmc.interp.Stats field, bytes per lane or flops) for what op counts as, or None."""
        f, m = op.FORM.fmt, op.MNEMONIC
        if f == "GLOBAL":
            return ("global_load" if op.dsts else "global_store", access_bytes(op))
        if f == "DS":
            return ("lds_load" if op.dsts else "lds_store", access_bytes(op))
        if is_matrix(op):
            return ("mfma", matrix_instr(self.arch, op).flops)
        if f in PLAIN_VALU_FORMATS:
            return ("valu" if m.endswith("_f32") else "valu_int", 2 if m in ("v_fma_f32", "v_fmac_f32") else
                    (1 if m.endswith("_f32") and not m.startswith(("v_cmp", "v_cvt")) else 0))
        if m in ("s_barrier", "s_barrier_wait"):
            return ("barrier", 0)
        return None

    def count(self, op, act: np.ndarray, st) -> None:
        """Add op, run by the waves of act, to st (a gemmc.interp.Stats)."""
        kind = self.kinds.get(op)
        if kind is None:
            return
        what, x = kind
        waves = int(act.sum())
        if what == "barrier":
            st.barriers += len(np.unique(self.wg_of[act]))
            return
        lanes = int((act[:, None] & self.lanes).sum())
        if what == "mfma":
            st.matrix_instrs += waves
            st.flops += x * waves
            return
        if what in ("valu", "valu_int"):
            if what == "valu":
                st.valu_instrs += waves
                st.flops += x * lanes
            else:
                st.valu_int_instrs += waves
            return
        setattr(st, f"{what}_instrs", getattr(st, f"{what}_instrs") + waves)
        setattr(st, f"{what}_bytes", getattr(st, f"{what}_bytes") + x * lanes)
