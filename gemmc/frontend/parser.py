"""Parse a .gemm file into a module of `func.func` + `gemm.matmul`.

Errors carry the file, line and column of the token at fault: Lark's syntax errors
are translated here, and the semantic checks (names, shapes, dtypes) point at the
name that is wrong.
"""

from __future__ import annotations

import functools
import math
import os
import re
import sys
from dataclasses import dataclass, field, replace
from importlib import resources
from pathlib import Path

from lark import Lark, Token, Tree
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken
from xdsl.builder import Builder
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    ArrayAttr,
    DictionaryAttr,
    Float32Type,
    FloatAttr,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    UnitAttr,
)
from xdsl.ir import Block, Region
from xdsl.rewriter import InsertPoint

from gemmc.target.arch import ARCHS, Arch
from gemmc.support.diagnostics import GemmcError, location_in, usage_error
from gemmc.dialects.gemm import (
    AMAX_TYPE, ELEMENT_TYPES, INT4_TYPES, INT_ACC, INT_INPUT_TYPES, MX_BLOCK, MX_ELEMENT_NAMES, MX_NARROW_TYPES,
    OUTPUT_TYPES, SCALE_NAME, MatmulOp, YieldOp, dims_attr, is_fp8, is_int, is_narrow_float,
)
from gemmc.support.ir_names import DIMS_ATTR, GROUP_SIZES_ATTR, UNSIGNED_ATTR
from gemmc.frontend import epilogue as epi
from gemmc.frontend import outputs
from gemmc.frontend.batch_check import BatchChecker, take_leading_dims
from gemmc.frontend.epilogue_check import REQUANT_OUTPUT, REQUANT_TYPE, EpilogueChecker, MoreOutput, saturation_range
from gemmc.frontend import grouping

_GRAMMAR = resources.files("gemmc.frontend").joinpath("gemm.lark").read_text()


@functools.cache
def _parser() -> Lark:
    """Built on the first .gemm parse, not at import (`gemmc opt k.mlir` needs none).  Lark keeps
    the LALR tables in a cache file, checked against the grammar and options, which makes a later
    process's build about ten times faster; in the user's own cache directory, as the file is a
    pickle (not in a shared /tmp)."""
    options = dict(parser="lalr", propagate_positions=True, maybe_placeholders=False)
    return Lark(_GRAMMAR, **options, cache=_cache_file() or False)


def _cache_file() -> str | None:
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "gemmc"
    try:
        base.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None  # no cache: built each time
    return str(base / "gemm-grammar.lark-cache")


# How Lark's terminal names read in a message.
_TERMINAL_WORDS = {
    "NAME": "a name", "INT": "an integer", "NUMBER": "a number", "DTYPE": "f32, f16, bf16, f8e4m3fnuz, f8e5m2fnuz, f8e4m3fn, f8e5m2, f6e2m3fn, f6e3m2fn, f4e2m1fn, f8e8m0fnu, i8, u8, i4, u4 or i32",
    "LAYOUT": "row_major or col_major", "TRANSPOSE": "'.T'", "LBRACE": "'{'", "RBRACE": "'}'",
    "LSQB": "'['", "RSQB": "']'", "COMMA": "','", "COLON": "':'", "EQUAL": "'='",
    "STAR": "'*'", "PLUS": "'+'", "MINUS": "'-'", "LPAR": "'('", "RPAR": "')'", "AT": "'@'", "KERNEL": "'kernel'", "DIM": "'dim'",
    "ACC": "'acc'", "SCALED": "'scaled'", "GROUPED": "'grouped'", "BY": "'by'", "SLASH": "'/'", "$END": "end of file", "<END-OF-FILE>": "end of file",
}


MAX_DIM = 2**31 - 1
"""Kernels index with 32-bit ints (docs/language.md): a dim, and a matrix's element
count, must fit."""
# The largest finite value of each accumulator type, for literal scales.
_MAX_FINITE = {"f32": 3.4028234663852886e38, "f16": 65504.0, "bf16": 3.3895313892515355e38}
# The smallest nonzero (subnormal) value of each accumulator type: half of it rounds to 0.
_MIN_NONZERO = {"f32": 2.0**-149, "f16": 2.0**-24, "bf16": 2.0**-133}


@dataclass
class _Tensor:
    name: Token
    dtype: Token  # the type as written (a str: f32, f8e4m3fnuz, ...), located
    dims: tuple[Token, ...]  # two; one for a vector (an epilogue operand); three for a grouped B (or, as
    # declared, a batched matrix: the build moves the batch dim of an ungrouped product's tensors to `batch`)
    col_major: bool
    divs: tuple[int, ...] = (1, 1)  # a scale matrix's K dim is written K/32: (1, 32) for SA[M, K/32]
    batch: Token | None = None  # a leading batch dim ([Bt, M, K]: dims are M, K); _Builder sets it
    lead_div: Token | None = None  # a 3-D tensor's leading dim written divided (an error, at the build)

    def dim_names(self) -> tuple[str, str]:
        """The dims as written: 'K/32' for a divided one (the gemm.dims names)."""
        return tuple(str(d) if q == 1 else f"{d}/{q}" for d, q in zip(self.dims, self.divs))  # type: ignore[return-value]


@dataclass
class _Kernel:
    name: Token
    dims: dict[str, int | None] = field(default_factory=dict)  # None: dynamic
    dim_tokens: dict[str, Token] = field(default_factory=dict)
    tensors: dict[str, _Tensor] = field(default_factory=dict)
    scalars: dict[str, tuple[Token, str]] = field(default_factory=dict)
    acc: str = "f32"
    acc_token: Token | None = None  # where `acc` is declared (None: the default)
    assign: Tree | None = None
    amax_assign: Tree | None = None  # `m = amax(...)`: a second output, the epilogue's amax
    more: list[Tree] = field(default_factory=list)  # assignments of more outputs after C's (`Y = gelu(C)`)


