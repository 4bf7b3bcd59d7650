"""gemmc's Python API: everything the CLI does, callable from scripts and notebooks.

    import gemmc
    module = gemmc.parse_file("examples/sgemm.gemm", defines={"M": 257})
    gemmc.lower(module, "step1", arch="gfx942")
    print(gemmc.emit(module, "gfx942", "hip"))
    print(gemmc.check(module, arch="gfx942").passed)

Errors are raised as `gemmc.GemmcError`; its `render()` is what the CLI prints.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable
from pathlib import Path

from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.parser import Parser
from xdsl.passes import ModulePass
from xdsl.printer import Printer
from xdsl.utils.exceptions import DiagnosticException, ParseError, VerifyException

from gemmc.arch import Arch, get_arch  # noqa: F401  (re-exported for the CLI)
from gemmc.context import make_context
from gemmc.diagnostics import EXIT_IO, GemmcError, Location, location_in, verifier_message
from gemmc.ir_names import PIPELINE_ATTR
from gemmc.pipeline import (  # noqa: F401  (load_pass_file, register_pass: re-exported)
    default_pipeline, gcn_default_pipeline, load_pass_file, parse_pipeline_spec, register_pass, run_pipeline,
)
from gemmc.target import set_target



def _arch(arch: Arch | str) -> Arch:
    return arch if isinstance(arch, Arch) else get_arch(arch)


# -- reading ------------------------------------------------------------------------


MAX_INPUT_BYTES = 64 * 2**20
"""Inputs larger than this are refused (a .gemm is a few lines; /dev/zero is not a kernel)."""


def read_source(path: str) -> tuple[str, str]:
    """(text, display name) of a file, or of stdin for '-'; I/O problems are GemmcErrors."""
    if path == "-":
        return _decode(_read_stdin(), "<stdin>"), "<stdin>"
    p = Path(path)
    if not p.exists():
        raise GemmcError(f"{path}: no such file", code=EXIT_IO)
    if p.is_dir():
        raise GemmcError(f"{path}: is a directory, expected a .gemm or .mlir file", code=EXIT_IO)
    try:
        # O_NONBLOCK: opening a FIFO that has no writer must not hang; reads then block as usual.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as f:
            os.set_blocking(fd, True)
            data = f.read(MAX_INPUT_BYTES + 1)
    except OSError as e:
        raise GemmcError(f"{path}: cannot read: {e.strerror or e}", code=EXIT_IO) from None
    if not data and stat.S_ISFIFO(p.stat().st_mode):
        raise GemmcError(f"{path}: is a FIFO with no writer; nothing to read", code=EXIT_IO)
    return _decode(data, path), path


def _read_stdin() -> bytes:
    import sys

    if sys.stdin is None:
        raise GemmcError("<stdin>: cannot read: standard input is closed", code=EXIT_IO)
    try:
        buffer = getattr(sys.stdin, "buffer", None)
        if buffer is None:  # a text stream (tests replace stdin with StringIO)
            return sys.stdin.read(MAX_INPUT_BYTES + 1).encode("utf-8", "surrogateescape")
        return buffer.read(MAX_INPUT_BYTES + 1)
    except (OSError, ValueError) as e:  # ValueError: reading a closed file
        raise GemmcError(f"<stdin>: cannot read: {getattr(e, 'strerror', None) or e}", code=EXIT_IO) from None


def _decode(data: bytes, path: str) -> str:
    if len(data) > MAX_INPUT_BYTES:
        raise GemmcError(f"{path}: is larger than {MAX_INPUT_BYTES >> 20} MiB; not a .gemm or .mlir file",
                         code=EXIT_IO)
    if b"\0" in data:
        raise GemmcError(f"{path}: is a binary file, expected a .gemm or .mlir file", code=EXIT_IO)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise GemmcError(f"{path}: not UTF-8 text (byte {e.start})", code=EXIT_IO) from None
    text = text.removeprefix("\ufeff")  # a UTF-8 byte order mark
    if not text.strip():
        raise GemmcError(f"{path}: is empty", code=EXIT_IO)
    return text


def is_ir(text: str, name: str) -> bool:
    """MLIR text rather than .gemm: by extension, or by its first token on stdin."""
    if name.endswith(".mlir"):
        return True
    if name.endswith(".gemm"):
        return False
    for line in text.splitlines():
        s = line.strip()
        if s and not s.startswith(("#", "//")):
            return not s.startswith("kernel")
    return False


def parse(text: str, filename: str = "<input>", defines: dict[str, int] | None = None,
          arch: Arch | str | None = None) -> ModuleOp:
    """Parse .gemm source into gemm IR; with `arch`, an FP8 format it cannot do is an error
    at its declaration."""
    from gemmc.frontend import parse_gemm  # Lark: only for .gemm input

    return parse_gemm(text, filename, defines, _arch(arch) if arch is not None else None)


def parse_ir(text: str, filename: str = "<input>") -> ModuleOp:
    """Parse gemmc IR (any level) in MLIR syntax, and verify it."""
    try:
        module = Parser(make_context(), text, filename).parse_module()
    except (VerifyException, DiagnosticException) as e:  # some ops check their syntax while parsing
        raise GemmcError(f"IR does not verify: {verifier_message(e)}") from None
    except ValueError as e:  # e.g. xDSL's 'Invalid Block name format'
        words = " ".join(" ".join(str(a) for a in e.args).split())
        raise GemmcError(f"cannot parse the IR: {words or type(e).__name__}") from None
    except ParseError as e:
        loc = e.span.get_location()
        msg = " ".join(e.msg.split()) or "cannot parse"
        if not text[e.span.start:].strip():  # xDSL's words at the end are thin (' in block definition')
            msg = f"unexpected end of file ({msg})"
        raise GemmcError(msg, location_in(filename, text, loc.line, loc.col)) from None
    verify(module)
    return module


def parse_file(path: str, defines: dict[str, int] | None = None, arch: Arch | str | None = None) -> ModuleOp:
    """A .gemm file (or '-') into gemm IR, or a .mlir file into the IR it holds (`arch`: see parse)."""
    text, name = read_source(path)
    if is_ir(text, name):
        return parse_ir(text, name)  # -D then gives runtime sizes only (gemmc run)
    return parse(text, name, defines, arch)


def verify(module: ModuleOp) -> None:
    """Verify, turning xDSL's verifier exception into a one-line GemmcError."""
    try:
        module.verify()
    except (VerifyException, DiagnosticException) as e:
        raise GemmcError(f"IR does not verify: {verifier_message(e)}") from None
    _check_defined_before_use(module)


