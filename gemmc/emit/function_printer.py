"""Printing one function's body as HIP, op by op: the FunctionPrinter and the table of op
printers it looks each op up in.

    @register_op_printer("arith.negf", pure=True)
    def _print_negf(p: FunctionPrinter, op: Operation) -> None:
        p.define(op.results[0], Expr(f"-{p.value(op.operands[0]).at(UNARY)}", UNARY))

The printers are in gemmc.emit.arith (arith, math), gemmc.emit.memory (memref, vector),
gemmc.emit.control (gpu, scf) and gemmc.emit.amdgpu; each enters the table when its module is
imported.  Every FunctionPrinter is made by gemmc.emit.kernels or gemmc.emit.launchers, which
import all four.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from xdsl.dialects.builtin import MemRefType, VectorType
from xdsl.ir import Attribute, Block, Operation, SSAValue

from gemmc.support.diagnostics import GemmcError
from gemmc.emit.c_text import INDENT, PRIMARY, Expr, MemrefView, Namer
from gemmc.emit.c_types import (
    CUDA_VECTOR_KEY, CUDA_VECTOR_TEMPLATE, cuda_vector_typedef, element_type_of, is_e8m0, is_fp4, is_fp8, is_int4, is_sub_byte,
    scalar_ctype, vector_typedef,
)
from gemmc.emit.file_scope import FileScope
from gemmc.emit.ir_access import emit_error, walk_block

OpPrinter = Callable[["FunctionPrinter", Operation], None]
OP_PRINTERS: dict[str, OpPrinter] = {}

PURE_OPS: set[str] = set()
"""Ops without side effects whose single-use, unnamed results fold into their user."""

READ_ONLY_USERS: set[str] = {
    "memref.load", "vector.load", "memref.dim", "gemm.assume_rows_aligned", "vector.maskedload", "vector.transfer_read",
}
"""Ops that read a memref operand but never write through it (for `const` pointers)."""


def register_op_printer(*names: str, pure: bool = False) -> Callable[[OpPrinter], OpPrinter]:
    """Register `fn(printer, op)` as the HIP printer of ops named `names`.

    A pure op's printer calls `printer.define(result, expr)`; a statement's calls
    `printer.line(text)`.  Each dialect's printers register theirs so (gemmc.emit.arith, ...).
    """

    def wrap(fn: OpPrinter) -> OpPrinter:
        for n in names:
            OP_PRINTERS[n] = fn
            if pure:
                PURE_OPS.add(n)
        return fn

    return wrap


op_printer = register_op_printer


class FunctionPrinter:
    """Prints the body of one kernel (`host=False`) or one host launcher (`host=True`)."""

    def __init__(self, emitter: FileScope, body: Block, host: bool, names: Namer, indent: int = 1):
        self.emitter = emitter
        self.body = body
        self.host = host
        self.names = names
        self.depth = indent
        self.lines: list[str] = []
        self.values: dict[SSAValue, Expr] = {}
        self.memrefs: dict[SSAValue, MemrefView] = {}
        self.tensor_maps: dict[tuple, str] = {}  # (argument, box, swizzle, rank) -> its CUtensorMap parameter
        self.dynamic_shared: int | None = None  # LDS as views of dynamic shared memory: the bytes so far
        self.has_vector_memory_ops = any(  # (ldmatrix and cp.async address 16-byte rows of shared memory)
            o.name in ("vector.load", "vector.store", "nvgpu.ldmatrix", "nvgpu.device_async_copy")
            for o in walk_block(body)
        )
        # wgmma's tiles: the 128-byte swizzle is of the shared address, so they start 1024-byte aligned
        self.shared_align = 1024 if any(o.name == "nvgpu.wgmma_desc" for o in walk_block(body)) else 16

    # -- output ---------------------------------------------------------------------

    def line(self, text: str) -> None:
        self.lines.append(INDENT * self.depth + text)

    @contextmanager
    def indented(self) -> Iterator[None]:
        self.depth += 1
        try:
            yield
        finally:
            self.depth -= 1

    def unsupported(self, op: Operation, what: str) -> GemmcError:
        return emit_error(op, f"cannot print {what} as HIP")

    # -- types and values ------------------------------------------------------------

    def type_name(self, t: Attribute, op: Operation | None = None) -> str:
        if isinstance(t, VectorType):
            if self.emitter.arch.vendor == "nvidia":
                name, typedef = cuda_vector_typedef(t, op)
                if typedef.startswith("typedef gemmc_vec"):
                    self.emitter.typedefs.setdefault(CUDA_VECTOR_KEY, CUDA_VECTOR_TEMPLATE)
            else:
                name, typedef = vector_typedef(t, op)
            self.emitter.typedefs.setdefault(name, typedef)
            self.emitter.used_types.add(scalar_ctype(t.element_type, op))
            return name
        name = scalar_ctype(t, op)
        self.emitter.used_types.add(name)
        return name

    def value(self, v: SSAValue) -> Expr:
        if v in self.values:
            return self.values[v]
        if v in self.memrefs:
            return self.memrefs[v].base
        owner = v.owner
        op = owner if isinstance(owner, Operation) else owner.parent_op()
        raise emit_error(op, f"value {v} is used before the emitter printed it")

    def memref(self, v: SSAValue, op: Operation) -> MemrefView:
        if v not in self.memrefs:
            raise self.unsupported(op, f"an access to a memref that is not a kernel argument or allocation")
        return self.memrefs[v]

    def unpacked(self, v: SSAValue, op: Operation) -> MemrefView:
        """The view of a memref that `op` addresses element by element: not packed FP4 or FP6."""
        view = self.memref(v, op)
        if view.packed:
            fmt = "FP4" if is_fp4(view.type.element_type) else "i4" if is_int4(view.type.element_type) else "FP6"
            raise emit_error(op, f"{op.name} on packed {fmt} global memory ({view.type}) is not emitted as HIP: "
                                 "kernels read it by memref.load and vector.load only")
        return view

    def define(self, result: SSAValue, e: Expr, pure: bool | None = None) -> None:
        """Bind a result: folded into its single user when possible, else a const variable.

        `pure` defaults to whether the op was registered as pure (`register_op_printer`).
        """
        if pure is None:
            owner = result.owner
            pure = isinstance(owner, Operation) and owner.name in PURE_OPS
        if pure and not result.uses:
            self.values[result] = e
            return
        if self._foldable(result, pure):
            self.values[result] = e
            return
        name = self.names.fresh(result.name_hint)
        owner = result.owner if isinstance(result.owner, Operation) else None
        self.line(f"const {self.type_name(result.type, owner)} {name} = {e.text};")
        self.values[result] = Expr(name)

    def _foldable(self, result: SSAValue, pure: bool = True) -> bool:
        """Whether a result can be printed inside its user's expression.

        Pure: when its only use is in the same block (not inside a loop nested there) and
        it has no name, or the user is the yield that assigns it.  A load: only into a
        store or yield that comes right after it, so no write can come between.
        """
        uses = list(result.uses)
        if len(uses) != 1:
            return False
        user = uses[0].operation
        owner = result.owner
        if not isinstance(owner, Operation) or user.parent_block() is not owner.parent_block():
            return False
        if not pure:
            return owner.next_op is user and user.name in ("memref.store", "vector.store", "scf.yield")
        return result.name_hint is None or user.name == "scf.yield"

    def declare_mutable(self, hint: str, result: SSAValue, init: SSAValue | None, op: Operation) -> str:
        """A variable for a loop-carried value or an scf.if result."""
        name = self.names.fresh(hint)
        t = result.type
        if isinstance(t, MemRefType):
            view = self.memref(init, op) if init is not None else None
            if view is None:
                raise self.unsupported(op, "a memref result of scf.if")
            self.line(f"{self._pointer_decl(view, name)} = {view.base.text};")
            self.memrefs[result] = MemrefView(Expr(name), view.kind, view.sizes, t)
            return name
        ctype = self.type_name(t, op)
        if init is None:
            self.line(f"{ctype} {name};")
        else:
            self.line(f"{ctype} {name} = {self.value(init).text};")
        self.values[result] = Expr(name)
        return name

    def _pointer_decl(self, view: MemrefView, name: str) -> str:
        elem = self.type_name(view.type.element_type)
        if view.kind == "array" and len(view.sizes) > 1:
            return f"{elem} (*{name})" + "".join(f"[{s.text}]" for s in view.sizes[1:])
        return f"{elem}* {name}"

    def bind_alias(self, arg: SSAValue, result: SSAValue) -> None:
        if result in self.memrefs:
            self.memrefs[arg] = self.memrefs[result]
        else:
            self.values[arg] = self.values[result]

    def assign_yield(self, y: Operation, targets: list[str], loop: bool) -> None:
        """Assign the yielded values to the variables of a loop's iter_args or an if's results."""
        exprs = [self.memrefs[v].base if v in self.memrefs else self.value(v) for v in y.operands]
        if loop and len(targets) > 1:
            # A parallel assignment: a value that may read a loop variable is copied first,
            # so that no assignment sees another's new value.
            staged = []
            for v, e, target in zip(y.operands, exprs, targets):
                if e.text == target or (e.prec == PRIMARY and e.text not in targets and "(" not in e.text):
                    staged.append(e)
                    continue
                tmp = self.names.fresh(f"{target}_next")
                if isinstance(v.type, MemRefType):
                    self.line(f"{self._pointer_decl(self.memrefs[v], tmp)} = {e.text};")
                else:
                    self.line(f"const {self.type_name(v.type, y)} {tmp} = {e.text};")
                staged.append(Expr(tmp))
            exprs = staged
        for e, target in zip(exprs, targets):
            if e.text != target:
                self.line(f"{target} = {e.text};")

    # -- ops -------------------------------------------------------------------------

    def print_block(self, block: Block, terminator: Callable[[Operation], None] | None = None) -> None:
        for op in block.ops:
            if terminator is not None and op is block.last_op and op.name == "scf.yield":
                terminator(op)
                continue
            self.print_op(op)

    def print_op(self, op: Operation) -> None:
        printer = OP_PRINTERS.get(op.name)
        if printer is None:
            hint = ""
            if op.name.startswith("gemm."):
                hint = "; run gemm-to-kernel first"
            raise emit_error(op, f"no HIP printer for '{op.name}'{hint}")
        sub_byte = next((v for v in (*op.operands, *op.results) if is_sub_byte(element_type_of(v.type))), None)
        if sub_byte is not None and op.name not in SUB_BYTE_OPS and not (
                is_int4(element_type_of(sub_byte.type)) and op.name in INT4_OPS):
            raise emit_error(op, f"{op.name} on {sub_byte.type} is not emitted as HIP: FP4 and FP6 values (codes, "
                                 "one a byte) only move, from global memory into the scaled MFMA")
        byte_value = next((v for v in (*op.operands, *op.results) if is_fp8(element_type_of(v.type))
                           or is_e8m0(element_type_of(v.type))), None)
        if byte_value is not None and _computes(op.name) and op.name not in BYTE_FLOAT_OPS:
            raise emit_error(op, f"{op.name} on {byte_value.type} is not emitted as HIP: FP8 and E8M0 values are "
                                 "their bytes in C, which arithmetic would take as numbers (convert them to f32 first)")
        printer(self, op)


# The ops that may hold FP4 and FP6 values: C arithmetic or a cast on a code would compute nonsense.
# i4 / u4 codes are also widened (sign- or zero-extended) and fed to the iu4 WMMAs
INT4_OPS = frozenset({"arith.extsi", "arith.extui", "amdgpu.wmma"})
SUB_BYTE_OPS = frozenset({
    "memref.load", "memref.store", "vector.load", "vector.store", "arith.constant", "arith.select",
    "scf.if", "scf.for", "scf.yield", "vector.broadcast", "vector.splat", "vector.extract", "vector.insert",
    "vector.shuffle", "amdgpu.scaled_mfma", "amdgpu.mfma",  # (the unscaled f8f6f4 MFMAs refuse at their printer)
})


# The ops that compute with FP8 and E8M0 values (their bytes in C): only these printers know the
# formats (conversions by the target's builtins, E8M0 by its bits, constants as codes); any other
# arith / math / vector arithmetic would compute with the byte as a number.
BYTE_FLOAT_OPS = frozenset({"arith.extf", "arith.truncf", "arith.constant", "arith.select", "arith.bitcast"})


def _computes(name: str) -> bool:
    return name.startswith(("arith.", "math.")) or name in (
        "vector.fma", "vector.reduction", "vector.contract", "vector.outerproduct", "memref.atomic_rmw")
