"""`gemmc explain`: the cost model per pipeline step, as a table, JSON or a roofline plot.

    rows = explain_steps(lambda: parse_file(path), "gfx942")      # step1 ... step6
    print(format_table(rows, arch, problem))
    json.dumps(to_json(rows, arch, problem))

Each row lowers a fresh copy of the input with one pipeline and predicts it
(gemmc.cost.model).  VGPRs, AGPRs and scratch come from the compiler's resource report
when a toolchain is installed (and `compiler` is not False), else from the model's
estimate; the row says which (`vgpr_source`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from xdsl.dialects.builtin import ModuleOp

from gemmc.cost.compiled import predict_module
from gemmc.cost.model import Prediction
from gemmc.cost.peaks import achievable_peak_tflops, achievable_source, problem_peak_tflops, problem_peak_units
from gemmc.driver.api import lower
from gemmc.driver.lowering import check_dtypes, lower_with
from gemmc.driver.source import is_lowered, loader, verify
from gemmc.support.diagnostics import EXIT_USAGE, GemmcError
from gemmc.support.ir_names import PIPELINE_ATTR, SELECTED_ATTR
from gemmc.target.arch import Arch, as_arch


@dataclass
class Row:
    name: str
    pipeline: str
    prediction: Prediction | None
    skipped: str | None = None  # why a named step does not apply (a pass refused it)

    def as_dict(self) -> dict:
        p = self.prediction
        c, o, t = p.counts, p.occ, p.traffic
        waves = max(1, c.waves)
        lds_instrs = c.issued("lds")
        vmem = c.issued("global")
        return {
            "name": self.name,
            "pipeline": self.pipeline,
            "time_s": p.time_s,
            "tflops": p.tflops,
            "percent_of_problem_peak": 100.0 * p.tflops / problem_peak_tflops(p.arch, p.kernel.problem.in_type),
            "percent_of_achievable_peak": 100.0 * p.tflops / achievable_peak_tflops(p.arch, p.kernel.problem.in_type),
            "clock_mhz": p.clock_mhz,
            "bound": p.bound,
            "times_s": dict(p.times),
            "occupancy": o.waves_per_simd,
            "occupancy_limiter": o.limiter,
            "workgroups_per_cu": o.workgroups_per_cu,
            "vgprs": o.vgprs,
            "agprs": o.agprs,
            "vgpr_source": o.source,
            "spilled_vgprs": o.spilled_vgprs,
            "scratch_bytes": o.scratch_bytes,
            "lds_bytes": o.lds_bytes,
            "vmem_instrs": vmem,
            "vmem_instrs_per_wave": vmem / waves,
            "lds_instrs": lds_instrs,
            "lds_instrs_per_wave": lds_instrs / waves,
            "valu_instrs": c.valu_instrs,
            "valu_instrs_per_wave": c.valu_instrs / waves,
            "mfma_instrs": c.matrix_instrs,
            "barriers": c.barriers,
            "bank_conflict_cycles": sum(a.extra_cycles for a in c.accesses if a.space == "lds"),
            "bank_conflict_degree": max((a.degree for a in c.accesses if a.space == "lds" and a.instrs), default=1.0),
            "global_bytes_requested": t.requested,
            "l2_bytes": t.l2,
            "dram_bytes": t.dram,
            "ir_counts": c.stats_dict(),
            "notes": list(p.notes),
        }


def step_pipelines() -> list[tuple[str, str]]:
    """The named tutorial steps, in order (step1 ... and any step the registry adds)."""
    from gemmc.driver.pipeline import NAMED_PIPELINES

    steps = [n for n in NAMED_PIPELINES if n.startswith("step") and n[4:].isdigit()]
    return [(n, NAMED_PIPELINES[n]) for n in sorted(steps, key=lambda n: int(n[4:]))]


def explain_steps(
    load: Callable[[], ModuleOp],
    arch: Arch,
    pipeline: str | None = None,
    dims: dict[str, int] | None = None,
    compiler: bool | None = None,
    selection: dict[str, str] | None = None,
) -> list[Row]:
    """One row per step (or one for `pipeline`), and the default's (with `selection`: a
    selection table's, where it has the problem); `load` returns a fresh input module."""
    first = load()
    check_dtypes(first, arch)  # the input's error, not each step's ('no step applies')
    if is_lowered(first) and pipeline is None:
        lower_with(first, "", arch)  # the arch as the module's target: its verifier judges the matrix instructions
        verify(first)
        return [Row("input", "", predict_module(first, arch, dims, compiler))]
    label = pipeline if pipeline is not None and len(pipeline) <= 12 else "pipeline"
    steps = [(label, pipeline)] if pipeline is not None else step_pipelines()
    rows = []
    for name, spec in steps:
        module = first if not rows else load()
        if not spec.strip():
            raise GemmcError("explain needs kernel IR: give a pipeline such as -p step1", code=EXIT_USAGE)
        try:
            lower_with(module, spec, arch)
        except GemmcError as e:
            if pipeline is not None or e.code != 1:
                raise
            rows.append(Row(name, spec, None, e.message))  # e.g. no matrix cores on this arch
            continue
        rows.append(Row(name, spec, predict_module(module, arch, dims, compiler)))
    if not any(r.prediction for r in rows):
        raise GemmcError(f"no step applies: {rows[0].skipped}" if rows else "nothing to explain")
    if pipeline is None:
        rows.append(_default_row(load(), arch, dims, compiler, selection))
    return rows


def _default_row(module: ModuleOp, arch: Arch, dims, compiler, selection=None) -> Row:
    """What `gemmc compile` runs without -p (gemmc.selection's choice for this shape), and why."""
    lower(module, None, arch, selection=selection)
    p = predict_module(module, arch, dims, compiler)
    p.notes.insert(0, f"selected: {module.attributes[SELECTED_ATTR].data}")
    return Row("default", module.attributes[PIPELINE_ATTR].data, p)


