"""The C types of IR types in the printed HIP, and the type tests the printers share.

    scalar_ctype(f16)               -> "_Float16"
    vector_typedef(vector<4xf32>)   -> ("v4float", "typedef float v4float __attribute__((ext_vector_type(4)));")

FP8, FP6, FP4 and E8M0 values are their codes, a byte each (`unsigned char`): clang has no
type of theirs, so only the printers that know the formats compute with them.
"""

from __future__ import annotations

import re

from xdsl.dialects.builtin import (
    BFloat16Type,
    Float8E4M3FNType,
    Float8E4M3FNUZType,
    Float8E5M2FNUZType,
    Float8E5M2Type,
    Float8E8M0FNUType,
    Float16Type,
    Float32Type,
    Float64Type,
    Float4E2M1FNType,
    Float6E2M3FNType,
    Float6E3M2FNType,
    IndexType,
    IntegerType,
    MemRefType,
    NoneAttr,
    VectorType,
)
from xdsl.ir import Attribute, Operation

from gemmc.emit.ir_access import emit_error

FLOAT_C = {Float32Type: "float", Float16Type: "_Float16", BFloat16Type: "__bf16", Float64Type: "double"}
_FLOAT_VEC = {Float32Type: "float", Float16Type: "half", BFloat16Type: "bf16", Float64Type: "double"}
_FLOAT_EPS = {Float32Type: 2.0**-23, Float16Type: 2.0**-10, BFloat16Type: 2.0**-7, Float64Type: 2.0**-52}
# i8 and i32 as <stdint.h> spells them (the prelude defines them where HIP's header is absent);
# a u8 operand (signless i8 in the IR) is a uint8_t pointer (gemm.unsigned_args), its elements
# read back as uint8_t by arith.extui
_INT_C = {1: "bool", 8: "int8_t", 16: "short", 32: "int32_t", 64: "long long"}
UINT_C = {8: "uint8_t", 16: "unsigned short", 32: "uint32_t", 64: "unsigned long long"}
FIXED_WIDTH_INTS = ("int8_t", "uint8_t", "int32_t", "uint32_t")
FIXED_WIDTH_TYPEDEFS = ["typedef __INT8_TYPE__ int8_t;", "typedef __UINT8_TYPE__ uint8_t;",
                        "typedef __INT32_TYPE__ int32_t;", "typedef __UINT32_TYPE__ uint32_t;"]
"""<stdint.h>'s integers from the compiler's own macros (a device-only build has no C library
headers); the same types as <stdint.h>'s, so a file that also includes it redeclares them
harmlessly."""
_INT_VEC = {8: "char", 16: "short", 32: "int", 64: "long"}
# FP8 values are their bytes (unsigned char, vectors v<n>uchar): clang has no FP8 type.
# Converted to float by the target's v_cvt_f32_fp8 / _bf8, and f32 vectors to FP8 by
# v_cvt_pk_fp8_f32 / _bf8_f32 (their builtins), which read and write the arch's formats (FNUZ
# on gfx942, OCP on gfx950 and gfx1201), the only ones the arch takes (gemmc.emit.arith).
_FP8_TYPES = (Float8E4M3FNUZType, Float8E5M2FNUZType, Float8E4M3FNType, Float8E5M2Type)


def is_fp8(t: Attribute) -> bool:
    return isinstance(t, _FP8_TYPES)


def is_e8m0(t: Attribute) -> bool:
    return isinstance(t, Float8E8M0FNUType)


def is_fp4(t: Attribute) -> bool:
    """FP4 E2M1: one element a byte (its code) in registers and LDS, packed two a byte in
    global memory (MemrefView.packed; the layout: gemmc.emit.fp4)."""
    return isinstance(t, Float4E2M1FNType)


def is_fp6(t: Attribute) -> bool:
    """FP6 E2M3 / E3M2: one element a byte (its code) in registers and LDS, packed 6 bits an
    element in global memory (MemrefView.packed; the layout: gemmc.emit.fp6)."""
    return isinstance(t, Float6E2M3FNType | Float6E3M2FNType)


def is_int4(t: Attribute) -> bool:
    """i4 (and u4: signless i4 in the IR): one element a byte, its nibble (0 .. 15, the two's-complement
    or unsigned code), in registers and LDS, packed two a byte in global memory as FP4 is
    (gemmc.emit.fp4's layout: element 2j the low nibble of byte j); arith.extsi / extui widen the code."""
    return isinstance(t, IntegerType) and t.width.data == 4


def is_nibble(t: Attribute) -> bool:
    """FP4 and i4: packed two a byte in global memory (gemmc.emit.fp4's layout)."""
    return is_fp4(t) or is_int4(t)


def is_sub_byte(t: Attribute) -> bool:
    """FP4, FP6 and i4: codes a byte each inside a kernel, packed in global memory."""
    return is_nibble(t) or is_fp6(t)