def _check_defined_before_use(module: ModuleOp) -> None:
    """SSA values are defined before they are used (xDSL's verifier does not check dominance).
    gemmc's IR has single-block regions, where that means: an operand is an argument of an
    enclosing block, or the result of an earlier op in the same or an enclosing block."""
    visible: set[int] = set()

    def walk_block(block) -> None:
        added = [id(a) for a in block.args]
        visible.update(added)
        for op in block.ops:
            for v in op.operands:
                if id(v) not in visible:
                    name = f"%{v.name_hint}" if v.name_hint else "a value"
                    raise GemmcError(f"IR does not verify: {name} is used by '{op.name}' where it is not defined")
            for region in op.regions:
                if len(region.blocks) == 1:  # (a CFG region of several blocks is not checked)
                    walk_block(region.blocks.first)
            ids = [id(r) for r in op.results]
            visible.update(ids)
            added += ids
        visible.difference_update(added)

    for region in module.regions:
        for block in region.blocks:
            walk_block(block)


# -- lowering -----------------------------------------------------------------------


def lower(
    module: ModuleOp,
    pipeline: str | None,
    arch: Arch | str,
    after_each: Callable[[ModulePass, ModuleOp], None] | None = None,
    finalize: bool = True,
    backend: str = "hip",
    selection: dict[str, str] | None = None,
    verify_each: bool = False,
) -> ModuleOp:
    """Run a pipeline (a name such as 'step1', a pass list, None for the arch default).

    Without a pipeline, gemmc.selection chooses one for the problem's shape (`backend="gcn"`,
    gemmc's own AMDGCN backend: the arch's default pipeline); `selection`, a selection table
    ({problem_key: pipeline}, see load_selection), has its say first.

    With `finalize`, tile-level ops that the pipeline left (gemm.copy) are then lowered
    to loops (lower-copies), as interpreting, emitting and the cost model need; `gemmc
    opt` keeps them, so that the IR can be edited and handed to further passes.  The IR is
    verified after the pipeline and after each pass that is not gemmc's (run_pipeline); with
    `verify_each`, after every pass, which names the pass that broke it (`gemmc opt` does so)."""
    target = _arch(arch)
    if pipeline is None and is_lowered(module):
        pipeline = ""  # IR that is already kernel IR: nothing to add by default
    check_dtypes(module, target)
    if pipeline is None and _is_block_scaled(module):  # the selection has no block-scaled variants
        from gemmc.ir_names import SELECTED_ATTR
        from gemmc.pipeline import mx_format, scaled_pipeline

        pipeline = scaled_pipeline(target, mx_format(*_operand_bits(module)))
        module.attributes[SELECTED_ATTR] = StringAttr("the block-scaled (MX) pipeline (the selection has no "
                                                      "variants for scales)")
    if pipeline is None and backend == "gcn":
        # its own backend has no split-k (block_id z, atomics, workspaces), and it keeps the
        # type-independent default (the 16-bit defaults' register-staged copies are beyond it)
        from gemmc.selection import input_type

        pipeline = gcn_default_pipeline(target, input_type(module))
    if pipeline is None:
        from gemmc.selection import input_type

        choice = _select(module, target, selection)
        if choice.lowered is not None and finalize and after_each is None:
            return _adopt(module, choice.lowered)  # what the selection lowered already
        pipeline = choice.pipeline if choice.runnable else default_pipeline(target, input_type(module))
    spec = pipeline
    passes = parse_pipeline_spec(spec) if spec.strip() else []
    set_target(module, target)
    if spec.strip():
        module.attributes[PIPELINE_ATTR] = StringAttr(spec)
    try:
        run_pipeline(module, passes, make_context(), after_each, verify_each)
        if finalize:
            _lower_tile_ops(module, after_each, verify_each)
    except (VerifyException, DiagnosticException) as e:
        raise GemmcError(f"IR does not verify after a pass: {verifier_message(e)}") from None
    return module


