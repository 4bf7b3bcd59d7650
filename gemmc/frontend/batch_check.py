"""The checks of a batched product's declarations, each a located error.

A leading dim on A, B and C (`A: f16[Bt, M, K]`) is a batch: C has it, and A, B or both; an operand
without it is shared by every batch (broadcast).  Batch dims match by name, as the other dims do;
`.T` and col_major act on the last two dims.  A matrix epilogue operand (a residual `R: bf16[Bt, M, N]`)
may be batched as C is; a vector is shared by every batch.  A block-scaled (MX) product is not
batched (yet): its scales would need a batch of their own.  A 3-D B of a `grouped by SIZES` product is
no batch but its groups' matrices (gemmc.frontend.grouping); a grouped product is not batched.
"""

from __future__ import annotations

from dataclasses import replace

from lark import Token

from gemmc.frontend import grouping

MAX_BATCHES = 65535
"""The grid's z holds the batches, and CUDA's and HIP's gridDim.z at most 65535 workgroups."""


class BatchChecker:
    """Checks the batch dims against each other (`builder`: the parser's _Builder)."""

    def __init__(self, builder):
        self.b = builder

    def check(self, a_use, b_use, c, c_tok: Token, extra) -> None:
        uses = [(a_use.token, a_use.tensor), (b_use.token, b_use.tensor)]
        for use in (a_use, b_use):
            if use.scale is not None and (use.tensor.batch is not None or use.scale.batch is not None
                                          or c.batch is not None):
                raise self.b.error(use.scale_token, "a block-scaled (MX) product is not batched yet; "
                                                    "declare A, B and C without a batch dim")
        batched = [(tok, t) for tok, t in uses if t.batch is not None]
        if c.batch is None:
            if batched and a_use.tensor.batch is None:  # B [G, K, N] alone: a grouped product's B, unmarked
                raise grouping.three_d_error(self.b, b_use.token, [b_use.tensor.batch, *b_use.tensor.dims])
            if batched:
                tok, t = batched[0]
                raise self.b.error(t.batch, f"'{tok}' has a batch dim '{t.batch}' but the output '{c_tok}' has "
                                            f"none; a batched product writes a batched output "
                                            f"({c_tok}: {c.dtype}[{t.batch}, {', '.join(map(str, c.dims))}])")
        elif not batched:
            raise self.b.error(c.batch, f"the output '{c_tok}' has a batch dim '{c.batch}' but neither "
                                        f"'{a_use.token}' nor '{b_use.token}' has one; declare it on A, B or both "
                                        f"({a_use.token}: {a_use.tensor.dtype}[{c.batch}, "
                                        f"{', '.join(map(str, a_use.tensor.dims))}])")
        for tok, t in batched:
            self._same_batch(tok, t, c, c_tok)
        if c.batch is not None and (self.b.k.dims[str(c.batch)] or 0) > MAX_BATCHES:
            at = self.b.k.dim_tokens[str(c.batch)]
            raise self.b.error(at, f"{c.batch} = {self.b.k.dims[str(c.batch)]} batches: the grid's z holds at most "
                                   f"{MAX_BATCHES} (one z index a batch)")
        for t in self._epilogue_tensors(extra):
            if t.batch is not None and c.batch is None:
                raise self.b.error(t.batch, f"'{t.name}' has a batch dim '{t.batch}' but the output '{c_tok}' "
                                            "has none")
            if t.batch is not None:
                self._same_batch(t.name, t, c, c_tok)
        for tok, t in [*uses, (c_tok, c)]:
            if t.batch is not None and str(t.batch) in map(str, t.dims):
                raise self.b.error(t.batch, f"'{tok}' has '{t.batch}' as its batch dim and as a matrix dim; "
                                            "the batch dim is a dim of its own")

    def _same_batch(self, tok: Token, t, c, c_tok: Token) -> None:
        if str(t.batch) != str(c.batch):
            raise self.b.error(t.batch, f"'{tok}' has the batch dim '{t.batch}' but the output '{c_tok}' has "
                                        f"'{c.batch}'; batched operands share the output's batch dim")

    def _epilogue_tensors(self, extra) -> list:
        if extra is None:
            return []
        return [self.b.k.tensors[o.name] for o in extra.operands if o.axes]


def take_leading_dims(tensors: dict, grouped: bool, error) -> None:
    """A 3-D tensor's leading dim: of a grouped product (`grouped by SIZES`), B's [G, K, N] keeps it
    (gemmc.frontend.grouping checks it; a grouped product is not batched, so another 3-D operand
    is an error in the parser's _matrix); otherwise it is a batch dim, moved to the tensor's `batch`
    (BatchChecker checks them).  `error(token, message)` makes the located error."""
    for key, t in list(tensors.items()):
        if len(t.dims) != 3:
            continue
        what = "group" if grouped else "batch"
        if t.lead_div is not None:
            raise error(t.lead_div, f"the {what} dim '{t.dims[0]}' is a dim as declared, not divided")
        if not grouped:
            tensors[key] = replace(t, dims=t.dims[1:], divs=t.divs[1:], batch=t.dims[0])
