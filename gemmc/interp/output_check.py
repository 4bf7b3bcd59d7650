"""The checks of a converted output: an FP8 or an i8 C, written through saturate (docs/language.md,
"Output conversion").

Random inputs rarely reach a format's largest value, so a kernel that left saturate out would
pass them.  Both checks therefore also run with the epilogue's operands (its scales, biases and
scalars) multiplied by a power of two (exact in their types) chosen from the float64 reference:
`saturating` takes at least a tenth of C past the largest finite value, where a kernel without
saturate writes NaN, inf or a wrapped integer instead of +-max and FAILs.

An i8 C is an integer product requantized: the sum is exact, the epilogue computes in f32 with the
bound epilogue_ref carries (sitofp, each op's rounding; round-half-even's bound is how far the
nearest integers of its argument's interval lie from the reference's, 0 where no half-integer is
within it), and C, an integer, must be within that bound.  Its runs: random i8 / u8 with the
operands scaled to spread C over i8's range (`spreading`), the saturating run, and an exact one:
scales powers of two, so the f32 arithmetic is exact and C equals the reference code for code,
ties to even included.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from xdsl.dialects.builtin import MemRefType

from gemmc.interp import epilogue_ref
from gemmc.interp.accuracy import Comparison, ExactPlan, ExactResult, Terms, compare, exact_compare
from gemmc.interp.common import round_to
from gemmc.interp.integer import operands as integer_operands
from gemmc.interp.stats import Stats
from gemmc.transforms.matmul_spec import MatmulSpec

REQUANT_TYPE = "f32"  # what an integer product's epilogue computes in (gemmc.frontend.epilogue_check)
I8_MAX = 127.0
POWERS = range(-48, 49)  # the factors 2^p tried on the epilogue's operands
EXACT_SCALES = (-2.0, -1.0, -0.5, -0.25, 0.25, 0.5, 1.0, 2.0)  # the exact run's scales: powers of two

Runner = Callable[[list, Stats], None]


def largest(c_type: str) -> float:
    """C's largest finite value: saturate's bound."""
    if c_type == "i8":
        return I8_MAX
    import ml_dtypes

    from gemmc.support.arith_semantics import fp8_dtypes

    return float(ml_dtypes.finfo(fp8_dtypes()[c_type]).max)


def scaled(fn, spec: MatmulSpec, args: list, p: int) -> list:
    """A copy of `args` with each float epilogue operand times 2^p, in its own type."""
    out = list(args)
    for i in spec.epilogue_args:
        t = fn.args[i].type
        elem = t.element_type if isinstance(t, MemRefType) else t
        out[i] = round_to(np.asarray(args[i], dtype=np.float64) * 2.0**p, elem)
        if isinstance(t, MemRefType):
            out[i] = np.asarray(out[i]).astype(np.asarray(args[i]).dtype)
    return out


def power_for(fn, spec: MatmulSpec, args: list, score: Callable[[np.ndarray], float]) -> int:
    """The p of POWERS whose scaled operands give the reference the highest score (0 if none helps)."""
    best, best_p = score(reference(spec, args).v), 0
    for p in POWERS:
        s = score(reference(spec, scaled(fn, spec, args, p)).v)
        if s > best:
            best, best_p = s, p
    return best_p


def saturating(top: float) -> Callable[[np.ndarray], float]:
    """Scores a C whose tenth or more lies at +-top (saturated), the fewer beyond a fifth the better."""
    def score(v: np.ndarray) -> float:
        at = float(np.mean(np.abs(v) >= top))
        return -abs(at - 0.2) if at >= 0.1 else -1.0 - (0.1 - at)
    return score


def spreading(top: float) -> Callable[[np.ndarray], float]:
    """Scores a C by how many elements lie strictly inside (0.5, top): rounded, not saturated."""
    return lambda v: float(np.mean((np.abs(v) > 0.5) & (np.abs(v) < top)))


def sum_terms(spec: MatmulSpec, args: list) -> tuple[np.ndarray, np.ndarray]:
    """op(A) @ op(B) in float64 (exact for an integer product) and |op(A)| @ |op(B)|."""
    if spec.integer:
        a, b = integer_operands(spec, args)
    else:
        a, b = (np.asarray(args[j], dtype=np.float64) for j in (spec.a, spec.b))
        a, b = (a.T if spec.transpose_a else a), (b.T if spec.transpose_b else b)
    return (a @ b).astype(np.float64), (np.abs(a) @ np.abs(b)).astype(np.float64)


def reference(spec: MatmulSpec, args: list) -> epilogue_ref.Bounded:
    """C of the declared program in float64 before its rounding to C's type, and the bound on the
    epilogue's own error (the sum taken as exact: the bound of an i8 C; an FP8 C's adds the sum's)."""
    total, _ = sum_terms(spec, args)
    operands = epilogue_ref.operand_values(spec, args, total.shape)
    etype = REQUANT_TYPE if spec.integer else spec.acc
    with np.errstate(all="ignore"):
        return epilogue_ref.evaluate(spec.epilogue, etype, epilogue_ref.Bounded(total, np.zeros_like(total)),
                                     operands)


