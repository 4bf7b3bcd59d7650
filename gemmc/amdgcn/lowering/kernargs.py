"""The kernel's arguments: the kernarg segment's layout, its loads, and memref.dim.

The layout is the HIP emitter's launcher's: buffer pointers, then the distinct dynamic dims
(in the order the body asks for them), then f32 scalars.  The arguments used are read by
s_load_dword..x8 (one per chunk of up to 8 dwords); a buffer becomes a GlobalMem on its base,
a dynamic dim an SGPR value.  A batched kernel's batched buffers (gemmc.transforms.batch) have
their bases moved to the matrix of the workgroup's batch (workgroup id z / batch_split), in 64-bit
arithmetic; their dims are read from the end of the host's shape (the batch dim comes first).
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
from gemmc.dialects.amdgcn.pseudo import ConcatOp, ExtractOp
from gemmc.support.ir_names import ARG_DIMS_ATTR
from gemmc.transforms.batch import batch_args, batch_split


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
            # a batched buffer's dim counted from the end: the host's array has its batch dim first
            axis = src[1] - args[src[0]].type.get_num_dims() if src[0] in batch_args(self.fn) else src[1]
            layout.append({"name": d, "kind": "by_value", "offset": off, "size": 4, "dim": d,
                           "dim_arg": src[0], "dim_axis": axis})
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
        self._batch_bases(args)

    def _batch_bases(self, args: list[BlockArgument]) -> None:
        """Each batched buffer's base + batch * its matrix's bytes (s_mul_i32 / s_mul_hi_u32, then
        s_add_u32 / s_addc_u32): batch x elements may pass 32 bits where one matrix does not."""
        batched = [a for a in args if a.index in batch_args(self.fn) and isinstance(self.env.get(a), GlobalMem)]
        if not batched:
            return
        batch = I(self.wg["z"], 0)
        if batch_split(self.fn) > 1:
            batch = self.divc(batch, batch_split(self.fn), self.fn)
        z = self.mat(batch)
        offsets: dict[tuple, SSAValue] = {}  # (elements, bytes) -> the 64-bit offset, once
        for a in batched:
            mem = self.env[a]
            elements = I(None, 1)
            for size in mem.sizes:
                elements = self.mul(elements, size)
            e = self.mat(elements)
            wide = offsets.get((e, mem.elem_bytes))
            if wide is None:
                wide = offsets[(e, mem.elem_bytes)] = self._batch_offset(z, e, mem.elem_bytes)
            lo, carry = self.emit("s_add_u32", [self._half(mem.base, 0), self._half(wide, 0)], [self.S(), self.scc()])
            hi = self.emit("s_addc_u32", [self._half(mem.base, 1), self._half(wide, 1), carry], [self.S(), self.scc()])[0]
            base = self._pair(lo, hi)
            base.name_hint = f"{a.name_hint or 'arg'}_batch"
            self.env[a] = GlobalMem(base, mem.sizes, mem.elem_bytes, mem.static_bytes)

    def _batch_offset(self, z: SSAValue, elements: SSAValue, elem_bytes: int) -> SSAValue:
        """z * elements * elem_bytes as an SGPR pair."""
        wide = self._pair(self.e1("s_mul_i32", [z, elements], self.S()), self.e1("s_mul_hi_u32", [z, elements], self.S()))
        if elem_bytes == 1:
            return wide
        return self.emit("s_lshl_b64", [wide, self.const(elem_bytes.bit_length() - 1)], [self.S(2), self.scc()])[0]

    def _pair(self, lo: SSAValue, hi: SSAValue) -> SSAValue:
        return self.insert(ConcatOp([lo, hi], self.S(2))).results[0]

    def _half(self, pair: SSAValue, i: int) -> SSAValue:
        return self.insert(ExtractOp(pair, i, self.S())).results[0]

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
