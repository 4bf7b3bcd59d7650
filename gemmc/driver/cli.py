"""The `gemmc` command: a thin layer over gemmc's Python API (gemmc.driver.api, .source, .explain, .tune).

Every failure is printed as one diagnostic line (plus the source line and a caret when
it has a location) with the exit code from gemmc.support.diagnostics; a traceback is shown
only for internal errors and only with GEMMC_DEBUG=1.
"""

from __future__ import annotations

import argparse
import os
import sys
import traceback

from gemmc.driver import api
from gemmc.target.arch import ARCHS, DEFAULT_ARCH, get_arch
from gemmc.support.diagnostics import EXIT_INPUT, EXIT_INTERNAL, EXIT_USAGE, GemmcError, usage_error
from gemmc.support.ir_names import PIPELINE_ATTR, SELECTED_ATTR
from gemmc.driver.pipeline import NAMED_PIPELINES, PASSES, load_pass_file
from gemmc.driver.source import check_output_path, parse_file, print_ir, read_source, write_output

DESCRIPTION = """\
gemmc compiles a small GEMM language (.gemm files) into GPU kernels for AMD GPUs,
through xDSL IR and passes that rewrite it step by step, and emits HIP C++,
AMDGCN assembly or a code object."""

EPILOG = f"""\
archs: {', '.join(ARCHS)} (default {DEFAULT_ARCH})
named pipelines: {', '.join(NAMED_PIPELINES)}
passes: {', '.join(PASSES)}
  and xDSL's passes by their names (canonicalize, cse, dce, licm, scf-for-loop-unroll, ...),
  and your own: --load my_passes.py (docs/passes.md)

examples:
  gemmc compile examples/sgemm.gemm --arch gfx942 -o sgemm.hip
  gemmc opt examples/sgemm.gemm -p gemm-to-kernel
  gemmc run examples/sgemm.gemm -D M=257 -D N=131 -D K=95
  gemmc explain examples/sgemm.gemm --arch gfx942
  gemmc explain triton.s --grid 512 --block 512 --arg f16:4096x4096 --arg f16:4096x4096 \
      --arg f32:4096x4096 --arg null --arg null --mnk 4096,4096,4096 --dynamic-lds 32768
  gemmc tune examples/sgemm.gemm --arch gfx942 --budget 40 -o best.pipeline
  gemmc tune examples/sgemm.gemm --arch gfx942 --shapes shapes.csv -o table.json --jobs 4
  gemmc compile examples/sgemm.gemm --arch gfx942 -D M=512 -D K=8192 --selection table.json
  gemmc opt examples/sgemm.gemm --load examples/passes/mul_to_shift.py -p gemm-to-kernel,mul-to-shift
"""


class _Parser(argparse.ArgumentParser):
    """argparse that reports a usage error in one line, with gemmc's usage exit code."""

    def error(self, message: str):  # type: ignore[override]
        raise usage_error(f"{self.prog}: {message}")


def _define(text: str) -> tuple[str, int]:
    name, sep, value = text.partition("=")
    if not sep or not name.strip():
        raise usage_error(f"-D {text}: expected NAME=VALUE, e.g. -D M=257")
    try:
        return name.strip(), int(value)
    except ValueError:
        raise usage_error(f"-D {text}: '{value}' is not an integer") from None


def _defines(items: list[str] | None) -> dict[str, int]:
    return dict(_define(t) for t in items or [])


