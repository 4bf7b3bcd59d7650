"""Printing a gpu.func kernel as an `extern "C" __global__` function of the HIP file.

    info = print_kernel(scope, gpu_module, gpu_func, cname)   # info.text, info.params

Its parameters are the memref arguments as `__restrict__` pointers (`const` when nothing
writes through them), then one `int` for each distinct dynamic dim, named as in
`gemm.arg_dims`, then the scalars.  Launch bounds come from the gpu.func's attributes: AMD's
`amdgpu_flat_work_group_size` / `amdgpu_waves_per_eu`, or CUDA's `__launch_bounds__`.
The launchers (gemmc.emit.launchers) name their parameters by the same rules.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from xdsl.dialects.builtin import ArrayAttr, DenseArrayBase, IntegerAttr, IntegerType, MemRefType, StringAttr
from xdsl.ir import Attribute, Block, BlockArgument, Operation, SSAValue

from gemmc.target.arch import Arch
# The op printers: each module enters its own into FunctionPrinter's table when imported.
from gemmc.emit import amdgpu, arith, control, memory, tensor_maps  # noqa: F401
from gemmc.emit.c_text import Expr, MemrefView, Namer, signature
from gemmc.emit.c_types import UINT_C, identity_layout, is_int4, scalar_ctype
from gemmc.emit.file_scope import FileScope, KernelInfo, Param
from gemmc.emit.function_printer import READ_ONLY_USERS, FunctionPrinter
from gemmc.emit.ir_access import emit_error, sym_name, walk_block
from gemmc.target.resources import lds_bytes
from gemmc.transforms.batch import batch_args, batch_split
from gemmc.support.ir_names import ARG_DIMS_ATTR, ARG_UNSIGNED_ATTR, FLAT_WG_ATTRS, KNOWN_BLOCK_SIZE_ATTR, WAVES_PER_EU_ATTRS


def print_kernel(scope: FileScope, gm: Operation, fn: Operation, cname: str) -> KernelInfo:
    """The kernel `fn` of `gm`, as the C function `cname` (its symbol, from kernel_symbols)."""
    sym = sym_name(fn) or "kernel"
    scope.global_names.reserve(cname)
    info = KernelInfo(fn, sym_name(gm) or "", sym, cname)
    scope.kernels[(info.module_name, sym)] = info
    body = fn.regions[0].blocks[0]
    args = list(body.args)
    arg_dims = dims_of_args(fn.attributes.get(ARG_DIMS_ATTR), len(args))
    names = Namer([cname, *scope.global_names.taken])
    p = FunctionPrinter(scope, body, host=False, names=names)

    # Dims first: their names are the user's (M, N, K) and must not be taken.
    for arg in args:
        if isinstance(arg.type, MemRefType) and not identity_layout(arg.type):
            raise emit_error(fn, f"argument {arg_name(arg)} has a non-identity layout ({arg.type})")
    info.dims = dynamic_dims(args, arg_dims)
    c_dims = fresh_dims(names, info.dims, dim_order(body, args, info.dims))

    memref_params, scalar_params = [], []
    unsigned = fn.attributes.get(ARG_UNSIGNED_ATTR)
    unsigned = set(unsigned.get_values()) if isinstance(unsigned, DenseArrayBase) else set()
    for arg in args:
        t = arg.type
        if isinstance(t, MemRefType):
            name = names.fresh(arg_name(arg))
            read_only = _read_only(arg)
            if read_only:
                info.const_args.add(arg.index)
            elem = unsigned_ctype(p, t, fn) if arg.index in unsigned else p.type_name(t.element_type, fn)
            decl = f"{'const ' if read_only else ''}{elem}* __restrict__ {name}"
            memref_params.append(Param("memref", name, decl, arg=arg.index, type=t, unsigned=arg.index in unsigned))
            p.memrefs[arg] = argument_view(name, arg, info.dims)
        else:
            name = names.fresh(arg_name(arg))
            decl = f"{p.type_name(t, fn)} {name}"
            scalar_params.append(Param("scalar", name, decl, arg=arg.index, type=t))
            p.values[arg] = Expr(name)
    dim_params = [Param("dim", c, f"int {c}", dim=d) for d, c in c_dims.items()]
    map_params = tensor_maps.kernel_params(fn, names)
    p.tensor_maps = {tensor_maps.param_key(q): q.name for q in map_params}
    info.params = memref_params + dim_params + scalar_params + map_params

    _batch_offsets(p, fn, names)
    if scope.arch.vendor == "nvidia" and lds_bytes(fn) > scope.arch.lds_bytes:
        p.dynamic_shared = 0  # past the static limit: the tiles are views of dynamic shared memory
    p.print_block(body)
    info.dynamic_shared = p.dynamic_shared or 0

    info.text = [*_kernel_heading(scope, gm, fn, info), "{", *p.lines, "}"]
    return info


def _kernel_heading(scope: FileScope, gm: Operation, fn: Operation, info: KernelInfo) -> list[str]:
    """What comes before the kernel's body: a comment naming it, its launch bounds and signature."""
    attrs = _launch_bounds(fn) if scope.arch.vendor == "amd" else []
    bs = known_block_size(fn)
    text = [""]
    gm_name = sym_name(gm) or ""
    comment = f"// @{gm_name}::@{info.sym}"
    if bs:
        comment += f": launched with {' x '.join(str(b) for b in bs)} threads per block"
        comment += " (gpu.known_block_size)"
    text.append(comment + ".")
    prefix = 'extern "C" __global__'
    if scope.arch.vendor == "nvidia":
        prefix += _cuda_launch_bounds(fn, scope.arch)
    if attrs:
        text.append(f"{prefix} __attribute__(({', '.join(attrs)}))")
        text += signature("void", info.cname, [q.decl for q in info.params])
    else:
        text += signature(f"{prefix} void", info.cname, [q.decl for q in info.params])
    return text


