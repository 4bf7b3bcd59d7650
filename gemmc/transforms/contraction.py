"""Read a GEMM kernel back from kernel IR: what it computes, independent of its schedule.

The tiling passes need to know, of the kernel they rewrite, which arguments are A, B
and C, how A and B are laid out, the types, and the epilogue (the ops that turn the
accumulated sum at (row, col) into the stored value).  `analyze` finds these in the
output of gemm-to-kernel or of any tiling pass, through the `gemm.role` markers, and
says precisely what it expected when the kernel has another shape.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import arith, gpu, memref, scf, vector
from xdsl.dialects.builtin import DenseArrayBase, IntegerType, ModuleOp, StringAttr
from xdsl.ir import Attribute, BlockArgument, OpResult, Operation, SSAValue

from gemmc.support.diagnostics import pass_error
from gemmc.dialects.amdgpu import GatherToLDSOp
from gemmc.dialects.gemm import CopyOp
from gemmc.support.ir_names import (
    ARG_UNSIGNED_ATTR,
    GROUPED_ATTR,
    ROLE_GROUP,
    ROLE_ACC_READ,
    ROLE_ATTR,
    ROLE_EPILOGUE,
    ROLE_K_LOOP,
    ROLE_LOAD_A,
    ROLE_LOAD_B,
    ROLE_LOAD_SA,
    ROLE_LOAD_SB,
    ROLE_PREFETCH,
    ROLE_PROLOGUE,
    LDS_SPACE,
    SCHEDULE_ATTR,
    TRANSPOSED_ATTR,
    memory_space,
    UNROLL_ATTR,
)
from gemmc.transforms.kernel_builder import constant_value
from gemmc.transforms.schedule import Schedule



@dataclass
class Contraction:
    kernel: gpu.FuncOp
    a: BlockArgument
    b: BlockArgument
    c: BlockArgument
    transpose_a: bool
    transpose_b: bool
    in_type: Attribute  # A's element type
    b_type: Attribute  # B's: A's, or another FP8 format (fp8 x bf8)
    acc_type: Attribute
    # in order; their free values are row, col, sum and kernel args (a fused epilogue's loads of its
    # vectors and matrices at row / col and its arith and math ops are epilogue ops like any other)
    epilogue: list[Operation]
    row: SSAValue
    col: SSAValue
    sum: SSAValue
    schedule: Schedule | None  # None for the untiled step-1 kernel
    block_size: tuple[int, int]
    pass_name: str  # the pass that read it, for its diagnostics
    # a block-scaled (MX) product: the E8M0 scales of A and B, stored as A and B are with K / 32
    scale_a: BlockArgument | None = None
    scale_b: BlockArgument | None = None
    # an integer product: A's (B's) i8 elements are unsigned, widened by arith.extui (gemm.unsigned_args)
    unsigned_a: bool = False
    unsigned_b: bool = False

    @property
    def scaled(self) -> bool:
        return self.scale_a is not None

    @property
    def integer(self) -> bool:
        return isinstance(self.acc_type, IntegerType)


def role(op: Operation) -> str | None:
    attr = op.attributes.get(ROLE_ATTR)
    return attr.data if isinstance(attr, StringAttr) else None


def set_role(op: Operation, name: str) -> None:
    op.attributes[ROLE_ATTR] = StringAttr(name)


def prefetch_stage(loop: scf.ForOp) -> scf.IfOp | None:
    """The pipelined K loop's prefetch (its scf.if with gemm.role = "prefetch"), or None."""
    return next((o for o in loop.body.block.ops if isinstance(o, scf.IfOp) and role(o) == ROLE_PREFETCH), None)


def prologue_stages(before: Operation) -> list[scf.IfOp]:
    """The pipeline's prologue stages (scf.if, gemm.role = "prologue") right before `before`, first first:
    walking back over ops without regions and those stages, up to any other op with regions."""
    stages, cur = [], before.prev_op
    while cur is not None and (not cur.regions or role(cur) == ROLE_PROLOGUE):
        if role(cur) == ROLE_PROLOGUE:
            stages.append(cur)
        cur = cur.prev_op
    return stages[::-1]


def find_role(root: Operation, name: str) -> Operation | None:
    for op in root.walk():
        if role(op) == name:
            return op
    return None


def kernels(module: ModuleOp, pass_name: str) -> list[gpu.FuncOp]:
    found = [op for op in module.walk() if isinstance(op, gpu.FuncOp) and op.kernel is not None]
    if not found:
        raise pass_error(pass_name, module, "expects kernel IR (a gpu.func); run gemm-to-kernel first")
    return found


