"""Tracing a sample of a launch: the interpreter runs a few workgroups of the real grid (the
real kernel arguments and buffers), and records, per wave, each instruction it executed with
what timing needs: for LDS instructions their cycles from the lanes' addresses (bank conflicts,
gemmc.cost.banks), for global ones the bytes and the distinct cache lines they touch, for the
loop's compare its operands.

A long K loop is traced for PREFIX_ITERATIONS iterations: when the first wave has taken a loop's
back edge that often and the loop's exit compare extrapolates (loops.py), the run stops; the
instructions after the loop are appended to each wave's stream once (their memory costs as if
conflict-free and coalesced), and the simulation extrapolates the iterations left
(`LaunchTrace.loop`).

    sampler = Sampler(arch, pick)          # pick(kernel, grid, block) -> workgroup ids
    gemmc.amdgcn.interp.execute(module, args, arch, kernels=..., sample=sampler)
    traces = sampler.traces()
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from gemmc.amdgcn.interp.state import BUFFER_SHIFT, U64
from gemmc.amdgcn.timing.classes import InstrClass, classify_program
from gemmc.amdgcn.timing.loops import Loop, compare_kind, remaining_trips
from gemmc.cost.banks import group_lanes, wave_cycles
from gemmc.dialects.amdgcn.registers import VGPRType
from gemmc.target.arch import Arch

PREFIX_ITERATIONS = 24  # iterations of a long loop traced before extrapolating
_M64 = U64(0xFFFFFFFFFFFFFFFF)


@dataclass
class WaveTrace:
    """One wave's executed instructions: program counters, and per instruction `cost` (LDS:
    cycles on the LDS port; global: bytes) and `lines` (global: distinct cache lines)."""
    pcs: np.ndarray
    cost: np.ndarray
    lines: np.ndarray
    workgroup: int  # the sample's index of its workgroup
    traced: int = 0  # instructions recorded (the rest of pcs: the appended epilogue)
    reuse: np.ndarray | None = None  # global: the fraction of its lines an earlier instruction touched


@dataclass
class LaunchTrace:
    kernel: str
    grid: tuple
    block: tuple
    workgroups: list[int]  # the grid's linear ids that ran
    waves_per_workgroup: int
    classes: list[InstrClass]
    waves: list[WaveTrace]
    loop: Loop | None  # the extrapolated loop, None where the trace is whole
    buffers: dict = field(default_factory=dict)  # buffer index: ({"load", "store"}, bytes)

    @property
    def grid_workgroups(self) -> int:
        return int(np.prod(self.grid))


class Sampler:
    """The `sample` of gemmc.amdgcn.interp.run_kernel: which workgroups run, and their trace."""

    def __init__(self, arch: Arch, pick, prefix: int = PREFIX_ITERATIONS):
        self.arch, self.pick, self.prefix = arch, pick, prefix
        self._recorders: list[_Recorder] = []
        self._pending = None

    def workgroups(self, kernel, grid, block):
        ids = list(self.pick(kernel, grid, block))
        self._pending = (kernel, tuple(grid), tuple(block), ids)
        return ids

    def attach(self, machine) -> None:
        rec = _Recorder(machine, self.arch, self.prefix, *self._pending)
        machine.tracer = rec.step
        self._recorders.append(rec)

    def traces(self) -> list[LaunchTrace]:
        return [r.finish() for r in self._recorders]


class _Recorder:
    def __init__(self, m, arch: Arch, prefix: int, kernel, grid, block, ids):
        self.m, self.arch, self.prefix = m, arch, prefix
        self.kernel, self.grid, self.block, self.ids = kernel.sym_name.data, grid, block, ids
        self.classes = classify_program(m.prog, arch)
        self.targets = [m.labels.get(op.attributes["target"].data) if "target" in op.attributes else None
                        for op, _ in m.prog]
        self.steps: list = []
        self.heads: Counter = Counter()
        self.branch_of: dict[int, int] = {}
        self.last0 = -1
        self.cmps: dict[int, list] = {}
        self.loop: Loop | None = None
        self.buffers: dict[int, set] = {}
        self.seen: set[int] = set()  # cache lines a global access of the sample touched so far

    # -- per step --------------------------------------------------------------------------------

    def step(self, p: int, op, act: np.ndarray) -> None:
        if self.loop is not None:
            return
        if act[0]:
            if 0 <= p < self.last0:  # the first wave jumped back: a loop's back edge
                self.heads[p] += 1
                self.branch_of[p] = max(self.branch_of.get(p, 0), self.last0)
                if self.heads[p] >= self.prefix and self._stop(p):
                    return
            self.last0 = p
        waves = np.flatnonzero(act)
        c = self.classes[p]
        cost = lines = reuse = None
        if c.kind == "lds":
            cost = self._lds(op, c, waves)
        elif c.kind == "vmem":
            cost, lines, reuse = self._vmem(op, c, waves)
        elif act[0] and compare_kind(c.mnemonic):
            self.cmps.setdefault(p, []).append(self._operands(op))
        self.steps.append((p, waves, cost, lines, reuse))

    def _stop(self, head: int) -> bool:
        """Stop the run if the loop at head extrapolates (self.loop)."""
        loop = self._fit(head, self.branch_of[head])
        if loop is None:
            return False
        self.loop = loop
        self.m.done[:] = True  # the machine returns after this step
        return True

    def _fit(self, head: int, branch: int) -> Loop | None:
        exits = [e for e in range(head, branch + 1) if self.classes[e].kind == "branch"
                 and self.classes[e].mnemonic.startswith("s_cbranch_scc") and self.targets[e] is not None
                 and not head <= self.targets[e] <= branch]
        if not exits and self.classes[branch].mnemonic.startswith("s_cbranch_scc"):
            exits = [branch]
        for e in exits:
            cmp = next((c for c in range(e - 1, head - 1, -1) if compare_kind(self.classes[c].mnemonic)), None)
            if cmp is None:
                continue
            n = remaining_trips(self.cmps.get(cmp, []), compare_kind(self.classes[cmp].mnemonic)[0])
            if n is not None:
                t = self.targets[e]
                after = t if e != branch and t is not None and t > branch else branch + 1
                return Loop(head, branch, after, self.heads[head], n)
        return None

    def _operands(self, op) -> tuple[int, int]:
        """The compare's two operands for the first wave, as the compare reads them."""
        cc, ty = compare_kind(op.MNEMONIC)
        S = self.m
        if op.MNEMONIC.startswith("s_cmpk_"):
            imm = op.mods.get("imm", 0) & 0xFFFF
            b = imm - (1 << 16) if ty == "i32" and imm >= 1 << 15 else imm
            a = int(S.rd_s(op.srcs[0])[0])
        elif ty == "u64":
            a, b = int(S.rd_scalar64(op.srcs[0])[0]), int(S.rd_scalar64(op.srcs[1])[0])
        else:
            a, b = int(S.rd_s(op.srcs[0])[0]), int(S.rd_s(op.srcs[1])[0])
        if ty == "i32":
            a, b = (x - (1 << 32) if x >= 1 << 31 else x for x in (a, b))
        return a, b

    def _lds(self, op, c: InstrClass, waves: np.ndarray) -> np.ndarray:
        """LDS port cycles of each wave's instruction, bank conflicts included."""
        S, addr = self.m, op.srcs[0] if op.srcs else None
        active = S.lanes[waves]
        if addr is None or not isinstance(addr.type, VGPRType):
            return np.full(len(waves), self._ideal_lds(c.bytes_per_lane), float)
        base = S.rd_v(addr)[waves].astype(np.int64)
        m = c.mnemonic
        if m.startswith(("ds_read2", "ds_write2", "ds_load_2", "ds_store_2")):
            n = 8 if m.endswith("b64") else 4
            step = n * (64 if "st64" in m else 1)
            total = np.zeros(len(waves))
            for key in ("offset0", "offset1"):
                total += wave_cycles(base + step * op.mods.get(key, 0), active, n, self.arch).cycles
            return total
        return wave_cycles(base + op.mods.get("offset", 0), active, c.bytes_per_lane, self.arch,
                           self._lane_order(c)).cycles

    def _lane_order(self, c: InstrClass) -> tuple[int, ...]:
        """The arch's lane phases of a wave-wide 16-byte LDS read (ds_read_b128 / ds_load_b128)."""
        order = self.arch.lds_read_b128_lanes
        read = c.mnemonic.startswith(("ds_read", "ds_load")) and c.bytes_per_lane == 16
        return order if read and len(order) == self.arch.wave_size else ()

    def _ideal_lds(self, nbytes: int) -> float:
        return self.arch.wave_size / group_lanes(self.arch, max(1, nbytes))

    def _vmem(self, op, c: InstrClass, waves: np.ndarray):
        """(bytes, distinct cache lines, the fraction of them an earlier instruction touched) of each
        wave's global access."""
        S = self.m
        active = S.lanes[waves]
        nbytes = active.sum(axis=1) * c.bytes_per_lane
        if not c.mnemonic.startswith("global_"):  # scratch: each lane's own private words, adjacent
            return nbytes.astype(float), np.ceil(nbytes / self.arch.cache_line_bytes), np.zeros(len(waves))
        srcs = list(op.srcs)
        if "_d16" in c.mnemonic and op.dsts:
            srcs = srcs[:-1]  # the tied destination
        off = U64(op.mods.get("offset", 0) & 0xFFFFFFFFFFFFFFFF)
        if c.mnemonic.endswith("_saddr"):
            a = S.rd_scalar64(srcs[-1])[waves][:, None] + S.rd_v(srcs[0])[waves].astype(U64) + off
        else:
            a = S.rd_v64(srcs[0])[waves] + off
        a = np.broadcast_to(a & _M64, active.shape)
        p = c.extra.get("store") and "store" or "load"
        for b in np.unique(a[active] >> U64(BUFFER_SHIFT)):
            self.buffers.setdefault(int(b) - 1, set()).add(p)
        line = (a >> U64(int(np.log2(self.arch.cache_line_bytes)))).astype(np.int64)
        keys = np.sort(np.where(active, line, -1), axis=1)
        distinct = (np.diff(keys, axis=1) != 0).sum(axis=1) + 1 - (keys[:, 0] == -1)
        return nbytes.astype(float), distinct.astype(float), self._reuse(keys)

    def _reuse(self, keys: np.ndarray) -> np.ndarray:
        """Per wave (a row of sorted line ids, -1 for inactive lanes), the fraction of its distinct
        lines that an earlier instruction of the sample touched; then they count as touched."""
        out = np.zeros(len(keys))
        rows = [np.unique(k[k >= 0]).tolist() for k in keys]
        for i, ids in enumerate(rows):
            if ids:
                out[i] = sum(x in self.seen for x in ids) / len(ids)
        for ids in rows:
            self.seen.update(ids)
        return out

    # -- the streams -----------------------------------------------------------------------------

    def finish(self) -> LaunchTrace:
        W, L = self.m.W, self.arch.wave_size
        rows = self.steps
        pcs = np.concatenate([np.full(len(w), p, np.int32) for p, w, *_ in rows]) if rows else np.zeros(0, np.int32)
        wv = np.concatenate([w for _, w, *_ in rows]) if rows else np.zeros(0, np.int64)

        def column(j: int) -> np.ndarray:
            return np.concatenate([r[j] if r[j] is not None else np.zeros(len(r[1])) for r in rows]) if rows else np.zeros(0)

        cost, lines, reuse = column(2), column(3), column(4)
        order = np.argsort(wv, kind="stable")
        pcs, wv, cost, lines, reuse = pcs[order], wv[order], cost[order], lines[order], reuse[order]
        cut = np.searchsorted(wv, np.arange(W + 1))
        tail = self._epilogue(L)
        waves = []
        for w in range(W):
            s = slice(cut[w], cut[w + 1])
            parts = [(pcs[s], cost[s], lines[s], reuse[s])] + ([tail] if self.loop is not None else [])
            waves.append(WaveTrace(*(np.concatenate([x[j] for x in parts]) for j in range(3)), w // self.m.wpg,
                                   cut[w + 1] - cut[w], np.concatenate([x[3] for x in parts])))
        sizes = self.m.mem.buffer_bytes
        buffers = {b: (kinds, sizes[b]) for b, kinds in self.buffers.items() if 0 <= b < len(sizes)}
        return LaunchTrace(self.kernel, self.grid, self.block, self.ids, self.m.wpg, self.classes, waves,
                           self.loop, buffers)

    def _epilogue(self, L: int):
        """The instructions after the loop, once each up to the first s_endpgm, with conflict-free
        LDS and coalesced global costs and their lines touched first (they were not run)."""
        if self.loop is None:
            return None
        pcs, cost, lines = [], [], []
        for p in range(self.loop.exit, len(self.classes)):
            c = self.classes[p]
            pcs.append(p)
            if c.kind == "lds":
                cost.append(self._ideal_lds(c.bytes_per_lane))
                lines.append(0.0)
            elif c.kind == "vmem":
                cost.append(float(L * c.bytes_per_lane))
                lines.append(float(np.ceil(L * c.bytes_per_lane / self.arch.cache_line_bytes)))
            else:
                cost.append(0.0)
                lines.append(0.0)
            if c.kind == "end":
                break
        return np.array(pcs, np.int32), np.array(cost), np.array(lines), np.zeros(len(pcs))
