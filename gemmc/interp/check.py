"""The interpreter's API for the rest of gemmc: run a module, make inputs, check C.

    execute(module, func_name, args, arch, stats)   run the host function in place
    random_inputs(func_op, dims, seed)                arguments from the signature
    matmul_spec(module)                               what C should be, as a MatmulSpec
    reference(spec, args)                             that C in float64
    check(module, dims, arch, seed)                   all of the above -> CheckResult

`check` works on the gemm level (the frontend's output) and on lowered modules.  On a
lowered module the gemm.matmul is gone; its meaning is read from the host function's
`gemm.matmul_spec` attribute when a pass recorded one (see `spec_attr`), and otherwise
recovered from the launch: the kernel operands are A, B, C and then alpha and/or beta
(gemm-to-kernel's order), transposes follow from the `gemm.dims` names, a single
scalar is beta exactly when the kernel reads C, and the accumulator type is the
scalars' type or else that of the kernel's first fma.

Error measure: max|C - ref| / max(|alpha| |op(A)| @ |op(B)| + |beta| |C|), a normwise
error relative to the size of the terms summed rather than of the result.  Rounding
error in a dot product is bounded by K u times exactly this scale (Higham, Accuracy
and Stability of Numerical Algorithms, 3.1) and is independent of cancellation; a
denominator of max|C| is not (M = N = 1 with a cancelling dot product failed it).

Tolerance: 4 (u_acc sqrt(K) + u_C), u the unit roundoff of a type (f32 2^-24, f16
2^-11, bf16 2^-8): rounding errors of a K-term sum in the accumulator type grow like
u_acc sqrt(K) (the probabilistic bound of Higham and Mary, 2019), and rounding the
result to C's type adds at most u_C.  Measured over 1000 random shapes (M = N = 1
included), types and scalars: at most 0.83 (u_acc sqrt(K) + u_C), so the factor 4
leaves a margin of ~5.  A skipped k, a wrong index or a wrong epilogue gives errors
of order 1/K to 1, far above it (though with an f16 accumulator a single skipped k
stands out only for K below ~100).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from xdsl.dialects import func, gpu, math, memref, vector
from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    MemRefType,
    ModuleOp,
    StringAttr,
)
from xdsl.ir import BlockArgument, SSAValue
from xdsl.traits import SymbolTable
from xdsl.utils.exceptions import InterpretationError

from gemmc.arch import Arch, get_arch
from gemmc.diagnostics import GemmcError
from gemmc.dialects.gemm import ELEMENT_TYPES, MatmulOp, type_name
from gemmc.interp.common import InterpError, element_type, is_float, np_dtype, round_to, to_bf16, value_name
from gemmc.interp.host import host_interpreter
from gemmc.interp.simt import LANE_BUDGET, ensure_impls
from gemmc.interp.stats import Stats
from gemmc.ir_names import DIMS_ATTR, SPEC_ATTR
from gemmc.matmul_spec import MatmulSpec, Scalar, spec_attr  # noqa: F401  (re-exported)
from gemmc.matmul_spec import arg_index as _arg_index
from gemmc.matmul_spec import scalar_of as _scalar_of
from gemmc.matmul_spec import spec_from_attr as _spec_from_attr
from gemmc.matmul_spec import spec_from_matmul as _spec_from_matmul


UNIT_ROUNDOFF = {"f32": 2.0**-24, "f16": 2.0**-11, "bf16": 2.0**-8}


# -- running -----------------------------------------------------------------------------


def host_function(module: ModuleOp, func_name: str | None = None) -> func.FuncOp:
    """The host function: the func.func named `func_name`, or the first one with a body."""
    funcs = [op for op in module.body.ops if isinstance(op, func.FuncOp) and op.body.blocks]
    if func_name is not None:
        funcs = [f for f in funcs if f.sym_name.data == func_name]
        if not funcs:
            raise InterpError(f"no func.func @{func_name} in the module")
    if not funcs:
        raise InterpError("the module has no func.func to run")
    return funcs[0]


def execute(
    module: ModuleOp,
    func_name: str | None,
    args: list,
    arch: Arch | str,
    stats: Stats | None = None,
    races: bool = True,
    lane_budget: int = LANE_BUDGET,
) -> None:
    """Run the host function on `args`; memref arguments (numpy arrays) are updated in place."""
    arch = get_arch(arch) if isinstance(arch, str) else arch
    fn = host_function(module, func_name)
    values, copies = _bind(fn, args)
    interp = host_interpreter(module, arch, stats if stats is not None else Stats(), races, lane_budget)
    ensure_impls(interp, fn, f"func.func @{fn.sym_name.data}")
    try:
        with np.errstate(all="ignore"):
            interp.call_op(fn, tuple(values))
    except GemmcError as e:
        e.__notes__ = []  # xDSL appends the whole module to each error on its way up
        raise
    except InterpretationError as e:
        raise InterpError(f"interpreter: {str(e).splitlines()[0]}") from None
    finally:
        for original, work in copies:
            original[...] = work


def _bind(fn: func.FuncOp, args: list) -> tuple[list, list]:
    """Check the arguments against the signature; scalars become typed numpy scalars."""
    types = fn.function_type.inputs.data
    if len(args) != len(types):
        raise InterpError(f"@{fn.sym_name.data} takes {len(types)} arguments, got {len(args)}")
    values, copies = [], []
    for arg, t, x in zip(fn.body.block.args, types, args):
        if isinstance(t, MemRefType):
            _check_array(arg, t, x)
            if not x.flags.c_contiguous:
                work = np.ascontiguousarray(x)
                copies.append((x, work))
                x = work
            values.append(x)
        else:
            values.append(round_to(x, t))
    return values, copies


def _check_array(arg: BlockArgument, t: MemRefType, x) -> None:
    name = value_name(arg)
    if not isinstance(x, np.ndarray):
        raise InterpError(f"argument {name} must be a numpy array, not {type(x).__name__}")
    shape = t.get_shape()
    if x.ndim != len(shape) or any(n >= 0 and n != m for n, m in zip(shape, x.shape)):
        raise InterpError(f"argument {name} has shape {x.shape}; its type is {t}")
    if x.dtype != np_dtype(t):
        raise InterpError(f"argument {name} is {x.dtype}; {t} is held as {np_dtype(t)}")


# -- inputs -------------------------------------------------------------------------------


def arg_shapes(fn: func.FuncOp, dims: dict[str, int]) -> list[tuple[int, ...] | None]:
    """The shape of each memref argument (None for scalars), dynamic dims from `dims`."""
    attrs = fn.arg_attrs.data if fn.arg_attrs is not None else [DictionaryAttr({})] * len(fn.args)
    shapes = []
    for arg, attr in zip(fn.body.block.args, attrs):
        if not isinstance(arg.type, MemRefType):
            shapes.append(None)
            continue
        names = attr.data.get(DIMS_ATTR)
        rank = arg.type.get_num_dims()
        names = [n.data for n in names.data] if isinstance(names, ArrayAttr) else [None] * rank
        shape = []
        for size, name in zip(arg.type.get_shape(), names):
            if size < 0:
                if name is None:
                    raise GemmcError(
                        f"argument {value_name(arg)} has a dynamic dim without a name ({DIMS_ATTR})"
                    )
                if name not in dims:
                    raise GemmcError(f"dim '{name}' is dynamic; give its size with -D {name}=...")
                size = int(dims[name])
            elif name in dims and int(dims[name]) != size:
                raise GemmcError(f"dim '{name}' is {size} in the kernel; it cannot be {dims[name]}")
            shape.append(size)
        shapes.append(tuple(shape))
    return shapes


def random_inputs(func_op: func.FuncOp, dims: dict[str, int], seed: int) -> list:
    """Arrays uniform in [-1, 1] in their element type; scalars of magnitude in [0.5, 1.5]
    with a random sign (so neither term of alpha*AB + beta*C vanishes)."""
    rng = np.random.default_rng(seed)
    out = []
    for arg, shape in zip(func_op.body.block.args, arg_shapes(func_op, dims)):
        t = arg.type
        if not is_float(t):
            raise GemmcError(
                f"argument {value_name(arg)} has type {t}; only float scalars and memrefs can be made up"
            )
        if shape is not None:
            x = rng.uniform(-1.0, 1.0, size=shape)
            out.append(to_bf16(x) if type_name(t.element_type) == "bf16" else x.astype(np_dtype(t)))
        else:
            out.append(round_to(rng.choice([-1.0, 1.0]) * rng.uniform(0.5, 1.5), t))
    return out


# -- the meaning of C ---------------------------------------------------------------------


def matmul_spec(module: ModuleOp, func_op: func.FuncOp | None = None) -> MatmulSpec:
    """What the host function computes: from its gemm.matmul, its gemm.matmul_spec
    attribute, or (lowered IR) recovered from its gpu.launch_func."""
    fn = func_op or host_function(module)
    matmuls = [op for op in fn.walk() if isinstance(op, MatmulOp)]
    if len(matmuls) == 1:
        return _spec_from_matmul(fn, matmuls[0])
    if len(matmuls) > 1:
        raise GemmcError(f"@{fn.sym_name.data} holds {len(matmuls)} gemm.matmul ops; check expects one")
    attr = fn.attributes.get(SPEC_ATTR)
    if isinstance(attr, DictionaryAttr):
        try:
            spec = _spec_from_attr(attr)
            args = [spec.a, spec.b, spec.c] + [x.arg for x in (spec.alpha, spec.beta) if x and x.arg is not None]
            if any(not 0 <= i < len(fn.args) for i in args):
                raise ValueError(f"argument indices {args} for {len(fn.args)} arguments")
            return spec
        except (KeyError, AttributeError, TypeError, ValueError) as e:  # IR written by hand
            raise GemmcError(f"check: the {SPEC_ATTR} of @{fn.sym_name.data} is malformed "
                             f"({type(e).__name__}: {e}); it needs a, b, c and acc_type") from None
    return _spec_from_launch(module, fn)


def _spec_from_launch(module: ModuleOp, fn: func.FuncOp) -> MatmulSpec:
    launches = [op for op in fn.walk() if isinstance(op, gpu.LaunchFuncOp)]
    name = f"@{fn.sym_name.data}"
    if len(launches) != 1:
        raise GemmcError(f"check: {name} has no gemm.matmul and {len(launches)} gpu.launch_func ops; "
                         f"cannot tell what it computes (record {SPEC_ATTR})")
    launch = launches[0]
    operands = list(launch.kernelOperands)
    if len(operands) < 3 or len(operands) > 5:
        raise GemmcError(
            f"check: the launch in {name} passes {len(operands)} operands; "
            "expected A, B, C, [alpha], [beta]"
        )
    a, b, c = (_arg_index(fn, v, w) for v, w in zip(operands, "ABC"))
    kernel = SymbolTable.lookup_symbol(module, launch.kernel)
    scalars = operands[3:]
    if len(scalars) == 2:
        alpha, beta = scalars
    elif len(scalars) == 1:
        reads_c = isinstance(kernel, gpu.FuncOp) and any(
            isinstance(use.operation, (memref.LoadOp, vector.LoadOp))
            for use in kernel.body.block.args[2].uses
        )
        alpha, beta = (None, scalars[0]) if reads_c else (scalars[0], None)
    else:
        alpha = beta = None
    da, db, dc = (_dim_names(fn, i) for i in (a, b, c))
    if da[0] == da[1] or db[0] == db[1]:
        raise GemmcError(f"check: cannot tell from the lowered {name} whether square operands are "
                         f"transposed (their dims share a name); record {SPEC_ATTR} or check the gemm level")
    ta, tb = da[0] != dc[0], db[1] != dc[1]
    acc = _acc_type(kernel, scalars)
    return MatmulSpec(a, b, c, ta, tb, _scalar_of(fn, alpha, "alpha"), _scalar_of(fn, beta, "beta"), acc)


def _acc_type(kernel, scalars: list[SSAValue]) -> str:
    """The accumulator type: alpha's/beta's type, else that of the kernel's first fma."""
    if scalars:
        return type_name(scalars[0].type)
    fmas = (op for op in kernel.walk() if isinstance(op, (math.FmaOp, vector.FMAOp)))
    first = next(fmas, None)
    return type_name(element_type(first.results[0].type)) if first is not None else "f32"


