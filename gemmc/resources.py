"""LDS a kernel allocates: the one count that the tiling passes' checks and the cost model use.

    lds_bytes(kernel)              bytes of the memory-space-3 allocations of a gpu.func
    buffer_bytes(shapes, bytes)    bytes of buffers of these shapes (what a schedule will allocate)

The tiling passes check a schedule before they build its kernel, so they count the
buffers the schedule will allocate (gemmc.schedule.Schedule.lds_tiles); the cost model
and the analyses count the kernel's allocations.  Both are `buffer_bytes`, so the two
agree on every kernel a schedule builds.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from xdsl.dialects import memref
from xdsl.dialects.builtin import MemRefType
from xdsl.ir import Operation

from gemmc.ir_names import LDS_SPACE, memory_space

ELEMENT_BYTES = {"f32": 4, "f16": 2, "bf16": 2, "f64": 8, "i8": 1, "i32": 4}
"""Bytes of an element type on the device, by its IR name (bf16 is 2)."""


def buffer_bytes(shapes: Iterable[Sequence[int]], elem_bytes: int) -> int:
    """Bytes of buffers of these static shapes (a dynamic dim counts as one element)."""
    total = 0
    for shape in shapes:
        n = 1
        for d in shape:
            n *= max(d, 1)
        total += n * elem_bytes
    return total


def lds_bytes(kernel: Operation) -> int:
    """LDS a workgroup of `kernel` allocates: its memref.alloca and memref.alloc ops in
    memory space 3 (gemmc's passes write alloca; hand-written IR may use alloc)."""
    total = 0
    for op in kernel.walk():
        t = op.memref.type if isinstance(op, (memref.AllocaOp, memref.AllocOp)) else None
        if isinstance(t, MemRefType) and memory_space(t) == LDS_SPACE:
            total += buffer_bytes([t.get_shape()], ELEMENT_BYTES.get(str(t.element_type), 4))
    return total
