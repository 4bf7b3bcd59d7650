"""Published, measured load-to-use latencies of the AMD targets, each with its source.

gemmc.target.arch takes them into each Arch (`Arch.load_latency_ns`, `Arch.lds_latency_measured`)
through `measured(name)`; only the ISA-level model (gemmc/amdgcn/timing/latency.py) reads them.
The IR-level model keeps the assumed `mem_latency_cycles` / `lds_latency_cycles`.
docs/arch.md ("Memory latencies") tabulates them with the same sources.  A level no
measurement was found for is 0 (the model keeps `mem_latency_cycles` / `lds_latency_cycles`).

Where a source gives cycles, they are converted here to ns at the clock the measurement ran
at (the clock the source reports), so that the model, which keeps ns and converts at
`Arch.clock_mhz`, gets the measured cycles back when the two clocks agree.
"""

from __future__ import annotations

# mt4g ("Memory Topology 4 GPUs", github.com/caps-tum/mt4g, commit 231c5bcc4b90): single-lane
# pointer chases (<<<1, 1>>>), each dependent load timed by s_memtime before and after it (shader
# clock cycles, the timer's own s_memtime + s_waitcnt not subtracted), the mean of 255 loads
# (2047 for memory); "main" chases a 1 GiB array at random with cache-bypassing loads.  The
# report gives the clock as hipDeviceAttributeClockRate: 2100 MHz (MI300X), 1700 MHz (MI210).
MT4G_MI300X = "mt4g sample_results/AMD Instinct MI300X VF/README.md (2025-08-08)"
MT4G_MI210 = "mt4g sample_results/AMD Instinct MI210/README.md (2025-08-08)"


def _ns(cycles: float, mhz: float) -> float:
    """A latency measured in cycles at mhz, in ns."""
    return round(cycles * 1e3 / mhz, 2)


# (vL1 / L0 hit, L2 hit, Infinity Cache / MALL hit, memory), ns
LOAD_LATENCY_NS: dict[str, tuple[float, float, float, float]] = {
    # MI210 (the die of one MI250X GCD): vL1 124, L2 302.149 cycles at 1700 MHz (MT4G_MI210);
    # no MALL; memory 320 ns, a Triton dependent-load chase over 64 MiB ("0.32 µs per dependent
    # load", AMD-AGI/TraceLens pull request #964; mt4g's own 1 GiB chase: 740.883 cycles, 436 ns)
    "gfx90a": (_ns(124.0, 1700), _ns(302.149, 1700), 0.0, 320.0),
    # MI300X: vL1 116, L2 287.545, memory 899.658 cycles at 2100 MHz (MT4G_MI300X); the MALL's
    # latency is not in it (mt4g times no L3 on AMD) nor in any source found: assumed
    "gfx942": (_ns(116.0, 2100), _ns(287.545, 2100), 0.0, _ns(899.658, 2100)),
    # RX 7900 XTX, Infinity Cache in the higher power state: Chips and Cheese, "Latency Testing is
    # Hard (RDNA 3 Power Saving)", 2023-06-14 (its other levels are in charts only)
    "gfx1100": (0.0, 0.0, 150.3, 0.0),
}

# LDS load-to-use (a ds_read's dependent chase), cycles: MI300X 51.294 (MT4G_MI300X), MI210 49.945
# (MT4G_MI210); timed as the loads above
LDS_LATENCY_CYCLES: dict[str, float] = {"gfx90a": 49.945, "gfx942": 51.294}


def measured(name: str) -> dict:
    """The Arch fields of target `name` that hold measured latencies (none: the defaults)."""
    out: dict = {}
    if name in LOAD_LATENCY_NS:
        out["load_latency_ns"] = LOAD_LATENCY_NS[name]
    if name in LDS_LATENCY_CYCLES:
        out["lds_latency_measured"] = LDS_LATENCY_CYCLES[name]
    return out
