"""The catalogue for explain, tune, layout and bench: missing files, bad archs, -D, pipelines,
budgets, instructions and outputs, each one line with its exit code (docs/errors.md), and
every one of them before the work it would spoil: no table printed, no search run, no GPU
needed.  `--plot` is checked before anything is printed and written whole or not at all."""

from __future__ import annotations

import functools
import os
import sys
from pathlib import Path

import pytest

from errors.helpers import BASE, Case, run_in_process
import gemmc

NO_CC = "--no-compiler"  # the cost model's estimate: no toolchain, fast


@functools.cache
def _lowered() -> tuple[str, str, str]:
    """BASE for gfx942 as kernel IR (step1), as gemmc's AMDGCN program and with MFMAs (step7),
    made once."""
    m = gemmc.parse(BASE)
    gemmc.lower(m, "step1", "gfx942")
    kernel_ir = gemmc.print_ir(m)
    gemmc.lower(m, "lower-to-amdgcn", "gfx942")
    mfma = gemmc.parse(BASE)
    gemmc.lower(mfma, "step7", "gfx942")
    return kernel_ir, gemmc.print_ir(m), gemmc.print_ir(mfma)


def _inputs(d: Path) -> None:
    (d / "k.gemm").write_text(BASE)
    (d / "d.gemm").write_text(BASE.replace("M = 8, N = 8, K = 8", "M, N, K"))
    (d / "h.gemm").write_text(BASE.replace("A: f32", "A: f16").replace("B: f32", "B: f16"))
    (d / "f8.gemm").write_text(BASE.replace("A: f32", "A: f8e4m3fnuz").replace("B: f32", "B: f8e4m3fnuz"))
    (d / "k.svg").write_text(BASE)  # a source that --plot could name
    (d / "dir.svg").mkdir()
    kernel_ir, gcn, mfma = _lowered()
    (d / "k1.mlir").write_text(kernel_ir)
    (d / "gcn.mlir").write_text(gcn)
    (d / "mfma.mlir").write_text(mfma)


def _c(id: str, argv: list[str], code: int, expect: str, env: dict[str, str] | None = None) -> Case:
    return Case(id, argv, code, expect, setup=_inputs, env=env or {})


UNKNOWN_ARCH = "re:error: unknown arch 'gfx1'; known archs: gfx90a, gfx942, .*"
NO_FP8 = ("error: sm_90 cannot do f8e4m3fnuz in gemmc's output (it supports f32, f16, bf16, f8e4m3fn, f8e5m2): "
          "the FNUZ FP8 formats and the MX formats need an AMD target")
GFX942_INSTRS = "v_mfma_f32_32x32x2_f32, v_mfma_f32_16x16x4_f32, v_mfma_f32_32x32x8_f16, "

