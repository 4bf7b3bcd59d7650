"""TMA's tensor maps in the HIP file (sm_90): kernel parameters, and their encoding by the launcher.

An nvgpu.tma_load reads its box through a CUtensorMap that describes its source matrix (gemmc.target.tma).
The IR names the matrix (a kernel argument) and the box and swizzle; the printer makes one
`const __grid_constant__ CUtensorMap` kernel parameter per distinct (argument, box, swizzle), after the
kernel's other parameters, and the launch encodes each from the host memref it passes for that argument:

    CUtensorMap A_map;
    {
        const hipError_t status = gemmc_tensor_map_2d(&A_map, A, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, M, K, 128, 64, CU_TENSOR_MAP_SWIZZLE_128B);
        if (status != hipSuccess)
            return status;
    }
    kernel<<<...>>>(A, B, C, A_map, B_map);

gemmc_tensor_map_2d calls cuTensorMapEncodeTiled, got from the runtime (cudaGetDriverEntryPointByVersion,
CUDA 12.5 and later) so that nothing links -lcuda: dims innermost first (columns, rows), the row stride in
bytes, the box (columns, rows), element strides 1, no interleave, the swizzle, L2 promotion of 256 bytes
and the zero out-of-bounds fill.  A batched kernel argument's loads with a batch coordinate (three) read
through gemmc_tensor_map_3d's map of the host's [Bt, rows, cols] memref: dims (columns, rows, Bt), strides
(the row's bytes, the matrix's bytes), box (columns, rows, 1); a batched argument read with two
coordinates is refused here (its map would be of the first matrix only).  The map is encoded at every
launch (host work of a microsecond or so, no device synchronization); the harness and gemmc bench call the
launcher, so they pass maps too.
"""

from __future__ import annotations

from xdsl.dialects.builtin import MemRefType
from xdsl.ir import BlockArgument, Operation

from gemmc.emit.c_text import INDENT, Namer
from gemmc.emit.file_scope import FileScope, Param
from gemmc.emit.function_printer import FunctionPrinter
from gemmc.emit.ir_access import emit_error, walk_block
from gemmc.target import tma
from gemmc.target.resources import ELEMENT_BYTES

ENCODE = "gemmc_tensor_map_{rank}d"


def kernel_params(fn: Operation, names: Namer) -> list[Param]:
    """The tensor-map parameters of kernel `fn`, one per distinct (argument, box, swizzle) of its TMA loads."""
    body = fn.regions[0].blocks[0]
    params: dict[tuple[int, tuple[int, int], int, int], Param] = {}
    for op in walk_block(body):
        if op.name != "nvgpu.tma_load":
            continue
        src = op.src
        if not isinstance(src, BlockArgument) or src.block is not body:
            raise emit_error(op, "a TMA load's source must be an argument of its kernel (the launcher encodes its "
                             "tensor map)")
        key = _key(op)
        if key not in params:
            name = names.fresh(f"{src.name_hint or 'arg'}_map")
            params[key] = Param("tensormap", name, f"const __grid_constant__ CUtensorMap {name}", arg=src.index,
                                type=src.type, box=op.box_shape, swizzle=op.swizzle_bytes, rank=op.map_rank)
    return list(params.values())


def map_name(p: FunctionPrinter, op: Operation) -> str:
    """The kernel parameter holding the tensor map `op` reads through."""
    key = _key(op)
    if key not in p.tensor_maps:
        raise emit_error(op, "a TMA load without its tensor-map parameter")
    return p.tensor_maps[key]


