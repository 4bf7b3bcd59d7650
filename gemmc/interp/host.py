"""The host function: xDSL's Interpreter over func.func, with memrefs as numpy arrays.

Host values are numpy scalars and arrays.  Besides func, arith (shared with kernels,
see ops.py) and memref.dim, the host runs:
  * gemm.matmul, with numpy as its definition, so the frontend's output runs as is;
  * gpu.launch_func, which hands the grid to the SIMT interpreter (simt.run_kernel).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from xdsl.dialects import gpu, memref
from xdsl.dialects.builtin import ModuleOp
from xdsl.interpreter import (
    Interpreter, InterpreterFunctions, PythonValues, ReturnedValues, impl, impl_terminator, register_impls,
)

from gemmc.target.arch import Arch
from gemmc.dialects.gemm import MatmulOp, YieldOp
from gemmc.interp import grouped
from gemmc.interp.common import InterpError, np_dtype, round_to, value_name
from gemmc.interp.ops import ArithFunctions, MathFunctions
from gemmc.interp.simt import LANE_BUDGET, ScfFunctions, run_kernel
from gemmc.interp.stats import Stats


def _product32(op: MatmulOp, a: np.ndarray, b: np.ndarray, sizes=None) -> np.ndarray:
    """op(A) @ op(B) in float32 (BLAS); a grouped product's each group's rows times its own B."""
    x = (a.T if op.transpose_a else a).astype(np.float32)
    if sizes is not None:
        return grouped.product(x, grouped.op_b(b.astype(np.float32), op.transpose_b is not None), sizes)
    return x @ (b.T if op.transpose_b else b).astype(np.float32)


def matmul_numpy(op: MatmulOp, a: np.ndarray, b: np.ndarray, c: np.ndarray, alpha=None, beta=None,
                 sizes=None) -> None:
    """gemm.matmul's meaning: C = alpha * op(A) @ op(B) + beta * C, in place.

    The product is computed in float32 (BLAS) and rounded to the accumulator type, then
    scaled, added and rounded again; for an f16 accumulator that is more accurate than
    the per-step rounding of a kernel, which the f16 tolerance allows for.
    """
    acc = op.acc_type
    r = round_to(_product32(op, a, b, sizes), acc)
    if alpha is not None:
        r = round_to(np.multiply(r, alpha, dtype=np.float64), acc)
    if beta is not None:
        c_acc = round_to(c, acc)
        r = round_to(np.multiply(c_acc, beta, dtype=np.float64) + r, acc)
    c[...] = round_to(r, op.c.type)


@register_impls
class HostMemrefFunctions(InterpreterFunctions):
    """The host's memref ops that every launcher runs the same way, whichever interpreter
    runs its kernels (this one, gemmc.amdgcn.interp's): sizes, and split-k's workspace."""

    @impl(memref.DimOp)
    def run_dim(self, interp: Interpreter, op: memref.DimOp, args: PythonValues):
        array, axis = args
        return (np.int64(array.shape[int(axis)]),)

    @impl(memref.AllocOp)
    def run_alloc(self, interp: Interpreter, op: memref.AllocOp, args: PythonValues):
        """A host allocation (split-k's workspace)."""
        return (host_alloc(op, args),)

    @impl(memref.DeallocOp)
    def run_dealloc(self, interp: Interpreter, op: memref.DeallocOp, args: PythonValues):
        return ()


@register_impls
@dataclass
class HostFunctions(HostMemrefFunctions):
    arch: Arch | None = None
    stats: Stats = field(default_factory=Stats)
    races: bool = True
    lane_budget: int = LANE_BUDGET

    @impl(MatmulOp)
    def run_matmul(self, interp: Interpreter, op: MatmulOp, args: PythonValues):
        sizes = args[-1] if op.grouped else None
        args = args[:-1] if op.grouped else args
        a, b, c, *scalars = args
        it = iter(scalars)
        alpha = next(it) if op.alpha is not None else None
        beta = next(it) if op.beta is not None else None
        _check_matmul_shapes(op, a, b, c)
        if op.has_epilogue:
            extra = args[len(args) - len(op.epilogue_args):]
            _matmul_epilogue(interp, op, a, b, c, extra, sizes)
            return ()
        matmul_numpy(op, a, b, c, alpha, beta, sizes)
        return ()

    @impl_terminator(YieldOp)
    def run_yield(self, interp: Interpreter, op: YieldOp, args: PythonValues):
        return ReturnedValues(args), ()

    @impl(gpu.LaunchFuncOp)
    def run_launch(self, interp: Interpreter, op: gpu.LaunchFuncOp, args: PythonValues):
        values, grid, block = launch_geometry(op, args)
        kernel = interp.get_op_for_symbol(op.kernel)
        if not isinstance(kernel, gpu.FuncOp):
            raise InterpError(f"gpu.launch_func: {op.kernel} is not a gpu.func")
        operands = [values[v] for v in op.kernelOperands]
        run_kernel(
            interp.module, kernel, grid, block, operands, self.arch, self.stats,
            self.races, self.lane_budget,
        )
        return ()

    @impl(memref.LoadOp)
    def run_load(self, interp: Interpreter, op: memref.LoadOp, args: PythonValues):
        array, *idx = args
        return (array[tuple(int(i) for i in idx)],)

    @impl(memref.StoreOp)
    def run_store(self, interp: Interpreter, op: memref.StoreOp, args: PythonValues):
        value, array, *idx = args
        array[tuple(int(i) for i in idx)] = value
        return ()


def _matmul_epilogue(interp: Interpreter, op: MatmulOp, a, b, c, extra, sizes=None) -> None:
    """gemm.matmul with a fused epilogue: the product rounded to the accumulator type, then the
    region's ops run by this interpreter's own arith and math on whole arrays of C's shape (each
    operand's element broadcast along its axes), rounded to C's type."""
    total = round_to(_product32(op, a, b, sizes), op.acc_type)
    elements = []
    for value, axes in zip(extra, op.axes()):
        v = np.asarray(value)
        elements.append(np.broadcast_to(v[:, None] if axes == "m" else v, c.shape) if axes else value)
    (result,) = interp.run_ssacfg_region(op.epilogue, (total, *elements), "gemm.matmul.epilogue")
    c[...] = round_to(np.broadcast_to(result, c.shape), op.c.type)


FRESH_INTEGER = 0x5A5A5A5A
"""What a fresh host allocation of integers holds (device memory is not zeroed: a kernel that counts
in it must zero it first)."""


def host_alloc(op: memref.AllocOp, sizes) -> np.ndarray:
    """A host memref.alloc of the memref's shape, its dynamic sizes given: NaN (floats) or
    FRESH_INTEGER, so that reading what was never written shows in C, as in a kernel's allocations."""
    it = iter(int(s) for s in sizes)
    shape = [n if n >= 0 else next(it) for n in op.memref.type.get_shape()]
    dtype = np_dtype(op.memref.type)
    return np.full(shape, np.nan if dtype.kind == "f" else FRESH_INTEGER, dtype=dtype)


def _check_matmul_shapes(op: MatmulOp, a, b, c) -> None:
    (m, k), (k2, n), _ = (  # a grouped B [G, K, N]: each group's [K, N]
        (x.shape[-2:][::-1] if t else x.shape[-2:]) for x, t in ((a, op.transpose_a), (b, op.transpose_b), (c, False))
    )
    if k != k2 or c.shape != (m, n):
        raise InterpError(
            f"gemm.matmul: shapes of {value_name(op.a)} {a.shape}, {value_name(op.b)} {b.shape} "
            f"and {value_name(op.c)} {c.shape} do not agree"
        )


def host_interpreter(module: ModuleOp, arch: Arch, stats: Stats, races: bool = True,
                     lane_budget: int = LANE_BUDGET) -> Interpreter:
    # here, not at the top: importing xdsl.interpreters imports every interpreter of xDSL's (riscv,
    # ...), which only interpreting should pay for, not a module that imports gemmc.interp for a name
    from xdsl.interpreters.func import FuncFunctions

    interp = Interpreter(module)
    interp.register_implementations(FuncFunctions())
    interp.register_implementations(ArithFunctions())
    interp.register_implementations(MathFunctions())  # a gemm.matmul epilogue's erf, tanh, exp
    interp.register_implementations(ScfFunctions())
    interp.register_implementations(HostFunctions(arch, stats, races, lane_budget))
    return interp


def launch_geometry(op: gpu.LaunchFuncOp, args: PythonValues):
    """(operand values by SSA value, grid size, block size) of a gpu.launch_func."""
    values = dict(zip(op.operands, args))
    grid = tuple(int(values[v]) for v in (op.gridSizeX, op.gridSizeY, op.gridSizeZ))
    block = tuple(int(values[v]) for v in (op.blockSizeX, op.blockSizeY, op.blockSizeZ))
    return values, grid, block
