"""What a GEMM computes, as host-argument indices: C = alpha * op(A) @ op(B) + beta * C.

A MatmulSpec is read from a gemm.matmul (`spec_from_matmul`) and recorded on the lowered
host function as its `gemm.matmul_spec` attribute (`spec_attr`, read back by
`spec_from_attr`), so that the interpreter's check and the HIP harness know what C
should be after the gemm.matmul is gone.  gemm-to-kernel records it and the matrix-core
passes add the fragment type; gemmc.interp.check reads it.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import arith, func
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, FloatAttr, IntegerAttr, StringAttr, UnitAttr, i64
from xdsl.ir import BlockArgument, SSAValue

from gemmc.support.diagnostics import GemmcError
from gemmc.dialects.gemm import ELEMENT_TYPES, MatmulOp, type_name


@dataclass(frozen=True)
class Scalar:
    """alpha or beta: a host argument (its index) or a constant."""

    arg: int | None = None
    value: float | None = None

    def get(self, args: list) -> float:
        return float(args[self.arg]) if self.arg is not None else float(self.value)


@dataclass(frozen=True)
class MatmulSpec:
    """C = alpha * op(A) @ op(B) + beta * C over host arguments a, b, c."""

    a: int
    b: int
    c: int
    transpose_a: bool = False
    transpose_b: bool = False
    alpha: Scalar | None = None
    beta: Scalar | None = None
    acc: str = "f32"
    # a block-scaled (MX) product: the host arguments of A's and B's E8M0 scales, stored as A and B
    # are with K divided by `block` (gemm.matmul's scales)
    scale_a: int | None = None
    scale_b: int | None = None
    block: int = 32
    # an integer product (acc i32): A's and B's i8 elements are unsigned (u8)
    unsigned_a: bool = False
    unsigned_b: bool = False
    # a fused epilogue: its operands (host argument indices), their axes ("m", "n", "mn", ""),
    # and its ops, one line each (`epilogue_lines`), which the checker evaluates in float64
    epilogue_args: tuple[int, ...] = ()
    epilogue_axes: tuple[str, ...] = ()
    epilogue: tuple[str, ...] = ()
    amax: int | None = None  # the host argument of an amax output (the epilogue's gemm.amax)
    outputs: tuple[int, ...] = ()  # the host arguments of the other outputs (the epilogue's gemm.output)
    # a grouped product: the host argument of its sizes (i32[G]); B is [G, K, N]
    group_sizes: int | None = None

    @property
    def integer(self) -> bool:
        return self.acc == "i32"

    @property
    def grouped(self) -> bool:
        return self.group_sizes is not None

    def mnk(self, args: list) -> tuple[int, int, int]:
        """One matrix's M, N, K (of a batch, the last two dims of each)."""
        m, k = args[self.a].shape[-2:][::-1] if self.transpose_a else args[self.a].shape[-2:]
        n = args[self.c].shape[-1]
        return m, n, k

    def batches(self, args: list) -> int:
        """The batch count: C's leading dim (1 unbatched)."""
        return args[self.c].shape[0] if args[self.c].ndim == 3 else 1


def spec_attr(spec: MatmulSpec) -> DictionaryAttr:
    """The `gemm.matmul_spec` attribute recording `spec` (for lowerings to attach to the host func)."""

    def scalar(s: Scalar):
        if s.arg is not None:
            return IntegerAttr(s.arg, i64)
        if spec.integer:  # a constant of the i32 accumulator (1: the frontend's only integer scale)
            return IntegerAttr(int(s.value), ELEMENT_TYPES[spec.acc]())
        return FloatAttr(s.value, ELEMENT_TYPES[spec.acc]())

    d = {"a": IntegerAttr(spec.a, i64), "b": IntegerAttr(spec.b, i64), "c": IntegerAttr(spec.c, i64),
         "acc_type": ELEMENT_TYPES[spec.acc]()}
    if spec.transpose_a:
        d["transpose_a"] = UnitAttr()
    if spec.transpose_b:
        d["transpose_b"] = UnitAttr()
    for name in ("alpha", "beta"):
        if getattr(spec, name) is not None:
            d[name] = scalar(getattr(spec, name))
    if spec.scale_a is not None and spec.scale_b is not None:
        d["scale_a"], d["scale_b"] = IntegerAttr(spec.scale_a, i64), IntegerAttr(spec.scale_b, i64)
        d["block"] = IntegerAttr(spec.block, i64)
    for name in ("unsigned_a", "unsigned_b"):
        if getattr(spec, name):
            d[name] = UnitAttr()
    if spec.epilogue:
        d["epilogue_args"] = ArrayAttr([IntegerAttr(i, i64) for i in spec.epilogue_args])
        d["epilogue_axes"] = ArrayAttr([StringAttr(x) for x in spec.epilogue_axes])
        d["epilogue"] = ArrayAttr([StringAttr(x) for x in spec.epilogue])
    if spec.amax is not None:
        d["amax"] = IntegerAttr(spec.amax, i64)
    if spec.outputs:
        d["outputs"] = ArrayAttr([IntegerAttr(i, i64) for i in spec.outputs])
    if spec.group_sizes is not None:
        d["group_sizes"] = IntegerAttr(spec.group_sizes, i64)
    return DictionaryAttr(d)


