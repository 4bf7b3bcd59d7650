"""multi-buffer: give a loop's LDS buffers one slot per iteration in flight (MLIR's memref::multiBuffer).

Expects: LDS buffers (memref.alloca/alloc in address space 3) whose accesses all lie inside
one scf.for that the buffer is allocated outside of, and that each iteration writes before it
reads (the buffer carries nothing from one iteration to the next; checked as: the first
access of the loop body in program order is a store).
Produces: each buffer gets a leading dimension of `factor`; at the top of the innermost loop
holding all its accesses, `slot = ((iv - lb) / step) mod factor` (`iv mod factor` for a loop
from 0 by 1), which every access now takes as its first index.  Iteration t therefore works
in slot t mod factor, and the loop computes what it computed before; the `pipeline` pass can
then overlap iteration t + 1's writes with iteration t's reads.
Options: factor (>= 2), buffers (SSA names; all LDS buffers when empty).
Diagnostics, each naming the op: a buffer used outside any loop or allocated inside its loop,
a use that is not an element access, a first access that is a load, and the multiplied
buffers exceeding the arch's LDS.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import MemRefType, ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from gemmc.support.diagnostics import pass_error
from gemmc.transforms.kernel_builder import constant_value, index_constant
from gemmc.transforms.lds_access import accesses, check_lds_fits, kernel_of, retype_alloc, select_allocs, set_indices
from gemmc.target.module_arch import target_of


@dataclass(frozen=True)
class MultiBufferPass(ModulePass):
    name = "multi-buffer"

    factor: int = 2
    buffers: tuple[str, ...] = ()

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.factor < 2:
            raise pass_error(self.name, op, f"factor={self.factor} must be at least 2")
        allocs = select_allocs(op, tuple(self.buffers), self.name)
        kernels = {kernel_of(alloc) for alloc in allocs}  # (before the allocations are replaced)
        multi_buffer(allocs, self.factor, self.name)
        for kernel in kernels:
            check_lds_fits(self.name, kernel, target_of(op))


def multi_buffer(allocs: list[Operation], factor: int, pass_name: str) -> None:
    """Give each allocation `factor` slots (the pass, for the allocations chosen; also
    double-buffer's first half)."""
    slots: dict[scf.ForOp, SSAValue] = {}
    for alloc in allocs:
        _multiply(alloc, factor, slots, pass_name)


def _multiply(alloc: Operation, factor: int, slots: dict, pass_name: str) -> None:
    name = alloc.results[0].name_hint or "buffer"
    found = accesses(alloc, pass_name)
    if not found:
        return
    loop = _common_loop([a.op for a in found])
    if loop is None:
        raise pass_error(pass_name, found[0].op, f"%{name} is used outside any scf.for; there is no iteration to give a slot")
    if loop.is_ancestor(alloc):
        raise pass_error(pass_name, alloc, f"%{name} is allocated inside the loop it is used in")
    order = {id(o): i for i, o in enumerate(loop.body.walk())}  # program order in the loop
    first = min(found, key=lambda a: order[id(a.op)])
    if not first.is_store:
        raise pass_error(
            pass_name, first.op,
            f"the loop reads %{name} before writing it, so it may carry data between iterations; "
            "giving each iteration its own slot would change what it reads",
        )
    if loop not in slots:
        slots[loop] = _slot_index(loop, factor)
    t: MemRefType = alloc.results[0].type
    retype_alloc(alloc, MemRefType(t.get_element_type(), [factor, *t.get_shape()], memory_space=t.memory_space))
    for a in found:
        set_indices(a, [slots[loop], *a.indices])


def _common_loop(ops: list[Operation]) -> scf.ForOp | None:
    """The innermost scf.for that holds every op."""
    chains = [_loops_around(o) for o in ops]
    common = None
    for level in zip(*chains):
        if any(loop is not level[0] for loop in level):
            break
        common = level[0]
    return common


def _loops_around(op: Operation) -> list[scf.ForOp]:
    """The scf.for ops enclosing op, outermost first."""
    loops = []
    parent = op.parent_op()
    while parent is not None:
        if isinstance(parent, scf.ForOp):
            loops.append(parent)
        parent = parent.parent_op()
    return loops[::-1]


def _slot_index(loop: scf.ForOp, factor: int) -> SSAValue:
    """((iv - lb) / step) mod factor, at the top of the loop body."""
    ops: list[Operation] = []

    def emit(o: Operation) -> SSAValue:
        ops.append(o)
        return o.results[0]

    iv = loop.body.block.args[0]
    if constant_value(loop.lb) != 0:
        iv = emit(arith.SubiOp(iv, loop.lb))
    if constant_value(loop.step) != 1:
        iv = emit(arith.DivUIOp(iv, loop.step))
    f = emit(index_constant(factor))
    slot = emit(arith.RemUIOp(iv, f))
    slot.name_hint = "slot"
    Rewriter.insert_op(ops, InsertPoint.at_start(loop.body.block))
    return slot
