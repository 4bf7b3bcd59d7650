"""`gemmc tune --shapes` (issue #15 item 4): a selection table per kernel and arch, the same
whatever runs the shapes (in process, a process pool, Ray), resumable, and used by
`gemmc compile --selection`."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

import gemmc
from gemmc.driver.cli import main
from gemmc.driver import sweep
from gemmc.driver.sweep import read_shapes, tune_shape
from gemmc.support.ir_names import PIPELINE_ATTR, SELECTED_ATTR

ROOT = Path(__file__).resolve().parent.parent
SGEMM = str(ROOT / "examples" / "sgemm.gemm")
ARCH = "gfx1100"  # the quickest to predict: keeps the sweeps here a few seconds each
SHAPES = [(64, 64, 256), (256, 128, 512), (1024, 1024, 512)]
OPTIONS = dict(budget=2, seed=3, compiler=False)
KEY = "M={} N={} K={} A=f32 B=f32 C=f32 ta=0 tb=0 ab=0"
PLANTED = "gemm-to-kernel,lds-tiling{block-m=32 block-n=32 block-k=8}"  # no model would pick it


def run(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    assert "Traceback" not in err and "Traceback" not in out
    return code, out, err


def write_csv(path: Path, shapes, header: bool = True) -> str:
    rows = (["M,N,K"] if header else []) + [",".join(map(str, s)) for s in shapes]
    path.write_text("\n".join(rows) + "\n")
    return str(path)


@pytest.fixture(scope="module")
def table_jobs1(tmp_path_factory) -> tuple[Path, dict]:
    """The sweep of SHAPES run in this process: the reference the other runs must equal."""
    out = tmp_path_factory.mktemp("sweep") / "table.json"
    table = gemmc.tune_shapes(SGEMM, ARCH, SHAPES, str(out), jobs=1, **OPTIONS)
    return out, table


def test_the_table_has_one_entry_per_shape_in_file_order(table_jobs1):
    out, table = table_jobs1
    on_disk = json.loads(out.read_text())
    assert on_disk == table
    assert on_disk["format"] == "gemmc-selection-table" and on_disk["version"] == 1
    assert (on_disk["arch"], on_disk["seed"], on_disk["budget"]) == (ARCH, 3, 2)
    assert list(on_disk["entries"]) == [KEY.format(*s) for s in SHAPES]
    for entry in on_disk["entries"].values():
        assert entry["predicted_s"] > 0 and entry["bound"] and entry["from"] in ("search", "selection")


def test_each_entry_is_the_faster_of_search_and_selection(table_jobs1):
    """The entry's prediction is no slower than the selection's choice alone."""
    from gemmc.target.arch import get_arch
    from gemmc.driver.sweep import _selection_entry

    _, table = table_jobs1
    m, n, k = SHAPES[2]
    dims = {"M": m, "N": n, "K": k}
    alone = _selection_entry(lambda: gemmc.parse(Path(SGEMM).read_text(), SGEMM, dims), get_arch(ARCH), dims, False)
    assert table["entries"][KEY.format(m, n, k)]["predicted_s"] <= alone["predicted_s"]


def test_jobs_2_gives_the_same_table_as_jobs_1(table_jobs1, tmp_path):
    out1, _ = table_jobs1
    out2 = tmp_path / "table.json"
    gemmc.tune_shapes(SGEMM, ARCH, SHAPES, str(out2), jobs=2, **OPTIONS)
    assert out2.read_bytes() == out1.read_bytes()


def test_a_shape_seed_depends_on_the_seed_and_the_shape_only():
    assert sweep.shape_seed(3, (64, 64, 256)) == sweep.shape_seed(3, (64, 64, 256))
    assert len({sweep.shape_seed(s, sh) for s in (0, 1) for sh in SHAPES}) == 2 * len(SHAPES)


def test_an_interrupted_sweep_resumes(table_jobs1, tmp_path, monkeypatch, capsys):
    """A table with the first shapes done (one planted, so a recomputation would show): only
    the rest are tuned, the done ones kept, and the skip is said."""
    _, full = table_jobs1
    partial = dict(full, entries={k: v for k, v in list(full["entries"].items())[:2]})
    first = KEY.format(*SHAPES[0])
    partial["entries"][first] = dict(partial["entries"][first], pipeline=PLANTED)
    out = tmp_path / "table.json"
    out.write_text(json.dumps(partial))
    tuned = []
    monkeypatch.setattr(sweep, "tune_shape", lambda job: tuned.append(job.shape) or tune_shape(job))
    csv = write_csv(tmp_path / "shapes.csv", SHAPES)
    code, _, err = run(["tune", SGEMM, "--arch", ARCH, "--shapes", csv, "-o", str(out), "--budget", "2",
                        "--seed", "3", "--no-compiler"], capsys)
    assert code == 0, err
    assert tuned == [SHAPES[2]]
    assert "2 of 3 shapes already in the table, skipped" in err
    entries = json.loads(out.read_text())["entries"]
    assert entries[first]["pipeline"] == PLANTED
    assert entries == dict(full["entries"], **{first: entries[first]})
    tuned.clear()  # a finished sweep run again: nothing to do, and no empty bar
    code, _, err = run(["tune", SGEMM, "--arch", ARCH, "--shapes", csv, "-o", str(out), "--budget", "2",
                        "--seed", "3", "--no-compiler"], capsys)
    assert code == 0 and tuned == [] and "shapes [" not in err
    assert "3 of 3 shapes already in the table, skipped" in err


def test_a_shape_that_fails_stops_the_sweep_and_keeps_the_finished_ones(tmp_path, monkeypatch):
    real = sweep._tune_shape

    def second_fails(job):
        if job.shape == SHAPES[1]:
            raise gemmc.GemmcError("no candidate fits")
        return real(job)

    monkeypatch.setattr(sweep, "_tune_shape", second_fails)
    out = tmp_path / "table.json"
    with pytest.raises(gemmc.GemmcError, match=r"^error: shape 256,128,512: no candidate fits$"):
        gemmc.tune_shapes(SGEMM, ARCH, SHAPES, str(out), jobs=1, **OPTIONS)
    assert list(json.loads(out.read_text())["entries"]) == [KEY.format(*SHAPES[0])]


def test_a_table_of_another_sweep_is_not_overwritten(table_jobs1, tmp_path, capsys):
    out = tmp_path / "table.json"
    out.write_bytes(table_jobs1[0].read_bytes())
    csv = write_csv(tmp_path / "shapes.csv", SHAPES[:1])
    code, _, err = run(["tune", SGEMM, "--arch", ARCH, "--shapes", csv, "-o", str(out), "--budget", "2",
                        "--seed", "4", "--no-compiler"], capsys)
    assert code == 2
    assert err.strip() == (f"error: {out}: a selection table of another sweep (seed 3 (now 4)); "
                           "remove it or give another -o")
    assert out.read_bytes() == table_jobs1[0].read_bytes()


def test_compile_runs_the_tables_pipeline(table_jobs1, tmp_path, capsys):
    """The HIP header's `// pipeline:` line is the table's entry for the shape, for an entry
    the sweep wrote and for one planted in the table."""
    out, table = table_jobs1
    m, n, k = SHAPES[1]
    dims = ["-D", f"M={m}", "-D", f"N={n}", "-D", f"K={k}"]
    hip = tmp_path / "out.hip"
    code, _, err = run(["compile", SGEMM, "--arch", ARCH, *dims, "--selection", str(out), "-o", str(hip)], capsys)
    assert code == 0, err
    assert f"// pipeline: {table['entries'][KEY.format(m, n, k)]['pipeline']}\n" in hip.read_text()

    planted = tmp_path / "planted.json"
    planted.write_text(json.dumps(dict(table, entries={KEY.format(m, n, k): {"pipeline": PLANTED}})))
    code, _, err = run(["compile", SGEMM, "--arch", ARCH, *dims, "--selection", str(planted), "-o", str(hip)], capsys)
    assert code == 0, err
    assert f"// pipeline: {PLANTED}\n" in hip.read_text()
    code, out_text, err = run(["explain", SGEMM, "--arch", ARCH, *dims, "--selection", str(planted),
                               "--no-compiler"], capsys)
    assert code == 0, err
    assert f"selected: the selection table's entry for {KEY.format(m, n, k)}" in out_text


def test_lower_with_a_selection_says_so_and_without_one_is_unchanged(tmp_path):
    src = Path(SGEMM).read_text()
    key = KEY.format(64, 64, 256)
    dims = {"M": 64, "N": 64, "K": 256}
    module = gemmc.lower(gemmc.parse(src, SGEMM, dims), None, ARCH, selection={key: PLANTED})
    assert module.attributes[PIPELINE_ATTR].data == PLANTED
    assert module.attributes[SELECTED_ATTR].data == f"the selection table's entry for {key}"
    other = gemmc.lower(gemmc.parse(src, SGEMM, dims), None, ARCH, selection={KEY.format(1, 1, 1): PLANTED})
    default = gemmc.lower(gemmc.parse(src, SGEMM, dims), None, ARCH)
    assert other.attributes[PIPELINE_ATTR].data == default.attributes[PIPELINE_ATTR].data != PLANTED


# -- errors ---------------------------------------------------------------------------


def test_read_shapes_takes_a_header_comments_and_drops_repeats(tmp_path):
    p = tmp_path / "s.csv"
    p.write_text("m, n, k\n# small\n64,64,256\n\n 128 , 64 , 32  # a comment\n64,64,256\n")
    assert read_shapes(str(p)) == [(64, 64, 256), (128, 64, 32)]


@pytest.mark.parametrize("text, line", [("M,N,K\n64,64,256\n64,64\n", 3), ("64,x,2\n", 1),
                                        ("64,64,256\n0,1,1\n", 2), ("64,64,256,1\n", 1),
                                        ("64,64,2147483648\n", 1)])
def test_a_bad_csv_line_is_said_with_its_number(tmp_path, capsys, text, line):
    csv = tmp_path / "s.csv"
    csv.write_text(text)
    code, _, err = run(["tune", SGEMM, "--arch", ARCH, "--shapes", str(csv), "-o", str(tmp_path / "t.json")],
                       capsys)
    bad = text.splitlines()[line - 1]
    assert code == 2
    assert err.strip() == f"error: {csv}:{line}: expected M,N,K (three integers from 1 to 2147483647), got '{bad}'"
    assert not (tmp_path / "t.json").exists()


def test_tune_shapes_usage_errors(tmp_path, capsys):
    csv = write_csv(tmp_path / "s.csv", SHAPES[:1])
    t = str(tmp_path / "t.json")
    cases = [
        (["--shapes", str(tmp_path / "none.csv"), "-o", t], 3, f"error: {tmp_path / 'none.csv'}: no such file"),
        (["--shapes", csv], 2, "error: --shapes writes a selection table: give -o TABLE.json"),
        (["--shapes", csv, "-o", t, "--jobs", "0"], 2, "error: --jobs 0: give at least 1"),
        (["--shapes", csv, "-o", t, "--jobs", "2", "--ray"], 2,
         "error: --jobs runs a local process pool and --ray Ray tasks: give one of them"),
        (["--jobs", "2"], 2, "error: --jobs applies to a sweep: give --shapes SHAPES.csv"),
        (["--shapes", csv, "-o", t, "--emit-test", str(tmp_path)], 2,
         "error: --emit-test pins one problem's winner; it does not apply to --shapes"),
    ]
    for extra, want_code, want in cases:
        code, _, err = run(["tune", SGEMM, "--arch", ARCH, *extra], capsys)
        assert (code, err.strip()) == (want_code, want), extra


def test_a_kernel_a_sweep_cannot_size_is_said_before_any_shape(tmp_path, capsys):
    csv = write_csv(tmp_path / "s.csv", SHAPES[:1])
    t = tmp_path / "t.json"
    other = tmp_path / "p.gemm"
    other.write_text("kernel s { dim P = 4, N = 8, K = 8  A: f32[P, K]  B: f32[K, N]  C: f32[P, N]  C = A @ B }")
    ir = tmp_path / "k.mlir"
    ir.write_text(gemmc.print_ir(gemmc.parse(Path(SGEMM).read_text())))
    cases = [(other, f"error: {other}: --shapes sets the dims M, N and K; kernel 's' has no dim 'M' (dims: P, N, K)"),
             (ir, f"error: {ir}: --shapes sets a .gemm kernel's dims M, N and K; give the .gemm source")]
    for kernel, want in cases:
        code, _, err = run(["tune", str(kernel), "--arch", ARCH, "--shapes", csv, "-o", str(t)], capsys)
        assert (code, err.strip()) == (2, want)
        assert not t.exists()


def test_a_missing_ray_is_one_line(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` raises ImportError
    csv = write_csv(tmp_path / "s.csv", SHAPES[:1])
    code, _, err = run(["tune", SGEMM, "--arch", ARCH, "--shapes", csv, "-o", str(tmp_path / "t.json"), "--ray"],
                       capsys)
    assert (code, err.strip()) == (2, "error: --ray needs Ray: pip install 'gemmc[ray]'")


def test_a_bad_selection_table_is_one_line_naming_the_file(table_jobs1, tmp_path, capsys):
    good = json.loads(table_jobs1[0].read_text())
    bad = tmp_path / "bad.json"
    cases = [
        ("{", 3, f"error: {bad}: not a gemmc selection table: invalid JSON at line 1 "
                 "(Expecting property name enclosed in double quotes)"),
        ('{"entries": {}}', 3, f'error: {bad}: not a gemmc selection table (no "format": "gemmc-selection-table")'),
        (json.dumps(dict(good, version=2)), 3, f"error: {bad}: selection table version 2; this gemmc reads version 1"),
        (json.dumps(dict(good, entries={"k": {"pipe": 1}})), 3, f'error: {bad}: the entry for k has no "pipeline" string'),
        (json.dumps(good), 2, f"error: {bad}: a selection table for {ARCH}, not gfx942"),
    ]
    for text, want_code, want in cases:
        bad.write_text(text)
        code, _, err = run(["compile", SGEMM, "--arch", "gfx942", "--selection", str(bad)], capsys)
        assert (code, err.strip()) == (want_code, want), text
    bad.write_text(json.dumps(dict(good, entries={"k": {"pipeline": "no-such-pass"}})))
    code, _, err = run(["compile", SGEMM, "--arch", ARCH, "--selection", str(bad)], capsys)
    assert code == 2 and err.startswith(f"error: {bad}: the entry for k: ") and "no-such-pass" in err
    code, _, err = run(["compile", SGEMM, "--arch", ARCH, "--selection", str(table_jobs1[0]), "-p", "step1"], capsys)
    assert (code, err.strip()) == (2, "error: --selection chooses the pipeline by the problem's shape; "
                                      "give -p or --selection, not both")
    code, _, err = run(["compile", SGEMM, "--arch", ARCH, "--selection", str(table_jobs1[0]), "--emit", "gcn"],
                       capsys)
    assert (code, err.strip()) == (2, "error: --emit gcn runs the arch's default pipeline (gemmc's own backend has "
                                      "no split-k); --selection applies to the other outputs")
    code, _, err = run(["explain", SGEMM, "--arch", ARCH, "--selection", str(tmp_path / "none.json")], capsys)
    assert (code, err.strip()) == (3, f"error: {tmp_path / 'none.json'}: no such file")


# -- Ray --------------------------------------------------------------------------------


def test_a_sweep_of_20_shapes_on_a_local_ray_instance(table_jobs1, tmp_path, capsys):
    """The issue's "Shown by": 20 shapes as Ray tasks on a local instance, a table whose
    entries are the in-process ones (those of SHAPES, computed without Ray), that compile uses."""
    ray = pytest.importorskip("ray")
    shapes = SHAPES + [(m, n, 64) for m in (32, 64, 128, 256, 512, 1024) for n in (64, 256, 1024)][:17]
    assert len(shapes) == 20
    csv = write_csv(tmp_path / "shapes.csv", shapes)
    out = tmp_path / "table.json"
    ray.init(num_cpus=2, include_dashboard=False, logging_level="ERROR", log_to_driver=False)
    try:
        code, _, err = run(["tune", SGEMM, "--arch", ARCH, "--shapes", csv, "-o", str(out), "--budget", "2",
                            "--seed", "3", "--no-compiler", "--ray"], capsys)
    finally:
        ray.shutdown()
    assert code == 0, err
    assert "shapes [" in err and f"wrote {out} (20 entries)" in err
    entries = json.loads(out.read_text())["entries"]
    assert list(entries) == [KEY.format(*s) for s in shapes]
    for key, entry in table_jobs1[1]["entries"].items():
        assert entries[key] == entry
    m, n, k = shapes[-1]
    hip = tmp_path / "out.hip"
    code, _, err = run(["compile", SGEMM, "--arch", ARCH, "-D", f"M={m}", "-D", f"N={n}", "-D", f"K={k}",
                        "--selection", str(out), "-o", str(hip)], capsys)
    assert code == 0, err
    assert f"// pipeline: {entries[KEY.format(m, n, k)]['pipeline']}\n" in hip.read_text()


def test_the_progress_bar_counts_shapes_with_an_eta_from_the_start_of_the_work():
    import io

    from gemmc.driver.tune import progress_bar

    now = [100.0]
    out = io.StringIO()
    show = progress_bar(out, width=10, label="shapes", eta=True, clock=lambda: now[0])
    now[0] = 160.0  # a Ray instance's start-up: not part of the pace
    show(0, 4)
    now[0] = 190.0
    show(1, 4)  # 30 s a shape: 90 s for the 3 left
    now[0] = 220.0
    show(2, 4)
    show(4, 4)
    assert out.getvalue().splitlines() == ["shapes [..........] 0/4", "shapes [##........] 1/4 eta 1m30s",
                                           "shapes [#####.....] 2/4 eta 1m00s", "shapes [##########] 4/4"]
