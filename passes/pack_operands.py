"""pack-operands: copy a GEMM kernel's misaligned A and B into buffers whose rows are zero-padded to a multiple.

Why: sm_90's TMA (tma-copies) needs every global row stride to be a multiple of 16 bytes
(gemmc.target.tma); at 4097x4095x1023 f16 neither A's rows (1023 x 2 bytes) nor B's (4095 x 2) are.  One
pass over each operand into a padded buffer costs far less than the GEMM it lets TMA copy for (what
cuBLAS and CUTLASS users do by hand).

Expects: kernel IR (from gemm-to-kernel on; before tma-copies, and before lower-copies' cp.async and any
op below): a host func.func with gemm.matmul_spec (which host arguments are A and B) launching a kernel
with a K loop (gemm.role = "k_loop"; split-k's init and reduce kernels and stream-k's flags kernel, which
have none, are left as they are).  `multiple`: the row length, in elements, to pad to; 0 (the default) is
16 bytes of the operand's element type (8 for f16 / bf16, 4 for f32, 16 for FP8 and i8), TMA's stride.

Produces, for each such launch and each of its kernel arguments that is the host's A or B with a static
row length (the stored last dim: B's K where B is stored [N, K]) not a multiple of `multiple`:

    %A_packed = memref.alloc() : memref<R x Lp>                  (Lp = L rounded up to the multiple;
                                                                   a batched or grouped operand keeps its
                                                                   leading dim, dynamic ones by memref.dim)
    gpu.launch_func @<kernel>_pack_a blocks ceil(R x Lp / 64) threads 64 args(%A, %A_packed)
    gpu.launch_func @<kernel> ... args(..., %A_packed, ...)      (in place of %A)
    memref.dealloc %A_packed

  * @<kernel>_pack_a (gemm.role = "pack"): thread i writes element i of the padded buffer, row-major:
    dst[..., r, c] = c < L ? src[..., r, c] : 0 (the load at min(c, L - 1), kept by arith.select), so
    every element of the buffer, pad included, is written: nothing reads garbage;
  * the GEMM kernel's argument gets the padded type, its uses their operand, nothing else: its indices
    are those it had, and its bounds and masks stay the program's sizes, which are values of the IR
    (gemm-to-kernel's constants), not the argument's type.  The pass checks that: every use of the
    argument in the kernel is a memref.load or a gemm.copy's source (each at explicit indices, under the
    kernel's own guards; a copy's vectors, if not peeled or direct, whose width divides the padded row, so
    that they stay aligned: lower-copies peels and proves the others again on the padded type) or a
    memref.dim of a leading axis (a batch or the rows, which keep their size); any other use is refused:
    a memref.dim of the row length above all, and lower-copies' vector loads and cp.async, whose
    alignment was proven on the unpadded rows;
  * `gemm.zero_padded` on the GEMM kernel records argument i's program row length L
    (gemmc.transforms.packing): past L its rows hold zeros, so a read past the bound that stops at the
    buffer's end sees the zeros a bounded copy would fill in (tma-copies' boxes, whose tensor map is the
    padded buffer's: gemmc.emit.tensor_maps), and its gemm.arg_dims name the padded axis `<dim>_padded`.

A batched operand (rank 3 on the host, gemm.batch_args in the kernel) is padded the same way: the
buffer is [Bt, R, Lp], the copy kernel walks all of it, and the kernel's matrix of batch z starts at
z x R x Lp, which the printer and the interpreters read from the padded types.  A grouped B [G, K, N]
likewise.  C, aligned operands, the other arguments and kernels are left as they were; a kernel with
nothing misaligned is unchanged.

Dynamic sizes: a dynamic row length is refused (the kernel reads it from the buffer's type, memref.dim,
which the padded buffer would change; gemm-to-kernel's dynamic K is one); dynamic leading dims are
taken (the buffer is allocated with the host's memref.dim, the copy kernel reads them the same way).

Diagnostics (each at its op): multiple < 0, no launched kernel with a K loop, a host function without
gemm.matmul_spec, a dynamic row length, an element type packed below a byte (FP4, FP6, i4: a padded
row would cut a byte), a kernel argument whose row length is not the host's, a copy whose vectors the
padded row would misalign, a use of the argument other than those above.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func, gpu, memref
from xdsl.dialects.builtin import (
    ArrayAttr, DictionaryAttr, FloatAttr, FunctionType, IntegerAttr, IntegerType, MemRefType, ModuleOp, StringAttr,
)
from xdsl.ir import Attribute, BlockArgument, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from gemmc.dialects.gemm import CopyOp
from gemmc.support.diagnostics import pass_error
from gemmc.support.ir_names import ARG_DIMS_ATTR, DIMS_ATTR, ROLE_ATTR, ROLE_PACK, SPEC_ATTR
from gemmc.target import tma
from gemmc.target.resources import PACKED_GLOBAL_BYTES, global_bytes
from gemmc.transforms.k_split import fresh_symbol, launched_k_loops, symbol_ref
from gemmc.transforms.kernel_builder import KernelBuilder, constant_value
from gemmc.transforms.matmul_spec import spec_from_attr
from gemmc.transforms.packing import is_pack_kernel, set_zero_padded

NAME = "pack-operands"
BLOCK = 64  # threads of a copy kernel's workgroup, one element each: as few as stream-k's flags kernel, so that
# a launch-bounds after the pass (which bounds every kernel of the module) takes it with the smallest GEMM tile's


@dataclass(frozen=True)
class PackOperandsPass(ModulePass):
    name = NAME

    multiple: int = 0

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.multiple < 0:
            raise pass_error(NAME, op, f"multiple={self.multiple} must be 0 (16 bytes of the element) or more")
        for launch, kernel, _ in launched_k_loops(op, NAME):
            host = _host_of(launch)
            packed: dict[SSAValue, SSAValue] = {}  # host operand -> its padded buffer, for this launch
            for which, index in _operands(host, launch):
                value = host.body.block.args[index]
                for pos, operand in enumerate(launch.kernelOperands):
                    if operand is value:
                        self._pack(launch, kernel, pos, value, which, packed)

    def _pack(self, launch: gpu.LaunchFuncOp, kernel: gpu.FuncOp, pos: int, value: BlockArgument, role: str,
              packed: dict[SSAValue, SSAValue]) -> None:
        """Argument `pos` of `kernel`, the host's `value` (A or B: `role`), given a padded buffer if its rows are
        misaligned."""
        which = value.name_hint or role  # (the program's name for it: a grouped product's X, W)
        host_t = value.type
        row = host_t.get_shape()[-1]
        if row < 0:
            raise pass_error(NAME, launch, f"%{which}'s row length is dynamic: pack-operands pads static row lengths "
                             "only (the kernel reads a dynamic one from its buffer's type, which padding changes)")
        elem = str(host_t.element_type)
        size = global_bytes(elem)
        aligned = row % self.multiple == 0 if self.multiple else (row * size) % tma.STRIDE_BYTES == 0
        if aligned:  # (`multiple` elements, or by default 16 bytes)
            return
        if elem in PACKED_GLOBAL_BYTES:
            raise pass_error(NAME, launch, f"%{which}'s {elem} elements are packed below a byte in global memory: "
                             "pack-operands does not pad their rows (a padded row would split a byte)")
        multiple = self.multiple or max(1, tma.STRIDE_BYTES // int(size))
        arg = kernel.body.block.args[pos]
        if not isinstance(arg.type, MemRefType) or arg.type.get_shape()[-1] != row:
            raise pass_error(NAME, launch, f"the kernel's argument {pos} ({arg.type}) does not have %{which}'s rows "
                             f"of {row} elements")
        padded = math.ceil(row / multiple) * multiple
        _check_uses(arg, which, padded)
        if value not in packed:
            packed[value] = _copy_on_host(launch, kernel, value, which, role, padded)
        _use_buffer(launch, pos, value, packed[value])
        _retype_argument(kernel, arg, padded, row)


def _host_of(launch: gpu.LaunchFuncOp) -> func.FuncOp:
    host = launch.parent_op()
    while host is not None and not isinstance(host, func.FuncOp):
        host = host.parent_op()
    if host is None:
        raise pass_error(NAME, launch, "expects the launch inside a host func.func")
    return host


def _operands(host: func.FuncOp, launch: gpu.LaunchFuncOp) -> list[tuple[str, int]]:
    """("A", host argument index), ("B", ...) from the host's gemm.matmul_spec."""
    attr = host.attributes.get(SPEC_ATTR)
    if not isinstance(attr, DictionaryAttr):
        raise pass_error(NAME, launch, f"the host function has no {SPEC_ATTR}: pack-operands packs the A and B it "
                         "names (run gemm-to-kernel)")
    spec = spec_from_attr(attr)
    return [("A", spec.a), ("B", spec.b)]