EXPLAIN = [
    _c("explain-missing-file", ["explain", "{dir}/nope.gemm", NO_CC], 3, "error: {dir}/nope.gemm: no such file"),
    _c("explain-stdin-empty", ["explain", "-", NO_CC], 3, "error: <stdin>: is empty"),
    _c("explain-unknown-arch", ["explain", "{src}", "--arch", "gfx1", NO_CC], 2, UNKNOWN_ARCH),
    _c("explain-define-not-int", ["explain", "{src}", "-D", "M=x", NO_CC], 2, "error: -D M=x: 'x' is not an integer"),
    _c("explain-define-unknown-dim", ["explain", "{src}", "-D", "Q=3", NO_CC], 2,
       "error: -D Q: kernel 'k' has no dim 'Q' (dims: M, N, K)"),
    _c("explain-define-zero", ["explain", "{src}", "-D", "M=0", NO_CC], 2, "error: -D M=0: a dim must be positive"),
    _c("explain-dynamic-dim", ["explain", "{dir}/d.gemm", NO_CC], 1,
       "error: dim 'M' is dynamic; give its size with -D M=..."),
    _c("explain-unknown-pass", ["explain", "{src}", "-p", "no-such-pass", NO_CC], 2,
       "re:error: unknown pass 'no-such-pass'; known passes and pipelines: gemm-to-kernel, .*"),
    _c("explain-malformed-pipeline", ["explain", "{src}", "-p", "gemm-to-kernel{", NO_CC], 2,
       "error: malformed pipeline 'gemm-to-kernel{': expected argument name here (column 16)"),
    _c("explain-empty-pipeline", ["explain", "{src}", "-p", "", NO_CC], 2,
       "error: explain needs kernel IR: give a pipeline such as -p step1"),
    _c("explain-pass-error", ["explain", "{src}", "-p", "gemm-to-kernel{block-x=0}", NO_CC], 1,
       "error: gemm-to-kernel: block-x=0 must be positive (at 'gemm.matmul' in @k)"),
    _c("explain-dtype", ["explain", "{dir}/f8.gemm", "--arch", "sm_90", NO_CC], 1, NO_FP8),
    _c("explain-k-pack-on-mma-sync", ["explain", "{src}", "--arch", "sm_90", "-p",
                                      "gemm-to-kernel,lds-tiling{block-m=64 block-n=64 block-k=32},"
                                      "register-tiling{thread-m=4 thread-n=4},matrix-cores{k-pack=2}", NO_CC], 1,
       "error: matrix-cores: k-pack with mma_m16n8k16_f32_f16 is not built: a lane's k's of A lie on several rows "
       "(at 'gpu.func' @k)"),
    _c("explain-amdgcn-pipeline", ["explain", "{src}", "-p", "step2,lower-copies,unroll-loops,promote-private,lower-to-amdgcn", NO_CC], 2,
       "error: explain predicts kernel IR (a gpu.func), not gemmc's AMDGCN program (lower-to-amdgcn's output); "
       "give the pipeline without the amdgcn passes"),
    _c("explain-amdgcn-input", ["explain", "{dir}/gcn.mlir", NO_CC], 2,
       "error: explain predicts kernel IR (a gpu.func), not gemmc's AMDGCN program (lower-to-amdgcn's output); "
       "give the pipeline without the amdgcn passes"),
    _c("explain-instr-of-another-arch", ["explain", "{dir}/mfma.mlir", "--arch", "gfx1100", NO_CC], 1,
       "re:error: IR does not verify: gfx1100 \\(RDNA3\\) has no MFMA 32x32x2 with f32 inputs and f32 accumulators; "
       "its matrix instructions: v_wmma_.*"),
    _c("explain-plot-format", ["explain", "{src}", "--plot", "{dir}/roof.txt", NO_CC], 2,
       "error: {dir}/roof.txt: --plot writes .png, .svg or .pdf"),
    _c("explain-plot-empty-name", ["explain", "{src}", "--plot", "", NO_CC], 2,
       "error: '': --plot writes .png, .svg or .pdf"),
    _c("explain-plot-dir-missing", ["explain", "{src}", "--plot", "{dir}/no/roof.svg", NO_CC], 3,
       "error: {dir}/no/roof.svg: cannot write: No such file or directory"),
    _c("explain-plot-under-a-file", ["explain", "{src}", "--plot", "{src}/roof.svg", NO_CC], 3,
       "error: {src}/roof.svg: cannot write: Not a directory"),
    _c("explain-plot-is-directory", ["explain", "{src}", "--plot", "{dir}/dir.svg", NO_CC], 3,
       "error: {dir}/dir.svg: is a directory"),
    _c("explain-plot-is-input", ["explain", "{dir}/k.svg", "--plot", "{dir}/k.svg", NO_CC], 3,
       "error: {dir}/k.svg: output would overwrite the input"),
]

