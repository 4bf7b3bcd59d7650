"""f32 erf and tanh for the AMD targets' HIP, printed as device functions.

gemmc compiles HIP with `-nogpulib` (no ROCm device library: a plain LLVM 22 clang has none), so
`erff` would be an unresolved call and `tanhf` does not compile ("no libcall available for
ftanh"); `__builtin_expf` is LLVM's llvm.exp.f32, which the AMDGPU backend expands inline.  These
are built on it: odd polynomials near 0 (no cancellation) and the exp forms further out, their
coefficients fitted by least squares in float64 (20001 points) and rounded to f32.  Evaluated in
float32 with exact fmas and a correctly rounded exp (`emulate`, which tests/test_epilogue.py runs on
dense grids): erf within 1.1 ulp, tanh within 1.5 ulp of the float64 functions, inside the bound
gemmc.interp.epilogue_ref allows a library function (LIBM_ULPS).  sm_90 (nvcc) uses CUDA's own
erff and tanhf.
"""

from __future__ import annotations

import struct

# erf(x) = x + x Q(x^2) for |x| < 1 (Q fitted to erf(x) / x - 1), highest power first
ERF_SMALL = (1.0728608685894869e-06, -1.3962456250737887e-05, 0.0001196476659970358, -0.0008543294970877469,
             0.005223812535405159, -0.026866139844059944, 0.11283791065216064, -0.37612637877464294,
             0.12837916612625122)
# erf(x) = 1 - exp(P(|x|)) for 1 <= |x| < 4 (P fitted to log(erfc(x)) on [0.95, 4])
ERF_LARGE = (3.9542825902572076e-08, -1.1261416830166127e-06, 1.4253556400944944e-05, -0.0001040890856529586,
             0.0004640732950065285, -0.0010827118530869484, -0.000912946299649775, 0.020296737551689148,
             -0.10344063490629196, -0.6364924907684326, -1.1283197402954102, -2.687915366550442e-05)
ERF_ONE = 4.0  # erfc(4) = 1.5e-8 < 2^-25: erf rounds to +-1 from here
# tanh(x) = x + x s T(s), s = x^2, for |x| < TANH_SMALL_END (T fitted to (tanh(x) / x - 1) / s)
TANH_SMALL = (0.0003625700483098626, -0.0013499921187758446, 0.0035648748744279146, -0.008859198540449142,
              0.021869150921702385, -0.053968239575624466, 0.13333334028720856, -0.3333333432674408)
TANH_SMALL_END = 0.55  # ~ log(3) / 2: beyond it 1 - 2 / (exp(2|x|) + 1) cancels less than a bit
TANH_ONE = 9.0  # 1 - tanh(9) = 3e-8 < 2^-25


def _lit(c: float) -> str:
    # f32's nearest (ties to even) by struct, not numpy: these helpers' text is built when the
    # module is imported, by every HIP emission, and numpy would double a compile's start-up
    return f"{struct.unpack('<f', struct.pack('<f', c))[0]!r}f"


def _horner(name: str, var: str, cs: tuple[float, ...], indent: str) -> list[str]:
    out = [f"{indent}float {name} = {_lit(cs[0])};"]
    out += [f"{indent}{name} = __builtin_fmaf({name}, {var}, {_lit(c)});" for c in cs[1:]]
    return out


ERF_HELPER = [
    "// erf in f32 (no device library under -nogpulib): gemmc.emit.math_helpers",
    "__device__ inline float gemmc_erf(float x)", "{", "    float t = __builtin_fabsf(x);",
    "    if (t < 1.0f) {", "        float s = x * x;", *_horner("q", "s", ERF_SMALL, "        "),
    "        return __builtin_fmaf(x, q, x);", "    }",
    f"    if (t >= {_lit(ERF_ONE)}) return __builtin_copysignf(1.0f, x);",
    *_horner("p", "t", ERF_LARGE, "    "),
    "    return __builtin_copysignf(1.0f - __builtin_expf(p), x);", "}",
]

TANH_HELPER = [
    "// tanh in f32 (no device library under -nogpulib): gemmc.emit.math_helpers",
    "__device__ inline float gemmc_tanh(float x)", "{", "    float t = __builtin_fabsf(x);",
    f"    if (t < {_lit(TANH_SMALL_END)}) {{", "        float s = x * x;", *_horner("q", "s", TANH_SMALL, "        "),
    "        return __builtin_fmaf(x * s, q, x);", "    }",
    f"    if (t >= {_lit(TANH_ONE)}) return __builtin_copysignf(1.0f, x);",
    "    return __builtin_copysignf(1.0f - 2.0f / (__builtin_expf(2.0f * t) + 1.0f), x);", "}",
]

HELPERS = {"math.erf": ("gemmc_erf", ERF_HELPER), "math.tanh": ("gemmc_tanh", TANH_HELPER)}


# -- the same arithmetic in numpy, for measuring it ----------------------------------------


def _f32(x) -> np.ndarray:
    import numpy as np  # in the function: lit's `gemmc opt` / `compile` runs never reach it
    return np.asarray(x, dtype=np.float64).astype(np.float32)


def _fma(a, b, c) -> np.ndarray:
    """One rounding to f32 (float64 holds an f32 product exactly)."""
    import numpy as np
    return _f32(np.asarray(a, np.float64) * np.asarray(b, np.float64) + np.asarray(c, np.float64))


def _poly(cs: tuple[float, ...], v: np.ndarray) -> np.ndarray:
    import numpy as np
    r = np.full(v.shape, np.float32(cs[0]), dtype=np.float32)
    for c in cs[1:]:
        r = _fma(r, v, np.float32(c))
    return r


def emulate(name: str, x: np.ndarray) -> np.ndarray:
    """The helper's result in float32 arithmetic, step for step (exp correctly rounded)."""
    import numpy as np
    x = _f32(x)
    t = np.abs(x)
    s = _f32(x.astype(np.float64) * x)
    exp = lambda v: _f32(np.exp(np.asarray(v, np.float64)))  # noqa: E731
    if name == "math.erf":
        small = _fma(x, _poly(ERF_SMALL, s), x)
        large = np.copysign(_f32(1.0 - exp(_poly(ERF_LARGE, t)).astype(np.float64)), x)
        return np.where(t < 1.0, small, np.where(t >= ERF_ONE, np.copysign(np.float32(1), x), large))
    xs = _f32(x.astype(np.float64) * s)
    small = _fma(xs, _poly(TANH_SMALL, s), x)
    with np.errstate(over="ignore"):
        d = _f32(exp(_f32(2.0 * t.astype(np.float64))).astype(np.float64) + 1.0)
    q = _f32(2.0 / d.astype(np.float64))
    large = np.copysign(_f32(1.0 - q.astype(np.float64)), x)
    return np.where(t < TANH_SMALL_END, small, np.where(t >= TANH_ONE, np.copysign(np.float32(1), x), large))
