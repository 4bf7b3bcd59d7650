"""The matrix-core path of the tiled kernel writer.

gemmc.transforms.tiled_kernel writes a GEMM kernel's loop nest for a Schedule; when the schedule
names a matrix instruction (`Schedule.instr`, set by mfma-lowering / wmma-lowering) it
calls `setup`, `compute` and `epilogue` here instead of writing FMAs.  Everything about
the instruction comes from its arch description (gemmc.target.arch.MatrixInstr): shape, types and the lane layouts of A, B and D, which are
evaluated on IR values (`Ix`) to get the index arithmetic of each lane.

The body, in the schedule's names (M x N x K the instruction's shape, thread_m x
thread_n the instruction tiles of one wave, `lane` the lane in its wave):

    lane = tx % wave ; wave_row = ty * thread_m * M ; wave_col = (tx / wave) * thread_n * N
    acc = memref.alloca : memref<thread_m x thread_n x acc_len x out_type, private>  zeroed
    for t in K tiles: copy tiles to LDS; barrier
        for kk in 0 .. block_k step K:                                       (compute)
            a[ti] = vector.load tile_a[wave_row + ti*M + row_A(lane)][kk + k_A(lane)]
            b[tj] = vector.load tile_b_t[wave_col + tj*N + col_B(lane)][kk + k_B(lane)]
            acc[ti][tj] = amdgpu.mfma a[ti] * b[tj] + acc[ti][tj]   (or amdgpu.wmma)
        barrier
    for ti, tj, g:  (i, j) = D(lane, g)                                      (epilogue)
        if (block_row + wave_row + ti*M + i < M && ... < N) { sum = acc[ti][tj][g]; ... }

Each lane loads its items of A and B with one vector load per run of consecutive k's
(one run on CDNA and RDNA3; on RDNA4 k 0-3 and 8-11, or 4-7 and 12-15, two runs put
together by a vector.shuffle; on sm_90 mma.sync's A four runs of two, on rows r and r + 8;
both LDS tiles are k-contiguous after register tiling),
converting them to `frag_type` when the schedule says so (f32 LDS, f16 or bf16
fragments: the tutorial's "Case 1").  With `Schedule.ldmatrix` (sm_90, the ldmatrix pass) the
fragments come from nvgpu.ldmatrix instead, 8x8 matrices at a time (gemmc.transforms.ldmatrix_frags).
A warpgroup MMA (sm_90a's wgmma, Schedule.instr wgmma_*) has its own setup and compute
(gemmc.transforms.wgmma_kernel: A and B by shared-memory descriptors) and this epilogue.
"""

from __future__ import annotations

from xdsl.dialects import arith, vector
from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, IntegerType, MemRefType, UnitAttr, VectorType, i64
from xdsl.ir import Attribute, SSAValue

from gemmc.target.arch import Layout, MatrixInstr, get_matrix_instr
from gemmc.transforms.contraction import set_role
from gemmc.dialects.amdgpu import ScaledMFMAOp, matrix_op
from gemmc.dialects.nvgpu import MmaSyncOp
from gemmc.dialects.gemm import ELEMENT_TYPES, type_name
from gemmc.support.ir_names import PRIVATE_SPACE, ROLE_COMPUTE, UNROLL_ATTR
from gemmc.transforms import ldmatrix_frags, wgmma_kernel
from gemmc.target.wgmma import is_wgmma
from gemmc.transforms.kernel_builder import KernelBuilder, constant_value
from gemmc.target.module_arch import arch_of



