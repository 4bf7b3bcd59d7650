"""vectorize: the tutorial's step 5, global->LDS copies as 2- or 4-element vector loads.

Expects: kernel IR with gemm.copy ops (lds-tiling's copies, before lower-copies); after a matrix-core
pass, its epilogue loop as gemmc.transforms.matrix_kernel.epilogue writes it.
Produces: the matrix-core epilogue's stores by pairs where the layout pairs items (`stores`, below), and
each chosen copy with `width` set: lower-copies then loads
`width` consecutive elements of a stored row with one `vector.load`, and writes them to
LDS with one `vector.store` when the LDS row runs the same way, or element by element
when it does not (B^T after register tiling).

The alignment proof, from the copy's own operands: the tile's rows (its second extent)
are a multiple of `width`, the column origin is provably a multiple of `width`
(gemmc.transforms.lds_access.known_multiple), and the source's row length is a static multiple of
`width` (or one that gemm.assume_rows_aligned asserts); then every vector starts aligned and
lies wholly inside or wholly outside the matrix, so the bounds guard stays exact.  A
vector stored along the LDS row also needs that row's length to be a multiple of `width`.
A copy whose tile rows are a multiple of `width` but whose alignment this does not prove
(an odd or dynamic row length: 4097x4095x1023) is marked `peel` (with peel=true, the
default): lower-copies then loads each row's aligned interior by vectors, its misaligned
head and tail and the matrix edge element by element, and stores to LDS element by
element (gemmc/transforms/copy_lowering.py); not a batched operand's whose matrices may start anywhere
(rows x row length not a multiple of `width`: gemmc.transforms.batch), nor an i4 / u4 copy, whose packed
rows a peeled vector would enter mid-byte: those stay scalar.  That a peeled vector starts aligned is then a fact
of its index sum, not of any one index: gemmc's own AMDGCN backend proves it with
gemmc.transforms.residues before it selects a multi-dword load of 16-bit elements.  Any other copy
keeps its width, or with strict=true (which accepts only proven alignment, no peeling) the
pass stops with a diagnostic.  Copies by global_load_lds (direct-to-lds) are left alone.
Options: width (1, 2, 4; 8 for 16-bit types), strict, peel, peel-lanes (a peeled copy into a
transposed LDS tile: `columns`, the default, puts consecutive lanes on consecutive rows and
marks the copy `column_first`, `rows` along a row), row-lanes (g > 0: every copy that is not
peeled and whose rows hold more than g loads gets `row_lanes = g`, g lanes along a stored row,
then down the rows (rows of g loads or a divisor of g keep their order, which is that already): a wave of a
transposed copy then writes a few elements of each LDS row it touches, two 16-bit ones into one
word, rather than one element into each of 32 rows; rows of fewer loads than g, g no multiple of them,
are padded to g lanes, the last ones idle: a 224-wide tile's 28 blocks a row then take the lanes of a
256-wide tile's 32, whose stores the bank-line swizzle spreads, where 28 a row conflict; 0, the
default: whole rows), blocks (true:
every vectorized copy into a transposed tile that is not peeled gets `blocks`: a thread loads a
width x width block, `width` vectors down the stored rows, and stores its columns as `width`
vectors along the LDS rows, transposed in registers by shuffles, rather than width x width
element stores; row-lanes then counts blocks along a row), operands (which copies to vectorize:
`a`, `b` or both, `a,b`), stores (true, the default: a matrix-core kernel's epilogue stores C by pairs of
items where its instruction's D layout puts items 2p and 2p + 1 of a lane at adjacent columns of one row,
sm_90's mma.sync and wgmma: one 2-element vector store where both lie inside C and C's row length is even,
the two scalar stores otherwise (gemmc/transforms/fragment_stores.py); AMD's MFMA / WMMA layouts put
consecutive items down a column, and their epilogues stay as they are).  The tutorial's step 5 vectorizes A only: B's copy is stored
transposed, and its four scalar LDS stores per vector cost more than the wide load saves
(H200, 4096^3: 6.32 TFLOP/s with B vectorized, 6.65 without; benchmarks/h200/results.md).
Diagnostics: no gemm.copy of a chosen operand (the copies are already lowered), a width
that is no vector of at most 16 bytes, an unproven width with strict=true, a peel-lanes
that is neither rows nor columns, a row-lanes below a copy's loads per row that does not divide
them, blocks=true on a copy whose tile rows or LDS rows are no multiple of the
width.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import IntegerAttr, IntegerType, ModuleOp, UnitAttr, i64
from xdsl.passes import ModulePass

from gemmc.transforms.contraction import working_kernels, role
from gemmc.support.diagnostics import pass_error
from gemmc.dialects.gemm import CopyOp
from gemmc.support.ir_names import ROLE_LOAD_A, ROLE_LOAD_B
from gemmc.transforms.fragment_stores import store_pairs
from gemmc.transforms.lds_access import known_multiple, matrix_start_multiple, row_multiple

MAX_VECTOR_BYTES = 16
_ROLES = {"a": ROLE_LOAD_A, "b": ROLE_LOAD_B}


@dataclass(frozen=True)
class VectorizePass(ModulePass):
    name = "vectorize"

    width: int = 4
    strict: bool = False
    peel: bool = True
    operands: tuple[str, ...] = ("a", "b")
    peel_lanes: str = "columns"
    row_lanes: int = 0
    blocks: bool = False
    stores: bool = True

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kernel in working_kernels(op, self.name):
            if self.stores:
                store_pairs(kernel, self.name, self.strict)
            if self.peel_lanes not in ("rows", "columns"):
                raise pass_error(self.name, kernel, f"peel-lanes={self.peel_lanes}: expects rows or columns")
            for operand in self._operands(kernel):
                copies = [c for c in kernel.walk() if isinstance(c, CopyOp) and role(c) == _ROLES[operand]]
                if not copies:
                    raise pass_error(
                        self.name, kernel,
                        f"no gemm.copy of {operand.upper()} to vectorize: run lds-tiling first, and vectorize "
                        "before the passes that lower the copies (lower-copies, double-buffer{stage=registers})",
                    )
                for copy in copies:
                    self._check_width(kernel, copy)
                for copy in copies:
                    self._vectorize(copy, operand)
                    self._order_lanes(copy)
                    self._block(copy)

    def _check_width(self, kernel, copy: CopyOp) -> None:
        bits = copy.src.type.element_type.bitwidth  # FP4 and FP6 are packed in global memory
        if self.width not in (1, 2, 4, 8, 16, 32) or self.width * bits > 8 * MAX_VECTOR_BYTES:
            raise pass_error(
                self.name, kernel,
                f"width={self.width} is not a vector of at most {MAX_VECTOR_BYTES} bytes of {copy.src.type.element_type}",
            )

    def _vectorize(self, copy: CopyOp, operand: str) -> None:
        if copy.direct is not None:
            return
        reason = self._unproven(copy)
        if reason and self.strict:
            raise pass_error(self.name, copy, f"cannot vectorize {operand.upper()} by {self.width}: {reason}")
        if reason is None:
            copy.properties["width"] = IntegerAttr(self.width, i64)
            copy.properties.pop("column_first", None)  # vectors run along the stored rows
        elif self.peel and self.width > 1 and copy.tile[1] % self.width == 0 and not _packed_int(copy) and \
                matrix_start_multiple(copy.src) % self.width == 0:  # peeled rows start where the matrix does
            copy.properties["width"] = IntegerAttr(self.width, i64)
            copy.properties["peel"] = UnitAttr()
            copy.properties.pop("column_first", None)
            if self._peeled_column_first(copy):
                copy.properties["column_first"] = UnitAttr()

    def _order_lanes(self, copy: CopyOp) -> None:
        if self.row_lanes < 0:
            raise pass_error(self.name, copy, f"row-lanes={self.row_lanes} must be positive (0: whole rows)")
        if not self.row_lanes or copy.peel is not None or copy.direct is not None:
            return  # a peeled copy's lanes follow peel-lanes
        per_row = copy.tile[1] // copy.width.value.data
        if per_row <= self.row_lanes and self.row_lanes % per_row == 0:
            return  # whole rows are already pieces of at most g loads, one row after another
        if self.row_lanes < per_row and per_row % self.row_lanes:
            raise pass_error(self.name, copy, f"row-lanes={self.row_lanes} does not divide the {per_row} loads of "
                                              f"a row of this {copy.tile[0]}x{copy.tile[1]} tile")
        copy.properties.pop("column_first", None)
        copy.properties["row_lanes"] = IntegerAttr(self.row_lanes, i64)

    def _block(self, copy: CopyOp) -> None:
        w = copy.width.value.data
        if not self.blocks or copy.transpose is None or w < 2 or copy.peel is not None or copy.direct is not None:
            return  # (a peeled copy's rows start anywhere: its stores stay element by element)
        lds_row = copy.dst.type.get_shape()[-1]
        if copy.tile[0] % w or lds_row % w:
            what = f"its {copy.tile[0]} rows" if copy.tile[0] % w else f"its LDS rows of {lds_row} elements"
            raise pass_error(self.name, copy, f"blocks=true: {what} are not a multiple of width={w}")
        copy.properties["blocks"] = UnitAttr()

    def _peeled_column_first(self, copy: CopyOp) -> bool:
        """Whether a peeled copy's lanes go down the rows (consecutive LDS words of a transposed
        tile, conflict-free element stores, one cache line a lane) rather than along them: by
        default for every transposed copy.  Which is faster depends on the kernel around it (hgemm
        4097x4095x1023, predicted: the tutorial's step 7 on gfx90a 0.60 ms down the rows against
        1.82 along them, the 16-bit matrix-core default 0.52 against 0.31), so the 16-bit defaults
        say which they take (benchmarks/matrix_defaults.py)."""
        return copy.transpose is not None and self.peel_lanes != "rows"

    def _operands(self, kernel) -> tuple[str, ...]:
        chosen = (self.operands,) if isinstance(self.operands, str) else tuple(self.operands)
        bad = [o for o in chosen if o not in ("a", "b")]
        if bad or not chosen:
            raise pass_error(self.name, kernel, f"operands={','.join(chosen)}: expects a, b or a,b")
        return chosen

    def _unproven(self, copy: CopyOp) -> str | None:
        """Why `width` is not provably aligned for this copy, or None when it is."""
        w = self.width
        _, e1 = copy.tile
        if e1 % w:
            return f"the tile's rows of {e1} elements are not a multiple of {w}"
        if known_multiple(copy.o1) % w:
            return f"the tile's column origin is not provably a multiple of {w}"
        row = row_multiple(copy.src)
        if copy.src.type.get_shape()[-1] < 0 and row % w:
            return "its row length is dynamic, so row starts are not provably aligned; assume-aligned asserts they are"
        if row % w:
            return f"its row length {row} is not a multiple of {w}"
        lds_row = copy.dst.type.get_shape()[-1]
        if copy.transpose is None and lds_row % w:
            return f"its LDS rows of {lds_row} elements do not keep {w}-element vectors aligned"
        return None


def _packed_int(copy: CopyOp) -> bool:
    """A copy of i4 / u4, packed two a byte in global memory: a peeled vector starts at any element,
    mid-byte, which the packed read cannot (emit-hip), so its unproven rows stay scalar (as with
    peel=false), which keeps the default total for every even row length."""
    t = copy.src.type.element_type
    return isinstance(t, IntegerType) and t.width.data == 4
