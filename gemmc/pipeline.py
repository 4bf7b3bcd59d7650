"""Passes by name, pipelines in xdsl-opt's syntax, and the target a module is built for."""

from __future__ import annotations

import dataclasses
import re
import typing
from collections.abc import Callable

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.passes import ModulePass, PassPipeline
from xdsl.utils.arg_spec import parse_pipeline
from xdsl.utils.exceptions import ArgSpecParseError

from gemmc.arch import DEFAULT_ARCH, Arch, get_arch
from gemmc.diagnostics import usage_error

TARGET_ATTR = "gemmc.target"


def _gemm_to_kernel():
    from gemmc.passes.gemm_to_kernel import GemmToKernelPass

    return GemmToKernelPass


def _lds_tiling():
    from gemmc.passes.lds_tiling import LdsTilingPass

    return LdsTilingPass


def _register_tiling():
    from gemmc.passes.register_tiling import RegisterTilingPass

    return RegisterTilingPass


def _double_buffer():
    from gemmc.passes.double_buffer import DoubleBufferPass

    return DoubleBufferPass


def _vectorize():
    from gemmc.passes.vectorize import VectorizePass

    return VectorizePass


def _launch_bounds():
    from gemmc.passes.launch_bounds import LaunchBoundsPass

    return LaunchBoundsPass


def _amdgcn(module: str, cls: str) -> Callable[[], type[ModulePass]]:
    """A pass of gemmc's own AMDGCN backend (docs/amdgcn.md), imported on first use."""

    def load() -> type[ModulePass]:
        import importlib

        return getattr(importlib.import_module(f"gemmc.passes.{module}"), cls)

    return load


def _matrix_pass(module: str, cls: str) -> Callable[[], type[ModulePass]]:
    """A matrix-core or direct-to-LDS pass (passes/mfma_lowering.py, ...), imported on first use."""

    def load() -> type[ModulePass]:
        import importlib

        return getattr(importlib.import_module(f"gemmc.passes.{module}"), cls)

    return load


def _analysis(module: str, cls: str) -> Callable[[], type[ModulePass]]:
    """A cost-model analysis pass (remarks on stderr, IR unchanged), imported on first use."""

    def load() -> type[ModulePass]:
        import importlib

        return getattr(importlib.import_module(f"gemmc.passes.{module}"), cls)

    return load


PASSES: dict[str, Callable[[], type[ModulePass]]] = {
    "gemm-to-kernel": _gemm_to_kernel,
    "lds-tiling": _lds_tiling,
    "register-tiling": _register_tiling,
    "double-buffer": _double_buffer,
    "vectorize": _vectorize,
    "launch-bounds": _launch_bounds,
    "pad-lds": _matrix_pass("pad_lds", "PadLdsPass"),
    "multi-buffer": _matrix_pass("multi_buffer", "MultiBufferPass"),
    "swizzle-lds": _matrix_pass("swizzle_lds", "SwizzleLdsPass"),
    "pipeline": _matrix_pass("pipeline_loop", "PipelinePass"),
    "analyze-lds-banks": _analysis("analyze_lds_banks", "AnalyzeLdsBanksPass"),
    "analyze-occupancy": _analysis("analyze_occupancy", "AnalyzeOccupancyPass"),
    "mfma-lowering": _matrix_pass("mfma_lowering", "MfmaLoweringPass"),
    "wmma-lowering": _matrix_pass("wmma_lowering", "WmmaLoweringPass"),
    "matrix-cores": _matrix_pass("matrix_cores", "MatrixCoresPass"),
    "direct-to-lds": _matrix_pass("direct_to_lds", "DirectToLdsPass"),
    "lower-to-amdgcn": _amdgcn("lower_to_amdgcn", "LowerToAmdgcnPass"),
    "amdgcn-regalloc": _amdgcn("amdgcn_regalloc", "AmdgcnRegallocPass"),
    "insert-waitcnt": _amdgcn("insert_waitcnt", "InsertWaitcntPass"),
    "amdgcn-finalize": _amdgcn("amdgcn_finalize", "AmdgcnFinalizePass"),
}

_STEP3 = "gemm-to-kernel,lds-tiling{block-m=128 block-n=128 block-k=16},register-tiling{thread-m=8 thread-n=8}"

NAMED_PIPELINES: dict[str, str] = {
    "step1": "gemm-to-kernel",
    "step2": "gemm-to-kernel,lds-tiling{block-m=16 block-n=16 block-k=16}",
    "step3": _STEP3,
    "step4": _STEP3 + ",double-buffer",
    "step5": _STEP3 + ",double-buffer,vectorize{width=4 operands=a}",
    "step6": _STEP3 + ",double-buffer,vectorize{width=4 operands=a},launch-bounds{max-threads=256 min-waves-per-eu=2}",
    # step 7: the arch's matrix cores (matrix-cores: mfma-lowering on CDNA, wmma-lowering on RDNA)
    "step7": _STEP3 + ",double-buffer,vectorize{width=4},matrix-cores,launch-bounds{max-threads=256 min-waves-per-eu=2}",
    # The fastest FP32 pipeline measured on the H200 (benchmarks/h200/results.md): k-major LDS
    # fragments read as float4 without bank conflicts, register-staged double buffering.
    "tuned-h200": "gemm-to-kernel,lds-tiling{block-m=128 block-n=128 block-k=16},"
                  "register-tiling{thread-m=8 thread-n=8 lds-layout=k-major unroll=true},"
                  "double-buffer{stage=registers},vectorize{width=4},launch-bounds{max-threads=256}",
}


