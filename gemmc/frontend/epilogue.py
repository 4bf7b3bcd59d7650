"""The assigned expression of a .gemm kernel: its product and the fused epilogue around it.

The parser's tree (gemm.lark's `expr`) becomes a small AST here; `blas_form` recognizes the
plain `alpha * A @ B + beta * C` (gemm.matmul's alpha and beta), and `EpilogueEmitter` writes any
other expression as gemm.matmul's epilogue region: the product sum and one element of each
broadcast operand in, arith and math ops in the accumulator type, the stored value out
(docs/language.md, "Fused epilogues", states the rounding points).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from lark import Token, Tree
from xdsl.builder import Builder
from xdsl.dialects import arith
from xdsl.dialects import math as xmath
from xdsl.dialects.builtin import Float16Type, Float32Type, FloatAttr
from xdsl.ir import Attribute, Block, SSAValue
from xdsl.rewriter import InsertPoint

from gemmc.dialects.gemm import AmaxOp, OutputOp, YieldOp


@dataclass(frozen=True)
class Node:
    """An expression node: kind is product, number, name, add, sub, mul, neg or call."""

    kind: str
    token: Token  # where it is written (the operator's, the function's or the leaf's token)
    args: tuple = ()
    tree: Tree | None = None  # a product's parse tree


def to_ast(tree: Tree | Token) -> Node:
    kind = tree.data if isinstance(tree, Tree) else None
    if kind == "product":
        return Node("product", tree.children[0].children[0], tree=tree)
    if kind in ("number", "name"):
        return Node(kind, tree.children[0])
    if kind in ("add", "sub", "mul"):
        left, op, right = tree.children
        return Node(kind, op, (to_ast(left), to_ast(right)))
    if kind == "neg":
        op, x = tree.children
        return Node("neg", op, (to_ast(x),))
    if kind == "call":
        name, *args = tree.children
        return Node("call", name, tuple(to_ast(a) for a in args))
    raise ValueError(f"unexpected expression node {tree!r}")


def walk(node: Node):
    yield node
    for a in node.args:
        yield from walk(a)


def products(node: Node) -> list[Node]:
    return [n for n in walk(node) if n.kind == "product"]


def blas_form(node: Node, output: str, is_scale: Callable[[Node], bool]) -> tuple[Token | None, Token | None] | None:
    """(alpha, beta) of `[alpha *] A @ B [+ [beta *] C]`, C the output and each scale a number
    or a name `is_scale` accepts (None: not written; beta of `+ C` is ONE); None for any
    other expression, which is a fused epilogue."""
    def scaled(n: Node, inner: Callable[[Node], bool]) -> tuple[bool, Token | None]:
        if inner(n):
            return True, None
        if n.kind == "mul" and is_scale(n.args[0]) and inner(n.args[1]):
            return True, n.args[0].token
        return False, None

    is_product = lambda n: n.kind == "product"  # noqa: E731
    is_output = lambda n: n.kind == "name" and str(n.token) == output  # noqa: E731
    ok, alpha = scaled(node, is_product)
    if ok:
        return alpha, None
    if node.kind != "add":
        return None
    ok_p, alpha = scaled(node.args[0], is_product)
    ok_c, beta = scaled(node.args[1], is_output)
    if ok_p and ok_c:
        return alpha, beta if beta is not None else ONE
    return None


ONE = Token("NUMBER", "1.0")

# The functions, by name: their arity and what they compute (docs/language.md).
FUNCTIONS = {"relu": 1, "gelu": 1, "gelu_tanh": 1, "silu": 1, "sigmoid": 1, "tanh": 1, "abs": 1, "clamp": 3,
             "saturate": 1}
_SQRT1_2 = 1.0 / math.sqrt(2.0)
_SQRT_2_PI = math.sqrt(2.0 / math.pi)
_GELU_TANH_CUBIC = 0.044715


def _convert(v: SSAValue, t: Attribute):
    """A float conversion between two float types (f16 <-> bf16 not needed: the epilogue's type is f32
    or f16, and an output read back is rounded to its own type first)."""
    return arith.TruncFOp(v, t) if v.type.bitwidth > t.bitwidth else arith.ExtFOp(v, t)


class EpilogueEmitter:
    """Writes an expression as ops at the end of `block`: `leaf(node)` gives the value of a
    product, name or number node in the epilogue's type `acc` (the accumulator type; f32 for an
    integer product's requantization).  `saturation` is saturate's range, C's finite values
    (None: C has no saturate); `result`, where it differs from `acc`, the integer type the value
    is yielded in (rounded to nearest even, then converted: in range, saturate made it so)."""

    def __init__(self, block: Block, acc: Attribute, leaf: Callable[[Node, Builder], SSAValue],
                 saturation: tuple[float, float] | None = None, result: Attribute | None = None):
        self.b = Builder(InsertPoint.at_end(block))
        self.acc = acc
        self.leaf = leaf
        self.saturation = saturation
        self.result = result or acc
        self.reads: dict[str, tuple] = {}  # outputs written before, by name: (value, its output's type)

    def finish(self, node: Node) -> None:
        self.b.insert(YieldOp(self.stored(node)))

    def stored(self, node: Node) -> SSAValue:
        """The expression's value as the store takes it (in the yield's type)."""
        v = self.value(node)
        if self.result != self.acc:  # requantization: the nearest integer, ties to even; in range
            v = self._op(arith.FPToSIOp(self._op(xmath.RoundEvenOp(v)), self.result))
        return v

    def output(self, node: Node, name: str, element: Attribute) -> SSAValue:
        """gemm.output of the expression (the next output's value); a later expression reading `name`
        reads it rounded to the output's `element` type (its stored value), back in the epilogue's."""
        v = self.stored(node)
        self.b.insert(OutputOp(v))
        self.remember(name, v, element)
        return v

    def remember(self, name: str, v: SSAValue, element: Attribute) -> None:
        """A later expression reads output `name` as stored: v rounded to `element`, back in the
        epilogue's type (an integer output, requantized, is not read back: the parser refuses it)."""
        if v.type == self.acc:
            self.reads[name] = (v, element)  # converted where first read (`_read`)

    def _read(self, name: str) -> SSAValue:
        v, element = self.reads[name]
        if isinstance(v, tuple) or element is None:
            return v
        back = v if v.type == element else self._op(_convert(v, element))
        if back.type != self.acc and back.type.bitwidth == self.acc.bitwidth:  # bf16 into f16: through f32
            back = self._op(arith.ExtFOp(back, Float32Type()))
        back = back if back.type == self.acc else self._op(_convert(back, self.acc))
        self.reads[name] = (back, None)  # the one conversion, read again
        return back

    def amax(self, node: Node) -> None:
        """gemm.amax of the expression's value, widened to f32 (the amax output's type)."""
        v = self.value(node)
        if v.type != Float32Type():
            v = self._op(arith.ExtFOp(v, Float32Type()))
        self.b.insert(AmaxOp(v))

    def value(self, node: Node) -> SSAValue:
        if node.kind == "name" and str(node.token) in self.reads:
            return self._read(str(node.token))
        if node.kind in ("product", "name", "number"):
            return self.leaf(node, self.b)
        args = [self.value(a) for a in node.args]
        if node.kind == "add":
            return self._op(arith.AddfOp(*args))
        if node.kind == "sub":
            return self._op(arith.SubfOp(*args))
        if node.kind == "mul":
            return self._op(arith.MulfOp(*args))
        if node.kind == "neg":
            return self._op(arith.NegfOp(args[0]))
        return getattr(self, f"_{node.token}")(*args)

    def constant(self, v: float) -> SSAValue:
        return self._op(arith.ConstantOp(FloatAttr(v, self.acc)))

    def _op(self, op) -> SSAValue:
        self.b.insert(op)
        return op.results[0]

    def _transcendental(self, cls, x: SSAValue) -> SSAValue:
        """erf, tanh and exp: in f32 for an f16 accumulator (HIP's are f32 functions), rounded back."""
        if isinstance(self.acc, Float16Type):
            wide = self._op(cls(self._op(arith.ExtFOp(x, Float32Type()))))
            return self._op(arith.TruncFOp(wide, self.acc))
        return self._op(cls(x))

    # -- the functions: exact definitions in the ops of arith and math ----------------------

    def _relu(self, x):  # max(x, 0); NaN stays NaN (maximumf)
        return self._op(arith.MaximumfOp(x, self.constant(0.0)))

    def _abs(self, x):
        return self._op(xmath.AbsFOp(x))

    def _tanh(self, x):
        return self._transcendental(xmath.TanhOp, x)

    def _sigmoid(self, x):  # 1 / (1 + exp(-x))
        e = self._transcendental(xmath.ExpOp, self._op(arith.NegfOp(x)))
        return self._op(arith.DivfOp(self.constant(1.0), self._op(arith.AddfOp(self.constant(1.0), e))))

    def _silu(self, x):  # x * sigmoid(x) = x / (1 + exp(-x))
        e = self._transcendental(xmath.ExpOp, self._op(arith.NegfOp(x)))
        return self._op(arith.DivfOp(x, self._op(arith.AddfOp(self.constant(1.0), e))))

    def _gelu(self, x):  # x / 2 (1 + erf(x / sqrt 2))
        erf = self._transcendental(xmath.ErfOp, self._op(arith.MulfOp(x, self.constant(_SQRT1_2))))
        half_x = self._op(arith.MulfOp(self.constant(0.5), x))
        return self._op(arith.MulfOp(half_x, self._op(arith.AddfOp(self.constant(1.0), erf))))

    def _gelu_tanh(self, x):  # x / 2 (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3)))
        x3 = self._op(arith.MulfOp(self._op(arith.MulfOp(x, x)), x))
        inner = self._op(arith.AddfOp(x, self._op(arith.MulfOp(self.constant(_GELU_TANH_CUBIC), x3))))
        t = self._transcendental(xmath.TanhOp, self._op(arith.MulfOp(self.constant(_SQRT_2_PI), inner)))
        half_x = self._op(arith.MulfOp(self.constant(0.5), x))
        return self._op(arith.MulfOp(half_x, self._op(arith.AddfOp(self.constant(1.0), t))))

    def _clamp(self, x, lo, hi):  # min(max(x, lo), hi)
        return self._op(arith.MinimumfOp(self._op(arith.MaximumfOp(x, lo)), hi))

    def _saturate(self, x):  # clamp to C's finite range: +-inf to +-max, NaN stays NaN (maximumf)
        assert self.saturation is not None  # the checker allows saturate only where C has a range
        lo, hi = (self.constant(v) for v in self.saturation)
        return self._clamp(x, lo, hi)
