"""What split-k and stream-k share: a kernel whose K loop is divided among workgroups.

`KSplit` checks the kernel (one K loop, not pipelined, global stores only in the epilogue, into one
output), makes the second kernel (the kernel without its K loop), and reduces the partial sums:
atomically into C after that kernel writes the epilogue of a zero accumulator (`reduce=atomic`), or
through a workspace that the second kernel sums in order (`reduce=workspace`).  How the K range is
divided is the pass's: `divide_k_range(split)` rewrites the K loop's bounds and the launch, and
returns the value that numbers a workgroup's partial sum (split-k: the grid's z).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from xdsl.dialects import arith, gpu, math, memref, scf, vector
from xdsl.dialects.builtin import (
    ArrayAttr, FloatAttr, FunctionType, IntegerAttr, IntegerType, MemRefType, ModuleOp, StringAttr, SymbolRefAttr, VectorType, i64,
)
from xdsl.ir import Attribute, BlockArgument, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.transforms.dead_code_elimination import is_trivially_dead

from gemmc.transforms.contraction import role
from gemmc.support.diagnostics import GemmcError, pass_error
from gemmc.support.ir_names import (
    ARG_DIMS_ATTR, ATOMIC_ADDF, GLOBAL_SPACE, ROLE_ACC_READ, ROLE_AMAX, ROLE_ATTR, ROLE_EPILOGUE, ROLE_EPILOGUE_PAIRS, ROLE_K_LOOP,
    ROLE_PROLOGUE, SCHEDULE_ATTR,
    memory_space,
)
from gemmc.transforms.batch import batch_args, batch_split, is_batched, set_batch
from gemmc.transforms.fragment_stores import in_pairs_vector, scalar_pairs
from gemmc.transforms.kernel_builder import KernelBuilder, constant_value

REDUCTIONS = ("atomic", "workspace")
ATOMIC_TYPES = ("f32", "f64")  # C types an atomic add keeps exact enough (16-bit ones round every add)


def _launched_kernels(module: ModuleOp) -> Iterator[tuple[gpu.LaunchFuncOp, gpu.FuncOp]]:
    kernels = {(gm.sym_name.data, fn.sym_name.data): fn for gm in module.walk() if isinstance(gm, gpu.ModuleOp)
               for fn in gm.body.block.ops if isinstance(fn, gpu.FuncOp)}
    for launch in [o for o in module.walk() if isinstance(o, gpu.LaunchFuncOp)]:
        ref = launch.kernel
        key = (ref.root_reference.data, ref.nested_references.data[-1].data)
        if key in kernels:
            yield launch, kernels[key]


def k_loop(kernel: gpu.FuncOp, pass_name: str) -> scf.ForOp | None:
    loops = [o for o in kernel.walk() if role(o) == ROLE_K_LOOP]
    if len(loops) > 1:
        raise pass_error(pass_name, loops[1], "the kernel has two K loops (gemm.role = \"k_loop\")")
    if loops and not isinstance(loops[0], scf.ForOp):
        raise pass_error(pass_name, loops[0], "the K loop (gemm.role = \"k_loop\") is not an scf.for")
    return loops[0] if loops else None


def launched_k_loops(module: ModuleOp, pass_name: str) -> list[tuple[gpu.LaunchFuncOp, gpu.FuncOp, scf.ForOp]]:
    """Each launch of a kernel with a K loop, with the kernel and the loop."""
    found = [(launch, kernel, loop) for launch, kernel in _launched_kernels(module)
             if (loop := k_loop(kernel, pass_name)) is not None]
    if not found:
        raise pass_error(pass_name, module, "found no launched kernel with a K loop (gemm.role = \"k_loop\"); "
                         "run gemm-to-kernel first")
    return found


class KSplit:
    """One kernel whose K loop is divided: its checks, the second kernel, the reduction, the host.

    `divide(split)` rewrites the K loop's bounds (`split.loop`) and the launch (`split.launch`),
    and returns the index of the workgroup's partial sum, < `parts` (the workspace's slots)."""

    def __init__(self, pass_name: str, reduce: str, parts: int, launch: gpu.LaunchFuncOp, kernel: gpu.FuncOp,
                 loop: scf.ForOp, divide: Callable[[KSplit], SSAValue]):
        self.name, self.reduce, self.parts = pass_name, reduce, parts
        self.launch, self.kernel, self.loop, self.divide = launch, kernel, loop, divide

    def run(self) -> None:
        if self.reduce == "atomic":  # atomic adds are element by element: the scalar stores of each pair
            scalar_pairs(self.kernel)
        stores = self._checked_stores()
        if self.reduce == "atomic":
            for store in stores:
                self._check_atomic(store)
        else:
            for store in stores:
                self.accumulator_of(store)
        second = self._clone_without_k_loop()
        grid, block = _sizes(self.launch)  # the second kernel runs on the undivided grid
        part = self.divide(self)
        if self.reduce == "atomic":
            self._accumulate_atomically(stores)
            self._launch_before(second, grid, block)
        else:
            self._reduce_through_workspace(stores, second, part, grid, block)

    def atomic_refusal(self) -> GemmcError | None:
        """Why the atomic reduction cannot take the kernel (C of 16 bits, vector stores, an epilogue
        not linear in the sum and C), located at its op; None where it can."""
        try:
            for store in self._checked_stores():
                self._check_atomic(store)
        except GemmcError as e:
            return e
        return None

    def whole_sums_only(self) -> bool:
        """An amax output or an 8-bit C (a saturating epilogue's): stream-k's fix-up refuses them (with the
        atomic reduction's error, located at the amax or the store) until it is checked with them."""
        output = getattr(self, "output", None)
        return any(_is_amax(op) for op in self.kernel.walk()) or (
            output is not None and getattr(output.type.element_type, "bitwidth", 0) == 8)

    def run_fixup(self, fixup: Callable[[KSplit, list[Operation], SSAValue], None]) -> None:
        """Divide the K loop and hand its epilogue's stores, each of one accumulator value, to
        `fixup` (stream-k's last contributor), with the value that numbers the workgroup."""
        self.reduce = "fixup"
        stores = self._checked_stores()
        for store in stores:
            self.accumulator_of(store)
        fixup(self, stores, self.divide(self))

    # -- checks ---------------------------------------------------------------------------

    def _checked_stores(self) -> list[Operation]:
        self._check_undivided()
        stores = self._output_stores()
        if isinstance(self.output.type.element_type, IntegerType):
            raise pass_error(self.name, stores[0], f"an integer product (C {self.output.type.element_type}) is not "
                                                   f"split along K yet ({self.name} adds its partial sums as floats)")
        return stores

    def _check_undivided(self) -> None:
        # a batched kernel's z is its batches (gemmc.transforms.batch); split, it is batches x splits
        if is_batched(self.kernel) and batch_split(self.kernel) != 1:
            raise pass_error(self.name, self.launch, "the batched kernel is split along z already")
        if constant_value(self.launch.gridSizeZ) != 1 and not is_batched(self.kernel):
            raise pass_error(self.name, self.launch, "the grid's z size is not 1: the kernel is split along z already")
        for op in self.kernel.walk():
            if isinstance(op, (gpu.BlockIdOp, gpu.GridDimOp)) and op.dimension.data == gpu.DimensionEnum.Z:
                raise pass_error(self.name, op, "the kernel uses the grid's z dimension already")
            if role(op) == ROLE_PROLOGUE:
                raise pass_error(self.name, op, f"the K loop is pipelined already; run {self.name} before double-buffer or pipeline")
        sym = self.kernel.sym_name.data
        module = self.launch.get_toplevel_object()
        uses = [o for o in module.walk() if isinstance(o, gpu.LaunchFuncOp)
                and o.kernel.nested_references.data[-1].data == sym]
        if len(uses) > 1:
            raise pass_error(self.name, uses[1], f"@{sym} is launched twice; {self.name} changes what it computes")

    def _output_stores(self) -> list[Operation]:
        """The kernel's stores to global memory: all in the epilogue, all to one argument."""
        stores = [op for op in self.kernel.walk() if isinstance(op, (memref.StoreOp, vector.StoreOp))
                  and memory_space(accessed_memref(op).type) == GLOBAL_SPACE]
        stores += [op for op in self.kernel.walk() if isinstance(op, memref.AtomicRMWOp) and not _is_amax(op)]
        for op in stores:
            if isinstance(op, memref.AtomicRMWOp):
                raise pass_error(self.name, op, "the kernel has atomics already")
            if not _in_epilogue(op):
                raise pass_error(self.name, op, "stores to global memory outside the epilogue (gemm.role = \"epilogue\")")
            if not isinstance(accessed_memref(op), BlockArgument):
                raise pass_error(self.name, op, "stores to global memory that is not a kernel argument")
        if not stores:
            raise pass_error(self.name, self.kernel, "the kernel stores nothing to global memory")
        outputs = {accessed_memref(op) for op in stores}
        if len(outputs) > 1:
            raise pass_error(self.name, stores[-1], "the epilogue stores to two outputs; split-k reduces one")
        self.output = accessed_memref(stores[0])
        return stores

    def _check_atomic(self, store: Operation) -> None:
        amax = next((op for op in self.kernel.walk() if _is_amax(op)), None)
        if amax is not None:  # max |x| of partial sums is not that of the sum
            raise pass_error(self.name, amax, "reduce=atomic: an amax output needs each element's whole sum; "
                                              "use reduce=workspace")
        element = self.output.type.element_type
        if str(element) not in ATOMIC_TYPES:
            width = "8" if element.bitwidth == 8 else "16"  # FP8 (a saturating epilogue's C) or 16-bit
            raise pass_error(self.name, store, f"reduce=atomic adds into C, which is {element}: atomic adds of "
                             f"{width}-bit values round every partial sum; use reduce=workspace")
        if in_pairs_vector(store):
            return  # (run() takes the pair's scalar stores instead, checked as the others)
        if isinstance(store, vector.StoreOp):
            raise pass_error(self.name, store, "reduce=atomic: the epilogue stores vectors, which have no atomic add; "
                             "use reduce=workspace")
        self._check_linear(stored_value(store))

    def _accumulators(self, v: SSAValue, seen: set | None = None) -> set[SSAValue]:
        """The accumulator values (K loop results, acc_read loads) that `v` is computed from."""
        seen = set() if seen is None else seen
        if v in seen:
            return set()
        seen.add(v)
        owner = v.owner
        if not isinstance(owner, Operation):
            return set()
        if owner is self.loop or role(owner) == ROLE_ACC_READ:
            return {v}
        found: set[SSAValue] = set()
        for operand in owner.operands:
            found |= self._accumulators(operand, seen)
        return found

    def _reads_output(self, v: SSAValue) -> bool:
        owner = v.owner
        if not isinstance(owner, Operation) or owner is self.loop or role(owner) == ROLE_ACC_READ:
            return False
        if isinstance(owner, (memref.LoadOp, vector.LoadOp)) and accessed_memref(owner) is self.output:
            return True
        return any(self._reads_output(o) for o in owner.operands)

    def _check_linear(self, v: SSAValue) -> None:
        """`v` is a sum of terms, each a coefficient times the accumulator or times C: the
        epilogue of a zero accumulator plus the epilogue of a zero C is the epilogue."""
        owner = v.owner
        if isinstance(owner, Operation) and (owner is self.loop or role(owner) == ROLE_ACC_READ
                                             or isinstance(owner, memref.LoadOp) and owner.memref is self.output):
            return
        variable = lambda x: bool(self._accumulators(x)) or self._reads_output(x)  # noqa: E731
        if isinstance(owner, (arith.AddfOp, arith.SubfOp)):
            for x in owner.operands:
                self._check_linear(x)
            return
        if isinstance(owner, (arith.NegfOp, arith.ExtFOp, arith.TruncFOp)):
            self._check_linear(owner.operands[0])
            return
        if isinstance(owner, (arith.MulfOp, math.FmaOp)):
            x, y = owner.operands[:2]
            if variable(x) and variable(y):
                raise pass_error(self.name, owner, "reduce=atomic: the epilogue multiplies the accumulator or C by itself")
            self._check_linear(x if variable(x) else y)
            if isinstance(owner, math.FmaOp):
                self._check_linear(owner.operands[2])
            return
        what = f"'{owner.name}'" if isinstance(owner, Operation) else "a block argument"
        raise pass_error(self.name, owner if isinstance(owner, Operation) else self.kernel,
                         f"reduce=atomic: the epilogue is not linear in the accumulator and C ({what}); "
                         "use reduce=workspace")

    def accumulator_of(self, store: Operation) -> SSAValue:
        """The one accumulator value a store's value is computed from (workspace and fix-up modes)."""
        mode = "stream-k's fix-up" if self.reduce == "fixup" else "reduce=workspace"
        found = self._accumulators(stored_value(store))
        if len(found) != 1:
            raise pass_error(self.name, store, f"{mode}: the stored value comes from {len(found)} "
                             "accumulator values, not one")
        (acc,) = found
        vectors = isinstance(store, vector.StoreOp)
        if vectors != isinstance(acc.type, VectorType) or vectors and acc.type.get_shape() != stored_value(store).type.get_shape():
            raise pass_error(self.name, store, f"{mode}: the stored {stored_value(store).type} does not match "
                             f"the accumulator's {acc.type}")
        at = acc.owner
        for index in store.indices:
            if not _dominates(index, at):
                raise pass_error(self.name, store, f"{mode}: the store's indices are computed after the "
                                 "accumulator is read")
        return acc

    # -- the kernel -----------------------------------------------------------------------

    def _clone_without_k_loop(self) -> gpu.FuncOp:
        """The kernel again, under a fresh name, with its K loop removed (its results are their inits)."""
        clone = self.kernel.clone()
        suffix = "init" if self.reduce == "atomic" else "reduce"
        stem = self.name.replace("-", "")
        clone.attributes["sym_name"] = StringAttr(fresh_symbol(self.kernel, f"{self.kernel.sym_name.data}_{stem}_{suffix}"))
        clone.attributes.pop(SCHEDULE_ATTR, None)
        Rewriter.insert_op(clone, InsertPoint.after(self.kernel))
        return clone

    def _accumulate_atomically(self, stores: list[Operation]) -> None:
        for op in list(self.kernel.walk()):
            if isinstance(op, memref.LoadOp) and op.memref is self.output:
                zero = arith.ConstantOp(FloatAttr(0.0, op.res.type))
                Rewriter.replace_op(op, zero)
        for store in stores:
            add = memref.AtomicRMWOp.build(
                operands=[store.value, store.memref, list(store.indices)],
                result_types=[store.value.type],
                properties={"kind": IntegerAttr(ATOMIC_ADDF, i64)},
            )
            Rewriter.replace_op(store, add, new_results=[])

    def _reduce_through_workspace(self, stores: list[Operation], second: gpu.FuncOp, part: SSAValue,
                                  grid: list[SSAValue], block: list[SSAValue]) -> None:
        acc_type = self.accumulator_of(stores[0]).type
        element = acc_type.element_type if isinstance(acc_type, VectorType) else acc_type
        w_type = MemRefType(element, [self.parts, *self.output.type.get_shape()])
        w = append_argument(self.kernel, w_type, self.output)
        _batch_like(self.kernel, w, self.output)
        for store in stores:
            acc = self.accumulator_of(store)
            indices = [part, *store.indices]
            new = (vector.StoreOp(acc, w, indices) if isinstance(store, vector.StoreOp)
                   else memref.StoreOp.get(acc, w, indices))
            old_value = stored_value(store)
            Rewriter.replace_op(store, new)
            erase_if_dead(old_value)
        for amax in [op for op in self.kernel.walk() if _is_amax(op)]:  # the reduce kernel's, of whole sums
            magnitude = amax.operands[0]
            amax.detach()
            amax.erase()
            erase_if_dead(magnitude)
        self._sum_partials(second, w_type)
        self._launch_with_workspace(second, w_type, grid, block)

    def _sum_partials(self, second: gpu.FuncOp, w_type: MemRefType) -> None:
        """In the second kernel, each accumulator value becomes the sum of the S partial ones."""
        split = KSplit(self.name, self.reduce, self.parts, self.launch, second, k_loop(second, self.name), self.divide)
        stores = split._output_stores()
        w = append_argument(second, w_type, split.output)
        _batch_like(second, w, split.output)
        for store in stores:
            acc = split.accumulator_of(store)
            kb = KernelBuilder.before(acc.owner)

            def add_slice(b: KernelBuilder, s: SSAValue, carried, store=store, acc=acc):
                indices = [s, *store.indices]
                part = (b.op(vector.LoadOp(w, indices, acc.type)) if isinstance(acc.type, VectorType)
                        else b.load(w, indices))
                return [b.op(arith.AddfOp(carried[0], part))]

            total = kb.for_(kb.index(0), kb.index(self.parts), kb.index(1), [zero_of(kb, acc.type)], add_slice, "s")
            total.results[0].name_hint = "partial_sum"
            acc.replace_all_uses_with(total.results[0])
            if acc.owner is not split.loop:
                erase_if_dead(acc)
        erase_k_loop(split.loop)

    # -- the host -------------------------------------------------------------------------

    def _launch_before(self, second: gpu.FuncOp, grid: list[SSAValue], block: list[SSAValue]) -> None:
        first = gpu.LaunchFuncOp(symbol_ref(self.launch, second), grid, block,
                                 kernelOperands=list(self.launch.kernelOperands))
        Rewriter.insert_op(first, InsertPoint.before(self.launch))
        erase_k_loop(k_loop(second, self.name))

    def _launch_with_workspace(self, second: gpu.FuncOp, w_type: MemRefType, grid: list[SSAValue],
                               block: list[SSAValue]) -> None:
        launch = self.launch
        kb = KernelBuilder.before(launch)
        c_host = launch.kernelOperands[self.output.index]
        if is_batched(self.kernel) and self.output.index in batch_args(self.kernel):
            # a workspace a batch (each batch's partial sums apart), as C has its batch dim first
            w_type = MemRefType(w_type.element_type, [c_host.type.get_shape()[0], *w_type.get_shape()])
            sizes = [kb.dim(c_host, axis) for axis, n in enumerate(c_host.type.get_shape()) if n < 0]
        else:
            sizes = [kb.dim(c_host, axis) for axis, n in enumerate(self.output.type.get_shape()) if n < 0]
        w = kb.op(memref.AllocOp.get(w_type.element_type, shape=w_type.get_shape(), dynamic_sizes=sizes), "workspace")
        operands = [*launch.kernelOperands, w]
        main = gpu.LaunchFuncOp(launch.kernel, *_sizes(launch), kernelOperands=operands)
        reduce = gpu.LaunchFuncOp(symbol_ref(launch, second), grid, block, kernelOperands=operands)
        Rewriter.replace_op(launch, [main, reduce, memref.DeallocOp.get(w)])
        self.launch = main


def accessed_memref(op: Operation) -> SSAValue:
    """The memref a load or store accesses."""
    return op.base if isinstance(op, (vector.LoadOp, vector.StoreOp)) else op.memref


def stored_value(op: Operation) -> SSAValue:
    return op.vector if isinstance(op, vector.StoreOp) else op.value


def _is_amax(op: Operation) -> bool:
    """An amax output's atomic max (gemm-to-kernel's), which goes with the epilogue, not an output store."""
    role = op.attributes.get(ROLE_ATTR)
    return isinstance(op, memref.AtomicRMWOp) and isinstance(role, StringAttr) and role.data == ROLE_AMAX


def _in_epilogue(op: Operation) -> bool:
    while op is not None:
        if role(op) in (ROLE_EPILOGUE, ROLE_EPILOGUE_PAIRS):
            return True
        op = op.parent_op()
    return False


def _dominates(value: SSAValue, at: Operation) -> bool:
    """`value` is defined before `at` in `at`'s block or in a block around it."""
    block = value.block if isinstance(value, BlockArgument) else value.owner.parent_block()
    op: Operation | None = at
    while op is not None:
        if op.parent_block() is block:
            return isinstance(value, BlockArgument) or value.owner.is_before_in_block(op)
        op = op.parent_op()
    return False


def erase_if_dead(v: SSAValue) -> None:
    """Erase the op defining `v` if nothing uses it any more and it has no effect, and so on up."""
    owner = v.owner
    if isinstance(owner, Operation) and owner.parent is not None and _is_dead(owner):
        operands = list(owner.operands)
        owner.detach()
        owner.erase()
        for o in operands:
            erase_if_dead(o)


def _is_dead(op: Operation) -> bool:
    # xDSL's is_trivially_dead keeps an unused alloca (its effect names no value); MLIR does not
    if isinstance(op, (memref.AllocaOp, memref.AllocOp)):
        return not op.results[0].uses
    return is_trivially_dead(op)


def erase_k_loop(loop: scf.ForOp) -> None:
    """Remove the K loop: its results become their initial values, and what only it used goes too."""
    used = {o for op in loop.walk() for o in op.operands if not loop.is_ancestor(_owner_op(o))}
    for result, init in zip(loop.results, loop.iter_args):
        result.replace_all_uses_with(init)
    loop.detach()
    loop.erase()
    for v in used:
        erase_if_dead(v)


def _owner_op(v: SSAValue) -> Operation | None:
    return v.owner if isinstance(v.owner, Operation) else v.owner.parent_op()


def append_argument(kernel: gpu.FuncOp, t: MemRefType, like: BlockArgument) -> BlockArgument:
    """A new last argument of the kernel, named in gemm.arg_dims like `like` with a leading axis."""
    block = kernel.body.block
    arg = block.insert_arg(t, len(block.args))
    arg.name_hint = "workspace"
    kernel.properties["function_type"] = FunctionType.from_lists(
        [a.type for a in block.args], list(kernel.function_type.outputs.data))
    dims = kernel.attributes.get(ARG_DIMS_ATTR)
    if isinstance(dims, ArrayAttr):
        like_dims = dims.data[like.index] if like.index < len(dims.data) else ArrayAttr([])
        kernel.attributes[ARG_DIMS_ATTR] = ArrayAttr([*dims.data, ArrayAttr([StringAttr("splits"), *like_dims.data])])
    return arg


def _batch_like(kernel: gpu.FuncOp, arg: BlockArgument, like: BlockArgument) -> None:
    """`arg` batched where `like` is (the workspace of a batched C: one a batch)."""
    args = batch_args(kernel)
    if like.index in args:
        set_batch(kernel, [*args, arg.index], batch_split(kernel))


def fresh_symbol(kernel: gpu.FuncOp, base: str) -> str:
    taken = {op.sym_name.data for op in kernel.parent_block().ops if isinstance(op, gpu.FuncOp)}
    name, n = base, 0
    while name in taken:
        n += 1
        name = f"{base}_{n}"
    return name


def symbol_ref(launch: gpu.LaunchFuncOp, kernel: gpu.FuncOp) -> SymbolRefAttr:
    return SymbolRefAttr(launch.kernel.root_reference, [kernel.sym_name])


def _sizes(launch: gpu.LaunchFuncOp) -> tuple[list[SSAValue], list[SSAValue]]:
    return ([launch.gridSizeX, launch.gridSizeY, launch.gridSizeZ],
            [launch.blockSizeX, launch.blockSizeY, launch.blockSizeZ])


def zero_of(kb: KernelBuilder, t: Attribute) -> SSAValue:
    if isinstance(t, VectorType):
        return kb.op(vector.BroadcastOp(kb.float(0.0, t.element_type), t))
    return kb.float(0.0, t)
