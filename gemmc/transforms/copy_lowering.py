"""The loops a `gemm.copy` becomes: the tutorial's cooperative global -> LDS copies.

lower-copies calls `lower_copy` on every gemm.copy; double-buffer's register staging
builds its unrolled copies from the same pieces (`copy_coords`, `guarded_load`,
`store_lds`), so both write the loads and stores one way.

A copy of an e0 x e1 tile, `width` elements per load, over T threads:

    for it in 0 .. ceil(e0 * e1 / width / T):        (no loop when one pass covers it)
        idx = it * T + tid                           (if idx < total, when T does not divide it)
        i0, i1 = the stored-tile coordinates of idx
        v = (o0 + i0 < rows && o1 + i1 < cols) ? src[o0 + i0][o1 + i1] : 0
        dst[slot..., i0, i1] = v                     (or [i1, i0], element by element for vectors)

With `direct` the words go by amdgpu.gather_to_lds (`direct_copy`); on an NVIDIA target by
cp.async, 16 bytes a lane (`async_copy`), committed and waited for by
gemmc.transforms.async_waits.

With `blocks` (a transposed copy, vectorize{blocks=true}) an item is a width x width block
(`load_block`, `store_block`):

    for r in 0 .. width:  v[r] = src[o0 + i0 + r][o1 + i1 .. +width]       (guarded as above)
    for c in 0 .. width:  dst[slot..., i1 + c, i0 .. +width] = [v[0][c], v[1][c], ...]   (shuffles)

so a transposed tile takes `width` vector stores a block where element stores took width x width
(CK's transpose_vectors does the same for an M- or N-contiguous operand).

With `peel` (rows not known to start aligned: an odd row length, say) a row's aligned
vectors start `head` elements in, where head = (-(g0 * ld + o1)) mod width (ld: the
source's row length), so the copy is two item spaces (`peeled_items`):

    interior, e0 x e1/width items (i0, j):  c = head + j * width
        v = c + width <= e1 ? (the vector lies in the matrix ? src[g0][o1 + c .. +width]
                                                            : guarded elements) : nothing
        dst[..., i0, c + e] = v[e]                          (element by element)
    edges, e0 x width items (i0, q), only where head != 0:  the q-th of the row's head
        (columns 0 .. head) and tail (e1 - width + head .. e1) elements, guarded as above

Every vector load is then aligned, and the interior does not go scalar for its edges.
Items go row by row (consecutive lanes along a row: coalesced), or with `column_first` (vectorize
sets it on a peeled copy into a transposed tile) row index first (consecutive lanes on
consecutive rows: consecutive LDS words of the transposed tile, its element stores free of
bank conflicts, at the price of one cache line per lane).

With `row_lanes` = g above a row's n loads (or blocks) and no multiple of them, each row takes g
lanes, of which the last g - n are idle (`padded_lanes`): items run over e0 x g, and an item past
its row's n loads neither loads nor stores.  A 224-wide tile's 28 blocks a row copied with g = 32
then keeps the lane arrangement of the 256-wide tile's copy, which its LDS layout spreads over the
banks.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects import arith, gpu, memref, scf, vector
from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, UnitAttr, VectorType, i64
from xdsl.ir import Block, Operation, OpResult, SSAValue
from xdsl.rewriter import InsertPoint

from gemmc.support.diagnostics import pass_error
from gemmc.dialects.amdgpu import GatherToLDSOp
from gemmc.dialects.gemm import MX_NARROW_TYPES, CopyOp, type_name
from gemmc.dialects.nvgpu import DeviceAsyncCopyOp
from gemmc.transforms.async_waits import place_waits
from gemmc.support.ir_names import ROLE_ATTR, TRANSPOSED_ATTR, UNROLL_ATTR
from gemmc.transforms.kernel_builder import KernelBuilder
from gemmc.transforms.lds_access import kernel_of, known_multiple, row_multiple
from gemmc.target.resources import ELEMENT_BYTES
from gemmc.target.module_arch import arch_of

ASYNC_BYTES = 16  # cp.async.cg's 16 bytes a lane (the L2 only: the tile is read once a workgroup)


def direct_per_lane(elem) -> int:
    """Elements one lane moves by global_load_lds: one 4-byte word, 4 / element bytes
    (1 f32, 2 16-bit, 4 FP8)."""
    return 4 // ELEMENT_BYTES[str(elem)]


def direct_unproven(copy: CopyOp) -> str | None:
    """Why global_load_lds cannot move this copy's tile as 4-byte words (direct_copy), or
    None when it can: the LDS tile dense, and each word's elements adjacent in global memory
    and in LDS, wholly inside or outside the matrix (`_word_unaligned`).  On an NVIDIA target:
    why cp.async cannot move it in 16-byte chunks (`async_unproven`)."""
    if arch_of(copy).vendor == "nvidia":
        return async_unproven(copy)
    elem = copy.src.type.element_type
    tile = list(copy.dst_index(*copy.tile))
    if list(copy.dst.type.get_shape()[-2:]) != tile:
        return f"its LDS buffer {copy.dst.type} does not hold the {tile[0]}x{tile[1]} tile densely"
    if type_name(elem) in MX_NARROW_TYPES:
        return f"its {type_name(elem)} elements are packed in global memory but a byte each in LDS"
    size = ELEMENT_BYTES.get(str(elem))
    if size is None or 4 % size:
        return f"its {type_name(elem)} elements do not fit a 4-byte word"
    per = direct_per_lane(elem)
    return None if per == 1 else _word_unaligned(copy, per)


def async_unproven(copy: CopyOp) -> str | None:
    """Why cp.async cannot move this copy's tile in 16-byte chunks (async_copy), or None when it
    can: each chunk's elements adjacent in global memory and in shared memory, 16-byte aligned
    in both, wholly inside or outside the matrix's rows (`_word_unaligned`).  Padded shared rows
    are fine (each lane writes where it says) if they keep 16-byte alignment."""
    elem = copy.src.type.element_type
    size = ELEMENT_BYTES.get(str(elem))
    if type_name(elem) in MX_NARROW_TYPES or size is None or ASYNC_BYTES % size:
        return f"its {type_name(elem) or elem} elements do not make {ASYNC_BYTES}-byte chunks"
    per = ASYNC_BYTES // size
    if copy.dst.type.get_shape()[-1] % per:
        return f"its shared rows of {copy.dst.type.get_shape()[-1]} elements do not keep 16-byte chunks aligned"
    return _word_unaligned(copy, per, f"a {ASYNC_BYTES}-byte cp.async")


def _word_unaligned(copy: CopyOp, per: int, unit: str = "a 4-byte word") -> str | None:
    """Why a word of `per` elements may straddle LDS rows, a matrix row or its edge (the
    transfer tests only its first element against the bounds), or None when none does:
    the tile stored as it is in global memory, and its row length, the matrix's row length
    and the tile's column origin all multiples of `per`."""
    elem = type_name(copy.src.type.element_type)
    if copy.transpose is not None:
        words = "pairs" if per == 2 else f"groups of {per}"
        return f"its {elem} {words} are adjacent in global memory but not in its LDS tile (transposed there)"
    _, extent = copy.tile
    row = row_multiple(copy.src)
    if extent % per:
        return f"the tile's row length {extent} is not a multiple of {per} (the {elem} elements of {unit})"
    if known_multiple(copy.o1) % per:
        return f"the tile's column origin is not provably a multiple of {per}"
    if copy.src.type.get_shape()[-1] < 0 and row % per:
        return f"its row length is dynamic, so {per}-element words are not provably aligned"
    if row % per:
        return f"its row length {row} is not a multiple of {per}"
    return None


