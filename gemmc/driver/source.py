"""Reading programs and writing results: the API's I/O, below everything that lowers.

    text, name = read_source("examples/sgemm.gemm")
    module = parse(text, name)               # .gemm -> gemm IR  (parse_ir: MLIR text, verified)
    write_output("sgemm.hip", hip_text)      # whole or not at all

Errors are GemmcErrors naming the file (and line and column where there is one).
"""

from __future__ import annotations

import errno
import os
import stat
from io import StringIO
from pathlib import Path

from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import DiagnosticException, ParseError, VerifyException

from gemmc.support.context import make_context
from gemmc.support.diagnostics import EXIT_IO, GemmcError, location_in, verifier_message
from gemmc.target.arch import Arch, as_arch


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

    return parse_gemm(text, filename, defines, as_arch(arch) if arch is not None else None)


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


def loader(path: str, defines: dict[str, int] | None, source: tuple[str, str] | None = None):
    """(load, text, name): `load()` parses the file (or `source`, its (text, name) when already
    read: stdin can be read once only) into a fresh module each call."""
    text, name = source or read_source(path)

    def load():
        return parse_ir(text, name) if is_ir(text, name) else parse(text, name, defines)

    return load, text, name


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


def is_lowered(module: ModuleOp) -> bool:
    """Kernel IR (gemm-to-kernel has run): no gemm.matmul left."""
    from gemmc.dialects.gemm import MatmulOp

    return not any(isinstance(op, MatmulOp) for op in module.walk())


def print_ir(module: ModuleOp) -> str:
    out = StringIO()
    Printer(stream=out).print_op(module)
    return out.getvalue() + "\n"


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
