"""The checks of a fused epilogue's expression, each a located error, and what it reads.

A name in the expression is a scalar (of the accumulator type, as alpha is) or a broadcast
operand matched to the output's dims by name: [M, N] element-wise, [M] one value a row,
[N] one value a column (M and N as the output declares them).  Functions have fixed
arities; clamp's bounds are scalars or numbers, lo <= hi.  saturate(x) is the outermost call,
and the only way to an FP8 or i8 C (its finite range: docs/language.md, "Output conversion").
An integer product takes an epilogue only to requantize to an i8 C, computed in f32.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from lark import Token

from gemmc.dialects.gemm import INT_ACC, is_fp8
from gemmc.frontend import epilogue as epi

EPILOGUE_ELEMENT_TYPES = ("f32", "f16", "bf16")
REQUANT_TYPE = "f32"  # an integer product's epilogue computes in f32 (the scales' type)
REQUANT_OUTPUT = "i8"


def needs_saturate(dtype: str) -> bool:
    """An FP8 or i8 C: written only through saturate (an overflow would otherwise be NaN, inf or
    undefined, and each format and target does it differently)."""
    return is_fp8(dtype) or dtype == REQUANT_OUTPUT


# The largest finite value of each float type saturate may clamp to or compute in.
_LARGEST = {"f32": 3.4028234663852886e38, "f16": 65504.0, "bf16": 3.3895313892515355e38}


def saturation_range(c_dtype: str, etype: str) -> tuple[float, float] | None:
    """saturate's bounds for C's type, in the epilogue's type `etype`: C's finite range (i8's
    -128 .. 127; FP8's +-largest from ml_dtypes' formats), no wider than `etype`'s own."""
    if c_dtype == REQUANT_OUTPUT:
        return -128.0, 127.0
    if is_fp8(c_dtype):
        import ml_dtypes  # (a second to import: only an FP8 C pays for it)

        from gemmc.support.arith_semantics import fp8_dtypes  # numpy: likewise

        top = float(ml_dtypes.finfo(fp8_dtypes()[c_dtype]).max)
    elif c_dtype in _LARGEST:
        top = _LARGEST[c_dtype]
    else:
        return None
    top = min(top, _LARGEST[etype])
    return -top, top


@dataclass
class Operand:
    """A name the epilogue reads: a tensor (axes "m", "n" or "mn") or a scalar (axes "")."""

    name: str
    token: Token
    axes: str
    dtype: str


@dataclass
class Epilogue:
    ast: epi.Node
    operands: list[Operand] = field(default_factory=list)
    amax_ast: epi.Node | None = None  # the argument of `m = amax(...)`, an expression like ast
    amax_name: str | None = None
    more: list[MoreOutput] = field(default_factory=list)  # the outputs assigned after C, in order


@dataclass
class MoreOutput:
    """An output assigned after C (`Y = gelu(C)`): its name, tensor and expression, which may read
    the outputs assigned before it (their stored values)."""

    token: Token
    tensor: object  # the parser's _Tensor
    ast: epi.Node

    def operand(self, name: str) -> Operand:
        return next(o for o in self.operands if o.name == name)