def scalar_ctype(t: Attribute, op: Operation | None = None) -> str:
    """The C type of a scalar IR type."""
    if isinstance(t, IndexType):
        return "int"
    if isinstance(t, IntegerType) and t.width.data in _INT_C:
        return _INT_C[t.width.data]
    if is_int4(t):  # its code, as FP4's
        return "unsigned char"
    for cls, name in FLOAT_C.items():
        if isinstance(t, cls):
            return name
    if is_fp8(t) or is_sub_byte(t) or isinstance(t, Float8E8M0FNUType):  # FP8, FP6, FP4 and E8M0 scales: bytes
        return "unsigned char"
    raise emit_error(op, f"no C type for {t}")


def float_eps(t: Attribute) -> float | None:
    for cls, eps in _FLOAT_EPS.items():
        if isinstance(t, cls):
            return eps
    return None


# nvcc has no ext_vector_type: on the sm_90 target a vector of 16-bit floats is this aggregate,
# which does what the printed code asks of a vector (brace initialization, aligned loads and
# stores through a cast pointer, .x-.w up to 4 lanes, [i]); HipEmitter prints it once before
# the typedefs that name it (the key sorts first).
CUDA_VECTOR_KEY = "gemmc_vec"
CUDA_VECTOR_TEMPLATE = """template <typename T, int N> struct alignas(sizeof(T) * N) gemmc_vec
{
    T e[N];
    __host__ __device__ T& operator[](int i) { return e[i]; }
    __host__ __device__ const T& operator[](int i) const { return e[i]; }
};
template <typename T> struct alignas(sizeof(T) * 2) gemmc_vec<T, 2>
{
    T x, y;
    __host__ __device__ T& operator[](int i) { return (&x)[i]; }
    __host__ __device__ const T& operator[](int i) const { return (&x)[i]; }
};
template <typename T> struct alignas(sizeof(T) * 4) gemmc_vec<T, 4>
{
    T x, y, z, w;
    __host__ __device__ T& operator[](int i) { return (&x)[i]; }
    __host__ __device__ const T& operator[](int i) const { return (&x)[i]; }
};"""


def cuda_vector_typedef(t: VectorType, op: Operation | None = None) -> tuple[str, str]:
    """vector_typedef for nvcc (the sm_90 target): every vector but float2 / float4 (CUDA's own) as
    gemmc_vec: 16-bit floats, FP8's bytes, integers."""
    name, typedef = vector_typedef(t, op)
    if not is_cuda_float_vector(t):
        typedef = cuda_vector_text(name, scalar_ctype(t.element_type, op), t.get_shape()[0])
    return name, typedef


def is_cuda_float_vector(t: VectorType) -> bool:
    """float2 / float4: the vectors CUDA has types of its own for."""
    return isinstance(t.element_type, Float32Type) and t.get_shape()[0] in (2, 4)


def cuda_vector_text(name: str, ctype: str, n: int) -> str:
    return f"typedef gemmc_vec<{ctype}, {n}> {name};"


def vector_typedef(t: VectorType, op: Operation | None = None) -> tuple[str, str]:
    """(name, typedef) of a 1-D vector type as a clang ext_vector_type: v4float, v8half."""
    shape = t.get_shape()
    if len(shape) != 1:
        raise emit_error(op, f"only 1-D vectors print as HIP vector types, not {t}")
    elem = t.element_type
    base = None
    for cls, name in _FLOAT_VEC.items():
        if isinstance(elem, cls):
            base = name
    if isinstance(elem, IntegerType) and elem.width.data in _INT_VEC:
        base = _INT_VEC[elem.width.data]
    if isinstance(elem, IndexType):
        base = "int"
    if is_fp8(elem) or is_sub_byte(elem) or isinstance(elem, Float8E8M0FNUType):
        base = "uchar"  # (i4 too: codes)
    if base is None:
        raise emit_error(op, f"no HIP vector type for {t}")
    name = f"v{shape[0]}{base}"
    typedef = f"typedef {scalar_ctype(elem, op)} {name} __attribute__((ext_vector_type({shape[0]})));"
    if is_cuda_float_vector(t):
        # nvcc (HIP on NVIDIA) has no ext_vector_type; CUDA's aligned float2/float4 do what
        # the printed code asks of them: loads, stores, .x-.w, brace initialization.
        typedef = f"#ifdef __CUDACC__\ntypedef float{shape[0]} {name};\n#else\n{typedef}\n#endif"
    return name, typedef


def element_type_of(t: Attribute) -> Attribute:
    return t.element_type if isinstance(t, VectorType) else t


def is_byte_float(t: Attribute) -> bool:
    return is_fp8(t) or is_sub_byte(t) or is_e8m0(t)


def identity_layout(t: MemRefType) -> bool:
    """Row-major without offsets: no layout, or one that prints as the identity."""
    layout = t.layout
    if layout is None or isinstance(layout, NoneAttr):
        return True
    text = str(layout)
    m = re.fullmatch(r"affine_map<\(([^)]*)\) -> \(([^)]*)\)>", text)
    return bool(m) and m.group(1) == m.group(2)