def default_pipeline(arch: Arch) -> str:
    """What `gemmc compile` runs without -p: the best pipeline built so far for the arch."""
    if arch.vendor == "nvidia":
        return NAMED_PIPELINES["tuned-h200"]
    if arch.matrix_instrs:  # step 7 where the matrix cores take the kernel's types as they are
        return _STEP3 + ",double-buffer,vectorize{width=4},matrix-cores{convert=none fallback=true}," \
            "launch-bounds{max-threads=256 min-waves-per-eu=2}"
    return NAMED_PIPELINES["step6"]


def parse_pipeline_spec(spec: str) -> list[ModulePass]:
    """Parse 'a,b{opt=1}' or a named pipeline ('step1') into pass instances."""
    spec = NAMED_PIPELINES.get(spec.strip(), spec)
    try:
        specs = list(parse_pipeline(spec))
    except (Exception, ArgSpecParseError) as e:  # ArgSpecParseError is a BaseException
        raise usage_error(f"malformed pipeline '{spec}': {_spec_error(e)}") from None
    passes = []
    for s in specs:
        if s.name in NAMED_PIPELINES:
            if s.parameters:
                raise usage_error(f"pipeline '{s.name}' takes no options; spell out its passes to change them")
            passes.extend(parse_pipeline_spec(NAMED_PIPELINES[s.name]))
            continue
        if s.name not in PASSES:
            known = ", ".join([*PASSES, *NAMED_PIPELINES])
            raise usage_error(f"unknown pass '{s.name}'; known passes and pipelines: {known}")
        cls = PASSES[s.name]()
        _check_options(s.name, cls, s.parameters)
        try:
            passes.append(cls.from_pass_spec(s))
        except Exception as e:
            raise usage_error(f"pass '{s.name}': {_option_message(e)}") from None
    return passes


def _check_options(name: str, cls: type[ModulePass], params: dict[str, tuple]) -> None:
    """Unknown options and values of the wrong type, in words (xDSL's say 'Incompatible types')."""
    try:
        hints = typing.get_type_hints(cls)
    except Exception:  # an annotation that does not resolve: leave the types to xDSL
        hints = {}
    fields = {f.name.replace("_", "-"): hints.get(f.name) for f in dataclasses.fields(cls)}
    for key, values in params.items():
        option = key.replace("_", "-")
        if option not in fields:
            known = ", ".join(fields) or "none"
            raise usage_error(f"pass '{name}' has no option '{key}'; its options: {known}")
        kind = fields[option]
        shown = ",".join(str(v).lower() if isinstance(v, bool) else f'"{v}"' if isinstance(v, str) else str(v)
                         for v in values) or "nothing"
        if kind is bool and not (len(values) == 1 and isinstance(values[0], bool)):
            raise usage_error(f"pass '{name}': option '{option}' expects true or false, not {shown}")
        if kind is int and not (len(values) == 1 and isinstance(values[0], int) and not isinstance(values[0], bool)):
            raise usage_error(f"pass '{name}': option '{option}' expects an integer, not {shown}")


def _spec_error(e: BaseException) -> str:
    """xDSL's multi-line pipeline parse error as 'what (column N)'."""
    text = str(e)
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    where = re.search(r"pass-pipeline:\d+:(\d+)", text)
    what = lines[-1] if lines else type(e).__name__
    what = what[:1].lower() + what[1:]
    return f"{what} (column {where.group(1)})" if where else what


def _option_message(e: Exception) -> str:
    text = str(e).strip().splitlines()
    return text[0] if text else type(e).__name__


def set_target(module: ModuleOp, arch: Arch) -> None:
    module.attributes[TARGET_ATTR] = StringAttr(arch.name)


def target_of(module: ModuleOp) -> Arch:
    attr = module.attributes.get(TARGET_ATTR)
    return get_arch(attr.data if isinstance(attr, StringAttr) else DEFAULT_ARCH)


def run_pipeline(
    module: ModuleOp,
    passes: list[ModulePass],
    ctx: Context,
    after_each: Callable[[ModulePass, ModuleOp], None] | None = None,
) -> None:
    """Apply passes in order, verifying after each so a broken pass is caught where it broke."""
    for p in passes:
        p.apply(ctx, module)
        module.verify()
        if after_each is not None:
            after_each(p, module)


__all__ = ["PassPipeline", "parse_pipeline_spec", "run_pipeline", "set_target", "target_of"]
