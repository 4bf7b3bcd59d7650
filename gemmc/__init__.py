"""gemmc: compile a small GEMM language into kernels for AMD GPUs, in the style of MLIR."""

# Load the subpackage gemmc.emit first: its first import sets the attribute `gemmc.emit`,
# which the API function of the same name below must then replace for good.
import gemmc.emit  # noqa: F401  isort: skip
from gemmc.api import (
    check,
    emit,
    load_pass_file,
    load_selection,
    lower,
    parse,
    parse_file,
    parse_ir,
    print_ir,
    register_pass,
    resource_report,
    tune_shapes,
    verify,
    write_output,
)
from gemmc.arch import ARCHS, get_arch
from gemmc.diagnostics import GemmcError

__version__ = "0.1.0"

__all__ = [
    "ARCHS", "GemmcError", "check", "emit", "get_arch", "load_pass_file", "load_selection", "lower",
    "parse", "parse_file", "parse_ir", "print_ir", "register_pass", "resource_report", "tune_shapes", "verify",
    "write_output",
]
