"""The kernel's arguments: the kernarg segment's layout, its loads, and memref.dim.

The layout is the HIP emitter's launcher's: buffer pointers, then the distinct dynamic dims
(in the order the body asks for them), then f32 scalars.  The arguments used are read by
s_load_dword..x8 (one per chunk of up to 8 dwords); a buffer becomes a GlobalMem on its base,
a dynamic dim an SGPR value.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from xdsl.dialects import arith, gpu, memref
from xdsl.dialects.builtin import ArrayAttr, Float32Type, MemRefType, StringAttr
from xdsl.ir import Block, BlockArgument, SSAValue

from gemmc.amdgcn.lowering.elements import element_bytes
from gemmc.amdgcn.lowering.integers import IntegerArithmetic
from gemmc.amdgcn.values import F, GlobalMem, I
from gemmc.dialects.amdgcn.pseudo import ExtractOp
from gemmc.support.ir_names import ARG_DIMS_ATTR


class KernelArguments(IntegerArithmetic):
    def load_kernargs(self, body: Block) -> None:
        """The kernarg segment, as the HIP emitter's launcher passes it: pointers, then the
        distinct dynamic dims (in the order the body asks for them), then scalars."""
        args = list(body.args)
        names = _arg_dim_names(self.fn, len(args))
        dims: dict[tuple[int, int], str] = {}
        for a in args:
            if isinstance(a.type, MemRefType):
                for axis, size in enumerate(a.type.get_shape()):
                    if size < 0:
                        nm = names[a.index]
                        dims[(a.index, axis)] = nm[axis] if nm and axis < len(nm) else f"{a.name_hint or 'arg'}_dim{axis}"
        order: list[str] = []
        for op in body.walk():
            if isinstance(op, memref.DimOp) and isinstance(op.source, BlockArgument) and op.source.block is body:
                c = op.index.owner
                if isinstance(c, arith.ConstantOp):
                    nm = dims.get((op.source.index, c.value.value.data))  # type: ignore[union-attr]
                    if nm is not None and nm not in order:
                        order.append(nm)
        for key in sorted(dims):
            if dims[key] not in order:
                order.append(dims[key])
        layout: list[dict] = []
        off = 0
        for a in args:
            if isinstance(a.type, MemRefType):
                layout.append({"name": a.name_hint or f"arg{a.index}", "kind": "global_buffer", "offset": off,
                               "size": 8, "arg": a.index})
                off += 8
        for d in order:
            src = min(k for k, v in dims.items() if v == d)  # (argument, axis) that has this size
            layout.append({"name": d, "kind": "by_value", "offset": off, "size": 4, "dim": d,
                           "dim_arg": src[0], "dim_axis": src[1]})
            off += 4
        for a in args:
            if not isinstance(a.type, MemRefType):
                if a.type != Float32Type():
                    raise self.error(self.fn, f"kernel argument {a.name_hint} of type {a.type} is not supported")
                layout.append({"name": a.name_hint or f"arg{a.index}", "kind": "by_value", "offset": off, "size": 4,
                               "arg": a.index})
                off += 4
        self.arg_layout = layout
        self.kernarg_size = off
        # one s_load per chunk of up to 8 dwords, then extracts
        used = [e for e in layout if self._arg_used(body, e)]
        dwords: dict[int, SSAValue] = {}
        if used:
            lo = min(e["offset"] for e in used) // 4
            hi = max(e["offset"] + e["size"] for e in used) // 4
            pos = lo
            chunks = []
            while pos < hi:
                n = next(k for k in (8, 4, 2, 1) if pos + k <= hi)
                suffix = {1: "dword", 2: "dwordx2", 4: "dwordx4", 8: "dwordx8"}[n]
                r = self.e1(f"s_load_{suffix}", [self.kernarg_ptr], self.S(n), cse=False, offset=pos * 4)
                chunks.append((pos, n, r))
                pos += n
            for e in used:
                d0, nd = e["offset"] // 4, e["size"] // 4
                for (p, n, r) in chunks:
                    if p <= d0 and d0 + nd <= p + n:
                        v = r if (p == d0 and n == nd) else self.insert(ExtractOp(r, d0 - p, self.S(nd))).results[0]
                        v.name_hint = e["name"]
                        dwords[e["offset"]] = v
                        break
                else:
                    # straddles two chunks: load it alone
                    suffix = {1: "dword", 2: "dwordx2"}[nd]
                    v = self.e1(f"s_load_{suffix}", [self.kernarg_ptr], self.S(nd), cse=False, offset=e["offset"])
                    v.name_hint = e["name"]
                    dwords[e["offset"]] = v
        self.dim_vals: dict[str, I] = {}
        for e in layout:
            v = dwords.get(e["offset"])
            if "dim" in e and v is not None:
                self.dim_vals[e["dim"]] = I(v, 0, 1 << 31)
        for e in layout:
            v = dwords.get(e["offset"])
            if "dim" not in e and v is not None:
                a = args[e["arg"]]
                if isinstance(a.type, MemRefType):
                    self.env[a] = self._global_mem(a, v, dims)
                else:
                    self.env[a] = F(reg=v)
        for a in args:
            if isinstance(a.type, MemRefType) and a not in self.env and a.uses:
                self.env[a] = self._global_mem(a, None, dims)  # type: ignore[arg-type]
        self.arg_dims = dims

    def _arg_used(self, body: Block, e: dict) -> bool:
        if "dim" in e:
            return True
        return bool(body.args[e["arg"]].uses)

    def _global_mem(self, a: BlockArgument, base: SSAValue, dims) -> GlobalMem:
        t = a.type
        assert isinstance(t, MemRefType)
        shape = t.get_shape()
        sizes = [I(None, s) if s >= 0 else self.dim_vals[dims[(a.index, axis)]] for axis, s in enumerate(shape)]
        eb = element_bytes(t)
        assert eb is not None  # (lower() refused the others)
        static = math.prod(shape) * eb if all(s >= 0 for s in shape) else None
        return GlobalMem(base, sizes, eb, static)

    def _dim(self, op: memref.DimOp) -> None:
        src = op.source
        axis = self.ival(op.index, op)
        if axis.reg is not None:
            raise self.error(op, "memref.dim with a dynamic axis")
        t = src.type
        assert isinstance(t, MemRefType)
        size = t.get_shape()[axis.const]
        if size >= 0:
            self.env[op.result] = I(None, size)
            return
        if isinstance(src, BlockArgument) and src.block is self.fn.body.block:
            nm = self.arg_dims[(src.index, axis.const)]
            self.env[op.result] = self.dim_vals[nm]
            return
        raise self.error(op, "memref.dim of a memref that is not a kernel argument")


KERNARG_OPS: dict[type, Callable] = {memref.DimOp: KernelArguments._dim}
"""The handler of memref.dim (a kernel argument's size)."""


def _arg_dim_names(fn: gpu.FuncOp, n: int) -> list[list[str] | None]:
    out: list[list[str] | None] = [None] * n
    a = fn.attributes.get(ARG_DIMS_ATTR)
    if isinstance(a, ArrayAttr):
        for i, entry in enumerate(a.data[:n]):
            if isinstance(entry, ArrayAttr):
                out[i] = [e.data for e in entry.data if isinstance(e, StringAttr)]
    return out
