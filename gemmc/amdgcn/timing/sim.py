"""One CU (an RDNA WGP) running the waves of its resident workgroups, cycle by cycle in events.

Each wave sits on one SIMD and issues its traced instructions in order.  An instruction issues
when (classes.py has the numbers and their sources)

* its wait (s_waitcnt, gfx12's s_wait_*cnt) is satisfied: the wave's outstanding accesses on
  each named counter are at most the count; each access completes at its issue plus latency,
  in order per counter;
* the registers it reads are written (RDNA: a VALU result after its latency);
* the pipe it needs on its SIMD is free (VALU: 4 cycles a wave64 instruction on CDNA, 1 on
  RDNA; the matrix pipe: the MFMA's cycles; SALU, LDS and VMEM issue one a slot) and, on RDNA,
  the SIMD's one issue port; on CDNA an MFMA is issued as a VALU instruction, so an MFMA and a
  VALU instruction never issue in the same slot of a SIMD (ROCm Compute Profiler, "Scheduler":
  "On CDNA accelerators with MFMA instructions, these are issued via the VALU"), and on CDNA3/4
  a VALU instruction waits out the hold of the SIMD's last MFMA (classes.py, valu_after_mfma);
* of the waves that may issue at one time, the one that issued least recently goes first (an
  assumption; OLDEST_FIRST: the oldest, the ISA's wave age);
* the wave itself may issue (one instruction a 4-cycle slot on CDNA, a cycle on RDNA; an
  s_nop n holds it n + 1 slots; a taken branch BRANCH_TAKEN cycles);
* at s_barrier, every live wave of its workgroup has arrived (then BARRIER_CYCLES later).

The CU's LDS serves one instruction at a time per port (RDNA's WGP: one per CU, a workgroup's
accesses on the half its allocation is in: resident.lds_half), for the instruction's cycles
from its lanes' addresses (bank conflicts included; conflict-free it moves
arch.lds_bytes_per_clk); its data is back latency.lds_cycles later (measured, else lds_latency_cycles).  On CDNA the banks are
reached through one port per SIMD pair (arch.lds_pair_port_bytes, classes.lds_port_cycles): a
pair sends one instruction's addresses (and a store's data) in at a time and takes a read's data
back, 64 B/clk each way, so a wave64 ds_read_b128 holds its pair's port 16 cycles (the banks 8)
and a ds_write_b128 20.  Global accesses go through
the CU's vector memory path at max(bytes / l1_bytes_per_clk, cache lines, 1) cycles each (the
IR-level model's VMEM cost, docs/cost-model.md) and complete their latency later (the SimWave's,
latency.py's rule by where the lines hit; without one mem_latency_cycles).

What each SIMD spends its cycles on: each pipe's busy cycles, and the cycles no pipe of the
SIMD is busy, charged to why the next instruction to issue there waited (a memory counter, a
barrier, a dependency, an s_nop or branch, or a pipe).
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field

import numpy as np

from gemmc.amdgcn.timing.classes import BRANCH_TAKEN, InstrClass, cadence, lds_port_cycles
from gemmc.amdgcn.timing.latency import lds_cycles
from gemmc.cost.model import BARRIER_CYCLES
from gemmc.target.arch import Arch, get_gcn_isa

# Which of the waves ready at one time issues first: False, the one that issued least recently
# (an assumption: waves sharing a pipe take turns); True, the oldest (the ISA's wave priority is
# {s_setprio, wave age}, the age's direction unstated; LLVM's AMDGPUSetWavePriority raises a
# wave's priority "to allow younger waves to issue").  Oldest-first makes every validated row
# more optimistic (benchmarks/validate_isa.py's sensitivity table), so it is not the model's.
OLDEST_FIRST = False
PIPES = ("matrix", "valu", "salu", "lds", "vmem", "issue")  # issue: a wave's slots (cadence per instruction)
IDLE = ("wait vmem", "wait lds", "barrier", "dependency", "nop/branch", "issue")


@dataclass
class SimWave:
    """A wave to simulate: its instruction stream (a trace.WaveTrace's arrays), its SIMD, its
    workgroup (among the resident ones) and the stream positions where loop iterations start."""
    pcs: np.ndarray
    cost: np.ndarray
    lines: np.ndarray
    simd: int
    workgroup: int
    marks: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    latency: np.ndarray | None = None  # per instruction, its global access's cycles to complete
    # (latency.py's rule); None: mem_latency_cycles
    lds_port: int | None = None  # the LDS port its workgroup's allocation is on (resident.lds_half);
    # None: whichever port is free first


@dataclass
class SimResult:
    cycles: float  # until the last wave ended and every pipe and access finished
    busy: np.ndarray  # [SIMD, PIPES] busy cycles
    idle: np.ndarray  # [SIMD, IDLE] cycles no pipe of the SIMD was busy, by cause
    lds_port: float  # busy cycles of the busiest LDS port
    vmem_port: float
    mark_times: list  # per wave, the issue times of its marks
    snapshots: list  # (time, busy copy, idle copy, lds port, vmem port) at wave 0's marks
    wave_end: np.ndarray


class _Wave:
    __slots__ = ("w", "pos", "simd", "wg", "why", "done", "comp", "ready", "marks", "mark_i", "mark_t", "cleared", "last")

    def __init__(self, w: int, sw: SimWave):
        self.w, self.pos, self.simd, self.wg = w, 0, sw.simd, sw.workgroup
        self.why, self.done = "issue", False
        self.comp = {"vm": [], "vs": [], "lds": [], "sm": []}
        self.ready = [0.0] * 1024  # when each VGPR (512 + i: AGPR i) may be read
        self.marks, self.mark_i, self.mark_t = sw.marks.tolist(), 0, []
        self.cleared = -1  # the stream position whose own gates were met (only pipes hold it)
        self.last = -1.0  # when it last issued


def simulate(waves: list[SimWave], classes: list[InstrClass], arch: Arch, n_simds: int, ports: int = 1) -> SimResult:
    """Run the waves on one CU of n_simds SIMDs with `ports` LDS and VMEM ports; see the module."""
    return _Sim(waves, classes, arch, n_simds, ports).run()


class _Sim:
    def __init__(self, waves, classes, arch: Arch, n_simds: int, ports: int):
        self.sw, self.cls, self.arch = waves, classes, arch
        self.c = cadence(arch)
        self.rdna = self.c == 1
        self.bar_mem = get_gcn_isa(arch).barrier_waits_memory
        self.ws = [_Wave(i, w) for i, w in enumerate(waves)]
        self.free = np.zeros((n_simds, len(PIPES)))  # (issue: the SIMD's one issue port on RDNA)
        self.busy = np.zeros((n_simds, len(PIPES)))
        self.idle = np.zeros((n_simds, len(IDLE)))
        self.last = np.zeros(n_simds)  # the end of the latest pipe activity per SIMD
        self.vslot = np.zeros(n_simds)  # CDNA: when the SIMD's VALU issue (VALU or MFMA) is next free
        self.vhold = np.zeros((n_simds, 2))  # CDNA3/4: when the last MFMA lets a VALU, a packed F32 one issue
        self.lds_free, self.vm_free = [0.0] * ports, [0.0] * ports
        self.lds_busy, self.vm_busy = [0.0] * ports, [0.0] * ports
        pairs = max(1, n_simds // 2) if arch.lds_pair_port_bytes else 0  # CDNA's SIMD pairs' LDS ports
        self.pair_free = np.zeros((pairs, 2))  # (in, out) of each pair's port
        self.pair_busy = np.zeros((pairs, 2))
        self.live: dict[int, int] = {}
        for w in self.ws:
            self.live[w.wg] = self.live.get(w.wg, 0) + 1
        self.parked: dict[int, list] = {}
        self.bar_t: dict[int, float] = {}
        self.end_t = np.zeros(len(waves))
        self.snapshots: list = []
        # (time, last issue, order pushed, wave): of the waves ready at one time the one that
        # issued least recently goes first, so a pipe freed goes to the wave that waited longest
        # and waves sharing a pipe take turns (no wave starves the others); OLDEST_FIRST: (time,
        # age) instead, a wave's index its age (the sample's waves are created in order)
        self.oldest = OLDEST_FIRST
        self.heap = [(0.0, w.w if self.oldest else -1.0, w.w, w.w) for w in self.ws]
        self.seq = len(self.ws)
        heapq.heapify(self.heap)

    def run(self) -> SimResult:
        heap = self.heap
        while heap:
            t, _, _, i = heapq.heappop(heap)
            self._step(t, self.ws[i])
        pend = max([max(q[-1] if q else 0.0 for q in w.comp.values()) for w in self.ws] + [0.0])
        T = max(float(self.end_t.max(initial=0.0)), float(self.free.max(initial=0.0)), max(self.lds_free),
                float(self.pair_free.max(initial=0.0)),
                max(self.vm_free), pend)
        return SimResult(T, self.busy, self.idle, self._lds_load(), max(self.vm_busy),
                         [w.mark_t for w in self.ws], self.snapshots, self.end_t)

    def _lds_load(self) -> float:
        """Busy cycles of the busiest part of the LDS: its banks' port, or a SIMD pair's port either way."""
        return max(max(self.lds_busy), float(self.pair_busy.max(initial=0.0)))

    def _push(self, t: float, w: _Wave, why: str | None = None) -> None:
        if why is not None:
            w.why = why
        self.seq += 1
        heapq.heappush(self.heap, (t, w.w if self.oldest else w.last, self.seq, w.w))

    def _step(self, t: float, w: _Wave) -> None:
        sw = self.sw[w.w]
        if w.pos >= len(sw.pcs):
            self._end(t, w)
            return
        if w.mark_i < len(w.marks) and w.pos == w.marks[w.mark_i]:  # a loop iteration starts
            w.mark_t.append(t)
            w.mark_i += 1
            if w.w == 0:
                self.snapshots.append((t, self.busy.copy(), self.idle.copy(), self._lds_load(), max(self.vm_busy)))
        pc = int(sw.pcs[w.pos])
        c = self.cls[pc]
        if c.dual_second:  # the second op of a VOPD pair issued with the first
            w.pos += 1
            self._push(t, w)
            return
        if w.cleared != w.pos:  # (a wave's own gates, once met, stay met)
            gate, why = self._gates(t, w, c)
            if gate > t:
                self._push(gate, w, why)
                return
            w.cleared = w.pos
        if c.kind == "barrier" and c.extra.get("wait"):
            self._arrive(t, w)
            return
        if c.kind == "end":
            self._end(t, w)
            return
        s = w.simd
        k = PIPES.index(c.pipe) if c.pipe else -1
        port = self.free[s, -1] if self.rdna else 0.0  # (RDNA: one instruction a cycle per SIMD)
        if not self.rdna and c.kind in ("matrix", "valu"):  # CDNA: MFMAs are issued as VALU instructions
            port = self.vslot[s]
            if c.kind == "valu":  # behind an MFMA (classes: valu_after_mfma)
                port = max(port, self.vhold[s, 1 if c.extra.get("packed") else 0])
        ready = max(self.free[s, k] if k >= 0 else 0.0, port)
        if ready > t:
            self._push(ready, w, w.why if w.why != "issue" else "issue")
            return
        self._issue(t, w, c, sw, k)

    def _gates(self, t: float, w: _Wave, c: InstrClass) -> tuple[float, str]:
        """When the wave's own state lets c issue, and what held it."""
        gate, why = t, w.why
        if c.kind == "wait":
            for name, n in c.waits:
                q = w.comp[name]
                if len(q) > n and q[len(q) - 1 - n] > gate:
                    gate, why = q[len(q) - 1 - n], "wait lds" if name in ("lds", "sm") else "wait vmem"
        elif c.kind == "barrier" and self.bar_mem:  # s_barrier waits for the wave's memory too
            for name, q in w.comp.items():
                if q and q[-1] > gate:
                    gate, why = q[-1], "barrier"
        for a, b in c.reads:
            r = max(w.ready[a:b])
            if r > gate:
                gate, why = r, "dependency"
        return gate, why

    def _issue(self, t: float, w: _Wave, c: InstrClass, sw: SimWave, k: int) -> None:
        s = w.simd
        w.last = t
        if t > self.last[s]:
            self.idle[s, IDLE.index(w.why)] += t - self.last[s]
            self.last[s] = t
        if k >= 0:
            self.free[s, k] = t + c.busy
            self.busy[s, 0 if c.kind == "matrix" else k] += c.busy  # (RDNA's WMMA: on the VALU, counted as matrix)
            self.last[s] = max(self.last[s], t + c.busy)
        if self.rdna:
            self.free[s, -1] = t + 1
        elif c.kind in ("matrix", "valu"):
            self.vslot[s] = t + self.c
            if c.kind == "matrix":
                self.vhold[s] = (t + c.extra.get("valu_hold", self.c), t + c.extra.get("packed_hold", self.c))
        self.busy[s, -1] += self.c
        if c.counter:
            lat = float(sw.latency[w.pos]) if sw.latency is not None else float(self.arch.mem_latency_cycles)
            self._access(t, w, c, float(sw.cost[w.pos]), float(sw.lines[w.pos]), lat)
        if c.latency and c.writes and c.kind != "smem":
            for a, b in c.writes:
                w.ready[a:b] = [t + c.latency] * (b - a)
        nxt = t + max(self.c, c.wave_busy)
        why = "issue"
        if c.kind == "nop":
            why = "nop/branch"
        elif c.kind == "branch" and w.pos + 1 < len(sw.pcs) and int(sw.pcs[w.pos + 1]) != int(sw.pcs[w.pos]) + 1:
            nxt, why = t + BRANCH_TAKEN, "nop/branch"  # a taken branch refetches
        w.pos += 1
        self._push(nxt, w, why)

    def _access(self, t: float, w: _Wave, c: InstrClass, cost: float, lines: float, latency: float) -> None:
        """A memory access: its time on the CU's LDS or VMEM port and its completion."""
        a = self.arch
        if c.counter == "lds":
            done = self._lds(t, w, c, cost) + lds_cycles(a)
        elif c.counter == "sm":
            done = t + c.latency
        else:
            cyc = max(cost / a.l1_bytes_per_clk, lines, 1.0)
            p = int(np.argmin(self.vm_free))
            start = max(t, self.vm_free[p])
            self.vm_free[p] = start + cyc
            self.vm_busy[p] += cyc
            done = start + cyc + latency
        q = w.comp[c.counter]
        q.append(max(done, q[-1]) if q else done)  # in order: a count covers the oldest first

    def _lds(self, t: float, w: _Wave, c: InstrClass, cost: float) -> float:
        """When an LDS access's data is through: its SIMD pair's port takes the addresses (and a
        store's data) in, the banks serve it for `cost` cycles (its conflicts), the port sends a
        read's data back; each in turn, each one instruction at a time (arch.lds_pair_port_bytes;
        without pair ports the banks alone)."""
        port = self.sw[w.w].lds_port
        p = int(np.argmin(self.lds_free)) if port is None else port
        start = t
        if len(self.pair_free):
            q = min(w.simd // 2, len(self.pair_free) - 1)
            cin, cout = lds_port_cycles(self.arch, c.bytes_per_lane, bool(c.extra.get("store")))
            start = max(t, self.pair_free[q, 0])
            self.pair_free[q, 0] = start + cin
            self.pair_busy[q] += (cin, cout)
        start = max(start, self.lds_free[p])
        self.lds_free[p] = start + cost
        self.lds_busy[p] += cost
        if not len(self.pair_free):
            return start + cost
        back = max(start, self.pair_free[q, 1])
        self.pair_free[q, 1] = back + cout
        return max(start + cost, back + cout)

    def _arrive(self, t: float, w: _Wave) -> None:
        """w at a barrier: parked until every live wave of its workgroup is there."""
        self.parked.setdefault(w.wg, []).append(w)
        self.bar_t[w.wg] = max(self.bar_t.get(w.wg, 0.0), t)
        self._release(w.wg)

    def _release(self, wg: int) -> None:
        waiting = self.parked.get(wg, [])
        if waiting and len(waiting) >= self.live[wg]:
            go = self.bar_t.pop(wg) + BARRIER_CYCLES
            for v in waiting:
                v.pos += 1
                self._push(go, v, "barrier")
            self.parked[wg] = []

    def _end(self, t: float, w: _Wave) -> None:
        if w.done:
            return
        w.done = True
        self.end_t[w.w] = t
        self.live[w.wg] -= 1
        self._release(w.wg)
