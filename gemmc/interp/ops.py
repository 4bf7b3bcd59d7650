"""arith, math and vector (register) ops on per-lane numpy values.

The same implementations serve the host function (state None: values are scalars,
nothing is counted) and kernels (state set: float ops count as VALU instructions).
Float arithmetic happens in the op's type: float32 for f32, float16 for f16, bf16 in
float32 rounded to bf16 after each op.  numpy computes f16 in float32 and rounds the
result; a float32 intermediate has p' = 24 >= 2p + 2 bits for both f16 (p = 11) and
bf16 (p = 8), so + - * / sqrt rounded twice equal the correctly rounded result
(Figueroa, "When is double rounding innocuous?", 1995).  math.fma is computed in
float64 (which holds the product of two f32 exactly) and rounded once to the type:
a fused multiply-add, up to a rare double rounding for f32 when the sum needs more
than 53 bits.

What each arith op computes is gemmc/support/arith_semantics.py's table, which the cost model's
lane evaluator shares.  Integer ops on per-lane values count as integer VALU instructions; on uniform
values (loop counters, sizes) they are scalar ALU work and are not counted.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.dialects import arith, math, ub, vector
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IntegerAttr,
)
from xdsl.interpreter import Interpreter, InterpreterFunctions, PythonValues, impl, register_impls

from gemmc.support.arith_semantics import (
    CMPF, CMPF_NAMES, CMPI, CMPI_NAMES, FLOAT_BINARY, INT_BINARY, MATH_FUNCTIONS, MATH_VALU_INSTRS,
)
from gemmc.support.arith_semantics import scalar as _scalar
from gemmc.support.arith_semantics import signed as _s
from gemmc.support.arith_semantics import unsigned as _u
from gemmc.interp.common import (
    InterpError, is_vector, np_dtype, round_to, valu_instrs, vector_width, wrap, wrapped_width,
)
from gemmc.interp.state import KernelState, lane_where


@dataclass
class _Counted(InterpreterFunctions):
    state: KernelState | None = None

    def valu(self, op, flops_per_lane: int = 1, instrs: int = 1) -> None:
        """Count a float op as `instrs` VALU instructions per active wave (kernels only)."""
        if self.state is not None:
            self.state.count_valu(vector_width(op.results[0].type), flops_per_lane, instrs)


@dataclass
class ArithFunctions(_Counted):
    @impl(arith.ConstantOp)
    def run_constant(self, interp: Interpreter, op: arith.ConstantOp, args: PythonValues):
        value, t = op.value, op.result.type
        if isinstance(value, IntegerAttr):
            return (round_to(value.value.data, t),)
        if isinstance(value, FloatAttr):
            return (round_to(value.value.data, t),)
        if isinstance(value, DenseIntOrFPElementsAttr):
            data = np.asarray(value.get_values(), dtype=np_dtype(t))
            if data.size == 1:
                data = np.full(vector_width(t), data[0], dtype=data.dtype)
            return (round_to(data.reshape(vector_width(t)), t),)
        raise InterpError(f"arith.constant: unsupported value {value}")

    @impl(arith.CmpiOp)
    def run_cmpi(self, interp: Interpreter, op: arith.CmpiOp, args: PythonValues):
        return _int_binary(CMPI[CMPI_NAMES[op.predicate.value.data]])(self, interp, op, args)

    @impl(arith.CmpfOp)
    def run_cmpf(self, interp: Interpreter, op: arith.CmpfOp, args: PythonValues):
        self.valu(op, 0)
        return (_scalar(CMPF[CMPF_NAMES[op.predicate.value.data]](*args)),)

    @impl(arith.SelectOp)
    def run_select(self, interp: Interpreter, op: arith.SelectOp, args: PythonValues):
        cond, a, b = args
        vec = is_vector(op.result.type) and not is_vector(op.cond.type)
        return (_scalar(lane_where(cond, a, b, vec)),)

    @impl(arith.NegfOp)
    def run_negf(self, interp: Interpreter, op: arith.NegfOp, args: PythonValues):
        self.valu(op)
        return (np.negative(args[0]),)

    @impl(arith.ExtFOp)
    def run_extf(self, interp: Interpreter, op: arith.ExtFOp, args: PythonValues):
        self.valu(op, 0)
        return (round_to(args[0], op.result.type),)

    @impl(arith.TruncFOp)
    def run_truncf(self, interp: Interpreter, op: arith.TruncFOp, args: PythonValues):
        self.valu(op, 0, valu_instrs(op, self.state.arch if self.state is not None else None))
        return (round_to(args[0], op.result.type),)

    @impl(arith.SIToFPOp)
    def run_sitofp(self, interp: Interpreter, op, args: PythonValues):
        self.valu(op, 0)
        return (round_to(np.asarray(args[0], dtype=np.float64), op.result.type),)

    @impl(arith.UIToFPOp)
    def run_uitofp(self, interp: Interpreter, op, args: PythonValues):
        self.valu(op, 0)
        return (round_to(_u(args[0]).astype(np.float64), op.result.type),)

    @impl(arith.FPToSIOp)
    def run_fptosi(self, interp: Interpreter, op, args: PythonValues):
        self.valu(op, 0)
        return (_s(np.trunc(args[0])),)

    @impl(arith.IndexCastOp)
    def run_index_cast(self, interp: Interpreter, op, args: PythonValues):
        return (round_to(args[0], op.result.type),)

    @impl(arith.ExtSIOp)
    def run_extsi(self, interp: Interpreter, op, args: PythonValues):
        """The operand's N bits sign-extended (it is held signed: wrap is the identity on it)."""
        bits = wrapped_width(op.operands[0].type)
        x = wrap(args[0], bits) if bits is not None else args[0]
        return (round_to(_scalar(x), op.result.type),)

    @impl(arith.ExtUIOp)
    def run_extui(self, interp: Interpreter, op, args: PythonValues):
        """The operand's N bits zero-extended: a u8 held as -56 is 200."""
        bits = wrapped_width(op.operands[0].type)
        x = np.bitwise_and(np.asarray(args[0], dtype=np.int64), (1 << bits) - 1) if bits is not None else args[0]
        return (round_to(_scalar(x), op.result.type),)

    @impl(arith.TruncIOp)
    def run_trunci(self, interp: Interpreter, op, args: PythonValues):
        x = args[0]
        if np_dtype(op.result.type) == np.bool_:
            x = np.bitwise_and(x, 1)
        return (round_to(x, op.result.type),)


