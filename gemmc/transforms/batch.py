"""A batched kernel: its batch is the grid's z, and each batched argument is the matrix of its batch.

gemm-to-kernel lowers a batched gemm.matmul (memrefs of rank 3, [Bt, rows, cols]) to a kernel whose
arguments are the matrices of one batch, memrefs of rank 2, [rows, cols], and lists the batched ones in
`gemm.batch_args`; the host launches Bt workgroups along z (times split-k's factor: z = batch * splits
+ split, `gemm.batch_split` = splits) and passes the rank-3 memrefs.  A workgroup at block_id.z reads
and writes, through a batched argument, the matrix number block_id.z / batch_split of it: the HIP
moves the pointer by that many matrices at the kernel's entry, the interpreters offset the buffer.
An argument not listed (a broadcast operand, a bias vector) is the same for every batch.

So the kernel body is the unbatched kernel: every tiling, matrix-core and copy pass carries a batched
kernel as it is, and only what reads block_id.z (split-k, stream-k) or launches the kernel needs to
know (`batch_args`, `batch_split`).
"""

from __future__ import annotations

from xdsl.dialects import gpu
from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, MemRefType, i64
from xdsl.ir import Attribute, Operation

from gemmc.support.ir_names import BATCH_ARGS_ATTR, BATCH_SPLIT_ATTR


def batch_args(kernel: Operation) -> list[int]:
    """The kernel's batched argument indices (empty: not batched)."""
    attr = kernel.attributes.get(BATCH_ARGS_ATTR)
    return list(attr.get_values()) if isinstance(attr, DenseArrayBase) else []


def is_batched(kernel: Operation) -> bool:
    return bool(batch_args(kernel))


def batch_split(kernel: Operation) -> int:
    """Workgroups along z per batch (1 unless split-k split the batched kernel)."""
    attr = kernel.attributes.get(BATCH_SPLIT_ATTR)
    return attr.value.data if isinstance(attr, IntegerAttr) else 1


def set_batch(kernel: gpu.FuncOp, args: list[int], split: int = 1) -> None:
    kernel.attributes[BATCH_ARGS_ATTR] = DenseArrayBase.from_list(i64, args)
    if split != 1:
        kernel.attributes[BATCH_SPLIT_ATTR] = IntegerAttr(split, i64)


def matrix_type(t: Attribute) -> Attribute:
    """A batched memref's matrix (its last two dims); anything else as it is."""
    if isinstance(t, MemRefType) and t.get_num_dims() == 3:
        return MemRefType(t.element_type, t.get_shape()[1:], t.layout, t.memory_space)
    return t


def batch_of(kernel: Operation, z: int) -> int:
    """The batch that the workgroups at block_id.z = z work on."""
    return z // batch_split(kernel)
