"""The amdgcn dialect's structured control flow, until amdgcn-finalize flattens it into
labels and branches: uniform loops, lane-divergent (EXEC-masked) ifs and uniform ifs."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import IntegerAttr, i32
from xdsl.ir import Attribute, Region, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    region_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.traits import IsTerminator
from xdsl.utils.exceptions import VerifyException

from gemmc.dialects.amdgcn.registers import ImmType, SGPRType, is_allocated


@irdl_op_definition
class YieldOp(IRDLOperation):
    name = "amdgcn.yield"
    values = var_operand_def()
    traits = traits_def(IsTerminator())
    assembly_format = "($values^ `:` type($values))? attr-dict"

    def __init__(self, *values: SSAValue):
        super().__init__(operands=[list(values)])


@irdl_op_definition
class ForOp(IRDLOperation):
    """A uniform loop: the counter (block argument 0, an SGPR) runs from `lb` while below
    `ub` in steps of `step` (SGPRs or constants); the other block arguments are the
    loop-carried registers, initialised from `inits` and updated by the yield.

    Flattened by amdgcn-finalize into: counter = lb; (skip if lb >= ub, unless the loop is
    known to run: `nonempty`); L: body; counter += step; s_cmp_lt_u32 counter, ub;
    s_cbranch_scc1 L.  The allocator gives the counter, each carried value, its init copy,
    its yield operand and the loop's result one register.
    """

    name = "amdgcn.for"
    lb = operand_def()
    ub = operand_def()
    step = operand_def()
    inits = var_operand_def()
    res = var_result_def()
    body = region_def("single_block")
    nonempty = opt_prop_def(IntegerAttr)

    def __init__(self, lb, ub, step, inits: Sequence[SSAValue], body: Region, nonempty: bool = False):
        props = {"nonempty": IntegerAttr(1, i32)} if nonempty else {}
        super().__init__(
            operands=[lb, ub, step, list(inits)], result_types=[[v.type for v in inits]],
            regions=[body], properties=props,
        )

    def verify_(self) -> None:
        block = self.body.block
        if len(block.args) != len(self.inits) + 1:
            raise VerifyException("amdgcn.for: the body takes the counter and one argument per init")
        if not isinstance(block.args[0].type, SGPRType):
            raise VerifyException("amdgcn.for: the counter is an SGPR")
        for v in (self.lb, self.ub, self.step):
            if not isinstance(v.type, (SGPRType, ImmType)):
                raise VerifyException("amdgcn.for: bounds and step are SGPRs or constants")
        y = block.last_op
        if not isinstance(y, YieldOp) or len(y.values) != len(self.inits):
            raise VerifyException("amdgcn.for: the body ends in amdgcn.yield of one value per init")
        for i, (a, b, r, yv) in enumerate(zip(self.inits, block.args[1:], self.res, y.values)):
            if not (a.type == b.type == r.type == yv.type or not all(map(is_allocated, (a.type, b.type, r.type, yv.type)))):
                raise VerifyException(f"amdgcn.for: carried value {i} has types {a.type}, {b.type}, {yv.type}, {r.type}")


class _IfBase(IRDLOperation):
    cond = operand_def()
    inits = var_operand_def()  # amdgcn.if only
    res = var_result_def()
    then_region = region_def("single_block")
    else_region = region_def()

    def __init__(self, cond: SSAValue, result_types: Sequence[Attribute], then_region: Region, else_region: Region,
                 inits: Sequence[SSAValue] = ()):
        super().__init__(operands=[cond, list(inits)], result_types=[list(result_types)],
                         regions=[then_region, else_region])

    def verify_(self) -> None:
        for region in (self.then_region, self.else_region):
            if not region.blocks:
                continue
            y = region.block.last_op
            if not isinstance(y, YieldOp) or (len(y.values) != len(self.res) and
                                              not (region is self.else_region and not y.values)):
                raise VerifyException(f"{self.name}: each branch ends in amdgcn.yield of {len(self.res)} values")
        if self.res and not self.else_region.blocks and not self.inits:
            raise VerifyException(f"{self.name}: an if with results has an else branch (or inits)")


@irdl_op_definition
class IfOp(_IfBase):
    """Lane-divergent if: `cond` is a lane mask, and it is consumed: amdgcn-finalize writes
    `s_and_saveexec cond, cond` (cond now holds the old EXEC), runs the then branch on the
    lanes of the mask, the else branch on `cond & ~exec`, and restores EXEC from cond.
    A branch whose lanes are all off is skipped (s_cbranch_execz).  Results are VGPRs,
    written by each branch for its own lanes.  With `inits` (then no else branch) the results
    start as the inits, in all lanes, and the then branch overwrites its lanes."""

    name = "amdgcn.if"

    def verify_(self) -> None:
        super().verify_()
        if self.inits:
            if len(self.inits) != len(self.res):
                raise VerifyException("amdgcn.if: one init per result")
            if self.else_region.blocks and any(not isinstance(o, YieldOp) for o in self.else_region.block.ops):
                raise VerifyException("amdgcn.if: an if with inits has no else branch")


@irdl_op_definition
class IfUniformOp(_IfBase):
    """Uniform if: `cond` is an SGPR holding 0 or 1; the wave branches on s_cmp_lg_u32."""

    name = "amdgcn.if_uniform"

    def verify_(self) -> None:
        super().verify_()
        if self.inits:
            raise VerifyException("amdgcn.if_uniform takes no inits")
