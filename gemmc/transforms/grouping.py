"""A grouped product's workgroups: which group, which of its rows (docs/language.md, "Grouped GEMM").

Group g has sizes[g] rows of A and C, starting at the sum of the sizes before it, and its own
matrix B[g].  Each group is cut into tiles of `tile_m` rows, ceil(sizes[g] / tile_m) of them, and
the tiles of all groups are numbered one group after another along the grid's y: block_id.y is
a tile.  As sum_g ceil(sizes[g] / tile_m) <= ceil(M / tile_m) + G (each group wastes less than a
tile), a grid of ceil(M / tile_m) + G tiles covers every group however the sizes fall, known only
at run time; a workgroup past the last tile finds no group and stores nothing.

Each workgroup finds its tile by a walk over the G sizes (`group_tile`: an scf.for, marked
gemm.role = "group", O(G) scalar loads and adds, uniform across the workgroup), which gives the
group g, the tile's first row and the group's end; the kernel then reads B[g] and masks rows at
or past the group's end, so a tile never mixes groups.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import arith, gpu
from xdsl.dialects.builtin import DictionaryAttr, IndexType, IntegerAttr, StringAttr, i64
from xdsl.ir import SSAValue

from gemmc.support.ir_names import GROUPED_ATTR, ROLE_ATTR, ROLE_GROUP
from gemmc.transforms.kernel_builder import KernelBuilder, constant_value


@dataclass
class GroupTile:
    """What a workgroup's tile is: group g, its first row (of A and C), the group's end row."""

    g: SSAValue
    row0: SSAValue
    end: SSAValue


def group_tile(kb: KernelBuilder, sizes: SSAValue, tile: SSAValue, tile_m: int) -> GroupTile:
    """The group and rows of tile number `tile` (block_id.y) with tiles of tile_m rows: a walk
    over the sizes carrying the group's first row and first tile; where the tile lies in group h,
    row0 = start_h + (tile - first_tile_h) * tile_m and end = start_h + sizes[h].  No group (a
    tile past the last): g = 0, row0 = end = 0, so every row is masked."""
    zero = kb.index(0)
    groups = kb.dim(sizes, 0, "groups")
    bm = kb.index(tile_m)

    def step(b: KernelBuilder, h, it):
        start, first, row0, end, g = it
        n = b.op(arith.IndexCastOp(b.load(sizes, [h], "size"), IndexType()), "rows")
        last = b.add(first, b.ceildiv(n, bm, "tiles"), "next_tile")
        here = b.land(b.op(arith.CmpiOp(tile, first, "uge")), b.lt(tile, last), "here")
        at = b.add(start, b.mul(b.sub(tile, first), bm), "at")
        stop = b.add(start, n, "next_start")
        return [stop, last, b.op(arith.SelectOp(here, at, row0)), b.op(arith.SelectOp(here, stop, end)),
                b.op(arith.SelectOp(here, h, g))]

    loop = kb.for_(zero, groups, kb.index(1), [zero] * 5, step, "h")
    loop.attributes[ROLE_ATTR] = StringAttr(ROLE_GROUP)
    for r, name in zip(loop.results, ("rows_total", "tiles_total", "group_row", "group_end", "group")):
        r.name_hint = name
    return GroupTile(loop.results[4], loop.results[2], loop.results[3])


def mark_grouped(kernel: gpu.FuncOp, sizes_index: int, tile_m: int) -> None:
    """Record on the kernel which argument holds the sizes and the tile its search uses."""
    kernel.attributes[GROUPED_ATTR] = DictionaryAttr(
        {"sizes": IntegerAttr(sizes_index, i64), "tile_m": IntegerAttr(tile_m, i64)})


def grouped_info(kernel: gpu.FuncOp) -> tuple[int, int] | None:
    """(the sizes' argument index, tile_m) of a grouped kernel, else None."""
    attr = kernel.attributes.get(GROUPED_ATTR)
    if not isinstance(attr, DictionaryAttr):
        return None
    return attr.data["sizes"].value.data, attr.data["tile_m"].value.data


def grid_tiles(kb: KernelBuilder, m: SSAValue, groups: SSAValue, tile_m: int) -> SSAValue:
    """The grid's tiles along y: ceil(M / tile_m) + G (the module docstring's bound)."""
    return kb.add(kb.ceildiv(m, kb.index(tile_m), "tiles_m"), groups, "grid_y")


def tile_m_of(loop) -> int | None:
    """The tile rows a group search uses (the constant its ceildiv divides by)."""
    for op in loop.body.block.ops:
        if isinstance(op, arith.CeilDivUIOp):
            return constant_value(op.rhs)
    return None
