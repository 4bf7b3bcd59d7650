"""The ldmatrix path of the matrix-core writer (sm_90): a warp's fragments of A and B read from
the LDS tiles by nvgpu.ldmatrix, four 8x8 matrices an instruction, not element by element.

With Schedule.ldmatrix set (the ldmatrix pass), gemmc.transforms.matrix_kernel calls `setup` and
`fragments` here.  How a fragment splits into 8x8 matrices, and whether they are read .trans,
comes from the instruction's layouts and the tile's storage (gemmc.target.ldmatrix.decompose):
A[m][k] and B^T[n][k] as stored, A^T[k][m] and B[k][n] transposed.  One ldmatrix reads the
fragments of `per_load` neighbouring instruction tiles (m16n8k16: A's four registers are one x4,
two n tiles' B registers another x4; an odd last n tile an x2).  Lane l supplies the stored row

    origin_row + l % 8 + b0 * dr0 + b1 * dr1,   column  origin_col + b0 * dc0 + b1 * dc1

of the tile, (b0, b1) the bits of its matrix (l / 8) % T and the d's the steps between the
matrices' origins (gemmc.target.ldmatrix.lane_offsets); those offsets are computed once per
kernel, and each read adds the instruction tile's origin (wave offset + tile index, kk).
Lanes past 8 x T repeat the addresses of the first ones (the instruction ignores them).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import arith, vector
from xdsl.dialects.builtin import DenseArrayBase, VectorType, i64
from xdsl.ir import SSAValue

from gemmc.dialects.nvgpu import LdMatrixOp
from gemmc.target.arch import ELEMENT_BITS, Arch, MatrixInstr
from gemmc.target.ldmatrix import ROWS, Pieces, decompose, lane_offsets, per_register
from gemmc.transforms.kernel_builder import KernelBuilder


@dataclass(frozen=True)
class Operand:
    """How one operand's fragments are read: its pieces, fragments a read, the tile layout."""

    name: str  # "a" or "b"
    pieces: Pieces
    regs: int  # registers (8-row matrices) of one instruction's fragment
    per_reg: int  # elements a register holds (2 of 16 bits, 4 of 8)
    per_load: int  # instruction tiles one ldmatrix reads
    step: int  # the operand's extent of one instruction tile (m for A, n for B)
    k_contiguous: bool  # the tile's rows run along k

    def origins(self, group: int) -> list[tuple[int, int]]:
        """Stored (row, col) origins of the matrices of `group` neighbouring tiles' fragments."""
        out = []
        for f in range(group):
            shift = (f * self.step, 0) if self.k_contiguous else (0, f * self.step)
            out += [(r + shift[0], c + shift[1]) for r, c in zip(self.pieces.rows, self.pieces.cols)]
        return out


def operand_bits(instr: MatrixInstr) -> tuple[int, int]:
    """The element bits of A's and B's fragments."""
    return instr.in_bits, ELEMENT_BITS[instr.b_in_type]


def tile_layouts(arch: Arch, instr: MatrixInstr, transpose_a: bool, transpose_b: bool) -> tuple[int, int]:
    """(a_kmajor, b_transposed) of the LDS tiles ldmatrix reads: each stored as its operand is in
    global memory (read .trans where its rows run along m or n) where the arch's ldmatrix transposes
    its elements, else k-contiguous (A[m][k], B^T[n][k]: sm_90's 8-bit operands; the copy into the
    tile transposes an operand stored the other way)."""
    a_bits, b_bits = operand_bits(instr)
    trans = arch.ldmatrix_trans_bits
    return (int(transpose_a) if a_bits in trans else 0), (int(transpose_b) if b_bits in trans else 1)


