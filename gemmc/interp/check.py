"""The interpreter's API for the rest of gemmc: run a module, make inputs, check C.

    execute(module, func_name, args, arch, stats)   run the host function in place
    random_inputs(func_op, dims, seed)                arguments from the signature
    matmul_spec(module)                               what C should be, as a MatmulSpec
    reference(spec, args)                             that C in float64
    check(module, dims, arch, seed)                   all of the above -> CheckResult
    compare_runs(module, fn, spec, dims, arch, seed, run)   the same for any interpreter

`check` works on the gemm level (the frontend's output) and on lowered modules.  On a
lowered module the gemm.matmul is gone; its meaning is read from the host function's
`gemm.matmul_spec` attribute when a pass recorded one (see `spec_attr`), and otherwise
recovered from the launch: the kernel operands are A, B, C and then alpha and/or beta
(gemm-to-kernel's order), transposes follow from the `gemm.dims` names, a single
scalar is beta exactly when the kernel reads C, and the accumulator type is the
scalars' type or else that of the kernel's first fma.

The reference is the program as declared, in float64 (`reference`), never adapted to
the kernel.  A kernel that rounds A and B to a narrower type (matrix-cores{convert=f16})
is found from its IR (`fragment_rounding`: the element type of the amdgpu.mfma/wmma or
v_mfma/v_wmma operands) and judged with that rounding in the bound; C is also compared
with the rounded inputs' product, and both errors are reported.  The element-wise error
bound and the exact run on small integers are explained in gemmc/interp/accuracy.py.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from xdsl.dialects import func, gpu, math, memref, vector
from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    StringAttr,
)
from xdsl.ir import BlockArgument, SSAValue
from xdsl.traits import SymbolTable
from xdsl.utils.exceptions import InterpretationError

from gemmc.target.arch import Arch, get_arch
from gemmc.support.diagnostics import GemmcError
from gemmc.dialects.gemm import ELEMENT_TYPES, MX_NARROW_TYPES, SCALE_NAME, MatmulOp, type_name
from gemmc.interp.accuracy import (
    EXACT_SCALARS,
    PRECISION,
    SMALLEST_NORMAL,
    UNIT_ROUNDOFF,
    Comparison,
    ExactResult,
    Terms,
    bound,
    compare,
    exact_compare,
    exact_plan,
    exact_values,
    gamma_acc,
    input_rounding,
    position,
    sparsify,
    underflow,
)
from gemmc.interp import epilogue_ref, grouped, output_check
from gemmc.interp.rounding import Rounding, fragment_rounding  # noqa: F401  (Rounding re-exported)
from gemmc.interp.common import InterpError, element_type, is_float, np_dtype, round_to, value_name
from gemmc.interp.host import host_interpreter
from gemmc.interp.integer import IntegerResult, input_types, integer_runs, random_integers, unsigned_args
from gemmc.interp.simt import LANE_BUDGET, ensure_impls
from gemmc.interp.stats import Stats
from gemmc.support.ir_names import ATOMIC_ADDF, DIMS_ATTR, SCHEDULE_ATTR, SPEC_ATTR
from gemmc.transforms.matmul_spec import MatmulSpec, Scalar, spec_attr  # noqa: F401  (re-exported)
from gemmc.transforms.matmul_spec import (arg_index as _arg_index, scalar_of as _scalar_of,
                                          spec_from_attr as _spec_from_attr, spec_from_matmul as _spec_from_matmul)




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
    values, copies = bind_arguments(fn, args)
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


def bind_arguments(fn: func.FuncOp, args: list) -> tuple[list, list]:
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


def _format_max(name: str) -> float:
    import ml_dtypes

    from gemmc.support.arith_semantics import fp8_dtypes

    return float(ml_dtypes.finfo(fp8_dtypes()[name]).max)


def random_inputs(func_op: func.FuncOp, dims: dict[str, int], seed: int) -> list:
    """Arrays uniform in [-1, 1] rounded to their element type (in range of every type, FP8's
    included), FP6 and FP4 arrays uniform over their whole range, E8M0 scales powers of two
    2^-4 .. 2^4; scalars of magnitude in [0.5, 1.5] with a random sign (so neither term of
    alpha*AB + beta*C vanishes)."""
    rng = np.random.default_rng(seed)
    out = []
    unsigned = unsigned_args(func_op)
    sizes = grouped.sizes_arg(func_op)
    for arg, shape in zip(func_op.body.block.args, arg_shapes(func_op, dims)):
        t = arg.type
        if arg.index == sizes:  # a grouped product's: valid sizes of the groups, summing to M
            rows = arg_shapes(func_op, dims)[matmul_spec(func_op.parent_op(), func_op).c][0]  # M, C's rows
            out.append(grouped.random_sizes(rng, shape[0], rows))
            continue
        if shape is not None and isinstance(t.element_type, IntegerType):  # i8, u8 (gemm.unsigned), i32
            out.append(random_integers(rng, t, shape, arg.index in unsigned))
            continue
        if isinstance(t, IntegerType) and t.width.data > 1:  # an integer product's scalar: 1 (its only scale)
            out.append(np.int64(1))
            continue
        if not is_float(t):
            raise GemmcError(
                f"argument {value_name(arg)} has type {t}; only float scalars and memrefs can be made up"
            )
        if shape is not None and type_name(t.element_type) == SCALE_NAME:
            out.append(round_to(2.0 ** rng.integers(-4, 5, size=shape), t.element_type))  # E8M0: powers of two
        elif shape is not None and type_name(t.element_type) in MX_NARROW_TYPES:
            top = _format_max(type_name(t.element_type))  # FP6 and FP4 have few values in [-1, 1]
            out.append(round_to(rng.uniform(-top, top, size=shape), t.element_type))
        elif shape is not None:
            out.append(round_to(rng.uniform(-1.0, 1.0, size=shape), t.element_type))
        else:
            out.append(round_to(rng.choice([-1.0, 1.0]) * rng.uniform(0.5, 1.5), t))
    return out


def operands(spec: MatmulSpec, args: list, rounded_to: str | None = None) -> tuple[np.ndarray, np.ndarray]:
    """op(A) and op(B) in float64 (a grouped B: [G, K, N]; a batch: each matrix's), A and B first
    rounded to `rounded_to`."""
    a, b = (args[i].astype(np.float64) for i in (spec.a, spec.b))
    if rounded_to is not None:
        a, b = (_rounded(x, rounded_to) for x in (a, b))
    if spec.grouped:
        return a, grouped.op_b(b, spec.transpose_b)
    return op_of(a, spec.transpose_a), op_of(b, spec.transpose_b)


def product(spec: MatmulSpec, args: list, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """op(A) @ op(B) (of a batch, matrix by matrix), of a grouped product each group's rows times its own B."""
    return grouped.product(a, b, args[spec.group_sizes]) if spec.grouped else a @ b


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


def _spec_of(spec: MatmulSpec | MatmulOp | func.FuncOp | ModuleOp) -> MatmulSpec:
    if isinstance(spec, MatmulOp):
        fn = spec.parent_op()
        assert isinstance(fn, func.FuncOp)
        return _spec_from_matmul(fn, spec)
    if isinstance(spec, func.FuncOp):
        module = spec.parent_op()
        assert isinstance(module, ModuleOp)
        return matmul_spec(module, spec)
    if isinstance(spec, ModuleOp):
        return matmul_spec(spec)
    return spec


def terms(spec: MatmulSpec, args: list, rounded_to: str | None = None) -> Terms:
    """The declared program's C (and the sizes of its terms) in float64 from the inputs as
    they are; `rounded_to` rounds A and B first (to compare with a kernel that does)."""
    a, b = operands(spec, args, rounded_to)
    if spec.scale_a is not None and spec.scale_b is not None:
        a, b = scaled_operands(spec, args, a, b)
    if spec.epilogue:
        products = product(spec, args, np.abs(a), np.abs(b))
        total = epilogue_ref.Bounded(product(spec, args, a, b), np.zeros_like(products))
        result = epilogue_ref.evaluate(spec.epilogue, spec.acc, total, epilogue_ref.operand_values(
            spec, args, products.shape))
        return Terms(result.v, products, np.zeros_like(products))
    alpha = _declared(spec.alpha, args, spec.acc) if spec.alpha is not None else 1.0
    ref = alpha * product(spec, args, a, b)
    products = abs(alpha) * product(spec, args, np.abs(a), np.abs(b))
    added = np.zeros_like(ref)
    if spec.beta is not None:
        beta, c = _declared(spec.beta, args, spec.acc), args[spec.c].astype(np.float64)
        ref = ref + beta * c
        added = abs(beta) * np.abs(c)
    return Terms(ref, products, added)


def scaled_operands(spec: MatmulSpec, args: list, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """op(A) and op(B) of a block-scaled product, each element times the E8M0 scale of its block
    (k // block) along K, in float64: the declared program's operands."""
    sa, sb = (args[i].astype(np.float64) for i in (spec.scale_a, spec.scale_b))
    sa = op_of(sa, spec.transpose_a)  # [M, K/block]
    sb = op_of(sb, spec.transpose_b)  # [K/block, N]
    return a * np.repeat(sa, spec.block, axis=1), b * np.repeat(sb, spec.block, axis=0)


def op_of(x: np.ndarray, transpose: bool) -> np.ndarray:
    """op(X): X or its transpose; of a batch, each matrix's (the last two axes)."""
    return np.swapaxes(x, -1, -2) if transpose else x


def _declared(s: Scalar, args: list, acc: str) -> float:
    """A scalar as the program declares it: a constant is of the accumulator type (1e-40 is
    an f32 subnormal, not the double the literal spells)."""
    return float(round_to(s.get(args), ELEMENT_TYPES[acc]()))


def reference(spec: MatmulSpec | MatmulOp | func.FuncOp | ModuleOp, args: list) -> np.ndarray:
    """C as float64 numpy computes it from the inputs in their declared types; `spec` may
    also be the module, its host function or the gemm.matmul, to take the spec from."""
    return terms(_spec_of(spec), args).ref


def _rounded(x: np.ndarray, t: str) -> np.ndarray:
    return np.asarray(round_to(x, ELEMENT_TYPES[t]())).astype(np.float64)


def tolerance(spec: MatmulSpec, k: int, rounded_to: str | None = None) -> float:
    """The bound's factor on |alpha| |A| |B| (accuracy.bound)."""
    return gamma_acc(spec.acc, k) + input_rounding(rounded_to)


# -- what the kernel rounds ----------------------------------------------------------------
def _declared_type(module: ModuleOp, spec: MatmulSpec) -> str:
    return type_name(host_function(module).args[spec.a].type.element_type)


# -- checking ------------------------------------------------------------------------------


@dataclass
class CheckResult:
    max_rel_err: float  # max|C - ref| / max(|alpha| |A| |B| + |beta| |C|), ref the declared program
    tolerance: float  # the bound's factor on |alpha| |A| |B| (see accuracy.bound)
    passed: bool
    stats: Stats = field(default_factory=Stats)
    shape: tuple[int, int, int] = (0, 0, 0)  # (M, N, K)
    declared: Comparison | None = None  # random inputs against the declared program
    rounding: Rounding | None = None  # what the kernel does to A and B, read from its IR
    rounded: Comparison | None = None  # random inputs against the product of the rounded inputs
    exact: ExactResult | IntegerResult | None = None  # the run on small integers (an integer product: both runs)
    in_type: str = "f32"
    batches: int = 1  # a batched product's batch count (each batch's M, N, K is `shape`)
    saturated: Comparison | None = None  # an FP8 or i8 C: the run that takes C past its largest value
    amax: list = field(default_factory=list)  # an amax output's check in each run (output_check.AmaxCheck)
    others: list = field(default_factory=list)  # (name, Comparison) of each other output, random inputs
    group_sizes: tuple[int, ...] | None = None  # a grouped product's sizes, as the runs made them

    def _size(self) -> str:
        m, n, k = self.shape
        return (f"{self.batches} batches of " if self.batches > 1 else "") + f"M={m} N={n} K={k}"

    def summary(self) -> str:
        """For `gemmc run`: PASS or FAIL with the shape and the random run's error on the
        first line, then the rounding the kernel does (if any) and the exact run."""
        m, n, k = self.shape
        if isinstance(self.exact, IntegerResult):
            return "\n".join([f"{'PASS' if self.passed else 'FAIL'}: {self._size()}: {self.in_type} -> i32 "
                               "(two's complement, wrapping), C against the declared program bit for bit"]
                              + ["  " + r.describe() for r in self.exact.runs])
        lines = [f"{'PASS' if self.passed else 'FAIL'}: {self._size()}: max relative error "
                 f"{self.max_rel_err:.3g}" + (_against_bound(self.declared) if self.declared else "")]
        if self.rounding is not None and self.rounded is not None:
            lines.append(f"  {self.rounding.describe()}: max relative error {self.rounded.rel_err:.3g} against "
                         f"the rounded inputs{_against_bound(self.rounded)}; the error above is against the "
                         f"declared {self.in_type} program, its bound allowing for the rounding")
        if self.saturated is not None:
            lines.append(f"  operands scaled to saturate C: max relative error {self.saturated.rel_err:.3g}"
                         f"{_against_bound(self.saturated)}")
        if self.exact is not None:
            lines.append("  " + self.exact.describe())
        lines += [f"  output {name}: max relative error {c.rel_err:.3g}{_against_bound(c)}" for name, c in self.others]
        lines += ["  " + a.describe() for a in self.amax]
        if self.group_sizes is not None:
            lines.append(f"  {len(self.group_sizes)} groups of {', '.join(map(str, self.group_sizes))} rows "
                         "(random sizes, one group empty)")
        return "\n".join(lines)


def _against_bound(c: Comparison) -> str:
    if c.passed:
        return f", {c.ratio:.2g} of the element-wise bound"
    return f", {c.ratio:.3g} times the element-wise bound at C[{c.worst[0]}, {c.worst[1]}]"


Runner = Callable[[list, Stats], None]


def check(
    module: ModuleOp,
    dims: dict[str, int],
    arch: Arch | str,
    seed: int = 0,
    spec: MatmulSpec | None = None,
    races: bool = True,
) -> CheckResult:
    """Run the module on random inputs and on exact ones and compare C with the declared program
    (tile-level copies are run as the loops they lower to)."""
    from gemmc.transforms.copy_lowering import with_copies_lowered

    module = with_copies_lowered(module)
    arch = get_arch(arch) if isinstance(arch, str) else arch
    fn = host_function(module)

    def run(args: list, stats: Stats) -> None:
        execute(module, fn.sym_name.data, args, arch, stats, races)

    return compare_runs(module, fn, spec or matmul_spec(module, fn), dims, arch, seed, run)


def _with_groups(result: CheckResult, fn: func.FuncOp, spec: MatmulSpec, dims: dict[str, int],
                 seed: int) -> CheckResult:
    """The result with the sizes its runs used (random_inputs makes the same ones for each run)."""
    if spec.grouped:
        result.group_sizes = tuple(int(x) for x in random_inputs(fn, dims, seed)[spec.group_sizes])
    return result


def compare_runs(module: ModuleOp, fn: func.FuncOp, spec: MatmulSpec, dims: dict[str, int], arch: Arch,
                 seed: int, run: Runner) -> CheckResult:
    """The check of any interpreter (`run` executes the program on arguments in place)."""
    result = _compare_runs(module, fn, spec, dims, arch, seed, run)
    c_shape = arg_shapes(fn, dims)[spec.c]
    result.batches = c_shape[0] if len(c_shape) == 3 else 1
    return result


def _requant_check(fn, spec: MatmulSpec, dims: dict[str, int], seed: int, run: Runner) -> CheckResult:
    args = random_inputs(fn, dims, seed)
    stats = Stats()
    r = output_check.requant_runs(fn, spec, args, random_inputs(fn, dims, seed), seed, run, stats)
    in_type = " x ".join("u8" if u else "i8" for u in (spec.unsigned_a, spec.unsigned_b)) + " -> i8 (requantized)"
    return CheckResult(r.declared.rel_err, 0.0, r.passed, stats, spec.mnk(args), r.declared, exact=r.exact,
                       in_type=in_type, saturated=r.saturated, amax=r.amax)


def _compare_runs(module: ModuleOp, fn: func.FuncOp, spec: MatmulSpec, dims: dict[str, int], arch: Arch,
                  seed: int, run: Runner) -> CheckResult:
    if spec.integer and spec.epilogue:
        return _requant_check(fn, spec, dims, seed, run)
    if spec.integer:
        return _integer_check(fn, spec, dims, seed, run)
    if spec.epilogue:
        return _with_groups(_epilogue_check(module, fn, spec, dims, arch, seed, run), fn, spec, dims, seed)
    c_type = type_name(fn.args[spec.c].type.element_type)
    in_types = tuple(type_name(fn.args[i].type.element_type) for i in (spec.a, spec.b))
    in_type = in_types[0] if in_types[0] == in_types[1] else " x ".join(in_types)
    rounding = fragment_rounding(module, _declared_type(module, spec), arch)
    rounded_to = rounding.type if rounding is not None else None
    args = random_inputs(fn, dims, seed)
    m, n, k = spec.mnk(args)
    declared_terms = terms(spec, args)
    rounded_terms = terms(spec, args, rounded_to) if rounding is not None else None
    stats = Stats()
    run(args, stats)
    got = args[spec.c].astype(np.float64)
    declared = compare(got, declared_terms, bound(declared_terms, spec.acc, c_type, k, rounded_to))
    rounded = None
    if rounded_terms is not None:
        rounded = compare(got, rounded_terms, bound(rounded_terms, spec.acc, c_type, k, None))
    exact = _exact_run(fn, spec, dims, seed, (in_types, c_type, rounded_to), run, _reduced_pieces(module, k))
    passed = declared.passed and (rounded is None or rounded.passed) and exact.passed
    return _with_groups(CheckResult(declared.rel_err, tolerance(spec, k, rounded_to), passed, stats, (m, n, k),
                                    declared, rounding, rounded, exact, in_type), fn, spec, dims, seed)


def _epilogue_check(module: ModuleOp, fn: func.FuncOp, spec: MatmulSpec, dims: dict[str, int], arch: Arch,
                    seed: int, run: Runner) -> CheckResult:
    """A fused epilogue: C against the declared program in float64 within the bound that
    gemmc.interp.epilogue_ref carries through the epilogue's ops, on random inputs and on small
    integers (exact sums: a lost or misplaced term moves C by far more than the ops' rounding)."""
    c_type = type_name(fn.args[spec.c].type.element_type)
    in_type = type_name(fn.args[spec.a].type.element_type)
    rounding = fragment_rounding(module, _declared_type(module, spec), arch)
    rounded_to = rounding.type if rounding is not None else None
    args = random_inputs(fn, dims, seed)
    m, n, k = spec.mnk(args)
    pieces = _reduced_pieces(module, k)
    sum_bound = gamma_acc(spec.acc, k) + input_rounding(rounded_to)
    others = tuple(type_name(fn.args[i].type.element_type) for i in spec.outputs)
    declared = _epilogue_run(spec, args, c_type, sum_bound, underflow(spec.acc, k), pieces, run, others=others)
    ex_args = random_inputs(fn, dims, seed)
    plan = _exact_epilogue_inputs(fn, spec, ex_args, seed, (in_type, c_type, rounded_to), k)
    exact = _epilogue_run(spec, ex_args, c_type, 0.0, 0.0, pieces, lambda a, s: run(a, Stats()), "exact", others)
    exact_result = ExactResult(plan, exact.mismatches, m * n, exact.first, False, "C within the rounding of the epilogue")
    saturated, runs = None, [declared, exact]
    if output_check.is_converted(c_type):  # saturate's clamp exercised; C code for code where exact
        top = output_check.largest(c_type)
        p = output_check.power_for(fn, spec, args, output_check.saturating(top))
        runs.append(_epilogue_run(spec, output_check.scaled(fn, spec, args, p), c_type, sum_bound,
                                  underflow(spec.acc, k), pieces, lambda a, s: run(a, Stats()), "saturating"))
        saturated = runs[-1].comparison
        if output_check.exact_epilogue(spec):
            exact_result = _codes(exact_result, exact, c_type)
    amax = [r.amax for r in runs if r.amax is not None]
    passed = declared.comparison.passed and exact_result.passed and (saturated is None or saturated.passed) and all(
        a.passed for a in amax) and all(o.passed for o in declared.others)
    others = [(value_name(fn.args[i]), o) for i, o in zip(spec.outputs, declared.others)]
    return CheckResult(declared.comparison.rel_err, sum_bound, passed, declared.stats, (m, n, k), declared.comparison,
                       rounding, None, exact_result, in_type, saturated=saturated, amax=amax, others=others)


def _codes(result: ExactResult, run: "_EpilogueRun", c_type: str) -> ExactResult:
    """The exact run of an FP8 C held code for code: the kernel's conversion of the exact value."""
    differ = output_check.code_mismatches(c_type, run.got, run.value)
    first = None
    if differ.any():
        i, j = (int(x) for x in np.argwhere(differ)[0])
        first = (i, j, float(run.got[i, j]), float(run.value[i, j]))
    return ExactResult(result.plan, int(differ.sum()), result.size, first, True,
                       f"C code for code (the exact value rounded to {c_type}, ties to even)")


@dataclass
class _EpilogueRun:
    comparison: Comparison
    stats: Stats
    mismatches: int
    first: tuple[int, int, float, float] | None
    got: np.ndarray | None = None  # C as the kernel wrote it
    value: np.ndarray | None = None  # the reference before C's rounding
    amax: output_check.AmaxCheck | None = None
    others: list = field(default_factory=list)  # the other outputs' Comparisons


def _epilogue_run(spec: MatmulSpec, args: list, c_type: str, sum_bound: float, floor: float, pieces: int,
                  run: Runner, name: str = "random", others: tuple[str, ...] = ()) -> _EpilogueRun:
    """Run on `args` and compare C element-wise with the epilogue's reference and bound; the sum's
    own bound is sum_bound |A| |B| + floor, more where atomics add `pieces` partial sums; the other
    outputs (of types `others`) likewise, each with its own rounding."""
    a, b = operands(spec, args)
    if spec.scale_a is not None and spec.scale_b is not None:
        a, b = scaled_operands(spec, args, a, b)
    products = product(spec, args, np.abs(a), np.abs(b))
    e_sum = sum_bound * products + floor
    if pieces > 1:  # each partial sum rounded to C and added into it (split-k's atomics, stream-k)
        e_sum = e_sum + (pieces + 1) * (UNIT_ROUNDOFF[c_type] + UNIT_ROUNDOFF[spec.acc]) * products
    epilogue_operands = epilogue_ref.operand_values(spec, args, products.shape)
    total = epilogue_ref.Bounded(product(spec, args, a, b), e_sum)
    result = epilogue_ref.evaluate(spec.epilogue, spec.acc, total, epilogue_operands)
    amax = output_check.amax_expected(spec, args, e_sum, name)
    wanted = [(spec.c, result, c_type)] + [
        (i, epilogue_ref.evaluate(spec.epilogue, spec.acc, total, epilogue_operands, output=k), t)
        for k, (i, t) in enumerate(zip(spec.outputs, others))]
    stats = Stats()
    run(args, stats)
    comparisons, mismatches, first = [], 0, None
    for i, want, t in wanted:
        got = args[i].astype(np.float64)
        limit = want.e + UNIT_ROUNDOFF[t] * (np.abs(want.v) + want.e) + SMALLEST_NORMAL[t]
        comparisons.append(compare(got, Terms(want.v, np.abs(want.v), np.zeros_like(products)), limit))
        differ = ~(np.abs(got - want.v) <= limit)
        mismatches += int(differ.sum())
        if differ.any() and first is None:
            at = tuple(int(x) for x in np.argwhere(differ)[0])
            first = (*position(at), float(got[at]), float(want.v[at]))
    return _EpilogueRun(comparisons[0], stats, mismatches, first, args[spec.c].astype(np.float64), result.v,
                        amax.after(args) if amax is not None else None, comparisons[1:])


def _exact_epilogue_inputs(fn: func.FuncOp, spec: MatmulSpec, args: list, seed: int,
                           types: tuple[str, str, str | None], k: int):
    """Small integers whose product sums are exact in the accumulator and C, written into `args`:
    A, B and each epilogue tensor integers of the plan's range, scalars powers of two."""
    in_type, c_type, rounded_to = types
    rng = np.random.default_rng([seed, 1])
    m, n, _ = spec.mnk(args)
    for i in spec.epilogue_args:
        if not isinstance(fn.args[i].type, MemRefType):
            args[i] = round_to(rng.choice(EXACT_SCALARS), fn.args[i].type)
    in_bits = min(_integer_bits(t) for t in (in_type, rounded_to or in_type))
    # the epilogue's tensors are integers in [-2, 2]: a scale of up to 2 and the added terms
    # leave the sums, and a scaled sum plus a bias, exact in the plan's range
    plan = exact_plan(k, min(PRECISION[spec.acc], PRECISION[c_type]), in_bits, 2.0, 2.0 * len(spec.epilogue_args))
    op_a, op_b = _exact_operands(spec, args, rng, plan, (m, n, k))
    for i, x, t in ((spec.a, op_a, spec.transpose_a), (spec.b, op_b, spec.transpose_b)):
        args[i] = np.ascontiguousarray(op_of(x, t)).astype(args[i].dtype)
    for i in spec.epilogue_args:
        if isinstance(fn.args[i].type, MemRefType):
            args[i] = exact_values(rng, args[i].shape, min(plan.r, 2)).astype(args[i].dtype)
    if spec.scale_a is not None and spec.scale_b is not None:
        for i in (spec.scale_a, spec.scale_b):
            args[i] = rng.choice([1.0, 2.0], size=args[i].shape).astype(args[i].dtype)
    return plan


def _exact_operands(spec: MatmulSpec, args: list, rng, plan, mnk) -> tuple[np.ndarray, np.ndarray]:
    """op(A) and op(B) of small integers (A's with the plan's zeros), each of its own batch shape."""
    m, n, k = mnk
    op_a = sparsify(exact_values(rng, args[spec.a].shape[:-2] + (m, k), plan.r), plan.stride)
    return op_a, exact_values(rng, args[spec.b].shape[:-2] + (k, n), plan.r)


def _integer_check(fn: func.FuncOp, spec: MatmulSpec, dims: dict[str, int], seed: int, run: Runner) -> CheckResult:
    """An integer product: C exact, on random inputs and at the ends of the ranges (gemmc.interp.integer)."""
    args = random_inputs(fn, dims, seed)
    m, n, k = spec.mnk(args)
    stats = Stats()
    result = integer_runs(fn, spec, args, seed, run, stats)
    in_type = input_types(fn, spec)
    return CheckResult(0.0 if result.passed else 1.0, 0.0, result.passed, stats, (m, n, k), exact=result,
                       in_type=in_type)


def _reduced_pieces(module: ModuleOp, k: int) -> int:
    """How many partial sums of an element of C the kernel may scale and add into C one by one:
    1, or where it adds them with atomics (split-k{reduce=atomic}, stream-k's fix-up) up to its
    K tiles (every piece holds whole K tiles: the smallest block-k of its kernels' schedules),
    each alpha * partial rounded and each add rounded in C's type."""
    from xdsl.dialects.builtin import DictionaryAttr, IntegerAttr

    if not any(op.name == "memref.atomic_rmw" and op.kind.value.data == ATOMIC_ADDF for op in module.walk()):
        return 1  # (an amax output's max is not a sum; stream-k's fix-up counts in integers and sums its slots in order)
    schedules = [op.attributes.get(SCHEDULE_ATTR) for op in module.walk()]
    block_k = [s.data.get("block_k") for s in schedules if isinstance(s, DictionaryAttr)]
    smallest = min((b.value.data for b in block_k if isinstance(b, IntegerAttr)), default=1)
    return max(1, -(-k // max(1, smallest)))


def _exact_run(fn: func.FuncOp, spec: MatmulSpec, dims: dict[str, int], seed: int,
               types: tuple[tuple[str, str], str, str | None], run: Runner, pieces: int = 1) -> ExactResult:
    """Run on small integers (accuracy.exact_plan) and compare C bit for bit; the integers
    are exact in A's and B's types (types: (A's, B's), C's, the kernel's rounding).  Where a
    scale is not exact, C is held to its rounding, in each of the `pieces` partial sums
    (_reduced_pieces) that the kernel scales and adds into C."""
    in_types, c_type, rounded_to = types
    args = random_inputs(fn, dims, seed)  # shapes and scalar types; the values are replaced
    rng = np.random.default_rng([seed, 1])
    for s in (spec.alpha, spec.beta):
        if s is not None and s.arg is not None:
            args[s.arg] = round_to(rng.choice(EXACT_SCALARS), fn.args[s.arg].type)
    m, n, k = spec.mnk(args)
    sizes = [abs(_declared(s, args, spec.acc)) if s is not None else 0.0 for s in (spec.alpha, spec.beta)]
    in_bits = min(_integer_bits(t) for t in (*in_types, rounded_to or in_types[0]))
    scaled = spec.scale_a is not None and spec.scale_b is not None
    # scales of 1 or 2 (E8M0 127, 128): each product grows by up to 4, which the plan allows for
    growth = 4.0 if scaled else 1.0
    plan = exact_plan(k, min(PRECISION[spec.acc], PRECISION[c_type]), in_bits,
                      growth * (sizes[0] if spec.alpha is not None else 1.0), sizes[1])
    op_a, op_b = _exact_operands(spec, args, rng, plan, (m, n, k))
    for i, x, t in ((spec.a, op_a, spec.transpose_a), (spec.b, op_b, spec.transpose_b)):
        args[i] = np.ascontiguousarray(op_of(x, t)).astype(args[i].dtype)
    args[spec.c] = exact_values(rng, args[spec.c].shape, plan.r).astype(args[spec.c].dtype)
    if scaled:
        for i in (spec.scale_a, spec.scale_b):
            args[i] = rng.choice([1.0, 2.0], size=args[i].shape).astype(args[i].dtype)
    t = terms(spec, args)
    run(args, Stats())
    got = args[spec.c].astype(np.float64)
    if _exact_epilogue(t.ref, spec, args, c_type):
        return exact_compare(got, t.ref, plan)
    # A scale such as 0.3 or 1e-40 rounds alpha * sum: exact sums, C within that rounding.
    limit = (UNIT_ROUNDOFF[c_type] + 2 * UNIT_ROUNDOFF[spec.acc]) * (np.abs(t.ref) + t.added) \
        + SMALLEST_NORMAL[c_type]
    if pieces > 1:  # alpha * each partial sum rounded, each add into C: |alpha| |A| |B| bounds the partials
        limit = limit + (pieces + 1) * (UNIT_ROUNDOFF[c_type] + UNIT_ROUNDOFF[spec.acc]) * (t.products + t.added)
    return exact_compare(got, t.ref, plan, limit)


def _integer_bits(name: str) -> int:
    """Bits of the integers 1 .. 2^bits that `name` holds exactly: its significand's, fewer where
    its range ends first (FP6 e2m3 holds 1 .. 7, FP4 e2m1 1 .. 4 of 1 .. 6)."""
    bits = PRECISION[name]
    if name in MX_NARROW_TYPES:
        bits = min(bits, int(np.log2(_format_max(name))))
    return bits


def _exact_epilogue(ref: np.ndarray, spec: MatmulSpec, args: list, c_type: str) -> bool:
    """Whether the sum, alpha * sum, beta * C0 and the result are exact in the accumulator's
    and C's types (the partial sums are, by the plan), so C must equal ref bit for bit."""
    a, b = operands(spec, args)
    if spec.scale_a is not None and spec.scale_b is not None:
        a, b = scaled_operands(spec, args, a, b)
    total = product(spec, args, a, b)
    parts = [ref, total]
    if spec.alpha is not None:
        parts.append(_declared(spec.alpha, args, spec.acc) * total)
    if spec.beta is not None:
        parts.append(_declared(spec.beta, args, spec.acc) * args[spec.c].astype(np.float64))
    return all(np.array_equal(_rounded(p, t), p) for p in parts for t in (spec.acc, c_type))
