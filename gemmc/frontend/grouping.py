"""A grouped product's checks (`C = A @ B grouped by SIZES`), each a located error.

G problems share K and N and differ in M, as a mixture-of-experts layer multiplies each expert's
tokens by its own weights: A [M, K] and C [M, N] hold the groups' rows one group after another,
B [G, K, N] one matrix per group, and SIZES: i32[G] how many rows each group has (group g's rows
start at the sum of the sizes before it).  docs/language.md, "Grouped GEMM".
"""

from __future__ import annotations

from lark import Token

from gemmc.dialects.gemm import INT_ACC

SIZES_TYPE = "i32"


def check(builder, sizes_tok: Token, a_use, b_use, c) -> object:
    """The sizes vector of `grouped by SIZES`, after checking that A, B, C and it form a grouped
    product (`builder`: the parser's _Builder; a_use, b_use its _Use of A and B, c C's _Tensor)."""
    k = builder.k
    sizes = k.tensors.get(str(sizes_tok))
    if sizes is None or len(sizes.dims) != 1 or str(sizes.dtype) != SIZES_TYPE:
        what = _what(builder, sizes_tok, sizes)
        raise builder.error(sizes_tok, f"'{sizes_tok}' is {what}; a grouped product's sizes are a vector "
                                       f"{SIZES_TYPE}[G], each group's rows of A and C")
    g = str(sizes.dims[0])
    b = b_use.tensor
    if len(b.dims) != 3:
        raise builder.error(b_use.token, f"'{b_use.token}' is [{', '.join(map(str, b.dims))}]; a grouped product's B "
                                         f"has one matrix per group: [{g}, {', '.join(map(str, b.dims))}]")
    if str(b.dims[0]) != g:
        raise builder.error(b.dims[0], f"'{b.name}' has {b.dims[0]} matrices but '{sizes_tok}' has {g} groups; "
                                       f"B's leading dim is the group dim ({g})")
    if b.col_major:
        raise builder.error(b_use.token, f"a grouped B '{b.name}' is row-major [{g}, K, N] (or [{g}, N, K] used as "
                                         f"'{b.name}.T'); col_major is for matrices")
    if a_use.transpose or a_use.tensor.col_major:
        raise builder.error(a_use.token, f"a grouped product's A is row-major [M, K]: each group's rows are rows "
                                         f"of A and C (not '{a_use.spelled()}'{' col_major' if a_use.tensor.col_major else ''})")
    if k.acc == INT_ACC or a_use.scale is not None:
        what = "an integer" if k.acc == INT_ACC else "a block-scaled"
        raise builder.error(sizes_tok, f"{what} product is not grouped yet; grouped products are of f32, f16, "
                                       "bf16 or FP8 operands")
    if len(c.dims) != 2:
        raise builder.error(c.name, f"the output '{c.name}' of a grouped product is [M, N]: the groups' rows "
                                    "one after another")
    return sizes


def _what(builder, tok: Token, t) -> str:
    if t is not None:
        return f"{t.dtype}[{', '.join(map(str, t.dims))}]"
    if str(tok) in builder.k.scalars:
        return "a scalar"
    return "a dim" if str(tok) in builder.k.dims else "not declared"


def three_d_error(builder, tok: Token, t) -> Exception:
    """A [G, K, N] matrix where no product is grouped."""
    return builder.error(tok, f"'{tok}' is [{', '.join(map(str, t.dims))}], a grouped product's B (one matrix per "
                              f"group); write 'C = A @ {tok} grouped by SIZES' with SIZES: {SIZES_TYPE}[{t.dims[0]}]")