TUNE = [
    _c("tune-missing-file", ["tune", "{dir}/nope.gemm", NO_CC], 3, "error: {dir}/nope.gemm: no such file"),
    _c("tune-unknown-arch", ["tune", "{src}", "--arch", "gfx1", NO_CC], 2, UNKNOWN_ARCH),
    _c("tune-define-not-int", ["tune", "{src}", "-D", "K=1.5", NO_CC], 2, "error: -D K=1.5: '1.5' is not an integer"),
    _c("tune-define-unknown-dim", ["tune", "{src}", "-D", "Q=3", NO_CC], 2,
       "error: -D Q: kernel 'k' has no dim 'Q' (dims: M, N, K)"),
    _c("tune-budget-zero", ["tune", "{src}", "--budget", "0", NO_CC], 2, "error: --budget 0: give at least 1 candidate"),
    _c("tune-budget-negative", ["tune", "{src}", "--budget", "-3", NO_CC], 2,
       "error: --budget -3: give at least 1 candidate"),
    _c("tune-budget-not-int", ["tune", "{src}", "--budget", "many", NO_CC], 2,
       "error: gemmc tune: argument --budget: invalid int value: 'many'"),
    _c("tune-seed-not-int", ["tune", "{src}", "--seed", "x", NO_CC], 2,
       "error: gemmc tune: argument --seed: invalid int value: 'x'"),
    _c("tune-pipeline-given", ["tune", "{src}", "-p", "no-such-pass", NO_CC], 2,
       "error: tune searches the pipelines itself and takes no -p; gemmc explain -p PIPELINE predicts one"),
    _c("tune-dynamic-dim", ["tune", "{dir}/d.gemm", "--budget", "2", NO_CC], 1,
       "error: dim 'M' is dynamic; give its size with -D M=..."),
    _c("tune-dtype", ["tune", "{dir}/f8.gemm", "--arch", "sm_90", "--budget", "2", NO_CC], 1, NO_FP8),
    _c("tune-kernel-ir-input", ["tune", "{dir}/k1.mlir", "--budget", "2", NO_CC], 2,
       "error: {dir}/k1.mlir: is kernel IR already; tune needs the GEMM (a .gemm file or gemm-level IR)"),
    _c("tune-output-dir-missing", ["tune", "{src}", "--budget", "2", NO_CC, "-o", "{dir}/no/best.pipeline"], 3,
       "error: {dir}/no/best.pipeline: cannot write: No such file or directory"),
    _c("tune-output-is-input", ["tune", "{src}", "--budget", "2", NO_CC, "-o", "{src}"], 3,
       "error: {src}: output would overwrite the input"),
    _c("tune-output-is-directory", ["tune", "{src}", "--budget", "2", NO_CC, "-o", "{dir}"], 3,
       "error: {dir}: is a directory"),
    _c("tune-emit-test-is-a-file", ["tune", "{src}", "--budget", "2", NO_CC, "--emit-test", "{src}"], 3,
       "error: {src}: is not a directory"),
    _c("tune-emit-test-under-a-file", ["tune", "{src}", "--budget", "2", NO_CC, "--emit-test", "{src}/lit"], 3,
       "error: {src}/lit: cannot create: Not a directory"),
]

LAYOUT = [
    _c("layout-unknown-instr", ["layout", "v_nope", "--arch", "gfx942"], 2,
       f"re:error: gfx942 has no matrix instruction 'v_nope'; its instructions: {GFX942_INSTRS}.*"),
    _c("layout-instr-of-another-arch", ["layout", "v_mfma_f32_32x32x8_f16", "--arch", "gfx1100"], 2,
       "re:error: gfx1100 has no matrix instruction 'v_mfma_f32_32x32x8_f16'; its instructions: v_wmma_.*"),
    _c("layout-instr-of-another-arch", ["layout", "v_mfma_f32_32x32x8_f16", "--arch", "sm_90"], 2,
       "error: sm_90 has no matrix instruction 'v_mfma_f32_32x32x8_f16'; its instructions: mma_m16n8k16_f32_f16, "
       "mma_m16n8k16_f32_bf16, mma_m16n8k32_f32_e4m3_e4m3, mma_m16n8k32_f32_e4m3_e5m2, mma_m16n8k32_f32_e5m2_e4m3, "
       "mma_m16n8k32_f32_e5m2_e5m2"),
    _c("layout-unknown-arch", ["layout", "v_mfma_f32_32x32x8_f16", "--arch", "gfx1"], 2, UNKNOWN_ARCH),
    _c("layout-missing-instr", ["layout"], 2, "error: gemmc layout: the following arguments are required: INSTR"),
    _c("layout-plot-format", ["layout", "v_mfma_f32_32x32x8_f16", "--plot", "{dir}/l.txt"], 2,
       "error: {dir}/l.txt: --plot writes .png, .svg or .pdf"),
    _c("layout-plot-empty-name", ["layout", "v_mfma_f32_32x32x8_f16", "--plot", ""], 2,
       "error: '': --plot writes .png, .svg or .pdf"),
    _c("layout-plot-dir-missing", ["layout", "v_mfma_f32_32x32x8_f16", "--csv", "--plot", "{dir}/no/l.png"], 3,
       "error: {dir}/no/l.png: cannot write: No such file or directory"),
    _c("layout-plot-is-directory", ["layout", "v_mfma_f32_32x32x8_f16", "--plot", "{dir}/dir.svg"], 3,
       "error: {dir}/dir.svg: is a directory"),
]

