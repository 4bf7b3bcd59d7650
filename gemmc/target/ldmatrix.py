"""ldmatrix (sm_75 and later, so sm_90): the PTX ISA's fragment table, and the 8x8 matrices an
mma.sync operand's fragment is made of.

    ldmatrix.sync.aligned.m8n8.x{1,2,4}{.trans}.shared.b16 {r0, ..}, [addr];

loads numTiles (1, 2 or 4) 8x8 matrices of 16-bit elements from shared memory, one 32-bit
register each per lane.  Lane 8q + i supplies the address of row i of matrix q: 16 bytes,
16-byte aligned; the rows of one matrix may lie anywhere (a padded or swizzled tile is read
where its rows are).  Lanes from 8 x numTiles on supply addresses the instruction ignores.
Lane l receives register q holding two elements: row l / 4, columns 2 (l % 4) and 2 (l % 4) + 1
of matrix q, the lower column in the low half (PTX ISA, "Warp-level matrix load instruction:
ldmatrix", its figure of the fragment); with .trans the matrix is read column by column: the
elements at rows 2 (l % 4) and 2 (l % 4) + 1 of column l / 4.  8-bit elements (FP8) ride in the
16-bit ones as byte pairs: a matrix is 8 rows of 16 bytes, and lane l receives row l / 4, bytes
4 (l % 4) .. 4 (l % 4) + 3, the lowest in the low byte.  .trans moves 16-bit elements, so it
transposes no 8-bit matrix (which elements sizes an arch's ldmatrix transposes:
gemmc.target.arch.Arch.ldmatrix_trans_bits).

An mma.sync operand's fragment (gemmc.target.arch.MatrixInstr.a / .b) is a set of such
registers when each of its register's items (two 16-bit, four 8-bit), over the 32 lanes, are
one 8-row piece of the operand as ldmatrix delivers it (`decompose`): m16n8k16's A is four (rows
0-7 / 8-15 by k 0-7 / 8-15), its B two; m16n8k32's (FP8) A four (rows 0-7 / 8-15 by k 0-15 /
16-31), its B two.  Which way the tile is stored in shared memory decides .trans: a
tile whose rows run along k (A[m][k], B^T[n][k]) is read as it is; one whose rows run along
m or n (A^T[k][m], B[k][n], stored as the matrix is in global memory) with .trans.
"""

from __future__ import annotations

from dataclasses import dataclass


from gemmc.target.arch import Layout

ROWS = 8  # rows (and 16-bit columns) of one matrix: a row is 16 bytes
ROW_BYTES = 16
ROW_BITS = 8 * ROW_BYTES
LANES = 32
TILES = (1, 2, 4)


def row_elements(bits: int) -> int:
    """Elements of `bits` in one 16-byte matrix row (8 of 16 bits, 16 of 8)."""
    return ROW_BITS // bits


def per_register(bits: int) -> int:
    """Elements of `bits` a lane receives in each 32-bit register (2 of 16 bits, 4 of 8)."""
    return 32 // bits


def received(lane, half, trans: bool, per_reg: int = 2) -> tuple:
    """(row, col) of the matrix element that `lane` receives as element `half` (0: the lowest) of
    each register holding `per_reg` elements, for ints or numpy arrays (.trans: 16-bit only)."""
    row, col = lane // 4, per_reg * (lane % 4) + half
    return (col, row) if trans else (row, col)


def supplier(lane) -> tuple:
    """(matrix, row) whose address `lane` supplies."""
    return lane // ROWS, lane % ROWS


def deliver(rows: np.ndarray, trans: bool) -> np.ndarray:
    """What every lane receives: rows (W, T, 8, E) holds each warp's T matrices as their rows
    were read (row i of matrix q from lane 8q + i's address; E = 8 16-bit or 16 8-bit elements);
    the result (W, 32, E / 4 * T) is each lane's registers, register q's elements at
    q E / 4 .. (q + 1) E / 4 - 1.  .trans (E = 8 only) reads the matrices column by column."""
    import numpy as np  # in the function: lit's `gemmc opt` / `compile` runs never reach it
    per_reg = rows.shape[-1] // 4
    assert not trans or per_reg == 2, "ldmatrix .trans moves 16-bit elements"
    lane = np.arange(LANES)[:, None]
    half = np.arange(per_reg)[None, :]
    r, c = received(lane, half, trans, per_reg)  # (32, per_reg)
    picked = rows[:, :, r, c]  # (W, T, 32, per_reg)
    return np.moveaxis(picked, 1, 2).reshape(rows.shape[0], LANES, -1)


