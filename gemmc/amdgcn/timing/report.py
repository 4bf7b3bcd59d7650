"""An ISA-level prediction (predict.AsmPrediction) as text for `gemmc explain --level asm`, or
as a JSON-ready dict."""

from __future__ import annotations

from gemmc.amdgcn.timing.predict import AsmPrediction, LaunchTiming
from gemmc.amdgcn.timing.sim import IDLE, PIPES
from gemmc.cost.peaks import achievable_peak_tflops, problem_peak_tflops


def _sample(x: LaunchTiming, unit: str) -> str:
    loop = ""
    if x.loop is not None:
        loop = (f"; its loop traced {x.loop.traced} of {x.loop.traced + x.loop.remaining} iterations, "
                f"the rest extrapolated at {x.per_iteration:.0f} cycles each")
    return (f"{x.kernel}: grid {'x'.join(map(str, x.grid))} of {'x'.join(map(str, x.block))}; traced workgroups "
            f"{', '.join(map(str, x.traced))}{loop}; {x.res.workgroups} resident a {unit} ({x.res.limiter}: "
            f"{x.res.vgprs} VGPRs, {x.res.sgprs} SGPRs, {x.res.lds_bytes} B LDS), {x.rounds:.2f} rounds")


def format_prediction(p: AsmPrediction) -> str:
    """Lines: time, TFLOP/s, peaks, clock, bound, the sample, the per-SIMD cycles of a round."""
    a, m = p.arch, p.main
    lines = [f"ISA-level prediction on {a.name} ({a.product}):",
             f"  time {p.time_s * 1e3:.3f} ms, {p.tflops:.2f} TFLOP/s, {p.percent_of_peak:.1f}% of the data-sheet "
             f"peak ({problem_peak_tflops(a, p.in_type):.1f}), {p.percent_of_achievable:.1f}% of the achievable "
             f"({achievable_peak_tflops(a, p.in_type):.1f})",
             f"  clock {m.clock_mhz:.0f} MHz (boost {a.clock_mhz}); bound: {m.bound}",
             f"  times: CU {m.times['cu'] * 1e3:.3f} ms, L2 {m.times['l2'] * 1e3:.3f} ms, DRAM >= "
             f"{m.times['dram'] * 1e3:.3f} ms"]
    for x in p.launches:
        lines.append("  sample: " + _sample(x, "WGP" if x.res.cus > 1 else "CU"))
    lines.append(f"  one round: {m.round_cycles:,.0f} cycles; per SIMD, busy by pipe and idle by cause:")
    head = "  SIMD " + "".join(f"{n:>10}" for n in PIPES) + " |" + "".join(f"{n:>12}" for n in IDLE)
    lines.append(head)
    for s in range(m.busy.shape[0]):
        lines.append(f"  {s:>4} " + "".join(f"{v:>10,.0f}" for v in m.busy[s]) + " |"
                     + "".join(f"{v:>12,.0f}" for v in m.idle[s]))
    lines.append(f"  LDS port busy {m.lds_port:,.0f} cycles a round")
    return "\n".join(lines) + "\n"


def prediction_json(p: AsmPrediction) -> dict:
    m = p.main
    return {
        "level": "asm", "arch": p.arch.name, "time_s": p.time_s, "tflops": p.tflops,
        "percent_of_problem_peak": p.percent_of_peak, "percent_of_achievable_peak": p.percent_of_achievable,
        "clock_mhz": m.clock_mhz, "bound": m.bound,
        "launches": [{
            "kernel": x.kernel, "grid": list(x.grid), "block": list(x.block), "traced_workgroups": x.traced,
            "resident_workgroups": x.res.workgroups, "occupancy_limiter": x.res.limiter, "rounds": x.rounds,
            "round_cycles": x.round_cycles, "time_s": x.time_s, "times_s": x.times, "bound": x.bound,
            "clock_mhz": x.clock_mhz,
            "loop": None if x.loop is None else {"traced": x.loop.traced, "remaining": x.loop.remaining,
                                                 "cycles_per_iteration": x.per_iteration},
            "simd_busy": [dict(zip(PIPES, map(float, r))) for r in x.busy],
            "simd_idle": [dict(zip(IDLE, map(float, r))) for r in x.idle],
            "lds_port_busy": x.lds_port, "l2_bytes": x.l2_bytes, "dram_bytes": x.dram_bytes,
        } for x in p.launches],
    }
