"""Element types of the buffers this backend selects, and constants' bits in them.

f32 (4 bytes), f16 and bf16 (2), and the FP8 formats (1); constants rounded as arith.truncf
rounds (to nearest even), for the immediates of 16-bit and FP8 values.
"""

from __future__ import annotations

from xdsl.dialects.builtin import BFloat16Type, Float16Type, Float32Type, IntegerAttr, MemRefType
from xdsl.ir import Attribute


def element_bytes(t: MemRefType) -> int | None:
    """Bytes of an element of the buffers this backend selects (f32, f16, bf16, FP8), else None."""
    e = t.element_type
    if isinstance(e, Float32Type):
        return 4
    if isinstance(e, (Float16Type, BFloat16Type)):
        return 2
    return 1 if fp8_name(e) is not None else None


def fp8_name(t: Attribute) -> str | None:
    """The FP8 format of type t (f8e4m3fnuz, f8e5m2fnuz, f8e4m3fn, f8e5m2), else None."""
    from gemmc.interp.common import fp8_format

    name = fp8_format(t)
    return name if name in ("f8e4m3fnuz", "f8e5m2fnuz", "f8e4m3fn", "f8e5m2") else None


def fp8_bits(x: float, t: Attribute) -> int:
    """The byte of x rounded to FP8 format t (to nearest even, as arith.truncf)."""
    import numpy as np

    from gemmc.support.arith_semantics import fp8_dtypes

    return int(np.array(x, np.float64).astype(fp8_dtypes()[fp8_name(t)]).view(np.uint8))


def half_bits(x: float, t: Attribute) -> int:
    """The 16 bits of x rounded to f16 or bf16 (to nearest even, as arith.truncf)."""
    import numpy as np

    if isinstance(t, Float16Type):
        return int(np.array(x, np.float32).astype(np.float16).view(np.uint16))
    from gemmc.support.arith_semantics import to_bf16

    return int(to_bf16(np.array([x], np.float32)).view(np.uint32)[0] >> np.uint32(16))


def half_value(bits: int, t: Attribute) -> float:
    import numpy as np

    if isinstance(t, Float16Type):
        return float(np.array(bits, np.uint16).view(np.float16))
    return float(np.array(bits << 16, np.uint32).view(np.float32))


def memory_space(t: MemRefType) -> int:
    ms = t.memory_space
    if isinstance(ms, IntegerAttr):
        return ms.value.data
    return 1