def _is_block_scaled(module: ModuleOp) -> bool:
    from gemmc.dialects.gemm import MatmulOp

    return any(isinstance(op, MatmulOp) and op.is_scaled for op in module.walk())


def _operand_bits(module: ModuleOp) -> tuple[int, int]:
    """The bit widths of A's and B's elements in the module's (first) block-scaled gemm.matmul."""
    from gemmc.dialects.gemm import MatmulOp

    op = next(op for op in module.walk() if isinstance(op, MatmulOp) and op.is_scaled)
    return op.a.type.element_type.bitwidth, op.b.type.element_type.bitwidth


def _select(module: ModuleOp, target: Arch, selection: dict[str, str] | None = None):
    """The pipeline for this problem on this arch (gemmc.selection), with why on the module."""
    from gemmc.ir_names import SELECTED_ATTR
    from gemmc.selection import select_pipeline

    choice = select_pipeline(module, target, selection)
    module.attributes[SELECTED_ATTR] = StringAttr(choice.reason)
    return choice


def _adopt(module: ModuleOp, lowered: ModuleOp) -> ModuleOp:
    """`module` becomes `lowered` (its ops and attributes), in place, as lower() promises."""
    for op in list(module.body.block.ops):
        op.detach()
        op.erase()
    for op in list(lowered.body.block.ops):
        op.detach()
        module.body.block.add_op(op)
    module.attributes.update(lowered.attributes)
    return module