def working_kernels(module: ModuleOp, pass_name: str) -> list[gpu.FuncOp]:
    """The kernels that do the GEMM's work, with a K loop or a tile copy: those the tiling passes
    transform (split-k's second kernel, which has neither, stays as it is)."""
    from gemmc.dialects.gemm import CopyOp

    found = [k for k in kernels(module, pass_name)
             if find_role(k, ROLE_K_LOOP) is not None or any(isinstance(op, CopyOp) for op in k.walk())]
    if not found:
        raise pass_error(pass_name, module, "expects a kernel with a K loop (gemm.role = \"k_loop\"); "
                         "run gemm-to-kernel first")
    return found


def analyze(kernel: gpu.FuncOp, pass_name: str) -> Contraction:
    guard = find_role(kernel, ROLE_EPILOGUE)
    if not isinstance(guard, scf.IfOp):
        raise pass_error(pass_name, kernel, "expects a GEMM kernel with an epilogue guard (gemm.role = \"epilogue\")")
    body = list(guard.true_region.block.ops)[:-1]  # without the scf.yield
    store = body[-1] if body else None
    if isinstance(store, scf.IfOp) and store.false_region.blocks:
        # stream-k's fix-up: the store into C where the workgroup owns the tile, else into its slot
        store = list(store.true_region.block.ops)[-2]
    # split-k's epilogues end in an atomic add into C, or a store into its workspace W[z, row, col]
    if not isinstance(store, (memref.StoreOp, memref.AtomicRMWOp)) or len(store.indices) < 2:
        raise pass_error(pass_name, kernel, "expects the epilogue to end in a store to C[row, col]")
    row, col = store.indices[-2:]
    c = store.memref
    sched_attr = kernel.attributes.get(SCHEDULE_ATTR)
    scales: tuple = (None, None)
    if sched_attr is None:
        k_loop, sum_value, a, b, ta, tb, scales = _naive_loop(guard, pass_name, kernel)
        _check_naive_indices(k_loop, row, col, kernel, pass_name)
        start = body.index(k_loop) + 1
    else:
        read = find_role(guard, ROLE_ACC_READ)
        if read is None:
            raise pass_error(pass_name, kernel, "expects the epilogue to read the accumulator tile")
        sum_value = read.results[0]
        start = body.index(read) + 1
        a, b, ta, tb = _tiled_operands(kernel, pass_name)
        scales = _tiled_scales(kernel)
    if scales[0] is not None and pass_name not in SCALED_PASSES:
        raise pass_error(pass_name, kernel, f"{pass_name} does not take block-scaled (MX) kernels yet; "
                                            f"{', '.join(SCALED_PASSES)} do")
    for v, name in ((a, "A"), (b, "B"), (c, "C")):
        if not isinstance(v, BlockArgument) or v.block.parent_op() is not kernel:
            raise pass_error(pass_name, kernel, f"expects {name} to be a kernel argument")
    bs = kernel.known_block_size
    if bs is None:
        raise pass_error(pass_name, kernel, "expects gpu.known_block_size on the kernel")
    bx, by = bs.get_values()[:2]
    unsigned = kernel.attributes.get(ARG_UNSIGNED_ATTR)
    unsigned = set(unsigned.get_values()) if isinstance(unsigned, DenseArrayBase) else set()
    return Contraction(
        kernel=kernel, a=a, b=b, c=c, transpose_a=ta, transpose_b=tb,  # type: ignore[arg-type]
        in_type=a.type.element_type, b_type=b.type.element_type, acc_type=sum_value.type,
        epilogue=body[start:], row=row, col=col, sum=sum_value,
        schedule=_with_copies(Schedule.from_attr(sched_attr), kernel, ta, tb) if sched_attr is not None else None,
        block_size=(bx, by), pass_name=pass_name, scale_a=scales[0], scale_b=scales[1],
        unsigned_a=a.index in unsigned, unsigned_b=b.index in unsigned,
    )


def _naive_loop(guard: scf.IfOp, pass_name: str, kernel):
    loop = find_role(guard, ROLE_K_LOOP)
    if not isinstance(loop, scf.ForOp) or len(loop.results) != 1:
        raise pass_error(pass_name, kernel, "expects a step-1 kernel: a K loop (gemm.role = \"k_loop\") carrying the sum")
    all_loads = [op for op in loop.body.block.ops if isinstance(op, memref.LoadOp)]
    loads = [op for op in all_loads if not _is_scale(op.memref)]
    scale_loads = [op for op in all_loads if _is_scale(op.memref)]
    if len(loads) != 2 or len(scale_loads) not in (0, 2):
        raise pass_error(pass_name, loop, "expects the K loop to load one element of A and one of B "
                                          "(and of a block-scaled product, one scale of each)")
    k = loop.body.block.args[0]
    la, lb = loads
    _check_naive_form(loop, guard, pass_name, kernel, scaled=bool(scale_loads))
    ta = la.indices[0] is k
    tb = lb.indices[-1] is k  # a grouped B's [g, col, k]
    scales = tuple(op.memref for op in scale_loads) if scale_loads else (None, None)
    return loop, loop.results[0], la.memref, lb.memref, ta, tb, scales