class Ix:
    """An index value under construction: gemmc.target.arch.Layout evaluates on it (// % * +
    by ints) and so writes the lane's index arithmetic; constants fold."""

    def __init__(self, kb: KernelBuilder, value: SSAValue):
        self.kb, self.value = kb, value

    def _const(self) -> int | None:
        return constant_value(self.value)

    def __add__(self, other):
        if isinstance(other, int):
            other = self.kb.index(other)
        elif isinstance(other, Ix):
            other = other.value
        return Ix(self.kb, self.kb.add(self.value, other))

    __radd__ = __add__

    def __mul__(self, c: int):
        return Ix(self.kb, self.kb.mul(self.value, self.kb.index(c)))

    def __floordiv__(self, d: int):
        c = self._const()
        if c is not None:
            return Ix(self.kb, self.kb.index(c // d))
        if d == 1:
            return self
        return self._op(arith.DivUIOp, d)

    def __mod__(self, m: int):
        c = self._const()
        if c is not None:
            return Ix(self.kb, self.kb.index(c % m))
        return self._op(arith.RemUIOp, m)

    def _op(self, cls, c: int):
        """lane / 32 and lane % 32 once per builder (its block), however often layouts ask."""
        seen = self.kb.__dict__.setdefault("_ix_ops", {})
        key = (cls, id(self.value), c)
        if key not in seen:
            seen[key] = self.kb.op(cls(self.value, self.kb.index(c)))
        return Ix(self.kb, seen[key])


def ix_value(kb: KernelBuilder, x, name: str | None = None) -> SSAValue:
    """The IR value of a layout coordinate (an Ix or a plain int), named if it is computed."""
    if not isinstance(x, Ix):
        return kb.index(int(x))
    if name is not None and constant_value(x.value) is None and x.value.name_hint is None:
        x.value.name_hint = name
    return x.value


def element(name: str) -> Attribute:
    return ELEMENT_TYPES[name]()


def k_runs(layout: Layout, k_is_col: bool) -> tuple[int, tuple[int, ...]] | None:
    """How each lane's items lie along k in one row (A) or column (B): (r, offsets) when
    items q*r .. q*r + r - 1 are consecutive k's starting `offsets[q]` after item 0's k,
    the same for every lane (one run on CDNA and RDNA3; two of 4 on RDNA4); None if not, or
    where a lane's runs lie on several rows (sm_90's mma.sync A: frag_runs)."""
    runs = frag_runs(layout, k_is_col)
    if runs is None or any(row for row, _ in runs[1]):
        return None
    return runs[0], tuple(k for _, k in runs[1])


def frag_runs(layout: Layout, k_is_col: bool) -> tuple[int, tuple[tuple[int, int], ...]] | None:
    """k_runs where a lane's runs may lie on several rows of A (columns of B): (r, ((other, k), ..))
    when items q*r .. q*r + r - 1 are consecutive k's of one row, `other` rows (columns) and `k`
    k's after item 0's, the same for every lane (sm_90's mma.sync A: runs of 2 on rows 0 and 8)."""
    import numpy as np  # in the function: lit's `gemmc opt` / `compile` runs never reach it
    lanes = np.arange(layout.lanes)[:, None]
    items = np.arange(layout.items)[None, :]
    shape = (layout.lanes, layout.items)
    _, row, col = (np.broadcast_to(x, shape) for x in layout.at(lanes, items))
    k, other = (col, row) if k_is_col else (row, col)
    rel, rel_other = k - k[:, :1], other - other[:, :1]
    if not ((rel == rel[:1]).all() and (rel_other == rel_other[:1]).all()):
        return None
    rel, rel_other = rel[0], rel_other[0]
    breaks = (np.diff(rel) != 1) | (np.diff(rel_other) != 0)  # where a run ends
    steps = np.flatnonzero(breaks)
    r = int(steps[0]) + 1 if steps.size else layout.items
    if layout.items % r:
        return None
    starts = tuple((int(o), int(x)) for o, x in zip(rel_other[::r], rel[::r]))
    runs = rel.reshape(-1, r) - rel[::r][:, None]
    same_row = (rel_other.reshape(-1, r) == rel_other[::r][:, None]).all()
    return (r, starts) if (runs == np.arange(r)).all() and same_row else None


def runs_start_aligned(layout: Layout, k_is_col: bool, r: int) -> bool:
    """Every lane's runs of consecutive k's start at a multiple of their length r, as k_pack's
    interleaving of instructions' k's needs (gemmc.transforms.matrix_kernel._fragments)."""
    import numpy as np
    lanes = np.arange(layout.lanes)[:, None]
    items = np.arange(0, layout.items, r)[None, :]
    shape = (layout.lanes, items.shape[1])
    _, row, col = (np.broadcast_to(x, shape) for x in layout.at(lanes, items))
    return bool(((col if k_is_col else row) % r == 0).all())


def lane_regs(instr: MatrixInstr, tiles_m: int, tiles_n: int, k_pack: int = 1) -> int:
    """Accumulator and fragment registers per lane for a wave of tiles_m x tiles_n tiles (with
    k_pack instructions' fragments read at once)."""
    return tiles_m * tiles_n * instr.c_regs + (tiles_m * instr.a_regs + tiles_n * instr.b_regs) * k_pack


# -- the matrix-core path of tiled_kernel.Writer -------------------------------------------


def setup(w) -> None:
    """Lane and wave coordinates, the accumulator tiles (zeroed)."""
    kb, s = w.kb, w.s
    if is_wgmma(s.instr):
        wgmma_kernel.setup(w)
        return
    w.arch = arch_of(w.con.kernel)
    w.instr = instr = get_matrix_instr(w.arch, s.instr)
    if instr.formats:  # gfx950's f8f6f4 MFMAs: the formats are the kernel's types (cbsz, blgp)
        w.instr = instr = instr.with_formats(type_name(w.con.in_type), type_name(w.con.b_type))
    wave = w.arch.wave_size
    w.lane = kb.op(arith.RemUIOp(w.tx, kb.index(wave)), "lane")
    wave_n = kb.op(arith.DivUIOp(w.tx, kb.index(wave)), "wave_n")
    w.wave_row = kb.mul(w.ty, kb.index(s.thread_m * instr.m), "wave_row")
    w.wave_col = kb.mul(wave_n, kb.index(s.thread_n * instr.n), "wave_col")
    acc_t = MemRefType(element(instr.out_type), [s.thread_m, s.thread_n, instr.acc_len],
                       memory_space=IntegerAttr(PRIVATE_SPACE, 64))
    w.acc = kb.alloca(acc_t, "acc")
    zero = kb.float(0.0, element(instr.out_type), "zero")
    zeros = kb.op(vector.BroadcastOp(zero, VectorType(element(instr.out_type), [instr.acc_len])), "zeros")
    w._nest(kb, [s.thread_m, s.thread_n],
            lambda b, ij: b.b.insert(vector.StoreOp(zeros, w.acc, [*ij, b.index(0)])), ["i", "j"])
    # Where lane `lane`'s items of A and B start, relative to the wave's tile and to kk.
    lane = Ix(kb, w.lane)
    _, a_row, a_k = instr.a.at(lane, 0)
    _, b_k, b_col = instr.b.at(lane, 0)
    w.a_row = kb.add(w.wave_row, ix_value(kb, a_row), "a_row")
    w.a_k = _packed(kb, ix_value(kb, a_k, "a_k"), s.pack, "a_k")
    w.b_col = kb.add(w.wave_col, ix_value(kb, b_col), "b_col")
    w.b_k = _packed(kb, ix_value(kb, b_k, "b_k"), s.pack, "b_k")
    if s.ldmatrix:  # the lanes' row addresses instead (the element offsets above go unused)
        ldmatrix_frags.setup(w)


def _packed(kb: KernelBuilder, lane_k: SSAValue, k_pack: int, name: str) -> SSAValue:
    """Where the lane's first run of k's lies with k_pack instructions' k's interleaved
    (_fragments): k_pack times further on."""
    return lane_k if k_pack == 1 else kb.mul(lane_k, kb.index(k_pack), f"{name}_packed")


def compute(w, b: KernelBuilder, buf) -> None:
    """The block-k loop of fragment loads and matrix instructions: k_pack instructions a step
    (each lane's LDS reads hold its fragments of all of them, _fragments)."""
    if is_wgmma(w.s.instr):
        wgmma_kernel.compute(w, b, buf)
        return
    s, instr = w.s, w.instr
    lead = [buf] if buf is not None else []
    pack = s.pack
    unsigned = (w.con.unsigned_a, w.con.unsigned_b) if instr.signedness else (False, False)

    def step(x: KernelBuilder, kk, _):
        if s.ldmatrix:
            a_frags, b_frags = ldmatrix_frags.fragments(w, x, kk, lead)
        else:
            a_frags, b_frags = _element_fragments(w, x, kk, lead)
        if instr.scale_block:  # each lane's E8M0 scale of its block of A's row (B's column), op_sel 0
            a_scales = [_scales(w, x, "a", x.add(w.a_row, x.index(ti * instr.m)), x.add(kk, w.a_k))
                        for ti in range(s.thread_m)]
            b_scales = [_scales(w, x, "b", x.add(w.b_col, x.index(tj * instr.n)), x.add(kk, w.b_k))
                        for tj in range(s.thread_n)]
        for p in range(pack):
            for ti in range(s.thread_m):
                for tj in range(s.thread_n):
                    at = [x.index(ti), x.index(tj), x.index(0)]
                    c = x.op(vector.LoadOp(w.acc, at, VectorType(element(instr.out_type), [instr.acc_len])), "c")
                    if instr.scale_block:
                        d = x.op(ScaledMFMAOp(a_scales[ti], a_frags[ti][p], 0, b_scales[tj], b_frags[tj][p], 0, c,
                                              instr.m, instr.n, instr.k), "d")
                    else:
                        d = x.op(_matrix_op(instr, a_frags[ti][p], b_frags[tj][p], c, unsigned), "d")
                    x.b.insert(vector.StoreOp(d, w.acc, at))
        return []

    loop = b.for_(b.index(0), b.index(s.block_k), b.index(instr.k * pack), [], step, "kk")
    loop.attributes[UNROLL_ATTR] = UnitAttr()
    set_role(loop, ROLE_COMPUTE)


def _element_fragments(w, x: KernelBuilder, kk, lead) -> tuple[list, list]:
    """The lane's fragments of the warp's tiles at depth kk, read element run by run (_fragments)."""
    s, instr = w.s, w.instr
    a_frags = [_fragments(w, x, w.tile_a, x.add(w.a_row, x.index(ti * instr.m)), x.add(kk, w.a_k),
                          lead, instr.a, True, "a") for ti in range(s.thread_m)]
    b_frags = [_fragments(w, x, w.tile_b, x.add(w.b_col, x.index(tj * instr.n)), x.add(kk, w.b_k),
                          lead, instr.b, False, "b") for tj in range(s.thread_n)]
    return a_frags, b_frags


def _matrix_op(instr: MatrixInstr, a: SSAValue, b: SSAValue, c: SSAValue, unsigned: tuple[bool, bool]):
    """The op that issues `instr`: nvgpu.mma_sync on sm_90, amdgpu.mfma / amdgpu.wmma on AMD
    (`unsigned`: an integer WMMA's u8 operands)."""
    if instr.kind == "mma":
        return MmaSyncOp(a, b, c, instr.m, instr.n, instr.k)
    return matrix_op(instr, a, b, c, unsigned)


def _scales(w, x: KernelBuilder, operand: str, rc: SSAValue, kk: SSAValue) -> SSAValue:
    """The lane's E8M0 scale of A's row (B's column) `rc` of the block tile at tile depth `kk`,
    in all four bytes of its scale VGPR (vector<4xf8E8M0FNU>; the op picks byte 0)."""
    origin = w.row0 if operand == "a" else w.col0
    v = w.scale_at(x, operand, x.add(origin, rc), kk, convert=False)
    return x.op(vector.BroadcastOp(v, VectorType(v.type, [4])), f"s{operand}_vgpr")


def _fragments(w, x: KernelBuilder, tile: SSAValue, row: SSAValue, start: SSAValue, lead,
               layout: Layout, k_is_col: bool, name: str) -> list[SSAValue]:
    """One lane's fragments of LDS row `row` for the k_pack instructions from k `start` on:
    one vector load per run of consecutive k's (or per frag_read piece), the runs put together
    in item order, converted if asked.  With k_pack = P > 1 the P instructions' k's interleave:
    the lane's run that starts at k s (a multiple of the run length r) lies at s * P, and
    instruction p takes its elements p * r .. p * r + r - 1, so each read holds P runs.  A
    reduction over k does not see the order, as A's and B's fragments take the same one."""
    lds_elem = tile.type.element_type
    pack = w.s.pack
    runs = frag_runs(layout, k_is_col)
    assert runs is not None  # (plan checked it)
    r, offsets = runs
    width, pieces = _read_pieces(r * pack, tuple((o, off * pack) for o, off in offsets), w.s.frag_read)

    def at(base: SSAValue, off: int) -> SSAValue:
        return base if off == 0 else x.add(base, x.index(off))

    if width == 1 and len(pieces) == 1:
        v = x.load(tile, lead + [row, start], name)
    else:
        parts = [x.op(vector.LoadOp(tile, lead + [at(row, o), at(start, off)], VectorType(lds_elem, [width])),
                      name if len(pieces) == 1 else f"{name}{q}")
                 for q, (o, off) in enumerate(pieces)]
        while len(parts) > 1:  # pairwise, so that each shuffle joins two vectors of one type (as HIP's needs)
            joined = [_join(x, parts[i], parts[i + 1], lds_elem, name) for i in range(0, len(parts) - 1, 2)]
            parts = joined + parts[len(parts) - len(parts) % 2:]
        v = parts[0]
    frags = [v] if pack == 1 else [_instr_items(x, v, p, r, pack, layout.items, lds_elem, name) for p in range(pack)]
    if isinstance(lds_elem, IntegerType) and lds_elem.width.data == 4 and w.instr.in_type == "i8":
        frags = [_widen_int4(x, f, w.con.unsigned_a if name == "a" else w.con.unsigned_b, name) for f in frags]
    if w.s.frag_type and w.s.frag_type != type_name(lds_elem):
        to = element(w.s.frag_type)
        items = layout.items
        frags = [x.op(arith.TruncFOp(f, VectorType(to, [items]) if items > 1 else to), f"{name}_{w.s.frag_type}")
                 for f in frags]
    return frags


def _widen_int4(x: KernelBuilder, f: SSAValue, unsigned: bool, name: str) -> SSAValue:
    """An i4 / u4 fragment as the i8 MFMAs take it (CDNA has no int4 MFMA, Arch.int4_frags):
    each nibble sign- or zero-extended to a byte by its operand's signedness (both fit a signed
    byte, so the signed i8 MFMA multiplies a u4 exactly).  Element by element: arith's
    extensions take scalars."""
    i8 = IntegerType(8)

    def widen(e: SSAValue) -> SSAValue:
        return x.op(arith.ExtUIOp(e, i8) if unsigned else arith.ExtSIOp(e, i8), f"{name}_i8")

    if not isinstance(f.type, VectorType):
        return widen(f)
    n = f.type.get_shape()[0]
    v = x.op(vector.BroadcastOp(x.float(0, i8), VectorType(i8, [n])), f"{name}_i8")
    for e in range(n):
        v = x.op(vector.InsertOp(widen(x.op(vector.ExtractOp(f, [e], f.type.element_type))), v, [e]), f"{name}_i8")
    return v


def _instr_items(x: KernelBuilder, v: SSAValue, p: int, r: int, pack: int, items: int, elem, name: str) -> SSAValue:
    """Instruction p's items of a lane's packed fragment `v` (runs of r * pack elements):
    elements p * r .. p * r + r - 1 of each run."""
    if items == 1:
        return x.op(vector.ExtractOp(v, [p], result_type=elem), f"{name}_p{p}")
    mask = [q * r * pack + p * r + i for q in range(items // r) for i in range(r)]
    return x.op(vector.ShuffleOp(v, v, DenseArrayBase.from_list(i64, mask), result_type=VectorType(elem, [items])),
                f"{name}_p{p}")


def _join(x: KernelBuilder, a: SSAValue, b: SSAValue, elem, name: str) -> SSAValue:
    """a and b's elements in order, one vector."""
    width = a.type.get_shape()[0] + b.type.get_shape()[0]
    return x.op(vector.ShuffleOp(a, b, DenseArrayBase.from_list(i64, list(range(width))),
                                 result_type=VectorType(elem, [width])), name)


def _read_pieces(r: int, offsets: tuple[tuple[int, int], ...],
                 frag_read: int) -> tuple[int, tuple[tuple[int, int], ...]]:
    """The runs of `r` consecutive k's, each at (rows, k's) after the lane's first, cut into reads
    of `frag_read` elements (0: whole)."""
    if not frag_read or frag_read >= r:
        return r, offsets
    return frag_read, tuple((o, off + i) for o, off in offsets for i in range(0, r, frag_read))


def epilogue(w) -> None:
    """C from the accumulator layout: lane `lane`'s item g of tile (ti, tj), element
    g * d_stride of its accumulator vector (RDNA3's 16-bit results: the even elements)."""
    s, instr, kb = w.s, w.instr, w.kb
    _, i_lane, j_lane = instr.d.at(Ix(kb, w.lane), 0)
    row_base = kb.add(w.row0, kb.add(w.wave_row, ix_value(kb, i_lane)), "lane_row")
    col_base = kb.add(w.col0, kb.add(w.wave_col, ix_value(kb, j_lane)), "lane_col")

    def store(b: KernelBuilder, ijg):
        ti, tj, g = ijg
        _, i_reg, j_reg = instr.d.at(0, Ix(b, g))
        r = b.add(row_base, b.add(b.mul(ti, b.index(instr.m)), ix_value(b, i_reg)), "r")
        c = b.add(col_base, b.add(b.mul(tj, b.index(instr.n)), ix_value(b, j_reg)), "c")
        w.guarded_epilogue(b, r, c, [ti, tj, g if instr.d_stride == 1 else b.mul(g, b.index(instr.d_stride))])

    w._nest(kb, [s.thread_m, s.thread_n, instr.d.items], store, ["ti", "tj", "g"])


# -- direct-to-LDS copies ------------------------------------------------------------------
