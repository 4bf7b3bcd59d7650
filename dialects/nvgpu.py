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

Hopper's warpgroup MMA (sm_90a; gemmc.target.wgmma has its facts):

    %da = nvgpu.wgmma_desc %tile_a[%s, %r, %k] {major = "k", lbo = 16 : i32, sbo = 1024 : i32, swizzle = 128 : i32}
            : memref<3x128x64xf16, 3 : i64>                            (an i64)
    %d = nvgpu.wgmma_mma_async %da, %db, %c {m = 64 : i32, n = 256 : i32, k = 16 : i32, transB}
           : vector<128xf32>
    nvgpu.wgmma_fence
    nvgpu.wgmma_commit_group
    nvgpu.wgmma_wait_group {numGroups = 0 : i32}

wgmma_desc is the 64-bit matrix descriptor of the matrix that starts at the indexed element (its
shared address, the leading and stride byte offsets, the swizzle), the same on every lane of the
warpgroup; `major` says how the operand lies ("k" or "mn"), which the interpreter reads it by and the
mma's transA / transB must agree with (imm-trans-a / imm-trans-b: 1 for an MN-major operand).
wgmma_mma_async is one warpgroup's D[m x n] = A[m x k] @ B[k x n] + C, each thread passing its n / 2
accumulators in D's layout (gemmc.target.wgmma.d_layout); the registers are D's only once a
wgmma_wait_group has waited for its group (wgmma_commit_group); wgmma_fence orders the warpgroup's
register and shared-memory accesses before the mma that reads them.

mbarriers (sm_90; warp-specialize's producer / consumer protocol, CUTLASS's PipelineAsync):

    %full = memref.alloca() : memref<4xi64, 3 : i64>
    nvgpu.mbarrier_init %full[%s] {count = 128 : i32} : memref<4xi64, 3 : i64>
    nvgpu.mbarrier_arrive %empty[%s] : memref<4xi64, 3 : i64>
    nvgpu.mbarrier_wait_parity %full[%s], %parity : memref<4xi64, 3 : i64>
    nvgpu.cp_async_mbarrier_arrive %full[%s] : memref<4xi64, 3 : i64>
    nvgpu.setmaxnreg {regCount = 40 : i32, action = "dec"}

An mbarrier is one i64 of a shared-memory memref.  init sets the arrivals a phase expects; arrive
(release) counts one per active thread, and the phase completes, the next beginning, when they are
all in; wait_parity (acquire) blocks until the phase of that parity has completed -- the current
phase if its parity matches, else the one before it, which has (so a fresh barrier passes a wait for
parity 1 at once, as the PTX ISA's try_wait.parity does).  cp_async_mbarrier_arrive is
cp.async.mbarrier.arrive.noinc: an arrival that fires once every cp.async the thread issued before it
has landed, counted in init's count (.noinc).  setmaxnreg moves the warpgroup's register budget.

TMA (sm_90; passes/tma_copies.py):

    nvgpu.mbarrier_arrive_expect_tx %full[%s] {txBytes = 32768 : i32} : memref<4xi64, 3 : i64>
    nvgpu.tma_load %A[%row, %col], %tile_a[%s, %r, %c], %full[%s] {box = array<i64: 128, 64>, swizzle = 0 : i32}
        : memref<4096x4096xf16>, memref<4x128x64xf16, 3 : i64>, memref<4xi64, 3 : i64>
    nvgpu.fence_proxy_async

mbarrier_arrive_expect_tx is mbarrier.arrive.expect_tx: the phase also waits for txBytes more bytes of
transactions, and this is one arrival.  tma_load is cp.async.bulk.tensor.2d ... mbarrier::complete_tx::bytes:
one thread copies the box[0] x box[1] elements of the row-major global matrix `src` at (row, col) into
shared memory from the indexed element on, box row after box row (box[1] x element bytes each, densely),
elements past the matrix's edge as zeros (TMA's out-of-bounds fill), then completes box bytes of the
mbarrier's transactions.  With swizzle = 128 the shared byte address of every 16-byte chunk has its bits 4-6
XORed with bits 7-9 (CU_TENSOR_MAP_SWIZZLE_128B, wgmma's 128-byte swizzle: box rows of exactly 128 bytes,
a 1024-byte aligned tile).  The tensor map (CUtensorMap) is not an SSA value here: it is a function of
`src` (its shape, row-major strides) and of the op's box and swizzle, and the HIP printer makes it a
`const __grid_constant__ CUtensorMap` parameter of the kernel, which the launcher encodes from the host
memref it passes for `src` (gemmc.emit.tensor_maps); so `src` must be an argument of the kernel.  A batched
kernel's argument (gemmc.transforms.batch: one matrix of the host's [Bt, rows, cols] memref) is read with
three coordinates, %A[%batch, %row, %col]: cp.async.bulk.tensor.3d through a rank-3 map of the host's
memref (box depth 1), the batch coordinate naming the matrix (the map starts at the host memref's first
matrix, wherever the kernel moved the argument's pointer); with two, any source is read through a rank-2
map from the host memref's start.  A rank-3 source (a grouped product's B [G, K, N]) takes three, its
leading index first.
fence_proxy_async is fence.proxy.async.shared::cta (the mbarriers' initialization, a generic-proxy
write, made visible to the async proxy TMA completes them through).
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import DenseArrayBase, IndexType, IntegerAttr, MemRefType, StringAttr, UnitAttr, VectorType, i32, i64
from xdsl.ir import Dialect, Operation, SSAValue
from xdsl.irdl import (
    AnyAttr,
    AttrSizedOperandSegments,
    EqAttrConstraint,
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    var_operand_def,
    VarConstraint,
)
from xdsl.utils.exceptions import VerifyException