def _is_scale(v: SSAValue) -> bool:
    from gemmc.dialects.gemm import SCALE_NAME, type_name

    return type_name(v.type.element_type) == SCALE_NAME


def _tiled_scales(kernel: gpu.FuncOp) -> tuple:
    """The scale arguments a tiled block-scaled kernel loads (gemm.role load_sa / load_sb)."""
    sa, sb = find_role(kernel, ROLE_LOAD_SA), find_role(kernel, ROLE_LOAD_SB)
    return (sa.operands[0], sb.operands[0]) if sa is not None and sb is not None else (None, None)


# The passes that take block-scaled kernels: they write the scales into what they produce
# (double-buffer leaves the compute, and with it the scale loads of the tile it computes, as it
# is).  A pass that reads the contraction and is not here refuses a scaled kernel at its op.
SCALED_PASSES = ("lds-tiling", "register-tiling", "matrix-cores", "mfma-lowering", "double-buffer")

_PRODUCT_OPS = {"memref.load", "arith.extf", "arith.truncf", "math.fma", "arith.mulf", "arith.addf", "scf.yield",
                "arith.extsi", "arith.extui", "arith.muli", "arith.addi"}  # an integer product's too
_SCALE_OPS = {"arith.divui", "arith.constant"}  # a block-scaled product's k / 32
_STEP1_ATTRS = {ROLE_ATTR, UNROLL_ATTR}
"""The attributes gemm-to-kernel puts on the ops the tiling passes replace."""

def _check_naive_form(loop: scf.ForOp, guard: scf.IfOp, pass_name: str, kernel, scaled: bool = False) -> None:
    """lds-tiling replaces the step-1 guard with its loop nest, keeping the ops before it and
    moving the epilogue: refuse anything else in the guard it would drop (an extra op in the
    K loop, a store before it, a loop that does not run k = 0, 1, ... , K - 1)."""
    allowed = _PRODUCT_OPS | (_SCALE_OPS if scaled else set())
    for op in loop.body.block.ops:
        if op.name not in allowed:
            raise pass_error(pass_name, op, f"expects the K loop to compute a product sum only; this '{op.name}' would be dropped")
    body = list(guard.true_region.block.ops)
    kept = {id(o) for top in body[body.index(loop) + 1:] for o in top.walk()}  # the epilogue, moved over
    for op in guard.walk():
        extra = set(op.attributes) - _STEP1_ATTRS
        if extra and id(op) not in kept and op is not guard:
            raise pass_error(pass_name, op, f"this '{op.name}' carries {', '.join(sorted(extra))}, which the tiled kernel would not")
    for bound, want in ((loop.lb, 0), (loop.step, 1)):
        if constant_value(bound) != want:
            raise pass_error(pass_name, loop, "expects the K loop to run from 0 by 1")
    for op in guard.true_region.block.ops:
        if op is loop:
            break
        if op.name != "arith.constant":
            raise pass_error(pass_name, op, f"expects only constants before the K loop; this '{op.name}' would be dropped")


def _check_naive_indices(loop: scf.ForOp, row: SSAValue, col: SSAValue, kernel, pass_name: str) -> None:
    """row = block_id.y * block-y + thread_id.y, col likewise in x, and the K loop reads
    A at (row, k) and B at (k, col): the mapping lds-tiling tiles."""
    bs = kernel.known_block_size
    sizes = dict(zip("xy", bs.get_values()[:2])) if bs is not None else {}
    group = grouped_row(kernel, row, pass_name)
    for value, dim in ((row, "y"), (col, "x")):
        if dim == "y" and group is not None:
            continue
        if not _is_global_id(value, dim, sizes.get(dim)):
            raise pass_error(pass_name, value.owner if isinstance(value, OpResult) else kernel,
                             f"expects the epilogue's {'row' if dim == 'y' else 'column'} to be block_id.{dim} * "
                             f"{sizes.get(dim)} + thread_id.{dim}")
    k = loop.body.block.args[0]
    la, lb = [op for op in loop.body.block.ops if isinstance(op, memref.LoadOp) and not _is_scale(op.memref)]
    b_indices = list(lb.indices)
    if group is not None:  # B[g, k, col]: the workgroup's group first
        if b_indices[0] is not group.results[4]:
            raise pass_error(pass_name, lb, "expects the K loop to read a grouped B at the workgroup's group first")
        b_indices = b_indices[1:]
    if set(map(id, la.indices)) != {id(k), id(row)} or set(map(id, b_indices)) != {id(k), id(col)}:
        raise pass_error(pass_name, loop, "expects the K loop to read A at (row, k) and B at (k, col) of the epilogue's row and column")