def _add_common(p: argparse.ArgumentParser, arch: bool = True) -> None:
    p.add_argument("file", help="a .gemm source or .mlir IR file; '-' reads stdin")
    if arch:
        p.add_argument("--arch", default=DEFAULT_ARCH, help=f"target ({', '.join(ARCHS)})")
    p.add_argument("-p", "--pipeline", default=None,
                   help="passes in xdsl-opt syntax, e.g. 'gemm-to-kernel{block-x=16}', or a named "
                        "pipeline (step1, ...); '' runs none")
    p.add_argument("-D", dest="defines", action="append", metavar="NAME=VALUE",
                   help="set a dim, overriding the source (repeatable)")
    p.add_argument("--load", action="append", default=[], metavar="FILE.py",
                   help="import a Python file and make its ModulePass subclasses names in -p "
                        "(repeatable; docs/passes.md)")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="gemmc", description=DESCRIPTION, epilog=EPILOG,
                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version="gemmc 0.1.0")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    c = sub.add_parser("compile", help="compile to HIP, IR, assembly or a code object",
                       description="Lower a .gemm file with a pipeline and emit the result.")
    _add_common(c)
    c.add_argument("-o", "--output", help="output file (default or -: stdout; a file is required for hsaco)")
    c.add_argument("--emit", choices=["hip", "mlir", "asm", "hsaco", "gcn", "gcn-hsaco"], default="hip",
                   help="what to write (default hip)")
    c.add_argument("--harness", action="store_true",
                   help="with --emit hip: add a main() that allocates, launches, checks and times")
    c.add_argument("--report", action="store_true",
                   help="print the compiler's resource usage per kernel (VGPRs, SGPRs, LDS, ...)")
    _add_selection(c)
    c.set_defaults(run=cmd_compile)

    o = sub.add_parser("opt", help="run passes and print the IR (like xdsl-opt / mlir-opt)",
                       description="Parse a .gemm or .mlir file, run a pipeline, print the IR.")
    _add_common(o)
    o.add_argument("-o", "--output", help="output file (default or -: stdout)")
    o.add_argument("--print-ir-after-all", action="store_true",
                   help="print the IR after every pass to stderr")
    o.set_defaults(run=cmd_opt)

    r = sub.add_parser("run", help="interpret on random inputs and check against numpy",
                       description="Lower with a pipeline, run the IR in the interpreter on random "
                                   "inputs and compare C with a float64 numpy reference.")
    _add_common(r)
    r.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    r.add_argument("--stats", action="store_true", help="print what the interpreter counted")
    r.add_argument("--level", choices=("ir", "asm"), default="ir",
                   help="what to run: the lowered IR (default), or asm: the AMDGCN assembly LLVM (clang) "
                        "compiles the kernels' HIP to, in gemmc's amdgcn interpreter (docs/amdgcn-asm.md)")
    r.add_argument("--dynamic", action="store_true",
                   help="keep the source's dynamic dims dynamic: -D gives their sizes at launch only, and "
                        "without -p the kernels are the launcher `gemmc compile` writes for them")
    r.set_defaults(run=cmd_run)

    lay = sub.add_parser("layout", help="show which lane and register holds each element of a matrix instruction",
                         description="Print the lane/register layout of a matrix instruction's A, B and D "
                                     "(from the arch description), as a grid, as CSV, or as a picture.")
    lay.add_argument("instr", metavar="INSTR", help="the ISA mnemonic on the arch, e.g. v_mfma_f32_32x32x8_f16")
    lay.add_argument("--arch", default=DEFAULT_ARCH, help=f"target ({', '.join(ARCHS)})")
    lay.add_argument("--csv", action="store_true", help="print matrix,block,row,col,gpr,lane,bit_lo,bit_hi rows")
    lay.add_argument("--plot", metavar="FILE.png", help="draw the layout into an image (needs matplotlib)")
    lay.add_argument("--types", metavar="A,B", help="the element formats of an f8f6f4 MFMA (gfx950): its cbsz and "
                                                     "blgp, e.g. f4e2m1fn,f6e2m3fn (default f8e4m3fn,f8e4m3fn)")
    lay.set_defaults(run=cmd_layout)

    b = sub.add_parser("bench", help="build for an NVIDIA GPU (sm_90), check against cuBLAS, time",
                       description="Lower for sm_90, build with nvcc, check C against cuBLAS (SGEMM in FP32, "
                                   "GemmEx, strided-batched for a batch, one GemmEx per group for a grouped "
                                   "product) and time both with CUDA events (needs an NVIDIA GPU and CUDA).")
    b.add_argument("file", help="a .gemm source or .mlir IR file")
    b.add_argument("--arch", default="sm_90", help="an NVIDIA target (sm_90)")
    b.add_argument("-p", "--pipeline", default=None, help="passes or a named pipeline (default: the arch's)")
    b.add_argument("-D", dest="defines", action="append", metavar="NAME=VALUE", help="set a dim (repeatable)")
    b.add_argument("--repeats", type=int, default=20, help="timed runs; the median is reported (default 20)")
    b.add_argument("--group-sizes", metavar="S0,S1,...", default=None,
                   help="a grouped product's rows per group (default: fixed uneven sizes summing to M, one empty)")
    b.add_argument("--json", action="store_true", help="print the result as JSON")
    b.set_defaults(run=cmd_bench)

    e = sub.add_parser("explain", help="predict time and the limiting resource per pipeline step (cost model)",
                       description="Lower with each tutorial step (or -p) and predict time, TFLOP/s, the "
                                   "limiting resource and the counters the tutorial observes (docs/cost-model.md). "
                                   "Given an AMDGCN assembly file (.s: Triton's, clang's, hand-written) with its "
                                   "launch (--grid, --block, --arg, --mnk), the ISA-level prediction of that kernel.")
    _add_common(e, arch=False)
    e.add_argument("--arch", default=None, help=f"target ({', '.join(ARCHS)}; default {DEFAULT_ARCH}, a .s file's "
                                                "own .amdgcn_target)")
    e.add_argument("--json", action="store_true", help="print the prediction as JSON")
    e.add_argument("--plot", metavar="OUT.png|svg", help="draw a roofline with each step as a point")
    e.add_argument("--no-compiler", action="store_true",
                   help="estimate VGPRs instead of asking the compiler (faster; no toolchain needed)")
    e.add_argument("--level", choices=("ir", "asm"), default=None,
                   help="what to time: the lowered IR (default, the analytic model), or asm: the AMDGCN "
                        "assembly clang emits, traced on a sample of the real launch in the interpreter and "
                        "simulated on one CU (docs/cost-model.md, 'The ISA-level model'; default pipeline or -p)")
    _add_selection(e)
    f = e.add_argument_group("a foreign kernel (FILE is its .s or its code object, .hsaco)")
    f.add_argument("--grid", metavar="X[,Y[,Z]]", help="the launch's grid, in workgroups")
    f.add_argument("--block", metavar="X[,Y[,Z]]", help="the workgroup's size, in work-items (Triton: num_warps x "
                                                        "the wave size)")
    f.add_argument("--arg", action="append", default=[], metavar="ARG",
                   help="the kernel's arguments in its metadata's order (repeat): a buffer TYPE:DIMS "
                        "(f16:4096x4096; traced on zeros), null, an integer or a float")
    f.add_argument("--kernel", help="the kernel's name (default: the file's only kernel)")
    f.add_argument("--dynamic-lds", type=int, default=0, metavar="BYTES",
                   help="LDS beyond the descriptor's (Triton's metadata.shared)")
    f.add_argument("--mnk", metavar="M,N,K", help="the problem, for TFLOP/s (2 M N K flops)")
    f.add_argument("--flops", help="the launch's flops, instead of --mnk")
    f.add_argument("--in-type", help="the inputs' type, for the peaks (default: the first buffer's)")
    e.set_defaults(run=cmd_explain)

    t = sub.add_parser("tune", help="search tile sizes and pass options with the cost model",
                       description="Search LDS and thread tiles, double buffering, vector width and launch "
                                   "bounds with the cost model; print the best and write the winner's pipeline.")
    _add_common(t)
    t.add_argument("--budget", type=int, default=40, help="candidates to try (default 40)")
    t.add_argument("--seed", type=int, default=0, help="random seed of the search (default 0)")
    t.add_argument("-o", "--output", help="write the winning pipeline (text) here")
    t.add_argument("--emit-test", metavar="DIR", help="write a lit test pinning the winner's IR into DIR")
    t.add_argument("--no-compiler", action="store_true", help="rank by estimated VGPRs only")
    t.add_argument("--shapes", metavar="SHAPES.csv",
                   help="tune for each row M,N,K of the file and write a selection table (JSON) to -o, "
                        "which compile --selection uses; rerunning resumes")
    t.add_argument("--jobs", type=int, default=1, metavar="N",
                   help="with --shapes: tune N shapes at once on a local process pool (default 1)")
    t.add_argument("--ray", nargs="?", const="", default=None, metavar="ADDRESS",
                   help="with --shapes: tune the shapes as Ray tasks, on the cluster at ADDRESS or a "
                        "local Ray instance (pip install 'gemmc[ray]')")
    t.set_defaults(run=cmd_tune)
    return parser


