"""The launch's buffers as the device holds them: the host's numpy arrays as 32-bit words (f32
4 bytes an element, f16 and bf16 2, bf16 the upper half of the host's float32, FP8 and the E8M0
scales 1, the host's float32 as ml_dtypes encodes the format; FP4 and FP6 packed, each row a
little-endian bit stream as gemmc's HIP reads them: gemmc.support.bitfields) and back, and the
kernarg segment as the kernel's metadata lays it out."""

from __future__ import annotations

import numpy as np

from gemmc.amdgcn.interp.state import BUFFER_SHIFT, U32, GcnInterpError
from gemmc.support.bitfields import pack_fields, row_bytes, unpack_fields
from gemmc.dialects.amdgcn.kernel import KernelOp, kernel_args

FP8_FORMATS = ("f8e4m3fnuz", "f8e5m2fnuz", "f8e4m3fn", "f8e5m2")
BYTE_FORMATS = (*FP8_FORMATS, "f8e8m0fnu")  # one byte an element
PACKED_BITS = {"f4e2m1fn": 4, "f6e2m3fn": 6, "f6e3m2fn": 6}  # bits an element, rows packed
NARROW_FORMATS = (*BYTE_FORMATS, *PACKED_BITS)


def kernarg_segment(kernel: KernelOp, operands: list, buffer_index: dict[int, int], grid=(1, 1, 1),
                    block=(1, 1, 1)) -> np.ndarray:
    """The kernarg segment (as 32-bit words) for the launch operands: gemmc's own kernels' args,
    and LLVM's (by_value, and the hidden arguments of code object v5 that the launch fills)."""
    size = kernel.int_attr("kernarg_size")
    args = kernel_args(kernel)
    size = max([size] + [a["offset"] + a.get("size", 4) for a in args])
    seg8 = np.zeros(max(4, -(-size // 4) * 4), np.uint8)
    seg = seg8.view(U32)
    for a in args:
        o, kind = a["offset"], a["kind"]
        if kind == "global_buffer":
            if a["arg"] not in buffer_index:  # None: the null pointer (Triton's unused scratch pointers)
                continue
            base = (buffer_index[a["arg"]] + 1) << BUFFER_SHIFT
            seg[o // 4], seg[o // 4 + 1] = base & 0xFFFFFFFF, base >> 32
        elif "dim" in a:
            seg[o // 4] = U32(operands[a["dim_arg"]].shape[a["dim_axis"]])
        elif kind == "by_value_bytes":  # LLVM's by_value: the operand's own type
            _put(seg8, o, a["size"], _scalar_bytes(operands[a["arg"]], a["size"]))
        elif kind.startswith("hidden_"):
            _put(seg8, o, a["size"], np.asarray(_hidden(kind, grid, block), np.uint64).tobytes())
        else:
            seg[o // 4] = np.asarray(operands[a["arg"]], dtype=np.float32).reshape(()).view(U32)
    return seg


def _scalar_bytes(x, size: int) -> bytes:
    """A by-value argument's bytes: integers as integers, floats as f32 (f64 where 8 bytes)."""
    v = np.asarray(x).reshape(())
    if np.issubdtype(v.dtype, np.integer) or v.dtype == bool:
        return np.asarray(int(v), np.int64).tobytes()
    return np.asarray(v, np.float32 if size == 4 else np.float64).tobytes()


def _put(seg8: np.ndarray, offset: int, size: int, data: bytes) -> None:
    seg8[offset:offset + size] = np.frombuffer(data[:size].ljust(size, b"\0"), np.uint8)


# code object v5's hidden arguments the launch knows (AMDGPUUsage, "Code Object V5 Metadata"):
# the grid in workgroups, the workgroup size, the partial workgroups' sizes (none: the grid is
# whole workgroups) and the grid's dimensions; any other hidden argument is zero
def _hidden(kind: str, grid, block) -> int:
    axis = "xyz".index(kind[-1]) if kind[-2:] in ("_x", "_y", "_z") else None
    if kind.startswith("hidden_block_count_") and axis is not None:
        return grid[axis]
    if kind.startswith("hidden_group_size_") and axis is not None:
        return block[axis]
    if kind == "hidden_grid_dims":
        return 3 if grid[2] * block[2] > 1 else 2 if grid[1] * block[1] > 1 else 1
    return 0


def device_words(x: np.ndarray, elem: str) -> tuple[np.ndarray, int]:
    """(the 32-bit words, the bytes) of host array x as the device holds elements of type
    `elem`: f32, f16, bf16 (held as float32 on the host, its upper 16 bits on the device), an
    FP8, E8M0, FP6 or FP4 format (held as float32 on the host, its codes on the device), or an
    integer product's i8 (i8 or u8 bytes), i4 (i4 or u4 nibbles, rows packed) or i32 (held as int64
    on the host)."""
    if elem == "f32":
        raw = np.ascontiguousarray(x, np.float32).reshape(-1).view(U32)
        return raw.copy(), 4 * raw.size
    if elem in NARROW_FORMATS:
        return _narrow_words(x, elem)
    if elem == "i4":  # an i4 / u4 operand (int64 on the host): its nibbles, rows packed as FP4's
        codes = (np.ascontiguousarray(x, np.int64) & 15).astype(np.uint8)
        return _byte_words(pack_fields(codes.reshape(-1, x.shape[-1] if x.ndim else 1), 4).reshape(-1))
    if elem in ("i8", "i32"):  # an integer product's (held as int64 on the host): the low 8 / 32 bits
        bits = np.ascontiguousarray(x, np.int64).reshape(-1).astype(np.uint8 if elem == "i8" else U32)
        if elem == "i32":
            return bits.copy(), 4 * bits.size
        padded8 = np.zeros(-(-bits.size // 4) * 4, np.uint8)
        padded8[:bits.size] = bits
        return padded8.view(U32), bits.size
    if elem == "f16":
        half = np.ascontiguousarray(x, np.float16).reshape(-1).view(np.uint16)
    elif elem == "bf16":
        half = (np.ascontiguousarray(x, np.float32).reshape(-1).view(U32) >> U32(16)).astype(np.uint16)
    else:
        raise GcnInterpError(f"amdgcn interpreter: buffers of {elem} are not supported")
    padded = np.zeros(-(-half.size // 2) * 2, np.uint16)
    padded[:half.size] = half
    return padded.view(U32), 2 * half.size


def host_values(words: np.ndarray, elem: str, like: np.ndarray) -> np.ndarray:
    """The device words back as host values of `like`'s shape and dtype (device_words' inverse)."""
    if elem == "f32":
        return words.view(np.float32)[:like.size].reshape(like.shape)
    if elem in NARROW_FORMATS:
        return _narrow_values(words, elem, like)
    if elem == "i32":
        return words.view(np.int32)[:like.size].astype(like.dtype).reshape(like.shape)
    if elem == "i4":  # an operand the kernel only reads: a nibble left as it was keeps the host's value
        n = like.shape[-1] if like.ndim else 1
        rows = words.view(np.uint8)[:like.size // n * row_bytes(n, 4)].reshape(-1, row_bytes(n, 4))
        codes = unpack_fields(rows, 4, n).reshape(like.shape).astype(np.int64)
        same = (np.asarray(like, np.int64) & 15) == codes
        return np.where(same, like, codes).astype(like.dtype)
    if elem == "i8":  # a byte the kernel left keeps the host's value (a u8's 200 stays 200, not -56)
        byte = words.view(np.uint8)[:like.size].reshape(like.shape)
        same = (np.asarray(like, np.int64) & 0xFF) == byte
        return np.where(same, like, byte.view(np.int8)).astype(like.dtype)
    half = words.view(np.uint16)[:like.size]
    if elem == "f16":
        return half.view(np.float16).reshape(like.shape)
    return (half.astype(U32) << U32(16)).view(np.float32).reshape(like.shape)


def _codes(x: np.ndarray, elem: str) -> np.ndarray:
    """The format's codes (uint8, ml_dtypes' encoding) of host values, in x's shape."""
    from gemmc.support.arith_semantics import fp8_dtypes

    return np.ascontiguousarray(x).astype(fp8_dtypes()[elem]).view(np.uint8)


def _byte_words(byte: np.ndarray) -> tuple[np.ndarray, int]:
    """device_words of bytes: padded to whole words."""
    padded8 = np.zeros(-(-byte.size // 4) * 4, np.uint8)
    padded8[:byte.size] = byte
    return padded8.view(U32), byte.size


def _narrow_words(x: np.ndarray, elem: str) -> tuple[np.ndarray, int]:
    """device_words of an FP8, E8M0 (a byte a code), FP6 or FP4 array (rows, the last axis,
    packed; a scalar or a vector is one row)."""
    codes = _codes(x, elem).reshape(-1, x.shape[-1] if x.ndim else 1)
    if elem in PACKED_BITS:
        codes = pack_fields(codes, PACKED_BITS[elem])
    byte = codes.reshape(-1)
    padded8 = np.zeros(-(-byte.size // 4) * 4, np.uint8)
    padded8[:byte.size] = byte
    return padded8.view(U32), byte.size


def _narrow_values(words: np.ndarray, elem: str, like: np.ndarray) -> np.ndarray:
    """_narrow_words' inverse: host values of `like`'s shape and dtype."""
    from gemmc.support.arith_semantics import fp8_dtypes

    n = like.shape[-1] if like.ndim else 1
    if elem in PACKED_BITS:
        bits = PACKED_BITS[elem]
        rows = words.view(np.uint8)[:like.size // n * row_bytes(n, bits)].reshape(-1, row_bytes(n, bits))
        codes = unpack_fields(rows, bits, n)
    else:
        codes = words.view(np.uint8)[:like.size]
    return codes.reshape(-1).view(fp8_dtypes()[elem]).astype(like.dtype).reshape(like.shape)
