"""How close C must be to the declared program: the element-wise error bound, and inputs
whose result is exact.

The reference is always the program as declared: A, B, C and the scalars in their
declared types, multiplied and summed in float64.  A kernel's C may differ from it by

    |C - ref| <= gamma |alpha| |op(A)| @ |op(B)| + gamma_acc |beta| |C0|
                 + (u_C + u_acc) |ref| + tiny_C                       (element-wise)

    gamma_acc = 4 sqrt(K) u_acc         rounding of a K-term sum in the accumulator type
                                       (the probabilistic bound of Higham and Mary, 2019,
                                       with margin; the deterministic K u / (1 - K u) is
                                       void once K u >= 1, as for an f16 sum of 2500 terms)
    gamma     = gamma_acc + 2 u_in + u_in^2   when the kernel rounds A and B to a type of
                                       unit roundoff u_in (matrix-core fragments): each
                                       product a b becomes a (1 + d1) b (1 + d2)
    (u_C + u_acc) |ref|                the scaling by alpha and beta in the accumulator
                                       and the rounding of the result to C's type
    tiny_C                             the smallest normal number of C's type: below it
                                       the spacing of C's values is absolute, so results
                                       of order 1e-40 in f32 (subnormals) are judged by it
    + 4 (K + 1) u_acc tiny_acc         the same for roundings in the accumulator type
                                       (`underflow`: an f16 sum of products near 1e-5)

u is the unit roundoff: f32 2^-24, f16 2^-11, bf16 2^-8, FP8 e4m3 2^-4 and e5m2 2^-3
(ml_dtypes' eps / 2).  Element-wise, so a lost or a
doubled term shows wherever it is large next to that element's own sum, however large K.

Random inputs in [-1, 1] cannot show a lost term smaller than gamma times the sum, which
with an f16 accumulator is every term once K is a few hundred.  So the check also runs
on small integers (`exact_inputs`) for which every product, every partial sum (in any
order) and the result are exact in the accumulator's and C's types, and compares C bit
for bit: a lost, doubled or misplaced term changes some element by a nonzero integer.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from gemmc.support.arith_semantics import FP8_NAMES, fp8_dtypes


class _ByFormat(dict):
    """A constant per float format: f32, f16 and bf16 given; the FP8 formats' read from ml_dtypes
    (the reference numerics) when first asked for, since importing ml_dtypes is slow."""

    def __init__(self, given: dict, of_finfo):
        super().__init__(given)
        self.of_finfo = of_finfo

    def __missing__(self, key):
        if key not in FP8_NAMES:
            raise KeyError(key)
        import ml_dtypes

        for name, dtype in fp8_dtypes().items():
            self[name] = self.of_finfo(ml_dtypes.finfo(dtype))
        return self[key]

    def __contains__(self, key) -> bool:
        return dict.__contains__(self, key) or key in FP8_NAMES


# The FP8 formats' from ml_dtypes: u = eps / 2 (e4m3 2^-4, e5m2 2^-3), precision = mantissa bits
# + 1, smallest normal = finfo.tiny (e4m3fnuz 2^-7, e5m2fnuz 2^-15, e4m3fn 2^-6, e5m2 2^-14: the
# FNUZ formats' bias is one more).
UNIT_ROUNDOFF = _ByFormat({"f32": 2.0**-24, "f16": 2.0**-11, "bf16": 2.0**-8}, lambda i: float(i.eps) / 2)
PRECISION = _ByFormat({"f32": 24, "f16": 11, "bf16": 8}, lambda i: int(i.nmant) + 1)  # significand bits
SMALLEST_NORMAL = _ByFormat({"f32": 2.0**-126, "f16": 2.0**-14, "bf16": 2.0**-126}, lambda i: float(i.tiny))
EXACT_SCALARS = (-2.0, -1.0, 1.0, 2.0)  # alpha and beta arguments in the exact run: powers of two


def gamma_acc(acc: str, k: int) -> float:
    return 4 * UNIT_ROUNDOFF[acc] * math.sqrt(max(k, 1))


def input_rounding(compute: str | None) -> float:
    """The relative error of a product whose factors were each rounded to `compute`."""
    if compute is None:
        return 0.0
    u = UNIT_ROUNDOFF[compute]
    return 2 * u + u * u


@dataclass(frozen=True)
class Terms:
    """The parts of C = alpha op(A) @ op(B) + beta C0 the bound needs, in float64."""

    ref: np.ndarray  # the result
    products: np.ndarray  # |alpha| |op(A)| @ |op(B)|
    added: np.ndarray  # |beta| |C0| (zeros without beta)


def bound(t: Terms, acc: str, c_type: str, k: int, compute: str | None) -> np.ndarray:
    """The element-wise error bound of the module docstring."""
    g = gamma_acc(acc, k)
    return ((g + input_rounding(compute)) * t.products + g * t.added
            + (UNIT_ROUNDOFF[c_type] + UNIT_ROUNDOFF[acc]) * np.abs(t.ref) + SMALLEST_NORMAL[c_type]
            + underflow(acc, k))


def underflow(acc: str, k: int) -> float:
    """What roundings into the accumulator's subnormal range can add, absolutely: each is off
    by at most u * tiny (half the subnormal spacing), whatever the relative error; a K-term
    product sum takes 2K + 1 of them (A's and B's elements rounded to the accumulator type,
    inputs in [-1, 1], the products and the sums), 4(K + 1) with the margin of gamma_acc.  An f16
    accumulator of products near 1e-5 shows it (the element-wise bound was 1.01 times too small)."""
    return 4 * (k + 1) * UNIT_ROUNDOFF[acc] * SMALLEST_NORMAL[acc]


@dataclass(frozen=True)
class Comparison:
    """C against one reference: the normwise error and the element-wise bound's verdict."""

    rel_err: float  # max|C - ref| / max(|alpha| |A| |B| + |beta| |C0|)
    ratio: float  # max over C of |C - ref| / bound (at most 1 passes)
    worst: tuple[int, int]  # where that maximum is

    @property
    def passed(self) -> bool:
        return self.ratio <= 1.0


