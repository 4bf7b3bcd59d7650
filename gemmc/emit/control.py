"""HIP printers of the gpu and scf dialects: thread ids, barriers, returns, kernel launches,
loops and branches.

    gpu.thread_id x   -> (int)threadIdx.x
    gpu.barrier       -> __syncthreads();
    gpu.launch_func   -> kernel<<<dim3(gx, gy, gz), dim3(bx, by, bz), 0, stream>>>(A, B, C, M, N, K);
                         (a kernel past sm_90's 48 KiB of static shared memory: cudaFuncSetAttribute once,
                         then its dynamic shared bytes in place of the 0)
    scf.for           -> for (int k = 0; k < K; k += 16) { ... }, after `#pragma unroll` where it pays
    scf.if            -> if (c) { ... } else { ... }

Loop-carried values and scf.if results are variables declared before the statement and
assigned where its blocks yield.  A loop is unrolled where its `gemmc.unroll` attribute says so,
or where its trip count is constant and its induction variable indexes a register array.
"""

from __future__ import annotations

from xdsl.dialects.builtin import IntegerAttr, MemRefType
from xdsl.ir import Operation, SSAValue

from gemmc.emit import tensor_maps
from gemmc.emit.c_text import ARG, INDENT, REL, Expr, call, cast, wrap_call
from gemmc.emit.function_printer import FunctionPrinter, op_printer
from gemmc.emit.ir_access import launch_operands
from gemmc.support.ir_names import PRIVATE_SPACE, UNROLL_ATTR, memory_space


# -- gpu --------------------------------------------------------------------------------

_GPU_IDS = {"gpu.thread_id": "threadIdx", "gpu.block_id": "blockIdx",
            "gpu.block_dim": "blockDim", "gpu.grid_dim": "gridDim"}


@op_printer(*_GPU_IDS, pure=True)
def _print_gpu_id(p: FunctionPrinter, op: Operation) -> None:
    dim = op.properties["dimension"]
    axis = str(dim.data)  # type: ignore[union-attr]
    p.define(op.results[0], cast("int", Expr(f"{_GPU_IDS[op.name]}.{axis}")))


@op_printer("gpu.lane_id", pure=True)
def _print_lane_id(p: FunctionPrinter, op: Operation) -> None:
    p.define(op.results[0], cast("int", call("__lane_id")))


@op_printer("gpu.subgroup_size", pure=True)
def _print_subgroup_size(p: FunctionPrinter, op: Operation) -> None:
    p.define(op.results[0], cast("int", Expr("warpSize")))


@op_printer("gpu.barrier")
def _print_barrier(p: FunctionPrinter, op: Operation) -> None:
    p.line("__syncthreads();")


@op_printer("gemm.fence")
def _print_fence(p: FunctionPrinter, op: Operation) -> None:
    """AMD: clang's fence builtin at the op's scope (agent: the L2 written back or invalidated where
    the target needs it); sm_90: __threadfence (__threadfence_block for a workgroup), both ways."""
    ordering, scope = op.properties["ordering"].data, op.properties["scope"].data  # type: ignore[union-attr]
    if p.emitter.arch.vendor == "nvidia":
        p.line("__threadfence();" if scope == "agent" else "__threadfence_block();")
    else:
        p.line(f'__builtin_amdgcn_fence(__ATOMIC_{ordering.upper()}, "{scope}");')


@op_printer("gpu.return", "func.return")
def _print_return(p: FunctionPrinter, op: Operation) -> None:
    last = op.parent_block() is p.body and op.next_op is None
    if p.host:
        p.line("return hipGetLastError();")
    elif not last:
        p.line("return;")


@op_printer("gpu.launch_func")
def _print_launch(p: FunctionPrinter, op: Operation) -> None:
    if not p.host:
        raise p.unsupported(op, "gpu.launch_func inside a kernel")
    kinfo = p.emitter.kernel_of(op)
    operands = launch_operands(op)
    sizes = [p.value(v) for v in (getattr(op, n) for n in
             ("gridSizeX", "gridSizeY", "gridSizeZ", "blockSizeX", "blockSizeY", "blockSizeZ"))]
    shared = getattr(op, "dynamicSharedMemorySize", None)
    shared_e = p.value(shared).text if shared is not None else "0"
    if kinfo.dynamic_shared:  # its tiles past the static 48 KiB: opt in once, launch with them
        shared_e = str(kinfo.dynamic_shared)
        status = p.names.fresh(f"{kinfo.cname}_shared_status")
        p.line(f"static const hipError_t {status} = cudaFuncSetAttribute({kinfo.cname}, "
               f"cudaFuncAttributeMaxDynamicSharedMemorySize, {shared_e});")
        p.line(f"if ({status} != hipSuccess)")
        p.line(f"{INDENT}return {status};")
    args: list[str] = []
    for q in kinfo.params:
        if q.kind == "memref":
            v = operands[q.arg]  # type: ignore[index]
            args.append(p.memref(v, op).base.text)
        elif q.kind == "scalar":
            args.append(p.value(operands[q.arg]).text)  # type: ignore[index]
        elif q.kind == "tensormap":
            args.append(tensor_maps.encode_at_launch(p, op, q, operands[q.arg]))  # type: ignore[index]
        else:
            (i, axis) = next(k for k, d in kinfo.dims.items() if d == q.name)
            host = p.memref(operands[i], op)
            # a batched argument's host memref has its batch dim first (gemmc.transforms.batch)
            args.append(host.sizes[axis + len(host.sizes) - kinfo.op.regions[0].blocks[0].args[i].type.get_num_dims()].text)
    grid_s = ", ".join(e.at(ARG) for e in sizes[:3])
    block_s = ", ".join(e.at(ARG) for e in sizes[3:])
    head = f"{kinfo.cname}<<<dim3({grid_s}), dim3({block_s}), {shared_e}, stream>>>("
    p.lines += wrap_call(INDENT * p.depth + head, args, ");")


