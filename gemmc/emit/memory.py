"""HIP printers of the memref and vector dialects: arrays, pointers, ext_vector_type values.

    memref.load      -> A[row * K + k]; packed FP4: (A[row * 48 + (k >> 1)] >> (k & 1) * 4) & 15
    memref.alloc     -> __shared__ float lds[32][33];  (LDS; a local array elsewhere)
                        float (&lds)[32][33] = *reinterpret_cast<float (*)[32][33]>(gemmc_shared + 0);
                        (sm_90 past 48 KiB: a view of dynamic shared memory)
    vector.load      -> *reinterpret_cast<const v4float*>(&A[row * K + k])
    vector.extract   -> v.x, or v[i]

In a host function memref.alloc and memref.dealloc are device memory, allocated and freed in
the launch's stream.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import DenseArrayBase, Float32Type, MemRefType, VectorType
from xdsl.ir import Operation, SSAValue

from gemmc.emit import fp4, fp6
from gemmc.emit.c_text import (
    ARG, INDENT, MUL, PRIMARY, SHIFT, UNARY, Expr, MemrefView, call, int_literal_value, lane,
)
from gemmc.emit.c_types import identity_layout, is_fp6, is_int4, is_sub_byte
from gemmc.emit.function_printer import FunctionPrinter, op_printer
from gemmc.emit.ir_access import emit_error
from gemmc.support.ir_names import ATOMIC_ADDF, ATOMIC_ADDI, ATOMIC_MAXIMUMF, GLOBAL_SPACE, LDS_SPACE, memory_space
from gemmc.target.resources import ELEMENT_BYTES
from gemmc.transforms.lds_access import known_multiple, row_multiple


# -- memref -----------------------------------------------------------------------------


@op_printer("memref.dim")
def _print_dim(p: FunctionPrinter, op: Operation) -> None:
    source, index = op.operands
    axis = int_literal_value(p.value(index))
    if axis is None:
        raise p.unsupported(op, "memref.dim with a non-constant index")
    view = p.memref(source, op)
    p.values[op.results[0]] = view.sizes[axis]


@op_printer("memref.load")
def _print_load(p: FunctionPrinter, op: Operation) -> None:
    mem, *indices = op.operands
    view = p.memref(mem, op)
    index_exprs = [p.value(i) for i in indices]
    p.define(op.results[0], view.packed_element(index_exprs) if view.packed else view.element(index_exprs))


@op_printer("memref.store")
def _print_store(p: FunctionPrinter, op: Operation) -> None:
    value, mem, *indices = op.operands
    view = p.unpacked(mem, op)
    p.line(f"{view.element([p.value(i) for i in indices]).text} = {p.value(value).text};")


@op_printer("gemm.assume_rows_aligned")
def _print_assume_rows_aligned(p: FunctionPrinter, op: Operation) -> None:
    view = p.memref(op.operands[0], op)
    p.line(f"__builtin_assume({view.sizes[-1].at(MUL)} % {op.properties['multiple'].value.data} == 0);")


@op_printer("memref.atomic_rmw")
def _print_atomic_rmw(p: FunctionPrinter, op: Operation) -> None:
    value, mem, *indices = op.operands
    kind = op.properties["kind"].value.data  # type: ignore[union-attr]
    if kind == ATOMIC_MAXIMUMF:
        return _print_atomic_max(p, op)
    if kind not in (ATOMIC_ADDF, ATOMIC_ADDI):
        raise p.unsupported(op, "memref.atomic_rmw of a kind other than addf, addi and maximumf")
    address = f"&{p.unpacked(mem, op).element([p.value(i) for i in indices]).text}"
    if p.emitter.arch.vendor == "nvidia":
        e = call("atomicAdd", Expr(address), p.value(value))
    else:  # clang's builtin: needs no HIP header (a device-only build) and is what atomicAdd calls
        e = call("__hip_atomic_fetch_add", Expr(address), p.value(value), Expr("__ATOMIC_RELAXED"),
                 Expr("__HIP_MEMORY_SCOPE_AGENT"))
    if op.results[0].uses:
        p.define(op.results[0], e, pure=False)
    else:
        p.line(f"{e.text};")


def _print_atomic_max(p: FunctionPrinter, op: Operation) -> None:
    """An f32 atomic max of a magnitude (an amax output's): an unsigned integer atomic max of its
    bits, which order non-negative floats (and NaN above inf) as their values do; so the value must
    be math.absf's, and the element non-negative before (docs/language.md, "amax")."""
    value, mem, *indices = op.operands
    if not isinstance(value.type, Float32Type) or getattr(value.owner, "name", "") != "math.absf":
        raise p.unsupported(op, "memref.atomic_rmw maximumf of anything but math.absf's f32 (the integer max of "
                                "the bits orders non-negative floats only)")
    address = Expr(f"reinterpret_cast<unsigned int*>(&{p.unpacked(mem, op).element([p.value(i) for i in indices]).text})")
    bits = call("__builtin_bit_cast", Expr("unsigned int"), p.value(value))
    if p.emitter.arch.vendor == "nvidia":
        e = call("atomicMax", address, bits)
    else:
        e = call("__hip_atomic_fetch_max", address, bits, Expr("__ATOMIC_RELAXED"), Expr("__HIP_MEMORY_SCOPE_AGENT"))
    if op.results[0].uses:
        raise p.unsupported(op, "memref.atomic_rmw maximumf whose old value is used")
    p.line(f"{e.text};")


@op_printer("memref.alloc", "memref.alloca")
def _print_alloc(p: FunctionPrinter, op: Operation) -> None:
    result = op.results[0]
    t = result.type
    assert isinstance(t, MemRefType)
    if p.host:
        _print_device_alloc(p, op, t)
        return
    if op.operands or any(s < 0 for s in t.get_shape()):
        raise p.unsupported(op, f"{op.name} of a dynamic shape ({t})")
    if not identity_layout(t):
        raise p.unsupported(op, f"{op.name} with a non-identity layout ({t})")
    space = memory_space(t)
    name = p.names.fresh(result.name_hint or ("lds" if space == LDS_SPACE else "buf"))
    dims = "".join(f"[{s}]" for s in t.get_shape()) or "[1]"
    elem = p.type_name(t.element_type, op)
    if space == LDS_SPACE and p.dynamic_shared is not None:
        _print_dynamic_shared(p, name, elem, dims, t)
        p.memrefs[result] = MemrefView(Expr(name), "array", [Expr(str(s)) for s in t.get_shape()], t)
        return
    align = f"alignas({p.shared_align}) " if p.has_vector_memory_ops or p.shared_align > 16 else ""
    qualifier = "__shared__ " if space == LDS_SPACE else ""
    p.line(f"{align}{qualifier}{elem} {name}{dims};")
    p.memrefs[result] = MemrefView(Expr(name), "array", [Expr(str(s)) for s in t.get_shape()], t)


DYNAMIC_SHARED = "gemmc_shared"


def _print_dynamic_shared(p: FunctionPrinter, name: str, elem: str, dims: str, t: MemRefType) -> None:
    """An LDS buffer as a view of the kernel's dynamic shared memory (sm_90 past its 48 KiB of static
    shared memory; the launcher opts in to the bytes, gemmc.emit.control), each 16-byte aligned (1024-byte
    where wgmma reads them: FunctionPrinter.shared_align)."""
    align = p.shared_align
    offset = -(-(p.dynamic_shared or 0) // align) * align
    if p.dynamic_shared in (None, 0):
        p.line(f"extern __shared__ __align__({align}) unsigned char {DYNAMIC_SHARED}[];")
    p.line(f"{elem} (&{name}){dims} = *reinterpret_cast<{elem} (*){dims}>({DYNAMIC_SHARED} + {offset});")
    size = ELEMENT_BYTES[str(t.element_type)]
    for n in t.get_shape():
        size *= n
    p.dynamic_shared = offset + -(-size // align) * align


def _print_device_alloc(p: FunctionPrinter, op: Operation, t: MemRefType) -> None:
    """memref.alloc in the host function: device memory, allocated in the launch's stream."""
    if op.name != "memref.alloc" or memory_space(t) != GLOBAL_SPACE or not identity_layout(t) \
            or is_sub_byte(t.element_type):  # (FP4 and FP6 would need their packed size)
        raise p.unsupported(op, f"{op.name} of {t} in a host function")
    result = op.results[0]
    sizes, dynamic = [], iter(op.operands)
    for s in t.get_shape():
        sizes.append(Expr(str(s)) if s >= 0 else p.value(next(dynamic)))
    elem = p.type_name(t.element_type, op)
    name = p.names.fresh(result.name_hint or "buf")
    count = " * ".join(f"(size_t){e.at(UNARY)}" for e in sizes) or "1"
    p.line(f"{elem}* {name} = nullptr;")
    p.line(f"if (hipError_t err = hipMallocAsync((void**)&{name}, {count} * sizeof({elem}), stream))")
    p.line(f"{INDENT}return err;")
    p.memrefs[result] = MemrefView(Expr(name), "flat", sizes, t)


@op_printer("memref.dealloc")
def _print_dealloc(p: FunctionPrinter, op: Operation) -> None:
    if p.host:
        p.line(f"if (hipError_t err = hipFreeAsync({p.memref(op.operands[0], op).base.text}, stream))")
        p.line(f"{INDENT}return err;")


# -- vector -----------------------------------------------------------------------------


def _vector_address(p: FunctionPrinter, op: Operation, mem: SSAValue, indices: Sequence[SSAValue]) -> str:
    view = p.unpacked(mem, op)
    return f"&{view.element([p.value(i) for i in indices]).text}"


@op_printer("vector.load")
def _print_vector_load(p: FunctionPrinter, op: Operation) -> None:
    mem, *indices = op.operands
    vt = p.type_name(op.results[0].type, op)
    if p.memref(mem, op).packed:
        _print_packed_vector_load(p, op)
        return
    addr = _vector_address(p, op, mem, indices)
    p.define(op.results[0], Expr(f"*reinterpret_cast<const {vt}*>({addr})", UNARY))


def _print_packed_vector_load(p: FunctionPrinter, op: Operation) -> None:
    """n FP4 (or i4) elements from packed global memory: n / 2 bytes by one load, their low and high
    nibbles interleaved; 16 FP6 elements: their 12 bytes as three 4-byte words by one load, each
    code cut out of the 96 bits (fp6.vector_codes).  The bytes must start aligned, as a vector
    load's always do: the column a provable multiple of n, and so the row length (vectorize proves
    both, except for the peeled vectors of odd rows, which start at any column and are refused
    here).  Other FP6 widths (3 bytes every 4 elements: fields across bytes, no aligned load) are
    refused: scalar loads there."""
    mem, *indices = op.operands
    n = op.results[0].type.get_shape()[0]
    fp6_vector = is_fp6(op.results[0].type.element_type)
    if fp6_vector and n != fp6.VECTOR:
        raise emit_error(op, f"{op.name} of {n} FP6 elements from packed global memory is not emitted as HIP: "
                             f"FP6 is read {fp6.VECTOR} elements (12 bytes) or one element at a time "
                             f"(vectorize{{width={fp6.VECTOR}}}, or no vectorize)")
    row = row_multiple(mem) if len(indices) > 1 else n
    if n % 2 or known_multiple(indices[-1]) % n or row % n:
        kind = "FP6" if fp6_vector else "i4" if is_int4(op.results[0].type.element_type) else "FP4"
        raise emit_error(op, f"{op.name} of {n} {kind} elements from packed global memory is not emitted as HIP "
                             f"unless its column and row length are provable multiples of an even {n} "
                             "(vectorize{peel=false}, or no vectorize)")
    view = p.memref(mem, op)
    name = p.names.fresh(f"{op.results[0].name_hint or 'v'}_packed")
    *outer, col = (p.value(i) for i in indices)
    if fp6_vector:
        addr = view.packed_byte(outer, Expr(fp6.first_byte(col.at(PRIMARY)), SHIFT)).text
        p.line(f"unsigned {name}[3];")
        p.line(f"__builtin_memcpy({name}, __builtin_assume_aligned(&{addr}, 4), 12);")
        vt = p.type_name(op.results[0].type, op)
        codes = ", ".join(f"(unsigned char)({c})" for c in fp6.vector_codes(name))
        p.define(op.results[0], Expr(f"{vt}{{{codes}}}"), pure=False)
        return
    half = n // 2
    bytes_t = p.emitter.vector_typedef(f"v{half}uchar", "unsigned char", half)
    addr = view.packed_byte(outer, Expr(f"{col.at(PRIMARY)} >> 1", SHIFT)).text
    p.line(f"const {bytes_t} {name} = *reinterpret_cast<const {bytes_t}*>(&{addr});")
    p.define(op.results[0], Expr(fp4.vector_nibbles(name, half)), pure=False)  # element 2j: byte j's low nibble


@op_printer("vector.store")
def _print_vector_store(p: FunctionPrinter, op: Operation) -> None:
    value, mem, *indices = op.operands
    vt = p.type_name(value.type, op)
    addr = _vector_address(p, op, mem, indices)
    p.line(f"*reinterpret_cast<{vt}*>({addr}) = {p.value(value).text};")


@op_printer("vector.broadcast", "vector.splat", pure=True)
def _print_broadcast(p: FunctionPrinter, op: Operation) -> None:
    (x,) = op.operands
    vt = p.type_name(op.results[0].type, op)
    if isinstance(x.type, VectorType):
        raise p.unsupported(op, "vector.broadcast of a vector")
    lanes = op.results[0].type.get_shape()[0]  # type: ignore[union-attr]
    if lanes <= 4 or p.emitter.arch.vendor == "nvidia":  # (nvcc's vectors are aggregates: no splat cast)
        e = p.value(x).at(ARG)
        p.define(op.results[0], Expr(f"{vt}{{{', '.join([e] * lanes)}}}"))
    else:
        p.define(op.results[0], Expr(f"({vt})({p.value(x).text})", UNARY))


@op_printer("ub.poison", pure=True)
def _print_poison(p: FunctionPrinter, op: Operation) -> None:
    """Any value will do (promote-private's element read before it is written): zero, so that
    the HIP reads no uninitialized variable."""
    p.define(op.results[0], Expr(f"{p.type_name(op.results[0].type, op)}{{}}"))


def _positions(p: FunctionPrinter, op: Operation, dynamic: Sequence[SSAValue]) -> list[Expr]:
    static = op.properties["static_position"]
    assert isinstance(static, DenseArrayBase)
    dyn = iter(dynamic)
    out = []
    for s in static.get_values():
        out.append(p.value(next(dyn)) if s < -(2**62) else Expr(str(s)))
    return out


@op_printer("vector.extract", pure=True)
def _print_vector_extract(p: FunctionPrinter, op: Operation) -> None:
    vec, *dynamic = op.operands
    pos = _positions(p, op, dynamic)
    if len(pos) != 1 or isinstance(op.results[0].type, VectorType):
        raise p.unsupported(op, "vector.extract of anything but one element of a 1-D vector")
    p.define(op.results[0], lane(p.value(vec), pos[0], vec.type))


@op_printer("vector.shuffle", pure=True)
def _print_vector_shuffle(p: FunctionPrinter, op: Operation) -> None:
    """clang's __builtin_shufflevector (ext_vector_type operands): RDNA4's two-run fragments, a
    copy's blocks transposed.  CUDA's float2 / float4 are structs, which nvcc does not shuffle:
    there the result is put together from the operands' lanes."""
    v1, v2 = op.operands
    mask = list(op.mask.get_values())
    if len(op.results[0].type.get_shape()) != 1 or min(mask) < 0:
        raise p.unsupported(op, "vector.shuffle of anything but 1-D vectors with a defined mask")
    for v in op.operands:
        p.type_name(v.type, op)
    if p.emitter.arch.vendor == "nvidia":
        n = v1.type.get_shape()[0]
        lanes = [lane(p.value(v1), Expr(str(i)), v1.type) if i < n else lane(p.value(v2), Expr(str(i - n)), v2.type)
                 for i in mask]
        p.define(op.results[0], Expr(f"{p.type_name(op.results[0].type, op)}{{{', '.join(x.text for x in lanes)}}}"))
        return
    p.define(op.results[0], call("__builtin_shufflevector", p.value(v1), p.value(v2), *(Expr(str(i)) for i in mask)))


@op_printer("vector.insert")
def _print_vector_insert(p: FunctionPrinter, op: Operation) -> None:
    x, vec, *dynamic = op.operands
    pos = _positions(p, op, dynamic)
    if len(pos) != 1 or isinstance(x.type, VectorType):
        raise p.unsupported(op, "vector.insert of anything but one element of a 1-D vector")
    result = op.results[0]
    name = p.names.fresh(result.name_hint)
    p.line(f"{p.type_name(result.type, op)} {name} = {p.value(vec).text};")
    p.line(f"{lane(Expr(name), pos[0], vec.type).text} = {p.value(x).text};")
    p.values[result] = Expr(name)