def unsigned_ctype(p: FunctionPrinter, t: MemRefType, op: Operation) -> str:
    """The C element type of a memref of unsigned integers (gemm.unsigned: a u8 matrix; a u4 matrix
    is packed bytes, as an i4 one: the signedness is the widening's, arith.extui)."""
    if is_int4(t.element_type):
        return scalar_ctype(t.element_type, op)
    if not (isinstance(t.element_type, IntegerType) and t.element_type.width.data in UINT_C):
        raise emit_error(op, f"a memref of {t.element_type} is marked unsigned; only integers are")
    name = UINT_C[t.element_type.width.data]
    p.emitter.used_types.add(name)
    return name


def dynamic_dims(args: Sequence[BlockArgument], given: list[list[str] | None]) -> dict[tuple[int, int], str]:
    """The dim of each dynamic axis of the memref arguments, {(arg, axis): name}: the name
    `given` for the argument (gemm.arg_dims, gemm.dims), else `<arg>_dim<axis>`."""
    dims = {}
    for arg in args:
        if isinstance(arg.type, MemRefType):
            names = given[arg.index]
            for axis, size in enumerate(arg.type.get_shape()):
                if size < 0:
                    named = names is not None and axis < len(names)
                    dims[(arg.index, axis)] = names[axis] if named else f"{arg_name(arg)}_dim{axis}"
    return dims


def argument_view(name: str, arg: BlockArgument, dims: dict[tuple[int, int], str]) -> MemrefView:
    """A memref argument as the pointer parameter `name`, its dynamic extents the dims' parameters."""
    t = arg.type
    sizes = [Expr(str(s)) if s >= 0 else Expr(dims[(arg.index, axis)]) for axis, s in enumerate(t.get_shape())]
    return MemrefView(Expr(name), "flat", sizes, t)


def _batch_offsets(p: FunctionPrinter, fn: Operation, names: Namer) -> None:
    """A batched kernel (gemmc.transforms.batch): each batched pointer moved, at the entry, to the
    matrix of the workgroup's batch, blockIdx.z / batch_split, in 64-bit arithmetic (a batch of
    matrices may pass 2^31 elements; each matrix is indexed in int as any other)."""
    batched = batch_args(fn)
    if not batched:
        return
    batch = names.fresh("batch")
    split = batch_split(fn)
    z = "blockIdx.z" if split == 1 else f"blockIdx.z / {split}u"
    p.line(f"const unsigned long long {batch} = {z};  // this workgroup's batch: its matrices of the batched arguments")
    args = fn.regions[0].blocks[0].args
    for i in batched:
        view = p.memrefs[args[i]]
        size = " * ".join(f"(unsigned long long){s.text}" for s in view.sizes)
        p.line(f"{view.base.text} += {batch} * {size};")


def dims_of_args(arg_dims: Attribute | None, n: int) -> list[list[str] | None]:
    out: list[list[str] | None] = [None] * n
    if isinstance(arg_dims, ArrayAttr):
        for i, entry in enumerate(arg_dims.data[:n]):
            if isinstance(entry, ArrayAttr):
                out[i] = [e.data for e in entry.data if isinstance(e, StringAttr)]
    return out


def _read_only(arg: SSAValue) -> bool:
    return all(use.operation.name in READ_ONLY_USERS for use in arg.uses)


