"""The narrow formats on the harness's host (FP8, FP6, FP4 and E8M0 scales): each code's value,
the random fill and the packing of FP6 / FP4 rows, written into the harness as C++.

    format_of(t)                 the .gemm name of a narrow element type, or None
    helpers(name)                C++: the format's value table and its to-double and fill functions
    fill(name, out, gen, dist)   C++: the statement that fills byte `out` from generator `gen`
    rounding(name)               C++: gemmc_<name>_round(double), the nearest value (an FP8 C's reference)
    to_double(name, code)        C++: the value of `code` as a double
    values(name)                 numpy: each code's value; c_literal(v): a double as a C literal
    PACK_HELPERS                 C++: rows of FP4 / FP6 codes packed as global memory holds them

The values are ml_dtypes' (gemmc.support.arith_semantics.fp8_dtypes: the reference numerics of these
formats, as the interpreter's), printed into a table of the 2^bits codes, so the harness's
reference is the declared type's meaning, not a second decoder.  The fill is the interpreter's
(gemmc.interp.check.random_inputs): FP8 uniform in [-1, 1], FP6 and FP4 uniform over their
finite range, each rounded to the nearest code (ties to the even code); E8M0 scales powers of
two 2^-4 .. 2^4.  The packed layouts are gemmc.emit.fp4's and gemmc.emit.fp6's, which the
tests compare with the C++ below.
"""

from __future__ import annotations

import math

from xdsl.ir import Attribute

from gemmc.target.arch import ELEMENT_BITS
from gemmc.dialects.gemm import FP8_TYPES, MX_NARROW_TYPES, SCALE_NAME, SCALE_TYPES, type_name

NARROW = (*FP8_TYPES, *MX_NARROW_TYPES, *SCALE_TYPES)
SCALE_EXPONENTS = (-4, 4)  # E8M0 fills: 2^-4 .. 2^4, as the interpreter's random_inputs
PACKED_BITS = {name: ELEMENT_BITS[name] for name in MX_NARROW_TYPES}  # FP6 and FP4: packed in global memory


def format_of(t: Attribute) -> str | None:
    name = type_name(t) if t is not None else None
    return name if name in NARROW else None


def values(name: str) -> np.ndarray:
    """Each code's value (float64), by ml_dtypes."""
    import numpy as np  # in the function: lit's `gemmc opt` / `compile` runs never reach it
    from gemmc.support.arith_semantics import fp8_dtypes

    codes = np.arange(2 ** ELEMENT_BITS[name], dtype=np.uint8)
    return codes.view(fp8_dtypes()[name]).astype(np.float64)


def largest(name: str) -> float:
    """The largest finite value of the FP8 format `name`."""
    import numpy as np

    table = values(name)
    return float(table[np.isfinite(table)].max())


def c_literal(v: float) -> str:
    """A double as an exact C literal (hexadecimal; NAN, INFINITY from <cmath>)."""
    if math.isnan(v):
        return "NAN"
    if math.isinf(v):
        return "INFINITY" if v > 0 else "-INFINITY"
    return float(v).hex()


def _fill_codes(name: str, values: np.ndarray) -> list[int]:
    """The codes a fill may pick, by value: FP8's in [-1, 1], FP6's and FP4's every finite one
    (one zero: the fill rounds to the nearest, and -0 and +0 are the same distance away)."""
    import numpy as np
    finite = [c for c in range(len(values)) if np.isfinite(values[c]) and not (values[c] == 0 and c != 0)]
    if name in FP8_TYPES:
        finite = [c for c in finite if abs(values[c]) <= 1.0]
    return sorted(finite, key=lambda c: values[c])


def helpers(name: str) -> list[str]:
    """C++ for one format: gemmc_<name>_value[code], gemmc_<name>_to_double(code) and (but for
    E8M0, whose fill needs no table) gemmc_<name>_set(code&, float): the nearest code of the
    fill's range, ties to the even code."""
    table = values(name)
    rows = [", ".join(c_literal(v) for v in table[i : i + 8]) for i in range(0, len(table), 8)]
    out = ["", f"// {name}: the value of each code (ml_dtypes), the harness's reference numerics.",
           f"static const double gemmc_{name}_value[{len(table)}] = {{"]
    out += [f"    {r}," for r in rows]
    out += ["};", f"inline double gemmc_{name}_to_double(unsigned char c) {{ return gemmc_{name}_value[c]; }}"]
    if name == SCALE_NAME:
        return out
    codes = _fill_codes(name, table)
    out += ["// The codes a fill picks from, by value; a float is rounded to the nearest (ties to even).",
            *_nearest(name, "by_value", codes, f"inline void gemmc_{name}_set(unsigned char& out, float x)",
                      "    out = {nearest};")]
    return out