class EpilogueChecker:
    """Checks the expression against the kernel's declarations (`builder`: the parser's _Builder)."""

    def __init__(self, builder, c, c_tok: Token):
        self.b = builder
        self.k = builder.k
        self.c = c
        self.c_tok = c_tok

    @property
    def etype(self) -> str:
        """The type the epilogue computes in: the accumulator's, f32 for an integer product's."""
        return REQUANT_TYPE if self.k.acc == INT_ACC else self.k.acc

    def check(self, ast: epi.Node, amax_ast: epi.Node | None = None, more: list[MoreOutput] = ()) -> Epilogue:
        if self.k.acc == INT_ACC and self.c.dtype != REQUANT_OUTPUT:
            at = next(n.token for n in epi.walk(ast) if n.kind != "product")
            raise self.b.error(at, f"an integer product takes no fused epilogue (functions, vectors, other "
                                   f"matrices) into its {self.c.dtype} C: C = A @ B or C = A @ B + C; an epilogue "
                                   f"requantizes to an {REQUANT_OUTPUT} C: C = saturate(s * (A @ B))")
        out = Epilogue(ast, amax_ast=amax_ast, more=list(more))
        written = [str(self.c_tok)]  # the outputs a later expression reads (C's stored value, ...)
        self._expression(out, ast, self.c_tok, self.c.dtype, ())
        if amax_ast is not None:
            self._expression(out, amax_ast, None, None, ())
        for m in more:
            self._expression(out, m.ast, m.token, m.tensor.dtype, tuple(written))
            written.append(str(m.token))
        return out

    def _expression(self, out: Epilogue, ast: epi.Node, tok: Token | None, dtype, reads: tuple[str, ...]) -> None:
        """One assigned expression (tok None: amax's argument); names in `reads` are outputs written
        before it, the others operands."""
        for node in epi.walk(ast):
            if node.kind == "call":
                self._call(node, node is ast and tok is not None, dtype)
            elif node.kind == "number":
                self.b._scale(node.token, self.etype)  # fits the epilogue's type (a located error if not)
            elif node.kind == "name" and str(node.token) in reads:
                continue
            elif node.kind == "name" and str(node.token) not in {o.name for o in out.operands}:
                out.operands.append(self._operand(node.token))
        if tok is not None and needs_saturate(dtype) and not (ast.kind == "call" and str(ast.token) == "saturate"):
            raise self.b.error(dtype, f"the output '{tok}' is {dtype}: its value is converted with saturation; "
                                      f"write {tok} = saturate(...)")

    def _call(self, node: epi.Node, outermost: bool, dtype=None) -> None:
        name = str(node.token)
        dtype = dtype or self.c.dtype
        if name == "amax":
            raise self.b.error(node.token, "amax(x) is an output of its own: a second assignment 'm = amax(...)' "
                                           "of a scalar 'm: f32'")
        if name == "saturate" and not outermost:
            raise self.b.error(node.token, f"saturate(x) converts the stored value to {dtype}'s range: "
                                           f"it is the outermost call ({self.c_tok} = saturate(...))")
        arity = epi.FUNCTIONS.get(name)
        if arity is None:
            raise self.b.error(node.token, f"unknown function '{name}'; the functions are "
                                           f"{', '.join(epi.FUNCTIONS)}")
        if len(node.args) != arity:
            spelled = "clamp(x, lo, hi)" if name == "clamp" else f"{name}(x)"
            raise self.b.error(node.token, f"'{name}' takes {arity} argument{'s' if arity > 1 else ''} "
                                           f"({spelled}), not {len(node.args)}")
        if name == "clamp":
            self._clamp_bounds(node.args[1], node.args[2])

    def _clamp_bounds(self, lo: epi.Node, hi: epi.Node) -> None:
        for bound in (lo, hi):
            ok = bound.kind == "number" or (bound.kind == "name" and str(bound.token) in self.k.scalars) or (
                bound.kind == "neg" and bound.args[0].kind == "number")
            if not ok:
                raise self.b.error(bound.token, "clamp's bounds are numbers or scalars (clamp(x, lo, hi))")
        values = [_literal(x) for x in (lo, hi)]
        if None not in values and values[0] > values[1]:
            raise self.b.error(hi.token, f"clamp's lower bound {values[0]:g} is above its upper bound {values[1]:g}")

    def _operand(self, tok: Token) -> Operand:
        name = str(tok)
        if name in self.k.scalars:
            self.b._scale(tok, self.etype)  # declared with the epilogue's type
            return Operand(name, tok, "", self.k.scalars[name][1])
        if name not in self.k.tensors:
            what = "a dim" if name in self.k.dims else "not declared"
            raise self.b.error(tok, f"'{name}' is {what}; an epilogue reads scalars and matrices or vectors "
                                    "of the output's dims")
        t = self.k.tensors[name]
        if any(q != 1 for q in t.divs):
            raise self.b.error(tok, f"'{name}' is a scale matrix; it scales an operand ('A scaled {name}')")
        if t.dtype not in EPILOGUE_ELEMENT_TYPES:
            raise self.b.error(tok, f"'{name}' is {t.dtype}; an epilogue operand is {', '.join(EPILOGUE_ELEMENT_TYPES)}")
        return Operand(name, tok, self._axes(tok, t), t.dtype)

    def _axes(self, tok: Token, t) -> str:
        """Which of the output's axes the operand runs along, by dim name."""
        m, n = (str(d) for d in self.c.dims)
        dims = [str(d) for d in t.dims]
        shape = f"[{', '.join(dims)}]"
        wanted = f"[{m}, {n}] (element-wise), [{m}] (one value a row) or [{n}] (one value a column)"
        if len(dims) == 2:
            if dims != [m, n]:
                raise self.b.error(tok, f"'{tok}' is {shape}; an epilogue operand is {wanted}")
            if t.col_major:
                raise self.b.error(tok, f"'{tok}' is col_major; an epilogue matrix is row-major, as the output")
            return "mn"
        if m == n and dims[0] == m:
            raise self.b.error(tok, f"'{tok}' is [{m}], and the output is [{m}, {n}]: whether it runs along the rows "
                                    "or the columns cannot be told by name; declare the output's dims apart")
        if dims[0] not in (m, n):
            raise self.b.error(tok, f"'{tok}' is {shape}; an epilogue operand is {wanted}")
        return "m" if dims[0] == m else "n"


def _literal(node: epi.Node) -> float | None:
    if node.kind == "number":
        return float(node.token)
    if node.kind == "neg" and node.args[0].kind == "number":
        return -float(node.args[0].token)
    return None