def requant_run(spec: MatmulSpec, args: list, run: Runner, stats: Stats, name: str
                ) -> tuple[Comparison, AmaxCheck | None]:
    """Run on `args` and compare the i8 C with the reference: within the bound, an integer of it
    (codes are integers: half a code more allows no other); and the amax output, if any."""
    result = reference(spec, args)
    _, products = sum_terms(spec, args)
    amax = amax_expected(spec, args, np.zeros_like(products), name)
    run(args, stats)
    got = np.asarray(args[spec.c], dtype=np.float64)
    return (compare(got, Terms(result.v, products, np.zeros_like(products)), np.floor(result.e) + 0.5),
            amax.after(args) if amax is not None else None)


@dataclass(frozen=True)
class AmaxCheck:
    """An amax output against max |x| of the declared program's gemm.amax argument, within the
    largest of x's element-wise bounds (|max|x'| - max|x|| <= max |x' - x|); `got` after the run."""

    run: str
    want: float
    limit: float
    got: float = float("nan")

    @property
    def passed(self) -> bool:
        return bool(abs(self.got - self.want) <= self.limit) or (math.isnan(self.got) and math.isnan(self.want))

    def after(self, args: list) -> AmaxCheck:
        return dataclasses.replace(self, got=float(np.asarray(args[self._index]).reshape(-1)[0]))

    def describe(self) -> str:
        verdict = "within" if self.passed else "NOT within"
        return f"amax ({self.run}): {self.got:.9g}, expected {self.want:.9g} ({verdict} {self.limit:.3g})"

    _index: int = -1


def amax_expected(spec: MatmulSpec, args: list, e_sum: np.ndarray, name: str) -> AmaxCheck | None:
    """The amax output zeroed in `args` (the kernel raises it) and its expected value, before a run."""
    if spec.amax is None:
        return None
    args[spec.amax] = np.zeros_like(np.asarray(args[spec.amax]))
    total, _ = sum_terms(spec, args)
    operands = epilogue_ref.operand_values(spec, args, total.shape)
    etype = REQUANT_TYPE if spec.integer else spec.acc
    with np.errstate(all="ignore"):
        x = epilogue_ref.evaluate(spec.epilogue, etype, epilogue_ref.Bounded(total, e_sum), operands, amax=True)
    want = float(np.max(np.abs(x.v), initial=0.0))
    limit = float(np.max(x.e, initial=0.0))
    return AmaxCheck(name, want, limit, _index=spec.amax)


