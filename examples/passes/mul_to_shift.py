"""An example of a pass of your own (docs/passes.md): integer multiplications by a power of two
become left shifts.

    gemmc opt examples/sgemm.gemm --load examples/passes/mul_to_shift.py \
        -p 'step3,mul-to-shift,double-buffer'

`x * 2**k` and `x << k` are the same integer modulo 2**width, for signed and unsigned x alike,
so the rewrite is exact for every integer and index type. In the kernel IR it turns the block
offsets (`block_id * 16`) and thread strides (`ty * 16`) into shifts, visible in the IR
(`arith.shli`) and in the HIP (`<<`). The option `min-shift` leaves small factors alone.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType, ModuleOp
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)


def _power_of_two(op: arith.MuliOp) -> tuple[int, int] | None:
    """(operand index of the other factor, k) when one factor is the constant 2**k, k >= 1."""
    for i, value in enumerate(op.operands):
        owner = value.owner
        if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
            c = owner.value.value.data
            if c > 1 and c & (c - 1) == 0:
                return 1 - i, c.bit_length() - 1
    return None


@dataclass
class MulToShift(RewritePattern):
    min_shift: int

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.MuliOp, rewriter: PatternRewriter) -> None:
        found = _power_of_two(op)
        if found is None or found[1] < self.min_shift:
            return
        other, k = found
        t = op.result.type
        if not isinstance(t, (IntegerType, IndexType)):  # vectors of integers: left as they are
            return
        amount = arith.ConstantOp(IntegerAttr(k, t))
        shift = arith.ShLIOp(op.operands[other], amount.result)
        rewriter.insert(amount)  # before op, alone: only the shift takes the product's name
        rewriter.replace(op, shift)


@dataclass(frozen=True)
class MulToShiftPass(ModulePass):
    """Integer multiplications by a constant power of two as left shifts."""

    name = "mul-to-shift"

    min_shift: int = 1
    """Shift only by this many bits or more (min-shift=4 keeps `x * 2` and `x * 8`)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(MulToShift(self.min_shift)).rewrite_module(op)
