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
elements at rows 2 (l % 4) and 2 (l % 4) + 1 of column l / 4.

An mma.sync operand's fragment (gemmc.target.arch.MatrixInstr.a / .b) is a set of such
registers when each of its register's two items, over the 32 lanes, is one 8x8 piece of the
operand as ldmatrix delivers it (`decompose`): m16n8k16's A is four (rows 0-7 / 8-15 by k
0-7 / 8-15), its B two.  Which way the tile is stored in shared memory decides .trans: a
tile whose rows run along k (A[m][k], B^T[n][k]) is read as it is; one whose rows run along
m or n (A^T[k][m], B[k][n], stored as the matrix is in global memory) with .trans.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gemmc.target.arch import Layout

ROWS = 8  # rows (and 16-bit columns) of one matrix: a row is 16 bytes
LANES = 32
TILES = (1, 2, 4)


def received(lane, half, trans: bool) -> tuple:
    """(row, col) of the matrix element that `lane` receives in half `half` (0: low) of each
    register, for ints or numpy arrays."""
    row, col = lane // 4, 2 * (lane % 4) + half
    return (col, row) if trans else (row, col)


def supplier(lane) -> tuple:
    """(matrix, row) whose address `lane` supplies."""
    return lane // ROWS, lane % ROWS


def deliver(rows: np.ndarray, trans: bool) -> np.ndarray:
    """What every lane receives: rows (W, T, 8, 8) holds each warp's T matrices as their
    rows were read (row i of matrix q from lane 8q + i's address); the result (W, 32, 2T) is
    each lane's registers, register q's halves at 2q and 2q + 1."""
    lane = np.arange(LANES)[:, None]
    half = np.array([0, 1])[None, :]
    r, c = received(lane, half, trans)  # (32, 2)
    picked = rows[:, :, r, c]  # (W, T, 32, 2)
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
    lanes = np.arange(layout.lanes)[:, None]
    items = np.arange(layout.items)[None, :]
    _, row, col = (np.broadcast_to(x, (layout.lanes, layout.items)) for x in layout.at(lanes, items))
    k, other = (col, row) if k_is_col else (row, col)
    return (other, k) if k_contiguous else (k, other)


def decompose(layout: Layout, k_is_col: bool, k_contiguous: bool) -> Pieces | str:
    """The ldmatrix pieces of an operand's fragment in a tile stored that way, or why there are
    none: a 32-lane layout of 16-bit pairs whose every register is one 8x8 matrix as
    ldmatrix delivers it, all of them in one transpose, each starting on a 16-byte row."""
    if layout.lanes != LANES or layout.items % 2:
        return f"its fragment is {layout.items} items on {layout.lanes} lanes, not 16-bit pairs on a warp"
    srow, scol = stored(layout, k_is_col, k_contiguous)
    lane = np.arange(LANES)[:, None]
    for trans in (False, True):
        rows, cols = [], []
        for j in range(layout.items // 2):
            r, c = received(lane, np.array([0, 1])[None, :], trans)
            dr, dc = srow[:, 2 * j:2 * j + 2] - r, scol[:, 2 * j:2 * j + 2] - c
            if (dr != dr.flat[0]).any() or (dc != dc.flat[0]).any():
                break
            rows.append(int(dr.flat[0]))
            cols.append(int(dc.flat[0]))
        else:
            if any(c % ROWS for c in cols):
                return f"a register's 8x8 matrix starts at column {cols}, not on a 16-byte row"
            return Pieces(trans, tuple(rows), tuple(cols))
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
