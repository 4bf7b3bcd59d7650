"""gemmc's Python API: everything the CLI does, callable from scripts and notebooks.

    import gemmc
    module = gemmc.parse_file("examples/sgemm.gemm", defines={"M": 257})
    gemmc.lower(module, "step1", arch="gfx942")
    print(gemmc.emit(module, "gfx942", "hip"))
    print(gemmc.check(module, arch="gfx942").passed)

Errors are raised as `gemmc.GemmcError`; its `render()` is what the CLI prints.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.passes import ModulePass

from gemmc.driver.lowering import check_dtypes, run_spec
from gemmc.driver.pipeline import gcn_default_pipeline, mx_format, scaled_pipeline
from gemmc.driver.source import is_lowered, print_ir, read_source
from gemmc.support.diagnostics import GemmcError
from gemmc.support.ir_names import SELECTED_ATTR
from gemmc.target.arch import Arch, as_arch


# -- lowering -----------------------------------------------------------------------


def lower(
    module: ModuleOp,
    pipeline: str | None,
    arch: Arch | str,
    after_each: Callable[[ModulePass, ModuleOp], None] | None = None,
    finalize: bool = True,
    backend: str = "hip",
    selection: dict[str, str] | None = None,
    verify_each: bool = False,
) -> ModuleOp:
    """Run a pipeline (a name such as 'step1', a pass list, None for the arch default).

    Without a pipeline, gemmc.driver.selection chooses one for the problem's shape (`backend="gcn"`,
    gemmc's own AMDGCN backend: the arch's default pipeline); `selection`, a selection table
    ({problem_key: pipeline}, see load_selection), has its say first.

    With `finalize`, tile-level ops that the pipeline left (gemm.copy) are then lowered
    to loops (lower-copies), as interpreting, emitting and the cost model need; `gemmc
    opt` keeps them, so that the IR can be edited and handed to further passes.  The IR is
    verified after the pipeline and after each pass that is not gemmc's (run_pipeline); with
    `verify_each`, after every pass, which names the pass that broke it (`gemmc opt` does so)."""
    target = as_arch(arch)
    if pipeline is None and is_lowered(module):
        pipeline = ""  # IR that is already kernel IR: nothing to add by default
    check_dtypes(module, target)
    if pipeline is None and _is_block_scaled(module):  # the selection has no block-scaled variants
        pipeline = scaled_pipeline(target, mx_format(*_operand_bits(module)))
        module.attributes[SELECTED_ATTR] = StringAttr("the block-scaled (MX) pipeline (the selection has no "
                                                      "variants for scales)")
    if pipeline is None and backend == "gcn":
        # its own backend has no split-k (block_id z, atomics, workspaces), and it keeps the
        # type-independent default (the 16-bit defaults' register-staged copies are beyond it)
        from gemmc.driver.selection import input_type

        pipeline = gcn_default_pipeline(target, input_type(module))
    if pipeline is None:
        from gemmc.driver.selection import base_pipeline

        choice = _select(module, target, selection)
        if choice.lowered is not None and finalize and after_each is None:
            return _adopt(module, choice.lowered)  # what the selection lowered already
        # a dispatch between variants (not runnable as one pipeline): its default, as the selection lowered it
        pipeline = choice.pipeline if choice.runnable else choice.pipelines.get("default", base_pipeline(module, target)[0])
    return run_spec(module, pipeline, target, after_each, finalize, verify_each)


def _is_block_scaled(module: ModuleOp) -> bool:
    from gemmc.dialects.gemm import MatmulOp

    return any(isinstance(op, MatmulOp) and op.is_scaled for op in module.walk())


def _operand_bits(module: ModuleOp) -> tuple[int, int]:
    """The bit widths of A's and B's elements in the module's (first) block-scaled gemm.matmul."""
    from gemmc.dialects.gemm import MatmulOp

    op = next(op for op in module.walk() if isinstance(op, MatmulOp) and op.is_scaled)
    return op.a.type.element_type.bitwidth, op.b.type.element_type.bitwidth


def _select(module: ModuleOp, target: Arch, selection: dict[str, str] | None = None):
    """The pipeline for this problem on this arch (gemmc.driver.selection), with why on the module."""
    from gemmc.driver.selection import select_pipeline

    choice = select_pipeline(module, target, selection)
    module.attributes[SELECTED_ATTR] = StringAttr(choice.reason)
    return choice


