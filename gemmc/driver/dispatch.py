"""Shape dispatch for dynamic sizes: two variants of one GEMM and a launcher that picks one per call.

    choice = dispatch(module, arch, default)     # module: gemm level, with dynamic dims

A problem whose sizes are known at launch only gets the arch's default pipeline and the variant
gemmc.driver.selection would choose for a grid that leaves the GPU idle: the default with `stream-k` (an
f32 or f64 C; one persistent workgroup per slot) or with `split-k{factor=SPLITS} reduce=workspace` (a 16-bit C); on an arch that does
not split the default's tile (the H200), the same with the first of selection's smaller tiles.  Both are lowered; the
variant's kernels join the default's gpu.module (renamed where they clash), and the host function
becomes

    workgroups = <the default's grid, computed by the default's own host ops>
    scf.if workgroups < SLOTS { the variant's launches } else { the default's launches }

with SLOTS = CUs x the workgroups a CU holds of the default kernel (the cost model's occupancy).
Where the default copies vectors, each of the two has an aligned twin (`assume-aligned` to the copies'
vector width) that the launcher runs when every dynamic row length is a multiple of it.
The same rule as the static selection's first question ("does the grid leave workgroup slots
idle?"), asked at run time; the cost model and the interpreter follow the branch the sizes take.
"""

from __future__ import annotations

import re

from xdsl.dialects import arith, func, gpu, scf
from xdsl.dialects.builtin import ModuleOp, StringAttr, SymbolRefAttr
from xdsl.ir import Block, Operation, SSAValue
from xdsl.rewriter import InsertPoint

from gemmc.cost.analysis import dynamic_dims
from gemmc.cost import model
from gemmc.driver.lowering import lower_with
from gemmc.driver.variants import SMALL_TILES, Choice, with_split_k, with_stream_k, with_tiles
from gemmc.support.diagnostics import GemmcError
from gemmc.support.ir_names import PIPELINE_ATTR
from gemmc.target.arch import Arch
from gemmc.transforms.k_split import ATOMIC_TYPES
from gemmc.transforms.kernel_builder import KernelBuilder, constant_value, repeat_values

SPLITS = 8
PROBE_SIZE = 1024  # the size at which the default kernel's occupancy is read (it does not depend on it)


def variant_pipeline(default: str, out_type: str, arch: Arch, slots: int = 0) -> str:
    """The idle-grid variant: stream-k (one persistent workgroup per slot; 0: per CU) or split-k of
    the default, or of its first smaller tile where the arch does not split the default's own
    (Arch.split_default_tile)."""
    if not arch.split_default_tile:
        default = with_tiles(default, *SMALL_TILES[0])
    if out_type in ATOMIC_TYPES:
        return with_stream_k(default, slots)
    return with_split_k(default, SPLITS, "workspace")


def vector_width(spec: str) -> int | None:
    """The width of `spec`'s vectorize pass (its default, 4, where the pass names none); None without one."""
    m = re.search(r"vectorize(\{[^}]*\})?", spec)
    if m is None:
        return None
    width = re.search(r"width=(\d+)", m.group(1) or "")
    return int(width.group(1)) if width else 4


def with_assumed_alignment(spec: str, multiple: int) -> str:
    """`spec` with assume-aligned{multiple=...} after its gemm-to-kernel."""
    head, sep, rest = spec.partition("gemm-to-kernel")
    if not sep:
        return spec
    after = rest.split(",", 1)
    return f"{head}gemm-to-kernel{after[0]},assume-aligned{{multiple={multiple}}}" + (f",{after[1]}" if len(after) > 1 else "")


