"""The ISA-level prediction: trace a sample of each launch (trace.py), simulate one CU holding
its resident workgroups (sim.py), and scale to the launch.

    kernel time = rounds x round time,  rounds = workgroups of the busiest CU / resident ones
    round time  = simulated cycles (+ the loop's untraced iterations x its steady cycles each)

at the clock gemmc.cost.clock gives for the launch's matrix busy fraction, and no less than the
L2 time (the traced cache lines of every workgroup at arch.l2_bytes_per_clk) and the DRAM time
(every buffer the kernel touches read, or written, once: a lower bound, at mem_bandwidth_gbs).

    p = predict(run, text, arch, flops, in_type)   # run(sampler) executes the launches
    p.time_s, p.tflops, p.bound, p.launches[0].busy
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from gemmc.amdgcn.asm_front.text import parse_file
from gemmc.amdgcn.timing.latency import stream_latencies
from gemmc.amdgcn.timing.resident import Residency, lds_half, residency, simds, units
from gemmc.amdgcn.timing.sim import IDLE, PIPES, SimResult, SimWave, simulate
from gemmc.amdgcn.timing.trace import PREFIX_ITERATIONS, LaunchTrace, Sampler
from gemmc.cost.clock import at_clock, sustained_clock_mhz
from gemmc.cost.peaks import achievable_peak_tflops, problem_peak_tflops
from gemmc.support.diagnostics import GemmcError
from gemmc.target.arch import Arch

MAX_TRACED = 4  # distinct workgroups traced per launch; more resident ones repeat them
BOUNDS = ("matrix pipe", "VALU issue", "wave issue", "LDS", "memory wait", "barrier", "L2", "DRAM")


@dataclass
class LaunchTiming:
    """One launch: its sample, residency, the simulated round and what it scales to (cycles at
    any clock, seconds at the launch's clock)."""
    kernel: str
    grid: tuple
    block: tuple
    traced: list[int]
    res: Residency
    rounds: float
    round_cycles: float
    busy: np.ndarray  # [SIMD, PIPES] per round
    idle: np.ndarray  # [SIMD, IDLE] per round
    lds_port: float  # per round
    loop: object  # trace.Loop or None
    per_iteration: float  # steady cycles of one loop iteration (0 without a loop)
    l2_bytes: float
    dram_bytes: float
    clock_mhz: float = 0.0
    times: dict = field(default_factory=dict)  # seconds: cu, l2, dram
    bound: str = ""

    @property
    def time_s(self) -> float:
        return max(self.times.values())


@dataclass
class AsmPrediction:
    arch: Arch
    launches: list[LaunchTiming]
    flops: float
    in_type: str

    @property
    def time_s(self) -> float:
        return sum(x.time_s for x in self.launches)

    @property
    def main(self) -> LaunchTiming:
        return max(self.launches, key=lambda x: x.time_s)

    @property
    def tflops(self) -> float:
        return self.flops / self.time_s / 1e12 if self.time_s else 0.0

    @property
    def percent_of_peak(self) -> float:
        return 100.0 * self.tflops / problem_peak_tflops(self.arch, self.in_type)

    @property
    def percent_of_achievable(self) -> float:
        return 100.0 * self.tflops / achievable_peak_tflops(self.arch, self.in_type)


def predict(run: Callable[[Sampler], object], text: str, arch: Arch, flops: float, in_type: str,
            path: str = "<asm>", dynamic_lds: int = 0, prefix: int = PREFIX_ITERATIONS) -> AsmPrediction:
    """Trace the launches `run(sampler)` makes of the kernels in `text` (assembly for arch) and
    predict them; `flops` of the whole program, `in_type` its inputs' type (for the peaks);
    `prefix`: the iterations of a long loop traced before the rest is extrapolated."""
    kernels = parse_file(path, text).kernels

    def resident(kernel, block) -> Residency:
        k = kernels.get(kernel.sym_name.data)
        if k is None:
            raise GemmcError(f"{path}: no kernel {kernel.sym_name.data} in the assembly")
        return residency(k.descriptor, k.meta, arch, int(np.prod(block)), dynamic_lds)

    def pick(kernel, grid, block) -> list[int]:
        res = resident(kernel, block)
        n, u = int(np.prod(grid)), units(arch, res)
        r = slots(res, n, arch)
        return [j * u for j in range(min(r, MAX_TRACED)) if j * u < n] or [0]

    sampler = Sampler(arch, pick, prefix)
    run(sampler)
    traces = sampler.traces()
    if not traces:
        raise GemmcError(f"{path}: the program launches no kernel")
    out = []
    for t in traces:
        k = kernels[t.kernel]
        out.append(time_launch(t, residency(k.descriptor, k.meta, arch, int(np.prod(t.block)), dynamic_lds), arch,
                               in_type))
    return AsmPrediction(arch, out, flops, in_type)


def slots(res: Residency, workgroups: int, arch: Arch) -> int:
    """Workgroups a CU runs at once: its resident ones, or all the busiest CU gets if fewer."""
    return max(1, min(res.workgroups, -(-workgroups // units(arch, res))))


def _marks(pcs: np.ndarray, traced: int, loop) -> np.ndarray:
    """Stream positions where an iteration of `loop` starts (its head reached by the back edge)."""
    if loop is None or traced < 2:
        return np.zeros(0, np.int64)
    p = pcs[:traced]
    return np.nonzero((p[1:] == loop.head) & (p[:-1] > loop.head) & (p[:-1] <= loop.branch))[0] + 1


def sim_waves(t: LaunchTrace, res: Residency, arch: Arch) -> list[SimWave]:
    """The resident workgroups' waves (traced workgroups repeated), a workgroup's waves dealt to
    the SIMDs round-robin, its LDS accesses to the half its allocation is in (resident.lds_half)."""
    n = simds(arch, res)
    wpg, out = t.waves_per_workgroup, []
    read = read_bytes(t)
    lat = [stream_latencies(wt.pcs, wt.reuse, t.classes, arch, read) for wt in t.waves]
    for slot in range(slots(res, t.grid_workgroups, arch)):
        g = slot % len(t.workgroups)
        for k in range(wpg):
            wt = t.waves[g * wpg + k]
            out.append(SimWave(wt.pcs, wt.cost, wt.lines, (slot * wpg + k) % n, slot, _marks(wt.pcs, wt.traced, t.loop),
                               lat[g * wpg + k], lds_half(slot, res, arch)))
    return out


def read_bytes(t: LaunchTrace) -> float:
    """Bytes of the buffers the launch reads (its footprint for latency.py's MALL-or-memory choice)."""
    return float(sum(size for kinds, size in t.buffers.values() if "load" in kinds))


def _steady(sim: SimResult):
    """(cycles, busy, idle, lds port) of one steady loop iteration: over the second half of the
    traced iterations, the slowest wave's cycles an iteration, and the CU's busy and idle cycles
    (from the first wave's marks) scaled to them."""
    snaps = sim.snapshots
    if len(snaps) < 4:
        return 0.0, 0.0, 0.0, 0.0
    a, b = snaps[len(snaps) // 2], snaps[-1]
    n = len(snaps) - 1 - len(snaps) // 2
    slopes = [(t[-1] - t[len(t) // 2]) / (len(t) - 1 - len(t) // 2) for t in sim.mark_times if len(t) >= 4]
    cycles = max(slopes, default=(b[0] - a[0]) / n)
    scale = cycles / max((b[0] - a[0]) / n, 1e-9)
    return cycles, scale * (b[1] - a[1]) / n, scale * (b[2] - a[2]) / n, scale * (b[3] - a[3]) / n


def _l2_bytes(t: LaunchTrace, arch: Arch, remaining: int) -> float:
    """Cache-line bytes all workgroups fetch: the traced workgroups' mean, loop extrapolated."""
    per_wg = np.zeros(len(t.workgroups))
    for wt in t.waves:
        lines = float(wt.lines.sum())
        m = _marks(wt.pcs, wt.traced, t.loop)
        if remaining and len(m) >= 2:
            lines += remaining * float(wt.lines[m[-2]:m[-1]].sum())
        per_wg[wt.workgroup] += lines
    return float(per_wg.mean()) * arch.cache_line_bytes * t.grid_workgroups


def time_launch(t: LaunchTrace, res: Residency, arch: Arch, in_type: str) -> LaunchTiming:
    """Simulate one CU's round of the launch and scale it to the grid."""
    waves = sim_waves(t, res, arch)
    sim = simulate(waves, t.classes, arch, simds(arch, res), ports=res.cus)
    remaining = t.loop.remaining if t.loop is not None else 0
    per_iter, d_busy, d_idle, d_lds = _steady(sim) if remaining else (0.0, 0.0, 0.0, 0.0)
    per_cu = -(-t.grid_workgroups // units(arch, res))
    lt = LaunchTiming(t.kernel, t.grid, t.block, t.workgroups, res, per_cu / slots(res, t.grid_workgroups, arch),
                      sim.cycles + remaining * per_iter, sim.busy + remaining * d_busy, sim.idle + remaining * d_idle,
                      sim.lds_port + remaining * d_lds, t.loop, per_iter, _l2_bytes(t, arch, remaining),
                      sum(size * len(kinds) for kinds, size in t.buffers.values()))
    _at_clock(lt, arch, in_type)
    return lt


def _at_clock(lt: LaunchTiming, arch: Arch, in_type: str) -> None:
    """The launch's clock (gemmc.cost.clock, fed the simulated matrix busy cycles), its times and
    its bound."""
    boost = arch.clock_mhz * 1e6
    # the CU's simulated time is engine-clocked as the IR-level model's "latency" is
    times = {"latency": lt.rounds * lt.round_cycles / boost,
             "l2": lt.l2_bytes / (arch.l2_bytes_per_clk * boost),
             "dram": lt.dram_bytes / (arch.mem_bandwidth_gbs * 1e9)}
    running = slots(lt.res, int(np.prod(lt.grid)), arch)
    matrix = float(lt.busy[:, PIPES.index("matrix")].sum()) / running * int(np.prod(lt.grid))
    f = sustained_clock_mhz(arch, in_type, times, matrix, lambda ts: max(ts.values()))
    lt.clock_mhz = f
    at_f = at_clock(times, arch.clock_mhz / f)
    lt.times = {"cu": at_f["latency"], "l2": at_f["l2"], "dram": at_f["dram"]}
    per_round = {"matrix pipe": lt.busy[:, PIPES.index("matrix")].max(),
                 "VALU issue": lt.busy[:, PIPES.index("valu")].max(),
                 # each wave issues one instruction a slot: its SIMD's slots over its waves
                 "wave issue": lt.busy[:, PIPES.index("issue")].max() / max(1.0, running * lt.res.waves_per_workgroup
                                                                        / lt.busy.shape[0]),
                 "LDS": max(lt.lds_port, lt.idle[:, IDLE.index("wait lds")].max()),
                 "memory wait": lt.idle[:, IDLE.index("wait vmem")].max(),
                 "barrier": lt.idle[:, IDLE.index("barrier")].max()}
    secs = {k: v * lt.rounds / (f * 1e6) for k, v in per_round.items()}
    secs["L2"], secs["DRAM"] = lt.times["l2"], lt.times["dram"]
    lt.bound = max(secs, key=secs.get)