@dataclass(frozen=True)
class Pieces:
    """How a fragment is read by ldmatrix: .trans or not, and where the matrix of register j
    starts in the stored tile, (rows[j], cols[j]), relative to the operand's origin there."""

    trans: bool
    rows: tuple[int, ...]
    cols: tuple[int, ...]


def stored(layout: Layout, k_is_col: bool, k_contiguous: bool) -> tuple[np.ndarray, np.ndarray]:
    """(stored row, stored col) of every (lane, item) of an operand layout (A: k_is_col, B not),
    the tile's rows running along k (k_contiguous) or along the other dimension."""
    import numpy as np
    lanes = np.arange(layout.lanes)[:, None]
    items = np.arange(layout.items)[None, :]
    _, row, col = (np.broadcast_to(x, (layout.lanes, layout.items)) for x in layout.at(lanes, items))
    k, other = (col, row) if k_is_col else (row, col)
    return (other, k) if k_contiguous else (k, other)


def decompose(layout: Layout, k_is_col: bool, k_contiguous: bool, bits: int = 16,
              transposes: bool = True) -> Pieces | str:
    """The ldmatrix pieces of an operand's fragment of `bits`-bit elements in a tile stored that
    way, or why there are none: a 32-lane layout of 32-bit registers whose every register is one
    8-row matrix as ldmatrix delivers it, all of them in one transpose (`transposes`: whether the
    arch's ldmatrix transposes elements of `bits`), each starting on a 16-byte row."""
    import numpy as np
    per_reg = per_register(bits)
    if layout.lanes != LANES or layout.items % per_reg:
        return f"its fragment is {layout.items} items on {layout.lanes} lanes, not 32-bit registers of {bits}-bit elements"
    srow, scol = stored(layout, k_is_col, k_contiguous)
    lane = np.arange(LANES)[:, None]
    for trans in (False, True) if transposes else (False,):
        rows, cols = [], []
        for j in range(layout.items // per_reg):
            r, c = received(lane, np.arange(per_reg)[None, :], trans, per_reg)
            dr, dc = srow[:, per_reg * j:per_reg * (j + 1)] - r, scol[:, per_reg * j:per_reg * (j + 1)] - c
            if (dr != dr.flat[0]).any() or (dc != dc.flat[0]).any():
                break
            rows.append(int(dr.flat[0]))
            cols.append(int(dc.flat[0]))
        else:
            if any(c % row_elements(bits) for c in cols):
                return f"a register's 8-row matrix starts at column {cols}, not on a 16-byte row"
            return Pieces(trans, tuple(rows), tuple(cols))
    if not transposes:
        return (f"its registers are not 8-row matrices as ldmatrix delivers them read as stored, and ldmatrix "
                f"transposes no {bits}-bit elements here (.trans moves 16-bit ones)")
    return "its registers are not 8x8 matrices as ldmatrix delivers them, read as stored or transposed"


def lane_offsets(origins: list[tuple[int, int]]) -> tuple[tuple[int, int, int], tuple[int, int, int]] | None:
    """The stored (row, col) a lane addresses for matrices at `origins` (1, 2 or 4 of them), as
    (base, per bit 0 of the matrix, per bit 1) for the row and for the col: lane l addresses
    row base + l % 8 + b0 * d0 + b1 * d1 with b0, b1 the bits of its matrix (l / 8) % T; None
    where the origins are not affine in those bits (four matrices only)."""
    t = len(origins)
    assert t in TILES
    out = []
    for axis in range(2):
        v = [o[axis] for o in origins]
        d0 = v[1] - v[0] if t > 1 else 0
        d1 = v[2] - v[0] if t > 2 else 0
        if t == 4 and v[3] - v[2] != d0:
            return None
        out.append((v[0], d0, d1))
    return out[0], out[1]
