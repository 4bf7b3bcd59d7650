"""HIP printers of the arith and math dialects: C operators, casts, literals, clang builtins.

    arith.addi      -> a + b
    arith.cmpf ult  -> !(x >= y)
    arith.extf      -> (float)h; an FP8 byte by __builtin_amdgcn_cvt_f32_fp8, an E8M0 scale by its bits
    arith.constant  -> a literal, or `const int BK = 16;` where the integer has a name
    math.fma        -> __builtin_fmaf(a, b, c)

Signed and unsigned index ops print alike (index values are non-negative ints); unsigned ops
on integers cast their operands to the unsigned C type.
"""

from __future__ import annotations

import math
import re

from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    Float8E4M3FNType,
    Float8E4M3FNUZType,
    Float8E5M2FNUZType,
    Float8E5M2Type,
    Float32Type,
    Float64Type,
    Float16Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    VectorType,
)
from xdsl.ir import Attribute, Operation, SSAValue

from gemmc.emit.c_text import (
    ADD, BAND, BOR, BXOR, COND, EQ, LAND, LOR, MUL, REL, SHIFT, UNARY,
    Expr, MemrefView, binary, call, cast, float_literal, int_literal, int_literal_value, lane,
)
from gemmc.emit.c_types import (
    FLOAT_C, UINT_C, element_type_of, is_byte_float, is_e8m0, is_fp8, is_int4, scalar_ctype,
)
from gemmc.emit.function_printer import FunctionPrinter, op_printer
from gemmc.emit.ir_access import emit_error, ir_prop
from gemmc.emit.math_helpers import HELPERS as MATH_HELPERS

# FP8 bytes to float and f32 to FP8 by the target's conversion instructions (gemmc.emit.c_types).
_FP8_TO_F32 = {Float8E4M3FNUZType: "__builtin_amdgcn_cvt_f32_fp8", Float8E4M3FNType: "__builtin_amdgcn_cvt_f32_fp8",
               Float8E5M2FNUZType: "__builtin_amdgcn_cvt_f32_bf8", Float8E5M2Type: "__builtin_amdgcn_cvt_f32_bf8"}
_F32_TO_FP8 = {Float8E4M3FNUZType: "__builtin_amdgcn_cvt_pk_fp8_f32", Float8E4M3FNType: "__builtin_amdgcn_cvt_pk_fp8_f32",
               Float8E5M2FNUZType: "__builtin_amdgcn_cvt_pk_bf8_f32", Float8E5M2Type: "__builtin_amdgcn_cvt_pk_bf8_f32"}


# E8M0 scales (f8E8M0FNU, the block-scaled formats' scale) are their bytes too, but their value
# is no C conversion of the byte: code c is 2^(c - 127) (c in 0..254: 2^-127 .. 2^127, code 0 a
# float subnormal) and 255 is NaN (ml_dtypes.float8_e8m0fnu, what the interpreter computes with).
# The float is built from its bits: c << 23 is 2^(c - 127) for c in 1..254, the quiet bit
# 0x00400000 makes code 0 2^-127 and code 255 (0x7f800000, Inf) NaN 0x7fc00000.  Plain C and
# __builtin_bit_cast: clang (AMD) and nvcc compile it alike.  tests/test_mx.py runs it on all codes.
E8M0_HELPER_NAME = "gemmc_e8m0_to_float"
E8M0_HELPER = [
    "// An E8M0 scale's value (its byte c): 2^(c - 127), and NaN for 255, built as the float's bits.",
    f"__device__ inline float {E8M0_HELPER_NAME}(unsigned char c)",
    "{",
    "    return __builtin_bit_cast(float, (unsigned)c << 23 | (c == 0 || c == 255 ? 0x00400000u : 0u));",
    "}",
]


def _is_index_like(t: Attribute) -> bool:
    return isinstance(t, IndexType)


# -- arith ------------------------------------------------------------------------------

_INT_BINARY = {
    "arith.addi": ("+", ADD), "arith.subi": ("-", ADD), "arith.muli": ("*", MUL),
    "arith.divsi": ("/", MUL), "arith.divui": ("/", MUL), "arith.remsi": ("%", MUL),
    "arith.remui": ("%", MUL), "arith.floordivsi": ("/", MUL),
    "arith.andi": ("&", BAND), "arith.ori": ("|", BOR), "arith.xori": ("^", BXOR),
    "arith.shli": ("<<", SHIFT), "arith.shrsi": (">>", SHIFT), "arith.shrui": (">>", SHIFT),
}
_UNSIGNED_INT_OPS = {"arith.divui", "arith.remui", "arith.shrui"}
_FLOAT_BINARY = {
    "arith.addf": ("+", ADD), "arith.subf": ("-", ADD), "arith.mulf": ("*", MUL),
    "arith.divf": ("/", MUL),
}


