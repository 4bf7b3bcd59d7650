"""The nvgpu dialect (after MLIR's): NVIDIA's warp-level tensor-core op, its fragment loads and
asynchronous copies, for the sm_90 target.

    %d = nvgpu.mma_sync %a * %b + %c {m = 16 : i32, n = 8 : i32, k = 16 : i32}
           : vector<8xf16>, vector<4xf16>, vector<4xf32>

One warp computes D[16 x 8] = A[16 x 16] @ B[16 x 8] + C with `mma.sync.aligned.m16n8k16`, each
lane passing the elements of A, B and C that the instruction's lane layouts give it
(gemmc.target.arch.MatrixInstr.a / .b / .d, the PTX ISA's fragment tables).  MLIR's
nvgpu.mma.sync takes A as vector<4x2xf16> (its registers); gemmc's lowering, interpreter and
printer take every matrix op's operands as flat per-lane vectors, so this op does too.  It is
verified like amdgpu.mfma / amdgpu.wmma (the shapes and types must name an instruction of the
module's target: gemmc.dialects.amdgpu.MatrixOpBase).

    %a = nvgpu.ldmatrix %tile_a[%s, %r, %c] {numTiles = 4 : i32} : memref<2x128x40xf16, 3 : i64> -> vector<8xf16>
    nvgpu.device_async_copy %A[%g0, %g1], %tile_a[%s, %i0, %i1], %n {dstElements = 8 : i32}
        : memref<4096x4096xf16> to memref<2x128x40xf16, 3 : i64>
    nvgpu.device_async_create_group
    nvgpu.device_async_wait {numGroups = 1 : i32}

ldmatrix (`.trans` with the `transpose` property) gives each lane its registers of numTiles 8x8
matrices as one flat vector (MLIR: vector<numTiles x 2 x T>); each lane passes the indices of
the row it supplies.  The asynchronous copies are cp.async, commit_group and wait_group as PTX has
them: no tokens (MLIR's device_async_copy returns one and create_group gathers them), a group is
what the lane issued since its last commit; srcElements is always given (cp.async's src-size:
the elements past it are written as zeros, so a tile's edge needs no other store).
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import IndexType, IntegerAttr, MemRefType, UnitAttr, VectorType, i32
from xdsl.ir import Dialect, Operation, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    var_operand_def,
)
from xdsl.utils.exceptions import VerifyException

from gemmc.dialects.amdgpu import MatrixOpBase, target_arch, type_name, verify_global_to_lds
from gemmc.support.ir_names import LDS_SPACE, memory_space
from gemmc.target.arch import ELEMENT_BITS, INTEGER_DTYPES
from gemmc.target.ldmatrix import per_register
from gemmc.target.resources import ELEMENT_BYTES

ASYNC_COPY_BYTES = (4, 8, 16)  # cp.async's cp-size (16 with .cg, the L2 only; 4 and 8 with .ca)


@irdl_op_definition
class MmaSyncOp(MatrixOpBase):
    """A warp matrix multiply-accumulate on NVIDIA's tensor cores: D = A * B + C over one warp."""

    name = "nvgpu.mma_sync"
    KIND: ClassVar[str] = "mma"

    def __init__(self, a: SSAValue, b: SSAValue, c: SSAValue, m: int, n: int, k: int):
        super().__init__(
            operands=[a, b, c], result_types=[c.type],
            properties={n_: IntegerAttr(v, i32) for n_, v in (("m", m), ("n", n), ("k", k))},
        )


def _nvidia_only(op: Operation, what: str) -> None:
    arch = target_arch(op)
    if arch.vendor != "nvidia":
        raise VerifyException(f"{what} is an NVIDIA instruction (sm_80 and later); the target is {arch.name}")


