"""What pack-operands leaves in the IR for the passes and analyses after it.

pack-operands (passes/pack_operands.py) copies a GEMM kernel's misaligned A or B into a host-allocated
buffer whose rows are padded with zeros to a multiple of some elements, and passes that buffer to the
kernel instead.  Two facts outlive the pass:

  * on the GEMM kernel, `gemm.zero_padded` = [{arg = i, cols = n}, ...]: argument i's rows hold the
    program's n elements, then zeros to the row's end (`zero_padded`, `set_zero_padded`); a copy bounded
    at n columns may read past n (tma-copies' boxes) and see the zeros it would have filled in;
  * on the host, the padded buffer is a memref.alloc written by a launch of the copy kernel, a gpu.func
    with gemm.role = "pack" taking (the operand, the buffer) (`packed_source`): the cost model counts the
    GEMM kernel's reads of the buffer as reads of the operand it holds.
"""

from __future__ import annotations

from xdsl.dialects import gpu, memref
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, IntegerAttr, StringAttr, i64
from xdsl.ir import Operation, SSAValue

from gemmc.support.ir_names import ROLE_ATTR, ROLE_PACK, ZERO_PADDED_ATTR


def zero_padded(kernel: Operation) -> dict[int, int]:
    """{argument index: the program's row length} of the kernel's zero-padded arguments."""
    attr = kernel.attributes.get(ZERO_PADDED_ATTR)
    if not isinstance(attr, ArrayAttr):
        return {}
    out = {}
    for entry in attr.data:
        if isinstance(entry, DictionaryAttr) and isinstance(entry.data.get("arg"), IntegerAttr) \
                and isinstance(entry.data.get("cols"), IntegerAttr):
            out[entry.data["arg"].value.data] = entry.data["cols"].value.data
    return out


def set_zero_padded(kernel: Operation, arg: int, cols: int) -> None:
    """Record that argument `arg` of `kernel` holds rows of `cols` elements, then zeros."""
    entries = {**zero_padded(kernel), arg: cols}
    kernel.attributes[ZERO_PADDED_ATTR] = ArrayAttr([
        DictionaryAttr({"arg": IntegerAttr(i, i64), "cols": IntegerAttr(n, i64)}) for i, n in sorted(entries.items())])


def is_pack_kernel(kernel: Operation) -> bool:
    role = kernel.attributes.get(ROLE_ATTR)
    return isinstance(role, StringAttr) and role.data == ROLE_PACK


def packed_source(value: SSAValue) -> SSAValue | None:
    """The host value a padded buffer holds: for a memref.alloc that a launch of a pack kernel writes
    (its second operand), that launch's first operand; None for any other value."""
    alloc = value.owner
    if not isinstance(alloc, memref.AllocOp):
        return None
    module = alloc.get_toplevel_object()
    for use in value.uses:
        launch = use.operation
        if isinstance(launch, gpu.LaunchFuncOp) and len(launch.kernelOperands) == 2 \
                and launch.kernelOperands[1] is value and _launches_pack_kernel(module, launch):
            return launch.kernelOperands[0]
    return None


def _launches_pack_kernel(module: Operation, launch: gpu.LaunchFuncOp) -> bool:
    name = launch.kernel.nested_references.data[-1].data
    return any(isinstance(op, gpu.FuncOp) and op.sym_name.data == name and is_pack_kernel(op) for op in module.walk())