def _dim_names(fn: func.FuncOp, i: int) -> tuple[str, str]:
    attrs = fn.arg_attrs.data[i].data if fn.arg_attrs is not None else {}
    names = attrs.get(DIMS_ATTR)
    if not isinstance(names, ArrayAttr) or len(names.data) != 2:
        raise GemmcError(
            f"check: argument {value_name(fn.args[i])} has no {DIMS_ATTR}; cannot recover the matmul"
        )
    return tuple(n.data for n in names.data if isinstance(n, StringAttr))  # type: ignore[return-value]


def reference(spec: MatmulSpec | MatmulOp | func.FuncOp | ModuleOp, args: list) -> np.ndarray:
    """C as float64 numpy computes it from the (already rounded) inputs; `spec` may also
    be the module, its host function or the gemm.matmul, to take the spec from."""
    if isinstance(spec, MatmulOp):
        fn = spec.parent_op()
        assert isinstance(fn, func.FuncOp)
        spec = _spec_from_matmul(fn, spec)
    elif isinstance(spec, func.FuncOp):
        module = spec.parent_op()
        assert isinstance(module, ModuleOp)
        spec = matmul_spec(module, spec)
    elif isinstance(spec, ModuleOp):
        spec = matmul_spec(spec)
    a = args[spec.a].astype(np.float64)
    b = args[spec.b].astype(np.float64)
    if spec.compute is not None:  # the kernel multiplies A and B rounded to this type
        a, b = (_rounded(x, spec.compute) for x in (a, b))
    r = (a.T if spec.transpose_a else a) @ (b.T if spec.transpose_b else b)
    if spec.alpha is not None:
        r = spec.alpha.get(args) * r
    if spec.beta is not None:
        r = r + spec.beta.get(args) * args[spec.c].astype(np.float64)
    return r


