"""A fused epilogue's reference and bound: the declared program in float64, and how far a kernel
that computes it in its accumulator type may be from it, element by element.

The epilogue's ops (gemm.matmul's region, recorded as `MatmulSpec.epilogue` lines) are evaluated
on float64 arrays of C's shape with the functions' exact definitions (erf, tanh, exp of float64).
Beside each value runs a bound on the error of the kernel's value (running error analysis):

    the sum           gamma_acc |A| |B| (+ the fragments' rounding, + an atomic reduction's)
    an operand        0 (its elements are the inputs)
    a conversion to   v rounded to t; the bound how far the roundings of v - e_x and v + e_x lie
    a narrower type t from it (round is monotone), 0 where both round alike
    a constant        u |c| (0.70710677f is 1/sqrt 2 rounded); 0 for a value of the type (448.0)
    x + y, x - y      e_x + e_y + u |v|                 each op rounds once in its type (u)
    x y               |x| e_y + |y| e_x + e_x e_y + u |v|
    x / y             (e_x + |v| e_y) / (|y| - e_y) + u |v|
    max, min, -x, |x| the largest of the operands' bounds (1-Lipschitz; exact ops)
    tanh, erf         L e_x + ulps u |v|, L = 1 for tanh, 2 / sqrt(pi) for erf
    exp               |v| (exp(e_x) - 1) + ulps u |v|
    sitofp            u |v| (an integer product's sum into f32: exact below 2^24)
    roundeven         how far the nearest integers (ties to even) of v - e_x and v + e_x are from
                      round(v): 0 where no half-integer lies within e_x, so exact sums round alike
    fptosi            e_x (its argument is an integer already, in range: saturate clamped it)

with every rounding also off by u * tiny absolutely (results in the subnormal range), and the
stored value rounded to C's type: + u_C |v| + tiny_C.  `ulps` is the math library's accuracy
(LIBM_ULPS, in units of 2u).  So the bound follows the accumulator, each function's conditioning
at the element's own argument, and the output's rounding: a bias added on the wrong axis or an
activation taken before the scale moves an element by far more than its bound.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from gemmc.interp.accuracy import SMALLEST_NORMAL, UNIT_ROUNDOFF
from gemmc.support.arith_semantics import LIBM_ULPS
_ERF_LIPSCHITZ = 2.0 / math.sqrt(math.pi)
LARGEST = {"f32": 3.4028234663852886e38, "f16": 65504.0, "bf16": 3.3895313892515355e38}  # finite values
_erf = np.frompyfunc(math.erf, 1, 1)


@dataclass(frozen=True)
class Bounded:
    """A value of the declared program and the bound on a kernel's error in it, element-wise."""

    v: np.ndarray
    e: np.ndarray


def operand_values(spec, args: list, shape: tuple[int, int]) -> list[np.ndarray]:
    """Each epilogue operand's element at every (row, col), in float64."""
    out = []
    for i, axes in zip(spec.epilogue_args, spec.epilogue_axes):
        x = np.asarray(args[i], dtype=np.float64)
        if axes == "m":
            x = x[:, None]
        out.append(np.broadcast_to(x, shape))
    return out


def evaluate(lines: tuple[str, ...], acc: str, total: Bounded, operands: list[np.ndarray],
             amax: bool = False, output: int | None = None) -> Bounded:
    """The epilogue's value and error bound from the sum's (`total`) and the operands' values; with
    `amax`, those of gemm.amax's argument (whose max |x| the amax output is) instead; with `output`
    k, those of the k-th gemm.output's (the k-th other output's value)."""
    outputs_seen = 0
    values: list[Bounded] = [total] + [Bounded(x, np.zeros_like(x)) for x in operands]
    tiny = lambda t: UNIT_ROUNDOFF[t] * SMALLEST_NORMAL[t]  # noqa: E731
    for line in lines:
        name, *words = line.split()
        if name == "gemm.yield" and not amax and output is None:
            return values[int(words[0])]
        if name == "gemm.amax":  # (no result: the numbering goes on)
            if amax:
                return values[int(words[0])]
            continue
        if name == "gemm.output":
            if output == outputs_seen:
                return values[int(words[0])]
            outputs_seen += 1
            continue
        if name == "arith.constant":  # rounded to acc, exactly where it is a value of acc (saturate's bounds)
            c = float(words[0])
            e = 0.0 if _exact_in(c, acc) else UNIT_ROUNDOFF[acc] * abs(c)
            values.append(Bounded(np.full(total.v.shape, c), np.full(total.v.shape, e)))
            continue
        t = words[-1] if name in ("arith.extf", "arith.truncf") else None
        xs = [values[int(w)] for w in (words[:-1] if t else words)]
        u = UNIT_ROUNDOFF[t or acc]
        with np.errstate(all="ignore"):  # exp(-x) of a large x: inf, and 1 / (1 + inf) = 0
            r = _op(name, xs, u, t)
        # a bound that inf - inf or 0 * inf leaves undefined allows anything (sound, not sensitive),
        # and so does a value the kernel may round past its type's largest (exp(12) in f16: inf)
        e = r.e + tiny(t or acc)
        e = np.where(np.isnan(e) | (np.abs(r.v) + e > LARGEST[t or acc]), np.inf, e)
        values.append(Bounded(r.v, e))
    raise ValueError("the epilogue has no gemm.yield")