def dim_order(body: Block, args: Sequence[BlockArgument], dims: dict[tuple[int, int], str]) -> list[str]:
    """Dim names in the order the body first asks for them, then in argument order."""
    order: list[str] = []
    for op in walk_block(body):
        if op.name == "memref.dim" and isinstance(op.operands[0], BlockArgument):
            arg = op.operands[0]
            if arg.block is not body:
                continue
            index_op = op.operands[1].owner
            if isinstance(index_op, Operation) and index_op.name == "arith.constant":
                axis = index_op.properties["value"].value.data  # type: ignore[union-attr]
                name = dims.get((arg.index, axis))
                if name is not None and name not in order:
                    order.append(name)
    for key in sorted(dims):
        if dims[key] not in order:
            order.append(dims[key])
    return order


def fresh_dims(names: Namer, dims: dict[tuple[int, int], str], order: list[str]) -> dict[str, str]:
    """The dims' C parameter names, {dim: name} in `order`, and `dims` renamed to them in place.
    Dims are named before the other parameters, so the user's M, N, K keep their names, but
    through the same fresh-name check: a dim called like the kernel (`kernel N { dim N }`)
    must not become a parameter that hides the kernel in its launcher."""
    renamed = {d: names.fresh(d) for d in order}
    for key, d in dims.items():
        dims[key] = renamed[d]
    return renamed


def arg_name(arg: BlockArgument) -> str:
    return arg.name_hint or f"arg{arg.index}"


def _launch_bounds(op: Operation) -> list[str]:
    """`__attribute__` items from the launch-bound attributes of a gpu.func."""
    items = []
    for names, attr_name, default_min in (
        (FLAT_WG_ATTRS, "amdgpu_flat_work_group_size", 1),
        (WAVES_PER_EU_ATTRS, "amdgpu_waves_per_eu", None),
    ):
        for n in names:
            value = op.attributes.get(n)
            if value is None:
                continue
            ints = _ints_of(value)
            if not ints or len(ints) > 2:
                raise emit_error(op, f"attribute {n} = {value} is not one or two integers")
            if len(ints) == 1 and default_min is not None:
                ints = [default_min, ints[0]]
            items.append(f"{attr_name}({', '.join(str(i) for i in ints)})")
            break
    return items


def _cuda_launch_bounds(op: Operation, arch: Arch) -> str:
    """` __launch_bounds__(max_threads[, min_blocks])` from the same attributes.

    AMD's waves per EU is waves per SIMD; CUDA's second argument is blocks per SM, so
    w waves per SIMD of a block of t threads is ceil(w * SIMDs / warps per block) blocks.
    """
    flat = next((op.attributes[n] for n in FLAT_WG_ATTRS if n in op.attributes), None)
    if flat is None:
        return ""
    max_threads = _ints_of(flat)[-1]
    waves = next((op.attributes[n] for n in WAVES_PER_EU_ATTRS if n in op.attributes), None)
    if waves is None:
        return f" __launch_bounds__({max_threads})"
    warps = -(-max_threads // arch.wave_size)
    blocks = -(-_ints_of(waves)[0] * arch.simds_per_cu // warps)
    return f" __launch_bounds__({max_threads}, {blocks})"


def _ints_of(value: Attribute) -> list[int]:
    if isinstance(value, IntegerAttr):
        return [value.value.data]
    if isinstance(value, StringAttr):
        parts = [s.strip() for s in value.data.split(",")]
        return [int(s) for s in parts if re.fullmatch(r"[0-9]+", s)] if all(
            re.fullmatch(r"[0-9]+", s) for s in parts) else []
    if isinstance(value, DenseArrayBase):
        return [int(v) for v in value.get_values()]
    if isinstance(value, ArrayAttr):
        return [e.value.data for e in value.data if isinstance(e, IntegerAttr)]
    return []


def known_block_size(op: Operation) -> list[int] | None:
    attr = op.attributes.get(KNOWN_BLOCK_SIZE_ATTR)
    if attr is None:
        attr = op.properties.get("known_block_size")
    if isinstance(attr, DenseArrayBase):
        return [int(v) for v in attr.get_values()]
    return None


def launch_params(fn: Operation) -> list[tuple]:
    """The HIP kernel's parameters as print_kernel orders them, each as what the launch passes:
    ("arg", i) the gpu.func's argument i (a memref's pointer or a scalar), ("dim", i, axis) the
    size of axis `axis` of its memref argument i (a dynamic dim).  For running the code object
    clang makes of the HIP with the host function's launches (gemmc run --level asm)."""
    body = fn.regions[0].blocks[0]
    args = list(body.args)
    dims = dynamic_dims(args, dims_of_args(fn.attributes.get(ARG_DIMS_ATTR), len(args)))
    first = {}
    for key, d in dims.items():
        first.setdefault(d, key)
    memrefs = [("arg", a.index) for a in args if isinstance(a.type, MemRefType)]
    scalars = [("arg", a.index) for a in args if not isinstance(a.type, MemRefType)]
    return memrefs + [("dim", *first[d]) for d in dim_order(body, args, dims)] + scalars