COPY_THREADS_ATTR = "gemm.threads"  # the threads that share a copy, when not the whole workgroup


class UnsizedWorkgroup(ValueError):
    """A gemm.copy whose kernel does not say how many threads share it."""

    def __init__(self, op: Operation):
        super().__init__("a gemm.copy outside a gpu.func with gpu.known_block_size")
        self.op = op


def workgroup_threads(op: Operation) -> int:
    """Threads that share `op`: its gemm.threads (warp-specialize's producer warpgroup), else its
    kernel's gpu.known_block_size."""
    own = op.attributes.get(COPY_THREADS_ATTR)
    if isinstance(own, IntegerAttr):
        return own.value.data
    kernel = kernel_of(op)
    sizes = kernel.known_block_size if isinstance(kernel, gpu.FuncOp) else None
    if sizes is None:
        raise UnsizedWorkgroup(op)
    total = 1
    for s in sizes.get_values():
        total *= s
    return total


def with_copies_lowered(module):
    """`module`, or a copy of it whose gemm.copy ops are lowered: for the printers, the
    interpreter and the cost model, which take loops, on IR that `gemmc opt` left tile-level."""
    if not has_copies(module):
        return module
    module = module.clone()
    lower_copies(module)
    return module


def has_copies(root: Operation) -> bool:
    return any(isinstance(op, CopyOp) for op in root.walk())


