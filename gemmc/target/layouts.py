"""Lane layouts of matrix instructions: which matrix element each (lane, item) of a wave holds.

gemmc.target.arch's MatrixInstr tables are written in these terms (the data of every matrix
instruction's A, B and C/D operands); the lowerings, interpreters and printers evaluate them.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Term:
    """One digit of a lane layout: scale * ((var // div) % mod), var "lane" or "item"
    (mod 0: no modulo)."""

    var: str
    div: int = 1
    mod: int = 0
    scale: int = 1


@dataclass(frozen=True)
class Layout:
    """Where an operand of a matrix instruction lives in the wave: item `item` (element
    `item` of the lane's operand vector) of lane `lane` holds matrix element
    (block, row, col), each coordinate a sum of Terms.  A is indexed [i][k], B [k][j],
    C/D [i][j].  Where several (lane, item) pairs hold one element, the lanes replicate
    it (RDNA3's WMMA: lanes 16-31 repeat lanes 0-15)."""

    lanes: int  # the wave size
    items: int  # elements per lane
    row: tuple[Term, ...]
    col: tuple[Term, ...]
    block: tuple[Term, ...] = ()

    def at(self, lane, item) -> tuple:
        """(block, row, col) of (lane, item).  Works on ints, numpy arrays and any value
        with // % * + by ints: the lowering passes IR values to get index arithmetic."""
        return tuple(_layout_sum(ts, lane, item) for ts in (self.block, self.row, self.col))


def _layout_sum(terms: tuple[Term, ...], lane, item):
    total = None
    for t in terms:
        x = lane if t.var == "lane" else item
        if t.div != 1:
            x = x // t.div
        if t.mod:
            x = x % t.mod
        if t.scale != 1:
            x = x * t.scale
        total = x if total is None else total + x
    return 0 if total is None else total