def _as_unsigned(p: FunctionPrinter, v: SSAValue, e: Expr) -> Expr:
    t = v.type
    if isinstance(t, IntegerType) and t.width.data in UINT_C:
        p.emitter.used_types.add(UINT_C[t.width.data])
        return cast(UINT_C[t.width.data], e)
    return e  # index values are non-negative ints


@op_printer(*_INT_BINARY, pure=True)
def _print_int_binary(p: FunctionPrinter, op: Operation) -> None:
    sym, prec = _INT_BINARY[op.name]
    x, y = op.operands
    lhs, rhs = p.value(x), p.value(y)
    if op.name in _UNSIGNED_INT_OPS:
        lhs, rhs = _as_unsigned(p, x, lhs), _as_unsigned(p, y, rhs)
    if isinstance(x.type, IntegerType) and x.type.width.data == 1 and sym in ("&", "|"):
        sym, prec = ("&&", LAND) if sym == "&" else ("||", LOR)
    if op.name in _WRAPPING_INT_OPS and _wraps(x.type):
        # i32's + - * wrap around (MLIR's arith, two's complement): computed in uint32_t, whose
        # arithmetic is modulo 2^32, and converted back (modulo too: C++20), never signed overflow (UB)
        lhs, rhs = cast("uint32_t", lhs), cast("uint32_t", rhs)
        p.emitter.used_types.add("uint32_t")
        e = cast(scalar_ctype(x.type, op), binary(lhs, sym, rhs, prec))
        p.define(op.results[0], e)
        return
    e = binary(lhs, sym, rhs, prec)
    if op.name in _UNSIGNED_INT_OPS and not _is_index_like(x.type):
        e = cast(scalar_ctype(x.type, op), e)
    p.define(op.results[0], e)


_WRAPPING_INT_OPS = {"arith.addi", "arith.subi", "arith.muli"}


def _wraps(t: Attribute) -> bool:
    """A scalar i32: its + - * wrap (narrower integers are promoted to int and cannot overflow it;
    `index` is the kernels' int, which gemmc keeps below 2^31)."""
    return isinstance(t, IntegerType) and t.width.data == 32


@op_printer("arith.ceildivui", "arith.ceildivsi", pure=True)
def _print_ceildiv(p: FunctionPrinter, op: Operation) -> None:
    x, y = (p.value(v) for v in op.operands)
    literal = int_literal_value(y)
    if literal is not None and literal > 1:
        num = binary(x, "+", Expr(str(literal - 1)), ADD)
    else:
        num = binary(binary(x, "+", y, ADD), "-", Expr("1"), ADD)
    p.define(op.results[0], binary(num, "/", y, MUL))


@op_printer("arith.minsi", "arith.minui", "arith.maxsi", "arith.maxui", pure=True)
def _print_int_minmax(p: FunctionPrinter, op: Operation) -> None:
    x, y = (p.value(v) for v in op.operands)
    cmp = "<" if "min" in op.name else ">"
    cond = binary(x, cmp, y, REL)
    p.define(op.results[0], Expr(f"{cond.at(LOR)} ? {x.at(COND + 1)} : {y.at(COND)}", COND))


@op_printer(*_FLOAT_BINARY, pure=True)
def _print_float_binary(p: FunctionPrinter, op: Operation) -> None:
    sym, prec = _FLOAT_BINARY[op.name]
    x, y = op.operands
    p.define(op.results[0], binary(p.value(x), sym, p.value(y), prec))


@op_printer("arith.negf", pure=True)
def _print_negf(p: FunctionPrinter, op: Operation) -> None:
    p.define(op.results[0], Expr(f"-{p.value(op.operands[0]).at(UNARY)}", UNARY))


_FLOAT_MINMAX = {
    "arith.maximumf": "__builtin_elementwise_maximum",
    "arith.minimumf": "__builtin_elementwise_minimum",
    "arith.maxnumf": "__builtin_elementwise_max",
    "arith.minnumf": "__builtin_elementwise_min",
}


