"""The harness's check of a converted output (docs/language.md, "Output conversion"): an FP8 C, an i8
C requantized from an integer product, and an amax output.

    Epilogue(...).value_lines()   C++: the sum and the epilogue in double, `expected` and `bound` set
    Epilogue(...).spread_lines()  C++: the first scalar operand times a power of two that spreads C
                                  over the format's range (a few elements saturating)
    amax_verdict(v, M, N)         C++: the amax output against the checked elements' largest |x|

The reference is the declared program in float64 (gemmc.emit.harness_epilogue), its bound carried
through the ops; the last rounding is C's:
  - FP8: the saturated value rounded to the format (ties to even).  A correct kernel's value lies
    within the bound, and rounding is monotone, so its code lies between the roundings of the
    interval's ends: code for code where they agree (every op exact, or the interval inside one
    rounding step), else within one FP8 ulp (harness_epilogue.Output).
  - i8: the i32 sum is exact (wrapped as the kernel's two's complement), the epilogue in f32 (its
    ops' roundings bounded with f32's epsilon), roundeven and fptosi followed through the bound the
    same way: exact unless the f32 value's error straddles a half-integer, then within one code.
    That is what the types decide: the sum is an integer (no error), f32 has 24 bits against the
    8 of the code, so the error is a small fraction of a code and crosses at most one rounding point.
Random inputs in [-1, 1] rarely reach saturate's bounds; where the epilogue reads a scalar, the
harness scales it by a power of two chosen on a sample of C, so that saturate clips some elements
and the rest spread over the range (as `gemmc run`'s saturating run; a missing saturate, a wrong
scale then FAIL).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from gemmc.emit import harness_epilogue
from gemmc.emit.c_text import INDENT


@dataclass
class Epilogue:
    """What the C++ of one element's reference needs: the harness's local names `v`, the product
    of A's and B's elements at k, K's name, the spec's ops and the operands' C++ doubles."""

    v: dict[str, str]
    product: str
    k_dim: str
    lines: tuple[str, ...]
    operands: list[str]
    acc: str
    integer: bool  # an integer product: its sum exact, its epilogue in f32
    fresh: Callable[[str], str]
    output: harness_epilogue.Output | None = None
    eps: tuple[float, float] = (2.0**-23, 2.0**-23)  # eps_acc's and eps_out's values (locals of the check)

    def value_lines(self, v: dict[str, str] | None = None, pre_saturate: str | None = None) -> list[str]:
        """The sum at (i, j) and the epilogue's value (`expected`) and bound (`bound`)."""
        v = v or self.v
        I, k = INDENT, v["k"]
        if self.integer:
            wrapped = self.fresh("wrapped")
            w = [f"{I*2}long long {v['sum']} = 0;",
                 f"{I*2}for (int {k} = 0; {k} < {self.k_dim}; ++{k})",
                 f"{I*3}{v['sum']} += {self.product};",
                 f"{I*2}const double {wrapped} = static_cast<int32_t>(static_cast<uint32_t>({v['sum']}));"]
            v = {**v, "sum": wrapped}
        else:
            w = [f"{I*2}double {v['sum']} = 0.0, {v['magnitude']} = 0.0;",
                 f"{I*2}for (int {k} = 0; {k} < {self.k_dim}; ++{k})",
                 f"{I*2}{{",
                 f"{I*3}const double {v['p']} = {self.product};",
                 f"{I*3}{v['sum']} += {v['p']};",
                 f"{I*3}{v['magnitude']} += std::fabs({v['p']});",
                 f"{I*2}}}"]
        return w + harness_epilogue.check_lines(self.lines, self.operands, v, self.k_dim, I * 2, self.fresh,
                                                "f32" if self.integer else self.acc, self.output,
                                                exact_sum=self.integer, pre_saturate=pre_saturate)

    def spread_lines(self, scalar: str, largest: float, m: str, n: str) -> list[str]:
        """`scalar` times 2^p, p such that the largest |value| saturate meets at 64 elements of C
        is within a factor 2 of twice the format's largest."""
        I, v = INDENT, self.v
        local = {x: self.fresh(x) for x in ("sum", "magnitude", "p", "expected", "bound", "amax_x", "amax_e")}
        pre, top, s, at = self.fresh("pre_saturate"), self.fresh("top"), self.fresh("s"), self.fresh("at")
        eps = {"eps_acc": repr(self.eps[0]), "eps_out": repr(self.eps[1])}  # (declared after this block)
        body = self.value_lines({**v, **local, **eps}, pre_saturate=pre)
        return [f"{I}// C is converted with saturation: {scalar} scaled by a power of two so that the largest |value|",
                f"{I}// saturate meets in a sample of C is about twice the format's largest ({largest!r}).",
                f"{I}{{",
                f"{I*2}auto {at} = [&](int {v['i']}, int {v['j']}) {{",
                f"{I*2}double {local['expected']} = 0.0, {local['bound']} = 0.0, {local['amax_x']} = 0.0, "
                f"{local['amax_e']} = 0.0, {pre} = 0.0;",
                *(INDENT + line for line in body),
                f"{I*3}return {pre};",
                f"{I*2}}};",
                f"{I*2}double {top} = 0.0;",
                f"{I*2}for (int {s} = 0; {s} < 64; ++{s})",
                f"{I*3}{top} = std::fmax({top}, std::fabs({at}({s} * 7919 % {m}, {s} * 104729 % {n})));",
                f"{I*2}if ({top} > 0.0 && std::isfinite({top}))",
                f"{I*3}gemmc_set({scalar}, static_cast<float>(std::ldexp(gemmc_to_double({scalar}), "
                f"std::ilogb(2.0 * {largest!r} / {top}))));",
                f'{I*2}std::printf("Scale       : {scalar} = %g (C spread over its range)\\n", gemmc_to_double({scalar}));',
                f"{I}}}"]


def amax_verdict(v: dict[str, str], m: str, n: str) -> list[str]:
    """The amax output against max |x| over the checked elements, within the largest of their
    bounds: equal when every element was checked, else at least the sample's (one-sided)."""
    I, got, ref, bound, ok = INDENT, v["amax_got"], v["amax_ref"], v["amax_bound"], v["amax_ok"]
    every = f"{v['points']}.size() == static_cast<size_t>({m}) * {n}"
    return [f"{I}const bool {ok} = {every} ? std::fabs({got} - {ref}) <= {bound}",
            f"{I}    : {got} >= {ref} - {bound};",
            f"{I}if (!{ok})",
            f"{I*2}++{v['mismatches']};",
            f'{I}std::printf("Checked     : amax %.9g, expected %s%.9g (bound %.3g): %s\\n", {got},',
            f'{I}            {every} ? "" : "at least ", {ref}, {bound}, {ok} ? "PASSED" : "FAILED");']