def encode_at_launch(p: FunctionPrinter, launch: Operation, q: Param, host_memref: Operation) -> str:
    """Prints, before the launch, the encoding of parameter q's map from the host memref; its C name."""
    scope: FileScope = p.emitter
    view = p.memref(host_memref, launch)
    t = q.type
    assert isinstance(t, MemRefType) and q.box is not None
    elem = str(t.element_type)
    if elem not in tma.DATA_TYPES:
        raise emit_error(launch, f"no tensor map of {elem} elements (gemmc's: {', '.join(tma.DATA_TYPES)})")
    if len(view.sizes) != q.rank:
        raise emit_error(launch, f"a rank-{q.rank} tensor map of %{q.name.removesuffix('_map')}, whose host memref "
                         f"has {len(view.sizes)} dims: a batched argument's TMA loads take the batch coordinate")
    encode = ENCODE.format(rank=q.rank)
    scope.host_helpers.setdefault(encode, _encode_function(q.rank))
    name = p.names.fresh(q.name)
    dims = [s.text for s in view.sizes]  # ([Bt,] rows, cols)
    args = [f"&{name}", view.base.text, tma.DATA_TYPES[elem], str(ELEMENT_BYTES[elem]), *dims,
            str(q.box[0]), str(q.box[1]), tma.SWIZZLE_ENUM[q.swizzle]]
    status = p.names.fresh(f"{name}_status")
    p.line(f"CUtensorMap {name};")
    p.line(f"const hipError_t {status} = {encode}({', '.join(args)});")
    p.line(f"if ({status} != hipSuccess)")
    p.line(f"{INDENT}return {status};")
    return name


def _key(op: Operation) -> tuple[int, tuple[int, int], int, int]:
    """What a load's map is a function of: its argument, box, swizzle and rank."""
    return (op.src.index, op.box_shape, op.swizzle_bytes, op.map_rank)


def param_key(q: Param) -> tuple[int, tuple[int, int], int, int]:
    """The same of a tensor-map parameter."""
    return (q.arg, q.box, q.swizzle, q.rank)


def _encode_function(rank: int) -> list[str]:
    batched = rank == 3
    encode = ENCODE.format(rank=rank)
    dims = "cols, rows" + (", batches" if batched else "")
    strides = "(cuuint64_t)cols * elem_bytes" + (", (cuuint64_t)rows * cols * elem_bytes" if batched else "")
    return [
        "#include <cudaTypedefs.h>  // PFN_cuTensorMapEncodeTiled",
        "",
        "// A TMA tensor map of a row-major rows x cols matrix at `base` (gemmc.emit.tensor_maps): boxes of",
        "// box_rows x box_cols elements, zeros past the edge; cuTensorMapEncodeTiled from the runtime's",
        "// driver entry point (no -lcuda)." + (" Of `batches` such matrices one after the other (box depth 1)."
                                                if batched else ""),
        f"static hipError_t {encode}(CUtensorMap* map, const void* base, CUtensorMapDataType type, int elem_bytes,",
        "                                     " + ("int batches, " if batched else "")
        + "int rows, int cols, int box_rows, int box_cols, CUtensorMapSwizzle swizzle)",
        "{",
        "    static PFN_cuTensorMapEncodeTiled_v12000 encode = nullptr;",
        "    if (encode == nullptr) {",
        "        void* fn = nullptr;",
        "        cudaDriverEntryPointQueryResult found;",
        f"        const cudaError_t status = cudaGetDriverEntryPointByVersion(\"cuTensorMapEncodeTiled\", &fn, {tma.ENCODE_VERSION},",
        "                                                                    cudaEnableDefault, &found);",
        "        if (status != cudaSuccess || found != cudaDriverEntryPointSuccess || fn == nullptr)",
        "            return status != cudaSuccess ? status : cudaErrorSymbolNotFound;",
        "        encode = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn);",
        "    }",
        f"    const cuuint64_t dims[{rank}] = {{{', '.join(f'(cuuint64_t){d}' for d in dims.split(', '))}}};  // innermost first",
        f"    const cuuint64_t strides[{rank - 1}] = {{{strides}}};  // of the rows" + (", the matrices" if batched else "")
        + ", in bytes",
        f"    const cuuint32_t box[{rank}] = {{(cuuint32_t)box_cols, (cuuint32_t)box_rows{', 1' if batched else ''}}};",
        f"    const cuuint32_t element_strides[{rank}] = {{{', '.join(['1'] * rank)}}};",
        f"    const CUresult r = encode(map, type, {rank}, const_cast<void*>(base), dims, strides, box, element_strides,",
        "                              CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,",
        "                              CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);",
        "    return r == CUDA_SUCCESS ? cudaSuccess : cudaErrorInvalidValue;",
        "}",
    ]