def explain_file(path: str, arch: Arch | str, pipeline: str | None = None,
                 defines: dict[str, int] | None = None, compiler: bool | None = None,
                 selection: dict[str, str] | None = None):
    """Rows (gemmc.driver.explain.Row) for each named step, or for `pipeline`; the default row
    is what `selection` (a selection table, gemmc.driver.api.load_selection) or the model chooses."""
    load, _, _ = loader(path, defines)
    return explain_steps(load, as_arch(arch), pipeline, defines, compiler, selection)


def predicted(rows: list[Row]) -> list[Row]:
    return [r for r in rows if r.prediction is not None]


# -- output ------------------------------------------------------------------------------------


def to_json(rows: list[Row], arch: Arch, dims: dict | None = None) -> dict:
    """The rows as JSON.  Every peak is the problem's (problem_peak_tflops: the matrix cores' for
    its input type where the arch has them, else the FP32 VALUs'), the one the table's head
    names, and each step's share of it is `percent_of_problem_peak`, whatever units the step's
    kernel runs on (the table's "% peak" column is of the kernel's own units).  The achievable
    peak (gemmc.cost.peaks: what the chip sustains, published) and each step's share of it,
    `percent_of_achievable_peak`, beside them."""
    ok = predicted(rows)
    in_type = ok[0].prediction.kernel.problem.in_type if ok else "f32"
    return {
        "arch": arch.name,
        "product": arch.product,
        "problem_type": in_type,
        "problem_peak_tflops": problem_peak_tflops(arch, in_type),
        "problem_peak_units": problem_peak_units(arch, in_type),
        "achievable_peak_tflops": achievable_peak_tflops(arch, in_type),
        "achievable_peak_source": achievable_source(arch, in_type),
        "problem": ok[0].prediction.kernel.problem.as_dict() if ok else {},
        "steps": [r.as_dict() for r in ok],
        "skipped": [{"name": r.name, "pipeline": r.pipeline, "reason": r.skipped} for r in rows if r.skipped],
    }


def _si(x: float) -> str:
    for unit, div in (("T", 1e12), ("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if abs(x) >= div:
            return f"{x / div:.3g}{unit}"
    return f"{x:.3g}"


COLUMNS = (
    ("step", lambda r, d: r.name),
    ("time ms", lambda r, d: f"{d['time_s'] * 1e3:.3f}"),
    ("TFLOP/s", lambda r, d: f"{d['tflops']:.2f}"),
    ("% peak", lambda r, d: f"{r.prediction.percent_of_peak:.1f}"),  # of the kernel's own units
    ("% achv", lambda r, d: f"{d['percent_of_achievable_peak']:.1f}"),  # of the problem's achievable peak
    ("MHz", lambda r, d: f"{d['clock_mhz']:.0f}"),
    ("bound", lambda r, d: d["bound"]),
    ("occ", lambda r, d: f"{d['occupancy']} ({d['occupancy_limiter']})"),
    ("VGPRs", lambda r, d: f"{d['vgprs']}{'' if d['vgpr_source'] == 'compiler' else '~'}"),
    ("scratch", lambda r, d: str(d["scratch_bytes"])),
    ("LDS B", lambda r, d: str(d["lds_bytes"])),
    ("VMEM", lambda r, d: _si(d["vmem_instrs"])),
    ("LDS ins", lambda r, d: _si(d["lds_instrs"])),
    ("VALU", lambda r, d: _si(d["valu_instrs"])),
    ("MFMA", lambda r, d: _si(d["mfma_instrs"])),
    ("bank confl", lambda r, d: f"{_si(d['bank_conflict_cycles'])} ({d['bank_conflict_degree']:.0f}x)"),
    ("global B", lambda r, d: _si(d["global_bytes_requested"])),
    ("L2 B", lambda r, d: _si(d["l2_bytes"])),
)


def format_table(all_rows: list[Row], arch: Arch) -> str:
    rows = predicted(all_rows)
    if not rows:
        return ""
    p0 = rows[0].prediction
    pr = p0.kernel.problem
    batches = f"{pr.batch} batches of " if pr.batch > 1 else ""
    head = (f"{p0.kernel.name}: {batches}{pr.m}x{pr.n}x{pr.k} {pr.in_type}, {arch.product} ({arch.name}), "
            f"peak {problem_peak_tflops(arch, pr.in_type):.1f} TFLOP/s, "
            f"achievable {achievable_peak_tflops(arch, pr.in_type):.1f} ({achievable_source(arch, pr.in_type)})")
    table = [[c for c, _ in COLUMNS]]
    for r in rows:
        d = r.as_dict()
        table.append([fn(r, d) for _, fn in COLUMNS])
    widths = [max(len(row[i]) for row in table) for i in range(len(COLUMNS))]
    lines = [head]
    for row in table:
        cells = [row[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(row[1:], widths[1:])]
        lines.append("  ".join(cells).rstrip())
    notes = [f"  {r.name}: {n}" for r in rows for n in r.prediction.notes]
    notes += [f"  {r.name}: skipped: {r.skipped}" for r in all_rows if r.skipped]
    lines.append("% peak: of the kernel's own units at the data sheet's clock; % achv: of the problem's achievable "
                 "peak; MHz: the clock it runs at (lower under matrix load)")
    lines.append("VGPRs: ~ = estimated (no compiler report); VMEM/LDS/VALU/MFMA: wave instructions issued; "
                 "bank confl: extra LDS cycles (worst degree); global B: bytes requested by lanes")
    if notes:
        lines.append("notes:")
        lines.extend(notes)
    return "\n".join(lines) + "\n"
