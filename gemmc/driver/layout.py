"""`gemmc layout`: which lane and register of a wave holds each element of a matrix
instruction's A, B and D, read from the arch description (gemmc.target.arch.MatrixInstr).

    rows(instr)           one LayoutRow per element and lane that holds it
    csv_text(instr)       matrix,block,row,col,gpr,lane,bit_lo,bit_hi
    grid_text(instr)      one grid per operand: lane:register per element
    plot(instr, path)     the grids as a picture (needs matplotlib)
    ldmatrix_text(instr)  sm_90's mma.sync: how ldmatrix reads A's and B's fragments (after the grids)
    wgmma_text(instr)     sm_90a's wgmma: D only (128 lanes, a warpgroup), A and B by descriptor from
                          shared memory in the 128-byte swizzle (gemmc.target.wgmma), described after it

A is indexed (row i, col k), B (row k, col j), D (row i, col j).  `gpr` counts 32-bit
registers from the operand's first; `bit_lo`..`bit_hi` are the element's bits in it
(0-15 and 16-31 for 16-bit elements, 0-7 ... 24-31 for FP8's bytes; RDNA3's 16-bit accumulators use bits 0-15 of each
of 8 registers, OPSEL 0).  An element that several lanes replicate (RDNA3's WMMA) has a
row per lane.

gfx950's f8f6f4 MFMAs take their formats from `--types A,B` (`with_types`): their 32
elements per lane are packed densely, 6 or 4 bits each, so an FP6 element may run from one
register into the next (bit_hi above 31).  The v_mfma_scale_* forms add SA (row i, col: the
k-block) and SB (row: the k-block, col j): the lane whose scale VGPR holds that E8M0 scale,
in the byte op_sel picks (printed as bits 0-7, op_sel 0).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gemmc.target.arch import ELEMENT_BITS, F8F6F4_FORMATS, Arch, Layout, MatrixInstr
from gemmc.target.ldmatrix import decompose
from gemmc.target import wgmma
from gemmc.target.arch import get_matrix_instr
from gemmc.support.diagnostics import usage_error

HEADER = "matrix,block,row,col,gpr,lane,bit_lo,bit_hi"


@dataclass(frozen=True)
class LayoutRow:
    matrix: str
    block: int
    row: int
    col: int
    gpr: int
    lane: int
    bit_lo: int
    bit_hi: int

    def csv(self) -> str:
        return ",".join(str(getattr(self, f)) for f in ("matrix", "block", "row", "col", "gpr", "lane", "bit_lo",
                                                        "bit_hi"))


def with_types(instr: MatrixInstr, types: str | None) -> MatrixInstr:
    """`instr` with the formats `types` ("A,B") selects, for an f8f6f4 MFMA; a usage error
    for formats it cannot take, or for an instruction whose types are fixed."""
    if types is None:
        return instr
    if not instr.formats:
        raise usage_error(f"--types: {instr.mnemonic} takes {instr.in_type} x {instr.b_in_type} only")
    parts = [t.strip() for t in types.split(",")]
    if len(parts) != 2 or any(t not in instr.formats for t in parts):
        raise usage_error(f"--types {types}: {instr.mnemonic} takes two of {', '.join(F8F6F4_FORMATS)} (A,B)")
    return instr.with_formats(*parts)


def find_instr(arch: Arch, name: str) -> MatrixInstr:
    """The arch's matrix instruction `name`: a warpgroup MMA (gemmc.target.wgmma) or one of its table."""
    return wgmma.get(arch, name) or get_matrix_instr(arch, name)


def operands(instr: MatrixInstr) -> list[tuple[str, Layout, int, int, int]]:
    """(name, layout, rows, cols, element bits) of A, B and D, and of the scaled MFMAs' SA and SB (a
    wgmma's D alone: its A and B are in shared memory)."""
    ops = [
        ("A", instr.a, instr.m, instr.k, instr.in_bits),
        ("B", instr.b, instr.k, instr.n, ELEMENT_BITS[instr.b_in_type]),
        ("D", instr.d, instr.m, instr.n, instr.out_bits),
    ]
    ops = [o for o in ops if o[1] is not None]
    if instr.scale_block and instr.sa is not None and instr.sb is not None:
        blocks = instr.k // instr.scale_block
        ops += [("SA", instr.sa, instr.m, blocks, 8), ("SB", instr.sb, blocks, instr.n, 8)]
    return ops


