"""The harness's check of a fused epilogue: C++ that evaluates the epilogue's ops in double, and
beside each value a bound on a correct kernel's error in it (the running error analysis of
gemmc.interp.epilogue_ref, with the harness's epsilons: `eps` is the accumulator's machine epsilon,
twice its unit roundoff, so each rounding is allowed twice over).

The ops come from the spec (`MatmulSpec.epilogue` lines: value 0 the sum, 1 .. n the operands'
elements, then each op's result).  `check_lines` returns the statements that set `expected` and
`bound` from the float64 `sum` and its `magnitude` (sum of |a b|).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass


# machine epsilon (2u) of a conversion's result type, for arith.truncf
MACHINE_EPS = {"f32": 2.0**-23, "f16": 2.0**-10, "bf16": 2.0**-7}
_ERF_LIPSCHITZ = 2.0 / math.sqrt(math.pi)
_LARGEST = {"f32": 3.4028234663852886e38, "f16": 65504.0, "bf16": 3.3895313892515355e38}


def check_lines(lines: tuple[str, ...], operands: list[str], v: dict[str, str], k: str, indent: str,
                fresh: Callable[[str], str], acc: str = "f32", output: Output | None = None,
                exact_sum: bool = False, pre_saturate: str | None = None) -> list[str]:
    """`expected` and `bound` of C[i][j]: `operands` are C++ double expressions of each epilogue
    operand's element at (i, j); v names the harness's locals (sum, magnitude, eps_acc, eps_out,
    expected, bound; amax_x and amax_e, the gemm.amax argument's value and bound, where the
    epilogue has one), `k` the K dim, `fresh` makes local names that take no user's.  `output`:
    an FP8 C, the stored value rounded to it; `exact_sum`: an integer product's (no error);
    `pre_saturate`: a local set to the value saturate clamps (the first maximumf's operand)."""
    eps = v["eps_acc"]
    e0 = fresh("sum_error")
    sum_error = "0.0" if exact_sum else f"{eps} * (std::sqrt(static_cast<double>({k})) + 2.0) * {v['magnitude']}"
    out = [f"const double {e0} = {sum_error};"]
    names = [v["sum"]]
    errs = [e0]
    for x in operands:
        name = fresh("operand")
        out.append(f"const double {name} = {x};")
        names.append(name)
        errs.append("0.0")
    for line in lines:
        op, *words = line.split()
        if op == "gemm.yield":
            r = int(words[0])
            out += output.yield_lines(names[r], errs[r], v, fresh) if output else [
                f"{v['expected']} = {names[r]};",
                f"{v['bound']} = {errs[r]} + {v['eps_out']} * (std::fabs({names[r]}) + {errs[r]})"
                " + std::numeric_limits<float>::min();"]
            return [indent + s for s in out]
        if op == "gemm.amax":  # an output of its own, no value of the epilogue's
            r = int(words[0])
            out.append(f"{v['amax_x']} = {names[r]};")
            out.append(f"{v['amax_e']} = {errs[r]};")
            continue
        if op == "arith.maximumf" and pre_saturate:
            out.append(f"{pre_saturate} = {names[int(words[0])]};")
            pre_saturate = None
        value, err = _op(op, words, names, errs, eps)
        largest = _LARGEST.get(words[-1] if op in ("arith.extf", "arith.truncf") else acc, _LARGEST["f32"])
        r, f = fresh("value"), fresh("error")
        out.append(f"const double {r} = {value};")
        out.append(f"double {f} = {err};")
        # inf - inf leaves the bound undefined, and a value past the type's largest may be inf: anything
        out.append(f"if (std::isnan({f}) || std::fabs({r}) + {f} > {largest!r}) {f} = "
                   "std::numeric_limits<double>::infinity();")
        names.append(r)
        errs.append(f)
    raise ValueError("the epilogue has no gemm.yield")


def _op(op: str, words: list[str], names: list[str], errs: list[str], eps: str) -> tuple[str, str]:
    """(value, error bound) of one op as C++ expressions."""
    if op == "arith.constant":
        c = float(words[0])
        return repr(c), f"{eps} * {abs(c)!r}"
    if op in ("arith.extf", "arith.truncf"):
        x, ex = names[int(words[0])], errs[int(words[0])]
        return x, ex if op == "arith.extf" else f"{ex} + {MACHINE_EPS.get(words[1], 2.0**-7)!r} * std::fabs({x})"
    xs = [names[int(w)] for w in words]
    es = [errs[int(w)] for w in words]
    x, ex = xs[0], es[0]
    if op in ("arith.addf", "arith.subf"):
        val = f"{x} {'+' if op == 'arith.addf' else '-'} {xs[1]}"
        return val, f"{ex} + {es[1]} + {eps} * std::fabs({val})"
    if op == "arith.mulf":
        return f"{x} * {xs[1]}", (f"std::fabs({x}) * {es[1]} + std::fabs({xs[1]}) * {ex} + {ex} * {es[1]}"
                                  f" + {eps} * std::fabs({x} * {xs[1]})")
    if op == "arith.divf":
        room = f"(std::fabs({xs[1]}) - {es[1]})"
        q = f"({x} / {xs[1]})"
        return q, (f"({room} > 0.0 ? ({ex} + std::fabs{q} * {es[1]}) / {room} "
                   f": std::numeric_limits<double>::infinity()) + {eps} * std::fabs{q}")
    if op in ("arith.maximumf", "arith.minimumf"):
        fn = "std::fmax" if op == "arith.maximumf" else "std::fmin"
        return f"(std::isnan({x}) || std::isnan({xs[1]}) ? {x} + {xs[1]} : {fn}({x}, {xs[1]}))", \
            f"std::fmax({ex}, {es[1]})"
    if op == "arith.sitofp":  # an i32 sum to f32: exact below 2^24
        return x, f"{ex} + {eps} * std::fabs({x})"
    if op in ("math.roundeven", "arith.fptosi"):  # monotone: x's rounding, within those of x +- ex
        fn = "std::nearbyint" if op == "math.roundeven" else "std::trunc"  # (nearbyint: ties to even)
        return f"{fn}({x})", f"std::fmax({fn}({x} + {ex}) - {fn}({x}), {fn}({x}) - {fn}({x} - {ex}))"
    if op == "arith.negf":
        return f"-{x}", ex
    if op == "math.absf":
        return f"std::fabs({x})", ex
    from gemmc.support.arith_semantics import LIBM_ULPS  # here: that module imports numpy

    libm = f"{LIBM_ULPS} * {eps}"
    if op == "math.tanh":
        return f"std::tanh({x})", f"{ex} + {libm} * std::fabs(std::tanh({x}))"
    if op == "math.erf":
        return f"std::erf({x})", f"{_ERF_LIPSCHITZ!r} * {ex} + {libm} * std::fabs(std::erf({x}))"
    if op == "math.exp":
        return f"std::exp({x})", f"std::exp({x}) * (std::expm1({ex}) + {libm})"
    raise ValueError(f"the harness has no reference for the epilogue's '{op}'")


@dataclass(frozen=True)
class Output:
    """An FP8 C: the store rounds the saturated value to the format (`round`: the C++ function of
    gemmc.emit.host_formats.rounding).  The kernel's value lies within the bound of the reference's,
    and within the format's range (saturate clamps exactly), so a correct C is the rounding of some
    value in that interval: between the roundings of its ends, which rounding keeps in order.  A
    bound of 0 (every op exact) allows the reference's code alone."""

    round: str
    largest: float

    def yield_lines(self, x: str, e: str, v: dict[str, str], fresh: Callable[[str], str]) -> list[str]:
        lo, hi = fresh("low"), fresh("high")
        top = repr(self.largest)

        def rounded(end: str) -> str:
            return f"{self.round}(std::fmin(std::fmax({end}, -{top}), {top}))"

        return [f"{v['expected']} = {self.round}({x});",
                f"const double {lo} = {rounded(f'{x} - {e}')}, {hi} = {rounded(f'{x} + {e}')};",
                f"{v['bound']} = std::isnan({e}) ? std::numeric_limits<double>::infinity()"
                f" : std::fmax({hi} - {v['expected']}, {v['expected']} - {lo});"]