def rounding(name: str) -> list[str]:
    """C++: gemmc_<name>_round(double x), the value of `name` nearest to x (ties to the even code)
    over its whole finite range (one beyond it: the largest), as arith.truncf rounds a value that
    saturate has clamped: the reference of an FP8 C."""
    import numpy as np

    table = values(name)
    finite = sorted((c for c in range(len(table)) if np.isfinite(table[c]) and not (table[c] == 0 and c != 0)),
                    key=lambda c: table[c])
    return ["", f"// {name}: a double rounded to the nearest of its finite values, ties to the even code.",
            *_nearest(name, "finite", finite, f"inline double gemmc_{name}_round(double x)",
                      f"    return gemmc_{name}_value[{{nearest}}];")]


def _nearest(name: str, table: str, codes: list[int], signature: str, result: str) -> list[str]:
    """A function that finds the code of `codes` (sorted by value) nearest to x, ties to the even
    code, by bisection; `result` is its last statement, of `{nearest}`."""
    nearest = "below < above || (below == above && v[lo] % 2 == 0) ? v[lo] : v[hi]"
    return [f"static const unsigned char gemmc_{name}_{table}[{len(codes)}] = {{",
            *(f"    {', '.join(str(c) for c in codes[i : i + 16])}," for i in range(0, len(codes), 16)),
            "};",
            signature,
            "{",
            f"    const unsigned char* const v = gemmc_{name}_{table};",
            f"    int lo = 0, hi = {len(codes) - 1};",
            "    while (hi - lo > 1) // the last code at or below x, and the next",
            "    {",
            "        const int mid = (lo + hi) / 2;",
            f"        (gemmc_{name}_value[v[mid]] <= x ? lo : hi) = mid;",
            "    }",
            f"    const double below = x - gemmc_{name}_value[v[lo]], above = gemmc_{name}_value[v[hi]] - x;",
            result.format(nearest=f"({nearest})" if "return" in result else nearest),
            "}"]


def fill(name: str, out: str, gen: str, dist: str) -> str:
    """C++: fill byte `out` with a random code of format `name` (`dist`: uniform in [-1, 1])."""
    import numpy as np
    if name == SCALE_NAME:
        lo, hi = SCALE_EXPONENTS
        return f"{out} = static_cast<unsigned char>(127 + std::uniform_int_distribution<int>({lo}, {hi})({gen}));"
    table = values(name)
    top = 1.0 if name in FP8_TYPES else float(np.abs(table[np.isfinite(table)]).max())
    scale = "" if top == 1.0 else f"{top!r}f * "
    return f"gemmc_{name}_set({out}, {scale}{dist}({gen}));"


def to_double(name: str, code: str) -> str:
    return f"gemmc_{name}_to_double({code})"


PACK_HELPERS = [
    "",
    "// FP4 and FP6 rows as global memory holds them (docs/language.md): a row of n codes is a",
    "// little-endian bit stream of `bits` bits a code, starting at a byte, ceil(bits n / 8) bytes.",
    "inline std::vector<unsigned char> gemmc_pack_rows(const std::vector<unsigned char>& codes, size_t rows,",
    "                                                  size_t n, int bits)",
    "{",
    "    const size_t row_bytes = (n * bits + 7) / 8;",
    "    std::vector<unsigned char> packed(rows * row_bytes, 0);",
    "    for (size_t r = 0; r < rows; ++r)",
    "        for (size_t j = 0; j < n; ++j)",
    "            for (int b = 0; b < bits; ++b)",
    "                if (codes[r * n + j] >> b & 1)",
    "                {",
    "                    const size_t bit = j * bits + b;",
    "                    packed[r * row_bytes + bit / 8] |= static_cast<unsigned char>(1u << bit % 8);",
    "                }",
    "    return packed;",
    "}",
]