# nvcc has no __builtin_elementwise_*: f32 maximumf / minimumf as CUDA's fmaxf / fminf, which ignore
# a NaN, with the NaN put back (x + y is NaN where either is), as MLIR's maximumf propagates it
_CUDA_MINMAX = {
    "arith.maximumf": ("gemmc_maximumf", "fmaxf"), "arith.minimumf": ("gemmc_minimumf", "fminf"),
}


def _cuda_minmax(name: str, fn: str) -> list[str]:
    return [f"__device__ inline float {name}(float x, float y)",
            "{", f"    return (x != x || y != y) ? x + y : {fn}(x, y);", "}"]


@op_printer(*_FLOAT_MINMAX, pure=True)
def _print_float_minmax(p: FunctionPrinter, op: Operation) -> None:
    x, y = (p.value(v) for v in op.operands)
    t = op.results[0].type
    if p.emitter.arch.vendor == "nvidia" and isinstance(t, Float32Type) and op.name in _CUDA_MINMAX:
        name, fn = _CUDA_MINMAX[op.name]
        p.define(op.results[0], call(p.emitter.helper(name, _cuda_minmax(name, fn), {}), x, y))
        return
    p.define(op.results[0], call(_FLOAT_MINMAX[op.name], x, y))


_CMPI = {0: "==", 1: "!=", 2: "<", 3: "<=", 4: ">", 5: ">=", 6: "<", 7: "<=", 8: ">", 9: ">="}
_CMPF = {1: "==", 2: ">", 3: ">=", 4: "<", 5: "<=", 14: "!="}
_CMPF_UNORDERED = {9: "<=", 10: "<", 11: ">=", 12: ">"}  # ugt, uge, ult, ule


@op_printer("arith.cmpi", pure=True)
def _print_cmpi(p: FunctionPrinter, op: Operation) -> None:
    pred = op.properties["predicate"].value.data  # type: ignore[union-attr]
    x, y = op.operands
    lhs, rhs = p.value(x), p.value(y)
    if pred >= 6:  # unsigned predicates
        lhs, rhs = _as_unsigned(p, x, lhs), _as_unsigned(p, y, rhs)
    sym = _CMPI[pred]
    p.define(op.results[0], binary(lhs, sym, rhs, EQ if sym in ("==", "!=") else REL))


@op_printer("arith.cmpf", pure=True)
def _print_cmpf(p: FunctionPrinter, op: Operation) -> None:
    pred = op.properties["predicate"].value.data  # type: ignore[union-attr]
    x, y = (p.value(v) for v in op.operands)
    if pred == 0:
        e = Expr("false")
    elif pred == 15:
        e = Expr("true")
    elif pred in _CMPF:  # ordered predicates, and une, are C's own comparisons
        sym = _CMPF[pred]
        e = binary(x, sym, y, EQ if sym in ("==", "!=") else REL)
    elif pred in _CMPF_UNORDERED:  # unordered-or-X: not (ordered opposite of X)
        e = Expr(f"!({binary(x, _CMPF_UNORDERED[pred], y, REL).text})", UNARY)
    else:
        raise p.unsupported(op, f"arith.cmpf predicate {pred}")
    p.define(op.results[0], e)


@op_printer("arith.select", pure=True)
def _print_select(p: FunctionPrinter, op: Operation) -> None:
    c, x, y = op.operands
    if isinstance(x.type, MemRefType):
        xv, yv = p.memref(x, op), p.memref(y, op)
        e = Expr(f"{p.value(c).at(LOR)} ? {xv.base.at(COND + 1)} : {yv.base.at(COND)}", COND)
        p.memrefs[op.results[0]] = MemrefView(Expr(f"({e.text})"), xv.kind, xv.sizes, x.type)
        return
    e = Expr(f"{p.value(c).at(LOR)} ? {p.value(x).at(COND + 1)} : {p.value(y).at(COND)}", COND)
    p.define(op.results[0], e)


@op_printer("arith.extf", "arith.truncf", "arith.sitofp", "arith.uitofp", "arith.fptosi",
            "arith.fptoui", "arith.index_cast", "arith.index_castui", "arith.extsi",
            "arith.extui", "arith.trunci", pure=True)
