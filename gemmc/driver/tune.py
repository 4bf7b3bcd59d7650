"""`gemmc tune`: search tile sizes and pass options with the cost model.

    result = tune(load, arch, budget=40, seed=0)
    result.best.pipeline, result.best.prediction.time_s

The space: LDS tile (block-m, block-n, block-k), thread tile (thread-m, thread-n),
register-tiling's other options where it has them (lds-layout), double buffering,
vector width, and launch bounds.  A candidate is a textual pipeline; it is lowered and
predicted, and pruned when a pass refuses it (its LDS, thread or VGPR check raises a
GemmcError) or when a workgroup does not fit on a CU.  Half the budget samples the space
at random, the rest mutates one option of the best candidates so far; both draw from a
`random.Random(seed)`, so a seed gives the same search.  With a compiler present the best
few are predicted again with its resource report (`compiler=None`: when one is found).
"""

from __future__ import annotations

import dataclasses
import itertools
import operator
import random
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from xdsl.dialects.builtin import ModuleOp

from gemmc.cost.compiled import predict_module
from gemmc.cost.model import Prediction, predict
from gemmc.driver.lowering import check_dtypes, lower_with
from gemmc.driver.source import is_lowered, loader, print_ir
from gemmc.support.diagnostics import EXIT_USAGE, GemmcError
from gemmc.target.arch import Arch, as_arch
from gemmc.support.ir_names import FLAT_WORK_GROUP_SIZE_ATTR, WAVES_PER_EU_ATTR

BLOCK_MN = (32, 64, 128, 256)
BLOCK_K = (8, 16, 32)
THREAD_MN = (1, 2, 4, 8)
VECTOR = (1, 2, 4)
WAVES_PER_EU = (0, 1, 2, 4)  # 0: no launch-bounds pass
RERANK = 3