# -- scf --------------------------------------------------------------------------------


@op_printer("scf.for")
def _print_for(p: FunctionPrinter, op: Operation) -> None:
    lb, ub, step, *inits = op.operands
    body = op.regions[0].blocks[0]
    iv, *iter_args = body.args
    carried = []
    for arg, result, init in zip(iter_args, op.results, inits):
        var = p.declare_mutable(result.name_hint or arg.name_hint or "acc", result, init, op)
        p.bind_alias(arg, result)
        carried.append(var)
    ivname = p.names.fresh(iv.name_hint or "i")
    ivtype = p.type_name(iv.type, op)
    p.values[iv] = Expr(ivname)
    step_e = p.value(step)
    incr = f"++{ivname}" if step_e.text == "1" else f"{ivname} += {step_e.text}"
    pragma = _unroll_pragma(op)
    if pragma:
        p.line(pragma)
    p.line(f"for ({ivtype} {ivname} = {p.value(lb).text}; {ivname} < {p.value(ub).at(REL + 1)}; {incr})")
    p.line("{")
    with p.indented():
        p.print_block(body, terminator=lambda y: p.assign_yield(y, carried, loop=True))
    p.line("}")


_INDEX_ARITH = {"arith.addi", "arith.subi", "arith.muli", "arith.divui", "arith.divsi", "arith.remui",
                "arith.remsi", "arith.index_cast", "arith.index_castui", "arith.shli", "arith.andi"}


def _unroll_pragma(loop: Operation) -> str | None:
    """`#pragma unroll` for a loop: as its `gemmc.unroll` attribute says, or by default when
    the trip count is constant and the induction variable indexes a register array (a
    private memref), which only becomes registers once every index is a constant."""
    attr = loop.attributes.get(UNROLL_ATTR)
    if isinstance(attr, IntegerAttr):
        return f"#pragma unroll {attr.value.data}"
    if attr is not None:
        return "#pragma unroll"
    bounds = list(loop.operands[:3])
    if not all(isinstance(b.owner, Operation) and b.owner.name == "arith.constant" for b in bounds):
        return None
    iv = loop.regions[0].blocks[0].args[0]
    return "#pragma unroll" if _indexes_private(iv, 0) else None


def _indexes_private(v: SSAValue, depth: int) -> bool:
    if depth > 6:
        return False
    for use in v.uses:
        user = use.operation
        if user.name in ("memref.load", "memref.store", "vector.load", "vector.store"):
            mem = user.operands[1] if user.name.endswith("store") else user.operands[0]
            first_index = 2 if user.name.endswith("store") else 1
            if use.index >= first_index and _is_private(mem):
                return True
        elif user.name in _INDEX_ARITH and _indexes_private(user.results[0], depth + 1):
            return True
    return False


def _is_private(mem: SSAValue) -> bool:
    owner = mem.owner
    t = mem.type
    return (
        isinstance(owner, Operation) and owner.name in ("memref.alloca", "memref.alloc")
        and isinstance(t, MemRefType) and memory_space(t) in (0, PRIVATE_SPACE)
    )


@op_printer("scf.if")
def _print_if(p: FunctionPrinter, op: Operation) -> None:
    cond = op.operands[0]
    results = []
    for result in op.results:
        results.append(p.declare_mutable(result.name_hint or "r", result, None, op))
    p.line(f"if ({p.value(cond).text})")
    p.line("{")
    then_block = op.regions[0].blocks[0]
    with p.indented():
        p.print_block(then_block, terminator=lambda y: p.assign_yield(y, results, loop=False))
    p.line("}")
    if len(op.regions) > 1 and op.regions[1].blocks:
        else_block = op.regions[1].blocks[0]
        if len(else_block.ops) > 1 or results:
            p.line("else")
            p.line("{")
            with p.indented():
                p.print_block(else_block, terminator=lambda y: p.assign_yield(y, results, loop=False))
            p.line("}")


@op_printer("scf.yield")
def _print_stray_yield(p: FunctionPrinter, op: Operation) -> None:
    raise p.unsupported(op, "scf.yield outside scf.for / scf.if")