def rows(instr: MatrixInstr) -> list[LayoutRow]:
    out = []
    for name, layout, _, _, bits in operands(instr):
        stride = instr.d_stride if name == "D" else 1  # RDNA3's 16-bit D: low halves only
        lanes = np.arange(layout.lanes)[:, None]
        items = np.arange(layout.items)[None, :]
        shape = (layout.lanes, layout.items)
        blk, row, col = (np.broadcast_to(np.asarray(x), shape) for x in layout.at(lanes, items))
        lane, item = np.broadcast_to(lanes, shape), np.broadcast_to(items, shape)
        order = np.lexsort((lane.ravel(), col.ravel(), row.ravel(), blk.ravel()))
        for f in order:
            e = int(item.ravel()[f]) * stride
            lo = e * bits % 32
            out.append(LayoutRow(name, int(blk.ravel()[f]), int(row.ravel()[f]), int(col.ravel()[f]),
                                 e * bits // 32, int(lane.ravel()[f]), lo, lo + bits - 1))
    return out


def csv_text(instr: MatrixInstr) -> str:
    return "\n".join([HEADER, *(r.csv() for r in rows(instr))]) + "\n"


def _cells(instr: MatrixInstr, name: str, rows_: int, cols: int, bits: int) -> list[list[str]]:
    """lane:register per element ('l'/'h' for the low/high half of a 16-bit pair, '.0'-'.3'
    for the byte of an 8-bit element); lanes that replicate an element are joined by '/'."""
    grid: list[list[list[str]]] = [[[] for _ in range(cols)] for _ in range(rows_ * instr.blocks)]
    regs: list[list[str]] = [["" for _ in range(cols)] for _ in range(rows_ * instr.blocks)]
    for r in rows(instr):
        if r.matrix != name:
            continue
        y = r.block * rows_ + r.row
        grid[y][r.col].append(str(r.lane))
        part = {32: "", 16: "l" if r.bit_lo == 0 else "h", 8: f".{r.bit_lo // 8}"}.get(bits, f"b{r.bit_lo}")
        regs[y][r.col] = f"{r.gpr}{part}"
    return [[f"{'/'.join(g)}:{regs[y][x]}" for x, g in enumerate(line)] for y, line in enumerate(grid)]


def grid_text(instr: MatrixInstr, arch: Arch) -> str:
    """Each operand as a grid of `lane:register` (register counted from the operand's
    first, `l`/`h` the low or high 16 bits, `.0`-`.3` the byte)."""
    inputs = instr.in_type if instr.b_in_type == instr.in_type else f"{instr.in_type} x {instr.b_in_type}"
    if instr.kind == "wgmma":
        return _grid_lines([*wgmma_text(instr, arch), ""], instr)
    out = [f"{instr.mnemonic} on {arch.name}: D[{instr.m}x{instr.n}] += A[{instr.m}x{instr.k}] * "
           f"B[{instr.k}x{instr.n}], {inputs} -> {instr.out_type}, wave{instr.a.lanes}, "
           f"{instr.a_regs} + {instr.b_regs} + {instr.c_regs} registers per lane (A + B + C), "
           f"{instr.cycles} cycles; builtin {instr.builtin}"]
    if instr.formats:
        out.append(f"cbsz = {instr.cbsz}, blgp = {instr.blgp} (formats: "
                   f"{', '.join(f'{c} {f}' for f, c in F8F6F4_FORMATS.items())}; --types A,B)")
    titles = {"A": "A[i][k]: rows i, columns k", "B": "B[k][j]: rows k, columns j",
              "D": "C/D[i][j]: rows i, columns j",
              "SA": f"scales of A[i][k-block of {instr.scale_block}]: one E8M0 byte per lane (op_sel picks it)",
              "SB": f"scales of B[k-block of {instr.scale_block}][j]: one E8M0 byte per lane (op_sel picks it)"}
    return _grid_lines(out, instr) + ("" if instr.kind != "mma" else "\n".join(["", *ldmatrix_text(instr, arch)]) + "\n")


def _grid_lines(out: list[str], instr: MatrixInstr) -> str:
    titles = {"A": "A[i][k]: rows i, columns k", "B": "B[k][j]: rows k, columns j",
              "D": "C/D[i][j]: rows i, columns j",
              "SA": f"scales of A[i][k-block of {instr.scale_block}]: one E8M0 byte per lane (op_sel picks it)",
              "SB": f"scales of B[k-block of {instr.scale_block}][j]: one E8M0 byte per lane (op_sel picks it)"}
    for name, _, rows_, cols, bits in operands(instr):
        cells = _cells(instr, name, rows_, cols, bits)
        width = max(len(c) for line in cells for c in line)
        label = len(str(rows_ * instr.blocks - 1))
        out.append("")
        out.append(f"{titles[name]}; cell = lane:register")
        out.append(" " * (label + 2) + " ".join(f"{x:>{width}}" for x in range(cols)))
        for y, line in enumerate(cells):
            out.append(f"{y:>{label}} |" + " ".join(f"{c:>{width}}" for c in line))
    return "\n".join(out) + "\n"


def wgmma_text(instr: MatrixInstr, arch: Arch) -> list[str]:
    """A warpgroup MMA's header: what it computes, where A and B come from (descriptors), the strides."""
    a_lbo, sbo = wgmma.strides("k", 64)
    return [
        f"{instr.mnemonic} on {arch.name} ({wgmma.ptx_target(arch)}): D[{instr.m}x{instr.n}] += A[{instr.m}x{instr.k}] * "
        f"B[{instr.k}x{instr.n}], {instr.in_type} -> {instr.out_type}, one warpgroup of {wgmma.WARPGROUP} threads, "
        f"{instr.c_regs} accumulator registers a thread; PTX {instr.ptx}",
        "A and B: from shared memory by 64-bit descriptors (start >> 4 in bits 0-13, LBO >> 4 in 16-29, SBO >> 4 in",
        "32-45, swizzle in 62-63: 1 = 128-byte), laid out by swizzle-lds{mode=sw128}: 8-row atoms of 128-byte rows,",
        "16-byte chunk c of row r at chunk c ^ (r % 8) (Swizzle<3,4,3>); K-major (A[m][k], B[n][k]): element (i, k) at",
        f"(i / 8) SBO + (i % 8) 128 + 2k bytes, SBO {sbo}, LBO unused ({a_lbo}); MN-major (A[k][m], B[k][n], imm-trans 1):",
        "element (k, j) at (j / 64) LBO + 2 (j % 64) + (k / 8) SBO + (k % 8) 128 bytes, LBO = a panel (K tile rows x 128).",
        "D below: thread t (lane), register d[i]; warp t / 32 holds rows 16 (t / 32) .. + 15.",
    ]


def ldmatrix_text(instr: MatrixInstr, arch: Arch) -> list[str]:
    """How ldmatrix reads A's and B's fragments from a tile stored either way (the ldmatrix pass):
    each register's 8-row matrix, by its first stored (row, column)."""
    out = ["ldmatrix (the ldmatrix pass): lane 8q + i supplies the address of row i of matrix q; lane l receives",
           "row l / 4, columns 2 (l % 4) and + 1 of each matrix in its register q (.trans: column l / 4, rows",
           "2 (l % 4) and + 1; 8-bit elements: bytes 4 (l % 4) .. + 3, no .trans).  Register j's matrix starts at",
           "stored (row, column):"]
    for name, layout, k_is_col, other, bits in (("A", instr.a, True, "i", instr.in_bits),
                                                ("B", instr.b, False, "j", ELEMENT_BITS[instr.b_in_type])):
        for k_contiguous in (True, False):
            stored = f"{name}[{other}][k]" if k_contiguous else f"{name}[k][{other}]"
            p = decompose(layout, k_is_col, k_contiguous, bits, bits in arch.ldmatrix_trans_bits)
            if isinstance(p, str):
                out.append(f"  {name} from {stored}: none ({p})")
                continue
            origins = " ".join(f"{j}:({r},{c})" for j, (r, c) in enumerate(zip(p.rows, p.cols)))
            how = ".trans" if p.trans else "as stored"
            out.append(f"  {name} from {stored}: x{len(p.rows)}{' per fragment' if len(p.rows) < 4 else ''}, {how}; {origins}")
    return out


def plot(instr: MatrixInstr, arch: Arch, path: str) -> None:
    """Draw A, B and D, each cell coloured by its lane and labelled lane:register; the
    picture is written whole (gemmc.driver.plotting.save) or not at all."""
    from gemmc.driver.plotting import check_plot_path, pyplot, save

    check_plot_path(path)
    plt = pyplot()
    ops = operands(instr)
    fig, axes = plt.subplots(1, len(ops), figsize=(6 + 0.35 * sum(c for *_, c, _ in ops), 2 + 0.3 * max(instr.m, instr.k)))
    for ax, (name, _, rows_, cols, bits) in zip(axes, ops):
        cells = _cells(instr, name, rows_, cols, bits)
        lanes = np.array([[int(c.split(":")[0].split("/")[0]) for c in line] for line in cells])
        ax.imshow(lanes, cmap="tab20", aspect="auto", interpolation="nearest")
        size = max(3.0, min(7.0, 160.0 / max(cols, len(cells))))
        for y, line in enumerate(cells):
            for x, c in enumerate(line):
                ax.text(x, y, c.replace(":", "\n"), ha="center", va="center", fontsize=size)
        ax.set_title(f"{name} ({len(cells)}x{cols})")
        ax.set_xlabel("k" if name == "A" else "j")
        ax.set_ylabel("k" if name == "B" else "i")
    fig.suptitle(f"{instr.mnemonic} on {arch.name}: lane and register of each element")
    fig.tight_layout()
    save(fig, path, dpi=120)
