"""Pipeline variants: the rewrites of a pipeline's text that the selection and the dispatch try.

A variant is the default pipeline with other tiles (SMALL_TILES, with_tiles), with its K loop
divided (with_split_k, with_stream_k), with its copies' rows padded or kept scalar
(with_padded_rows, with_unpeeled); a Choice is what the selection decided, with why.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from xdsl.dialects.builtin import ModuleOp

from gemmc.driver.pipeline import with_vectorize_option

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
    (as it is where they are None)."""
    spec = re.sub(r"block-m=\d+ block-n=\d+", f"block-m={block_m} block-n={block_n}", spec)
    if thread_m is None:
        return spec
    return re.sub(r"thread-m=\d+ thread-n=\d+", f"thread-m={thread_m} thread-n={thread_n}", spec)


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
