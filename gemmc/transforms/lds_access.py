"""Accesses to a memref allocation, for the passes that change a buffer's layout.

pad-lds, swizzle-lds and multi-buffer change where an allocation's elements live; each
must then rewrite every access to it, and refuse an allocation whose uses it cannot
see through.  This module finds those accesses (memref.load/store, vector.load/store,
amdgpu.gather_to_lds and gemm.copy as their destination, nvgpu.ldmatrix's rows and
nvgpu.device_async_copy's destination, nvgpu.tma_load's box start, nvgpu.wgmma_desc's start), replaces their indices op by op, and proves
what the rewrites need to know about an index: a multiple it is known to be.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import gcd

from xdsl.dialects import arith, func, gpu, memref, scf, vector
from xdsl.dialects.builtin import IntegerAttr, MemRefType, VectorType
from xdsl.ir import BlockArgument, Operation, SSAValue
from xdsl.rewriter import Rewriter

from gemmc.support.diagnostics import pass_error
from gemmc.dialects.amdgpu import GatherToLDSOp
from gemmc.dialects.gemm import CopyOp
from gemmc.dialects.nvgpu import DeviceAsyncCopyOp, LdMatrixOp, TmaLoadOp, WgmmaDescOp
from gemmc.support.ir_names import LDS_SPACE, memory_space
from gemmc.target.ldmatrix import ROW_BYTES
from gemmc.target.module_arch import arch_of
from gemmc.target.resources import ELEMENT_BYTES, lds_bytes

ALLOC_OPS = (memref.AllocaOp, memref.AllocOp)


@dataclass
class Access:
    """One op reading or writing an allocation: its indices, and how many consecutive
    elements of the last dimension it touches (a vector's length, else 1).  A gemm.copy
    writes a whole tile: its indices are only the leading ones, before the tile's two."""

    op: Operation
    indices: list[SSAValue]
    width: int
    is_store: bool

    @property
    def whole_tile(self) -> bool:
        return isinstance(self.op, CopyOp)

    @property
    def whole_box(self) -> bool:
        """nvgpu.tma_load: a box written densely from its start (swizzled as its op says)."""
        return isinstance(self.op, TmaLoadOp)

    @property
    def wave_contiguous(self) -> bool:
        """gather_to_lds: the wave writes consecutive LDS words from one position (a direct copy
        on AMD; on NVIDIA's cp.async each lane writes its own 16 bytes where it says)."""
        if isinstance(self.op, GatherToLDSOp):
            return True
        return isinstance(self.op, CopyOp) and self.op.direct is not None and arch_of(self.op).vendor != "nvidia"


def lds_allocs(root: Operation) -> list[Operation]:
    """The LDS (address space 3) allocations under root, in program order."""
    return [op for op in root.walk() if isinstance(op, ALLOC_OPS) and memory_space(op.results[0].type) == LDS_SPACE]


def select_allocs(root: Operation, names: tuple[str, ...], pass_name: str) -> list[Operation]:
    """LDS allocations under root, restricted to the SSA names in `names` (all when empty)."""
    allocs = lds_allocs(root)
    if not names:
        return allocs
    by_name = {a.results[0].name_hint: a for a in allocs}
    missing = [n for n in names if n not in by_name]
    if missing:
        known = ", ".join(f"%{n}" for n in by_name if n) or "none"
        raise pass_error(pass_name, root, f"no LDS allocation named %{missing[0]} (LDS allocations: {known})")
    return [by_name[n] for n in names]


def accesses(alloc: Operation, pass_name: str) -> list[Access]:
    """Every access to the allocation; any other use is a located error, since the pass
    could not carry its layout change through it."""
    buf = alloc.results[0]
    found = []
    for use in buf.uses:
        a = _access(use.operation, use.index)
        if a is None:
            raise pass_error(
                pass_name, use.operation,
                f"%{buf.name_hint or 'buffer'} is used by '{use.operation.name}', which is not a load or "
                f"store of its elements; its layout cannot be changed through it",
            )
        found.append(a)
    return found


def _access(op: Operation, operand: int) -> Access | None:
    if isinstance(op, memref.LoadOp):
        return Access(op, list(op.indices), 1, False)
    if isinstance(op, memref.StoreOp) and op.memref is op.operands[operand]:
        return Access(op, list(op.indices), 1, True)
    if isinstance(op, vector.LoadOp):
        return Access(op, list(op.indices), _vector_len(op.result.type), False)
    if isinstance(op, vector.StoreOp) and op.base is op.operands[operand]:
        return Access(op, list(op.indices), _vector_len(op.vector.type), True)
    if isinstance(op, GatherToLDSOp) and op.dst is op.operands[operand]:
        return Access(op, list(op.dstIndices), 1, True)
    if isinstance(op, LdMatrixOp):  # each lane's 16-byte row
        return Access(op, list(op.indices), ROW_BYTES // ELEMENT_BYTES[str(op.srcMemref.type.element_type)], False)
    if isinstance(op, DeviceAsyncCopyOp) and op.dst is op.operands[operand]:
        return Access(op, list(op.dstIndices), op.elements, True)
    if isinstance(op, TmaLoadOp) and op.dst is op.operands[operand]:  # where its box starts (whole_box)
        return Access(op, list(op.dstIndices), 1, True)
    if isinstance(op, WgmmaDescOp):  # where a wgmma operand starts (its layout is the descriptor's)
        return Access(op, list(op.indices), 1, False)
    if isinstance(op, CopyOp) and op.dst is op.operands[operand]:
        # its LDS stores: `width` elements wide along the row, one by one when transposed or peeled
        return Access(op, list(op.indices), 1 if op.transpose or op.peel else op.width.value.data, True)
    return None


def written_memref(op: Operation) -> SSAValue | None:
    """The memref that op stores into (memref.store, vector.store, gather_to_lds's
    destination), None for an op that writes no memref."""
    if isinstance(op, memref.StoreOp):
        return op.memref
    if isinstance(op, vector.StoreOp):
        return op.base
    if isinstance(op, GatherToLDSOp | CopyOp | DeviceAsyncCopyOp | TmaLoadOp):
        return op.dst
    return None


def _vector_len(t) -> int:
    assert isinstance(t, VectorType)
    return t.get_shape()[-1]


def set_indices(access: Access, indices: list[SSAValue]) -> None:
    """Replace the access's indices (their number may change: multi-buffer adds one)."""
    op = access.op
    if isinstance(op, memref.LoadOp):
        new = memref.LoadOp.get(op.memref, indices)
    elif isinstance(op, memref.StoreOp):
        new = memref.StoreOp.get(op.value, op.memref, indices)
    elif isinstance(op, vector.LoadOp):
        new = vector.LoadOp(op.base, indices, op.result.type)
    elif isinstance(op, vector.StoreOp):
        new = vector.StoreOp(op.vector, op.base, indices)
    elif isinstance(op, CopyOp):
        new = CopyOp(op.src, [op.o0, op.o1], [op.rows, op.cols], op.dst, indices, op.tid, op.tile, group=op.group)
        # every mark the copy carries (width, transpose, row_lanes, ...), not its operands' segments
        new.properties.update({k: v for k, v in op.properties.items() if k != "operandSegmentSizes"})
    elif isinstance(op, LdMatrixOp):
        new = LdMatrixOp(op.srcMemref, indices, op.tiles, op.transpose is not None, op.res.type)
    elif isinstance(op, WgmmaDescOp):
        new = WgmmaDescOp(op.srcMemref, indices, *op.fields)
    elif isinstance(op, DeviceAsyncCopyOp):
        new = DeviceAsyncCopyOp(op.src, list(op.srcIndices), op.dst, indices, op.elements, op.srcElements)
    elif isinstance(op, TmaLoadOp):
        new = TmaLoadOp(op.src, list(op.srcIndices), op.dst, indices, op.bars, list(op.barIndices), op.box_shape,
                        op.swizzle_bytes)
    else:
        assert isinstance(op, GatherToLDSOp)
        new = GatherToLDSOp(op.src, list(op.srcIndices), op.dst, indices, op.transferType)
    new.attributes.update(op.attributes)
    for r_new, r_old in zip(new.results, op.results):
        r_new.name_hint = r_old.name_hint
    Rewriter.replace_op(op, new)
    access.op, access.indices = new, list(indices)


def retype_alloc(alloc: Operation, new_type: MemRefType) -> Operation:
    """A new allocation of `new_type` in place of `alloc`, taking over its uses and name."""
    new = type(alloc).get(
        new_type.get_element_type(), alignment=alloc.alignment, shape=new_type.get_shape(),
        memory_space=new_type.memory_space,
    )
    new.attributes.update(alloc.attributes)
    new.results[0].name_hint = alloc.results[0].name_hint
    Rewriter.replace_op(alloc, new)
    return new


# -- what an index is known to be a multiple of ------------------------------------

def known_multiple(value: SSAValue, depth: int = 16) -> int:
    """The largest n this analysis proves `value` to be a multiple of (0 for the constant 0,
    whose multiples are everything): constants, +, *, remui/divui by constants, loop
    induction variables (from their bounds and step); 1 when nothing is known."""
    if depth == 0:
        return 1
    if isinstance(value, BlockArgument):
        loop = value.block.parent_op()
        if isinstance(loop, scf.ForOp) and value is loop.body.block.args[0]:
            return gcd(known_multiple(loop.lb, depth - 1), known_multiple(loop.step, depth - 1))
        return 1
    op = value.owner
    if isinstance(op, arith.ConstantOp) and isinstance(op.value, IntegerAttr):
        return abs(op.value.value.data)
    if isinstance(op, arith.AddiOp | arith.SubiOp):
        return gcd(known_multiple(op.lhs, depth - 1), known_multiple(op.rhs, depth - 1))
    if isinstance(op, arith.MuliOp):
        return known_multiple(op.lhs, depth - 1) * known_multiple(op.rhs, depth - 1)
    if isinstance(op, arith.RemUIOp):
        return gcd(known_multiple(op.lhs, depth - 1), known_multiple(op.rhs, depth - 1))
    return 1


def row_multiple(matrix: SSAValue) -> int:
    """What a 2-D matrix's row length is known to be a multiple of: its static length, or for a
    dynamic one what a gemm.assume_rows_aligned on it says (1 when nothing does)."""
    row = matrix.type.get_shape()[-1]
    if row >= 0:
        return row
    from gemmc.dialects.gemm import AssumeRowsAlignedOp

    return max((u.operation.multiple.value.data for u in matrix.uses
                if isinstance(u.operation, AssumeRowsAlignedOp)), default=1)


def matrix_start_multiple(matrix: SSAValue) -> int:
    """What the element offset of the matrix a workgroup reads is known to be a multiple of: 0 (the
    buffer's start, any multiple) unless `matrix` is a batched kernel argument (gemmc.transforms.batch),
    whose matrices start every rows x row length elements (1 where that is not known)."""
    from xdsl.ir import BlockArgument

    from gemmc.transforms.batch import batch_args

    kernel = matrix.block.parent_op() if isinstance(matrix, BlockArgument) else None
    if kernel is None or matrix.index not in batch_args(kernel):
        return 0
    rows = matrix.type.get_shape()[-2]
    return max(rows, 1) * row_multiple(matrix)


def check_lds_fits(pass_name: str, kernel: Operation, arch) -> None:
    """The kernel's LDS allocations, as they now are, fit the arch's LDS per workgroup."""
    total = lds_bytes(kernel)
    if total > arch.lds_limit:
        raise pass_error(pass_name, kernel, f"LDS buffers need {total} bytes but {arch.name} has {arch.lds_limit} per workgroup")


def kernel_of(op: Operation) -> Operation:
    """The gpu.func (or func.func) that holds op: the unit whose LDS must fit."""
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, gpu.FuncOp | func.FuncOp):
        parent = parent.parent_op()
    return parent or op
