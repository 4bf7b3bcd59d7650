"""Fixtures shared by the test modules."""

from __future__ import annotations

import pytest

from gemmc.support.diagnostics import GemmcError


@pytest.fixture(scope="module")
def toolchain():
    """The HIP toolchain (clang with the AMDGPU backend), or the test is skipped."""
    from gemmc.target.toolchain import find_toolchain

    try:
        return find_toolchain()
    except GemmcError as e:
        pytest.skip(f"no HIP compiler with the AMDGPU backend: {e.message}")


@pytest.fixture
def llvm(toolchain):
    """The toolchain where it is plain LLVM (the CPU runs build the emitted HIP with its clang++)."""
    if toolchain.kind != "llvm":
        pytest.skip("the CPU run uses plain clang++ for the host")
    return toolchain