def _lower_tile_ops(module: ModuleOp, after_each, verify_each: bool = False) -> None:
    """lower-copies, when the pipeline left gemm.copy ops."""
    from gemmc.copy_lowering import has_copies
    from gemmc.passes.lower_copies import LowerCopiesPass

    if has_copies(module):
        run_pipeline(module, [LowerCopiesPass()], make_context(), after_each, verify_each)


def load_selection(path: str, arch: Arch | str) -> dict[str, str]:
    """A selection table file (`gemmc tune --shapes` writes them) as lower()'s `selection`;
    a file that is not one, or one for another arch, is a GemmcError naming the file."""
    from gemmc.cost.sweep import load_selection as _load

    return _load(path, _arch(arch).name)


def tune_shapes(path: str, arch: Arch | str, shapes, output: str, **options) -> dict:
    """Tune the kernel in `path` for each (M, N, K) in `shapes` (or a CSV file of them) and
    write the selection table to `output` (gemmc.cost.sweep.tune_shapes has the options)."""
    from gemmc.cost.sweep import read_shapes, tune_shapes as _tune

    if isinstance(shapes, str):
        shapes = read_shapes(shapes)
    return _tune(read_source(path), _arch(arch).name, list(shapes), output, **options)


def check_dtypes(module: ModuleOp, arch: Arch) -> None:
    """A dtype the arch cannot do is an error before any pass runs."""
    from xdsl.dialects.builtin import MemRefType, VectorType

    from gemmc.dialects.gemm import ELEMENT_TYPES, MatmulOp, type_name

    supported = ", ".join(arch.dtypes)
    for op in module.walk():
        if isinstance(op, MatmulOp) and type_name(op.acc_type) not in arch.dtypes:
            raise GemmcError(f"{arch.name} cannot accumulate in {type_name(op.acc_type)} "
                             f"(it supports {supported}); use 'acc f32'")
        for v in op.results:
            t = v.type
            scalar = t.element_type if isinstance(t, VectorType) else t
            if type_name(scalar) in ELEMENT_TYPES and type_name(scalar) not in arch.dtypes:
                # kernel IR given as input: its arithmetic, not only its memrefs
                raise GemmcError(f"{arch.name} cannot do {type_name(scalar)} arithmetic "
                                 f"(at '{op.name}'; it supports {supported})")
            if isinstance(t, MemRefType) and type_name(t.element_type) not in arch.dtypes:
                raise GemmcError(
                    f"{arch.name} cannot do {type_name(t.element_type)} in gemmc's output "
                    f"(it supports {', '.join(arch.dtypes)})"
                )
        if op.name == "func.func":
            for t in op.function_type.inputs.data:
                if isinstance(t, MemRefType) and type_name(t.element_type) not in arch.dtypes:
                    hint = ": f16 and bf16 need an AMD target" if arch.vendor != "amd" else ""
                    raise GemmcError(
                        f"{arch.name} cannot do {type_name(t.element_type)} in gemmc's output "
                        f"(it supports {', '.join(arch.dtypes)}){hint}"
                    )


def is_lowered(module: ModuleOp) -> bool:
    """Kernel IR (gemm-to-kernel has run): no gemm.matmul left."""
    from gemmc.dialects.gemm import MatmulOp

    return not any(isinstance(op, MatmulOp) for op in module.walk())


def print_ir(module: ModuleOp) -> str:
    from io import StringIO

    out = StringIO()
    Printer(stream=out).print_op(module)
    return out.getvalue() + "\n"


# -- running, emitting --------------------------------------------------------------


def check(module: ModuleOp, arch: Arch | str = "gfx942", dims: dict[str, int] | None = None, seed: int = 0):
    """Interpret on random inputs and compare with a float64 numpy reference."""
    from gemmc.dialects.amdgcn.kernel import GcnModuleOp

    if any(isinstance(op, GcnModuleOp) for op in module.walk()):  # gemmc's own AMDGCN backend's program
        from gemmc.amdgcn.interp import check as gcn_check

        return gcn_check(module, _arch(arch), dims or {}, seed)
    from gemmc.interp import check as _check

    try:
        return _check(module, dims or {}, _arch(arch), seed=seed)
    except MemoryError as e:
        raise GemmcError(f"not enough memory to interpret this size ({e}); choose smaller sizes with -D") from None