def _int_binary(fn):
    def run(self, interp: Interpreter, op, args: PythonValues):
        result = _scalar(fn(*args))
        if wrapped_width(op.results[0].type) is not None:  # i32 arithmetic wraps around
            result = round_to(result, op.results[0].type)
        if self.state is not None and np.ndim(result):
            self.state.stats.valu_int_instrs += self.state.active_counts()[1]
        return (result,)

    return run


def _float_binary(fn):
    def run(self, interp: Interpreter, op, args: PythonValues):
        self.valu(op, 1, MATH_VALU_INSTRS.get(type(op), 1))  # a division is expanded
        return (round_to(fn(*args), op.result.type),)

    return run


for _op, _fn in INT_BINARY.items():
    setattr(ArithFunctions, f"run_{_op.__name__}", impl(_op)(_int_binary(_fn)))
for _op, _fn in FLOAT_BINARY.items():
    setattr(ArithFunctions, f"run_{_op.__name__}", impl(_op)(_float_binary(_fn)))
register_impls(ArithFunctions)


def _fma(op, a, b, c):
    """a * b + c with one rounding to the op's type (float64 holds the product exactly)."""
    return round_to(np.multiply(a, b, dtype=np.float64) + c, op.results[0].type)


@dataclass
class MathFunctions(_Counted):
    @impl(math.FmaOp)
    def run_fma(self, interp: Interpreter, op: math.FmaOp, args: PythonValues):
        self.valu(op, 2)
        return (_fma(op, *args),)

    @impl(math.RoundEvenOp)
    def run_roundeven(self, interp: Interpreter, op, args: PythonValues):
        self.valu(op, 0)
        return (np.rint(args[0]),)  # halves to even, as v_rndne_f32

    @impl(math.AbsFOp)
    def run_absf(self, interp: Interpreter, op, args: PythonValues):
        self.valu(op)
        return (np.abs(args[0]),)

    @impl(math.SqrtOp)
    def run_sqrt(self, interp: Interpreter, op, args: PythonValues):
        self.valu(op)
        return (round_to(np.sqrt(args[0]), op.result.type),)


