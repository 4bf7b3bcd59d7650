"""The arch a module is built for: its `gemmc.target` attribute, set before any pass runs.

Passes, dialect verifiers and analyses read it from here rather than from gemmc.driver.pipeline,
which imports the passes (a pass importing the pipeline would import itself).
"""

from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.ir import Operation

from gemmc.target.arch import DEFAULT_ARCH, Arch, get_arch
from gemmc.support.ir_names import TARGET_ATTR


def set_target(module: ModuleOp, arch: Arch) -> None:
    module.attributes[TARGET_ATTR] = StringAttr(arch.name)


def target_of(module: ModuleOp) -> Arch:
    """The module's arch; DEFAULT_ARCH when it names none."""
    attr = module.attributes.get(TARGET_ATTR)
    return get_arch(attr.data if isinstance(attr, StringAttr) else DEFAULT_ARCH)


def arch_of(op: Operation) -> Arch:
    """The target of the module holding `op`."""
    top = op
    while top.parent_op() is not None:
        top = top.parent_op()
    assert isinstance(top, ModuleOp)
    return target_of(top)
