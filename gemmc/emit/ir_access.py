"""What the HIP printers read of the IR besides the ops' own accessors, and the error they raise.

    raise emit_error(op, "...")   # emit-hip: ... (at 'memref.load' in @kernel), exit code EXIT_INPUT
"""

from __future__ import annotations

from collections.abc import Iterable

from xdsl.dialects.builtin import StringAttr
from xdsl.ir import Attribute, Block, Operation, SSAValue

from gemmc.support.diagnostics import EXIT_INPUT, GemmcError

PASS_NAME = "emit-hip"


def emit_error(op: Operation | None, message: str) -> GemmcError:
    """A precondition of the emitter that the IR breaks, naming the op and its function."""
    if op is None:
        return GemmcError(f"{PASS_NAME}: {message}", code=EXIT_INPUT)
    where = f"'{op.name}'"
    fn = op if sym_name(op) is not None else op.parent_op()
    while fn is not None and sym_name(fn) is None:
        fn = fn.parent_op()
    if fn is not None:
        where += f" in @{sym_name(fn)}"
    return GemmcError(f"{PASS_NAME}: {message} (at {where})", code=EXIT_INPUT)


def ir_prop(op: Operation, name: str) -> Attribute | None:
    """A property or, failing that, an attribute (never `or`: some attributes are falsy)."""
    value = op.properties.get(name)
    return value if value is not None else op.attributes.get(name)


def sym_name(op: Operation) -> str | None:
    attr = ir_prop(op, "sym_name")
    return attr.data if isinstance(attr, StringAttr) else None


def walk_block(block: Block) -> Iterable[Operation]:
    for op in block.ops:
        yield from op.walk()


def launch_operands(launch: Operation) -> list[SSAValue]:
    """The values a gpu.launch_func passes to its kernel, in parameter order."""
    return list(getattr(launch, "kernelOperands"))