def operands(instr: MatrixInstr, a_kmajor: bool, b_transposed: bool,
             trans_bits: tuple[int, ...] = (16,)) -> tuple[Operand, Operand] | str:
    """A's and B's reads for tiles stored so, or why ldmatrix cannot read them (`trans_bits`: the
    element bits the arch's ldmatrix transposes, gemmc.target.arch.Arch.ldmatrix_trans_bits)."""
    out = []
    for name, layout, k_is_col, k_contiguous, step, bits in (
            ("A", instr.a, True, not a_kmajor, instr.m, operand_bits(instr)[0]),
            ("B", instr.b, False, b_transposed, instr.n, operand_bits(instr)[1])):
        pieces = decompose(layout, k_is_col, k_contiguous, bits, bits in trans_bits)
        if isinstance(pieces, str):
            return f"{instr.mnemonic}'s {name}: {pieces}"
        regs = len(pieces.rows)
        if regs not in (1, 2, 4):
            return f"{instr.mnemonic}'s {name} is {regs} 8-row matrices; ldmatrix reads 1, 2 or 4"
        op = Operand(name.lower(), pieces, regs, per_register(bits), 4 // regs, step, k_contiguous)
        for group in (g for g in (1, 2, 4) if g <= op.per_load):
            if lane_offsets(op.origins(group)) is None:
                return f"{instr.mnemonic}'s {name}: the 8x8 matrices of {group} tiles do not lie a fixed step apart"
        out.append(op)
    return out[0], out[1]


def setup(w) -> None:
    """Each lane's offsets into the tiles for every read shape, computed once (w.kb: the
    kernel's setup, where the lane is known)."""
    s = w.s
    ops = operands(w.instr, bool(s.a_kmajor), bool(s.b_transposed), w.arch.ldmatrix_trans_bits)
    assert not isinstance(ops, str)  # (the ldmatrix pass checked it)
    w.ldm_ops = ops
    w.ldm_offsets = {}
    kb = w.kb
    lane_row = kb.op(arith.RemUIOp(w.lane, kb.index(ROWS)), "ldm_row")
    bits = [kb.op(arith.RemUIOp(kb.op(arith.DivUIOp(w.lane, kb.index(d))), kb.index(2)), f"ldm_b{i}")
            for i, d in enumerate((ROWS, 2 * ROWS))]  # b0 = (lane / 8) % 2, b1 = (lane / 16) % 2
    for op, count in zip(ops, (s.thread_m, s.thread_n)):
        for group in sorted({group for _, group in groups(op, count)}):
            w.ldm_offsets[(op.name, group)] = _lane_offsets(kb, lane_row, bits, op, group)


def groups(op: Operand, count: int) -> list[tuple[int, int]]:
    """(first tile, tiles) of each read of `count` instruction tiles: per_load at a time, the rest
    in the largest powers of two (ldmatrix reads 1, 2 or 4 matrices)."""
    out, first = [], 0
    while first < count:
        group = min(op.per_load, count - first)
        group = 1 << (group.bit_length() - 1)
        out.append((first, group))
        first += group
    return out


def _lane_offsets(kb: KernelBuilder, lane_row: SSAValue, bits: list[SSAValue], op: Operand,
                  group: int) -> tuple[SSAValue, SSAValue]:
    """(row, col) offsets of the row a lane supplies for a read of `group` tiles: its row in
    its matrix, lane_row = lane % 8, and its matrix's bits (only as many as the matrices need)."""
    (r0, dr0, dr1), (c0, dc0, dc1) = lane_offsets(op.origins(group))
    row = kb.add(lane_row, kb.index(r0))
    col = kb.index(c0)
    used = {1: 0, 2: 1, 4: 2}[group * op.regs]
    for bit, dr, dc in zip(bits[:used], (dr0, dr1), (dc0, dc1)):
        row = kb.add(row, kb.mul(bit, kb.index(dr)))
        col = kb.add(col, kb.mul(bit, kb.index(dc)))
    return row, col


def fragments(w, x: KernelBuilder, kk: SSAValue, lead: list) -> tuple[list, list]:
    """The lane's A fragments of the warp's thread_m tiles and B fragments of its thread_n tiles
    at tile depth kk, each as [fragment] (matrix_kernel.compute's one-instruction pack)."""
    s = w.s
    a_op, b_op = w.ldm_ops
    a = _read(w, x, a_op, w.tile_a, w.wave_row, s.thread_m, kk, lead)
    b = _read(w, x, b_op, w.tile_b, w.wave_col, s.thread_n, kk, lead)
    return [[f] for f in a], [[f] for f in b]


def _read(w, x: KernelBuilder, op: Operand, tile: SSAValue, wave_origin: SSAValue, count: int, kk: SSAValue,
          lead: list) -> list[SSAValue]:
    """The fragments of `count` instruction tiles from the wave's origin, per_load at a time."""
    elem = tile.type.element_type
    frag_len = op.per_reg * op.regs
    out = []
    for first, group in groups(op, count):
        row_off, col_off = w.ldm_offsets[(op.name, group)]
        origin = x.add(wave_origin, x.index(first * op.step))
        srow, scol = (origin, kk) if op.k_contiguous else (kk, origin)
        indices = lead + [x.add(srow, row_off), x.add(scol, col_off)]
        v = x.op(LdMatrixOp(tile, indices, group * op.regs, op.pieces.trans, VectorType(elem, [group * frag_len])),
                 op.name)
        if group == 1:
            out.append(v)
            continue
        for f in range(group):
            mask = DenseArrayBase.from_list(i64, list(range(f * frag_len, (f + 1) * frag_len)))
            out.append(x.op(vector.ShuffleOp(v, v, mask, result_type=VectorType(elem, [frag_len])), op.name))
    return out