def _print_conversion(p: FunctionPrinter, op: Operation) -> None:
    (x,) = op.operands
    to = op.results[0].type
    e = p.value(x)
    if is_e8m0(element_type_of(x.type)) or is_e8m0(element_type_of(to)):
        # a C cast would convert the byte (code 127 to 127.0f, not 1.0f)
        if op.name != "arith.extf" or isinstance(x.type, VectorType) or type(to) not in FLOAT_C:
            raise emit_error(op, f"{op.name} {x.type} -> {to} is not emitted as HIP (E8M0 scales are only converted "
                                 "to f32, f64, f16 or bf16, one scalar at a time)")
        e = call(p.emitter.helper(E8M0_HELPER_NAME, E8M0_HELPER, {}), e)
        to_c = p.type_name(to, op)
        p.define(op.results[0], e if to_c == "float" else cast(to_c, e))
        return
    if op.name in ("arith.extf", "arith.truncf") and (is_fp8(element_type_of(x.type)) or is_fp8(element_type_of(to))):
        e = _fp8_to_float(p, op, x, e)
        to_c = p.type_name(to, op)
        p.define(op.results[0], e if to_c == "float" or op.name == "arith.truncf" else cast(to_c, e))
        return
    if op.name == "arith.extsi" and is_int4(element_type_of(x.type)):
        e = _int4_signed(p, op, x, e)
    if isinstance(to, VectorType):
        e = call("__builtin_convertvector", e, Expr(p.type_name(to, op)))
    else:
        if op.name in ("arith.uitofp", "arith.extui"):
            e = _as_unsigned(p, x, e)
        e = cast(p.type_name(to, op), e)
    p.define(op.results[0], e)


def _int4_signed(p: FunctionPrinter, op: Operation, x: SSAValue, e: Expr) -> Expr:
    """An i4 code (0 .. 15 in an unsigned char, or a vector of them) as its two's-complement value,
    -8 .. 7: (c ^ 8) - 8, in int for a scalar; a vector's in unsigned chars (modulo 256) then
    converted to signed chars, which keep -8 .. 7 through any further widening."""
    flipped = Expr(f"({e.at(BXOR)} ^ 8) - 8", ADD)
    if not isinstance(x.type, VectorType):
        return flipped
    chars = p.type_name(VectorType(IntegerType(8), x.type.get_shape()), op)
    return call("__builtin_convertvector", flipped, Expr(chars))


def _fp8_to_float(p: FunctionPrinter, op: Operation, x: SSAValue, e: Expr) -> Expr:
    """An FP8 scalar (its byte) as float, or f32 vectors of 4k elements as FP8 vectors, by
    the target's conversion instructions; other FP8 conversions are refused at the op."""
    to = op.results[0].type
    if op.name == "arith.truncf" and isinstance(to, VectorType) and to.get_shape()[0] % 4 == 0 \
            and isinstance(x.type.element_type, Float32Type):
        return _f32_to_fp8_vector(p, op, x, e)
    if op.name == "arith.truncf" and not isinstance(x.type, VectorType):
        return _float_to_fp8_scalar(p, op, x, e)
    if op.name == "arith.truncf" or isinstance(x.type, VectorType):
        raise emit_error(op, f"{op.name} {x.type} -> {to} is not emitted as HIP (FP8 scalars are converted to "
                             "and from float, f32 vectors of 4k elements to FP8)")
    _check_fp8_conversion(p, op, x.type)
    if p.emitter.arch.vendor == "nvidia":  # inline PTX (gemmc.emit.nvgpu)
        from gemmc.dialects.gemm import type_name as gemm_type_name
        from gemmc.emit.nvgpu import fp8_to_f32_function, fp8_to_f32_name

        fmt = gemm_type_name(x.type)
        return call(p.emitter.helper(fp8_to_f32_name(fmt), fp8_to_f32_function(fmt), {}), e)
    return call(_FP8_TO_F32[type(x.type)], cast("int", e), Expr("0"))


def _float_to_fp8_scalar(p: FunctionPrinter, op: Operation, x: SSAValue, e: Expr) -> Expr:
    """One float (f32, or a 16-bit float widened to it exactly) to its FP8 byte, nearest even: AMD's
    v_cvt_pk_fp8_f32 / _bf8_f32 (the low byte of the word it writes; not saturating: a fused
    epilogue's saturate has clamped the value to the format's range), sm_90's cvt.rn.satfinite
    (which saturates too, a no-op on the clamped value; NaN stays NaN); a format the arch has no
    instruction for, gemmc/emit/fp8_soft.py's device function (an output's: Arch.output_dtypes)."""
    from gemmc.dialects.gemm import type_name as gemm_type_name

    to = op.results[0].type
    fmt = gemm_type_name(to)
    arch = p.emitter.arch
    if not arch.converts_in_hardware(fmt) and fmt in arch.output_dtypes:  # no instruction: integer VALU ops
        from gemmc.emit.fp8_soft import soft_fp8_function, soft_fp8_name

        return call(p.emitter.helper(soft_fp8_name(fmt), soft_fp8_function(fmt), {}),
                    e if isinstance(x.type, Float32Type) else cast("float", e))
    _check_fp8_conversion(p, op, to)
    if not isinstance(x.type, Float32Type):
        e = cast("float", e)
    if arch.vendor == "nvidia":
        from gemmc.emit.nvgpu import f32_to_fp8_function, f32_to_fp8_name

        return call(p.emitter.helper(f32_to_fp8_name(fmt), f32_to_fp8_function(fmt), {}), e)
    return cast("unsigned char", call(_F32_TO_FP8[type(to)], e, Expr("0.0f"), Expr("0"), Expr("false")))