def dispatch(module: ModuleOp, arch: Arch, default: str):
    """The dispatching module (a Choice of gemmc.driver.selection, its `lowered` set), or None when no
    variant applies (no tiled kernel, or the passes refuse both)."""
    base = lower_copy(module, default, arch)
    slots = _slots(base, arch) if base is not None else None
    if slots is None:
        return None
    idle_spec = variant_pipeline(default, _output_type(base), arch, slots)
    # rows a multiple of the copies' vector width (8 f16, 16 FP8 bytes, 4 f32) let them stay vectors
    align = vector_width(default)
    aligned_spec = with_assumed_alignment(default, align) if align else default
    idle = lower_copy(module, idle_spec, arch)
    if idle is None and "stream-k" in idle_spec:
        # what stream-k refuses (an epilogue not linear in the sum it takes: a shared tile's last
        # contributor applies it): split-k through a workspace, if that takes it
        idle_spec = variant_pipeline(default, "", arch, slots)
        idle = lower_copy(module, idle_spec, arch)
    aligned = lower_copy(module, aligned_spec, arch) if aligned_spec != default else None
    if idle is None and aligned is None:
        return None
    # the idle-grid variant copies rows as the default does: it too has an aligned twin
    idle_aligned_spec = with_assumed_alignment(idle_spec, align) if idle is not None and aligned is not None else None
    idle_aligned = lower_copy(module, idle_aligned_spec, arch) if idle_aligned_spec else None
    _merge(base, (idle, idle_aligned), aligned, slots, align or 1)
    said = []
    if idle is not None:
        said.append(f"[{idle_spec}] when the default's grid has fewer than {slots} workgroups "
                    f"({arch.cu_count} CUs x {slots // arch.cu_count})"
                    + (" (assume-aligned where the rows are)" if idle_aligned is not None else ""))
    if aligned is not None:
        said.append(f"[{aligned_spec}] (vector copies) when every row length is a multiple of {align}")
    reason = "the sizes are dynamic: the launcher runs " + ", else ".join(said) + ", else the default"
    spec = " | ".join(x for x in (default, idle and f"idle grid: {idle_spec}",
                                  aligned and f"aligned rows: {aligned_spec}",
                                  idle_aligned and f"idle grid, aligned rows: {idle_aligned_spec}") if x)
    base.attributes[PIPELINE_ATTR] = StringAttr(spec)
    return Choice(spec, reason, {}, base, runnable=False, pipelines={"default": default})


def lower_copy(module: ModuleOp, spec: str, arch: Arch) -> ModuleOp | None:
    """`module` lowered with `spec` on a copy; None when a pass refuses it."""
    try:
        return lower_with(module.clone(), spec, arch)
    except GemmcError:
        return None


def _slots(base: ModuleOp, arch: Arch) -> int | None:
    """CUs x the default kernel's resident workgroups per CU, read at a probe size."""
    try:
        p = model.predict(base, arch, {d: PROBE_SIZE for d in dynamic_dims(base)})
    except GemmcError:  # a kernel the model cannot read: no dispatch, the default alone
        return None
    if p.kernel.schedule is None:
        return None
    return arch.cu_count * max(1, int(p.occ.workgroups_per_cu))


def _output_type(module: ModuleOp) -> str | None:
    from gemmc.interp.check import host_function, matmul_spec

    host = host_function(module)
    spec = matmul_spec(module, host)
    return str(host.body.block.args[spec.c].type.element_type)


def _host(module: ModuleOp) -> func.FuncOp:
    from gemmc.interp.check import host_function

    return host_function(module)


def _merge(base: ModuleOp, idle: tuple[ModuleOp | None, ModuleOp | None], aligned: ModuleOp | None, slots: int,
           align: int) -> None:
    """The variants' kernels into `base`'s gpu.module, and `base`'s host function choosing:
    if few_workgroups { if rows_aligned { idle's aligned twin } else { idle } }
    else if rows_aligned { aligned } else { base }."""
    idle, idle_aligned = idle
    host = _host(base)
    body = host.body.block
    launch = next(op for op in host.walk() if isinstance(op, gpu.LaunchFuncOp))
    kb = KernelBuilder(InsertPoint.at_start(body))
    grid_x, grid_y = repeat_values([launch.gridSizeX, launch.gridSizeY], kb, lambda arg: arg, lambda op: ValueError(
        f"the default's grid is computed by '{op.name}', which the launcher cannot repeat"))
    workgroups = kb.mul(grid_x, grid_y, "workgroups")
    if constant_value(launch.gridSizeZ) != 1:  # a batched kernel's batches (gemmc.transforms.batch)
        (grid_z,) = repeat_values([launch.gridSizeZ], kb, lambda arg: arg, lambda op: ValueError(
            f"the default's grid is computed by '{op.name}', which the launcher cannot repeat"))
        workgroups = kb.mul(workgroups, grid_z, "workgroups")
    few = kb.op(arith.CmpiOp(workgroups, kb.index(slots), "ult"), "few_workgroups")
    rows = _rows_aligned(host, kb, align) if aligned is not None else None
    last = (rows or few).owner
    default_block = Block()
    for op in [op for op in body.ops if op is not body.last_op and not _before(op, last.results[0])]:
        op.detach()
        default_block.add_op(op)
    choice = _either(rows, _host_block(base, aligned, "aligned"), default_block) if aligned else default_block
    if idle is not None:
        idle_block = _host_block(base, idle, "idle")
        if idle_aligned is not None:
            idle_block = _either(rows, _host_block(base, idle_aligned, "idle_aligned"), idle_block)
        choice = _either(few, idle_block, choice)
    for op in list(choice.ops):
        op.detach()
        body.insert_op_before(op, body.last_op)


