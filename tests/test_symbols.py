"""One naming rule for both backends (gemmc/support/symbols.py, docs/language.md "Names"): the HIP
path and the own AMDGCN backend give a kernel the same symbol."""

from __future__ import annotations

import re

import pytest

import gemmc
from gemmc.support.diagnostics import GemmcError
from gemmc.support.symbols import c_identifier, kernel_symbols, launcher_name

# The table of docs/language.md, "Names".
RULE = [
    ("__Weird_Name_2", "Weird_Name_2"), ("_x", "_x"), ("float", "float_"), ("int", "int_"),
    ("main", "main_"), ("threadIdx", "threadIdx_"), ("stream", "stream_"), ("gemmc_x", "gemmc_x_"),
    ("GEMMC_CHECK", "GEMMC_CHECK_"), ("v4float", "v4float_"), ("hipLaunchKernelGGL", "hipLaunchKernelGGL_"),
    ("cudaFree", "cudaFree_"), ("sgemm", "sgemm"), ("v0", "v0"), ("N", "N"), ("___", "v"), ("9a", "v9a"),
]


@pytest.mark.parametrize("name,identifier", RULE)
def test_c_identifier(name, identifier):
    assert c_identifier(name) == identifier


def test_kernel_symbols_unique_in_the_module():
    assert kernel_symbols(["N", "N", "float", "float_"]) == ["N", "N_1", "float_", "float__1"]
    # a kernel may not take the name of a launcher of the module
    assert launcher_name("k") == "launch_k"
    assert kernel_symbols(["launch_k", "k"], ["k"]) == ["launch_k_1", "k"]


def program(kernel: str) -> str:
    return f"""kernel {kernel} {{
  dim M = 64, N = 32, K = 16
  A: f32[M, K]
  B: f32[K, N]
  C: f32[M, N]
  C = A @ B
}}
"""


def _hip_kernel(source: str) -> str:
    return re.search(r'extern "C" __global__ void (\w+)\(', source).group(1)


@pytest.mark.parametrize("name", ["__Weird_Name_2", "float", "hipLaunchKernelGGL"])
def test_both_backends_print_one_symbol(name):
    hip_m = gemmc.parse(program(name))
    gemmc.lower(hip_m, "step1", "gfx942")
    hip = gemmc.emit(hip_m, "gfx942", "hip")
    gcn_m = gemmc.parse(program(name))
    gemmc.lower(gcn_m, "step1", "gfx942")
    gcn = gemmc.emit(gcn_m, "gfx942", "gcn")
    symbol = c_identifier(name)
    assert _hip_kernel(hip) == symbol
    assert f"hipError_t launch_{symbol}(" in hip
    assert re.findall(r"^\t\.globl\t(\S+)$", gcn, re.M) == [symbol]
    assert re.findall(r"^  - \.name: (\S+)$", gcn, re.M) == [symbol]
    assert f".symbol: {symbol}.kd" in gcn and f".amdhsa_kernel {symbol}\n" in gcn


def test_llvm_code_object_has_the_gcn_symbol():
    """LLVM's assembly of the HIP file exports the symbol gemmc's own backend prints."""
    from gemmc.target.toolchain import compile_device

    m = gemmc.parse(program("__Weird_Name_2"))
    gemmc.lower(m, "step1", "gfx942")
    try:
        asm = compile_device(gemmc.emit(m, "gfx942", "hip"), "gfx942", "asm")
    except GemmcError:
        pytest.skip("no clang with the AMDGPU backend")
    globls = re.findall(r"^\s*\.globl\s+(\S+)$", asm, re.M)
    assert [g for g in globls if not g.startswith("__hip_cuid_")] == ["Weird_Name_2"]


def test_docs_table_is_the_rule():
    """docs/language.md's "Names" table says what c_identifier does, row by row."""
    from pathlib import Path

    doc = (Path(__file__).resolve().parent.parent / "docs" / "language.md").read_text()
    section = doc.split("## Names", 1)[1].split("\n## ", 1)[0]
    pairs = []
    for row in section.splitlines():
        cells = row.split("|")[1:-1]
        if len(cells) == 3 and "`" in cells[0] and "`" in cells[1]:
            names, identifiers = (re.findall(r"`([^`]+)`", c) for c in cells[:2])
            assert len(names) == len(identifiers), row
            pairs += zip(names, identifiers)
    assert len(pairs) >= 10
    for name, identifier in pairs:
        assert c_identifier(name) == identifier, name