def _add_selection(p: argparse.ArgumentParser) -> None:
    p.add_argument("--selection", metavar="TABLE.json",
                   help="a selection table (gemmc tune --shapes): without -p, its pipeline for the "
                        "problem's shape, where it has one")


# -- commands -------------------------------------------------------------------------


def _selection(args) -> dict[str, str] | None:
    """--selection's table for the arch, or None; -p already says which pipeline to run."""
    if args.selection is None:
        return None
    if args.pipeline is not None:
        raise usage_error("--selection chooses the pipeline by the problem's shape; give -p or --selection, not both")
    return api.load_selection(args.selection, args.arch)


def _load(args) -> object:
    if getattr(args, "output", None) not in (None, "-"):
        check_output_path(args.output, args.file)
    arch = ARCHS.get(getattr(args, "arch", None))  # an unknown arch is reported where it is used
    defines = {} if getattr(args, "dynamic", False) else _defines(args.defines)  # (--dynamic: at launch only)
    return parse_file(args.file, defines, arch)


def _pipeline_for(args, default_none: bool = False) -> str | None:
    if args.pipeline is None and default_none:
        return ""
    return args.pipeline


def cmd_compile(args) -> int:
    if args.selection is not None and args.emit.startswith("gcn"):
        raise usage_error(f"--emit {args.emit} runs the arch's default pipeline (gemmc's own backend has no "
                          "split-k); --selection applies to the other outputs")
    selection = _selection(args)
    module = _load(args)
    api.lower(module, args.pipeline, args.arch, backend="gcn" if args.emit.startswith("gcn") else "hip",
              selection=selection)
    if args.emit in ("hsaco", "gcn-hsaco") and args.output in (None, "-"):
        raise usage_error(f"--emit {args.emit} writes a binary code object: give -o FILE")
    if args.harness and args.emit != "hip":
        raise usage_error("--harness applies to --emit hip")
    data = api.emit(module, args.arch, args.emit, harness=args.harness)
    if args.report:
        selected = module.attributes.get(SELECTED_ATTR)
        if selected is not None:
            print(f"pipeline: {module.attributes[PIPELINE_ATTR].data}\nselected because {selected.data}",
                  file=sys.stderr)
        print(api.resource_report(module, args.arch), file=sys.stderr)
    _write(args, data)
    return 0


