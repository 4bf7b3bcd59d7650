"""Run a named pipeline on a module: the one way every part of gemmc lowers with a pipeline it names.

    lower_with(module, "step3,double-buffer", "gfx942")

gemmc.driver.api.lower also chooses the pipeline where none is named (the selection); the
selection, the dispatch, explain, tune and gemmc's own backend name theirs and call this.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import DiagnosticException, VerifyException

from gemmc.driver.pipeline import (AFTER_THE_PIPELINE, OPTIONAL_PASSES, PREPARES, parse_pipeline_spec, pass_name,
                                   run_pipeline, top_level_passes, verify_module)
from gemmc.support.context import make_context
from gemmc.support.diagnostics import GemmcError, verifier_message
from gemmc.support.ir_names import PIPELINE_ATTR
from gemmc.target.arch import INTEGER_DTYPES, Arch, as_arch
from gemmc.target.module_arch import set_target


def lower_with(
    module: ModuleOp,
    pipeline: str,
    arch: Arch | str,
    after_each: Callable[[ModulePass, ModuleOp], None] | None = None,
    finalize: bool = True,
    verify_each: bool = False,
    verify: bool = True,
) -> ModuleOp:
    """Run `pipeline` (a name such as 'step1', or a pass list; '' for none) on `module` for
    `arch`, in place; gemmc.driver.api.lower says what `finalize` and `verify_each` do; without
    `verify`, the IR the passes made is left for the caller to verify (run_pipeline)."""
    target = as_arch(arch)
    check_dtypes(module, target)
    return run_spec(module, pipeline, target, after_each, finalize, verify_each, verify)


def lower_dropping(module: ModuleOp, spec: str, arch: Arch | str, after_each=None, finalize: bool = True,
                   verify_each: bool = False, verify: bool = True) -> tuple[ModuleOp, str, str]:
    """`module` (left as it is) lowered with `spec` on a copy, as lower_with does, where each pass of
    OPTIONAL_PASSES in `spec` runs if it takes the IR the passes before it made: (the lowered module, the
    pipeline it ran, why it runs without some, or "").  An optional pass that refuses (its located pass
    error) is left out, and so is a pass that prepares it (PREPARES: pack-operands for tma-copies) with it;
    a preparing pass that leaves the IR as it was is left out of the pipeline it ran (it made no part of the
    IR: the pipeline without it makes the same).  The reason lists the refusals, the prepared pass's first
    ("tma-copies: ...; pack-operands: ..."); any other error is raised."""
    target = as_arch(arch)
    passes = top_level_passes(spec) if spec.strip() else []
    optional = [i for i, p in enumerate(passes) if pass_name(p) in OPTIONAL_PASSES]
    if not optional:
        return lower_with(module.clone(), spec, target, after_each, finalize, verify_each, verify), spec, ""
    run = _Dropping(passes, target, after_each, verify_each)
    head = lower_with(module.clone(), ",".join(passes[:optional[0]]), target, after_each, False, verify_each, False)
    out = run.from_pass(head, optional[0])
    if finalize:
        lower_tile_ops(out, after_each, verify_each, False)
    if verify:  # once, at the end (the trials' passes verified nothing of theirs: run_pipeline's `verify`)
        verify_module(out, AFTER_THE_PIPELINE)
    ran = ",".join(p for p, kept in zip(passes, run.kept) if kept)
    out.attributes[PIPELINE_ATTR] = StringAttr(ran)
    return out, ran, "; ".join(sorted(run.refusals.values(), key=lambda m: m.split(": ")[0] in PREPARES))


def refusals(dropped: str) -> list[tuple[str, str]]:
    """lower_dropping's reason as (pass name, why) pairs, in its order."""
    if not dropped:
        return []
    names = "|".join(re.escape(n) for n in OPTIONAL_PASSES)
    return [tuple(part.split(": ", 1)) for part in re.split(rf"; (?=(?:{names}): )", dropped)]


class _Dropping:
    """lower_dropping's walk through a pipeline's passes, from the first optional one on."""

    def __init__(self, passes: list[str], target: Arch, after_each, verify_each: bool):
        self.passes, self.target, self.after_each, self.verify_each = passes, target, after_each, verify_each
        self.kept = [True] * len(passes)
        self.refusals: dict[str, str] = {}  # pass name -> its first refusal
        self.before: dict[int, ModuleOp] = {}  # a preparing pass that ran -> the IR before it

    def from_pass(self, module: ModuleOp, i: int) -> ModuleOp:
        """The passes from `i` on (those kept) run on `module`, an optional one on a copy first."""
        while i < len(self.passes):
            j = next((x for x in range(i, len(self.passes)) if self.kept[x]
                      and pass_name(self.passes[x]) in OPTIONAL_PASSES), len(self.passes))
            self._run(module, [p for p, kept in zip(self.passes[i:j], self.kept[i:j]) if kept])
            if j == len(self.passes):
                return module
            name = pass_name(self.passes[j])
            trial = module.clone()
            try:
                self._run(trial, [self.passes[j]])
            except GemmcError as e:
                if not e.message.startswith(f"{name}: "):
                    raise
                self.refusals.setdefault(name, e.message)
                self.kept[j] = False
                prepared = [x for x in self.before if self.kept[x] and PREPARES[pass_name(self.passes[x])] == name]
                if prepared:  # what prepared the refused pass goes with it: the IR before it, without it
                    x = prepared[0]
                    self.kept[x] = False
                    module, i = self.before[x], x + 1
                else:
                    i = j + 1
                continue
            if name in PREPARES and trial.body.is_structurally_equivalent(module.body):
                self.kept[j] = False  # it changed nothing: no part of the pipeline that made the IR
            elif name in PREPARES:
                self.before[j], module = module, trial
            else:
                module = trial
            i = j + 1
        return module

    def _run(self, module: ModuleOp, passes: list[str]) -> None:
        if passes:
            run_spec(module, ",".join(passes), self.target, self.after_each, False, self.verify_each, False)