BENCH = [  # every one before the GPU check: they hold on a machine without an NVIDIA GPU
    _c("bench-missing-file", ["bench", "{dir}/nope.gemm"], 3, "error: {dir}/nope.gemm: no such file"),
    _c("bench-amd-arch", ["bench", "{src}", "--arch", "gfx942"], 2,
       "error: gemmc bench runs on NVIDIA GPUs: use --arch sm_90, not gfx942"),
    _c("bench-unknown-arch", ["bench", "{src}", "--arch", "gfx1"], 2, UNKNOWN_ARCH),
    _c("bench-define-not-int", ["bench", "{src}", "-D", "M="], 2, "error: -D M=: '' is not an integer"),
    _c("bench-define-unknown-dim", ["bench", "{src}", "-D", "Q=3"], 2,
       "error: -D Q: kernel 'k' has no dim 'Q' (dims: M, N, K)"),
    _c("bench-unknown-pass", ["bench", "{src}", "-p", "no-such-pass"], 2,
       "re:error: unknown pass 'no-such-pass'; known passes and pipelines: .*"),
    _c("bench-malformed-pipeline", ["bench", "{src}", "-p", "gemm-to-kernel,,lds-tiling"], 2,
       "error: malformed pipeline 'gemm-to-kernel,,lds-tiling': expected pass name here (column 16)"),
    _c("bench-pass-error", ["bench", "{src}", "-p", "gemm-to-kernel{block-x=64 block-y=32}"], 1,
       "error: gemm-to-kernel: block-x * block-y = 2048 exceeds 1024 threads per block (at 'gemm.matmul' in @k)"),
    _c("bench-dtype", ["bench", "{dir}/f8.gemm", "-p", "step1"], 1,
       "{dir}/f8.gemm:3:6: error: sm_90 cannot do f8e4m3fnuz; its types: f32, f16, bf16, f8e4m3fn, f8e5m2"),
    _c("bench-dynamic-dim", ["bench", "{dir}/d.gemm", "-p", "step1"], 1,
       "error: dim 'M' is dynamic; give its size with -D M=..."),
    _c("bench-repeats-zero", ["bench", "{src}", "--repeats", "0"], 2, "error: --repeats 0: give at least 1 timed run"),
    _c("bench-no-gpu", ["bench", "{src}", "-p", "step1"], 4,
       "error: gemmc bench: no NVIDIA GPU here (nvidia-smi finds none); run it on a machine with one",
       env={"PATH": ""}),
]

COMMANDS = EXPLAIN + TUNE + LAYOUT + BENCH


@pytest.mark.parametrize("case", COMMANDS, ids=lambda c: c.id)
def test_bad_command(case: Case, tmp_path):
    argv = case.prepare(tmp_path)
    before = sorted(p.name for p in tmp_path.iterdir())
    code, out, err = run_in_process(argv, stdin=b"" if "-" in argv else None, env=case.env)
    case.check(tmp_path, code, out, err)
    assert out == "", f"printed before failing: {out[:200]}"
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # nothing written, not even half


def test_tune_says_why_no_candidate_fits(tmp_path, monkeypatch):
    """A search whose every candidate a pass refuses names the refusal, and writes nothing."""
    from gemmc.driver import tune

    too_big = tune.Candidate(256, 256, 32, 8, 8, True, 1, 0)  # 256x32 + 32x256 f32 tiles, twice: 128 KiB
    monkeypatch.setattr(tune, "space", lambda arch, dtype=None: [too_big])
    (tmp_path / "k.gemm").write_text(BASE)
    code, out, err = run_in_process(["tune", str(tmp_path / "k.gemm"), "--budget", "3", NO_CC,
                                     "-o", str(tmp_path / "best.pipeline")])
    assert (code, out) == (1, "")
    assert err.splitlines()[-1] == (
        "error: no candidate of 1 fits gfx942; raise --budget (most often refused by double-buffer: LDS tiles "
        "need 131072 bytes but gfx942 has 65536 per workgroup (at 'gpu.func' @k))"), err
    assert [p.name for p in tmp_path.iterdir()] == ["k.gemm"]