def parse_gemm(
    text: str, filename: str = "<input>", defines: dict[str, int] | None = None, arch: Arch | None = None
) -> ModuleOp:
    """Parse .gemm source into gemm IR; `defines` overrides dims (the CLI's -D).  With `arch`,
    an FP8 format the arch cannot do is an error at its declaration."""
    tree = _parse_tree(text, filename)
    kernel = _Collector(text, filename).collect(tree)
    _apply_defines(kernel, defines or {})
    return _Builder(kernel, text, filename, arch).build()


def _parse_tree(text: str, filename: str) -> Tree:
    try:
        return _parser().parse(text)
    except UnexpectedInput as e:
        star = _star_for_at(e, text)
        if star is not None:
            (line, col), message = star
            raise GemmcError(message, location_in(filename, text, line, col)) from None
        raise GemmcError(_syntax_message(e, text), location_in(filename, text, *_position(e, text))) from None


def _position(e: UnexpectedInput, text: str) -> tuple[int, int]:
    if isinstance(e, UnexpectedEOF) or getattr(e, "line", -1) in (-1, None):
        lines = text.splitlines() or [""]
        return len(lines), len(lines[-1]) + 1
    return e.line, e.column


def _syntax_message(e: UnexpectedInput, text: str) -> str:
    if isinstance(e, UnexpectedCharacters):
        char = text[e.pos_in_stream] if e.pos_in_stream < len(text) else "?"
        return f"unexpected character {char!r}"
    expected = sorted(_TERMINAL_WORDS.get(t, repr(t)) for t in getattr(e, "expected", ()) or ())
    if isinstance(e, UnexpectedToken) and e.token.type != "$END":
        found = f"unexpected {e.token.value!r}"
        prev = _previous_token(text, e.token.start_pos)
        if prev is not None and prev[1] < e.token.line:  # the statement began on an earlier line
            found += f" after {prev[0]!r} on line {prev[1]}"
    else:
        found = "unexpected end of file"
    return f"{found}; expected {', '.join(expected)}" if expected else found


_TOKEN = re.compile(r"(#|//)[^\n]*|\s+|\.T|[A-Za-z_0-9.]+|\S")
_MATRIX_DECL = re.compile(r"([A-Za-z_][A-Za-z_0-9]*)\s*:\s*(?:f32|f16|bf16|f8e4m3fnuz|f8e5m2fnuz|f8e4m3fn|f8e5m2|f6e2m3fn|f6e3m2fn|f4e2m1fn|f8e8m0fnu|i8|u8|i4|u4|i32)\s*\[")


def _tokens(text: str, end: int) -> list[re.Match]:
    """The tokens of text[:end], comments and whitespace skipped."""
    return [m for m in _TOKEN.finditer(text, 0, end)
            if not m.group(0)[0].isspace() and not m.group(0).startswith(("#", "//"))]


def _star_for_at(e: UnexpectedInput, text: str) -> tuple[tuple[int, int], str] | None:
    """`C = A * B`: the parser reads `A *` as a scale and fails at whatever follows B (the
    next line's `}`); the mistake is the `*` after a matrix, where '@' belongs.  The place and
    message for that, when the failing assignment has such a `*` and no '@'."""
    if not isinstance(e, (UnexpectedToken, UnexpectedEOF)) or "AT" not in (getattr(e, "expected", None) or ()):
        return None
    end = e.token.start_pos if isinstance(e, UnexpectedToken) and e.token.type != "$END" else len(text)
    if end is None:
        return None
    toks = _tokens(text, end)
    start = max((i for i, m in enumerate(toks) if m.group(0) == "="), default=None)
    if start is None:
        return None
    stmt = toks[start + 1:]
    if any(m.group(0) == "@" for m in stmt):
        return None
    matrices = {m.group(1) for m in _MATRIX_DECL.finditer(text)}
    for before, star in zip(stmt, stmt[1:]):
        if star.group(0) == "*" and before.group(0) in matrices:
            pos = star.start()
            line = text.count("\n", 0, pos) + 1
            col = pos - (text.rfind("\n", 0, pos) + 1) + 1
            return (line, col), f"unexpected '*' after the matrix '{before.group(0)}'; expected '@'"
    return None


def _previous_token(text: str, pos: int | None) -> tuple[str, int] | None:
    """The token before offset `pos` and its line (comments and whitespace skipped)."""
    if pos is None:
        return None
    toks = _tokens(text, pos)
    last = toks[-1] if toks else None
    return (last.group(0), text.count("\n", 0, last.start()) + 1) if last else None