def _check_uses(arg: BlockArgument, which: str, padded: int) -> None:
    """Every use of the kernel's argument reads it element by element at explicit indices, through a copy whose
    vectors stay aligned in the padded rows, or asks the size of a leading axis: what a padded buffer leaves as it
    was (module docstring)."""
    last = arg.type.get_num_dims() - 1
    for use in list(arg.uses):
        op = use.operation
        if isinstance(op, memref.LoadOp):
            continue
        if isinstance(op, CopyOp) and op.src is arg:
            width = op.width.value.data
            if op.peel is None and op.direct is None and padded % width:
                raise pass_error(NAME, op, f"the copy of %{which} loads vectors of {width}, proven aligned on its "
                                 f"rows; padded to {padded} they would not be (pad to a multiple of {width})")
            continue
        if isinstance(op, memref.DimOp):
            axis = constant_value(op.index)
            if axis is not None and axis != last:
                continue
            raise pass_error(NAME, op, f"the kernel reads %{which}'s row length from its buffer (memref.dim), "
                             "which the padded buffer would change")
        raise pass_error(NAME, op, f"%{which} is used by '{op.name}': pack-operands takes a kernel that reads it by "
                         "memref.load or gemm.copy at explicit indices, or memref.dim of a leading axis (a vector "
                         "load's alignment was proven on the rows unpadded: run it before lower-copies)")


