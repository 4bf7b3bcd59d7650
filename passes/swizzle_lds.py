"""swizzle-lds: XOR-swizzle LDS rows so that a column walk touches every bank.

Expects: kernel IR with LDS buffers (memref.alloca/alloc in address space 3) of rank >= 2
whose every use is an element access (memref.load/store, vector.load/store), and whose
rows hold a power-of-two number (>= 2) of `vector`-element chunks.
Produces: element [.., r, j] of each chosen buffer lives at [.., r, j'] with
    j' = ((j / v) xor (r mod c)) * v + j mod v     (v = `vector`, c = row length / v)
that is, row r permutes its v-element chunks by XOR with r.  With rows=g > 1, g consecutive
rows are swizzled as one line of g*c chunks (a row shorter than the LDS bank line shares the
banks with its neighbours, so the XOR must reach across them):
    p  = (r mod g) * c + j / v                (the chunk's place in its line)
    p' = p xor ((r / g) mod (g * c))
    [.., r, j] -> [.., r - r mod g + p' / c, (p' mod c) * v + j mod v]
The buffer keeps its type;
every access gets j' computed in front of it (arith divui/remui/xori/muli/addi), so the
change is visible and local.  Chunks stay whole, so a vector access of w | v elements that
starts at a multiple of w stays one contiguous access.  Rows that a transposed copy or a
k-major fragment read walk down one column then spread over c chunks (banks).
Options: vector (elements per chunk; 0: the widest access to the buffer), rows (rows
XORed as one line; default 1, each row by itself; 0: as many rows as fill the arch's bank
line, lds_banks x lds_bank_bytes, e.g. four 32-byte rows of 16 f16 on gfx942: the line a
fragment read of consecutive rows then covers without conflicts), buffers (SSA
names; all LDS buffers when empty), strict (true: a buffer that cannot be swizzled is an
error; false: it keeps its layout, as vectorize keeps scalar copies it cannot prove, which
lets a default pipeline swizzle whatever each kernel allows), fold (true: the key is not
the line's index mod K (K = c, or g*c with rows=g) but all its base-K digits XORed, so lines
K apart, or a multiple of K/2 apart, get different keys: an 8x8 FP8 block's stores put
one row of each of 32 blocks, 8 rows apart, into one instruction; without fold those share
keys (16 of 32 on gfx950's 64 banks: 2-way conflicts; 4 of 16 on gfx942's 32: 4-way).  Lines within one aligned run of K
keep distinct keys, so the fragment reads stay as they were.  Default false: the extra index
arithmetic costs where nothing strides that far).
mode=sw128 lays out instead the buffers that nvgpu.wgmma_desc reads (and only those) as Hopper's
warpgroup MMA reads them with the descriptors' 128-byte swizzle (gemmc.target.wgmma.physical_byte,
CUTLASS's Swizzle<3,4,3>): a [.., R, C] tile of 16-bit elements becomes C / 64 panels of R rows of 128
bytes (one panel where C = 64), and the 16-byte chunk c of row r lies at chunk c ^ (r mod 8); every
access, the descriptors' starts included, gets its [.., r', j'] in that buffer.  It expects rows of a
multiple of 128 bytes, R a multiple of 8, descriptors whose strides are those of this layout
(SBO 1024; an MN-major one's LBO R x 128 bytes), accesses no wider than a 16-byte chunk; the xor mode
refuses a buffer that wgmma reads (its descriptors name the 128-byte swizzle).
Diagnostics, each naming the op: a buffer of rank < 2; rows that are not a power-of-two
number of chunks; rows=g that is not a power of two or does not divide the row count; a use that is not an element access (amdgpu.gather_to_lds writes a
wave's words in order); a vector access wider than a chunk, or whose column index is not
provably a multiple of its width (it could straddle two chunks).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, i32
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from gemmc.support.diagnostics import GemmcError, pass_error
from gemmc.transforms.kernel_builder import index_constant
from gemmc.transforms.lds_access import Access, accesses, known_multiple, select_allocs, set_indices
from gemmc.target.resources import device_bytes
from gemmc.target.module_arch import target_of
from gemmc.target import wgmma
from gemmc.dialects.nvgpu import WgmmaDescOp


@dataclass(frozen=True)
class SwizzleLdsPass(ModulePass):
    name = "swizzle-lds"

    vector: int = 0
    rows: int = 1
    buffers: tuple[str, ...] = ()
    strict: bool = True
    fold: bool = False
    mode: str = "xor"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.vector < 0:
            raise pass_error(self.name, op, f"vector={self.vector} must be positive (0: the widest access)")
        if self.rows < 0:
            raise pass_error(self.name, op, f"rows={self.rows} must be positive (0: the arch's bank line)")
        if self.mode not in ("xor", "sw128"):
            raise pass_error(self.name, op, f"mode={self.mode}: expected xor or sw128")
        arch = target_of(op)
        for alloc in select_allocs(op, tuple(self.buffers), self.name):
            read_by_wgmma = any(isinstance(u.operation, WgmmaDescOp) for u in alloc.results[0].uses)
            if self.mode == "sw128" and not read_by_wgmma:
                continue
            try:
                if self.mode == "sw128":
                    self._sw128(alloc)
                    continue
                if read_by_wgmma:
                    raise pass_error(self.name, alloc, f"%{alloc.results[0].name_hint or 'buffer'} is read by "
                                     "wgmma descriptors, which name the 128-byte swizzle: use mode=sw128")
                self._swizzle(alloc, arch)
            except GemmcError:
                if self.strict:
                    raise

    def _swizzle(self, alloc: Operation, arch) -> None:
        shape = alloc.results[0].type.get_shape()
        name = alloc.results[0].name_hint or "buffer"
        if len(shape) < 2:
            raise pass_error(self.name, alloc, f"%{name} has rank {len(shape)}; swizzling needs rows (rank >= 2)")
        found = accesses(alloc, self.name)
        v = self.vector or max((a.width for a in found), default=1)
        chunks = shape[-1] // v
        if shape[-1] % v or chunks < 2 or chunks & (chunks - 1):
            raise pass_error(
                self.name, alloc,
                f"rows of %{name} hold {shape[-1]} elements, not a power-of-two number (>= 2) of {v}-element chunks",
            )
        g = self._line_rows(alloc, shape, arch)
        for a in found:
            self._check(a, v, name)
        for a in found:
            if g == 1:
                set_indices(a, [*a.indices[:-1], _swizzled_column(a, v, chunks, self._folded_rows(shape[-2]))])
            else:
                set_indices(a, [*a.indices[:-2], *_swizzled_line(a, v, chunks, g, self._folded_rows(shape[-2]))])

    def _sw128(self, alloc: Operation) -> None:
        """The 128-byte swizzle of a tile wgmma reads (module docstring)."""
        t = alloc.results[0].type
        shape, name = t.get_shape(), alloc.results[0].name_hint or "buffer"
        eb = device_bytes(t.get_element_type())
        rows, cols = shape[-2:] if len(shape) >= 2 else (1, shape[-1])
        problem = wgmma.layout_problem(rows, cols, eb) if len(shape) >= 2 else "it has no rows"
        if problem:
            raise pass_error(self.name, alloc, f"%{name} cannot take wgmma's 128-byte swizzle: {problem}")
        v = wgmma.CHUNK_BYTES // eb
        found = accesses(alloc, self.name)
        for a in found:
            if a.whole_box:
                self._check_box(a, rows, eb, name)
                continue
            self._check(a, v, name)
            if isinstance(a.op, WgmmaDescOp):
                major, lbo, sbo, swz = a.op.fields
                want = wgmma.strides(major, rows, eb)
                if swz != wgmma.SWIZZLE_BYTES or (sbo != want[1]) or (major == "mn" and lbo != want[0]):
                    raise pass_error(self.name, a.op, f"this {major}-major descriptor of %{name} (swizzle {swz}, LBO "
                                     f"{lbo}, SBO {sbo}) does not read the 128-byte swizzle of a {rows}-row tile "
                                     f"(LBO {want[0]}, SBO {want[1]})")
        for a in found:
            set_indices(a, [*a.indices[:-2], *_sw128_indices(a, rows, cols, eb)])
            if a.whole_box:  # the box's rows land in the swizzle at its panel's place (TMA's SWIZZLE_128B)
                a.op.properties["swizzle"] = IntegerAttr(wgmma.SWIZZLE_BYTES, i32)

    def _check_box(self, a: Access, rows: int, eb: int, name: str) -> None:
        """A TMA box lands in the 128-byte swizzle at its start's physical place only if it is one panel's
        rows: 128-byte box rows, starting at a panel's column and an atom's row, within the tile's rows."""
        box_rows, box_cols = a.op.box_shape
        per_row = wgmma.SWIZZLE_BYTES // eb
        why = ""
        if box_cols != per_row:
            why = f"its box rows are {box_cols * eb} bytes, not the swizzle's {wgmma.SWIZZLE_BYTES}"
        elif known_multiple(a.indices[-1]) % per_row:
            why = f"its column is not provably a multiple of {per_row} (a panel's start)"
        elif known_multiple(a.indices[-2]) % wgmma.ATOM_ROWS or box_rows > rows:
            why = f"its rows are not provably whole atoms of {wgmma.ATOM_ROWS} within the tile's {rows}"
        elif a.op.swizzle_bytes:
            why = "it is already swizzled"
        if why:
            raise pass_error(self.name, a.op, f"this TMA box into %{name} cannot land in the 128-byte swizzle: {why}")

    def _folded_rows(self, rows: int) -> int:
        """The rows whose lines the key tells apart digit by digit: all of them with fold=true;
        0 without (the key is the lowest digit alone)."""
        return rows if self.fold else 0

    def _line_rows(self, alloc: Operation, shape, arch) -> int:
        """g, the rows XORed as one line: the option, or (rows=0) the rows that fill the bank line."""
        name = alloc.results[0].name_hint or "buffer"
        g = self.rows
        if g == 0:
            row_bytes = shape[-1] * device_bytes(alloc.results[0].type.get_element_type())
            g = max(1, arch.lds_banks * arch.lds_bank_bytes // row_bytes)
        if g & (g - 1) or shape[-2] % g:
            raise pass_error(self.name, alloc, f"%{name} has {shape[-2]} rows; rows={g} must be a power of two "
                             "that divides them")
        return g

    def _check(self, a: Access, v: int, name: str) -> None:
        if a.whole_tile:
            raise pass_error(self.name, a.op, f"%{name} is written by gemm.copy as a whole tile, whose stores cannot be "
                             "swizzled until they exist: run lower-copies first")
        if a.wave_contiguous:
            raise pass_error(self.name, a.op, f"%{name} is written by amdgpu.gather_to_lds, whose wave writes words in order; a swizzle would need per-lane addresses")
        if a.width > v:
            raise pass_error(self.name, a.op, f"a {a.width}-element access to %{name} is wider than the {v}-element chunks (set vector={a.width})")
        if a.width > 1 and known_multiple(a.indices[-1]) % a.width:
            raise pass_error(
                self.name, a.op,
                f"the column index of this {a.width}-element access to %{name} is not provably a multiple of "
                f"{a.width}, so it could straddle two chunks",
            )


class _Ops:
    """Index arithmetic built in order, to be inserted in front of an access."""

    def __init__(self) -> None:
        self.ops: list[Operation] = []

    def emit(self, o: Operation) -> SSAValue:
        self.ops.append(o)
        return o.results[0]

    def const(self, n: int) -> SSAValue:
        return self.emit(index_constant(n))


def _folded(ops: _Ops, line: SSAValue, k: int, lines: int) -> SSAValue:
    """The XOR key of a line: its base-k digits XORed together (line < lines).  The lowest
    digit alone (line mod k) gives lines k apart, or any multiple of k/2 apart, one key:
    lanes that walk rows at such a stride (an 8x8 block's stores, one row of each block) then
    share banks; the higher digits tell them apart, and lines within one aligned run of k keep
    distinct keys as before."""
    key = ops.emit(arith.RemUIOp(line, ops.const(k)))
    reach = k
    while reach < lines:
        digit = ops.emit(arith.RemUIOp(ops.emit(arith.DivUIOp(line, ops.const(reach))), ops.const(k)))
        key = ops.emit(arith.XOrIOp(key, digit))
        reach *= k
    return key


def _swizzled_line(a: Access, v: int, chunks: int, g: int, folded_rows: int) -> tuple[SSAValue, SSAValue]:
    """(row', j') of element [r, j] when g rows form one line of g * chunks chunks (docstring)."""
    row, col = a.indices[-2], a.indices[-1]
    ops = _Ops()
    emit, const = ops.emit, ops.const

    cg, cc, cv = const(g), const(chunks), const(v)
    chunk = emit(arith.DivUIOp(col, cv)) if v > 1 else col
    within = emit(arith.RemUIOp(row, cg))
    place = emit(arith.AddiOp(emit(arith.MuliOp(within, cc)), chunk))
    phase = _folded(ops, emit(arith.DivUIOp(row, cg)), g * chunks, folded_rows // g)
    moved = emit(arith.XOrIOp(place, phase))
    new_row = emit(arith.AddiOp(emit(arith.SubiOp(row, within)), emit(arith.DivUIOp(moved, cc))))
    new_col = emit(arith.MuliOp(emit(arith.RemUIOp(moved, cc)), cv)) if v > 1 else emit(arith.RemUIOp(moved, cc))
    if v > 1:
        new_col = emit(arith.AddiOp(new_col, emit(arith.RemUIOp(col, cv))))
    new_row.name_hint, new_col.name_hint = "swz_row", "swz"
    Rewriter.insert_op(ops.ops, InsertPoint.before(a.op))
    return new_row, new_col


def _sw128_indices(a: Access, rows: int, cols: int, eb: int) -> tuple[SSAValue, SSAValue]:
    """(r', j') of element [r, j] of a [rows][cols] tile in the 128-byte swizzle (gemmc.target.wgmma.
    physical_byte, in elements): f = (j / P) R P + r P + (((j % P) / v) ^ (r % 8)) v + j % v, P the
    elements of 128 bytes, v of 16; r' = f / cols, j' = f % cols."""
    row, col = a.indices[-2], a.indices[-1]
    ops = _Ops()
    emit, const = ops.emit, ops.const
    per_row, v = wgmma.SWIZZLE_BYTES // eb, wgmma.CHUNK_BYTES // eb
    cp, cv = const(per_row), const(v)
    panel = emit(arith.DivUIOp(col, cp))
    within = emit(arith.RemUIOp(col, cp))
    chunk = emit(arith.XOrIOp(emit(arith.DivUIOp(within, cv)), emit(arith.RemUIOp(row, const(wgmma.ATOM_ROWS)))))
    flat = emit(arith.AddiOp(emit(arith.MuliOp(panel, const(rows * per_row))), emit(arith.MuliOp(row, cp))))
    flat = emit(arith.AddiOp(flat, emit(arith.AddiOp(emit(arith.MuliOp(chunk, cv)), emit(arith.RemUIOp(within, cv))))))
    ccols = const(cols)
    new_row, new_col = emit(arith.DivUIOp(flat, ccols)), emit(arith.RemUIOp(flat, ccols))
    new_row.name_hint, new_col.name_hint = "sw128_row", "sw128"
    Rewriter.insert_op(ops.ops, InsertPoint.before(a.op))
    return new_row, new_col


def _swizzled_column(a: Access, v: int, chunks: int, folded_rows: int) -> SSAValue:
    """j' = ((j / v) xor (r mod chunks)) * v + j mod v, built in front of the access."""
    row, col = a.indices[-2], a.indices[-1]
    ops = _Ops()
    emit, const = ops.emit, ops.const

    vc = const(v) if v > 1 else None
    chunk = emit(arith.DivUIOp(col, vc)) if vc else col
    phase = _folded(ops, row, chunks, folded_rows)
    moved = emit(arith.XOrIOp(chunk, phase))
    if vc:
        moved = emit(arith.AddiOp(emit(arith.MuliOp(moved, vc)), emit(arith.RemUIOp(col, vc))))
    moved.name_hint = "swz"
    Rewriter.insert_op(ops.ops, InsertPoint.before(a.op))
    return moved
