"""Printing a host func.func that launches kernels as the HIP file's launcher:

    hipError_t launch_<name>(pointers..., dims..., scalars..., hipStream_t stream)

A pointer is `const` when every kernel parameter it is passed to is; the dims are named as
in the host arguments' `gemm.dims`.  The body allocates and frees device memory in `stream`
and launches the kernels there (gemmc.emit.memory, gemmc.emit.control), which are printed
before it (gemmc.emit.kernels).
"""

from __future__ import annotations

from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, MemRefType
from xdsl.ir import Block, BlockArgument, Operation

# The op printers: each module enters its own into FunctionPrinter's table when imported.
from gemmc.emit import amdgpu, arith, control, memory  # noqa: F401
from gemmc.emit.c_text import Expr, Namer, signature
from gemmc.emit.file_scope import FileScope, LauncherInfo, Param
from gemmc.emit.function_printer import FunctionPrinter
from gemmc.emit.ir_access import ir_prop, launch_operands, sym_name
from gemmc.emit.kernels import (
    arg_name, argument_view, dim_order, dims_of_args, dynamic_dims, fresh_dims, unsigned_ctype,
)
from gemmc.support.ir_names import DIMS_ATTR, UNSIGNED_ATTR
from gemmc.support.symbols import launcher_name


def print_launcher(scope: FileScope, fn: Operation) -> tuple[list[str], LauncherInfo]:
    """The launcher of the host function `fn`, after the kernels it launches: its text and info."""
    sym = sym_name(fn) or "kernel"
    lname = launcher_name(sym)
    body = fn.regions[0].blocks[0]
    args = list(body.args)
    host_dims = _host_dims(fn, len(args))
    info = LauncherInfo(fn, sym, lname)
    names = Namer([lname, *scope.global_names.taken])
    p = FunctionPrinter(scope, body, host=True, names=names)
    info.dims = dynamic_dims(args, host_dims)
    c_dims = fresh_dims(names, info.dims, dim_order(body, args, info.dims))
    # host_dims as C names (the launcher's parameters), so that the harness finds them: a
    # dim called `float` is the parameter `float_`, one called like the kernel `N_1`
    host_dims = [None if hd is None else [c_dims.get(x) or Namer.sanitize(x) for x in hd] for hd in host_dims]
    names.reserve("stream")
    writes = _written_args(scope, fn, body)
    memref_params, scalar_params = [], []
    unsigned = _unsigned_args(fn, len(args))
    for arg in args:
        t = arg.type
        name = names.fresh(arg_name(arg))
        if isinstance(t, MemRefType):
            elem = unsigned_ctype(p, t, fn) if arg.index in unsigned else p.type_name(t.element_type, fn)
            const = "" if arg.index in writes else "const "
            memref_params.append(Param("memref", name, f"{const}{elem}* {name}", arg=arg.index, type=t,
                                       unsigned=arg.index in unsigned))
            p.memrefs[arg] = argument_view(name, arg, info.dims)
        else:
            scalar_params.append(Param("scalar", name, f"{p.type_name(t, fn)} {name}", arg=arg.index, type=t))
            p.values[arg] = Expr(name)
    info.params = memref_params + [Param("dim", c, f"int {c}", dim=d) for d, c in c_dims.items()] + scalar_params
    info.host_dims = host_dims
    p.print_block(body)
    decls = [q.decl for q in info.params] + ["hipStream_t stream"]
    text = ["", f"// Launches the kernels of @{sym}; returns the launch's error status."]
    text += signature("hipError_t", lname, decls)
    text.append("{")
    text += p.lines
    text.append("}")
    return text, info


def _host_dims(fn: Operation, n: int) -> list[list[str] | None]:
    """The dim names of each of the n host arguments, from its `gemm.dims` attribute."""
    arg_attrs = ir_prop(fn, "arg_attrs")
    host_dims: list[list[str] | None] = [None] * n
    if isinstance(arg_attrs, ArrayAttr):
        for i, d in enumerate(arg_attrs.data[:n]):
            if isinstance(d, DictionaryAttr) and DIMS_ATTR in d.data:
                host_dims[i] = dims_of_args(ArrayAttr([d.data[DIMS_ATTR]]), 1)[0]
    return host_dims


def _unsigned_args(fn: Operation, n: int) -> set[int]:
    """The host arguments marked gemm.unsigned (u8 matrices)."""
    arg_attrs = ir_prop(fn, "arg_attrs")
    if not isinstance(arg_attrs, ArrayAttr):
        return set()
    return {i for i, d in enumerate(arg_attrs.data[:n]) if isinstance(d, DictionaryAttr) and UNSIGNED_ATTR in d.data}


def _written_args(scope: FileScope, fn: Operation, body: Block) -> set[int]:
    """The host arguments that some kernel writes through: a pointer is const when every
    kernel parameter it is passed to is."""
    writes: set[int] = set()
    for launch in (o for o in fn.walk() if o.name == "gpu.launch_func"):
        kinfo = scope.kernel_of(launch)
        for pos, v in enumerate(launch_operands(launch)):
            if isinstance(v, BlockArgument) and v.block is body and pos not in kinfo.const_args:
                writes.add(v.index)
    return writes
