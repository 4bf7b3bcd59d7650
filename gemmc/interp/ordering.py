"""Happens-before between the workgroups of one launch, for kernels that synchronise them through
global memory (stream-k's fix-up: partial sums, a release fence, a counter, an acquire fence).

The SIMT interpreter runs a batch's workgroups in lockstep, op by op, in one order; a kernel that is
right only in that order (the epilogue applied by every contributor of a tile, or by the first; a
fence left out) would pass.  So for a kernel with a `gemm.fence` or an integer atomic, every access
to global memory is checked against a happens-before relation instead of against the order it ran
in: vector clocks, one per workgroup (a workgroup is one agent here: its threads meet at barriers
around the fences, as the fix-up's do).

  * a workgroup's writes are stamped with its own clock entry (its count of release fences);
  * `gemm.fence release` advances that entry and remembers the clock as what the workgroup released;
  * an atomic on an element reads the clock left there by earlier atomics (a release sequence) and
    joins into it what its workgroup released;
  * `gemm.fence acquire` joins what the workgroup's atomics read into its clock;
  * a read or write of an element that another workgroup wrote, with that write not ordered before
    it (the reader's clock entry of the writer not past the write's stamp), is a race: an error
    naming the op, the element and both workgroups.  So are two workgroups writing one element in
    one op.

Launches are ordered by the host; the relation starts empty at each launch.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects import memref
from xdsl.ir import Operation

from gemmc.dialects.gemm import FenceOp
from gemmc.interp.common import InterpError
from gemmc.support.ir_names import ATOMIC_ADDF

MAX_WORKGROUPS = 2048
"""Workgroups whose clocks fit (n x n of them): persistent kernels have one a CU."""


def synchronises(kernel: Operation) -> bool:
    """The kernel orders workgroups through memory: a fence, or an atomic other than a float add."""
    return any(isinstance(op, FenceOp) or isinstance(op, memref.AtomicRMWOp)
               and op.kind.value.data != ATOMIC_ADDF for op in kernel.walk())


class WorkgroupOrder:
    """Vector clocks of the launch's `n` workgroups, and per global element its last writer."""

    def __init__(self, n: int, kernel: str):
        if n > MAX_WORKGROUPS:
            raise InterpError(f"@{kernel} synchronises {n} workgroups through memory; the interpreter orders "
                              f"at most {MAX_WORKGROUPS}")
        self.kernel = kernel
        self.clock = np.zeros((n, n), dtype=np.int64)
        self.released = np.zeros((n, n), dtype=np.int64)
        self.observed = np.zeros((n, n), dtype=np.int64)
        self.sync: dict[tuple[int, int], np.ndarray] = {}
        self.writers: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    def fence(self, ordering: str, wgs: np.ndarray) -> None:
        wgs = np.unique(wgs)
        if ordering == "release":
            self.clock[wgs, wgs] += 1
            self.released[wgs] = self.clock[wgs]
        else:
            self.clock[wgs] = np.maximum(self.clock[wgs], self.observed[wgs])

    def atomic(self, buf_id: int, addr: np.ndarray, wgs: np.ndarray) -> None:
        """Atomics of the lanes, in lane order, on elements `addr`."""
        for a, g in zip(addr.tolist(), wgs.tolist()):
            key = (buf_id, a)
            left = self.sync.get(key)
            if left is not None:
                self.observed[g] = np.maximum(self.observed[g], left)
                self.sync[key] = np.maximum(left, self.released[g])
            else:
                self.sync[key] = self.released[g].copy()

    def read(self, op: Operation, buf, addr: np.ndarray, wgs: np.ndarray) -> None:
        found = self.writers.get(id(buf))
        if found is not None:
            writer, stamp = found
            self._check(op, buf, "reads", addr, wgs, writer[addr], stamp[addr])

    def write(self, op: Operation, buf, addr: np.ndarray, wgs: np.ndarray) -> None:
        if id(buf) not in self.writers:
            self.writers[id(buf)] = (np.full(buf.size, -1, dtype=np.int64), np.zeros(buf.size, dtype=np.int64))
        writer, stamp = self.writers[id(buf)]
        self._check(op, buf, "writes", addr, wgs, writer[addr], stamp[addr])
        order = np.argsort(addr, kind="stable")
        a, g = addr[order], wgs[order]
        clash = (a[1:] == a[:-1]) & (g[1:] != g[:-1])
        if clash.any():
            i = int(np.argmax(clash))
            raise InterpError(self._message(op, buf, int(a[i]), int(g[i + 1]), "writes", int(g[i]), "in the same op"))
        writer[addr] = wgs
        stamp[addr] = self.clock[wgs, wgs]

    def _check(self, op, buf, verb, addr, wgs, writer, stamp) -> None:
        other = (writer >= 0) & (writer != wgs)
        if not other.any():
            return
        seen = self.clock[wgs, np.maximum(writer, 0)]
        bad = other & (seen <= stamp)
        if bad.any():
            i = int(np.argmax(bad))
            raise InterpError(self._message(op, buf, int(addr[i]), int(wgs[i]), verb, int(writer[i]),
                                            "with no release fence, atomic and acquire fence between them"))

    def _message(self, op, buf, addr, wg, verb, writer, why) -> str:
        index = [int(i) for i in np.unravel_index(addr, buf.shape)]
        return (f"{op.name} in @{self.kernel}: workgroup {wg} {verb} {buf.name}{index}, which workgroup {writer} "
                f"wrote {why}: a race between workgroups")
