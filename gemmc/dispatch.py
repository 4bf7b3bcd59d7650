"""Shape dispatch for dynamic sizes: two variants of one GEMM and a launcher that picks one per call.

    choice = dispatch(module, arch, default)     # module: gemm level, with dynamic dims

A problem whose sizes are known at launch only gets the arch's default pipeline and the variant
gemmc.selection would choose for a grid that leaves the GPU idle: the default with `stream-k` (an
f32 or f64 C) or with `split-k{factor=SPLITS} reduce=workspace` (a 16-bit C).  Both are lowered; the
variant's kernels join the default's gpu.module (renamed where they clash), and the host function
becomes

    workgroups = <the default's grid, computed by the default's own host ops>
    scf.if workgroups < SLOTS { the variant's launches } else { the default's launches }

with SLOTS = CUs x the workgroups a CU holds of the default kernel (the cost model's occupancy).
The same rule as the static selection's first question ("does the grid leave workgroup slots
idle?"), asked at run time; the cost model and the interpreter follow the branch the sizes take.
"""

from __future__ import annotations

from xdsl.dialects import arith, func, gpu, scf
from xdsl.dialects.builtin import ModuleOp, StringAttr, SymbolRefAttr
from xdsl.ir import Block, BlockArgument, Operation, SSAValue
from xdsl.rewriter import InsertPoint

from gemmc.arch import Arch
from gemmc.ir_names import PIPELINE_ATTR
from gemmc.kernel_builder import KernelBuilder

SPLITS = 8
PROBE_SIZE = 1024  # the size at which the default kernel's occupancy is read (it does not depend on it)


def variant_pipeline(default: str, out_type: str) -> str:
    from gemmc.selection import with_split_k, with_stream_k

    if out_type in ("f32", "f64"):
        return with_stream_k(default)
    return with_split_k(default, SPLITS, "workspace")


def dispatch(module: ModuleOp, arch: Arch, default: str):
    """The dispatching module (a Choice of gemmc.selection, its `lowered` set), or None when the
    variant does not apply (no tiled kernel, or a pass refuses it)."""
    from gemmc.api import lower
    from gemmc.diagnostics import GemmcError
    from gemmc.selection import Choice

    base = lower(module.clone(), default, arch)
    slots = _slots(base, arch)
    out_type = _output_type(base)
    if slots is None or out_type is None:
        return None
    other = variant_pipeline(default, out_type)
    try:
        variant = lower(module.clone(), other, arch)
    except GemmcError:
        return None
    _merge(base, variant, slots)
    reason = (f"the sizes are dynamic: the launcher runs [{other}] when the default's grid has fewer "
              f"than {slots} workgroups ({arch.cu_count} CUs x {slots // arch.cu_count}), the default otherwise")
    spec = f"{default} | when the grid leaves the GPU idle: {other}"
    base.attributes[PIPELINE_ATTR] = StringAttr(spec)
    return Choice(spec, reason, {}, base, runnable=False)


def _slots(base: ModuleOp, arch: Arch) -> int | None:
    """CUs x the default kernel's resident workgroups per CU, read at a probe size."""
    from gemmc.cost.model import predict

    p = predict(base, arch, {d: PROBE_SIZE for d in _dim_names(base)})
    if p.kernel.schedule is None:
        return None
    return arch.cu_count * max(1, int(p.occ.workgroups_per_cu))


def _dim_names(module: ModuleOp) -> set[str]:
    """The names of the host function's dynamic dims."""
    from xdsl.dialects.builtin import MemRefType

    from gemmc.ir_names import DIMS_ATTR

    host = _host(module)
    names: set[str] = set()
    for arg, attrs in zip(host.body.block.args, host.arg_attrs.data if host.arg_attrs else ()):
        dims = attrs.data.get(DIMS_ATTR)
        if isinstance(arg.type, MemRefType) and dims is not None:
            names |= {d.data for d, size in zip(dims.data, arg.type.get_shape()) if size < 0}
    return names


