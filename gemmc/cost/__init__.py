"""gemmc's per-arch analytic cost model (docs/cost-model.md).

    from gemmc import cost
    p = cost.predict(module, arch)                         # module: kernel IR

`gemmc explain` and `gemmc tune` (gemmc.driver.explain, gemmc.driver.tune) are built on it.

One module per concern:
    lanes.py      index arithmetic of a kernel over lanes and sampled iterations
    kernel.py     the kernel, its launch and the problem, read from the IR
    counts.py     instructions, bytes, coalescing, compiler merging (per access)
    banks.py      LDS bank conflicts of one access
    occupancy.py  VGPRs (compiler report or estimate), LDS, waves -> occupancy
    traffic.py    global traffic: requested, from L2, from DRAM
    model.py      resource times, latency, the bound
    peaks.py      the data sheet's and the achievable peaks
    clock.py      the clock a kernel runs at (lower under matrix load)
    compiled.py   predict with the compiler's registers (its resource report)
    analysis.py   shared by the analyze-* passes
"""

from __future__ import annotations

from gemmc.cost.model import Prediction, predict

__all__ = ["Prediction", "predict"]
