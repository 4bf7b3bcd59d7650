"""Diagnostics: one error type for everything a user can get wrong, and its exit codes.

Every failure that reaches the command line is a `GemmcError`.  It prints as one line
(`file:line:col: error: message`), followed by the source line and a caret when the error
has a location, and the CLI exits with the error's code.  docs/errors.md lists the codes.
"""

from __future__ import annotations

from dataclasses import dataclass

EXIT_INPUT = 1  # the program is wrong: syntax, semantics, a pass precondition, a FAIL
EXIT_USAGE = 2  # the command line is wrong: unknown arch, pass, option, bad -D
EXIT_IO = 3  # a file cannot be read or written
EXIT_TOOLCHAIN = 4  # no compiler found, or the compiler failed
EXIT_INTERNAL = 5  # a bug in gemmc: reported in one line, never as a traceback


@dataclass(frozen=True)
class Location:
    """A position in a source file; line and column count from 1."""

    file: str
    line: int
    col: int
    source_line: str | None = None

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


class GemmcError(Exception):
    """A user-facing error: a message, an optional location and an exit code."""

    def __init__(self, message: str, loc: Location | None = None, code: int = EXIT_INPUT):
        super().__init__(message)
        self.message = message
        self.loc = loc
        self.code = code

    def render(self) -> str:
        """The diagnostic as the CLI prints it (without a trailing newline)."""
        if self.loc is None:
            return f"error: {self.message}"
        text = f"{self.loc}: error: {self.message}"
        if self.loc.source_line is not None:
            line = self.loc.source_line.rstrip("\n")
            text += f"\n{line}\n{' ' * (self.loc.col - 1)}^"
        return text

    def __str__(self) -> str:
        return self.render()


def usage_error(message: str) -> GemmcError:
    return GemmcError(message, code=EXIT_USAGE)


def location_in(file: str, text: str, line: int, col: int) -> Location:
    """A Location with the source line filled in from the text."""
    lines = text.splitlines()
    source = lines[line - 1] if 0 < line <= len(lines) else None
    return Location(file, line, col, source)


def pass_error(pass_name: str, op, message: str) -> GemmcError:
    """A pass whose precondition does not hold: names the pass, the op and its function."""
    where = f"'{op.name}'"
    own = op.properties.get("sym_name") or op.attributes.get("sym_name")
    if own is not None and op.name != "builtin.module":
        return GemmcError(f"{pass_name}: {message} (at '{op.name}' @{own.data})")
    fn = op.parent_op()
    while fn is not None and "sym_name" not in fn.properties and "sym_name" not in fn.attributes:
        fn = fn.parent_op()
    if fn is not None:
        sym = fn.properties.get("sym_name") or fn.attributes.get("sym_name")
        where += f" in @{sym.data}"
    return GemmcError(f"{pass_name}: {message} (at {where})")


def verifier_message(e: Exception) -> str:
    """The one line of an xDSL verifier (or parser) exception that says what is wrong, without the
    IR it prints around it."""
    lines = [l for l in str(e).splitlines() if l.strip()]
    for l in lines:
        if "Operation does not verify" in l:
            return l.split("Operation does not verify:", 1)[1].strip()
    return lines[-1].strip() if lines else type(e).__name__