def cmd_opt(args) -> int:
    module = _load(args)

    def dump(p, m):
        print(f"// -----// IR Dump After {p.name} //----- //", file=sys.stderr)
        print(print_ir(m), file=sys.stderr)

    after = dump if args.print_ir_after_all else None
    pipeline = _pipeline_for(args, default_none=True)
    arch = ARCHS[args.arch] if args.arch in ARCHS else get_arch(args.arch)
    if pipeline:
        api.lower(module, pipeline, arch, after_each=after, finalize=False, verify_each=True)
    _write(args, print_ir(module))
    return 0


def cmd_bench(args) -> int:
    import json

    from gemmc.driver.bench import format_result, run_bench

    arch = get_arch(args.arch)
    if arch.vendor != "nvidia":
        raise usage_error(f"gemmc bench runs on NVIDIA GPUs: use --arch sm_90, not {arch.name}")
    if args.repeats < 1:
        raise usage_error(f"--repeats {args.repeats}: give at least 1 timed run")
    module = _load(args)
    api.lower(module, args.pipeline, arch)
    sizes = None
    if args.group_sizes is not None:
        from gemmc.driver.bench_batched import parse_sizes

        sizes = parse_sizes(args.group_sizes)
    result = run_bench(module, arch, _defines(args.defines), args.repeats, sizes)
    result["pipeline"] = args.pipeline or "default"
    print(json.dumps(result) if args.json else format_result(result))
    return 0 if result["passed"] else EXIT_INPUT


def cmd_layout(args) -> int:
    from gemmc.driver import layout

    arch = get_arch(args.arch)
    instr = layout.with_types(layout.find_instr(arch, args.instr), args.types)
    if args.plot is not None:  # --plot '' is a bad name, not no plot
        layout.plot(instr, arch, args.plot)
    if args.csv:
        sys.stdout.write(layout.csv_text(instr))
    elif args.plot is None:
        sys.stdout.write(layout.grid_text(instr, arch))
    return 0


