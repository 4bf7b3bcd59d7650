"""gemmc: compile a small GEMM language into kernels for AMD GPUs, in the style of MLIR.

The package's top is its Python API, gathered from where each function lives (docs/ARCHITECTURE.md
draws the levels): reading and writing (gemmc.driver.source), lowering (gemmc.driver.api,
gemmc.driver.pipeline), interpreting and emitting (gemmc.driver.api), explaining and tuning
(gemmc.driver.explain, gemmc.driver.tune: loaded when first used).  Nothing inside gemmc imports this module.
"""

# Load the subpackage gemmc.emit first: its first import sets the attribute `gemmc.emit`,
# which the API function of the same name below must then replace for good.
import gemmc.emit  # noqa: F401  isort: skip
from gemmc.driver.api import check, emit, load_selection, lower, resource_report, tune_shapes
from gemmc.driver.lowering import lower_with
from gemmc.driver.pipeline import load_pass_file, register_pass
from gemmc.driver.source import (
    is_lowered, parse, parse_file, parse_ir, print_ir, read_source, verify, write_output,
)
from gemmc.support.diagnostics import GemmcError
from gemmc.target.arch import ARCHS, get_arch

__version__ = "0.1.0"

_LAZY = {"explain_file": "gemmc.driver.explain", "tune_file": "gemmc.driver.tune"}
"""Functions whose modules load the cost model (numpy): imported when first asked for, so that
`import gemmc` (and the CLI's --help) stays quick."""


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'gemmc' has no attribute {name!r}")

__all__ = [
    "ARCHS", "GemmcError", "check", "emit", "explain_file", "get_arch", "is_lowered", "load_pass_file",
    "load_selection", "lower", "lower_with", "parse", "parse_file", "parse_ir", "print_ir", "read_source",
    "register_pass", "resource_report", "tune_file", "tune_shapes", "verify", "write_output",
]
