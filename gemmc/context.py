"""The xDSL context that knows every dialect gemmc reads and writes."""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects import arith, builtin, func, gpu, math, memref, scf, vector

from gemmc.dialects.amdgcn import AMDGCN
from gemmc.dialects.amdgpu import AMDGPU
from gemmc.dialects.gemm import Gemm


def make_context() -> Context:
    ctx = Context()
    for dialect in (
        builtin.Builtin, func.Func, arith.Arith, math.Math, memref.MemRef,
        scf.Scf, gpu.GPU, vector.Vector, Gemm, AMDGPU, AMDGCN,
    ):
        ctx.load_dialect(dialect)
    return ctx