@irdl_op_definition
class LdMatrixOp(IRDLOperation):
    """ldmatrix: numTiles 8x8 matrices of 16-bit elements (8 x 16 of 8-bit ones, not transposed) from
    shared memory, one 32-bit register of each per lane (gemmc.target.ldmatrix: which lane supplies which row's address,
    which elements each lane receives, with and without transpose)."""

    name = "nvgpu.ldmatrix"

    srcMemref = operand_def(MemRefType)
    indices = var_operand_def(IndexType)
    res = result_def(VectorType)
    numTiles = prop_def(IntegerAttr)
    transpose = opt_prop_def(UnitAttr)

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$srcMemref `[` $indices `]` attr-dict `:` type($srcMemref) `->` type($res)"

    def __init__(self, src: SSAValue, indices, num_tiles: int, transpose: bool, result_type: VectorType):
        props = {"numTiles": IntegerAttr(num_tiles, i32)}
        if transpose:
            props["transpose"] = UnitAttr()
        super().__init__(operands=[src, list(indices)], result_types=[result_type], properties=props)

    @property
    def tiles(self) -> int:
        return self.numTiles.value.data

    def verify_(self) -> None:
        t = self.srcMemref.type
        assert isinstance(t, MemRefType)
        if len(self.indices) != t.get_num_dims():
            raise VerifyException("expected one index per dimension of the source")
        if memory_space(t) != LDS_SPACE:
            raise VerifyException(f"the source must be shared memory (memory space {LDS_SPACE}), got {t}")
        elem = type_name(t.element_type)
        bits = ELEMENT_BITS.get(elem)
        if bits not in (8, 16) or elem in INTEGER_DTYPES:
            raise VerifyException(f"ldmatrix loads 16-bit elements (f16, bf16) or 8-bit FP8 ones, not {t.element_type}")
        if self.tiles not in (1, 2, 4):
            raise VerifyException(f"numTiles = {self.tiles}: expected 1, 2 or 4")
        want = VectorType(t.element_type, [per_register(bits) * self.tiles])
        if self.res.type != want:
            raise VerifyException(f"{self.tiles} matrices give each lane {want}, got {self.res.type}")
        _nvidia_only(self, "ldmatrix")
        if self.transpose is not None and bits not in target_arch(self).ldmatrix_trans_bits:
            raise VerifyException(f"{target_arch(self).name}'s ldmatrix .trans moves 16-bit elements; it cannot "
                                  f"transpose {elem}")


@irdl_op_definition
class DeviceAsyncCopyOp(IRDLOperation):
    """cp.async: each lane copies dstElements elements from global memory at its src indices to
    shared memory at its dst indices, without registers, reading srcElements of them (cp.async's
    src-size) and writing zeros for the rest.  The copy lands only when a
    nvgpu.device_async_wait has waited for its group (nvgpu.device_async_create_group)."""

    name = "nvgpu.device_async_copy"

    src = operand_def(MemRefType)
    srcIndices = var_operand_def(IndexType)
    dst = operand_def(MemRefType)
    dstIndices = var_operand_def(IndexType)
    srcElements = operand_def(IndexType)
    dstElements = prop_def(IntegerAttr)

    irdl_options = (ParsePropInAttrDict(), AttrSizedOperandSegments(as_property=True))
    assembly_format = (
        "$src `[` $srcIndices `]` `,` $dst `[` $dstIndices `]` `,` $srcElements attr-dict `:` "
        "type($src) `to` type($dst)"
    )

    def __init__(self, src: SSAValue, src_indices, dst: SSAValue, dst_indices, elements: int, src_elements: SSAValue):
        super().__init__(
            operands=[src, list(src_indices), dst, list(dst_indices), src_elements],
            properties={"dstElements": IntegerAttr(elements, i32)},
        )

    @property
    def elements(self) -> int:
        return self.dstElements.value.data

    def verify_(self) -> None:
        src, dst = verify_global_to_lds(self, "shared memory")
        if src.element_type != dst.element_type:
            raise VerifyException(f"source and destination elements differ ({src.element_type}, {dst.element_type})")
        size = self.elements * ELEMENT_BYTES.get(str(dst.element_type), 0)
        if size not in ASYNC_COPY_BYTES:
            raise VerifyException(f"cp.async copies 4, 8 or 16 bytes a lane; {self.elements} x {dst.element_type} "
                                  f"is {size}")
        _nvidia_only(self, "cp.async")


@irdl_op_definition
class DeviceAsyncCreateGroupOp(IRDLOperation):
    """cp.async.commit_group: the lane's cp.async copies issued since its last commit become one group."""

    name = "nvgpu.device_async_create_group"
    assembly_format = "attr-dict"

    def verify_(self) -> None:
        _nvidia_only(self, "cp.async.commit_group")


@irdl_op_definition
class DeviceAsyncWaitOp(IRDLOperation):
    """cp.async.wait_group N: the lane waits until at most numGroups of its groups are in flight
    (the older ones have landed in shared memory; other lanes see them after a barrier)."""

    name = "nvgpu.device_async_wait"

    numGroups = prop_def(IntegerAttr)

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "attr-dict"

    def __init__(self, groups: int):
        super().__init__(properties={"numGroups": IntegerAttr(groups, i32)})

    @property
    def groups(self) -> int:
        return self.numGroups.value.data

    def verify_(self) -> None:
        if self.groups < 0:
            raise VerifyException(f"numGroups = {self.groups} must be 0 or more")
        _nvidia_only(self, "cp.async.wait_group")


NVGPU = Dialect("nvgpu", [MmaSyncOp, LdMatrixOp, DeviceAsyncCopyOp, DeviceAsyncCreateGroupOp, DeviceAsyncWaitOp], [])
