"""The C text the HIP printers build: expressions and their precedence, literals, names,
how a memref is addressed, and the layout of long lines.

    binary(Expr("row"), "*", Expr("K"), MUL)  -> row * K
    MemrefView(Expr("A"), "flat", [M, K], t).element([row, k])  -> A[row * K + k]
    Namer().fresh("acc")  -> acc, then acc_1, ...
"""

from __future__ import annotations

import math
import re
import struct
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from xdsl.dialects.builtin import BFloat16Type, Float16Type, Float64Type, IntegerType, MemRefType, VectorType
from xdsl.ir import Attribute

from gemmc.emit import fp4, fp6
from gemmc.emit.c_types import FLOAT_C, is_nibble, is_sub_byte
from gemmc.support.symbols import RESERVED, c_identifier

INDENT = "    "
LINE_WIDTH = 100

# C operator precedence, higher binds tighter.
PRIMARY, UNARY, MUL, ADD, SHIFT, REL, EQ, BAND, BXOR, BOR, LAND, LOR, COND = (
    16, 15, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3,
)
ARG = COND  # a function argument: anything but a comma expression


@dataclass(frozen=True)
class Expr:
    """C text and the precedence of its outermost operator."""

    text: str
    prec: int = PRIMARY

    def at(self, prec: int) -> str:
        """The text, parenthesized if it binds looser than `prec`."""
        return self.text if self.prec >= prec else f"({self.text})"


def binary(lhs: Expr, op: str, rhs: Expr, prec: int) -> Expr:
    return Expr(f"{lhs.at(prec)} {op} {rhs.at(prec + 1)}", prec)


def call(fn: str, *args: Expr) -> Expr:
    return Expr(f"{fn}({', '.join(a.at(ARG) for a in args)})")


def cast(ctype: str, e: Expr) -> Expr:
    return Expr(f"({ctype}){e.at(UNARY)}", UNARY)


def int_literal_value(e: Expr) -> int | None:
    return int(e.text) if re.fullmatch(r"-?[0-9]+", e.text) else None


def lane(vec: Expr, pos: Expr, t: Attribute) -> Expr:
    """One lane of a vector: `.x`-`.w` where it can be (CUDA's float4 has no []), else [i]."""
    lanes = t.get_shape()[0] if isinstance(t, VectorType) else 0
    i = int_literal_value(pos)
    if i is not None and 0 <= i < lanes <= 4:
        return Expr(f"{vec.at(PRIMARY)}.{'xyzw'[i]}")
    return Expr(f"{vec.at(PRIMARY)}[{pos.text}]")


def int_literal(v: int, t: Attribute) -> Expr:
    if isinstance(t, IntegerType) and t.width.data == 1:
        return Expr("true" if v & 1 else "false")
    suffix = "LL" if isinstance(t, IntegerType) and t.width.data == 64 else ""
    return Expr(f"{v}{suffix}", UNARY if v < 0 else PRIMARY)


def float_literal(v: float, t: Attribute) -> Expr:
    """A literal of float type t: the shortest text that reads back as the same value."""
    if math.isnan(v):
        text, prec = '__builtin_nanf("")', PRIMARY
    elif math.isinf(v):
        text, prec = ("__builtin_inff()" if v > 0 else "-__builtin_inff()"), (PRIMARY if v > 0 else UNARY)
    else:
        if isinstance(t, Float64Type):
            text = repr(float(v))
        else:
            text = _shortest_f32(v)
        if "e" not in text and "." not in text:
            text += ".0"
        if not isinstance(t, Float64Type):
            text += "f"
        prec = UNARY if v < 0 or text.startswith("-") else PRIMARY
    if isinstance(t, Float16Type | BFloat16Type):
        return cast(FLOAT_C[type(t)], Expr(text, prec))
    return Expr(text, prec)


def _shortest_f32(v: float) -> str:
    f32 = struct.unpack("f", struct.pack("f", v))[0]
    for digits in range(1, 18):
        text = f"{f32:.{digits}g}"
        if struct.unpack("f", struct.pack("f", float(text)))[0] == f32:
            return text
    return repr(f32)