def _rounded(x: np.ndarray, t: str) -> np.ndarray:
    """x rounded to the float type t (nearest, ties to even), in float64."""
    from gemmc.dialects.gemm import ELEMENT_TYPES
    from gemmc.interp.common import round_to

    with np.errstate(all="ignore"):
        return np.asarray(round_to(np.asarray(x, dtype=np.float64), ELEMENT_TYPES[t]()), dtype=np.float64)


def _exact_in(c: float, t: str) -> bool:
    """Whether the constant c is a value of the float type t (f32, f16, bf16)."""
    from gemmc.support.arith_semantics import to_bf16

    rounded = {"f32": np.float32, "f16": np.float16, "bf16": to_bf16}[t](c)
    return bool(float(rounded) == c)


def _op(name: str, xs: list[Bounded], u: float, t: str | None) -> Bounded:
    x = xs[0]
    ax = np.abs(x.v)
    if name in ("arith.addf", "arith.subf"):
        v = x.v + xs[1].v if name == "arith.addf" else x.v - xs[1].v
        return Bounded(v, x.e + xs[1].e + u * np.abs(v))
    if name == "arith.mulf":
        y = xs[1]
        v = x.v * y.v
        return Bounded(v, ax * y.e + np.abs(y.v) * x.e + x.e * y.e + u * np.abs(v))
    if name == "arith.divf":
        y = xs[1]
        v = x.v / y.v
        room = np.abs(y.v) - y.e
        e = np.where(room > 0, (x.e + np.abs(v) * y.e) / np.where(room > 0, room, 1.0), np.inf)
        return Bounded(v, e + u * np.abs(v))
    if name in ("arith.maximumf", "arith.minimumf"):
        v = np.maximum(x.v, xs[1].v) if name == "arith.maximumf" else np.minimum(x.v, xs[1].v)
        return Bounded(v, np.maximum(x.e, xs[1].e))
    if name in ("arith.negf", "math.absf"):
        return Bounded(-x.v if name == "arith.negf" else ax, x.e)
    if name in ("arith.extf", "arith.fptosi"):
        return x
    if name == "arith.sitofp":
        return Bounded(x.v, x.e + u * ax)
    if name == "math.roundeven":
        v = np.rint(x.v)
        return Bounded(v, np.maximum(np.abs(np.rint(x.v - x.e) - v), np.abs(np.rint(x.v + x.e) - v)))
    if name == "arith.truncf":  # rounded: a later output reads C as stored (a kernel that does not FAILs)
        v = _rounded(x.v, t)
        return Bounded(v, np.maximum(np.abs(_rounded(x.v - x.e, t) - v), np.abs(_rounded(x.v + x.e, t) - v)))
    return _function(name, x, u)


def _function(name: str, x: Bounded, u: float) -> Bounded:
    libm = LIBM_ULPS * 2 * u
    if name == "math.tanh":
        v = np.tanh(x.v)
        return Bounded(v, x.e + libm * np.abs(v))
    if name == "math.erf":
        v = _erf(x.v).astype(np.float64)
        return Bounded(v, _ERF_LIPSCHITZ * x.e + libm * np.abs(v))
    if name == "math.exp":
        v = np.exp(x.v)
        return Bounded(v, v * (np.expm1(x.e) + libm))
    raise ValueError(f"the epilogue's '{name}' has no reference (gemmc.interp.epilogue_ref)")
