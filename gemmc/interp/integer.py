"""The check of an integer product (i8 / u8 operands, i32 accumulator and C): exact.

Two's-complement i32 arithmetic is exact modulo 2^32 in any order, so C must equal the declared
program bit for bit: op(A) @ op(B) (+ C0) in int64, each operand read by its signedness (i8 in
[-128, 127], u8 in [0, 255]), wrapped to i32 (`reference`).  Two runs, both always:

* **random**: A and B uniform over their whole range, C0 uniform over i32's (so `+ C` wraps);
* **extremes**: every element of A and B one end of its range (-128 or 127; 0 or 255), C0 one
  end of i32's: the largest products and sums, where a wrong sign or zero extension (a u8 read
  as i8: 255 as -1) or a lost term shows at once, and the sums wrap around at large K.

A lost, doubled or misplaced term, or an operand widened with the wrong signedness, changes an
element of C by a nonzero amount modulo 2^32 (the random run: with probability 1 - 2^-8 or so
per element).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import DictionaryAttr, IntegerType, MemRefType

from gemmc.interp.common import wrap
from gemmc.interp.stats import Stats
from gemmc.support.ir_names import UNSIGNED_ATTR
from gemmc.transforms.matmul_spec import MatmulSpec

I32_MIN, I32_MAX = -(2**31), 2**31 - 1


def integer_range(unsigned: bool, bits: int) -> tuple[int, int]:
    """The smallest and largest value of a `bits`-bit integer, unsigned or signed."""
    return (0, 2**bits - 1) if unsigned else (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1)


def unsigned_args(fn: func.FuncOp) -> set[int]:
    """The host arguments marked gemm.unsigned (the frontend's u8 matrices)."""
    attrs = fn.arg_attrs.data if fn.arg_attrs is not None else ()
    return {i for i, a in enumerate(attrs) if isinstance(a, DictionaryAttr) and UNSIGNED_ATTR in a.data}


def random_integers(rng: np.random.Generator, t: MemRefType, shape, unsigned: bool, extremes: bool = False):
    """An int64 array of `shape` uniform over the range of t's integer element type (or only its two
    ends), read as unsigned where `unsigned`."""
    assert isinstance(t.element_type, IntegerType)
    lo, hi = integer_range(unsigned, t.element_type.width.data)
    if extremes:
        return rng.choice(np.array([lo, hi], dtype=np.int64), size=shape)
    return rng.integers(lo, hi, size=shape, endpoint=True, dtype=np.int64)


def input_types(fn: func.FuncOp, spec: MatmulSpec) -> str:
    """A's and B's .gemm types, "i8 x u8", "i4 x u4", ...: the signless width and the signedness."""
    return " x ".join(f"{'u' if u else 'i'}{fn.args[i].type.element_type.width.data}"
                      for i, u in ((spec.a, spec.unsigned_a), (spec.b, spec.unsigned_b)))


def operands(spec: MatmulSpec, args: list, bits: int = 8) -> tuple[np.ndarray, np.ndarray]:
    """op(A) and op(B) as int64, each `bits`-bit element (i8, or i4) read by its operand's signedness."""
    out = []
    for i, t, unsigned in ((spec.a, spec.transpose_a, spec.unsigned_a), (spec.b, spec.transpose_b, spec.unsigned_b)):
        x = np.asarray(args[i], dtype=np.int64)
        x = (x & (2**bits - 1)) if unsigned else wrap(x, bits)
        out.append(x.T if t else x)
    return out[0], out[1]


def reference(spec: MatmulSpec, args: list, bits: int = 8) -> np.ndarray:
    """C of the declared integer program: op(A) @ op(B) (+ C0) in int64, wrapped to i32 (`bits`:
    A's and B's width, 8 or 4).  The int64 sum of K products of at most 2^15 each is exact for K < 2^48."""
    a, b = operands(spec, args, bits)
    c = a @ b
    if spec.beta is not None:
        c = c + np.asarray(args[spec.c], dtype=np.int64)
    return wrap(c, 32)


@dataclass(frozen=True)
class IntegerRun:
    """One run's comparison: C against the reference, element for element."""

    what: str  # the inputs, in words
    mismatches: int
    size: int
    first: tuple[int, int, int, int] | None  # (i, j, got, expected)

    @property
    def passed(self) -> bool:
        return self.mismatches == 0

    def describe(self) -> str:
        if self.passed:
            return f"{self.what}: C exact"
        i, j, got, want = self.first  # type: ignore[misc]
        return f"{self.what}: {self.mismatches} of {self.size} elements differ, first C[{i}, {j}] = {got} (expected {want})"


@dataclass(frozen=True)
class IntegerResult:
    """Both runs (what CheckResult.exact holds for an integer product)."""

    runs: tuple[IntegerRun, ...]

    @property
    def passed(self) -> bool:
        return all(r.passed for r in self.runs)

    @property
    def mismatches(self) -> int:
        return sum(r.mismatches for r in self.runs)

    def describe(self) -> str:
        return "; ".join(r.describe() for r in self.runs)


def compare_exact(got: np.ndarray, ref: np.ndarray, what: str) -> IntegerRun:
    differ = np.asarray(got, dtype=np.int64) != ref
    first = None
    if differ.any():
        i, j = (int(x) for x in np.argwhere(differ)[0])
        first = (i, j, int(got[i, j]), int(ref[i, j]))
    return IntegerRun(what, int(differ.sum()), int(differ.size), first)


def integer_runs(fn: func.FuncOp, spec: MatmulSpec, args: list, seed: int,
                 run: Callable[[list, Stats], None], stats: Stats) -> IntegerResult:
    """The random and the extremes run on `args` (arrays of the right shapes, replaced here)."""
    runs = []
    in_types = input_types(fn, spec)
    bits = fn.args[spec.a].type.element_type.width.data
    for n, extremes in enumerate((False, True)):
        rng = np.random.default_rng([seed, 7, n])
        for i, unsigned in ((spec.a, spec.unsigned_a), (spec.b, spec.unsigned_b), (spec.c, False)):
            args[i] = random_integers(rng, fn.args[i].type, args[i].shape, unsigned, extremes)
        ref = reference(spec, args, bits)
        run(args, stats if n == 0 else Stats())
        what = (f"{in_types} at the ends of their ranges, C0 at i32's" if extremes
                else f"random {in_types} over their whole ranges, C0 over i32's")
        runs.append(compare_exact(args[spec.c], ref, what))
    return IntegerResult(tuple(runs))