class _Collector:
    """Walks the parse tree, collecting declarations and checking names."""

    def __init__(self, text: str, filename: str):
        self.text = text
        self.filename = filename

    def error(self, token: Token, message: str) -> GemmcError:
        return GemmcError(message, location_in(self.filename, self.text, token.line, token.column))

    def _assign(self, k: _Kernel, stmt: Tree) -> None:
        """The assignment of C, and at most one of an amax output (`m = amax(...)`)."""
        expr = stmt.children[1]
        is_amax = isinstance(expr, Tree) and expr.data == "call" and str(expr.children[0]) == "amax"
        if is_amax and k.amax_assign is not None:
            raise self.error(stmt.children[0], "a kernel has one amax output (m = amax(...))")
        if is_amax:
            k.amax_assign = stmt
        elif k.assign is not None:
            k.more.append(stmt)  # another output (gemmc.frontend.epilogue_check.MoreOutput)
        else:
            k.assign = stmt

    def collect(self, tree: Tree) -> _Kernel:
        (ktree,) = tree.children
        name, *stmts = ktree.children
        k = _Kernel(name)
        declared: dict[str, Token] = {}
        for stmt in stmts:
            if stmt.data == "assign":
                self._assign(k, stmt)
                continue
            if stmt.data == "acc_decl":
                k.acc, k.acc_token = str(stmt.children[0]), stmt.children[0]
                if k.acc not in ("f32", "f16", INT_ACC):
                    raise self.error(stmt.children[0], f"accumulator type must be f32, f16 or {INT_ACC}, not {k.acc}")
                continue
            for tok in self._declared_names(stmt):
                if str(tok) in declared:
                    first = declared[str(tok)]
                    raise self.error(tok, f"'{tok}' is already declared at line {first.line}")
                declared[str(tok)] = tok
            self._declare(k, stmt)
        if k.assign is None:
            raise self.error(name, f"kernel '{name}' has no assignment such as 'C = A @ B'")
        for t in k.tensors.values():
            for d in t.dims:
                if str(d) not in k.dims:
                    raise self.error(d, f"unknown dim '{d}'; declare it with 'dim {d}'")
        return k

    @staticmethod
    def _declared_names(stmt: Tree) -> list[Token]:
        if stmt.data == "dim_decl":
            return [item.children[0] for item in stmt.children]
        return [stmt.children[0]]

    def _declare(self, k: _Kernel, stmt: Tree) -> None:
        if stmt.data == "dim_decl":
            for item in stmt.children:
                tok = item.children[0]
                value = int(item.children[1]) if len(item.children) > 1 else None
                if value == 0:
                    raise self.error(item.children[1], f"dim '{tok}' must be positive")
                if value is not None and value > MAX_DIM:
                    raise self.error(item.children[1], f"dim '{tok}' = {value} exceeds {MAX_DIM} (kernels index with 32-bit ints)")
                k.dims[str(tok)] = value
                k.dim_tokens[str(tok)] = tok
        elif stmt.data == "tensor_decl":
            name, dtype, *rest = stmt.children  # then the dim0 and dim1 trees (a vector: dim0 only)
            refs = [r for r in rest if isinstance(r, Tree)]
            layout = [r for r in rest if not isinstance(r, Tree)]
            if len(refs) > 3:
                raise self.error(refs[3].children[0], f"'{name}' has {len(refs)} dims; a matrix has 2, and a "
                                                      "batched one 3 (a leading batch dim: [Bt, M, K])")
            col_major = bool(layout) and str(layout[0]) == "col_major"
            divs = []
            for ref in refs:
                q = int(ref.children[1]) if len(ref.children) > 1 else 1
                if q != 1 and q != MX_BLOCK:
                    raise self.error(ref.children[1], f"a scale matrix's K dim is K/{MX_BLOCK} (one E8M0 scale per "
                                                      f"{MX_BLOCK} elements), not /{q}")
                divs.append(q)
            # a 3-D tensor's leading dim (a batch, or a grouped B's groups: the assignment says which)
            lead_div = refs[0].children[1] if len(refs) == 3 and divs[0] != 1 else None
            if len(refs) == 3:
                divs[0] = 1
            if any(q != 1 for q in divs) and (str(dtype) != SCALE_NAME or len(refs) == 1):
                at = next(r for r, q in zip(refs, divs) if q != 1)
                raise self.error(at.children[0], f"only a scale matrix ({SCALE_NAME}) has a dim divided by {MX_BLOCK}")
            if len(refs) == 1 and col_major:
                raise self.error(layout[0], f"'{name}' is a vector; a layout is for matrices")
            k.tensors[str(name)] = _Tensor(name, dtype, tuple(r.children[0] for r in refs), col_major, tuple(divs),
                                           lead_div=lead_div)
        elif stmt.data == "scalar_decl":
            name, dtype = stmt.children
            k.scalars[str(name)] = (name, str(dtype))


def _apply_defines(k: _Kernel, defines: dict[str, int]) -> None:
    for name, value in defines.items():
        if name not in k.dims:
            known = ", ".join(k.dims) or "none"
            raise usage_error(f"-D {name}: kernel '{k.name}' has no dim '{name}' (dims: {known})")
        if value <= 0:
            raise usage_error(f"-D {name}={value}: a dim must be positive")
        if value > MAX_DIM:
            raise usage_error(f"-D {name}={value}: a dim must be at most {MAX_DIM} (kernels index with 32-bit ints)")
        k.dims[name] = value


@dataclass
class _Use:
    """An operand of the product, resolved: stored tensor, and whether op() transposes it."""

    tensor: _Tensor
    token: Token
    transpose: bool
    scale: _Tensor | None = None  # `A scaled SA`: its E8M0 scales
    scale_token: Token | None = None

    def spelled(self) -> str:
        """The operand as the user wrote it: `B` or `B.T`."""
        return f"{self.token}.T" if self.transpose else str(self.token)

    def logical_dims(self) -> tuple[str, str]:
        d0, d1 = (str(d) for d in self.tensor.dims[-2:])  # a grouped B [G, K, N]: each group's [K, N]
        return (d1, d0) if self.transpose_of_declared() else (d0, d1)

    def transpose_of_declared(self) -> bool:
        return self.transpose

    def stored_transpose(self) -> bool:
        """Transposed relative to the row-major memref that holds it."""
        return self.transpose != self.tensor.col_major


