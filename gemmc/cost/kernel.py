"""Read a lowered module back for the cost model: the kernel, its launch and the problem.

    k = read_kernel(module, dims={"M": 4096})   # dims only for dynamic sizes
    k.grid.grid, k.grid.block, k.problem.flops, k.schedule

Everything comes from the IR: the host function's gpu.launch_func (grid and block,
evaluated with the problem's sizes), the gpu.func it launches, `gemm.schedule` when a
tiling pass recorded one, and the GEMM the host computes (gemm.matmul_spec, or the
launch when no pass recorded a spec).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import func, gpu, scf
from xdsl.dialects.builtin import ArrayAttr, MemRefType, ModuleOp, StringAttr
from xdsl.ir import BlockArgument, SSAValue

from gemmc.cost.lanes import Grid, LaneEvaluator, busy_tiles, loops_of
from gemmc.transforms.grouping import grouped_info
from gemmc.support.diagnostics import GemmcError
from gemmc.support.ir_names import ARG_DIMS_ATTR, DIMS_ATTR, ROLE_ATTR, ROLE_K_LOOP, SCHEDULE_ATTR
from gemmc.target.resources import ELEMENT_BYTES, global_bytes
from gemmc.transforms.schedule import Schedule



@dataclass(frozen=True)
class Problem:
    m: int
    n: int
    k: int
    in_type: str
    out_type: str
    has_beta: bool

    @property
    def flops(self) -> int:
        return 2 * self.m * self.n * self.k

    @property
    def in_bytes(self) -> float:
        """Bytes of an A or B element in global memory (FP4 and FP6 packed)."""
        return global_bytes(self.in_type)

    @property
    def out_bytes(self) -> int:
        return ELEMENT_BYTES.get(self.out_type, 4)

    def as_dict(self) -> dict:
        return {"M": self.m, "N": self.n, "K": self.k, "dtype": self.in_type, "out": self.out_type,
                "flops": self.flops}


@dataclass
class KernelIR:
    module: ModuleOp
    host: func.FuncOp
    launch: gpu.LaunchFuncOp
    kernel: gpu.FuncOp
    dims: dict[str, int]
    grid: Grid
    schedule: Schedule | None
    problem: Problem
    max_depth: int

    @property
    def name(self) -> str:
        return self.kernel.sym_name.data

    def dim_of(self, v: SSAValue, index: int) -> int | None:
        """The size of dim `index` of memref `v` (a kernel or host argument, or an alloca)."""
        t = v.type
        if not isinstance(t, MemRefType):
            return None
        size = t.get_shape()[index]
        if size >= 0:
            return size
        names = _arg_dim_names(v, self.kernel, self.host)
        if names is None or index >= len(names):
            return None
        return self.dims.get(names[index])

    def evaluator(self, overrides=None, blocks=None) -> LaneEvaluator:
        return LaneEvaluator(self.kernel, self.grid, self.dim_of, self.max_depth, overrides, blocks)


def read_kernel(module: ModuleOp, dims: dict[str, int] | None = None) -> KernelIR:
    """The kernel of a lowered module that runs the K loop, with its launch and problem sizes."""
    return main_kernel(read_kernels(module, dims))


def main_kernel(kernels: list[KernelIR]) -> KernelIR:
    """Of the kernels a host launches, the one that runs the K loop (split-k adds one without)."""
    if len(kernels) == 1:
        return kernels[0]
    looping = [k for k in kernels if any(op.attributes.get(ROLE_ATTR) == StringAttr(ROLE_K_LOOP)
                                         for op in k.kernel.walk())]
    if len(looping) != 1:
        raise GemmcError(f"@{kernels[0].host.sym_name.data} launches {len(kernels)} kernels, {len(looping)} with a "
                         "K loop; the cost model takes one kernel with a K loop and any number without")
    return looping[0]


def read_kernels(module: ModuleOp, dims: dict[str, int] | None = None) -> list[KernelIR]:
    """Every kernel the host function launches, in launch order."""
    from gemmc.interp.check import host_function

    host = host_function(module)
    launches = [op for op in host.walk() if isinstance(op, gpu.LaunchFuncOp)]
    if not launches:
        raise GemmcError(f"@{host.sym_name.data} launches no kernel; the cost model needs kernel IR "
                         "(run a pipeline such as -p step1)")
    first = _read_launch(module, host, launches[0], dims)
    taken = _taken_launches(host.body.block, first)
    return [_read_launch(module, host, launch, dims) for launch in taken]


def _taken_launches(block, k: KernelIR) -> list[gpu.LaunchFuncOp]:
    """The launches the host makes for these sizes: in a branch (gemmc.dispatch's), the one its
    condition takes."""
    out = []
    for op in block.ops:
        if isinstance(op, gpu.LaunchFuncOp):
            out.append(op)
        elif isinstance(op, scf.IfOp) and any(isinstance(x, gpu.LaunchFuncOp) for x in op.walk()):
            cond = LaneEvaluator(k.kernel, Grid((1, 1, 1), (1, 1, 1)), k.dim_of, 0).value(op.cond)
            if cond is None:
                raise GemmcError("cannot evaluate which launches the host makes for these sizes; give every "
                                 "dynamic dim with -D")
            region = op.true_region if bool(cond.ravel()[0]) else op.false_region
            out += _taken_launches(region.block, k) if region.blocks else []
    return out


def _read_launch(module: ModuleOp, host: func.FuncOp, launch: gpu.LaunchFuncOp,
                 dims: dict[str, int] | None) -> KernelIR:
    from gemmc.interp.check import arg_shapes, matmul_spec

    kernel = _kernel_of(module, launch)
    given = dict(dims or {})
    shapes = arg_shapes(host, given)
    all_dims = dict(given)
    for arg, shape in zip(host.body.block.args, shapes):
        names = _host_dim_names(host, arg.index)
        if shape is not None and names is not None:
            all_dims.update({n: s for n, s in zip(names, shape)})
    spec = matmul_spec(module, host)
    a, c = shapes[spec.a], shapes[spec.c]
    if a is None or c is None:
        raise GemmcError("the cost model expects A and C to be memrefs")
    m, n = c
    k = a[0] if spec.transpose_a else a[1]
    elem = str(host.body.block.args[spec.a].type.element_type)
    out = str(host.body.block.args[spec.c].type.element_type)
    problem = Problem(m, n, k, elem, out, spec.beta is not None)
    stub = KernelIR(module, host, launch, kernel, all_dims, Grid((1, 1, 1), (1, 1, 1)), None, problem, 0)
    grid = _launch_grid(stub)
    sched = kernel.attributes.get(SCHEDULE_ATTR)
    depth = max((len(loops_of(op, kernel)) for op in kernel.walk()), default=0)
    return KernelIR(module, host, launch, kernel, all_dims, grid,
                    Schedule.from_attr(sched) if sched is not None else None, problem, depth)


def _kernel_of(module: ModuleOp, launch: gpu.LaunchFuncOp) -> gpu.FuncOp:
    ref = launch.kernel
    names = [ref.root_reference.data, *(r.data for r in ref.nested_references.data)]
    for op in module.walk():
        if isinstance(op, gpu.FuncOp) and op.sym_name.data == names[-1]:
            return op
    raise GemmcError(f"gpu.launch_func calls @{'::@'.join(names)}, which the module does not define")


def _launch_grid(k: KernelIR) -> Grid:
    """Grid and block sizes: the launch operands, evaluated on the host with the dims."""
    ev = LaneEvaluator(k.kernel, Grid((1, 1, 1), (1, 1, 1)), k.dim_of, 0)
    op = k.launch
    vals = []
    for v in (op.gridSizeX, op.gridSizeY, op.gridSizeZ, op.blockSizeX, op.blockSizeY, op.blockSizeZ):
        x = ev.value(v)
        if x is None:
            raise GemmcError("cannot evaluate the launch's grid and block sizes for the cost model")
        vals.append(int(x.ravel()[0]))
    return Grid(tuple(vals[:3]), tuple(vals[3:]), _busy_y(k))  # type: ignore[arg-type]


def _busy_y(k: KernelIR) -> int | None:
    """A grouped kernel's tiles along y that hold rows, its rows spread evenly over the groups
    (gemmc.cost.lanes.even_sizes); None for any other kernel."""
    info = grouped_info(k.kernel)
    if info is None:
        return None
    groups = k.dim_of(k.kernel.body.block.args[info[0]], 0)
    return busy_tiles(k.problem.m, groups, info[1]) if groups is not None else None


def _host_dim_names(host: func.FuncOp, index: int) -> list[str] | None:
    attrs = host.arg_attrs
    if attrs is None or index >= len(attrs.data):
        return None
    names = attrs.data[index].data.get(DIMS_ATTR)
    return [x.data for x in names.data] if isinstance(names, ArrayAttr) else None


def _arg_dim_names(v: SSAValue, kernel: gpu.FuncOp, host: func.FuncOp) -> list[str] | None:
    if not isinstance(v, BlockArgument):
        return None
    owner = v.block.parent_op()
    if owner is host:
        return _host_dim_names(host, v.index)
    if owner is kernel:
        attr = kernel.attributes.get(ARG_DIMS_ATTR)
        if isinstance(attr, ArrayAttr) and v.index < len(attr.data):
            entry = attr.data[v.index]
            if isinstance(entry, ArrayAttr):
                return [x.data for x in entry.data if isinstance(x, StringAttr)]
    return None