from gemmc.dialects.amdgpu import MatrixOpBase, target_arch, type_name, verify_global_to_lds
from gemmc.support.ir_names import LDS_SPACE, memory_space
from gemmc.target.arch import ELEMENT_BITS, INTEGER_DTYPES
from gemmc.target.ldmatrix import per_register
from gemmc.target.resources import ELEMENT_BYTES
from gemmc.target import tma, wgmma

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


class _NoOperands(IRDLOperation):
    """An NVIDIA instruction of no operands (PTX: its name in the diagnostics)."""

    assembly_format = "attr-dict"
    PTX: ClassVar[str] = ""

    def verify_(self) -> None:
        _nvidia_only(self, self.PTX)


class _WaitGroup(IRDLOperation):
    """A wait until at most numGroups of the issuer's committed groups are in flight."""

    numGroups = prop_def(IntegerAttr)

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "attr-dict"
    PTX: ClassVar[str] = ""

    def __init__(self, groups: int):
        super().__init__(properties={"numGroups": IntegerAttr(groups, i32)})

    @property
    def groups(self) -> int:
        return self.numGroups.value.data

    def verify_(self) -> None:
        if self.groups < 0:
            raise VerifyException(f"numGroups = {self.groups} must be 0 or more")
        _nvidia_only(self, self.PTX)


@irdl_op_definition
class DeviceAsyncCreateGroupOp(_NoOperands):
    """cp.async.commit_group: the lane's cp.async copies issued since its last commit become one group."""

    name = "nvgpu.device_async_create_group"
    PTX: ClassVar[str] = "cp.async.commit_group"


@irdl_op_definition
class DeviceAsyncWaitOp(_WaitGroup):
    """cp.async.wait_group N: the lane waits until at most numGroups of its groups are in flight
    (the older ones have landed in shared memory; other lanes see them after a barrier)."""

    name = "nvgpu.device_async_wait"
    PTX: ClassVar[str] = "cp.async.wait_group"