def cmd_run(args) -> int:
    module = _load(args)
    api.lower(module, args.pipeline, args.arch)
    result = api.check(module, args.arch, _defines(args.defines), seed=args.seed, level=args.level)
    print(result.summary())
    if args.stats:
        print(result.stats.format())
    return 0 if result.passed else EXIT_INPUT


def foreign_file(path: str) -> bool:
    from gemmc.amdgcn.timing.foreign import is_kernel_file

    return is_kernel_file(path)


def cmd_explain(args) -> int:
    import json

    from gemmc.driver.explain import explain_file, format_table, to_json

    if foreign_file(args.file):
        return _explain_foreign(args)
    if args.grid or args.block or args.arg or args.mnk or args.flops or args.kernel:
        raise usage_error("--grid, --block, --arg, --kernel, --mnk and --flops time a foreign kernel: "
                          f"give its assembly (.s), not {args.file}")
    arch = get_arch(args.arch or DEFAULT_ARCH)
    args.arch = arch.name
    if args.level == "asm":
        return _explain_asm(args, arch)
    if args.plot is not None:  # a plot that cannot be written fails before the table is printed
        from gemmc.driver.plotting import check_plot_path

        check_plot_path(args.plot, args.file)
    rows = explain_file(args.file, arch, args.pipeline, _defines(args.defines),
                             compiler=False if args.no_compiler else None, selection=_selection(args))
    print(json.dumps(to_json(rows, arch), indent=1) if args.json else format_table(rows, arch), end="\n" if args.json else "")
    if args.plot is not None:
        from gemmc.driver.roofline import plot_roofline

        plot_roofline(rows, arch, args.plot, args.file)
    return 0


def _explain_asm(args, arch) -> int:
    """explain --level asm: the ISA-level prediction of the one pipeline (-p, or the default)."""
    import json

    from gemmc.amdgcn.timing import format_prediction, prediction_json
    from gemmc.driver.asm_level import explain_asm

    if args.plot is not None:
        raise usage_error("--plot draws the IR-level steps; --level asm predicts one pipeline")
    selection = _selection(args)
    module = _load(args)
    api.lower(module, args.pipeline, arch, selection=selection)
    p = explain_asm(module, arch, _defines(args.defines))
    print(json.dumps(prediction_json(p), indent=1) if args.json else format_prediction(p), end="\n" if args.json else "")
    return 0


def _explain_foreign(args) -> int:
    """explain FILE.s: the ISA-level prediction of a kernel gemmc did not write, launched as
    --grid, --block and --arg say (gemmc.amdgcn.timing.foreign)."""
    import json

    from gemmc.amdgcn.timing import foreign, format_prediction, prediction_json

    given = [o for o, v in (("-p", args.pipeline), ("-D", args.defines), ("--plot", args.plot),
                            ("--selection", args.selection), ("--level ir", args.level == "ir"),
                            ("--no-compiler", args.no_compiler)) if v]
    if given:
        raise usage_error(f"{', '.join(given)}: not for an assembly file ({args.file}), which is timed as it is")
    if args.grid is None or args.block is None:
        raise usage_error(f"{args.file}: a foreign kernel needs its launch: --grid X[,Y[,Z]] and --block X[,Y[,Z]]")
    p = foreign.explain_file(args.file, foreign.parse_dims(args.grid, "grid"), foreign.parse_dims(args.block, "block"),
                             [foreign.parse_arg(a) for a in args.arg], foreign.parse_flops(args.mnk, args.flops),
                             args.kernel, args.in_type, args.dynamic_lds, args.arch)
    print(json.dumps(prediction_json(p), indent=1) if args.json else format_prediction(p), end="\n" if args.json else "")
    return 0


