"""docs/triton.md is what gemmc and Triton compile now (benchmarks/triton_compare.py).

Skipped without Triton 3.9.0 (`pip install 'gemmc[triton]'`; setup.sh installs it) or
without clang-22: both are needed to write the table, and another Triton version compiles
other code, so the doc could not be compared.
"""

from __future__ import annotations

import pytest
from benchmark_scripts import load

from gemmc.support.diagnostics import GemmcError


def _script():
    return load("triton_compare")


def test_triton_doc_is_current(capsys):
    triton = pytest.importorskip("triton")
    mod = _script()
    if triton.__version__ != mod.TRITON_VERSION:
        pytest.skip(f"triton {triton.__version__}, the table is for {mod.TRITON_VERSION}")
    from gemmc.target.toolchain import find_toolchain

    try:
        find_toolchain()
    except GemmcError as e:
        pytest.skip(f"no HIP toolchain: {e}")
    assert mod.main(["--check"]) == 0, capsys.readouterr().err


def test_asm_counts_the_k_loop():
    """The K loop is the depth-1 loop with the most matrix instructions; its LDS reads are
    counted in bytes per lane, ds_read2 twice."""
    asm = "\n".join([
        "; %bb.0:",
        "\tv_mfma_f32_32x32x8_f16 v[0:15], v[1:2], v[3:4], v[0:15]",
        ".LBB0_1:                                ; =>This Inner Loop Header: Depth=1",
        "\tds_read_b128 v[0:3], v4",
        "\tds_read2_b64 v[0:3], v4 offset1:8",
        "\tv_mfma_f32_32x32x8_f16 v[0:15], v[1:2], v[3:4], v[0:15]",
        "\tv_mfma_f32_32x32x8_f16 v[0:15], v[1:2], v[3:4], v[0:15]",
        "\ts_cbranch_scc1 .LBB0_1",
        "; %bb.2:",
        "\ts_endpgm",
        "\t.amdhsa_kernel k",
        "  - .agpr_count:     4",
        "    .private_segment_fixed_size: 8",
        "    .vgpr_count:     100",
    ])
    r = _script().analyze_asm(asm)
    assert (r["mfma"], r["lds"], r["other"]) == (2, 32, 3)
    assert (r["vgprs"], r["agprs"], r["scratch"]) == (100, 4, 8)