@dataclass
class MemrefView:
    """How a memref value is addressed in C.

    `flat`: a pointer, indexed row-major with `sizes` (C expressions) as the extents;
    `array`: a C array or pointer to array, indexed `x[i][j]`.
    """

    base: Expr
    kind: str  # "flat" | "array"
    sizes: list[Expr]
    type: MemRefType

    def element(self, indices: Sequence[Expr]) -> Expr:
        if self.kind == "array":
            if not indices:
                return Expr(f"{self.base.at(PRIMARY)}[0]")
            return Expr(self.base.at(PRIMARY) + "".join(f"[{i.text}]" for i in indices))
        if not indices:
            return Expr(f"{self.base.at(PRIMARY)}[0]")
        offset = indices[0]
        for size, idx in zip(self.sizes[1:], indices[1:]):
            offset = binary(binary(offset, "*", size, MUL), "+", idx, ADD)
        return Expr(f"{self.base.at(PRIMARY)}[{offset.text}]")

    @property
    def packed(self) -> bool:
        """FP4 or FP6 in global memory (a pointer): elements packed below a byte each, not
        addressable one by one."""
        return self.kind == "flat" and is_sub_byte(self.type.element_type)

    def packed_byte(self, outer: Sequence[Expr], byte: Expr) -> Expr:
        """Byte `byte` of row `outer` of a packed view: rows of fp4.row_bytes / fp6.row_bytes."""
        fmt = fp4 if is_nibble(self.type.element_type) else fp6
        n = int_literal_value(self.sizes[-1])
        row_bytes = Expr(str(fmt.row_bytes(n))) if n is not None else Expr(fmt.row_bytes_c(self.sizes[-1].at(MUL)), MUL)
        return MemrefView(self.base, "flat", [*self.sizes[:-1], row_bytes], self.type).element([*outer, byte])

    def packed_element(self, indices: Sequence[Expr]) -> Expr:
        """The code of element `indices` of a packed view (gemmc.emit.fp4.nibble, fp6.field)."""
        *outer, col = indices
        c = col.at(PRIMARY)  # parenthesized: clang warns of `a + b >> 1`
        if is_nibble(self.type.element_type):  # FP4, i4: fp4's layout
            return Expr(fp4.nibble(self.packed_byte(outer, Expr(f"{c} >> 1", SHIFT)).text, c), BAND)
        first = Expr(fp6.first_byte(c), SHIFT)
        lo = self.packed_byte(outer, first)
        hi = self.packed_byte(outer, binary(first, "+", Expr(fp6.spans(c)), ADD))
        return Expr(fp6.field(lo.text, hi.text, c), BAND)


class Namer:
    """Unique, valid C identifiers from name hints."""

    def __init__(self, reserved: Iterable[str] = ()):
        self.taken: set[str] = set(RESERVED) | set(reserved)
        self.temps = 0

    sanitize = staticmethod(c_identifier)  # the naming rule, shared with the AMDGCN backend

    def fresh(self, hint: str | None) -> str:
        if hint is None:
            while f"t{self.temps}" in self.taken:
                self.temps += 1
            name = f"t{self.temps}"
            self.temps += 1
            self.taken.add(name)
            return name
        base = self.sanitize(hint)
        name, n = base, 0
        while name in self.taken:
            n += 1
            name = f"{base}_{n}"
        self.taken.add(name)
        return name

    def reserve(self, name: str) -> None:
        self.taken.add(name)


# -- the layout of long lines ----------------------------------------------------------


def signature(prefix: str, name: str, params: list[str]) -> list[str]:
    """`prefix name(params)` on one line, or one parameter a line aligned after the '('."""
    one = f"{prefix} {name}({', '.join(params)})"
    if len(one) <= LINE_WIDTH or len(params) < 2:
        return [one]
    head = f"{prefix} {name}("
    pad = " " * len(head)
    lines = [head + params[0] + ","]
    lines += [pad + q + "," for q in params[1:-1]]
    lines.append(pad + params[-1] + ")")
    return lines


def wrap_call(head: str, args: list[str], tail: str) -> list[str]:
    one = head + ", ".join(args) + tail
    if len(one) <= LINE_WIDTH:
        return [one]
    indent = re.match(r"\s*", head).group(0) + INDENT * 2  # type: ignore[union-attr]
    lines = [head]
    cur = indent
    for i, a in enumerate(args):
        piece = a + (", " if i < len(args) - 1 else "")
        if len(cur) + len(piece) > LINE_WIDTH and cur.strip():
            lines.append(cur.rstrip())
            cur = indent
        cur += piece
    lines.append(cur.rstrip() + tail)
    return lines


def macro(lines: list[str]) -> list[str]:
    """A multi-line #define, its backslashes in one column."""
    width = max(len(l) for l in lines[:-1]) + 1
    return [l.ljust(width) + "\\" for l in lines[:-1]] + [lines[-1]]


def rule(title: str) -> str:
    text = f"// ---- {title} "
    return text + "-" * max(4, LINE_WIDTH - len(text))