def spec_from_attr(attr: DictionaryAttr) -> MatmulSpec:
    d = attr.data

    def scalar(name):
        v = d.get(name)
        if v is None:
            return None
        if isinstance(v, IntegerAttr) and v.type == i64:
            return Scalar(arg=v.value.data)
        return Scalar(value=float(v.value.data))

    return MatmulSpec(
        d["a"].value.data, d["b"].value.data, d["c"].value.data,
        "transpose_a" in d, "transpose_b" in d, scalar("alpha"), scalar("beta"),
        type_name(d["acc_type"]),
        d["scale_a"].value.data if "scale_a" in d else None, d["scale_b"].value.data if "scale_b" in d else None,
        d["block"].value.data if "block" in d else 32,
        "unsigned_a" in d, "unsigned_b" in d,
        tuple(x.value.data for x in d["epilogue_args"].data) if "epilogue_args" in d else (),
        tuple(x.data for x in d["epilogue_axes"].data) if "epilogue_axes" in d else (),
        tuple(x.data for x in d["epilogue"].data) if "epilogue" in d else (),
        d["amax"].value.data if "amax" in d else None,
        tuple(x.value.data for x in d["outputs"].data) if "outputs" in d else (),
        d["group_sizes"].value.data if "group_sizes" in d else None,
    )


def arg_index(fn: func.FuncOp, v: SSAValue, what: str) -> int:
    if isinstance(v, BlockArgument) and v.block is fn.body.block:
        return v.index
    raise GemmcError(f"check: {what} of @{fn.sym_name.data} is not one of its arguments")


def scalar_of(fn: func.FuncOp, v: SSAValue | None, what: str) -> Scalar | None:
    if v is None:
        return None
    if isinstance(v, BlockArgument):
        return Scalar(arg=arg_index(fn, v, what))
    if isinstance(v.owner, arith.ConstantOp) and isinstance(v.owner.value, FloatAttr | IntegerAttr):
        return Scalar(value=float(v.owner.value.value.data))
    raise GemmcError(f"check: {what} of @{fn.sym_name.data} is neither an argument nor a constant")


def spec_from_matmul(fn: func.FuncOp, op: MatmulOp) -> MatmulSpec:
    return MatmulSpec(
        arg_index(fn, op.a, "A"), arg_index(fn, op.b, "B"), arg_index(fn, op.c, "C"),
        op.transpose_a is not None, op.transpose_b is not None,
        scalar_of(fn, op.alpha, "alpha"), scalar_of(fn, op.beta, "beta"), type_name(op.acc_type),
        arg_index(fn, op.scale_a, "SA") if op.scale_a is not None else None,
        arg_index(fn, op.scale_b, "SB") if op.scale_b is not None else None,
        unsigned_a=op.unsigned_a is not None, unsigned_b=op.unsigned_b is not None,
        epilogue_args=tuple(arg_index(fn, v, "an epilogue operand") for v in op.epilogue_args),
        epilogue_axes=tuple(op.axes()),
        epilogue=epilogue_lines(op) if op.has_epilogue else (),
        amax=arg_index(fn, op.amax, "the amax output") if op.amax is not None else None,
        outputs=tuple(arg_index(fn, v, "an output") for v in op.outputs),
        group_sizes=arg_index(fn, op.group_sizes, "the group sizes") if op.group_sizes is not None else None,
    )


def epilogue_lines(op: MatmulOp) -> tuple[str, ...]:
    """The epilogue region as lines `NAME OPERANDS...`: values numbered 0 (the sum), 1 .. n (the
    operands' elements), then each op's result in order; a constant's line is
    `arith.constant VALUE`, a conversion's ends in its result type (`arith.truncf 3 f16`)."""
    block = op.epilogue.blocks[0]
    number = {v: i for i, v in enumerate(block.args)}
    lines = []
    for inner in block.ops:
        if isinstance(inner, arith.ConstantOp):
            words = [repr(float(inner.value.value.data))]
        else:
            words = [str(number[v]) for v in inner.operands]
            if inner.name in ("arith.extf", "arith.truncf"):
                words.append(type_name(inner.results[0].type))
        lines.append(" ".join([inner.name, *words]))
        for r in inner.results:
            number[r] = len(number)
    return tuple(lines)
