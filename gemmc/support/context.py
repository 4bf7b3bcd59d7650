"""The xDSL context that knows every dialect gemmc reads and writes."""

from __future__ import annotations

import importlib
from collections.abc import Callable

from xdsl.context import Context
from xdsl.dialects.builtin import Builtin
from xdsl.ir import Dialect

DIALECTS: dict[str, tuple[str, str]] = {
    "func": ("xdsl.dialects.func", "Func"),
    "arith": ("xdsl.dialects.arith", "Arith"),
    "math": ("xdsl.dialects.math", "Math"),
    "memref": ("xdsl.dialects.memref", "MemRef"),
    "scf": ("xdsl.dialects.scf", "Scf"),
    "gpu": ("xdsl.dialects.gpu", "GPU"),
    "vector": ("xdsl.dialects.vector", "Vector"),
    "ub": ("xdsl.dialects.ub", "UB"),
    "gemm": ("gemmc.dialects.gemm", "Gemm"),
    "amdgpu": ("gemmc.dialects.amdgpu", "AMDGPU"),
    "nvgpu": ("gemmc.dialects.nvgpu", "NVGPU"),
    "amdgcn": ("gemmc.dialects.amdgcn", "AMDGCN"),
}
"""Dialect name -> (module, Dialect object): registered, and imported by the parser only when
the text uses the dialect (the AMDGCN dialect alone takes as long to import as a compile's passes)."""


def _factory(module: str, attr: str) -> Callable[[], Dialect]:
    return lambda: getattr(importlib.import_module(module), attr)


def make_context() -> Context:
    ctx = Context()
    ctx.load_dialect(Builtin)
    for name, (module, attr) in DIALECTS.items():
        ctx.register_dialect(name, _factory(module, attr))
    return ctx