# -- --plot without matplotlib, and whole plots ---------------------------------------------------

NO_MATPLOTLIB = "error: --plot needs matplotlib: pip install 'gemmc[plot]' (or pip install matplotlib)"


@pytest.mark.parametrize("argv", [
    ["explain", "{src}", NO_CC, "--plot", "{dir}/roof.svg"],
    ["explain", "{src}", NO_CC, "--json", "--plot", "{dir}/roof.png"],
    ["layout", "v_mfma_f32_32x32x8_f16", "--csv", "--plot", "{dir}/l.png"],
], ids=["explain-table", "explain-json", "layout-csv"])
def test_plot_without_matplotlib_fails_before_printing(argv, tmp_path, monkeypatch):
    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # `import matplotlib` raises ImportError
    (tmp_path / "k.gemm").write_text(BASE)
    code, out, err = run_in_process([Case.fill(a, tmp_path) for a in argv])
    assert (code, out, err) == (2, "", NO_MATPLOTLIB + "\n")
    assert [p.name for p in tmp_path.iterdir()] == ["k.gemm"]


class _Figure:
    """A stand-in for a matplotlib figure: savefig writes `data` and may fail halfway."""

    def __init__(self, data: bytes, fail: bool):
        self.data, self.fail, self.format = data, fail, None

    def savefig(self, out, format=None, **_):
        self.format = format
        out.write(self.data[: len(self.data) // 2])
        if self.fail:
            raise OSError(28, "No space left on device")
        out.write(self.data[len(self.data) // 2:])


class _Pyplot:
    @staticmethod
    def close(fig):
        fig.closed = True


@pytest.mark.parametrize("fail", [False, True], ids=["whole", "failing"])
def test_plot_is_written_whole_or_not_at_all(fail, tmp_path, monkeypatch):
    from gemmc.driver import plotting

    monkeypatch.setattr(plotting, "pyplot", lambda: _Pyplot)
    target = tmp_path / "roof.svg"
    target.write_bytes(b"old plot")
    fig = _Figure(b"<svg>new plot</svg>", fail)
    if fail:
        with pytest.raises(OSError):
            plotting.save(fig, str(target))
    else:
        plotting.save(fig, str(target))
    assert target.read_bytes() == (b"old plot" if fail else b"<svg>new plot</svg>")
    assert fig.format == "svg" and fig.closed
    assert [p.name for p in tmp_path.iterdir()] == ["roof.svg"]  # no temporary left behind


@pytest.mark.parametrize("argv", [
    ["explain", "{src}", NO_CC, "-p", "step2", "--plot", "{out}"],
    ["layout", "v_wmma_f32_16x16x16_f16", "--arch", "gfx1100", "--plot", "{out}"],
], ids=["explain", "layout"])
def test_a_failing_plot_keeps_the_old_file(argv, tmp_path, monkeypatch):
    """Real matplotlib, its rendering failing halfway: the previous picture stays whole."""
    pytest.importorskip("matplotlib")
    from matplotlib.figure import Figure

    def half_then_fail(self, out, **kw):
        if isinstance(out, (str, os.PathLike)):  # straight to the file, as a non-atomic writer would
            Path(out).write_bytes(b"\x89PNG half")
        else:
            out.write(b"\x89PNG half")
        raise RuntimeError("rendering failed")

    monkeypatch.setattr(Figure, "savefig", half_then_fail)
    (tmp_path / "k.gemm").write_text(BASE)
    out = tmp_path / "p.png"
    out.write_bytes(b"previous picture")
    argv = [a.replace("{out}", str(out)) for a in argv]
    code, _, err = run_in_process([Case.fill(a, tmp_path) for a in argv])
    assert code == 5 and "Traceback" not in err and err.count("\n") == 1, err
    assert out.read_bytes() == b"previous picture"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["k.gemm", "p.png"]