def run_spec(module: ModuleOp, spec: str, target: Arch, after_each=None, finalize: bool = True,
             verify_each: bool = False, verify: bool = True) -> ModuleOp:
    """The passes of `spec`, then (with `finalize`) lower-copies where gemm.copy ops are left;
    the module's dtypes already checked against `target`."""
    passes = parse_pipeline_spec(spec) if spec.strip() else []
    set_target(module, target)
    if spec.strip():
        module.attributes[PIPELINE_ATTR] = StringAttr(spec)
    try:
        run_pipeline(module, passes, make_context(), after_each, verify_each, verify)
        if finalize:
            lower_tile_ops(module, after_each, verify_each, verify)
    except (VerifyException, DiagnosticException) as e:
        raise GemmcError(f"IR does not verify after a pass: {verifier_message(e)}") from None
    return module


def lower_tile_ops(module: ModuleOp, after_each, verify_each: bool = False, verify: bool = True) -> None:
    """lower-copies, when the pipeline left gemm.copy ops (the module verified after it, with `verify`)."""
    from gemmc.transforms.copy_lowering import has_copies
    from gemmc.passes.lower_copies import LowerCopiesPass

    if has_copies(module):
        run_pipeline(module, [LowerCopiesPass()], make_context(), after_each, verify_each, verify)


# ops that make a value of a type without computing in it (Arch.compute_dtypes)
_MOVES = ("arith.constant", "arith.extf", "arith.truncf", "arith.bitcast", "arith.select")


def _mbarriers(t, arch: Arch) -> bool:
    """An array of mbarriers (i64 in shared memory: warp-specialize's), not data of the problem."""
    from gemmc.support.ir_names import LDS_SPACE, memory_space

    return arch.vendor == "nvidia" and str(t.element_type) == "i64" and memory_space(t) == LDS_SPACE


def check_dtypes(module: ModuleOp, arch: Arch) -> None:
    """A dtype the arch cannot do is an error before any pass runs.  An output may be of any
    format the arch converts to (Arch.output_dtypes: an FP8 format it lacks, in software); the
    product's operands, and any value other than an arith.truncf's, need one it has."""
    from xdsl.dialects.builtin import MemRefType, VectorType

    from gemmc.dialects.gemm import ELEMENT_TYPES, MatmulOp, type_name

    computes = (arch.compute_dtypes or arch.dtypes) + INTEGER_DTYPES
    dtypes = arch.dtypes + INTEGER_DTYPES
    for op in module.walk():
        if isinstance(op, MatmulOp):
            _check_matmul(op, arch, computes)
        for v in op.results:
            t = v.type
            scalar = t.element_type if isinstance(t, VectorType) else t
            name = type_name(scalar)
            arithmetic = op.name.startswith(("arith.", "math.")) and op.name not in _MOVES
            converted = op.name == "arith.truncf" and name in arch.output_dtypes
            if name in ELEMENT_TYPES and ((name not in dtypes and not converted) or (arithmetic and name not in computes)):
                # kernel IR given as input: its arithmetic, not only its memrefs
                raise GemmcError(f"{arch.name} cannot do {name} arithmetic "
                                 f"(at '{op.name}'; it supports {', '.join(computes if arithmetic else arch.dtypes)})")
            if isinstance(t, MemRefType):
                _check_buffer(t, arch, hint=False)
        if op.name == "func.func":
            for t in op.function_type.inputs.data:
                if isinstance(t, MemRefType):
                    _check_buffer(t, arch, hint=True)


def _check_matmul(op, arch: Arch, computes: tuple[str, ...]) -> None:
    """The accumulator is a type the arch computes in; A and B are of formats it has."""
    from gemmc.dialects.gemm import type_name

    if type_name(op.acc_type) not in computes:
        raise GemmcError(f"{arch.name} cannot accumulate in {type_name(op.acc_type)} "
                         f"(it supports {', '.join(arch.compute_dtypes or arch.dtypes)}); use 'acc f32'")
    for operand in (op.a, op.b):
        name = type_name(operand.type.element_type)
        if name not in arch.dtypes + INTEGER_DTYPES:
            raise GemmcError(f"{arch.name} cannot do {name} operands (it supports {', '.join(arch.dtypes)})")


def _check_buffer(t, arch: Arch, hint: bool) -> None:
    """A memref's element type is one the arch has, or an output format it converts to."""
    from gemmc.dialects.gemm import type_name

    if type_name(t.element_type) not in arch.output_dtypes + INTEGER_DTYPES and not _mbarriers(t, arch):
        why = ": the FNUZ FP8 formats and the MX formats need an AMD target" if hint and arch.vendor != "amd" else ""
        raise GemmcError(f"{arch.name} cannot do {type_name(t.element_type)} in gemmc's output "
                         f"(it supports {', '.join(arch.dtypes)}){why}")