def _either(cond: SSAValue, then_block: Block, else_block: Block) -> Block:
    """A block holding `scf.if cond { then_block } else { else_block }`."""
    then_block.add_op(scf.YieldOp())
    else_block.add_op(scf.YieldOp())
    return Block([scf.IfOp(cond, [], [then_block], [else_block])])


def _host_block(base: ModuleOp, variant: ModuleOp, tag: str) -> Block:
    """The variant's kernels moved into base's gpu.module (renamed where taken), and its host
    function's ops, as a block over base's host arguments."""
    gm = next(op for op in base.body.block.ops if isinstance(op, gpu.ModuleOp))
    renames = _move_kernels(variant, gm, tag)
    other = _host(variant)
    for launch in other.walk():
        if isinstance(launch, gpu.LaunchFuncOp):
            name = launch.kernel.nested_references.data[-1].data
            launch.properties["kernel"] = SymbolRefAttr(gm.sym_name, [StringAttr(renames.get(name, name))])
    block = Block()
    mapping = dict(zip(other.body.block.args, _host(base).body.block.args))
    for op in list(other.body.block.ops)[:-1]:  # without its func.return
        block.add_op(op.clone(value_mapper=mapping))
    return block


def _rows_aligned(host: func.FuncOp, kb: KernelBuilder, align: int) -> SSAValue:
    """On the host: every matrix's dynamic row length is a multiple of `align`."""
    from xdsl.dialects.builtin import MemRefType

    conds = []
    for arg in host.body.block.args:
        t = arg.type
        if isinstance(t, MemRefType) and t.get_num_dims() in (2, 3) and t.get_shape()[-1] < 0:  # 3: a batch
            rem = kb.op(arith.RemUIOp(kb.dim(arg, t.get_num_dims() - 1), kb.index(align)))
            conds.append(kb.op(arith.CmpiOp(rem, kb.index(0), "eq")))
    cond = conds[0]
    for c in conds[1:]:
        cond = kb.land(cond, c)
    cond.name_hint = "rows_aligned"
    return cond


def _before(op: Operation, boundary: SSAValue) -> bool:
    return op is boundary.owner or op.is_before_in_block(boundary.owner)


def _move_kernels(variant: ModuleOp, gm: gpu.ModuleOp, tag: str) -> dict[str, str]:
    """The variant's gpu.funcs appended to `gm`, renamed where a name is taken: {old: new}."""
    taken = {op.sym_name.data for op in gm.body.block.ops if isinstance(op, gpu.FuncOp)}
    renames: dict[str, str] = {}
    source = next(op for op in variant.body.block.ops if isinstance(op, gpu.ModuleOp))
    for fn in [op for op in source.body.block.ops if isinstance(op, gpu.FuncOp)]:
        name = fn.sym_name.data
        new, n = f"{name}_{tag}" if name in taken else name, 0
        while new in taken:
            n += 1
            new = f"{name}_{tag}_{n}"
        taken.add(new)
        renames[name] = new
        fn.detach()
        fn.attributes["sym_name"] = StringAttr(new)
        gm.body.block.add_op(fn)
    return renames