def requant_exact(fn, spec: MatmulSpec, args: list, seed: int, run: Runner) -> tuple[ExactResult, AmaxCheck | None]:
    """Scales powers of two (the sum exact in f32 below 2^24, each product exact): C code for code."""
    rng = np.random.default_rng([seed, 2])
    exact = list(args)
    for i in spec.epilogue_args:
        t = fn.args[i].type
        shape = np.shape(args[i])
        values = rng.choice(EXACT_SCALES, size=shape) if shape else rng.choice(EXACT_SCALES)
        exact[i] = round_to(np.asarray(values, dtype=np.float64), t.element_type if isinstance(t, MemRefType) else t)
    p = power_for(fn, spec, exact, spreading(I8_MAX))
    exact = scaled(fn, spec, exact, p)
    want = reference(spec, exact).v
    amax = amax_expected(spec, exact, np.zeros_like(want), "exact")
    run(exact, Stats())
    got = np.asarray(exact[spec.c], dtype=np.float64)
    result = exact_compare(got, want, ExactPlan(128, 1))
    how = f"scales powers of two (times 2^{p}): C code for code, ties to even"
    return dataclasses.replace(result, bitwise=False, how=how), amax.after(exact) if amax is not None else None


# The ops whose values stay exact on the exact run's small integers (and exact constants).
EXACT_OPS = ("arith.addf", "arith.subf", "arith.mulf", "arith.negf", "arith.maximumf", "arith.minimumf",
             "math.absf", "arith.extf", "gemm.yield", "gemm.amax")


def exact_epilogue(spec: MatmulSpec) -> bool:
    """Whether the epilogue computes the exact run's value exactly: exact ops and constants exact
    in the accumulator type (so the value C rounds is the reference's)."""
    for line in spec.epilogue:
        name, *words = line.split()
        if name == "arith.constant":
            c = float(words[0])
            if float(round_to(np.float64(c), _element(spec.acc))) != c:
                return False
        elif name not in EXACT_OPS:
            return False
    return True


def code_mismatches(c_type: str, got: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Where an FP8 C differs from the format's nearest value of v (ties to even), code for code."""
    want = np.asarray(round_to(v, _element(c_type)), dtype=np.float64)
    return ~((got == want) | (np.isnan(got) & np.isnan(want)))


def _element(c_type: str):
    from gemmc.dialects.gemm import ELEMENT_TYPES

    return ELEMENT_TYPES[c_type]()


def is_converted(c_type: str) -> bool:
    """An FP8 or i8 C: written through saturate (the runs above apply)."""
    from gemmc.dialects.gemm import FP8_TYPES

    return c_type == "i8" or c_type in FP8_TYPES


@dataclass
class RequantRuns:
    """The three runs of a requantized product (check.py makes its CheckResult of them)."""
    declared: Comparison  # random operands, scaled to spread C over i8's range
    saturated: Comparison  # scaled past i8's largest value (saturate's clamp)
    exact: ExactResult  # powers-of-two scales: C code for code
    amax: list  # each run's amax check, where the program writes one

    @property
    def passed(self) -> bool:
        return self.declared.passed and self.saturated.passed and self.exact.passed and all(
            a.passed for a in self.amax)


def requant_runs(fn, spec: MatmulSpec, args: list, exact_args: list, seed: int, run: Runner,
                 stats: Stats) -> RequantRuns:
    """An integer product requantized to i8: operands scaled to spread C over i8's range, then to
    saturate it, then powers of two (exact: C code for code)."""
    top = I8_MAX

    def scaled_to(score):
        return scaled(fn, spec, args, power_for(fn, spec, args, score))

    declared, amax0 = requant_run(spec, scaled_to(spreading(top)), run, stats, "random")
    saturated, amax1 = requant_run(spec, scaled_to(saturating(top)), run, Stats(), "saturating")
    exact, amax2 = requant_exact(fn, spec, exact_args, seed, run)
    return RequantRuns(declared, saturated, exact, [a for a in (amax0, amax1, amax2) if a is not None])
