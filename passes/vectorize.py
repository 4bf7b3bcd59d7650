"""vectorize: the tutorial's step 5, global->LDS copies as 2- or 4-element vector loads.

Expects: an LDS-tiled kernel.  Produces: each operand's copy loop loads `width`
consecutive elements along the operand's contiguous (stored row-major) dimension with
one `vector.load`, and writes them to LDS with one `vector.store` when the LDS row
runs the same way, or element by element when it does not (B^T after register tiling).

The alignment proof: a vector starts at a multiple of `width` elements within its row
when the tile's extent along the contiguous dimension is a multiple of `width` (tile
origins are multiples of that extent), and the row itself starts aligned when the
row length is a static multiple of `width`.  Then the vector is also either wholly
inside the matrix or wholly outside, so the bounds guard stays exact.  An operand
whose layout does not prove it keeps scalar copies, or with strict=true the pass
stops with a diagnostic.  Options: width (1, 2, 4; 8 for 16-bit types), strict,
operands (which copies to vectorize: `a`, `b` or both, `a,b`; the others keep their
width).  The tutorial's step 5 vectorizes A only: B's copy is stored transposed, and
its four scalar LDS stores per vector cost more than the wide load saves (H200,
4096^3: 6.32 TFLOP/s with B vectorized, 6.65 without; benchmarks/h200/results.md).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from gemmc.contraction import Contraction, analyze, kernels
from gemmc.diagnostics import pass_error
from gemmc.tiled_kernel import rebuild
from gemmc.tiling_checks import element_bytes

MAX_VECTOR_BYTES = 16


@dataclass(frozen=True)
class VectorizePass(ModulePass):
    name = "vectorize"

    width: int = 4
    strict: bool = False
    operands: tuple[str, ...] = ("a", "b")

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kernel in kernels(op, self.name):
            con = analyze(kernel, self.name)
            s = con.schedule
            if s is None:
                raise pass_error(self.name, kernel, "expects an LDS-tiled kernel; run lds-tiling first")
            ebytes = element_bytes(con)
            if self.width not in (1, 2, 4, 8, 16) or self.width * ebytes > MAX_VECTOR_BYTES:
                raise pass_error(
                    self.name, kernel,
                    f"width={self.width} is not a vector of at most {MAX_VECTOR_BYTES} bytes of {con.in_type}",
                )
            widths = {}
            for operand in self._operands(kernel):
                reason = self._unproven(con, operand)
                if reason and self.strict:
                    raise pass_error(self.name, kernel, f"cannot vectorize {operand.upper()} by {self.width}: {reason}")
                widths[f"width_{operand}"] = 1 if reason else self.width
            rebuild(con, s.with_(**widths))

    def _operands(self, kernel) -> tuple[str, ...]:
        chosen = (self.operands,) if isinstance(self.operands, str) else tuple(self.operands)
        bad = [o for o in chosen if o not in ("a", "b")]
        if bad or not chosen:
            raise pass_error(self.name, kernel, f"operands={','.join(chosen)}: expects a, b or a,b")
        return chosen

    def _unproven(self, con: Contraction, operand: str) -> str | None:
        """Why `width` is not provably aligned for this operand, or None when it is."""
        s = con.schedule
        w = self.width
        value = con.a if operand == "a" else con.b
        trans = con.transpose_a if operand == "a" else con.transpose_b
        if operand == "a":
            extent, dim = (s.block_m, "block-m") if trans else (s.block_k, "block-k")
        else:
            extent, dim = (s.block_k, "block-k") if trans else (s.block_n, "block-n")
        if extent % w:
            return f"the tile's contiguous extent {dim}={extent} is not a multiple of {w}"
        row = value.type.get_shape()[1]
        if row < 0:
            return "its row length is dynamic, so row starts are not provably aligned"
        if row % w:
            return f"its row length {row} is not a multiple of {w}"
        return None