def lower_copies(root: Operation) -> None:
    """Lower every gemm.copy under `root`, in program order (lower-copies); then commit and wait
    for the cp.async copies that NVIDIA's direct copies became."""
    wave_first: dict = {}
    copies = [o for o in root.walk() if isinstance(o, CopyOp)]
    for op in copies:
        lower_copy(op, wave_first)
    if any(op.direct is not None for op in copies):
        place_waits(root)


def lower_copy(op: CopyOp, wave_first: dict) -> None:
    """Replace `op` by its copy loops.  `wave_first` caches, per tid value, the first
    thread of each wave that direct copies need (computed once, at the kernel's top)."""
    b = KernelBuilder.before(op)
    if op.direct is not None and arch_of(op).vendor == "nvidia":
        _check_direct(op)
        async_copy(b, op)
    elif op.direct is not None:
        _check_direct(op)
        direct_copy(b, op, _wave_first(op, wave_first))
    elif op.peel is not None:
        _peeled_loops(b, op)
    else:
        _copy_loop(b, op)
    op.detach()
    op.erase()


def _copy_loop(b: KernelBuilder, op: CopyOp) -> None:
    e0, e1 = op.tile
    width = op.width.value.data
    column_first = op.column_first is not None
    lead = list(op.indices)
    if op.blocks is not None:
        def body(cb: KernelBuilder, start, idx):
            i0, i1, values = load_block(cb, op, idx, None)
            in_row(cb, op, i1, lambda y: store_block(y, values, op, lead, i0, i1))

        _over_threads(b, op, block_items(op), body, UNROLL_ATTR in op.attributes)
        return

    def body(cb: KernelBuilder, start, idx):
        i0, i1 = copy_coords(cb, idx, e0, e1, width, column_first, op.lanes_per_row)
        g0, g1 = cb.add(op.o0, i0, "g0"), cb.add(op.o1, i1, "g1")
        inside = cb.land(cb.lt(g0, op.rows), cb.lt(g1, op.cols), "in_bounds")
        if padded_lanes(op):
            inside = cb.land(inside, cb.lt(i1, cb.index(e1)))
        value = guarded_load(cb, op, [g0, g1], inside, width)
        in_row(cb, op, i1, lambda y: store_lds(y, value, op, lead, i0, i1, width))

    _over_threads(b, op, e0 * lanes_per_row(op), body, UNROLL_ATTR in op.attributes)


# -- blocks: a width x width block a thread, transposed in registers ---------------------------