def _math_function(fn, instrs: int):
    def run(self, interp: Interpreter, op, args: PythonValues):
        self.valu(op, 1, instrs)
        with np.errstate(over="ignore"):
            return (round_to(fn(args[0]), op.result.type),)

    return run


for _op, _fn in MATH_FUNCTIONS.items():
    setattr(MathFunctions, f"run_{_op.__name__}", impl(_op)(_math_function(_fn, MATH_VALU_INSTRS[_op])))
register_impls(MathFunctions)


@register_impls
@dataclass
class VectorFunctions(_Counted):
    """1-D vectors in registers: a per-lane vector<w x T> is an (L, w) array, a uniform one (w,)."""

    @impl(vector.BroadcastOp)
    def run_broadcast(self, interp: Interpreter, op: vector.BroadcastOp, args: PythonValues):
        (x,) = args
        w = vector_width(op.vector.type)
        if is_vector(op.source.type):
            return (x,)
        if np.ndim(x) == 0:
            return (np.full(w, x, dtype=np_dtype(op.vector.type)),)
        return (np.repeat(x[:, None], w, axis=1),)

    @impl(vector.ExtractOp)
    def run_extract(self, interp: Interpreter, op: vector.ExtractOp, args: PythonValues):
        v, *dynamic = args
        (pos,) = self._positions(op, dynamic)
        if np.ndim(pos) == 0:
            return (_scalar(v[..., int(pos)]),)
        v = np.broadcast_to(v, (len(pos), v.shape[-1]))
        return (np.take_along_axis(v, np.asarray(pos)[:, None], axis=1)[:, 0],)

    @impl(vector.InsertOp)
    def run_insert(self, interp: Interpreter, op: vector.InsertOp, args: PythonValues):
        src, dest, *dynamic = args
        (pos,) = self._positions(op, dynamic)
        if np.ndim(pos) != 0:
            raise InterpError("vector.insert at a per-lane position is not supported")
        shape = np.broadcast_shapes(np.shape(dest), np.shape(src) + (1,) if np.ndim(src) else ())
        out = np.array(np.broadcast_to(dest, shape))
        out[..., int(pos)] = src
        return (out,)

    @impl(vector.ShuffleOp)
    def run_shuffle(self, interp: Interpreter, op: vector.ShuffleOp, args: PythonValues):
        """Elements of v1 then v2 picked by the mask (1-D: RDNA4's two-run fragments)."""
        if len(op.result.type.get_shape()) != 1 or len(op.v1.type.get_shape()) != 1:
            raise InterpError(f"{op.name}: only 1-D vectors are supported")
        v1, v2 = args
        lanes = np.broadcast_shapes(np.shape(v1)[:-1], np.shape(v2)[:-1])
        both = np.concatenate([np.broadcast_to(v1, lanes + np.shape(v1)[-1:]),
                               np.broadcast_to(v2, lanes + np.shape(v2)[-1:])], axis=-1)
        mask = list(op.mask.get_values())
        if min(mask) < 0:
            raise InterpError(f"{op.name}: undefined (-1) mask elements are not supported")
        return (both[..., mask],)

    @impl(vector.FMAOp)
    def run_fma(self, interp: Interpreter, op: vector.FMAOp, args: PythonValues):
        self.valu(op, 2)
        return (_fma(op, *args),)

    @staticmethod
    def _positions(op, dynamic):
        dyn = iter(dynamic)
        out = [next(dyn) if p < 0 else p for p in op.static_position.get_values()]
        if len(out) != 1:
            raise InterpError(f"{op.name}: only 1-D vectors are supported")
        return out


@register_impls
@dataclass
class UbFunctions(InterpreterFunctions):
    """ub.poison (promote-private's value of an element read before it is written): NaN for
    floats, so that a result which depends on it shows up in the check against numpy."""

    @impl(ub.PoisonOp)
    def run_poison(self, interp: Interpreter, op: ub.PoisonOp, args: PythonValues):
        t = op.result.type
        dtype = np_dtype(t)
        fill = np.nan if np.issubdtype(dtype, np.floating) else 0
        if is_vector(t):
            return (np.full(vector_width(t), fill, dtype=dtype),)
        return (dtype.type(fill),)