class _Builder:
    """Checks the assignment against the declarations and builds the gemm IR."""

    def __init__(self, k: _Kernel, text: str, filename: str, arch: Arch | None = None):
        self.k = k
        self.text = text
        self.filename = filename
        self.arch = arch

    def error(self, token: Token, message: str) -> GemmcError:
        return GemmcError(message, location_in(self.filename, self.text, token.line, token.column))

    def warn(self, token: Token, message: str) -> None:
        """A located warning on stderr, in the format of the errors (the program still builds)."""
        text = self.error(token, message).render().replace(": error: ", ": warning: ", 1)
        print(text, file=sys.stderr)

    def build(self) -> ModuleOp:
        k = self.k
        c_tok, expr, *grouped = k.assign.children
        self.grouped_by = grouped[0].children[0] if grouped else None
        take_leading_dims(self.k.tensors, self.grouped_by is not None, self.error)
        c = self._matrix(c_tok)
        ast = epi.to_ast(expr)
        amax_tok, amax_ast = outputs.amax(self, ast)
        more = outputs.more_outputs(self, c, c_tok, ast)
        product = self._the_product(ast)
        self._integer_acc(product)
        a_use, b_use = self._product(product)
        sizes = grouping.check(self, self.grouped_by, a_use, b_use, c) if self.grouped_by is not None else None
        if sizes is not None and (amax_ast is not None or more or is_fp8(c.dtype)):
            raise self.error(self.grouped_by, "a grouped product has one output C of f32, f16 or bf16 "
                                              "(no more outputs, amax or FP8 C)")
        blas = epi.blas_form(ast, str(c_tok), self._is_scale) if amax_ast is None and not more else None
        extra = None
        self.fused = blas is None  # _check_types: an FP8 or i8 C needs the epilogue's saturate
        if blas is None:
            extra = EpilogueChecker(self, c, c_tok).check(ast, amax_ast, more)
            extra.amax_name = str(amax_tok) if amax_tok is not None else None
            alpha_tok = beta_tok = None
        else:
            alpha_tok = self._scale_of(blas[0])
            beta_tok = self._scale_of(blas[1])
        self._check_shapes(a_use, b_use, c, c_tok)
        BatchChecker(self).check(a_use, b_use, c, c_tok, extra)
        for use in (a_use, b_use, c):
            self._check_size(use.tensor if isinstance(use, _Use) else use)
        self._check_types(a_use, b_use, c)
        self._check_more_types(more, c)
        return self._emit(a_use, b_use, c, alpha_tok, beta_tok, extra, sizes)

    def _the_product(self, ast: epi.Node) -> Tree:
        """The assignment's one product A @ B (a located error for none or two)."""
        found = epi.products(ast)
        spelled = [" ".join(str(t) for t in n.tree.scan_values(lambda _: True)) for n in found]
        for n, text in zip(found[1:], spelled[1:]):  # the product may be written again, the same
            if text != spelled[0]:
                raise self.error(n.token, "an assignment has one product A @ B (written again it is the "
                                          "same sum); this is another")
        if found:
            return found[0].tree
        for n in epi.walk(ast):  # `C = A * B`: a '*' where '@' belongs
            if n.kind == "mul" and n.args[0].kind == "name" and str(n.args[0].token) in self.k.tensors:
                raise self.error(n.token, f"unexpected '*' after the matrix '{n.args[0].token}'; expected '@'")
        where = next((n.token for n in epi.walk(ast) if n.kind == "name"), None) or ast.token
        raise self.error(where, "the assignment has no product; expected 'A @ B' (a matrix product) in it")

    def _is_scale(self, node: epi.Node) -> bool:
        """A scale of the BLAS form: a number, or a name that is no matrix (a scalar, or an
        undeclared name, which _scale reports)."""
        return node.kind == "number" or (node.kind == "name" and str(node.token) not in self.k.tensors)

    def _scale_of(self, tok: Token | None) -> Token | None:
        return self._scale(tok) if tok is not None and tok is not epi.ONE else tok

    def _integer_acc(self, product: Tree) -> None:
        """An integer product accumulates in i32: the default accumulator of i8 / u8 operands, and
        the only one (a float accumulator, or i32 for float operands, is an error at the `acc`)."""
        dtypes = [self.k.tensors[str(op.children[0])].dtype for op in product.children
                  if str(op.children[0]) in self.k.tensors]
        ints = [d for d in dtypes if is_int(d)]
        if ints and self.k.acc_token is None:
            self.k.acc = INT_ACC
        elif ints and self.k.acc != INT_ACC:
            raise self.error(self.k.acc_token, f"{ints[0]} operands accumulate in {INT_ACC}, not {self.k.acc} "
                                               f"(write 'acc {INT_ACC}', or leave the acc out)")
        elif not ints and dtypes and self.k.acc == INT_ACC:
            raise self.error(self.k.acc_token, f"an {INT_ACC} accumulator takes i8, u8, i4 or u4 operands, not {dtypes[0]}")

    def _check_integers(self, a_use: _Use, b_use: _Use, c: _Tensor) -> bool:
        """Integer operands: A and B i8 or u8 each (never one of them a float), C i32.  True for
        an integer product (the float checks then do not apply)."""
        a, b = a_use.tensor, b_use.tensor
        if not (is_int(a.dtype) or is_int(b.dtype)):
            if is_int(c.dtype):
                raise self.error(c.dtype, f"the output '{c.name}' is {c.dtype}, the output of i8 and u8 operands; "
                                          f"'{a.name}' is {a.dtype}")
            return False
        for use, other in ((a_use, b_use), (b_use, a_use)):
            t = use.tensor
            if t.dtype == INT_ACC:
                raise self.error(t.dtype, f"'{t.name}' is {INT_ACC}; integer operands are i8 or u8 "
                                          f"({INT_ACC} is the accumulator's and the output's type)")
            if not is_int(t.dtype):
                raise self.error(use.token, f"'{use.token}' is {t.dtype} but '{other.token}' is {other.tensor.dtype}: "
                                            f"an integer product takes {', '.join(INT_INPUT_TYPES[:-1])} or "
                                            f"{INT_INPUT_TYPES[-1]} operands only")
        if c.dtype == REQUANT_OUTPUT and not self.fused:
            raise self.error(c.dtype, f"the output '{c.name}' is {c.dtype}: an integer product is requantized to it "
                                      f"by an epilogue that saturates ({c.name} = saturate(s * (A @ B)))")
        if c.dtype not in (INT_ACC, REQUANT_OUTPUT):
            raise self.error(c.dtype, f"the output '{c.name}' is {c.dtype}; an integer product's output is {INT_ACC} "
                                      f"(or {REQUANT_OUTPUT}, requantized)")
        if (a.dtype in INT4_TYPES) != (b.dtype in INT4_TYPES):
            raise self.error(b_use.token, f"'{a.name}' is {a.dtype} but '{b_use.token}' is {b.dtype}: A and B are "
                                          f"both 8-bit (i8, u8) or both 4-bit (i4, u4)")
        for t in (a, b):
            if t.dtype in INT4_TYPES:
                self._check_int4(t)
        return True

    def _check_int4(self, t: _Tensor) -> None:
        """A 4-bit operand: an arch with a route for it (gemmc.target.arch.s int4_frags), and an even
        stored row, as it is packed two a byte along its rows (a static odd row is an error)."""
        if self.arch is not None and not self.arch.int4_frags:
            routes = ", ".join(a.name for a in ARCHS.values() if a.int4_frags)
            raise self.error(t.dtype, f"{self.arch.name} has no route for {t.dtype} operands "
                                      f"(gemmc lowers them on {routes})")
        row = self._stored_dims(t)[-1]
        n = self.k.dims.get(row)
        if n is not None and n % 2:
            at = t.dims[0 if t.col_major else -1]
            raise self.error(at, f"'{t.name}' is {t.dtype}, packed two elements a byte along its stored rows: "
                                 f"its row length {row} = {n} must be even")

    def _check_types(self, a_use: _Use, b_use: _Use, c: _Tensor) -> None:
        """A and B share a type, or are two FP8 formats (fp8 x bf8), or two MX element formats
        with scales; with an arch, A's and B's narrow formats are ones it has, C's one it converts to."""
        a, b = a_use.tensor, b_use.tensor
        scaled = a_use.scale is not None or b_use.scale is not None
        mixed_ok = (is_fp8(a.dtype) and is_fp8(b.dtype)) or (
            scaled and a.dtype in MX_ELEMENT_NAMES and b.dtype in MX_ELEMENT_NAMES)
        for use in (a_use, b_use, c):
            t = use.tensor if isinstance(use, _Use) else use
            if any(q != 1 for q in t.divs):
                at = use.token if isinstance(use, _Use) else t.name
                raise self.error(at, f"'{t.name}' is a scale matrix; it scales an operand ('A scaled {t.name}')")
        if self._check_integers(a_use, b_use, c):
            if scaled:
                use = a_use if a_use.scale is not None else b_use
                raise self.error(use.scale_token, "an integer product has no scales")
            return
        if a.dtype != b.dtype and not mixed_ok:
            raise self.error(
                b_use.token,
                f"A and B must have one element type: '{a.name}' is {a.dtype}, '{b_use.token}' is {b.dtype}",
            )
        if c.dtype not in OUTPUT_TYPES:
            raise self.error(c.dtype, f"the output '{c.name}' is {c.dtype}; an output must be "
                                      f"{', '.join(t for t in OUTPUT_TYPES if not is_int(t))}")
        if is_fp8(c.dtype) and not self.fused:
            raise self.error(c.dtype, f"the output '{c.name}' is {c.dtype}: its value is converted with saturation; "
                                      f"write {c.name} = saturate(...)")
        for t in (a, b, c) if self.arch is not None else ():  # C: converted to, in software if need be
            allowed = self.arch.output_dtypes if t is c else self.arch.dtypes
            if is_narrow_float(t.dtype) and t.dtype not in allowed:
                raise self.error(t.dtype, f"{self.arch.name} cannot do {t.dtype}; its types: "
                                          f"{', '.join(self.arch.dtypes)}")
        if scaled:
            self._check_scales(a_use, b_use)
        else:
            for use in (a_use, b_use):
                if use.tensor.dtype in MX_NARROW_TYPES or use.tensor.dtype == SCALE_NAME:
                    raise self.error(use.token, f"'{use.token}' is {use.tensor.dtype}, a block-scaled format: write "
                                                f"'{use.token} scaled S{use.token}' with its {SCALE_NAME} scales")

    def _check_more_types(self, more: list[MoreOutput], c: _Tensor) -> None:
        """Another output is a float type (an FP8 one of the arch) of a float product, i8 of an integer one."""
        for m in more:
            dtype = m.tensor.dtype
            if self.k.acc == INT_ACC:
                raise self.error(m.token, f"an integer product writes one output (C) yet; '{m.token}' is another")
            if self.k.acc != INT_ACC and (is_int(dtype) or dtype not in OUTPUT_TYPES):
                raise self.error(dtype, f"'{m.token}' is {dtype}; an output must be "
                                        f"{', '.join(t for t in OUTPUT_TYPES if not is_int(t))}")
            if self.arch is not None and is_narrow_float(dtype) and dtype not in self.arch.output_dtypes:
                raise self.error(dtype, f"{self.arch.name} cannot do {dtype}; its types: {', '.join(self.arch.dtypes)}")

    def _check_scales(self, a_use: _Use, b_use: _Use) -> None:
        """A block-scaled product: both operands scaled, by E8M0 matrices of their operand's
        dims with K divided by MX_BLOCK, and a static K that MX_BLOCK divides."""
        for use, other in ((a_use, b_use), (b_use, a_use)):
            if use.scale is None:
                raise self.error(use.token, f"'{use.token}' needs its scales too ('{use.token} scaled S{use.token}'): "
                                            f"'{other.token}' is scaled, and a block-scaled product scales both")
        if self.k.acc != "f32":
            raise self.error(a_use.scale_token, f"a block-scaled product accumulates in f32, not {self.k.acc}")
        for use, k_axis in ((a_use, 0 if a_use.transpose else 1), (b_use, 1 if b_use.transpose else 0)):
            t, sc = use.tensor, use.scale
            assert sc is not None and use.scale_token is not None
            if t.dtype not in MX_ELEMENT_NAMES:
                raise self.error(t.dtype, f"'{t.name}' is {t.dtype}; a scaled operand must be one of "
                                          f"{', '.join(MX_ELEMENT_NAMES)}")
            if sc.dtype != SCALE_NAME:
                raise self.error(use.scale_token, f"the scales '{sc.name}' are {sc.dtype}; scales are {SCALE_NAME}")
            if self.arch is not None and SCALE_NAME not in self.arch.dtypes:
                raise self.error(use.scale_token, f"{self.arch.name} has no block-scaled (MX) products "
                                                  f"({SCALE_NAME} scales); its types: {', '.join(self.arch.dtypes)}")
            want = list(t.dim_names())  # as declared (col_major changes the storage, not the dims)
            want[k_axis] = f"{want[k_axis]}/{MX_BLOCK}"
            if list(sc.dim_names()) != want or sc.col_major != t.col_major:
                layout = " col_major" if t.col_major else ""
                raise self.error(use.scale_token, f"the scales '{sc.name}' are [{', '.join(sc.dim_names())}]; "
                                                  f"'{t.name}' [{', '.join(t.dim_names())}] needs [{', '.join(want)}]"
                                                  f"{layout} (one scale per {MX_BLOCK} elements along K)")
            k_name = str(t.dims[k_axis])
            k_value = self.k.dims[k_name]
            k_tok = self.k.dim_tokens[k_name]
            if k_value is None:
                raise self.error(k_tok, f"a block-scaled product needs a static {k_name} (a multiple of {MX_BLOCK}); "
                                        f"give it a value ('dim {k_name} = ...' or -D {k_name}=...)")
            if k_value % MX_BLOCK:
                raise self.error(k_tok, f"{k_name} = {k_value} is not a multiple of {MX_BLOCK}: the block-scaled "
                                        f"product scales blocks of {MX_BLOCK} elements along {k_name}")

    def _tensor(self, tok: Token) -> _Tensor:
        t = self.k.tensors.get(str(tok))
        if t is None:
            what = "a scalar" if str(tok) in self.k.scalars else "not declared"
            if str(tok) in self.k.dims:
                what = "a dim"
            raise self.error(tok, f"'{tok}' is {what}; expected a matrix operand")
        return t

    def _product(self, tree: Tree) -> tuple[_Use, _Use]:
        a_op, b_op = tree.children
        uses = []
        for op in (a_op, b_op):
            tok, *rest = op.children
            transpose = bool(rest) and rest[0].type == "TRANSPOSE"
            scale_tok = rest[-1] if rest and rest[-1].type == "NAME" else None
            scale = self._matrix(scale_tok) if scale_tok is not None else None
            uses.append(_Use(self._matrix(tok, grouped_b=op is b_op), tok, transpose, scale, scale_tok))
        return uses[0], uses[1]

    def _matrix(self, tok: Token, grouped_b: bool = False) -> _Tensor:
        t = self._tensor(tok)
        if len(t.dims) == 3 and not grouped_b:  # only a grouped product keeps 3-D tensors (_leading_dims)
            raise self.error(tok, f"'{tok}' is [{', '.join(map(str, t.dims))}]; a grouped product is not batched "
                                  "(yet): its A and C are [M, K] and [M, N], only B is 3-D ([G, K, N])")
        if len(t.dims) == 1:
            raise self.error(tok, f"'{tok}' is a vector [{t.dims[0]}]; expected a matrix operand "
                                  "(a vector is an epilogue's operand: C = A @ B + b)")
        return t

    def _scale(self, tok: Token, acc: str | None = None) -> Token:
        """A number or scalar in the type `acc` computes in: the accumulator's (alpha, beta, an
        epilogue's), f32 in an integer product's requantizing epilogue."""
        acc = acc or self.k.acc
        if acc == INT_ACC and not (tok.type == "NUMBER" and float(tok) == 1.0):
            raise self.error(tok, f"an integer product takes no scale but 1 (it is computed in {INT_ACC}: "
                                  f"C = A @ B or C = A @ B + C)")
        if acc == INT_ACC:
            return tok
        if tok.type == "NUMBER" and not abs(float(tok)) <= _MAX_FINITE[acc]:
            raise self.error(tok, f"scale {tok} overflows the accumulator type {acc} "
                                  f"(at most {_MAX_FINITE[acc]:g})")
        if tok.type == "NUMBER" and 0 < abs(float(tok)) <= _MIN_NONZERO[acc] / 2:
            self.warn(tok, f"scale {tok} rounds to 0 in the accumulator type {acc} "
                           f"(its smallest nonzero value is {_MIN_NONZERO[acc]:.3g})")
        if tok.type == "NAME":
            if str(tok) not in self.k.scalars:
                raise self.error(tok, f"'{tok}' is not a declared scalar; declare it as '{tok}: {acc}'")
            dtype = self.k.scalars[str(tok)][1]
            if dtype != acc:
                what = "the accumulator" if acc == self.k.acc else "an integer product's epilogue"
                raise self.error(tok, f"scalar '{tok}' is {dtype} but {what} is {acc}")
        return tok

    def _check_shapes(self, a: _Use, b: _Use, c: _Tensor, c_tok: Token) -> None:
        m, ka = a.logical_dims()
        kb, n = b.logical_dims()
        if c.col_major:
            raise self.error(c_tok, f"the output '{c_tok}' must be row-major")
        cm, cn = (str(d) for d in c.dims)
        if ka != kb:
            self._inner_mismatch(a, b, (cm, cn))
        if (cm, cn) != (m, n):
            raise self.error(c_tok, f"'{c_tok}' has shape [{cm}, {cn}] but the product is [{m}, {n}]")

    def _inner_mismatch(self, a: _Use, b: _Use, c: tuple[str, str]) -> None:
        """A @ B whose inner dims differ: blame the operand that does not fit C's shape either
        (B when both fit it), quoting it as written and the shape it would need."""
        (m, ka), (kb, n) = a.logical_dims(), b.logical_dims()
        product = f"{a.spelled()} @ {b.spelled()}"
        if m != c[0]:
            # A's other dim is B's first, unless B does not fit C either: then it is unknown
            other = kb if n == c[1] else "..."
            raise self.error(a.token, f"'{a.spelled()}' has shape [{m}, {ka}] but {product} needs "
                                      f"[{c[0]}, {other}] (the output is [{c[0]}, {c[1]}])")
        raise self.error(b.token, f"'{b.spelled()}' has shape [{kb}, {n}] but {product} needs [{ka}, {c[1]}]")

    def _dim_value(self, t: _Tensor, i: int) -> int | None:
        v = self.k.dims[str(t.dims[i])]
        return None if v is None else v // t.divs[i]

    def _check_size(self, t: _Tensor) -> None:
        if len(t.dims) < 2:
            return  # a vector of one dim holds at most MAX_DIM elements
        sizes = [self._dim_value(t, i) for i in range(len(t.dims))]
        if None not in sizes and math.prod(sizes) > MAX_DIM:
            raise self.error(
                t.name, f"'{t.name}' has {' x '.join(map(str, sizes))} = {math.prod(sizes)} elements; kernels index "
                f"with 32-bit ints, so a matrix holds at most {MAX_DIM}",
            )

    # -- IR ---------------------------------------------------------------------

    def _memref(self, t: _Tensor) -> MemRefType:
        shape = [self._dim_value(t, i) or DYNAMIC_INDEX for i in range(len(t.dims))]
        if t.col_major:
            shape.reverse()
        if t.batch is not None:  # leads the stored shape: col_major acts on the last two dims
            shape.insert(0, self.k.dims[str(t.batch)] or DYNAMIC_INDEX)
        return MemRefType(ELEMENT_TYPES[t.dtype](), shape)

    @staticmethod
    def _stored_dims(t: _Tensor) -> list[str]:
        names = list(t.dim_names())
        names = names[::-1] if t.col_major else names
        return ([str(t.batch)] if t.batch is not None else []) + names

    def _emit(self, a: _Use, b: _Use, c: _Tensor, alpha: Token | None, beta: Token | None, extra=None,
              sizes: _Tensor | None = None) -> ModuleOp:
        k = self.k
        acc_type = ELEMENT_TYPES[k.acc]()
        scales = [u.scale for u in (a, b) if u.scale is not None]
        tensors = [a.tensor, b.tensor, c] + scales + ([sizes] if sizes is not None else [])
        if len(scales) == 2 and scales[0] is scales[1]:
            raise self.error(b.scale_token, f"'{b.scale_token}' scales both operands; A and B have scales of their own")
        if a.tensor is b.tensor:
            raise self.error(b.token, f"'{b.token}' is both operands; A, B and C must be three different matrices")
        for use in (a, b):
            if use.tensor is c:
                raise self.error(use.token, f"'{use.token}' is both the output and an operand; "
                                            "A, B and C must be three different matrices")
        scalars = [tok for tok in (alpha, beta) if tok is not None and tok.type == "NAME"]
        scalar_names = list(dict.fromkeys(str(s) for s in scalars))
        if extra is not None:  # the epilogue's tensors follow A, B, C (and scales); its scalars come last
            tensors += [t for t in (k.tensors[o.name] for o in extra.operands if o.axes) if t not in tensors]
            tensors += [m.tensor for m in extra.more if m.tensor not in tensors]  # the other outputs
            scalar_names = [o.name for o in extra.operands if not o.axes]
        scalar_type = ELEMENT_TYPES[REQUANT_TYPE]() if extra is not None and k.acc == INT_ACC else acc_type
        arg_types = [self._memref(t) for t in tensors] + [scalar_type] * len(scalar_names)
        arg_attrs = [DictionaryAttr({DIMS_ATTR: dims_attr(self._stored_dims(t)),
                                     **({UNSIGNED_ATTR: UnitAttr()} if t.dtype in ("u8", "u4") else {}),
                                     **({GROUP_SIZES_ATTR: UnitAttr()} if t is sizes else {})}) for t in tensors]
        arg_attrs += [DictionaryAttr({}) for _ in scalar_names]
        amax_name = extra.amax_name if extra is not None else None
        if amax_name is not None:  # the amax output, last: one f32 the kernel raises
            arg_types.append(AMAX_TYPE)
            arg_attrs.append(DictionaryAttr({}))
        block = Block(arg_types=arg_types)
        for arg, t in zip(block.args, tensors):
            arg.name_hint = str(t.name)
        first_scalar = len(tensors)  # A, B, C, [SA, SB], [sizes], the epilogue's tensors, then the scalars
        for arg, s in zip(block.args[first_scalar:], scalar_names):
            arg.name_hint = s
        amax = block.args[-1] if amax_name is not None else None
        if amax is not None:
            amax.name_hint = amax_name
        builder = Builder(InsertPoint.at_end(block))
        values = dict(zip(scalar_names, block.args[first_scalar:]))

        def scalar(tok: Token | None):
            if tok is None:
                return None
            if tok.type == "NAME":
                return values[str(tok)]
            if k.acc == INT_ACC:  # 1, the only integer scale (_scale)
                return builder.insert(arith.ConstantOp(IntegerAttr(int(float(tok)), acc_type))).result
            return builder.insert(arith.ConstantOp(FloatAttr(float(tok), acc_type))).result

        if k.acc == INT_ACC:
            alpha = None  # 1
        alpha_v, beta_v = scalar(alpha), scalar(beta)
        A, B, C = block.args[:3]
        SA, SB = block.args[3:5] if scales else (None, None)
        epilogue = self._epilogue(extra, block, tensors, first_scalar, scalar_names, acc_type, c.dtype)
        builder.insert(
            MatmulOp(A, B, C, acc_type, alpha_v, beta_v, a.stored_transpose(), b.stored_transpose(), SA, SB,
                     a.tensor.dtype in ("u8", "u4"), b.tensor.dtype in ("u8", "u4"), *epilogue, amax=amax,
                     outputs=[block.args[tensors.index(m.tensor)] for m in (extra.more if extra else ())],
                     group_sizes=block.args[tensors.index(sizes)] if sizes is not None else None)
        )
        builder.insert(func.ReturnOp())
        fn = func.FuncOp(str(k.name), (arg_types, []), Region(block), arg_attrs=ArrayAttr(arg_attrs))
        return ModuleOp([fn])

    def _epilogue(self, extra, block: Block, tensors: list, first_scalar: int, scalar_names: list, acc_type,
                  c_dtype: str):
        """(operands, axes, region) of gemm.matmul's fused epilogue; empty without one.  An integer
        product's computes in f32: the sum converted (sitofp), the result rounded to an integer."""
        if extra is None:
            return (), (), None
        args = {str(t.name): block.args[i] for i, t in enumerate(tensors)}
        args.update(zip(scalar_names, block.args[first_scalar:]))
        operands = [o for o in extra.operands if o.axes] + [o for o in extra.operands if not o.axes]
        values = [args[o.name] for o in operands]
        region_block = Block(arg_types=[acc_type] + [getattr(v.type, "element_type", v.type) for v in values])
        region_block.args[0].name_hint = "sum"
        elements = {}
        for o, arg in zip(operands, region_block.args[1:]):
            arg.name_hint = f"{o.name}_e"
            elements[o.name] = arg

        integer = self.k.acc == INT_ACC
        etype = ELEMENT_TYPES[REQUANT_TYPE if integer else self.k.acc]()

        def leaf(node, b: Builder):
            if node.kind == "product":
                s = region_block.args[0]
                return b.insert(arith.SIToFPOp(s, etype)).result if integer else s
            if node.kind == "number":
                return b.insert(arith.ConstantOp(FloatAttr(float(node.token), etype))).result
            return _to_type(b, elements[str(node.token)], etype)

        saturation = saturation_range(c_dtype, REQUANT_TYPE if integer else self.k.acc)
        emitter = epi.EpilogueEmitter(region_block, etype, leaf, saturation, acc_type)
        if extra.amax_ast is not None:
            emitter.amax(extra.amax_ast)
        if not extra.more:
            emitter.finish(extra.ast)
            return values, [o.axes for o in operands], Region(region_block)
        stored = emitter.stored(extra.ast)  # C's value, which the later outputs may read as stored
        emitter.remember(str(self.k.assign.children[0]), stored, ELEMENT_TYPES[c_dtype]())
        for m in extra.more:
            emitter.saturation = saturation_range(m.tensor.dtype, REQUANT_TYPE if integer else self.k.acc)
            emitter.output(m.ast, str(m.token), ELEMENT_TYPES[m.tensor.dtype]())
        region_block.add_op(YieldOp(stored))
        return values, [o.axes for o in operands], Region(region_block)


def _to_type(b: Builder, v, t):
    """An operand's element in the accumulator type: widened exactly, or rounded (f32 into f16, bf16
    into f16 through f32: no single op converts between the two 16-bit types)."""
    if v.type == t:
        return v
    if v.type.bitwidth == t.bitwidth:
        v = b.insert(arith.ExtFOp(v, Float32Type())).result
    op = arith.ExtFOp(v, t) if v.type.bitwidth < t.bitwidth else arith.TruncFOp(v, t)
    return b.insert(op).result