@irdl_op_definition
class WgmmaDescOp(IRDLOperation):
    """The matrix descriptor of a wgmma operand that starts at the indexed element of a shared tile."""

    name = "nvgpu.wgmma_desc"

    srcMemref = operand_def(MemRefType)
    indices = var_operand_def(IndexType)
    res = result_def(EqAttrConstraint(i64))
    major = prop_def(StringAttr)
    lbo = prop_def(IntegerAttr)
    sbo = prop_def(IntegerAttr)
    swizzle = prop_def(IntegerAttr)

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$srcMemref `[` $indices `]` attr-dict `:` type($srcMemref)"

    def __init__(self, src: SSAValue, indices, major: str, lbo: int, sbo: int, swizzle: int = wgmma.SWIZZLE_BYTES):
        super().__init__(operands=[src, list(indices)], result_types=[i64],
                         properties={"major": StringAttr(major), "lbo": IntegerAttr(lbo, i32),
                                     "sbo": IntegerAttr(sbo, i32), "swizzle": IntegerAttr(swizzle, i32)})

    @property
    def fields(self) -> tuple[str, int, int, int]:
        return self.major.data, self.lbo.value.data, self.sbo.value.data, self.swizzle.value.data

    def verify_(self) -> None:
        t = self.srcMemref.type
        assert isinstance(t, MemRefType)
        if len(self.indices) != t.get_num_dims():
            raise VerifyException("expected one index per dimension of the source")
        if memory_space(t) != LDS_SPACE:
            raise VerifyException(f"wgmma reads shared memory (memory space {LDS_SPACE}), got {t}")
        if type_name(t.element_type) not in wgmma.TYPES:
            raise VerifyException(f"gemmc's wgmma takes f16 or bf16 operands, not {t.element_type}")
        major, lbo, sbo, swz = self.fields
        if major not in ("k", "mn"):
            raise VerifyException(f"major = {major!r}: expected \"k\" or \"mn\"")
        if swz not in wgmma.SWIZZLE_MODE:
            raise VerifyException(f"swizzle = {swz}: expected one of {sorted(wgmma.SWIZZLE_MODE)} bytes")
        for what, x in (("lbo", lbo), ("sbo", sbo)):
            if x <= 0 or x % 16 or x >= 1 << 18:
                raise VerifyException(f"{what} = {x}: a descriptor holds a positive multiple of 16 below 2^18")
        _nvidia_only(self, "wgmma")