@dataclass(frozen=True)
class Candidate:
    block_m: int
    block_n: int
    block_k: int
    thread_m: int
    thread_n: int
    double_buffer: bool
    width: int
    waves_per_eu: int
    layout: str = ""
    stage: str = ""  # double-buffer's stage option where the pass has one ("" = its default)
    matrix: bool = False  # matrix-cores (MFMA / WMMA) after vectorize

    @property
    def threads(self) -> int:
        return (self.block_m // self.thread_m) * (self.block_n // self.thread_n)

    def pipeline(self) -> str:
        tiled = self.thread_m > 1 or self.thread_n > 1
        # the workgroup has its final shape from the start, so lds-tiling's own per-thread
        # tile is already the thread tile register-tiling makes contiguous
        head = f"gemm-to-kernel{{block-x={self.block_n // self.thread_n} block-y={self.block_m // self.thread_m}}}"
        parts = [head, f"lds-tiling{{block-m={self.block_m} block-n={self.block_n} block-k={self.block_k}}}"]
        if tiled:
            layout = f" lds-layout={self.layout}" if self.layout else ""
            parts.append(f"register-tiling{{thread-m={self.thread_m} thread-n={self.thread_n}{layout}}}")
        # matrix-cores and vectorize before double-buffer: its register stage lowers the copies
        if self.matrix:
            parts.append("matrix-cores")
        if self.width > 1:
            parts.append(f"vectorize{{width={self.width}}}")
        if self.double_buffer:
            parts.append(f"double-buffer{{stage={self.stage}}}" if self.stage else "double-buffer")
        if self.waves_per_eu:
            parts.append(f"launch-bounds{{max-threads={max(self.threads, 64)} min-waves-per-eu={self.waves_per_eu}}}")
        return ",".join(parts)


@dataclass
class Trial:
    candidate: Candidate
    pipeline: str
    prediction: Prediction | None = None
    error: str | None = None

    @property
    def time(self) -> float:
        return self.prediction.time_s if self.prediction is not None else float("inf")


@dataclass
class TuneResult:
    trials: list[Trial] = field(default_factory=list)

    @property
    def ranked(self) -> list[Trial]:
        ok = [t for t in self.trials if t.prediction is not None and t.time < float("inf")]
        return sorted(ok, key=lambda t: (t.time, t.pipeline))

    @property
    def best(self) -> Trial | None:
        r = self.ranked
        return r[0] if r else None

    @property
    def pruned(self) -> int:
        return sum(1 for t in self.trials if t.prediction is None)


def _options(pass_name: str) -> set[str]:
    from gemmc.driver.pipeline import PASSES

    if pass_name not in PASSES:
        return set()
    return {f.name for f in dataclasses.fields(PASSES[pass_name]())}


def layouts() -> tuple[str, ...]:
    """register-tiling's lds-layout values, if this build has the option."""
    return ("tutorial", "k-major") if "lds_layout" in _options("register-tiling") else ("",)


def buffering() -> tuple[tuple[bool, str], ...]:
    """(double buffer?, stage): through LDS, and through registers where the pass can."""
    if "stage" in _options("double-buffer"):
        return ((False, ""), (True, ""), (True, "registers"))
    return ((False, ""), (True, ""))


def matrix_options(arch: Arch, dtype: str | None) -> tuple[bool, ...]:
    """Whether to try matrix-cores: the pass exists and the arch has an instruction for dtype."""
    from gemmc.driver.pipeline import PASSES

    ok = "matrix-cores" in PASSES and any(mi.in_type == (dtype or "f32") for mi in arch.matrix_instrs)
    return (False, True) if ok else (False,)


def space(arch: Arch, dtype: str | None = None) -> list[Candidate]:
    """Every candidate that passes the cheap checks (tiles divide, thread count sane)."""
    out = []
    for bm, bn, bk, tm, tn, (db, stage), w, wpe, lay, mx in itertools.product(
        BLOCK_MN, BLOCK_MN, BLOCK_K, THREAD_MN, THREAD_MN, buffering(), VECTOR, WAVES_PER_EU, layouts(),
        matrix_options(arch, dtype),
    ):
        if tm > bm or tn > bn or (tm == 1) != (tn == 1):
            continue
        if (tm == 1 and (lay not in ("", "tutorial") or mx)) or (wpe and wpe > arch.max_waves_per_simd):
            continue
        c = Candidate(bm, bn, bk, tm, tn, db, w, wpe, lay if tm > 1 else "", stage, mx)
        if not arch.wave_size <= c.threads <= arch.max_threads_per_block:
            continue
        out.append(c)
    return sorted(set(out), key=lambda c: c.pipeline())


def evaluate(load: Callable[[], ModuleOp], arch: Arch, c: Candidate, dims=None, compiler: bool | None = False) -> Trial:
    """Lower and predict one candidate; compiler: False estimates VGPRs, None asks the
    compiler when there is one, True requires it."""

    t = Trial(c, c.pipeline())
    try:
        module = load()
        lower_with(module, t.pipeline, arch)
        t.prediction = predict(module, arch, dims) if compiler is False else predict_module(module, arch, dims, compiler)
    except GemmcError as e:
        t.error = e.message
    return t


def tune(
    load: Callable[[], ModuleOp],
    arch: Arch,
    budget: int = 40,
    seed: int = 0,
    dims: dict | None = None,
    compiler: bool | None = None,
    progress: Callable[[int, int, Trial | None], None] | None = None,
) -> TuneResult:
    rng = random.Random(seed)

    probe = load()
    _check_input(probe, arch, dims)
    dtype = None if is_lowered(probe) else _dtype(probe)
    all_c = space(arch, dtype)
    result = TuneResult()
    seen: set[Candidate] = set()
    explore = max(1, budget // 2)
    order = all_c[:]
    rng.shuffle(order)
    queue = iter(order)
    while len(result.trials) < budget:
        if len(result.trials) < explore or not result.ranked:
            c = next((x for x in queue if x not in seen), None)
        else:
            c = _mutate(rng, result.ranked[: RERANK + 1], all_c, seen)
        if c is None:
            break
        seen.add(c)
        result.trials.append(evaluate(load, arch, c, dims))
        if progress:
            progress(len(result.trials), budget, result.best)
    if compiler is not False and arch.vendor == "amd":
        _rerank(load, arch, result, dims, compiler)
    return result


def _mutate(rng: random.Random, top: list[Trial], all_c: list[Candidate], seen: set) -> Candidate | None:
    """A candidate one option away from one of the best trials, not tried yet."""
    for _ in range(50):
        base = rng.choice(top).candidate
        near = [c for c in _neighbours(base, all_c) if c not in seen]
        if near:
            return rng.choice(near)
    rest = [c for c in all_c if c not in seen]
    return rng.choice(rest) if rest else None


def _neighbours(c: Candidate, all_c: list[Candidate]) -> list[Candidate]:
    fields = [f.name for f in dataclasses.fields(Candidate)]
    base = _values(c)
    out = []
    for other in all_c:
        values = _values(other)
        diff = sum(1 for a, b in zip(base, values) if a != b)
        if diff == 1 or (diff == 2 and {fields[i] for i, (a, b) in enumerate(zip(base, values))
                                          if a != b} in ({"thread_m", "thread_n"}, {"block_m", "block_n"})):
            out.append(other)
    return out


# dataclasses.astuple without its deep copies (a Candidate's fields are plain values):
# _neighbours compares every candidate of the space at each mutation
_values = operator.attrgetter(*(f.name for f in dataclasses.fields(Candidate)))


def _rerank(load, arch: Arch, result: TuneResult, dims, compiler) -> None:
    """Predict the best few again with the compiler's VGPRs and spills, when there is one."""
    for t in result.ranked[:RERANK]:
        again = evaluate(load, arch, t.candidate, dims, compiler=compiler)
        if again.prediction is not None:
            t.prediction = again.prediction
        elif compiler:
            t.error = again.error


def format_best(result: TuneResult, arch: Arch, n: int = 5) -> str:
    lines = [f"{'#':>2}  {'time ms':>9}  {'TFLOP/s':>8}  {'bound':8}  {'occ':>3}  {'VGPRs':>6}  pipeline"]
    for i, t in enumerate(result.ranked[:n], 1):
        p = t.prediction
        v = f"{p.occ.vgprs}{'' if p.occ.source == 'compiler' else '~'}"
        lines.append(f"{i:>2}  {p.time_s * 1e3:9.3f}  {p.tflops:8.2f}  {p.bound:8}  {p.occ.waves_per_simd:>3}  "
                     f"{v:>6}  {t.pipeline}")
    lines.append(f"{len(result.trials)} candidates tried, {result.pruned} pruned by the passes' checks")
    return "\n".join(lines) + "\n"


def lit_test(source: str, suffix: str, winner: Trial, arch: Arch) -> str:
    """A lit test that pins the winner's IR (its schedule, LDS tiles, launch bounds) and
    runs it in the interpreter at a small size."""
    from gemmc.cost.occupancy import lds_bytes

    k = winner.prediction.kernel
    ir = print_ir(k.module)
    checks = ['// CHECK-LABEL: "gpu.module"']
    for line in ir.splitlines():
        s = line.strip()
        if "memref.alloca()" in s and ", 3 : i64>" in s:
            checks.append("// CHECK: " + s.split("=", 1)[1].strip())
    sched = next((l for l in ir.splitlines() if "gemm.schedule = {" in l), None)
    if sched is not None:
        start = sched.index("gemm.schedule = {")
        end = sched.index("}", start) + 1
        checks.append("// CHECK: " + sched[start:end])
    for attr in (FLAT_WORK_GROUP_SIZE_ATTR, WAVES_PER_EU_ATTR):
        if sched is not None and attr in sched:
            frag = sched[sched.index(attr):].split(",")[0].rstrip("}) ")
            checks.append(f"// CHECK-SAME: {frag}")
    p = winner.prediction.kernel.problem
    small = {d: max(2 * v, 8) for d, v in (("M", k.schedule.block_m if k.schedule else 16),
                                            ("N", k.schedule.block_n if k.schedule else 16),
                                            ("K", k.schedule.block_k if k.schedule else 16))}
    defines = " ".join(f"-D {n}={v + 1}" for n, v in small.items() if n in k.dims) if suffix == ".gemm" else ""
    head = [
        f"// Pinned by `gemmc tune --arch {arch.name}`: the winner for {p.m}x{p.n}x{p.k} {p.in_type}, "
        f"predicted {winner.prediction.time_s * 1e3:.3f} ms ({winner.prediction.bound}-bound, "
        f"{lds_bytes(k)} B LDS).",
        f"// RUN: %gemmc opt %s --arch {arch.name} -p '{winner.pipeline}' | filecheck %s",
        f"// RUN: %gemmc run %s --arch {arch.name} -p '{winner.pipeline}' {defines} | filecheck %s --check-prefix=INTERP",
        "",
    ]
    body = source if source.endswith("\n") else source + "\n"
    return "\n".join(head) + body + "\n" + "\n".join(checks) + "\n// INTERP: PASS\n"


def progress_bar(stream, width: int = 30, label: str = "tune", eta: bool = False,
                 clock: Callable[[], float] = time.monotonic):
    """A progress callback drawing `[#####.....] 12/40 best 3.1 ms` on `stream` (a tty
    redraws one line; otherwise a line at each quarter and at the end); with `eta`, the time
    left at the mean pace so far (`eta 1m05s`)."""
    tty = hasattr(stream, "isatty") and stream.isatty()
    shown = set()
    started = [clock()]

    def show(done: int, total: int, best: Trial | None = None) -> None:
        if done == 0:  # the work starts now: the ETA's clock too (after a pool's or cluster's start-up)
            started[0] = clock()
        filled = width * done // max(1, total)
        bar = "#" * filled + "." * (width - filled)
        tail = f" best {best.time * 1e3:.3f} ms" if best is not None else ""
        if eta and 0 < done < total:
            left = (clock() - started[0]) / done * (total - done)
            tail += f" eta {int(left // 60)}m{int(left % 60):02d}s"
        line = f"{label} [{bar}] {done}/{total}{tail}"
        if tty:
            stream.write("\r" + line + ("\n" if done >= total else ""))
        else:
            quarter = 4 * done // max(1, total)
            if quarter in shown and done < total:
                return
            shown.add(quarter)
            stream.write(line + "\n")
        stream.flush()

    return show


def check_test_dir(directory: str) -> None:
    """--emit-test's folder is one, or can be made: checked before the search."""
    import errno
    import os
    from pathlib import Path

    from gemmc.support.diagnostics import EXIT_IO

    d = Path(directory)
    if d.exists() and not d.is_dir():
        raise GemmcError(f"{directory}: is not a directory", code=EXIT_IO)
    if not d.exists():  # mkdir -p makes it after the search: its nearest existing folder must be one
        above = next(p for p in d.absolute().parents if p.exists())
        why = (errno.ENOTDIR if not above.is_dir() else errno.EACCES if not os.access(above, os.W_OK | os.X_OK)
               else 0)
        if why:
            raise GemmcError(f"{directory}: cannot create: {os.strerror(why)}", code=EXIT_IO)


def test_path(directory: str, source_name: str, arch: Arch):
    """Where --emit-test writes: DIR/<input stem>-<arch>-tuned.<gemm|mlir>."""
    from pathlib import Path

    from gemmc.support.diagnostics import EXIT_IO

    d = Path(directory)
    check_test_dir(directory)
    if not d.exists():
        try:
            d.mkdir(parents=True)
        except OSError as e:
            raise GemmcError(f"{directory}: cannot create: {e.strerror}", code=EXIT_IO) from None
    src = Path(source_name)
    stem = src.stem if source_name != "<stdin>" else "stdin"
    suffix = ".mlir" if src.suffix == ".mlir" else ".gemm"
    return d / f"{stem}-{arch.name}-tuned{suffix}"


def _check_input(module: ModuleOp, arch: Arch, dims: dict | None) -> None:
    """The input's errors (a dynamic dim without -D, a dtype the arch cannot do) are not
    every candidate's: said once, before the search, instead of 'no candidate fits'."""
    from gemmc.interp import host_function
    from gemmc.interp.check import arg_shapes

    check_dtypes(module, arch)
    arg_shapes(host_function(module), dims or {})


def most_common_error(result: TuneResult) -> str | None:
    """Why the candidates were refused: the reason most of them share (None if none was)."""
    errors = Counter(t.error for t in result.trials if t.error)
    return errors.most_common(1)[0][0] if errors else None


def _dtype(module: ModuleOp) -> str | None:
    """The input element type of the module's gemm.matmul."""
    from gemmc.dialects.gemm import MatmulOp

    for op in module.walk():
        if isinstance(op, MatmulOp):
            return str(op.a.type.element_type)
    return None


def tune_file(path: str, arch: Arch | str, budget: int = 40, seed: int = 0,
              defines: dict[str, int] | None = None, compiler: bool | None = None, progress=None,
              source: tuple[str, str] | None = None):
    """Search pipelines for the file's GEMM on `arch` (tune); `source`: its
    (text, name) when already read (stdin can be read once only)."""
    load, _, _ = loader(path, defines, source)
    if is_lowered(load()):
        raise GemmcError(f"{path}: is kernel IR already; tune needs the GEMM (a .gemm file or gemm-level IR)",
                         code=EXIT_USAGE)
    return tune(load, as_arch(arch), budget, seed, defines, compiler, progress)