def cmd_tune(args) -> int:
    from gemmc.driver.tune import (
        check_test_dir, format_best, lit_test, most_common_error, progress_bar, test_path, tune_file,
    )

    arch = get_arch(args.arch)
    if args.pipeline is not None:
        raise usage_error("tune searches the pipelines itself and takes no -p; "
                          "gemmc explain -p PIPELINE predicts one")
    if args.budget < 1:
        raise usage_error(f"--budget {args.budget}: give at least 1 candidate")
    if args.shapes is not None:
        return _tune_shapes(args, arch)
    if args.jobs != 1 or args.ray is not None:
        raise usage_error(f"{'--ray' if args.ray is not None else '--jobs'} applies to a sweep: give --shapes SHAPES.csv")
    if args.output:
        check_output_path(args.output, args.file)
    if args.emit_test:
        check_test_dir(args.emit_test)
    source = read_source(args.file)  # once: '-' (stdin) is read by the search and --emit-test
    result = tune_file(args.file, arch, args.budget, args.seed, _defines(args.defines),
                            compiler=False if args.no_compiler else None, progress=progress_bar(sys.stderr),
                            source=source)
    best = result.best
    if best is None:
        why = most_common_error(result)
        raise GemmcError(f"no candidate of {len(result.trials)} fits {arch.name}; raise --budget"
                         + (f" (most often refused by {why})" if why else ""))
    print(format_best(result, arch), end="")
    if args.output:
        write_output(args.output, best.pipeline + "\n", input_path=args.file)
    if args.emit_test:
        text, name = source
        path = test_path(args.emit_test, name, arch)
        write_output(str(path), lit_test(text, path.suffix, best, arch), input_path=args.file)
        print(f"wrote {path}", file=sys.stderr)
    return 0


def _tune_shapes(args, arch) -> int:
    """tune --shapes: a selection table, written to -o as the shapes finish."""
    from gemmc.driver.sweep import import_ray, read_shapes
    from gemmc.driver.tune import progress_bar

    if not args.output or args.output == "-":
        raise usage_error("--shapes writes a selection table: give -o TABLE.json")
    if args.emit_test:
        raise usage_error("--emit-test pins one problem's winner; it does not apply to --shapes")
    if args.jobs < 1:
        raise usage_error(f"--jobs {args.jobs}: give at least 1")
    if args.ray is not None and args.jobs != 1:
        raise usage_error("--jobs runs a local process pool and --ray Ray tasks: give one of them")
    if args.ray is not None:
        import_ray()  # a missing Ray is said before any work
    check_output_path(args.output, args.file)
    shapes = read_shapes(args.shapes)
    table = api.tune_shapes(args.file, arch, shapes, args.output, budget=args.budget, seed=args.seed,
                            compiler=False if args.no_compiler else None, defines=_defines(args.defines),
                            jobs=args.jobs, ray=False if args.ray is None else (args.ray or True),
                            progress=progress_bar(sys.stderr, label="shapes", eta=True),
                            say=lambda line: print(line, file=sys.stderr))
    print(_format_table(table), end="")
    print(f"wrote {args.output} ({len(table['entries'])} entries)", file=sys.stderr)
    return 0


def _format_table(table: dict) -> str:
    lines = [f"{'time ms':>9}  {'bound':8}  problem / pipeline"]
    for key, e in table["entries"].items():
        lines.append(f"{e['predicted_s'] * 1e3:9.3f}  {e['bound']:8}  {key}\n{'':21}{e['pipeline']}")
    return "\n".join(lines) + "\n"


def _write(args, data) -> None:
    if args.output and args.output != "-":  # -o - is stdout, as without -o
        write_output(args.output, data, input_path=args.file)
    elif isinstance(data, bytes):
        sys.stdout.buffer.write(data)
    else:
        sys.stdout.write(data)


# -- entry point ----------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if args.command is None:
            parser.print_help()
            return EXIT_USAGE
        if getattr(args, "arch", None) is not None:
            get_arch(args.arch)
        for path in getattr(args, "load", []):
            load_pass_file(path)
        return args.run(args)
    except GemmcError as e:
        print(e.render(), file=sys.stderr)
        return e.code
    except KeyboardInterrupt:
        print("gemmc: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except (SystemExit, GeneratorExit):
        raise
    except BaseException as e:  # a bug in gemmc: one line, never a traceback unless asked
        # (BaseException: some libraries' errors are not Exceptions, e.g. xDSL's ArgSpecParseError)
        if os.environ.get("GEMMC_DEBUG"):
            traceback.print_exc()
        msg = str(e).strip().splitlines()
        print(f"gemmc: internal error: {type(e).__name__}: {msg[0] if msg else ''} "
              "(set GEMMC_DEBUG=1 for a traceback)", file=sys.stderr)
        return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