def _rounded(x: np.ndarray, t: str) -> np.ndarray:
    return (to_bf16(x) if t == "bf16" else x.astype(np_dtype(ELEMENT_TYPES[t]()))).astype(np.float64)


def error_scale(spec: MatmulSpec, args: list) -> float:
    """max over C of |alpha| |op(A)| @ |op(B)| + |beta| |C|: the size of the terms summed."""
    a = np.abs(args[spec.a].astype(np.float64))
    b = np.abs(args[spec.b].astype(np.float64))
    r = (a.T if spec.transpose_a else a) @ (b.T if spec.transpose_b else b)
    if spec.alpha is not None:
        r = abs(spec.alpha.get(args)) * r
    if spec.beta is not None:
        r = r + abs(spec.beta.get(args)) * np.abs(args[spec.c].astype(np.float64))
    return float(np.max(r, initial=0.0))


def tolerance(spec: MatmulSpec, c_type: str, k: int) -> float:
    """See the module docstring."""
    return 4 * (UNIT_ROUNDOFF[spec.acc] * np.sqrt(max(k, 1)) + UNIT_ROUNDOFF[c_type])


@dataclass
class CheckResult:
    max_rel_err: float  # max|C - ref| / max(|alpha| |A| |B| + |beta| |C|), see above
    tolerance: float
    passed: bool
    stats: Stats = field(default_factory=Stats)
    shape: tuple[int, int, int] = (0, 0, 0)  # (M, N, K)

    def summary(self) -> str:
        """One line for `gemmc run`: PASS or FAIL, the shape, the error against the tolerance."""
        m, n, k = self.shape
        verdict = "PASS" if self.passed else "FAIL"
        relation = "<=" if self.passed else ">"
        return (f"{verdict}: M={m} N={n} K={k}: max relative error {self.max_rel_err:.3g} "
                f"{relation} tolerance {self.tolerance:.3g}")


def check(
    module: ModuleOp,
    dims: dict[str, int],
    arch: Arch | str,
    seed: int = 0,
    spec: MatmulSpec | None = None,
    races: bool = True,
) -> CheckResult:
    """Run the module on random inputs and compare C with the float64 reference."""
    fn = host_function(module)
    spec = spec or matmul_spec(module, fn)
    args = random_inputs(fn, dims, seed)
    ref = reference(spec, args)
    scale = max(error_scale(spec, args), np.finfo(np.float64).tiny)
    stats = Stats()
    execute(module, fn.sym_name.data, args, arch, stats, races)
    got = args[spec.c].astype(np.float64)
    err = float(np.max(np.abs(got - ref), initial=0.0)) / scale
    if not np.all(np.isfinite(got)):
        err = float("inf")
    m, n, k = spec.mnk(args)
    tol = tolerance(spec, type_name(fn.args[spec.c].type.element_type), k)
    return CheckResult(err, float(tol), bool(err <= tol), stats, (m, n, k))