def block_items(op: CopyOp) -> int:
    """Items of a `blocks` copy: its rows of blocks x the lanes each takes (lanes_per_row)."""
    return (op.tile[0] // op.width.value.data) * lanes_per_row(op)


def padded_lanes(op: CopyOp) -> int:
    """g where the copy's rows are padded to g lanes (row_lanes above a row's loads, or blocks,
    and no multiple of them: the last lanes of each row idle), else 0."""
    return padded_row(op.tile[1] // op.width.value.data, op.lanes_per_row)


def padded_row(per_row: int, g: int) -> int:
    """g where g lanes pad a row of `per_row` loads (g above them and no multiple of them), else 0."""
    return g if g > per_row and g % per_row else 0


def lanes_per_row(op: CopyOp) -> int:
    """The items a stored row takes: its loads (its blocks, with `blocks`), or the padded lanes."""
    return padded_lanes(op) or op.tile[1] // op.width.value.data


def in_row(b: KernelBuilder, op: CopyOp, i1, body) -> None:
    """body(b), under `i1 < the tile's row` where the copy's rows are padded (an idle lane's
    column lies past the row)."""
    if padded_lanes(op):
        b.if_(b.lt(i1, b.index(op.tile[1])), body)
    else:
        body(b)


def load_block(b: KernelBuilder, op: CopyOp, idx, guard) -> tuple:
    """Block `idx` of a `blocks` copy: its first stored row i0 and column i1, and its `width`
    vectors src[o0 + i0 + r][o1 + i1 ..], each zero where its row or columns lie outside the
    matrix (and where `guard` is false)."""
    e0, e1 = op.tile
    w = op.width.value.data
    row, i1 = copy_coords(b, idx, e0 // w, e1, w, False, op.lanes_per_row)
    row.name_hint = "block_row"
    i0 = b.mul(row, b.index(w), "i0")
    g1 = b.add(op.o1, i1, "g1")
    cols_ok = b.lt(g1, op.cols)
    if padded_lanes(op):
        cols_ok = b.land(cols_ok, b.lt(i1, b.index(e1)))
    if guard is not None:
        cols_ok = b.land(cols_ok, guard)
    values = []
    for r in range(w):
        g0 = b.add(op.o0, b.add(i0, b.index(r)), "g0")
        values.append(guarded_load(b, op, [g0, g1], b.land(b.lt(g0, op.rows), cols_ok, "in_bounds"), w))
    return i0, i1, values


def store_block(b: KernelBuilder, values: list, op: CopyOp, lead: list, i0, i1) -> None:
    """Stored column i1 + c of the block (element c of each row's vector) is LDS row i1 + c
    from column i0: one vector store each."""
    for c in range(len(values)):
        column = transposed_column(b, values, c)
        b.b.insert(vector.StoreOp(column, op.dst, lead + [b.add(i1, b.index(c)), i0]))


def transposed_column(b: KernelBuilder, rows: list, c: int) -> SSAValue:
    """[rows[0][c], rows[1][c], ...] by shuffles: element c of each pair of rows, then the pairs
    joined pairwise (each shuffle takes two vectors of one type, as clang's does)."""
    w = rows[0].type.get_shape()[0]
    el = rows[0].type.element_type
    parts = [_shuffle(b, rows[r], rows[r + 1], [c, w + c], el) for r in range(0, len(rows), 2)]
    while len(parts) > 1:
        n = parts[0].type.get_shape()[0]
        parts = [_shuffle(b, parts[i], parts[i + 1], list(range(2 * n)), el) for i in range(0, len(parts), 2)]
    return parts[0]


def _shuffle(b: KernelBuilder, v1, v2, mask: list[int], el) -> SSAValue:
    return b.op(vector.ShuffleOp(v1, v2, DenseArrayBase.from_list(i64, mask),
                                 result_type=VectorType(el, [len(mask)])), "col")


def _peeled_loops(b: KernelBuilder, op: CopyOp) -> None:
    """A peeled copy: its interior vectors, then its rows' head and tail elements."""
    for items in peeled_items(op):
        def body(cb: KernelBuilder, start, idx, items=items):
            items.store(cb, items.load(cb, idx, None), list(op.indices))
        _over_threads(b, op, items.total, body, UNROLL_ATTR in op.attributes)


class PeeledItems:
    """One item space of a peeled copy (see the module docstring): `total` items; `load`
    gives an item's values (loaded, or zeros), `store` writes them where they belong."""

    def __init__(self, op: CopyOp, interior: bool):
        self.op, self.interior = op, interior
        e0, e1 = op.tile
        self.width = op.width.value.data
        self.per_row = e1 // self.width if interior else self.width
        self.total = e0 * self.per_row
        self.column_first = op.column_first is not None

    def load(self, b: KernelBuilder, idx, guard) -> _PeeledItem:
        op, w = self.op, self.width
        if self.column_first:  # consecutive lanes on consecutive rows: consecutive words of a transposed tile
            e0 = op.tile[0]
            i0 = b.op(arith.RemUIOp(idx, b.index(e0)), "i0")
            j = b.op(arith.DivUIOp(idx, b.index(e0)), "j")
        else:
            i0 = b.op(arith.DivUIOp(idx, b.index(self.per_row)), "i0")
            j = b.op(arith.RemUIOp(idx, b.index(self.per_row)), "j")
        g0 = b.add(op.o0, i0, "g0")
        head = _row_head(b, op, g0, w)
        rows_ok = b.lt(g0, op.rows)
        if self.interior:
            c = b.add(b.mul(j, b.index(w)), head, "c")
            active = b.lt(c, b.index(op.tile[1] - w + 1), "whole")  # the vector lies in the tile's row
        else:  # the head's columns 0 .. head, then the tail's e1 - w + head .. e1
            in_head = b.lt(j, head)
            c = b.op(arith.SelectOp(in_head, j, b.add(j, b.index(op.tile[1] - w))), "c")
            active = b.lt(b.index(0), head, "misaligned")
        if guard is not None:
            active = b.land(active, guard)
        ok = b.land(active, rows_ok)
        gc = b.add(op.o1, c, "gc")
        if not self.interior:
            inside = b.land(ok, b.lt(gc, op.cols), "in_bounds")
            return _PeeledItem(i0, c, active, [guarded_load(b, op, [g0, gc], inside, 1)])
        last = b.add(gc, b.index(w - 1))
        whole = b.land(ok, b.lt(last, op.cols), "in_bounds")  # all `w` elements in the matrix
        return _PeeledItem(i0, c, active, _vector_or_elements(b, op, g0, gc, whole, ok, w))

    def store(self, b: KernelBuilder, item: _PeeledItem, lead: list) -> None:
        op = self.op

        def write(sb: KernelBuilder):
            for e, x in enumerate(item.values):
                col = sb.add(item.col, sb.index(e))
                sb.store(x, op.dst, lead + list(op.dst_index(item.i0, col)))

        b.if_(item.active, write)


class _PeeledItem:
    """One item's tile row i0 and first column, whether it stores (`active`), its values."""

    def __init__(self, i0, col, active, values):
        self.i0, self.col, self.active, self.values = i0, col, active, values


def peeled_items(op: CopyOp) -> list[PeeledItems]:
    return [PeeledItems(op, True), PeeledItems(op, False)]


def _row_head(b: KernelBuilder, op: CopyOp, g0, w: int):
    """Elements from the tile's first column in row g0 to the row's first `w`-aligned
    address: (w - (g0 * ld + o1) mod w) mod w, ld being the source's row length."""
    rank = op.src.type.get_num_dims()
    ld = b.dim(op.src, rank - 1, None)
    if op.group is not None:  # the row of src[group] in the whole array
        g0 = b.add(b.mul(op.group, b.dim(op.src, 1, None)), g0)
    start = b.add(b.mul(g0, ld), op.o1)
    mis = b.op(arith.RemUIOp(start, b.index(w)))
    return b.op(arith.RemUIOp(b.sub(b.index(w), mis), b.index(w)), "head")


def _vector_or_elements(b: KernelBuilder, op: CopyOp, g0, gc, whole, ok, w: int) -> list:
    """The `w` elements at src[g0][gc ..]: one aligned vector load where all lie in the
    matrix, else each loaded where it lies in the matrix (zero elsewhere)."""
    el = op.src.type.element_type
    then_block, else_block = Block(), Block()
    tb, eb = b.nested(then_block), b.nested(else_block)
    load = vector.LoadOp(op.src, op.src_index(g0, gc), VectorType(el, [w]))
    _carry_role(op, load)
    v = tb.op(load, "v")
    tb.b.insert(scf.YieldOp(*[tb.op(vector.ExtractOp(v, [e], el)) for e in range(w)]))
    parts = []
    for e in range(w):
        col = eb.add(gc, eb.index(e))
        parts.append(guarded_load(eb, op, [g0, col], eb.land(ok, eb.lt(col, op.cols)), 1))
    eb.b.insert(scf.YieldOp(*parts))
    guard = scf.IfOp(whole, [el] * w, [then_block], [else_block])
    b.b.insert(guard)
    for r in guard.results:
        r.name_hint = "x"
    return list(guard.results)


def _carry_role(op: CopyOp, load: Operation) -> None:
    for name in (ROLE_ATTR, TRANSPOSED_ATTR):
        if name in op.attributes:
            load.attributes[name] = op.attributes[name]


def _over_threads(b: KernelBuilder, op: CopyOp, total: int, body, unroll: bool) -> None:
    """body(builder, start, idx) for each item idx = start + tid below `total`, start running
    over multiples of the workgroup's threads: no loop when one pass covers the items, no
    guard when the threads divide them."""
    threads = workgroup_threads(op)
    iters = -(-total // threads)

    def step(ib: KernelBuilder, it, _):
        start = ib.mul(it, ib.index(threads))
        idx = ib.add(start, op.tid, "idx")
        if total % threads == 0:
            body(ib, start, idx)
        else:
            ib.if_(ib.lt(idx, ib.index(total)), lambda cb: body(cb, start, idx))
        return []

    if iters == 1:
        step(b, b.index(0), [])
        return
    loop = b.for_(b.index(0), b.index(iters), b.index(1), [], step, "it")
    if unroll:  # the copy's loop unrolled like the compute's
        loop.attributes[UNROLL_ATTR] = UnitAttr()


def copy_coords(b: KernelBuilder, idx, e0: int, e1: int, width: int, column_first: bool,
                row_lanes: int = 0) -> tuple:
    """The stored-tile coordinates (i0, i1) that copy element `idx` covers.

    Row by row (i1 fastest: consecutive threads read consecutive global addresses),
    except for a copy marked `column_first` (a scalar copy into a transposed tile; double-
    buffer marks it where the arch's `transposed_copy_column_first` says so): there i0 runs
    fastest, as in the tutorial's kernels, so that consecutive threads write consecutive
    LDS words rather than words e0 apart in a few banks, while their loads are a row apart.
    With `row_lanes` = g (the copy's row_lanes), g threads along a row, then down the rows:
    each g consecutive loads still fill whole cache-line pieces of one row; a g above the row's
    loads and no multiple of them pads each row to g lanes (i1 then runs past the row on the
    idle ones, which the callers guard: padded_lanes)."""
    if column_first:
        i0 = b.op(arith.RemUIOp(idx, b.index(e0)), "i0")
        return i0, b.op(arith.DivUIOp(idx, b.index(e0)), "i1")
    per_row = e1 // width
    if row_lanes and row_lanes < per_row:
        return _row_segment_coords(b, idx, e0, width, row_lanes)
    per_row = padded_row(per_row, row_lanes) or per_row
    i0 = b.op(arith.DivUIOp(idx, b.index(per_row)), "i0")
    lane = b.op(arith.RemUIOp(idx, b.index(per_row)), "i1" if width == 1 else None)
    return i0, lane if width == 1 else b.mul(lane, b.index(width), "i1")


def _row_segment_coords(b: KernelBuilder, idx, e0: int, width: int, g: int) -> tuple:
    """idx = (segment * e0 + i0) * g + lane: lane-th load of the segment-th g loads of row i0."""
    lane = b.op(arith.RemUIOp(idx, b.index(g)))
    run = b.op(arith.DivUIOp(idx, b.index(g)))
    i0 = b.op(arith.RemUIOp(run, b.index(e0)), "i0")
    segment = b.op(arith.DivUIOp(run, b.index(e0)))
    column = b.add(b.mul(segment, b.index(g)), lane)
    return i0, column if width == 1 else b.mul(column, b.index(width), "i1")


def guarded_load(b: KernelBuilder, op: CopyOp, idx, inside, width: int) -> SSAValue:
    """`inside ? src[idx] : 0` (a vector of `width` elements when width > 1); the load
    carries the copy's gemm.role and gemm.transposed."""
    src = op.src
    el = src.type.element_type
    t = el if width == 1 else VectorType(el, [width])
    then_block, else_block = Block(), Block()
    tb, eb = b.nested(then_block), b.nested(else_block)
    idx = op.src_index(*idx)
    load = memref.LoadOp.get(src, idx) if width == 1 else vector.LoadOp(src, idx, t)
    _carry_role(op, load)
    v = tb.op(load, "v")
    tb.b.insert(scf.YieldOp(v))
    z = eb.float(0.0, el)
    if width > 1:
        z = eb.op(vector.BroadcastOp(z, t))
    eb.b.insert(scf.YieldOp(z))
    guard = scf.IfOp(inside, [t], [then_block], [else_block])
    b.b.insert(guard)
    guard.results[0].name_hint = "v"
    return guard.results[0]


def store_lds(b: KernelBuilder, value, op: CopyOp, lead: list, i0, i1, width: int) -> None:
    """dst[lead..., i0, i1] = value (dst[lead..., i1, i0] with transpose): one vector
    store when the LDS row runs along the stored row, else element by element."""
    dst = op.dst
    if width == 1:
        b.store(value, dst, lead + list(op.dst_index(i0, i1)))
        return
    if op.transpose is None:
        b.b.insert(vector.StoreOp(value, dst, lead + [i0, i1]))
        return
    for e in range(width):
        x = b.op(vector.ExtractOp(value, [e], value.type.element_type))
        b.store(x, dst, lead + list(op.dst_index(i0, b.add(i1, b.index(e)))))


def staged_copy(b: KernelBuilder, op: CopyOp, guard: SSAValue, threads: int) -> list[Callable]:
    """The loads of `op` by `threads` threads now, unrolled and guarded by `guard` too;
    their LDS stores as closures taking the destination's leading indices, to be emitted
    later (double buffering through registers)."""
    if op.peel is not None:
        return _staged_peeled(b, op, guard, threads)
    if op.blocks is not None:
        return _staged_blocks(b, op, guard, threads)
    e0, e1 = op.tile
    width = op.width.value.data
    total = e0 * lanes_per_row(op)
    pending = []
    for it in range(-(-total // threads)):
        idx = b.add(op.tid, b.index(it * threads), "idx")
        i0, i1 = copy_coords(b, idx, e0, e1, width, False, op.lanes_per_row)
        g0, g1 = b.add(op.o0, i0, "g0"), b.add(op.o1, i1, "g1")
        inside = b.land(b.land(b.lt(g0, op.rows), b.lt(g1, op.cols)), guard, "in_bounds")
        if total % threads:
            inside = b.land(inside, b.lt(idx, b.index(total)))
        if padded_lanes(op):
            inside = b.land(inside, b.lt(i1, b.index(e1)))
        value = guarded_load(b, op, [g0, g1], inside, width)

        def store(x: KernelBuilder, lead, value=value, i0=i0, i1=i1, idx=idx):
            _stored_item(x, op, idx, i1, total, threads, lambda y: store_lds(y, value, op, list(lead), i0, i1, width))

        pending.append(store)
    return pending


def _staged_blocks(b: KernelBuilder, op: CopyOp, guard: SSAValue, threads: int) -> list[Callable]:
    """staged_copy of a `blocks` copy: each block's loads now, its transpose and stores later."""
    total = block_items(op)
    pending = []
    for it in range(-(-total // threads)):
        idx = b.add(op.tid, b.index(it * threads), "idx")
        g = guard
        if total % threads:
            g = b.land(g, b.lt(idx, b.index(total)))
        i0, i1, values = load_block(b, op, idx, g)

        def store(x: KernelBuilder, lead, i0=i0, i1=i1, values=values, idx=idx):
            _stored_item(x, op, idx, i1, total, threads, lambda y: store_block(y, values, op, list(lead), i0, i1))

        pending.append(store)
    return pending


def _stored_item(b: KernelBuilder, op: CopyOp, idx, i1, total: int, threads: int, body) -> None:
    """A staged item's stores, body(b): under idx < total where the threads do not divide the
    items, and inside its row where the rows are padded (in_row)."""
    if total % threads:
        b.if_(b.lt(idx, b.index(total)), lambda y: in_row(y, op, i1, body))
    else:
        in_row(b, op, i1, body)


def _staged_peeled(b: KernelBuilder, op: CopyOp, guard: SSAValue, threads: int) -> list[Callable]:
    """staged_copy of a peeled copy: each item space's loads now, their stores later."""
    pending = []
    for items in peeled_items(op):
        for it in range(-(-items.total // threads)):
            idx = b.add(op.tid, b.index(it * threads), "idx")
            g = guard
            if items.total % threads:
                g = b.land(g, b.lt(idx, b.index(items.total)))
            item = items.load(b, idx, g)
            pending.append(lambda x, lead, items=items, item=item: items.store(x, item, list(lead)))
    return pending


# -- global_load_lds ---------------------------------------------------------------------


def _wave_first(op: CopyOp, cache: dict) -> SSAValue:
    """tid - tid % wave, built once per tid right after tid is defined (stream-k defines it
    inside its loop over tiles), so that it dominates every copy that uses tid."""
    if op.tid in cache:
        return cache[op.tid]
    tid = op.tid
    if isinstance(tid, OpResult):
        kb = KernelBuilder(InsertPoint.after(tid.op))
    else:
        kb = KernelBuilder(InsertPoint.at_start(tid.block))
    wave = arch_of(op).wave_size
    lane = kb.op(arith.RemUIOp(op.tid, kb.index(wave)), "lane")
    cache[op.tid] = kb.sub(op.tid, lane, "wave_first")
    return cache[op.tid]


def _check_direct(op: CopyOp) -> None:
    """A `direct` copy that a pass after direct-to-lds changed (register tiling transposing
    its tile, say) so that its words no longer go by global_load_lds: a located error."""
    reason = direct_unproven(op)
    if reason is not None:
        how = "cp.async" if arch_of(op).vendor == "nvidia" else "global_load_lds"
        raise pass_error("lower-copies", op, f"a direct copy cannot be moved by {how}: {reason}; "
                         "run direct-to-lds after the passes that change its tile")


def direct_copy(b: KernelBuilder, op: CopyOp, wave_first: SSAValue) -> None:
    """Copy a tile to LDS with amdgpu.gather_to_lds: transfer `idx` (one 4-byte word of
    the LDS tile, in LDS order: elements per * idx .., per = direct_per_lane) is lane
    idx % wave of its wave, so a wave fills consecutive words; transfers outside the
    matrix write zeros instead.  The words must be proven (direct_unproven)."""
    e0, e1 = op.tile
    lds = op.dst
    L1 = lds.type.get_shape()[-1]
    elem = lds.type.element_type
    per = direct_per_lane(elem)
    transfer = elem if per == 1 else VectorType(elem, [per])
    lead = list(op.indices)

    def body(cb: KernelBuilder, start, idx):
        e = cb.mul(idx, cb.index(per))
        l0 = cb.op(arith.DivUIOp(e, cb.index(L1)), "l0")
        l1 = cb.op(arith.RemUIOp(e, cb.index(L1)), "l1")
        s0, s1 = op.dst_index(l0, l1)  # LDS (l0, l1) holds stored (s0, s1)
        g0, g1 = cb.add(op.o0, s0, "g0"), cb.add(op.o1, s1, "g1")
        inside = cb.land(cb.lt(g0, op.rows), cb.lt(g1, op.cols), "in_bounds")

        def load(tb: KernelBuilder):
            first = tb.add(start, wave_first, "chunk")  # the wave's first word: uniform in the wave
            base = tb.mul(first, tb.index(per))
            b0 = tb.op(arith.DivUIOp(base, tb.index(L1)), "b0")
            b1 = tb.op(arith.RemUIOp(base, tb.index(L1)), "b1")
            gather = GatherToLDSOp(op.src, op.src_index(g0, g1), lds, lead + [b0, b1], transfer)
            for name in (ROLE_ATTR, TRANSPOSED_ATTR):
                if name in op.attributes:
                    gather.attributes[name] = op.attributes[name]
            tb.b.insert(gather)

        def zero(eb: KernelBuilder):
            z = eb.float(0.0, elem)
            if per == 1:
                eb.store(z, lds, lead + [l0, l1])
            else:
                zv = eb.op(vector.BroadcastOp(z, transfer))
                eb.b.insert(vector.StoreOp(zv, lds, lead + [l0, l1]))

        _if_else(cb, inside, load, zero)

    _over_threads(b, op, e0 * e1 // per, body, False)


# -- cp.async ------------------------------------------------------------------------------


def async_copy(b: KernelBuilder, op: CopyOp) -> None:
    """Copy a tile to shared memory with nvgpu.device_async_copy, a 16-byte chunk a lane: chunk
    `idx` is stored row i0 = idx / chunks-a-row, columns i1 .. i1 + per; it reads the elements
    that lie in the matrix (none past its rows, up to its row's end: cp.async's src-size, the
    rest zero-filled) from a clamped source address (the tile's origin where it reads none).
    The chunks must be proven (async_unproven)."""
    e0, e1 = op.tile
    per = ASYNC_BYTES // ELEMENT_BYTES[str(op.dst.type.element_type)]
    lead = list(op.indices)

    def body(cb: KernelBuilder, start, idx):
        i0 = cb.op(arith.DivUIOp(idx, cb.index(e1 // per)), "i0")
        i1 = cb.mul(cb.op(arith.RemUIOp(idx, cb.index(e1 // per))), cb.index(per), "i1")
        g0, g1 = cb.add(op.o0, i0, "g0"), cb.add(op.o1, i1, "g1")
        inside = cb.land(cb.lt(g0, op.rows), cb.lt(g1, op.cols), "in_bounds")
        left = cb.op(arith.SelectOp(inside, cb.sub(op.cols, g1), cb.index(0)))
        count = cb.op(arith.MinUIOp(left, cb.index(per)), "src_elements")
        src = [cb.op(arith.SelectOp(inside, g, o)) for g, o in ((g0, op.o0), (g1, op.o1))]
        copy = DeviceAsyncCopyOp(op.src, op.src_index(*src), op.dst, lead + [i0, i1], per, count)
        for name in (ROLE_ATTR, TRANSPOSED_ATTR):
            if name in op.attributes:
                copy.attributes[name] = op.attributes[name]
        cb.b.insert(copy)

    _over_threads(b, op, e0 * (e1 // per), body, UNROLL_ATTR in op.attributes)


def _if_else(b: KernelBuilder, cond: SSAValue, then, otherwise) -> scf.IfOp:
    blocks = []
    for fill in (then, otherwise):
        block = Block()
        inner = b.nested(block)
        fill(inner)
        inner.b.insert(scf.YieldOp())
        blocks.append(block)
    op = scf.IfOp(cond, [], [blocks[0]], [blocks[1]])
    b.b.insert(op)
    return op
