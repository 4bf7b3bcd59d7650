"""A roofline of the explained steps (matplotlib, the optional `plot` extra).

x: FLOPs per byte fetched from L2 (the traffic the tiling steps change); y: predicted
TFLOP/s.  Ceilings: the compute peak, and L2 and DRAM bandwidth times intensity.
"""

from __future__ import annotations

from gemmc.target.arch import Arch
from gemmc.cost.peaks import problem_peak_tflops
from gemmc.driver.plotting import check_plot_path, pyplot, save


def roofline_peak(rows, arch: Arch) -> float:
    """The ceiling drawn: the peak of the problem's element type (gemmc.cost.model.problem_peak_tflops:
    an f16 problem's is the f16 matrix peak, even where the first step runs on the VALUs), or
    a step's own peak where that is higher (f32 MFMAs)."""
    in_type = rows[0].prediction.kernel.problem.in_type
    return max([problem_peak_tflops(arch, in_type)] + [r.prediction.peak_tflops for r in rows])


def plot_roofline(rows, arch: Arch, path: str, input_path: str | None = None) -> None:
    """Draw the rows' predictions; written whole (gemmc.driver.plotting.save) or not at all."""
    check_plot_path(path, input_path)
    rows = [r for r in rows if r.prediction is not None]
    plt = pyplot()
    peak = roofline_peak(rows, arch)
    f = arch.clock_mhz * 1e6
    l2_bw = arch.l2_bytes_per_clk * f / 1e12  # TB/s
    dram_bw = arch.mem_bandwidth_gbs / 1e3
    pts = []
    for r in rows:
        p = r.prediction
        x = p.flops / max(1.0, p.traffic.l2)
        pts.append((r.name, x, p.tflops, p.bound))
    xs = [x for _, x, _, _ in pts]
    lo, hi = min(xs + [0.1]) / 4, max(xs + [peak / dram_bw]) * 4
    import numpy as np

    grid = np.logspace(np.log10(lo), np.log10(hi), 200)
    fig, ax = plt.subplots(figsize=(7, 4.5))
    ax.loglog(grid, np.minimum(peak, grid * l2_bw), label=f"L2 {l2_bw:.1f} TB/s", color="tab:blue")
    ax.loglog(grid, np.minimum(peak, grid * dram_bw), "--", label=f"DRAM {dram_bw:.2f} TB/s", color="tab:gray")
    ax.axhline(peak, color="black", lw=0.8)
    ax.text(lo * 1.1, peak * 1.05, f"peak {peak:.1f} TFLOP/s", fontsize=8)
    for name, x, y, bound in pts:
        ax.plot([x], [y], "o")
        ax.annotate(f"{name} ({bound})", (x, y), textcoords="offset points", xytext=(6, -12 + 11 * (len(ax.texts) % 3)), fontsize=8)
    p0 = rows[0].prediction.kernel.problem
    ax.set_title(f"{arch.name} ({arch.product}): {p0.m}x{p0.n}x{p0.k} {p0.in_type}, predicted")
    ax.set_xlabel("FLOP per byte from L2")
    ax.set_ylabel("TFLOP/s")
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    save(fig, path, input_path)