def grouped_row(kernel: gpu.FuncOp, row: SSAValue, pass_name: str) -> scf.ForOp | None:
    """A grouped kernel's group search (gemm.role = "group") where the row is its first row +
    thread_id.y (gemmc.transforms.grouping); None for a kernel that is not grouped.  A grouped
    kernel whose row is anything else is refused."""
    if GROUPED_ATTR not in kernel.attributes:
        return None
    add = row.owner
    loop = add.lhs.owner if isinstance(add, arith.AddiOp) else None
    tid = add.rhs.owner if isinstance(add, arith.AddiOp) else None
    if not (isinstance(loop, scf.ForOp) and role(loop) == ROLE_GROUP and add.lhs is loop.results[2]
            and isinstance(tid, gpu.ThreadIdOp) and tid.dimension.data == "y"):
        raise pass_error(pass_name, row.owner if isinstance(row, OpResult) else kernel,
                         "expects a grouped kernel's row to be its group's first row + thread_id.y")
    return loop


def _is_global_id(value: SSAValue, dim: str, size: int | None) -> bool:
    add = value.owner
    if not isinstance(add, arith.AddiOp):
        return False
    mul, tid = add.lhs.owner, add.rhs.owner
    return (isinstance(mul, arith.MuliOp) and isinstance(tid, gpu.ThreadIdOp) and tid.dimension.data == dim
            and isinstance(mul.lhs.owner, gpu.BlockIdOp) and mul.lhs.owner.dimension.data == dim
            and constant_value(mul.rhs) == size)


def _with_copies(s: Schedule, kernel: gpu.FuncOp, ta: bool = False, tb: bool = False) -> Schedule:
    """The schedule with what the kernel's copies say of themselves (read from the IR,
    which vectorize, direct-to-lds and double-buffer change in place): their widths, which
    operands move by global_load_lds, and how many slots the LDS tiles have."""
    widths, direct = {}, 0
    for op in kernel.walk():
        r = role(op)
        if r not in (ROLE_LOAD_A, ROLE_LOAD_B):
            continue
        operand = "a" if r == ROLE_LOAD_A else "b"
        if isinstance(op, CopyOp):
            widths.setdefault(operand, op.width.value.data)
            direct |= (1 if operand == "a" else 2) if op.direct else 0
        elif isinstance(op, GatherToLDSOp):
            direct |= 1 if operand == "a" else 2
        elif isinstance(op, vector.LoadOp):  # a copy that double-buffer staged through registers
            widths.setdefault(operand, op.result.type.get_shape()[-1])
        else:
            widths.setdefault(operand, 1)
    s = s.with_(width_a=widths.get("a", 1), width_b=widths.get("b", 1), direct=direct, buffers=_slots(kernel))
    bx, by = kernel.known_block_size.get_values()[:2] if kernel.known_block_size is not None else (s.threads_x, s.threads_y)
    return _with_tiles(s.with_(threads_x=bx, threads_y=by), kernel, ta, tb)


def _with_tiles(s: Schedule, kernel: gpu.FuncOp, ta: bool, tb: bool) -> Schedule:
    """The block tile as the copies have it (their extents, in stored order), where they
    are still gemm.copy ops."""
    copies = {role(op): op for op in kernel.walk() if isinstance(op, CopyOp)}
    a, b = copies.get(ROLE_LOAD_A), copies.get(ROLE_LOAD_B)
    if a is None or b is None:
        return s
    m, k = a.tile[::-1] if ta else a.tile
    _, n = b.tile[::-1] if tb else b.tile
    return s.with_(block_m=m, block_n=n, block_k=k)


def _slots(kernel: gpu.FuncOp) -> int:
    """Buffers per operand: the leading dimension of the LDS tiles once multi-buffered."""
    for op in kernel.walk():
        if isinstance(op, memref.AllocaOp) and memory_space(op.memref.type) == LDS_SPACE:
            shape = op.memref.type.get_shape()
            return shape[0] if len(shape) == 3 else 1
    return 1


def _tiled_operands(kernel: gpu.FuncOp, pass_name: str):
    ops = {}
    for name in (ROLE_LOAD_A, ROLE_LOAD_B):
        load = find_role(kernel, name)
        if load is None:
            raise pass_error(pass_name, kernel, f"expects a global load marked gemm.role = \"{name}\"")
        trans = load.attributes.get(TRANSPOSED_ATTR)
        ops[name] = (load.operands[0], trans is not None)
    (a, ta), (b, tb) = ops[ROLE_LOAD_A], ops[ROLE_LOAD_B]
    return a, b, ta, tb

