"""A loop's trip count from a traced prefix: the compare that decides its exit, recorded each
iteration, extrapolated linearly.

A K loop of LLVM's code ends in (or starts with) `s_cmp_<cc>_<type> a, b` and an
`s_cbranch_scc0/1` out of the loop; a and b change by a constant each iteration (the K offset
against K, a counter against 0).  From the last iterations' values the remaining iterations are
those until the compare first gives the other answer.  A loop whose compare does not change
linearly is not extrapolated (the caller traces it whole).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

_CMP = {"eq": np.equal, "lg": np.not_equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
        "gt": np.greater, "ge": np.greater_equal}
MAX_TRIPS = 1 << 24  # a search bound: no GEMM K loop runs longer


@dataclass(frozen=True)
class Loop:
    """A loop of the trace: its back edge (`branch` pc jumping back to `head`), where its exit
    leads (`exit`: the first pc after the loop), the iterations traced (back edges taken by the
    first wave) and the iterations left after them."""
    head: int
    branch: int
    exit: int
    traced: int
    remaining: int


def compare_kind(mnemonic: str) -> tuple[str, str] | None:
    """(cc, type) of s_cmp_<cc>_<type> / s_cmpk_<cc>_<type>, else None."""
    parts = mnemonic.split("_")
    if len(parts) == 4 and parts[0] == "s" and parts[1] in ("cmp", "cmpk") and parts[2] in _CMP:
        return parts[2], parts[3]
    return None


def remaining_trips(values: list[tuple[int, int]], cc: str) -> int | None:
    """Iterations until `a cc b` first differs from its last value, given every (a, b) the
    compare saw, oldest first (at least 3, changing by constant steps); None if they do not: an
    inner loop's compare starts over each outer iteration, and is not extrapolated."""
    if len(values) < 3:
        return None
    a = np.array([v[0] for v in values], np.int64)
    b = np.array([v[1] for v in values], np.int64)
    da, db = np.diff(a), np.diff(b)
    if not (np.all(da == da[0]) and np.all(db == db[0])) or (da[0] == 0 and db[0] == 0):
        return None
    fn = _CMP[cc]
    last = bool(fn(a[-1], b[-1]))
    start = 1
    while start < MAX_TRIPS:
        n = np.arange(start, min(start * 4, MAX_TRIPS) + 1, dtype=np.int64)
        flip = np.nonzero(fn(a[-1] + n * da[0], b[-1] + n * db[0]) != last)[0]
        if len(flip):
            return int(n[flip[0]])
        start = int(n[-1]) + 1
    return None
