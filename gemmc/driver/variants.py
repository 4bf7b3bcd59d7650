"""Pipeline variants: the rewrites of a pipeline's text that the selection and the dispatch try.

A variant is the default pipeline with other tiles (SMALL_TILES, with_tiles), with its K loop
divided (with_split_k, with_stream_k), with its copies' rows padded or kept scalar
(with_padded_rows, with_unpeeled); a Choice is what the selection decided, with why.

A pipeline on Hopper's warpgroup MMA (matrix-cores{instr=wgmma_m64n<N>k16 ...}) gets its warpgroups
rewritten with its tile (with_tiles: the instruction's N and the warpgroups along m and n that the
tile holds, launch-bounds' threads with them); a tile wgmma cannot take (wgmma_problem: K tiles under
64 elements, a side not a multiple of 64) is built from another pipeline (tile_variant), which says so.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from xdsl.dialects.builtin import ModuleOp

from gemmc.driver.pipeline import with_vectorize_option
from gemmc.target import wgmma

# other (block-m, block-n, thread-m, thread-n) tried for a grid that underfills: each has 256 threads
# (64-thread workgroups measured 2-4x slower than predicted on the H200, benchmarks/h200/candidates.md)
SMALL_TILES = ((64, 128, 4, 8), (128, 64, 8, 4), (64, 64, 4, 4))
WIDTH = 4  # the default pipelines' vector width (vectorize{width=4}): rows not a multiple of it peel


@dataclass
class Choice:
    pipeline: str
    reason: str
    predicted: dict[str, float] = field(default_factory=dict)  # candidate label -> seconds
    lowered: ModuleOp | None = None  # the module lowered with `pipeline`, when a prediction made it
    runnable: bool = True  # False: `pipeline` names a dispatch between variants (`lowered` holds it)
    pipelines: dict[str, str] = field(default_factory=dict)  # candidate label -> its pipeline


def with_split_k(spec: str, factor: int, reduce: str = "workspace") -> str:
    """`spec` with split-k before its double-buffer."""
    return before_double_buffer(spec, f"split-k{{factor={factor} reduce={reduce}}}")


def with_stream_k(spec: str, workgroups: int = 0) -> str:
    """`spec` with stream-k before its double-buffer."""
    return before_double_buffer(spec, f"stream-k{{workgroups={workgroups}}}")


def before_double_buffer(spec: str, pass_text: str) -> str:
    """`spec` with a pass that divides the K loop inserted after the compute passes, before the K
    loop is pipelined (its double-buffer, or multi-buffer with pipeline), or at the end when it has none."""
    for pipelining in (",double-buffer", ",multi-buffer"):
        passes = spec.split(pipelining)
        if len(passes) > 1:
            return f"{passes[0]},{pass_text}{pipelining}" + pipelining.join(passes[1:])
    return f"{spec},{pass_text}"


def with_tiles(spec: str, block_m: int, block_n: int, thread_m: int | None = None, thread_n: int | None = None) -> str:
    """`spec` with its workgroup tile block_m x block_n and its thread tile thread_m x thread_n
    (as it is where they are None); a warpgroup MMA's instruction and warpgroups with it
    (with_wgmma_tile; ValueError for a tile it cannot take: wgmma_problem says which)."""
    spec = re.sub(r"block-m=\d+ block-n=\d+", f"block-m={block_m} block-n={block_n}", spec)
    if wgmma_shape(spec) is not None:
        spec = with_wgmma_tile(spec, block_m, block_n)
    if thread_m is None:
        return spec
    return re.sub(r"thread-m=\d+ thread-n=\d+", f"thread-m={thread_m} thread-n={thread_n}", spec)


def with_block_k(spec: str, block_k: int) -> str:
    """`spec` with K tiles of block_k."""
    return re.sub(r"block-k=\d+", f"block-k={block_k}", spec)


def wgmma_shape(spec: str) -> tuple[int, int, int] | None:
    """(N, warpgroups along m, along n) of `spec`'s warpgroup MMA (matrix-cores{instr=wgmma_m64n<N>k16});
    None for a pipeline without one."""
    m = re.search(r"matrix-cores\{([^}]*)\}", spec)
    instr = re.search(r"instr=wgmma_m64n(\d+)k16", m.group(1)) if m else None
    if instr is None:
        return None

    def option(name: str, default: int) -> int:
        x = re.search(rf"{name}=(\d+)", m.group(1))
        return int(x.group(1)) if x else default

    return int(instr.group(1)), option("waves-m", wgmma.WARPGROUPS[0]), option("waves-n", wgmma.WARPGROUPS[1])


def wgmma_problem(spec: str, block_m: int, block_n: int, block_k: int | None = None) -> str:
    """Why `spec`'s warpgroup MMA cannot take a block_m x block_n tile (with K tiles of block_k), or ""
    (also for a pipeline without one)."""
    if wgmma_shape(spec) is None:
        return ""
    if block_k is not None and block_k % wgmma.ROW_ELEMENTS:
        return f"wgmma takes K tiles of a multiple of {wgmma.ROW_ELEMENTS} (128-byte rows), not {block_k}"
    for side, what in ((block_m, "rows"), (block_n, "columns")):
        if side % wgmma.M:
            return f"wgmma's warpgroups take {what} in 64s, not {side}"
    return ""


def with_wgmma_tile(spec: str, block_m: int, block_n: int) -> str:
    """`spec`'s warpgroup MMA for a block_m x block_n tile: its warpgroups and N kept where they divide
    the tile, else one warpgroup along that side and the widest N (of wgmma.WGMMA_N, up to its own)
    that divides block_n; launch-bounds' max-threads the warpgroups' threads.  (128x128 of the
    default's 128x256 in two warpgroups: m64n128; 64x128: one warpgroup of m64n128; 64x64: one of m64n64.)"""
    problem = wgmma_problem(spec, block_m, block_n)
    if problem:
        raise ValueError(f"{block_m}x{block_n} tiles: {problem}")
    n, waves_m, waves_n = wgmma_shape(spec)
    if block_m % (waves_m * wgmma.M):
        waves_m = 1
    if block_n % (waves_n * n):
        waves_n, n = 1, max(x for x in wgmma.WGMMA_N if block_n % x == 0 and x <= n)

    def matrix_cores(m: re.Match) -> str:
        options = re.sub(r"\s*waves-[mn]=\d+", "", m.group(1))
        options = re.sub(r"wgmma_m64n\d+k16", f"wgmma_m64n{n}k16", options)
        return "matrix-cores{" + f"{options} waves-m={waves_m} waves-n={waves_n}".strip() + "}"

    spec = re.sub(r"matrix-cores\{([^}]*)\}", matrix_cores, spec)
    return re.sub(r"(launch-bounds\{[^}]*max-threads=)\d+", rf"\g<1>{waves_m * waves_n * wgmma.WARPGROUP}", spec)


def tile_variant(base: str, fallback: str | None, block_m: int, block_n: int, thread_m: int | None = None,
                 thread_n: int | None = None, block_k: int | None = None) -> tuple[str, str] | None:
    """`base` with a block_m x block_n tile (thread tiles, K tiles of block_k, where given) and "", or
    where base's warpgroup MMA cannot take it, `fallback` (sm_90's mma.sync pipeline) with it and
    the note that says so ("mma.sync: <why not wgmma>"); None where neither is given."""
    problem = wgmma_problem(base, block_m, block_n, block_k)
    spec, note = base, ""
    if problem:
        if fallback is None:
            return None
        spec, note = fallback, f"mma.sync: {problem}"
    spec = with_tiles(spec, block_m, block_n, thread_m, thread_n)
    return (with_block_k(spec, block_k) if block_k is not None else spec), note


def tiles_label(block_m: int, block_n: int, thread_m: int, thread_n: int) -> str:
    return f"{block_m}x{block_n} tiles" + ("" if (thread_m, thread_n) == (4, 4) else f" ({thread_m}x{thread_n} a thread)")


def with_padded_rows(spec: str, side: int = 256) -> str:
    """`spec` with each vectorize pass giving a stored row the lanes of a `side`-wide tile's row,
    row-lanes = side / width in place of its own: a row of fewer loads is padded to them, the rest
    idle (vectorize's row-lanes).  A 224-wide tile's rows then take the lanes a 256-wide one's do,
    where 28 or 56 a row put a wave's stores on rows the swizzle does not spread (gfx942's FP8
    128x224 tile), or do not divide into the default's 16-lane pieces (its 16-bit one)."""
    def padded(m: re.Match) -> str:
        options = re.sub(r"\s*row-lanes=\d+", "", m.group(1))
        width = re.search(r"width=(\d+)", options)
        lanes = side // int(width.group(1)) if width else side // WIDTH
        return "vectorize{" + f"{options} row-lanes={lanes}".strip() + "}"

    return re.sub(r"vectorize\{([^}]*)\}", padded, spec)


def with_unpeeled(spec: str) -> str:
    """`spec` with its vectorize pass keeping misaligned rows' copies scalar (peel=false)."""
    return with_vectorize_option(spec, "peel=false") if "peel=" not in spec else spec