_FP8_NAMES = ("f8e4m3fnuz", "f8e5m2fnuz", "f8e4m3fn", "f8e5m2")


def _check_fp8_conversion(p: FunctionPrinter, op: Operation, t: Attribute) -> None:
    """The conversion builtins are AMD's and read the arch's FP8 formats only (FNUZ on gfx942,
    OCP on gfx950 and gfx1201), sm_90's inline PTX OCP's (scalars both ways), f32 vectors to FP8
    none (AMD's alone):
    anything else would convert a byte of another format."""
    from gemmc.dialects.gemm import type_name as gemm_type_name

    arch = p.emitter.arch
    vector_out = op.name == "arith.truncf" and isinstance(op.results[0].type, VectorType)
    if (arch.vendor != "amd" and vector_out) or gemm_type_name(t) not in arch.dtypes:
        raise emit_error(op, f"{op.name} on {t} is not emitted as HIP for {arch.name}: its FP8 conversions "
                             f"read {', '.join(n for n in arch.dtypes if n in _FP8_NAMES) or 'no FP8 format'}")


def _f32_to_fp8_vector(p: FunctionPrinter, op: Operation, x: SSAValue, e: Expr) -> Expr:
    """f32 lanes to FP8 bytes, four to a word: v_cvt_pk_fp8_f32 / _bf8_f32 (their builtins,
    without clamp: nearest even, not saturating, as gemmc.target.arch.MatrixInstr.convert states)
    writes two bytes into the low (false) or high (true) half of the word it is given."""
    to = op.results[0].type
    n = to.get_shape()[0]
    pk = _F32_TO_FP8[type(to.element_type)]
    _check_fp8_conversion(p, op, to.element_type)
    lanes = [lane(e, Expr(str(i)), x.type) for i in range(n)]
    words = []
    for w in range(n // 4):
        low = call(pk, lanes[4 * w], lanes[4 * w + 1], Expr("0"), Expr("false"))
        words.append(call(pk, lanes[4 * w + 2], lanes[4 * w + 3], low, Expr("true")))
    if len(words) == 1:
        packed = words[0]
    else:
        packed = Expr(f"{p.type_name(VectorType(IntegerType(32), [n // 4]), op)}{{{', '.join(w.text for w in words)}}}")
    return call("__builtin_bit_cast", Expr(p.type_name(to, op)), packed)


@op_printer("arith.bitcast", pure=True)
def _print_bitcast(p: FunctionPrinter, op: Operation) -> None:
    (x,) = op.operands
    to = p.type_name(op.results[0].type, op)
    p.define(op.results[0], call(f"__builtin_bit_cast", Expr(to), p.value(x)))


@op_printer("arith.constant")
def _print_constant(p: FunctionPrinter, op: Operation) -> None:
    result = op.results[0]
    value = ir_prop(op, "value")
    e = constant_expr(p, value, result.type, op)
    hint = result.name_hint
    named = hint is not None and not _MLIR_CONSTANT_NAME.fullmatch(hint)
    named_int = named and isinstance(result.type, IndexType | IntegerType)
    if named_int and result.uses:
        name = p.names.fresh(result.name_hint)
        p.line(f"const {p.type_name(result.type, op)} {name} = {e.text};")
        e = Expr(name)
    p.values[result] = e


_MLIR_CONSTANT_NAME = re.compile(r"c(st)?[0-9]*(_[A-Za-z0-9]+)*|cst|true|false")
"""The names MLIR's printer makes up for constants (%c0, %c16_i32, %cst_0): not names."""


def constant_expr(p: FunctionPrinter, value: Attribute | None, t: Attribute, op: Operation) -> Expr:
    if isinstance(value, IntegerAttr):
        return int_literal(value.value.data, t)
    if isinstance(value, FloatAttr) and is_byte_float(t):
        return cast("unsigned char", Expr(str(_byte_code(value.value.data, t, op))))
    if isinstance(value, FloatAttr):
        return float_literal(value.value.data, t)
    if isinstance(value, DenseIntOrFPElementsAttr) and isinstance(t, VectorType):
        vname = p.type_name(t, op)
        values = list(value.get_values())
        elem = t.element_type
        if is_byte_float(elem):  # FP8, FP6, FP4 and E8M0 lanes are their codes
            lits = [Expr(str(_byte_code(float(v), elem, op))) for v in values]
        else:
            lits = [
                float_literal(v, elem) if isinstance(v, float) else int_literal(int(v), elem) for v in values
            ]
        if len(set(l.text for l in lits)) == 1:
            return Expr(f"({vname})({lits[0].text})", UNARY)
        return Expr(f"({vname}){{{', '.join(l.text for l in lits)}}}", UNARY)
    raise p.unsupported(op, f"constant {value}")


def _byte_code(v: float, t: Attribute, op: Operation) -> int:
    """The byte that holds value `v` of FP8, FP6, FP4 (one code a byte) or E8M0 type `t`: its
    ml_dtypes code, where the format has `v` exactly (a C literal would be the byte's number)."""
    import numpy as np

    from gemmc.support.arith_semantics import fp8_dtypes
    from gemmc.dialects.gemm import type_name as gemm_type_name

    name = gemm_type_name(t)
    code = np.array([v], np.float64).astype(fp8_dtypes()[name])
    back = float(code.astype(np.float64)[0])
    if not (back == v or (math.isnan(back) and math.isnan(v))):
        raise emit_error(op, f"{name} constant {v} is not emitted as HIP: {name} has no such value")
    return int(code.view(np.uint8)[0])


# -- math -------------------------------------------------------------------------------

_FMA = {Float32Type: "__builtin_fmaf", Float64Type: "__builtin_fma", Float16Type: "__builtin_fmaf16"}
_MATH_UNARY = {
    "math.absf": "fabs", "math.sqrt": "sqrt", "math.exp": "exp", "math.log": "log",
    "math.floor": "floor", "math.ceil": "ceil", "math.trunc": "trunc", "math.round": "round",
    "math.sin": "sin", "math.cos": "cos", "math.tanh": "tanh", "math.erf": "erf",
    "math.roundeven": "rint",  # in the default rounding mode, nearest even: v_rndne_f32
}


_CUDA_MATH = ("erf", "tanh", "exp", "fabs", "rint")


@op_printer("math.fma", "vector.fma", pure=True)
def _print_fma(p: FunctionPrinter, op: Operation) -> None:
    t = op.results[0].type
    fn = _FMA.get(type(t), "__builtin_elementwise_fma")
    p.define(op.results[0], call(fn, *(p.value(v) for v in op.operands)))


@op_printer(*_MATH_UNARY, pure=True)
def _print_math_unary(p: FunctionPrinter, op: Operation) -> None:
    t = op.results[0].type
    base = _MATH_UNARY[op.name]
    if isinstance(t, Float32Type) and op.name in MATH_HELPERS and p.emitter.arch.vendor == "amd":
        name, lines = MATH_HELPERS[op.name]  # no device library: gemmc's own (gemmc.emit.math_helpers)
        fn = p.emitter.helper(name, lines, {})
    elif isinstance(t, Float32Type) and p.emitter.arch.vendor == "nvidia" and base in _CUDA_MATH:
        fn = f"{base}f"  # CUDA's device math library (erff, tanhf, expf, fabsf), which nvcc links
    elif isinstance(t, Float32Type):
        fn = f"__builtin_{base}f"
    elif isinstance(t, Float64Type):
        fn = f"__builtin_{base}"
    elif op.name in ("math.absf", "math.sqrt", "math.floor", "math.ceil", "math.trunc"):
        fn = {"fabs": "__builtin_elementwise_abs"}.get(base, f"__builtin_elementwise_{base}")
    else:
        raise p.unsupported(op, f"{op.name} on {t}")
    p.define(op.results[0], call(fn, p.value(op.operands[0])))


@op_printer("math.rsqrt", pure=True)
def _print_rsqrt(p: FunctionPrinter, op: Operation) -> None:
    t = op.results[0].type
    if not isinstance(t, Float32Type):
        raise p.unsupported(op, f"math.rsqrt on {t}")
    p.define(op.results[0], binary(Expr("1.0f"), "/", call("__builtin_sqrtf", p.value(op.operands[0])), MUL))
