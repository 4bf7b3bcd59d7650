"""The naming rule: which C identifier, and which kernel symbol, a name of the program gets.

Both backends apply it, so that a host program that loads a kernel by name (hipModuleGetFunction)
finds the same symbol in the HIP path's code object and in the own AMDGCN backend's
(docs/language.md, "Names"):

    c_identifier("float")          == "float_"        # a C++ keyword
    c_identifier("__Weird_Name_2") == "Weird_Name_2"  # __ names are the C++ implementation's
    kernel_symbols(["N", "N"], ["N"]) == ["N", "N_1"] # unique in the module

The HIP emitter names every identifier it prints with `c_identifier` (gemmc.emit.hip.Namer);
kernel symbols come from `kernel_symbols`, which the AMDGCN assembly printer calls too.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

CPP_KEYWORDS = frozenset("""
alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t char16_t
char32_t class compl concept const consteval constexpr constinit const_cast continue
co_await co_return co_yield decltype default delete do double dynamic_cast else enum explicit
export extern false float for friend goto if inline int long mutable namespace new noexcept
not not_eq nullptr operator or or_eq private protected public register reinterpret_cast
requires return short signed sizeof static static_assert static_cast struct switch template
this thread_local throw true try typedef typeid typename union unsigned using virtual void
volatile wchar_t while xor xor_eq restrict
""".split())
HIP_NAMES = frozenset("""
threadIdx blockIdx blockDim gridDim warpSize dim3 main std size_t stream hipStream_t
hipError_t hipSuccess fmaf fma min max abs assert printf half float2 float4 int2 int4
make_float2 make_float4 INFINITY NAN NULL EXIT_SUCCESS EXIT_FAILURE
""".split())
RESERVED = CPP_KEYWORDS | HIP_NAMES
"""Names no printed identifier may take: C++'s keywords and the HIP names the file uses."""

GENERATED_NAME = re.compile(r"(gemmc|GEMMC)_\w*|v[0-9]+(float|half|bf16|double|char|uchar|short|int|long)")
"""Names the printed file defines itself (helpers, vector typedefs)."""
RUNTIME_NAME = re.compile(r"(hip|HIP|cuda|CUDA)\w*")
"""The runtimes' own prefixes: HIP's headers define hip* functions and macros such as
hipLaunchKernelGGL(...), and the CUDA prelude maps hip* names to cuda* ones."""


def c_identifier(name: str) -> str:
    """The C identifier for `name`: invalid characters become `_`, a leading digit gets a
    `v`, leading underscores of a `__` name go, and a reserved, generated or runtime name
    gets a trailing `_`."""
    out = re.sub(r"[^A-Za-z0-9_]", "_", name)
    if not out or out[0].isdigit():
        out = "v" + out
    if out.startswith("__"):
        out = out.lstrip("_") or "v"
    if out in RESERVED or GENERATED_NAME.fullmatch(out) or RUNTIME_NAME.fullmatch(out):
        out += "_"
    return out


def launcher_name(host: str) -> str:
    """The HIP launcher of the host function `host`."""
    return f"launch_{c_identifier(host)}"


def kernel_symbols(kernels: Sequence[str], hosts: Iterable[str] = ()) -> list[str]:
    """The symbols of a module's kernels, in order: `c_identifier` of each name, with `_1`,
    `_2`, ... where it would repeat an earlier kernel's symbol or a launcher's name (the
    launchers of `hosts`, the module's host functions, share the HIP file's namespace)."""
    taken = {launcher_name(h) for h in hosts}
    out = []
    for name in kernels:
        base = c_identifier(name)
        symbol, n = base, 0
        while symbol in taken:
            n += 1
            symbol = f"{base}_{n}"
        taken.add(symbol)
        out.append(symbol)
    return out