@irdl_op_definition
class WgmmaMmaAsyncOp(IRDLOperation):
    """wgmma.mma_async: one warpgroup's D = A * B + C, A and B by descriptor (nvgpu.wgmma_desc)."""

    name = "nvgpu.wgmma_mma_async"

    descA = operand_def(EqAttrConstraint(i64))
    descB = operand_def(EqAttrConstraint(i64))
    T: ClassVar = VarConstraint("T", AnyAttr())
    destC = operand_def(T)
    destD = result_def(T)
    m = prop_def(IntegerAttr)
    n = prop_def(IntegerAttr)
    k = prop_def(IntegerAttr)
    transA = opt_prop_def(UnitAttr)
    transB = opt_prop_def(UnitAttr)

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$descA `,` $descB `,` $destC attr-dict `:` type($destC)"

    def __init__(self, a: SSAValue, b: SSAValue, c: SSAValue, m: int, n: int, k: int, trans_a: bool, trans_b: bool):
        props = {n_: IntegerAttr(v, i32) for n_, v in (("m", m), ("n", n), ("k", k))}
        props.update({name: UnitAttr() for name, on in (("transA", trans_a), ("transB", trans_b)) if on})
        super().__init__(operands=[a, b, c], result_types=[c.type], properties=props)

    @property
    def shape(self) -> tuple[int, int, int]:
        return (self.m.value.data, self.n.value.data, self.k.value.data)

    def descs(self) -> tuple[WgmmaDescOp | None, WgmmaDescOp | None]:
        return tuple(v.owner if isinstance(v.owner, WgmmaDescOp) else None for v in (self.descA, self.descB))

    def instr_on(self, arch):
        """The instruction this op is on `arch` (its input type from A's descriptor), or None."""
        a, _ = self.descs()
        t = type_name(a.srcMemref.type.element_type) if a is not None else "f16"
        m, n, k = self.shape
        return wgmma.get(arch, f"wgmma_m{m}n{n}k{k}_f32_{t}")

    def verify_(self) -> None:
        m, n, k = self.shape
        c = self.destC.type
        assert isinstance(c, VectorType)
        if (m, k) != (wgmma.M, wgmma.K) or n not in wgmma.WGMMA_N:
            raise VerifyException(f"shape {m}x{n}x{k}: gemmc's wgmma is m64nNk16, N in {wgmma.WGMMA_N}")
        if type_name(c.element_type) != "f32" or c.get_shape() != (n // 2,):
            raise VerifyException(f"m64n{n}k16 accumulates {n // 2} f32 a thread; got {c}")
        a, b = self.descs()
        for d, trans, operand in ((a, self.transA, "A"), (b, self.transB, "B")):
            if d is None:
                continue
            if (d.fields[0] == "mn") != (trans is not None):
                raise VerifyException(f"{operand}'s descriptor is {d.fields[0]}-major; trans{operand} must be "
                                      f"{'set' if d.fields[0] == 'mn' else 'unset'} (imm-trans-{operand.lower()})")
        if a is not None and b is not None and a.srcMemref.type.element_type != b.srcMemref.type.element_type:
            raise VerifyException("A's and B's tiles must have one element type")
        _nvidia_only(self, "wgmma.mma_async")


@irdl_op_definition
class WgmmaFenceOp(_NoOperands):
    """wgmma.fence.sync.aligned: the warpgroup's prior register and shared-memory accesses are ordered
    before the wgmma.mma_async that follow."""

    name = "nvgpu.wgmma_fence"
    PTX: ClassVar[str] = "wgmma.fence"


@irdl_op_definition
class WgmmaCommitGroupOp(_NoOperands):
    """wgmma.commit_group.sync.aligned: the warpgroup's wgmma.mma_async since its last commit become one group."""

    name = "nvgpu.wgmma_commit_group"
    PTX: ClassVar[str] = "wgmma.commit_group"


@irdl_op_definition
class WgmmaWaitGroupOp(_WaitGroup):
    """wgmma.wait_group.sync.aligned N: at most numGroups of the warpgroup's groups stay in flight."""

    name = "nvgpu.wgmma_wait_group"
    PTX: ClassVar[str] = "wgmma.wait_group"


def _verify_mbarrier(op: Operation, bars: SSAValue, indices) -> None:
    t = bars.type
    if not isinstance(t, MemRefType) or memory_space(t) != LDS_SPACE or str(t.element_type) != "i64":
        raise VerifyException(f"{op.name} takes an mbarrier array in shared memory (memref<... x i64, 3>); got {t}")
    if len(indices) != len(t.get_shape()):
        raise VerifyException(f"{op.name} has {len(indices)} indices for a rank-{len(t.get_shape())} mbarrier array")
    _nvidia_only(op, "mbarrier")


class _MbarrierOp(IRDLOperation):
    bars = operand_def(MemRefType)
    indices = var_operand_def(IndexType)

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$bars `[` $indices `]` attr-dict `:` type($bars)"

    def verify_(self) -> None:
        _verify_mbarrier(self, self.bars, self.indices)


@irdl_op_definition
class MbarrierInitOp(_MbarrierOp):
    """mbarrier.init.shared::cta.b64: the mbarrier at bars[indices] starts in phase 0 expecting `count`
    arrivals a phase (one thread inits it; the others see it after a gpu.barrier)."""

    name = "nvgpu.mbarrier_init"
    count = prop_def(IntegerAttr)

    def __init__(self, bars: SSAValue, indices, count: int):
        super().__init__(operands=[bars, list(indices)], properties={"count": IntegerAttr(count, i32)})

    @property
    def arrivals(self) -> int:
        return self.count.value.data

    def verify_(self) -> None:
        super().verify_()
        if not 1 <= self.arrivals < (1 << 20):
            raise VerifyException(f"an mbarrier expects 1 .. 2^20 - 1 arrivals a phase; count = {self.arrivals}")


@irdl_op_definition
class MbarrierInvalOp(_MbarrierOp):
    """mbarrier.inval.shared::cta.b64: the mbarrier at bars[indices] is no longer one (no arrivals or
    transactions may be pending); PTX leaves an mbarrier.init of a valid mbarrier undefined, so a kernel
    that initializes one again (a K loop inside a loop) invalidates it first."""

    name = "nvgpu.mbarrier_inval"

    def __init__(self, bars: SSAValue, indices):
        super().__init__(operands=[bars, list(indices)])


@irdl_op_definition
class MbarrierArriveOp(_MbarrierOp):
    """mbarrier.arrive.shared::cta.b64 (release, CTA scope): each active lane arrives once; the phase
    completes when its pending count reaches zero, and the next one begins."""

    name = "nvgpu.mbarrier_arrive"

    def __init__(self, bars: SSAValue, indices):
        super().__init__(operands=[bars, list(indices)])


@irdl_op_definition
class MbarrierWaitParityOp(IRDLOperation):
    """Each active lane waits until the phase of parity `parity` (0 or 1) of the mbarrier has completed:
    a loop around mbarrier.try_wait.parity.shared::cta.b64 (acquire, CTA scope).  As on the GPU, the
    parity names the phase relative to the current one: the current phase if its parity matches
    (wait for it), else the phase before it (done at once)."""

    name = "nvgpu.mbarrier_wait_parity"

    bars = operand_def(MemRefType)
    indices = var_operand_def(IndexType)
    parity = operand_def(IndexType)

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$bars `[` $indices `]` `,` $parity attr-dict `:` type($bars)"

    def __init__(self, bars: SSAValue, indices, parity: SSAValue):
        super().__init__(operands=[bars, list(indices), parity])

    def verify_(self) -> None:
        _verify_mbarrier(self, self.bars, self.indices)


@irdl_op_definition
class CpAsyncMbarrierArriveOp(_MbarrierOp):
    """cp.async.mbarrier.arrive.noinc.shared::cta.b64: an arrival on the mbarrier that happens once every
    cp.async the lane issued before it has landed; .noinc: the arrival counts against the phase's
    expected count (mbarrier_init's count includes these lanes)."""

    name = "nvgpu.cp_async_mbarrier_arrive"

    def __init__(self, bars: SSAValue, indices):
        super().__init__(operands=[bars, list(indices)])


@irdl_op_definition
class SetMaxNRegOp(IRDLOperation):
    """setmaxnreg.{inc,dec}.sync.aligned.u32 regCount: the warpgroup's per-thread register budget
    (24 .. 256, a multiple of 8).  Only a hint to the register allocator here: no semantics."""

    name = "nvgpu.setmaxnreg"
    regCount = prop_def(IntegerAttr)
    action = prop_def(StringAttr)

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "attr-dict"

    def __init__(self, count: int, action: str):
        super().__init__(properties={"regCount": IntegerAttr(count, i32), "action": StringAttr(action)})

    @property
    def count(self) -> int:
        return self.regCount.value.data

    def verify_(self) -> None:
        if self.action.data not in ("inc", "dec"):
            raise VerifyException(f"setmaxnreg's action is inc or dec, not {self.action.data!r}")
        if not (24 <= self.count <= 256 and self.count % 8 == 0):
            raise VerifyException(f"setmaxnreg takes 24 .. 256 registers, a multiple of 8; got {self.count}")
        _nvidia_only(self, "setmaxnreg")


@irdl_op_definition
class MbarrierArriveExpectTxOp(_MbarrierOp):
    """mbarrier.arrive.expect_tx.shared::cta.b64: the phase also expects txBytes bytes of transactions
    (a TMA's complete_tx), then this lane arrives once."""

    name = "nvgpu.mbarrier_arrive_expect_tx"
    txBytes = prop_def(IntegerAttr)

    def __init__(self, bars: SSAValue, indices, tx_bytes: int):
        super().__init__(operands=[bars, list(indices)], properties={"txBytes": IntegerAttr(tx_bytes, i32)})

    @property
    def tx(self) -> int:
        return self.txBytes.value.data

    def verify_(self) -> None:
        super().verify_()
        if not 0 < self.tx < (1 << 20):
            raise VerifyException(f"an mbarrier's transaction count is 1 .. 2^20 - 1 bytes; txBytes = {self.tx}")


@irdl_op_definition
class TmaLoadOp(IRDLOperation):
    """cp.async.bulk.tensor.{2,3}d.shared::cluster.global.mbarrier::complete_tx::bytes: one lane's TMA copy
    of a box of the global matrix `src` at (row, col) (of a batched argument's matrix `batch`: [batch, row,
    col]) into shared memory at the indexed element, zeros past the matrix's edge, completing the box's
    bytes on the mbarrier at bars[barIndices] (module docstring)."""

    name = "nvgpu.tma_load"

    src = operand_def(MemRefType)
    srcIndices = var_operand_def(IndexType)
    dst = operand_def(MemRefType)
    dstIndices = var_operand_def(IndexType)
    bars = operand_def(MemRefType)
    barIndices = var_operand_def(IndexType)
    box = prop_def(DenseArrayBase)
    swizzle = prop_def(IntegerAttr)

    irdl_options = (ParsePropInAttrDict(), AttrSizedOperandSegments(as_property=True))
    assembly_format = (
        "$src `[` $srcIndices `]` `,` $dst `[` $dstIndices `]` `,` $bars `[` $barIndices `]` attr-dict `:` "
        "type($src) `,` type($dst) `,` type($bars)"
    )

    def __init__(self, src: SSAValue, src_indices, dst: SSAValue, dst_indices, bars: SSAValue, bar_indices,
                 box: tuple[int, int], swizzle: int = 0):
        super().__init__(
            operands=[src, list(src_indices), dst, list(dst_indices), bars, list(bar_indices)],
            properties={"box": DenseArrayBase.from_list(i64, list(box)), "swizzle": IntegerAttr(swizzle, i32)},
        )

    @property
    def box_shape(self) -> tuple[int, int]:
        rows, cols = (int(v) for v in self.box.get_values())
        return rows, cols

    @property
    def swizzle_bytes(self) -> int:
        return self.swizzle.value.data

    @property
    def map_rank(self) -> int:
        """The tensor map's dims: 2, or 3 with a batch coordinate first."""
        return len(self.srcIndices)

    def box_bytes(self) -> int:
        rows, cols = self.box_shape
        return rows * cols * ELEMENT_BYTES.get(str(self.dst.type.element_type), 0)

    def verify_(self) -> None:
        rank = self.src.type.get_num_dims()
        if rank not in (2, 3):
            raise VerifyException(f"gemmc's TMA copies boxes of a matrix or of one of a rank-3 memref's; the source "
                                  f"is {self.src.type}")
        src, dst = verify_global_to_lds(self, "shared memory", leading=(0, 1) if rank == 2 else (0,))  # (batch,) row, col
        if src.element_type != dst.element_type:
            raise VerifyException(f"source and destination elements differ ({src.element_type}, {dst.element_type})")
        _verify_mbarrier(self, self.bars, self.barIndices)
        box = list(self.box.get_values())
        if len(box) != 2 or not all(1 <= b <= tma.BOX_MAX for b in box):
            raise VerifyException(f"box = {box}: expected two sizes of 1 .. {tma.BOX_MAX} elements (rows, columns)")
        row_bytes = box[1] * ELEMENT_BYTES.get(str(dst.element_type), 0)
        if row_bytes % tma.STRIDE_BYTES:
            raise VerifyException(f"a box row of {row_bytes} bytes: TMA's inner box dimension is a multiple of 16 bytes")
        if self.swizzle_bytes not in tma.SWIZZLES:
            raise VerifyException(f"swizzle = {self.swizzle_bytes}: expected one of {list(tma.SWIZZLES)} bytes")
        if self.swizzle_bytes and row_bytes != self.swizzle_bytes:
            raise VerifyException(f"the {self.swizzle_bytes}-byte swizzle takes box rows of {self.swizzle_bytes} bytes, "
                                  f"not {row_bytes}")
        _nvidia_only(self, "cp.async.bulk.tensor")


@irdl_op_definition
class FenceProxyAsyncOp(_NoOperands):
    """fence.proxy.async.shared::cta: the thread's shared-memory writes (an mbarrier's init) are ordered
    before the async proxy's accesses (TMA) that follow."""

    name = "nvgpu.fence_proxy_async"
    PTX: ClassVar[str] = "fence.proxy.async"


NVGPU = Dialect("nvgpu", [MmaSyncOp, LdMatrixOp, DeviceAsyncCopyOp, DeviceAsyncCreateGroupOp, DeviceAsyncWaitOp,
                          WgmmaDescOp, WgmmaMmaAsyncOp, WgmmaFenceOp, WgmmaCommitGroupOp, WgmmaWaitGroupOp,
                          MbarrierInitOp, MbarrierInvalOp, MbarrierArriveOp, MbarrierWaitParityOp, CpAsyncMbarrierArriveOp,
                          SetMaxNRegOp, MbarrierArriveExpectTxOp, TmaLoadOp, FenceProxyAsyncOp], [])
