"""Lane layouts of matrix instructions: which matrix element each (lane, item) of a wave holds.

gemmc.target.arch's MatrixInstr tables are written in these terms (the data of every matrix
instruction's A, B and C/D operands); the lowerings, interpreters and printers evaluate them.
RDNA's WMMA layouts live here too (WMMA_GFX11, WMMA_GFX12, wmma_gfx12_iu4), which arch.py's
tables name (arch.py is at the repository's 800-line limit).
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


# RDNA3 ISA guide 7.9: lane L holds row (A) / column (B) L % 16 with all 16 k's, so
# lanes 16-31 replicate lanes 0-15; D row 2g + L // 16 in register g.
WMMA_GFX11 = dict(
    a=Layout(32, 16, row=(Term("lane", mod=16),), col=(Term("item"),)),
    b=Layout(32, 16, row=(Term("item"),), col=(Term("lane", mod=16),)),
    d=Layout(32, 8, row=(Term("item", scale=2), Term("lane", div=16)), col=(Term("lane", mod=16),)),
)
# RDNA4 (AMD Matrix Instruction Calculator v1.3.2 `-a rdna4`, the RDNA4 WMMA builtins
# reference's register table, tinygrad's RDNA4 emulator): A row (B column) L % 16; lanes 0-15
# hold k 0-3 (registers 0-1) and 8-11 (registers 2-3), lanes 16-31 k 4-7 and 12-15;
# D row 8 * (L // 16) + g in register g.
K_GFX12 = (Term("lane", div=16, scale=4), Term("item", mod=4), Term("item", div=4, scale=8))
WMMA_GFX12 = dict(
    a=Layout(32, 8, row=(Term("lane", mod=16),), col=K_GFX12),
    b=Layout(32, 8, row=K_GFX12, col=(Term("lane", mod=16),)),
    d=Layout(32, 8, row=(Term("lane", div=16, scale=8), Term("item")), col=(Term("lane", mod=16),)),
)


def wmma_gfx12_iu4(k: int) -> dict:
    """RDNA4's iu4 WMMAs (RDNA4 ISA guide, the WMMA operand tables: each VGPR holds 8 consecutive
    k's, 32 bits; lanes 0-15 take the first 8 of every 16, lanes 16-31 the next 8): A row (B
    column) L % 16, k = 8 * (L // 16) + item % 8 + 16 * (item // 8); 16x16x16: one VGPR (k 0-7,
    8-15), 16x16x32: two (k 0-7 and 16-23, 8-15 and 24-31).  D as the other gfx12 forms'."""
    ks = (Term("lane", div=16, scale=8), Term("item", mod=8), Term("item", div=8, scale=16))
    return dict(
        a=Layout(32, k // 2, row=(Term("lane", mod=16),), col=ks),
        b=Layout(32, k // 2, row=ks, col=(Term("lane", mod=16),)),
        d=WMMA_GFX12["d"],
    )


def mfma_layouts(m: int, n: int, k: int, wave: int = 64) -> dict:
    """CDNA3 ISA guide 7.1 (and the MFMA builtins reference): a single-block MFMA.
    A: lane i + m * (k // kp) holds k % kp as item (kp = m * k / 64 packed k's per lane);
    B likewise with column j; D: lanes n * g + j (g = 0 .. 64/n - 1) hold rows
    4g .. 4g+3 of each band of 4 * 64/n rows, one register per row."""
    kp = m * k // wave
    groups = wave // n
    regs = m * n // wave
    d_row = (Term("lane", div=n, scale=4), Term("item", mod=4))
    if regs > 4:
        d_row = (Term("item", div=4, scale=4 * groups),) + d_row
    return dict(
        a=Layout(wave, kp, row=(Term("lane", mod=m),), col=(Term("lane", div=m, scale=kp), Term("item"))),
        b=Layout(wave, kp, row=(Term("lane", div=n, scale=kp), Term("item")), col=(Term("lane", mod=n),)),
        d=Layout(wave, regs, row=d_row, col=(Term("lane", mod=n),)),
    )