def _padded_type(t: MemRefType, padded: int) -> MemRefType:
    return MemRefType(t.element_type, [*t.get_shape()[:-1], padded], t.layout, t.memory_space)


def _copy_on_host(launch: gpu.LaunchFuncOp, kernel: gpu.FuncOp, value: BlockArgument, which: str, role: str,
                  padded: int) -> SSAValue:
    """Before the launch: the padded buffer's allocation and the copy kernel's launch; the buffer."""
    t = value.type
    dst_t = _padded_type(t, padded)
    kb = KernelBuilder.before(launch)
    dynamic = [kb.dim(value, axis) for axis, n in enumerate(t.get_shape()) if n < 0]
    buf = kb.op(memref.AllocOp.get(t.element_type, shape=dst_t.get_shape(), dynamic_sizes=dynamic), f"{which}_packed")
    block = kb.index(BLOCK)
    static = dst_t.has_static_shape()
    grid = (kb.index(-(-math.prod(dst_t.get_shape()) // BLOCK)) if static
            else kb.ceildiv(_elements(kb, buf), block, "pack_blocks"))
    copier = _copy_kernel(kernel, which, role, t, dst_t, _host_dims(value))
    one = kb.index(1)
    kb.b.insert(gpu.LaunchFuncOp(symbol_ref(launch, copier), [grid, one, one], [block, one, one],
                                 kernelOperands=[value, buf]))
    Rewriter.insert_op(memref.DeallocOp.get(buf), InsertPoint.after(launch))
    return buf


def _host_dims(value: BlockArgument) -> list[str] | None:
    """The host argument's dim names (gemm.dims), for the copy kernel's gemm.arg_dims."""
    attrs = value.block.parent_op().arg_attrs
    if attrs is None or value.index >= len(attrs.data):
        return None
    names = attrs.data[value.index].data.get(DIMS_ATTR)
    return [n.data for n in names.data] if isinstance(names, ArrayAttr) else None


def _copy_kernel(kernel: gpu.FuncOp, which: str, role: str, src_t: MemRefType, dst_t: MemRefType,
                 dims: list[str] | None) -> gpu.FuncOp:
    """@<kernel>_pack_<a|b>(src, dst): thread i writes dst's element i (row-major), src's where it has one, else 0."""
    name = fresh_symbol(kernel, f"{kernel.sym_name.data}_pack_{role.lower()}")
    fn = gpu.FuncOp(name, ([src_t, dst_t], []), kernel=True, known_block_size=[BLOCK, 1, 1])
    fn.attributes[ROLE_ATTR] = StringAttr(ROLE_PACK)
    if dims is not None and len(dims) == src_t.get_num_dims():
        fn.attributes[ARG_DIMS_ATTR] = ArrayAttr([ArrayAttr([StringAttr(d) for d in dims]),
                                                  ArrayAttr([StringAttr(d) for d in _padded_names(dims)])])
    src, dst = fn.body.block.args
    src.name_hint, dst.name_hint = which, f"{which}_packed"
    kb = KernelBuilder.at_end(fn.body.block)
    i = kb.add(kb.mul(kb.block_id("x", "bx"), kb.index(BLOCK)), kb.thread_id("x", "tx"), "i")
    total = _elements(kb, dst)
    sizes = [kb.dim(dst, axis) for axis in range(1, dst_t.get_num_dims())]  # (the outermost index is what is left)
    kb.if_(kb.lt(i, total, "inside"), lambda b: _copy_element(b, src, dst, i, sizes))
    kb.b.insert(gpu.ReturnOp([]))
    anchor = kernel  # after the kernel and the copy kernels made for it before, in the order made
    while isinstance(anchor.next_op, gpu.FuncOp) and is_pack_kernel(anchor.next_op):
        anchor = anchor.next_op
    Rewriter.insert_op(fn, InsertPoint.after(anchor))
    return fn


def _elements(kb: KernelBuilder, buf: SSAValue) -> SSAValue:
    """The number of elements of memref `buf`: a constant where its shape is static."""
    shape = buf.type.get_shape()
    static = math.prod(n for n in shape if n >= 0)
    total = None
    for axis, n in enumerate(shape):
        if n < 0:
            size = kb.op(memref.DimOp(buf, kb.index(axis)))
            total = size if total is None else kb.mul(total, size)
    return kb.index(static) if total is None else kb.mul(total, kb.index(static))


def _copy_element(kb: KernelBuilder, src: SSAValue, dst: SSAValue, i: SSAValue, sizes: list[SSAValue]) -> None:
    """dst[..., r, c] = c < L ? src[..., r, c] : 0 for the element i of dst (row-major, `sizes` its dims
    but the outermost)."""
    names = ["batch", "row", "col"][-len(sizes) - 1:]
    indices = []
    rest = i
    for size, name in zip(reversed(sizes), reversed(names)):  # the innermost index first
        indices.insert(0, kb.op(arith.RemUIOp(rest, size), name))
        rest = kb.op(arith.DivUIOp(rest, size), names[0] if len(indices) == len(sizes) else None)
    indices.insert(0, rest)
    col = indices[-1]
    row = src.type.get_shape()[-1]  # static (the pass refuses a dynamic row length)
    kept = kb.lt(col, kb.index(row), "in_row")
    # the load stays inside the row (at its last element) where the column is pad: no read past the source
    at = kb.op(arith.MinUIOp(col, kb.index(row - 1)), "src_col")
    loaded = kb.load(src, [*indices[:-1], at], "element")
    x = kb.op(arith.SelectOp(kept, loaded, _zero(kb, src.type.element_type)), "packed")
    kb.store(x, dst, indices)


def _zero(kb: KernelBuilder, t: Attribute) -> SSAValue:
    if isinstance(t, IntegerType):
        return kb.op(arith.ConstantOp(IntegerAttr(0, t)))
    return kb.op(arith.ConstantOp(FloatAttr(0.0, t)))


def _padded_names(dims: list[str]) -> list[str]:
    return [*dims[:-1], f"{dims[-1]}_padded"]


def _use_buffer(launch: gpu.LaunchFuncOp, pos: int, value: SSAValue, buf: SSAValue) -> None:
    """The launch's kernel operand `pos` (the host's `value`) becomes `buf`."""
    where = [i for i, o in enumerate(launch.operands) if o is value]  # a memref is only ever a kernel operand
    positions = [p for p, o in enumerate(launch.kernelOperands) if o is value]
    launch.operands[where[positions.index(pos)]] = buf


def _retype_argument(kernel: gpu.FuncOp, arg: BlockArgument, padded: int, row: int) -> None:
    """The kernel's argument takes the padded type; gemm.zero_padded and gemm.arg_dims say so."""
    index = arg.index
    Rewriter.replace_value_with_new_type(arg, _padded_type(arg.type, padded))
    block = kernel.body.block
    kernel.properties["function_type"] = FunctionType.from_lists(
        [a.type for a in block.args], list(kernel.function_type.outputs.data))
    set_zero_padded(kernel, index, row)
    dims = kernel.attributes.get(ARG_DIMS_ATTR)
    if isinstance(dims, ArrayAttr) and index < len(dims.data) and isinstance(dims.data[index], ArrayAttr):
        names = [d.data for d in dims.data[index].data if isinstance(d, StringAttr)]
        if names:
            entries = list(dims.data)
            entries[index] = ArrayAttr([StringAttr(n) for n in _padded_names(names)])
            kernel.attributes[ARG_DIMS_ATTR] = ArrayAttr(entries)
