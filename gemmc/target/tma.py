"""Hopper's tensor memory accelerator (TMA, sm_90): the limits gemmc's TMA copies respect, as data.

From the CUDA driver API's cuTensorMapEncodeTiled (CUDA 12/13 reference): a tensor map describes a
row-major matrix by its global address (16-byte aligned), its dims (innermost first), its strides in
bytes (each a multiple of 16, below 2^40), the box each copy moves (each box dim 1 .. 256 elements,
the inner one a multiple of 16 bytes; with CU_TENSOR_MAP_SWIZZLE_128B at most 128 bytes), the element
strides (1), interleave none, the swizzle and the out-of-bounds fill (CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE:
zeros).  From the PTX ISA (cp.async.bulk.tensor): the shared-memory destination is 128-byte aligned, and
with the 128-byte swizzle the pattern repeats every 1024 bytes of the shared address (gemmc's wgmma tiles
are 1024-byte aligned: gemmc.target.wgmma).  The map (CUtensorMap, 128 bytes, 64-byte aligned) is passed
as a `const __grid_constant__` kernel parameter.
"""

from __future__ import annotations

BOX_MAX = 256  # elements a box dimension
STRIDE_BYTES = 16  # a global stride (and the inner box row) is a multiple of this
SMEM_ALIGN = 128  # a box's shared-memory start, without swizzle
SWIZZLES = (0, 128)  # the swizzles gemmc issues: none, or wgmma's 128-byte one (CU_TENSOR_MAP_SWIZZLE_128B)
# the tensor map's element types, by gemmc's type name (CUtensorMapDataType)
DATA_TYPES = {"f16": "CU_TENSOR_MAP_DATA_TYPE_FLOAT16", "bf16": "CU_TENSOR_MAP_DATA_TYPE_BFLOAT16",
              "f32": "CU_TENSOR_MAP_DATA_TYPE_FLOAT32"}
SWIZZLE_ENUM = {0: "CU_TENSOR_MAP_SWIZZLE_NONE", 128: "CU_TENSOR_MAP_SWIZZLE_128B"}
# the driver entry point's version (cudaGetDriverEntryPointByVersion): cuTensorMapEncodeTiled's ABI of CUDA 12.0
ENCODE_VERSION = 12000
