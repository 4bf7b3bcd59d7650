"""Emitters: kernel IR to target text.

    from gemmc.emit import emit_hip
    source = emit_hip(module, get_arch("gfx942"), harness=False)

`emit_hip` lives in gemmc.emit.hip and is imported lazily, so that
`python -m gemmc.emit.hip` runs the module once, without a runpy warning.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gemmc.emit.hip import emit_hip as emit_hip

__all__ = ["emit_hip"]


def __getattr__(name: str) -> Any:
    if name == "emit_hip":
        from gemmc.emit.hip import emit_hip

        return emit_hip
    raise AttributeError(f"module 'gemmc.emit' has no attribute {name!r}")