def compare(got: np.ndarray, t: Terms, limit: np.ndarray) -> Comparison:
    if not np.all(np.isfinite(got)):
        bad = np.argwhere(~np.isfinite(got))[0]
        return Comparison(float("inf"), float("inf"), (int(bad[-2]), int(bad[-1])))
    diff = np.abs(got - t.ref)
    scale = max(float(np.max(t.products + t.added, initial=0.0)), np.finfo(np.float64).tiny)
    ratios = diff / limit
    worst = np.unravel_index(int(np.argmax(ratios)), ratios.shape) if ratios.size else (0, 0)
    return Comparison(float(np.max(diff, initial=0.0)) / scale, float(np.max(ratios, initial=0.0)),
                      (int(worst[-2]), int(worst[-1])))


# -- exact inputs -------------------------------------------------------------------------


@dataclass(frozen=True)
class ExactPlan:
    """Integers in [-r, r] (never 0) for op(A), B and C0; op(A)[i, k] is 0 unless
    (i + k) % stride == 0, so that a row has at most ceil(K / stride) nonzero terms."""

    r: int
    stride: int

    def describe(self) -> str:
        kept = "" if self.stride == 1 else f", op(A)[i, k] = 0 unless (i + k) % {self.stride} = 0"
        return f"integers in [-{self.r}, {self.r}]{kept}"


def exact_plan(k: int, exact_bits: int, input_bits: int, alpha_max: float, beta_max: float) -> ExactPlan:
    """The widest range (then the fewest zeros) for which sum_k |a b| and |alpha| sum_k |a b|
    + |beta c| stay at most 2^exact_bits, so every partial sum in any order is an exact
    integer in a type of that many significand bits; inputs are exact up to 2^input_bits."""
    limit = 2**exact_bits
    alpha_max = max(alpha_max, 1.0)  # the sum itself, before a scale below 1
    def fits(r: int) -> bool:
        return alpha_max * k * r * r + beta_max * r <= limit

    r = min(2**input_bits, math.isqrt(int(limit / (alpha_max * max(k, 1)))) + 1)
    while r > 1 and not fits(r):
        r -= 1
    stride = 1
    while stride < k and alpha_max * -(-k // stride) * r * r + beta_max * r > limit:
        stride += 1
    return ExactPlan(r, stride)


def exact_values(rng: np.random.Generator, shape: tuple[int, ...], r: int) -> np.ndarray:
    """Nonzero integers in [-r, r], as float64."""
    return (rng.integers(1, r + 1, size=shape) * rng.choice([-1, 1], size=shape)).astype(np.float64)


def sparsify(op_a: np.ndarray, stride: int) -> np.ndarray:
    """op(A) with the zeros of ExactPlan (a view's copy; the caller stores it back)."""
    if stride == 1:
        return op_a
    i, k = np.indices(op_a.shape)[-2:]  # a batch's matrices alike
    return np.where((i + k) % stride == 0, op_a, 0.0)


@dataclass(frozen=True)
class ExactResult:
    plan: ExactPlan
    mismatches: int  # elements of C that differ from the reference
    size: int
    first: tuple[int, int, float, float] | None  # (i, j, got, expected) of the first mismatch
    bitwise: bool = True  # False: a scale that is not exact rounds the result; C is held to that rounding
    how: str = ""  # what C was held to, where not bitwise for that reason (a fused epilogue's rounding)

    @property
    def passed(self) -> bool:
        return self.mismatches == 0

    def describe(self) -> str:
        head = f"exact inputs ({self.plan.describe()}): "
        how = self.how or ("bit for bit" if self.bitwise else "within the rounding of the scaling (alpha or beta is not exact)")
        if self.passed:
            return head + ("" if self.how else "C ") + how
        i, j, got, want = self.first  # type: ignore[misc]
        return head + (f"{self.mismatches} of {self.size} elements differ ({how}), first C[{i}, {j}] = "
                       f"{got:.9g} (expected {want:.9g})")


def position(at: tuple[int, ...]) -> tuple[int | str, int]:
    """An element of C as (i, j) for a message's C[i, j]; a batched C's i is "batch, row" text."""
    return (at[0] if len(at) == 2 else ", ".join(map(str, at[:-1]))), at[-1]


def exact_compare(got: np.ndarray, ref: np.ndarray, plan: ExactPlan, limit: np.ndarray | None = None) -> ExactResult:
    """Bit for bit, or within `limit` element-wise; NaN always differs."""
    differ = ~(got == ref) if limit is None else ~(np.abs(got - ref) <= limit)
    first = None
    if differ.any():
        at = tuple(int(x) for x in np.argwhere(differ)[0])
        first = (*position(at), float(got[at]), float(ref[at]))
    return ExactResult(plan, int(differ.sum()), int(got.size), first, limit is None)