def _adopt(module: ModuleOp, lowered: ModuleOp) -> ModuleOp:
    """`module` becomes `lowered` (its ops and attributes), in place, as lower() promises."""
    for op in list(module.body.block.ops):
        op.detach()
        op.erase()
    for op in list(lowered.body.block.ops):
        op.detach()
        module.body.block.add_op(op)
    module.attributes.update(lowered.attributes)
    return module


def load_selection(path: str, arch: Arch | str) -> dict[str, str]:
    """A selection table file (`gemmc tune --shapes` writes them) as lower()'s `selection`;
    a file that is not one, or one for another arch, is a GemmcError naming the file."""
    from gemmc.driver.sweep import load_selection as _load

    return _load(path, as_arch(arch).name)


def tune_shapes(path: str, arch: Arch | str, shapes, output: str, **options) -> dict:
    """Tune the kernel in `path` for each (M, N, K) in `shapes` (or a CSV file of them) and
    write the selection table to `output` (gemmc.driver.sweep.tune_shapes has the options)."""
    from gemmc.driver.sweep import read_shapes, tune_shapes as _tune

    if isinstance(shapes, str):
        shapes = read_shapes(shapes)
    return _tune(read_source(path), as_arch(arch).name, list(shapes), output, **options)


# -- running, emitting --------------------------------------------------------------


def check(module: ModuleOp, arch: Arch | str = "gfx942", dims: dict[str, int] | None = None, seed: int = 0,
          level: str = "ir"):
    """Interpret on random inputs and compare with a float64 numpy reference.  `level="asm"`:
    run the AMDGCN assembly that LLVM (clang) makes of the module's HIP instead of its IR
    (gemmc.amdgcn.asm_front; the module is lowered already)."""
    if level == "asm":
        from gemmc.driver.asm_level import check_asm

        return check_asm(module, as_arch(arch), dims, seed, path=f"<{as_arch(arch).name} assembly of clang>")
    if level != "ir":
        raise GemmcError(f"unknown level '{level}'; expected ir or asm", code=2)

    if _holds_gcn_program(module):
        from gemmc.amdgcn.interp import check as gcn_check

        return gcn_check(module, as_arch(arch), dims or {}, seed)
    from gemmc.interp import check as _check

    try:
        return _check(module, dims or {}, as_arch(arch), seed=seed)
    except MemoryError as e:
        raise GemmcError(f"not enough memory to interpret this size ({e}); choose smaller sizes with -D") from None


def _holds_gcn_program(module: ModuleOp) -> bool:
    """Whether the module holds gemmc's own AMDGCN backend's program (an amdgcn.module).  Its op
    class is imported by whatever made or parsed one, so a process that never imported it holds
    none: the HIP path's `gemmc run` then does not load the AMDGCN dialect and its tables."""
    kernel = sys.modules.get("gemmc.dialects.amdgcn.kernel")
    return kernel is not None and any(isinstance(op, kernel.GcnModuleOp) for op in module.walk())


def emit(module: ModuleOp, arch: Arch | str, kind: str = "hip", harness: bool = False) -> str | bytes:
    """The module as HIP source, IR text, AMDGCN assembly or a code object."""
    target = as_arch(arch)
    if kind == "mlir":
        return print_ir(module)
    if kind in ("gcn", "gcn-hsaco"):  # gemmc's own AMDGCN backend (docs/amdgcn.md)
        from gemmc.driver.gcn import emit_gcn, emit_gcn_hsaco

        return emit_gcn(module, target) if kind == "gcn" else emit_gcn_hsaco(module, target)
    from gemmc.emit import emit_hip

    source = emit_hip(module, target, harness=harness)
    if kind == "hip":
        return source
    if target.vendor == "nvidia" and kind in ("asm", "hsaco"):
        from gemmc.target.cuda import compile_cuda

        return compile_cuda(source, target, kind)  # PTX, or a cubin
    from gemmc.target.toolchain import compile_device

    if kind in ("asm", "hsaco"):
        return compile_device(source, target, kind)
    raise GemmcError(f"unknown output kind '{kind}'; expected hip, mlir, asm, hsaco, gcn or gcn-hsaco", code=2)


def resource_report(module: ModuleOp, arch: Arch | str) -> str:
    if _holds_gcn_program(module):  # gemmc's own backend: its own counts
        from gemmc.amdgcn import report

        return report(module)
    from gemmc.emit import emit_hip
    from gemmc.target.toolchain import format_report, resource_report as _report

    target = as_arch(arch)
    if target.vendor == "nvidia":
        from gemmc.target.cuda import resource_report as cuda_report

        return format_report(cuda_report(emit_hip(module, target), target))
    return format_report(_report(emit_hip(module, target), target))