def emit(module: ModuleOp, arch: Arch | str, kind: str = "hip", harness: bool = False) -> str | bytes:
    """The module as HIP source, IR text, AMDGCN assembly or a code object."""
    target = _arch(arch)
    if kind == "mlir":
        return print_ir(module)
    if kind in ("gcn", "gcn-hsaco"):  # gemmc's own AMDGCN backend (docs/amdgcn.md)
        from gemmc.amdgcn import emit_gcn, emit_gcn_hsaco

        return emit_gcn(module, target) if kind == "gcn" else emit_gcn_hsaco(module, target)
    from gemmc.emit import emit_hip

    source = emit_hip(module, target, harness=harness)
    if kind == "hip":
        return source
    if target.vendor == "nvidia" and kind in ("asm", "hsaco"):
        from gemmc.cuda import compile_cuda

        return compile_cuda(source, target, kind)  # PTX, or a cubin
    from gemmc.toolchain import compile_device

    if kind in ("asm", "hsaco"):
        return compile_device(source, target, kind)
    raise GemmcError(f"unknown output kind '{kind}'; expected hip, mlir, asm, hsaco, gcn or gcn-hsaco", code=2)


def resource_report(module: ModuleOp, arch: Arch | str) -> str:
    from gemmc.dialects.amdgcn.kernel import GcnModuleOp

    if any(isinstance(op, GcnModuleOp) for op in module.walk()):  # gemmc's own backend: its own counts
        from gemmc.amdgcn import report

        return report(module)
    from gemmc.emit import emit_hip
    from gemmc.toolchain import format_report, resource_report as _report

    target = _arch(arch)
    if target.vendor == "nvidia":
        from gemmc.cuda import resource_report as cuda_report

        return format_report(cuda_report(emit_hip(module, target), target))
    return format_report(_report(emit_hip(module, target), target))


# -- writing ------------------------------------------------------------------------


def check_output_path(path: str, input_path: str | None = None) -> None:
    """Refuse an output that is the input or a directory, before any work is done."""
    if input_path and input_path != "-" and os.path.exists(path) and os.path.exists(input_path):
        if os.path.samefile(path, input_path):
            raise GemmcError(f"{path}: output would overwrite the input", code=EXIT_IO)
    if Path(path).is_dir():
        raise GemmcError(f"{path}: is a directory", code=EXIT_IO)
    # a folder that is missing or not writable: said now, not after a search or a long lowering
    parent = Path(os.path.abspath(path)).parent
    why = (errno.ENOENT if not parent.exists() else errno.ENOTDIR if not parent.is_dir()
           else errno.EACCES if not os.access(parent, os.W_OK | os.X_OK) else 0)
    if why:
        raise GemmcError(f"{path}: cannot write: {os.strerror(why)}", code=EXIT_IO)


def write_output(path: str, data: str | bytes, input_path: str | None = None) -> None:
    """Write whole or not at all: a temporary file beside the target, then a rename."""
    check_output_path(path, input_path)
    target = Path(path)
    raw = data if isinstance(data, bytes) else data.encode("utf-8")
    tmp = target.with_name(f".{target.name}.gemmc-tmp-{os.getpid()}")
    try:
        with open(tmp, "wb") as f:
            f.write(raw)
        os.replace(tmp, target)
    except OSError as e:
        raise GemmcError(f"{path}: cannot write: {e.strerror or e}", code=EXIT_IO) from None
    finally:  # also on KeyboardInterrupt: never leave the temporary file behind
        try:
            tmp.unlink(missing_ok=True)
        except OSError:
            pass


__all__ = [
    "GemmcError", "Location", "check", "emit", "load_pass_file", "load_selection", "lower", "parse",
    "parse_file", "parse_ir", "print_ir", "read_source", "register_pass", "resource_report", "tune_shapes",
    "verify", "write_output",
]
