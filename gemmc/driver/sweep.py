"""`gemmc tune --shapes`: tune one kernel for many problem sizes and write a selection table.

    table = tune_shapes(source, "gfx942", [(1024, 1024, 8192), ...], "table.json", budget=20, jobs=4)

Each shape is tuned by the per-problem search (gemmc.driver.tune.tune), seeded from
(seed, shape) so that a shape's result does not depend on which worker ran it or when; the
selection's own choice (gemmc.driver.selection) competes with the search's best, and the faster
prediction goes into the table under the shape's problem_key.  Shapes run in this process
(jobs=1), on a process pool (jobs>1) or as Ray tasks (ray=True or an address).

The table file is also the checkpoint: it is rewritten atomically each time a shape finishes,
and a rerun with the same kernel, arch, seed, budget and compiler setting skips the shapes it
already holds.  `gemmc compile --selection table.json` then runs the table's pipelines.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from gemmc.driver.source import write_output  # whole or not at all: a temporary file, then a rename
from gemmc.support.diagnostics import EXIT_IO, EXIT_USAGE, GemmcError, usage_error
from gemmc.frontend.parser import MAX_DIM

TABLE_FORMAT = "gemmc-selection-table"
TABLE_VERSION = 1
SHAPE_DIMS = ("M", "N", "K")
# what a table's results depend on besides its shapes: a rerun resumes only when these match
SETTINGS = ("arch", "kernel_sha256", "seed", "budget", "compiler", "defines")

Shape = tuple[int, int, int]


# -- the shapes file ----------------------------------------------------------------


def read_shapes(path: str) -> list[Shape]:
    """The rows `M,N,K` of a CSV file (a header line, blank lines and # comments allowed),
    without repeats, in file order."""
    from gemmc.driver.source import read_source

    text, name = read_source(path)
    shapes: list[Shape] = []
    for number, line in enumerate(text.splitlines(), 1):
        row = line.split("#", 1)[0].strip()
        if not row:
            continue
        cells = [c.strip() for c in row.split(",")]
        if not shapes and [c.upper() for c in cells] == list(SHAPE_DIMS):
            continue  # the header
        shape = _shape(cells)
        if shape is None:
            raise GemmcError(f"{name}:{number}: expected M,N,K (three integers from 1 to {MAX_DIM}), "
                             f"got '{line.strip()}'", code=EXIT_USAGE)
        if shape not in shapes:
            shapes.append(shape)
    if not shapes:
        raise GemmcError(f"{name}: no shapes (expected rows M,N,K)", code=EXIT_USAGE)
    return shapes


def _shape(cells: list[str]) -> Shape | None:
    if len(cells) != 3 or not all(c.isdigit() for c in cells):
        return None
    m, n, k = (int(c) for c in cells)
    return (m, n, k) if min(m, n, k) > 0 and max(m, n, k) <= MAX_DIM else None


# -- one shape ------------------------------------------------------------------------


@dataclass(frozen=True)
class ShapeJob:
    """Everything a worker needs to tune one shape (plain data: it is pickled to the worker)."""

    text: str
    name: str
    arch: str
    shape: Shape
    budget: int
    seed: int
    compiler: bool | None
    defines: tuple[tuple[str, int], ...] = ()

    def dims(self) -> dict[str, int]:
        return {**dict(self.defines), **dict(zip(SHAPE_DIMS, self.shape))}


def shape_seed(seed: int, shape: Shape) -> int:
    """The search's seed for one shape: a function of (seed, shape) only, so a shape's result is
    the same whichever worker runs it (Python's hash() of a str changes between processes)."""
    digest = hashlib.sha256(f"{seed}:{shape[0]}x{shape[1]}x{shape[2]}".encode()).digest()
    return int.from_bytes(digest[:8], "little")


def tune_shape(job: ShapeJob) -> tuple[str, dict] | tuple[None, tuple]:
    """(problem_key, entry) for one shape: the faster of the search's best and the selection's
    choice; or (None, GemmcError's arguments) for a GemmcError, which is returned rather than
    raised because an exception crosses a process pool or a Ray task badly."""
    try:
        return _tune_shape(job)
    except GemmcError as e:
        return None, ("shape {},{},{}: ".format(*job.shape) + e.message, None, e.code)


def _tune_shape(job: ShapeJob) -> tuple[str, dict]:
    from gemmc.driver.source import parse
    from gemmc.target.arch import get_arch
    from gemmc.driver.tune import tune
    from gemmc.driver.selection import problem_key

    arch = get_arch(job.arch)
    dims = job.dims()

    def load():
        return parse(job.text, job.name, dims, arch)

    key = problem_key(load())
    _check_shape_is_problem(key, job)
    result = tune(load, arch, job.budget, shape_seed(job.seed, job.shape), dims, job.compiler)
    entries = [_selection_entry(load, arch, dims, job.compiler)]
    if result.best is not None:
        entries.append(_entry(result.best.pipeline, result.best.prediction, "search"))
    return key, min(entries, key=lambda e: (e["predicted_s"], e["pipeline"]))


def check_kernel(job: ShapeJob) -> None:
    """The kernel's own errors (syntax, -D, a dtype the arch cannot do, dims not named M, N, K)
    said once, before any shape runs, rather than by every worker."""
    from gemmc.driver.lowering import check_dtypes
    from gemmc.driver.source import is_ir, parse
    from gemmc.target.arch import get_arch
    from gemmc.driver.selection import problem_key

    if is_ir(job.text, job.name):
        raise usage_error(f"{job.name}: --shapes sets a .gemm kernel's dims M, N and K; give the .gemm source")
    try:
        module = parse(job.text, job.name, job.dims(), job.arch)
    except GemmcError as e:
        if not e.message.startswith(tuple(f"-D {d}: kernel" for d in SHAPE_DIMS)):
            raise
        # the frontend says -D, which the user did not write
        raise usage_error(f"{job.name}: --shapes sets the dims M, N and K; {e.message.split(': ', 1)[1]}") from None
    check_dtypes(module, get_arch(job.arch))
    _check_shape_is_problem(problem_key(module), job)


def _check_shape_is_problem(key: str | None, job: ShapeJob) -> None:
    m, n, k = job.shape
    if key is None or not key.startswith(f"M={m} N={n} K={k} "):
        raise usage_error(f"{job.name}: --shapes sets the dims M, N and K, but {m},{n},{k} gives the problem "
                          f"{key}; name the kernel's dims M, N and K as in C: f32[M, N]")


def _selection_entry(load, arch, dims, compiler) -> dict:
    """The pipeline gemmc.driver.selection chooses for this shape, predicted as the search predicts."""
    from gemmc.driver.lowering import lower_with
    from gemmc.driver.selection import select_pipeline

    module = load()
    choice = select_pipeline(module, arch)
    lowered = choice.lowered if choice.lowered is not None else lower_with(module, choice.pipeline, arch)
    return _entry(choice.pipeline, _predict(lowered, arch, dims, compiler), "selection")


def _predict(module, arch, dims, compiler):
    """As tune ranks its best: with the compiler's VGPRs where it asks the compiler."""
    from gemmc.cost.compiled import predict_module
    from gemmc.cost.model import predict

    if compiler is False or arch.vendor != "amd":
        return predict(module, arch, dims)
    return predict_module(module, arch, dims, compiler)


def _entry(pipeline: str, prediction, found_by: str) -> dict:
    """A table entry; found_by: "search" (tune's) or "selection" (gemmc.selection's choice)."""
    return {"pipeline": pipeline, "predicted_s": prediction.time_s, "bound": prediction.bound, "from": found_by}


# -- running the shapes -----------------------------------------------------------------


def run_local(jobs: list[ShapeJob], workers: int, started: Callable[[], None] = lambda: None) -> Iterator[tuple]:
    """tune_shape's results as the shapes finish: in this process, or on a process pool;
    `started` is called once the shapes are handed out (the progress bar's clock starts)."""
    if workers <= 1:
        started()
        yield from map(tune_shape, jobs)
        return
    from concurrent.futures import ProcessPoolExecutor, as_completed

    pool = ProcessPoolExecutor(max_workers=workers, initializer=_ignore_sigint)
    try:
        futures = [pool.submit(tune_shape, j) for j in jobs]
        started()
        for future in as_completed(futures):
            yield future.result()
    except BaseException:  # interrupted: the finished shapes are in the table, the rest are dropped
        _stop(pool)
        raise
    pool.shutdown()


def _ignore_sigint() -> None:
    """A worker leaves Ctrl-C to the parent, which stops the pool: a worker interrupted while it
    talks to the pool's queues can hang the pool's shutdown."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _stop(pool) -> None:
    """Drop the queued shapes and end the workers now rather than after their current shape."""
    terminate = getattr(pool, "terminate_workers", None)  # Python 3.14
    if terminate is not None:
        terminate()
        return
    workers = list((getattr(pool, "_processes", None) or {}).values())  # shutdown forgets them
    pool.shutdown(wait=False, cancel_futures=True)
    for process in workers:
        process.terminate()


def run_ray(jobs: list[ShapeJob], address: str | None, started: Callable[[], None] = lambda: None) -> Iterator[tuple]:
    """tune_shape's results as the shapes finish, each shape a Ray task; joins the cluster at
    `address` (None: the running one, or a new local instance); `started` as run_local's."""
    ray = import_ray()
    own_instance = not ray.is_initialized()  # a caller's instance (a test's, a notebook's) stays up
    if own_instance:
        ray.init(address=address or None, logging_level="ERROR", log_to_driver=False)
    try:
        remote = ray.remote(tune_shape)
        pending = [remote.remote(j) for j in jobs]
        started()
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            yield ray.get(done[0])
    finally:
        if own_instance:
            ray.shutdown()


def import_ray():
    try:
        import ray
    except ImportError:
        raise usage_error("--ray needs Ray: pip install 'gemmc[ray]'") from None
    return ray


# -- the table ---------------------------------------------------------------------------


def tune_shapes(
    source: tuple[str, str],
    arch: str,
    shapes: list[Shape],
    output: str,
    budget: int = 40,
    seed: int = 0,
    compiler: bool | None = None,
    defines: dict[str, int] | None = None,
    jobs: int = 1,
    ray: bool | str = False,
    progress: Callable[[int, int, None], None] | None = None,
    say: Callable[[str], None] | None = None,
) -> dict:
    """Tune each shape, writing the table to `output` as shapes finish; returns the table.
    ray: False (jobs: a process pool when > 1), True (a local Ray instance) or an address."""
    text, name = source
    defines = {d: v for d, v in (defines or {}).items() if d not in SHAPE_DIMS}  # the shapes set these
    jobs_for = [ShapeJob(text, name, arch, s, budget, seed, compiler, tuple(sorted(defines.items()))) for s in shapes]
    check_kernel(jobs_for[0])
    table = new_table(arch, name, text, seed, budget, compiler, defines)
    done = read_checkpoint(output, table)
    todo = [j for j in jobs_for if _key_guess(j.shape, done) is None]
    if say and len(todo) < len(shapes):
        say(f"{output}: {len(shapes) - len(todo)} of {len(shapes)} shapes already in the table, skipped")
    table["entries"] = _ordered(done, shapes)

    def started() -> None:  # the bar's clock starts now, after a pool's or a Ray instance's start-up
        if progress and todo:
            progress(0, len(todo), None)

    results = run_ray(todo, None if ray is True else ray, started) if ray else run_local(todo, jobs, started)
    for count, (key, entry) in enumerate(results, 1):
        if key is None:
            raise GemmcError(*entry)
        done[key] = entry
        table["entries"] = _ordered(done, shapes)
        write_output(output, json.dumps(table, indent=1) + "\n", input_path=name)  # the checkpoint
        if progress:
            progress(count, len(todo), None)
    return table


def new_table(arch: str, name: str, text: str, seed: int, budget: int, compiler, defines) -> dict:
    return {"format": TABLE_FORMAT, "version": TABLE_VERSION, "arch": arch, "kernel": name,
            "kernel_sha256": hashlib.sha256(text.encode()).hexdigest(), "seed": seed, "budget": budget,
            "compiler": compiler is not False, "defines": dict(sorted(defines.items())), "entries": {}}


def read_checkpoint(path: str, table: dict) -> dict[str, dict]:
    """The entries of an earlier run of this sweep at `path` (none when there is no file);
    a file that is not a table, or a table of another sweep, is not overwritten."""
    if not os.path.exists(path):
        return {}
    old = read_table(path)
    differ = [s for s in SETTINGS if old.get(s) != table[s]]
    if differ:
        what = ", ".join(f"{s} {old.get(s)!r} (now {table[s]!r})" for s in differ)
        raise GemmcError(f"{path}: a selection table of another sweep ({what}); remove it or give another -o",
                         code=EXIT_USAGE)
    return old["entries"]


def read_table(path: str) -> dict:
    """A selection table file, checked: its format, version and entries."""
    from gemmc.driver.source import read_source

    text, _ = read_source(path)
    try:
        table = json.loads(text)
    except json.JSONDecodeError as e:
        raise GemmcError(f"{path}: not a gemmc selection table: invalid JSON at line {e.lineno} ({e.msg})",
                         code=EXIT_IO) from None
    if not isinstance(table, dict) or table.get("format") != TABLE_FORMAT:
        raise GemmcError(f"{path}: not a gemmc selection table (no \"format\": \"{TABLE_FORMAT}\")", code=EXIT_IO)
    if table.get("version") != TABLE_VERSION:
        raise GemmcError(f"{path}: selection table version {table.get('version')!r}; this gemmc reads version "
                         f"{TABLE_VERSION}", code=EXIT_IO)
    entries = table.get("entries")
    if not isinstance(entries, dict):
        raise GemmcError(f"{path}: not a gemmc selection table (\"entries\" is not an object)", code=EXIT_IO)
    for key, entry in entries.items():
        if not isinstance(entry, dict) or not isinstance(entry.get("pipeline"), str):
            raise GemmcError(f"{path}: the entry for {key} has no \"pipeline\" string", code=EXIT_IO)
    return table


def load_selection(path: str, arch: str) -> dict[str, str]:
    """A table file as select_pipeline's table ({problem_key: pipeline}), for `arch` only;
    each pipeline is parsed now, so that a bad one is said with the file's name."""
    from gemmc.driver.pipeline import parse_pipeline_spec

    table = read_table(path)
    if table.get("arch") != arch:
        raise GemmcError(f"{path}: a selection table for {table.get('arch')}, not {arch}", code=EXIT_USAGE)
    out = {}
    for key, entry in table["entries"].items():
        try:
            parse_pipeline_spec(entry["pipeline"])
        except GemmcError as e:
            raise GemmcError(f"{path}: the entry for {key}: {e.message}", code=e.code) from None
        out[key] = entry["pipeline"]
    return out


def _key_guess(shape: Shape, entries: dict[str, dict]) -> str | None:
    """The key of `shape`'s entry among `entries`: keys start with its sizes (the element
    types and transposes that follow are the kernel's, the same for every shape of a sweep)."""
    prefix = "M={} N={} K={} ".format(*shape)
    return next((k for k in entries if k.startswith(prefix)), None)


def _ordered(entries: dict[str, dict], shapes: list[Shape]) -> dict[str, dict]:
    """The entries in the shapes file's order (then those of shapes no longer in it), so that
    the table is the same however the shapes were spread over workers."""
    keys = [k for k in (_key_guess(s, entries) for s in shapes) if k is not None]
    keys += sorted(k for k in entries if k not in keys)
    return {k: entries[k] for k in keys}

