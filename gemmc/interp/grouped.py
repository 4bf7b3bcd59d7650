"""A grouped product's inputs and float64 reference (docs/language.md, "Grouped GEMM").

`random_sizes` makes the sizes a run checks with: groups of random sizes summing to M, at least one
of them empty where there are two groups or more, and two of them no multiple of 16 rows (of no
tile's rows, every tile being a multiple of 16) where two hold rows; `product` multiplies each
group's rows of op(A) by its own op(B)[g].
"""

from __future__ import annotations

import numpy as np

from gemmc.support.ir_names import GROUP_SIZES_ATTR


def random_sizes(rng: np.random.Generator, groups: int, rows: int) -> np.ndarray:
    """G sizes >= 0 summing to `rows`: G - 1 random cuts of [0, rows], and (G >= 2) one group
    emptied into its neighbour, so a run always meets an empty group."""
    cuts = np.sort(rng.integers(0, rows + 1, size=groups - 1))
    sizes = np.diff(np.concatenate([[0], cuts, [rows]])).astype(np.int64)
    if groups >= 2:
        empty = int(rng.integers(0, groups))
        other = empty + 1 if empty + 1 < groups else empty - 1
        sizes[other] += sizes[empty]
        sizes[empty] = 0
    held = np.flatnonzero(sizes)
    if len(held) >= 2 and not (sizes % TILE_QUANTUM).any():  # a row moved: neither ends a tile
        sizes[held[0]] -= 1
        sizes[held[1]] += 1
    return sizes


TILE_QUANTUM = 16
"""Every tile's rows are a multiple of this: sizes that are not end within a tile."""


def starts(sizes: np.ndarray) -> np.ndarray:
    """Each group's first row, and the end of the last: G + 1 offsets."""
    return np.concatenate([[0], np.cumsum(np.asarray(sizes, dtype=np.int64))])


def op_b(b: np.ndarray, transpose: bool) -> np.ndarray:
    """op(B) of each group: B [G, K, N] as it is, B [G, N, K] used as B.T transposed per group."""
    return np.swapaxes(b, -1, -2) if transpose else b


def product(a: np.ndarray, b: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """The grouped product in a's dtype: rows starts[g] .. starts[g + 1] of a times b[g]; rows past
    the last group are 0."""
    out = np.zeros((a.shape[0], b.shape[-1]), dtype=np.result_type(a, b))
    at = starts(sizes)
    for g in range(len(sizes)):
        lo, hi = int(at[g]), int(min(at[g + 1], a.shape[0]))
        if hi > lo:
            out[lo:hi] = a[lo:hi] @ b[g]
    return out


def sizes_arg(fn) -> int | None:
    """The host argument holding a grouped product's sizes (gemm.group_sizes), if any."""
    attrs = fn.arg_attrs.data if fn.arg_attrs is not None else []
    return next((i for i, a in enumerate(attrs) if GROUP_SIZES_ATTR in a.data), None)


def b_shape(spec, args: list, k: int, n: int) -> tuple[int, ...]:
    """op(B)'s shape: [K, N], or a grouped B's [G, K, N]."""
    return (len(args[spec.group_sizes]), k, n) if spec.grouped else (k, n)


def stored_b(spec, x: np.ndarray) -> np.ndarray:
    """op(B) stored as B is."""
    return np.ascontiguousarray(np.swapaxes(x, -1, -2) if spec.transpose_b else x)
