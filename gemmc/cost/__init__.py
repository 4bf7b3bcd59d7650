"""gemmc's per-arch analytic cost model (docs/cost-model.md).

    from gemmc import cost
    p = cost.predict(module, arch)                         # module: kernel IR
    rows = cost.explain_file("examples/sgemm.gemm", "gfx942")
    result = cost.tune_file("examples/sgemm.gemm", "gfx942", budget=40, seed=0)

One module per concern:
    lanes.py      index arithmetic of a kernel over lanes and sampled iterations
    kernel.py     the kernel, its launch and the problem, read from the IR
    counts.py     instructions, bytes, coalescing, compiler merging (per access)
    banks.py      LDS bank conflicts of one access
    occupancy.py  VGPRs (compiler report or estimate), LDS, waves -> occupancy
    traffic.py    global traffic: requested, from L2, from DRAM
    model.py      resource times, latency, the bound
    explain.py    per-step table / JSON;  plot.py  roofline;  tune.py  the tuner
    analysis.py   shared by the analyze-* passes
"""

from __future__ import annotations

from gemmc.arch import Arch, get_arch
from gemmc.cost.model import Prediction, predict


def _arch(arch: Arch | str) -> Arch:
    return arch if isinstance(arch, Arch) else get_arch(arch)


def _loader(path: str, defines: dict[str, int] | None, source: tuple[str, str] | None = None):
    from gemmc.api import parse, parse_ir, is_ir, read_source

    text, name = source or read_source(path)

    def load():
        return parse_ir(text, name) if is_ir(text, name) else parse(text, name, defines)

    return load, text, name


def explain_file(path: str, arch: Arch | str, pipeline: str | None = None,
                 defines: dict[str, int] | None = None, compiler: bool | None = None,
                 selection: dict[str, str] | None = None):
    """Rows (gemmc.cost.explain.Row) for each named step, or for `pipeline`; the default row
    is what `selection` (a selection table, gemmc.api.load_selection) or the model chooses."""
    from gemmc.cost.explain import explain_steps

    load, _, _ = _loader(path, defines)
    return explain_steps(load, _arch(arch), pipeline, defines, compiler, selection)


def tune_file(path: str, arch: Arch | str, budget: int = 40, seed: int = 0,
              defines: dict[str, int] | None = None, compiler: bool | None = None, progress=None,
              source: tuple[str, str] | None = None):
    """Search pipelines for the file's GEMM on `arch` (gemmc.cost.tune); `source`: its
    (text, name) when already read (stdin can be read once only)."""
    from gemmc.api import is_lowered
    from gemmc.cost.tune import tune
    from gemmc.diagnostics import EXIT_USAGE, GemmcError

    load, _, _ = _loader(path, defines, source)
    if is_lowered(load()):
        raise GemmcError(f"{path}: is kernel IR already; tune needs the GEMM (a .gemm file or gemm-level IR)",
                         code=EXIT_USAGE)
    return tune(load, _arch(arch), budget, seed, defines, compiler, progress)


__all__ = ["Prediction", "explain_file", "predict", "tune_file"]
