"""The harness of a grouped product (`--harness`; docs/language.md, "Grouped GEMM"): valid group
sizes on the host and the reference's B of each row's group.

The sizes are G random cuts of [0, M] (std::sort of G - 1 uniform rows), and group 1 emptied into
group 0 where G >= 2, as `gemmc run` makes them (gemmc.interp.grouped): some group is empty and the
others are no multiple of a tile but by chance.  The reference reads row i's B at the first matrix
element of its group, found by a walk over the sizes.
"""

from __future__ import annotations

from gemmc.emit.c_text import INDENT


def fill_sizes(h: str, groups: str, rows: str, gen: str, x: str) -> list[str]:
    """Statements that fill the int32_t vector `h` of `groups` sizes summing to `rows`."""
    I = INDENT
    return [
        f"{I}{{",
        f"{I*2}std::vector<int> {x}_cut({groups} + 1, 0);",
        f"{I*2}std::uniform_int_distribution<int> {x}_row(0, {rows});",
        f"{I*2}for (int {x}_g = 1; {x}_g < {groups}; ++{x}_g)",
        f"{I*3}{x}_cut[{x}_g] = {x}_row({gen});",
        f"{I*2}{x}_cut[{groups}] = {rows};",
        f"{I*2}std::sort({x}_cut.begin() + 1, {x}_cut.end() - 1);",
        f"{I*2}for (int {x}_g = 0; {x}_g < {groups}; ++{x}_g)",
        f"{I*3}{h}[{x}_g] = {x}_cut[{x}_g + 1] - {x}_cut[{x}_g];",
        f"{I*2}if ({groups} >= 2)  // an empty group: group 1's rows go to group 0",
        f"{I*2}{{",
        f"{I*3}{h}[0] += {h}[1];",
        f"{I*3}{h}[1] = 0;",
        f"{I*2}}}",
        f"{I}}}",
    ]


def group_base(base: str, h: str, groups: str, i: str, matrix: str) -> list[str]:
    """Statements that set `base` to the first element of B[g], g the group of row i."""
    I = INDENT
    return [
        f"{I*2}size_t {base} = 0;",
        f"{I*2}for (long long {base}_end = 0, {base}_g = 0; {base}_g < {groups}; ++{base}_g)",
        f"{I*2}{{",
        f"{I*3}{base}_end += {h}[{base}_g];",
        f"{I*3}if ({i} < {base}_end)",
        f"{I*3}{{",
        f"{I*4}{base} = static_cast<size_t>({base}_g) * {matrix};",
        f"{I*4}break;",
        f"{I*3}}}",
        f"{I*2}}}",
    ]
