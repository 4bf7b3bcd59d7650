"""A global load's latency by where its cache lines are expected to hit (docs/cost-model.md, "The
ISA-level model", "Global latency").

The rule, from the trace (trace.py records per load the fraction `reuse` of its distinct cache lines
that an earlier instruction of the traced sample, any wave, already touched):

* a line touched before is an L2 hit (`arch.load_latency_ns[L2]`);
* a line touched first misses the L2: it hits the Infinity Cache / MALL (`[MALL]`) if every buffer
  the launch reads fits in it (`arch.llc_bytes`), else it comes from memory (`[MEMORY]`);

and a load's latency is the mean over its lines.  The figures are published measurements in ns
(gemmc.target.latencies, docs/arch.md), converted to cycles at `arch.clock_mhz`; a level without one
keeps `arch.mem_latency_cycles` (the model's assumption), so an arch with no figures times every
load as before.  Stores keep `mem_latency_cycles`.  An LDS access's data is back
`lds_cycles(arch)` after the port served it: the measured LDS latency where there is one, else
`arch.lds_latency_cycles`.  Nothing here is fitted.
"""

from __future__ import annotations

import numpy as np

from gemmc.amdgcn.timing.classes import InstrClass
from gemmc.target.arch import Arch

VL1, L2, MALL, MEMORY = range(4)  # the levels of Arch.load_latency_ns


def ns_cycles(ns: float, arch: Arch) -> float:
    """ns at arch's clock in cycles; a missing figure (0) is mem_latency_cycles."""
    return ns * arch.clock_mhz / 1e3 if ns > 0 else float(arch.mem_latency_cycles)


def lds_cycles(arch: Arch) -> float:
    """LDS load-to-use cycles: the measured figure (Arch.lds_latency_measured), else the assumption."""
    return arch.lds_latency_measured if arch.lds_latency_measured > 0 else float(arch.lds_latency_cycles)


def miss_cycles(arch: Arch, read_bytes: float) -> float:
    """Latency of a line no earlier access of the sample touched: the MALL's if what the launch
    reads fits in it, else memory's."""
    if arch.llc_bytes and read_bytes <= arch.llc_bytes:
        return ns_cycles(arch.load_latency_ns[MALL], arch)
    return ns_cycles(arch.load_latency_ns[MEMORY], arch)


def load_cycles(reuse, arch: Arch, read_bytes: float):
    """Latency of loads whose `reuse` fraction of lines was touched before (scalar or array)."""
    return reuse * ns_cycles(arch.load_latency_ns[L2], arch) + (1.0 - reuse) * miss_cycles(arch, read_bytes)


def stream_latencies(pcs: np.ndarray, reuse: np.ndarray | None, classes: list[InstrClass], arch: Arch,
                     read_bytes: float) -> np.ndarray:
    """Per instruction of a wave's stream, the cycles its global access takes to complete (loads by
    the rule above; stores and everything else mem_latency_cycles)."""
    lat = np.full(len(pcs), float(arch.mem_latency_cycles))
    loads = np.array([c.kind == "vmem" and not c.extra.get("store") for c in classes], bool)
    at = loads[pcs] if len(pcs) else np.zeros(0, bool)
    r = reuse if reuse is not None else np.zeros(len(pcs))
    lat[at] = load_cycles(r[at], arch, read_bytes)
    return lat
