"""The clock a kernel runs at: the data sheet's boost, unless its matrix work draws more power
than the chip sustains.

Under dense matrix load a chip runs well below its boost clock: AMD's max-achievable FLOPs
posts put MI300X's median clock under hipBLASLt's GEMMs near 1.1-1.2 GHz against its 2.1 GHz
boost.  The model: the matrix pipes draw power in proportion to their busy fraction u and to
f ** POWER_EXPONENT, and the chip sustains what they draw all busy at f_max, the clock at which
the instructions' peak is the published achievable figure (gemmc.cost.peaks).  A kernel runs at
the highest clock f <= boost with u(f) * (f / f_max) ** POWER_EXPONENT <= 1.  A kernel whose
matrix pipes are idle much of the time keeps a higher clock than one that keeps them busy, so a
fully matrix-bound kernel reaches the achievable figure and no more.  At f every engine-clock
time (VALU, matrix, LDS, VMEM, L2, latency) is boost / f longer; DRAM's is not.
"""

from __future__ import annotations

from collections.abc import Callable

from gemmc.cost.peaks import matrix_clock_limit_mhz
from gemmc.target.arch import Arch

# P ~ C V^2 f, and V rises with f along the chip's voltage-frequency curve: 1 would be a fixed
# voltage, 3 a voltage proportional to f; 2 between them (assumption, docs/cost-model.md)
POWER_EXPONENT = 2.0
ENGINE_CLOCKED = ("valu", "matrix", "lds", "vmem", "issue", "l2", "latency")


def at_clock(times: dict[str, float], slowdown: float) -> dict[str, float]:
    """Resource times at a clock `slowdown` times slower than the one they were timed at."""
    return {r: t * slowdown if r in ENGINE_CLOCKED else t for r, t in times.items()}


def sustained_clock_mhz(arch: Arch, in_type: str, times: dict[str, float], matrix_cycles: float,
                        combine: Callable[[dict[str, float]], float]) -> float:
    """The clock (MHz) a kernel runs at, given its resource `times` at the boost clock, the
    SIMD cycles of matrix instructions of all its workgroups, and how its times combine."""
    limit = matrix_clock_limit_mhz(arch, in_type)
    if limit is None or matrix_cycles <= 0:
        return float(arch.clock_mhz)
    boost = float(arch.clock_mhz)
    simds = arch.cu_count * arch.simds_per_cu

    def power(f: float) -> float:  # matrix power at clock f, in units of the sustainable budget
        busy = matrix_cycles / (simds * f * 1e6 * combine(at_clock(times, boost / f)))
        return busy * (f / limit) ** POWER_EXPONENT

    if power(boost) <= 1.0:
        return boost
    lo, hi = min(limit, boost), boost  # power(lo) <= 1: busy <= 1 at f_max
    for _ in range(40):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if power(mid) <= 1.0 else (lo, mid)
    return lo