def _output_type(module: ModuleOp) -> str | None:
    from gemmc.interp.check import host_function, matmul_spec

    host = host_function(module)
    spec = matmul_spec(module, host)
    return str(host.body.block.args[spec.c].type.element_type)


def _host(module: ModuleOp) -> func.FuncOp:
    from gemmc.interp.check import host_function

    return host_function(module)


def _merge(base: ModuleOp, variant: ModuleOp, slots: int) -> None:
    """`variant`'s kernels into `base`'s gpu.module, and `base`'s host function choosing between them."""
    gm = next(op for op in base.body.block.ops if isinstance(op, gpu.ModuleOp))
    renames = _move_kernels(variant, gm)
    host, other = _host(base), _host(variant)
    for launch in other.walk():
        if isinstance(launch, gpu.LaunchFuncOp):
            name = launch.kernel.nested_references.data[-1].data
            launch.properties["kernel"] = SymbolRefAttr(gm.sym_name, [StringAttr(renames.get(name, name))])
    body = host.body.block
    launch = next(op for op in host.walk() if isinstance(op, gpu.LaunchFuncOp))
    kb = KernelBuilder(InsertPoint.at_start(body))
    grid_x, grid_y = _clone_values([launch.gridSizeX, launch.gridSizeY], kb)
    workgroups = kb.mul(grid_x, grid_y, "workgroups")
    few = kb.op(arith.CmpiOp(workgroups, kb.index(slots), "ult"), "few_workgroups")
    default_ops = [op for op in body.ops if op is not body.last_op and not _before(op, few)]
    then_block, else_block = Block(), Block()
    mapping = dict(zip(other.body.block.args, body.args))
    for op in list(other.body.block.ops)[:-1]:  # without its func.return
        then_block.add_op(op.clone(value_mapper=mapping))
    for op in default_ops:
        op.detach()
        else_block.add_op(op)
    then_block.add_op(scf.YieldOp())
    else_block.add_op(scf.YieldOp())
    body.insert_op_before(scf.IfOp(few, [], [then_block], [else_block]), body.last_op)


def _before(op: Operation, boundary: SSAValue) -> bool:
    return op is boundary.owner or op.is_before_in_block(boundary.owner)


def _move_kernels(variant: ModuleOp, gm: gpu.ModuleOp) -> dict[str, str]:
    """The variant's gpu.funcs appended to `gm`, renamed where a name is taken: {old: new}."""
    taken = {op.sym_name.data for op in gm.body.block.ops if isinstance(op, gpu.FuncOp)}
    renames: dict[str, str] = {}
    source = next(op for op in variant.body.block.ops if isinstance(op, gpu.ModuleOp))
    for fn in [op for op in source.body.block.ops if isinstance(op, gpu.FuncOp)]:
        name = fn.sym_name.data
        new, n = f"{name}_variant" if name in taken else name, 0
        while new in taken:
            n += 1
            new = f"{name}_variant_{n}"
        taken.add(new)
        renames[name] = new
        fn.detach()
        fn.attributes["sym_name"] = StringAttr(new)
        gm.body.block.add_op(fn)
    return renames


def _clone_values(values: list[SSAValue], kb: KernelBuilder) -> list[SSAValue]:
    """`values` computed again at the builder's point, their ops (the grid's pure index arithmetic)
    cloned in the order they had, so that the launcher asks for the sizes in the same order."""
    ops: set[Operation] = set()
    todo = [v for v in values if isinstance(v, SSAValue) and not isinstance(v, BlockArgument)]
    while todo:
        op = todo.pop().owner
        if op not in ops:
            ops.add(op)
            todo += [x for x in op.operands if not isinstance(x, BlockArgument)]
    block = next(iter(ops)).parent_block() if ops else None
    done: dict[SSAValue, SSAValue] = {}
    for op in (o for o in block.ops if o in ops) if block is not None else ():
        clone = op.clone_without_regions()
        for i, x in enumerate(op.operands):
            clone.operands[i] = done.get(x, x)
        kb.op(clone, op.results[0].name_hint)
        done[op.results[0]] = clone.results[0]
    return [done.get(v, v) for v in values]
