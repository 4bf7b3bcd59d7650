"""Hopper's warpgroup MMA (wgmma.mma_async, sm_90a) as sm_90's second instruction choice
(matrix-cores{instr=wgmma_...}, swizzle-lds{mode=sw128}; gemmc.target.wgmma).

* the tables: D's layout is the PTX ISA's m64nNk16 figure (an independent formula here); the descriptor's
  bits are CUTLASS's / the PTX ISA's; the layout swizzle-lds{mode=sw128} writes is where the descriptors read;
* the interpreter against numpy (hypothesis, odd shapes, f16 and bf16, A column-major, B transposed,
  1 to 4 stages) and the 4096^3 candidates' lowering;
* planted bugs FAIL: two lanes of D swapped in the interpreter's table, a wrong descriptor stride,
  tiles left unswizzled;
* nvcc (no GPU needed): the candidates build for sm_90a with 0 bytes spilled (ptxas -v).
"""

from __future__ import annotations

import dataclasses
import shutil

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from xdsl.dialects.builtin import IntegerAttr, i32

import gemmc
from benchmark_scripts import load
from gemmc.dialects.nvgpu import WgmmaDescOp
from gemmc.interp import nvgpu as interp_nvgpu
from gemmc.interp.common import InterpError
from gemmc.target import wgmma
from gemmc.target.arch import get_arch
from gemmc.target.layouts import Layout

WGMMA_CANDIDATES = load("h200/matrix").WGMMA_CANDIDATES

SM90 = get_arch("sm_90")
_TILED = ("gemm-to-kernel,lds-tiling{{block-m={bm} block-n={bn} block-k=64}},register-tiling{{thread-m=4 thread-n=4}},"
          "matrix-cores{{instr=wgmma_m64n{n}k16 waves-m={wm} waves-n={wn}}},vectorize{{width=8}},{copies}{stages}"
          "lower-copies,swizzle-lds{{mode=sw128}}")


def pipeline(bm=64, bn=64, n=64, wm=1, wn=1, stages=1, cp_async=True) -> str:
    staged = {1: "", 2: "double-buffer{stage=lds},"}.get(stages, f"multi-buffer{{factor={stages}}},pipeline{{stages={stages}}},")
    return _TILED.format(bm=bm, bn=bn, n=n, wm=wm, wn=wn, copies="direct-to-lds{fallback=true}," if cp_async else "",
                         stages=staged)


def source(t: str = "f16", col_major: bool = False, b_transposed: bool = False) -> str:
    b = f"B: {t}[N, K]" if b_transposed else f"B: {t}[K, N]"
    return (f"kernel g {{ dim M, N, K  A: {t}[M, K]{' col_major' if col_major else ''}  {b}  "
            f"C: f32[M, N]  acc f32  C = A @ {'B.T' if b_transposed else 'B'} }}")


def lowered(p: str, dims: dict, t: str = "f16", col_major: bool = False, b_transposed: bool = False):
    return gemmc.lower(gemmc.parse(source(t, col_major, b_transposed), defines=dims), p, SM90)


# -- the tables ----------------------------------------------------------------------------


@pytest.mark.parametrize("n", wgmma.WGMMA_N)
def test_d_layout_is_the_ptx_figure(n):
    """PTX ISA, wgmma .m64nNk16 D fragments: thread t of the warpgroup, d[i] at row 16 (t / 32) + (t % 32) / 4
    + 8 ((i / 2) % 2), column 8 (i / 4) + 2 (t % 4) + i % 2; every element once."""
    layout = wgmma.get(SM90, f"wgmma_m64n{n}k16_f32_f16").d
    seen = set()
    for t in range(128):
        for i in range(n // 2):
            row = 16 * (t // 32) + (t % 32) // 4 + 8 * ((i // 2) % 2)
            col = 8 * (i // 4) + 2 * (t % 4) + i % 2
            assert layout.at(t, i)[1:] == (row, col)
            seen.add((row, col))
    assert len(seen) == 64 * n


def test_descriptor_bits():
    """start >> 4 in bits 0-13, LBO >> 4 in 16-29, SBO >> 4 in 32-45, 128-byte swizzle = 1 in bits 62-63."""
    d = wgmma.encode(0x1230, 16, 1024)
    assert d & 0x3FFF == 0x123 and (d >> 16) & 0x3FFF == 1 and (d >> 32) & 0x3FFF == 64 and d >> 62 == 1
    assert wgmma.encode(0, 8192, 1024) >> 16 & 0x3FFF == 512


def test_swizzle_is_cutlass_swizzle_343():
    """Swizzle<3,4,3>: bits 4-6 of the byte address XOR bits 7-9 (16-byte chunk c of 128-byte row r -> c ^ r % 8)."""
    b = np.arange(4096)
    assert (wgmma.swizzle(b) == b ^ ((b >> 7) & 7) << 4).all()
    assert wgmma.swizzle(3 * 128 + 2 * 16 + 5) == 3 * 128 + (2 ^ 3) * 16 + 5


@pytest.mark.parametrize("major,rows,cols", [("k", 128, 64), ("k", 64, 128), ("mn", 64, 256), ("mn", 128, 64)])
def test_descriptors_read_what_sw128_wrote(major, rows, cols):
    """Every element of every m64n256k16 operand a lowering's descriptors address is where swizzle-lds{mode=sw128}
    put it: K-major [outer][k] tiles (k in panels of 64 where the K tile is wider), MN-major [k][outer] ones."""
    lbo, sbo = wgmma.strides(major, rows if major == "mn" else 0)
    for k0 in range(0, (cols if major == "k" else rows), 16):
        outer_n = rows if major == "k" else cols
        o, k = np.meshgrid(np.arange(outer_n), np.arange(16), indexing="ij")
        if major == "k":  # start: [0][k0], a panel of the K tile
            start = wgmma.physical_byte(0, k0, rows, cols)
            r, c = o, k0 + k
            lbo, sbo = wgmma.strides("k", rows)
            read = wgmma.swizzle(start + wgmma.element_byte("k", o, k, lbo, sbo))
        else:  # start: [k0][0]
            start = wgmma.physical_byte(k0, 0, rows, cols)
            r, c = k0 + k, o
            read = wgmma.swizzle(start + wgmma.element_byte("mn", o, k, lbo, sbo))
        assert (read == wgmma.physical_byte(r, c, rows, cols)).all()


def test_layout_cli():
    from gemmc.driver.layout import csv_text, find_instr, grid_text

    instr = find_instr(SM90, "wgmma_m64n128k16_f32_bf16")
    assert "one warpgroup of 128 threads" in grid_text(instr, SM90)
    rows = csv_text(instr).splitlines()[1:]
    assert len(rows) == 64 * 128 and rows[2] == "D,0,0,2,0,1,0,31"  # (0, 2): thread 1, d[0]


# -- the interpreter ------------------------------------------------------------------------


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(m=st.integers(1, 140), n=st.integers(1, 140), k=st.integers(1, 150), t=st.sampled_from(["f16", "bf16"]),
       layout=st.sampled_from([(False, False), (True, False), (False, True), (True, True)]),
       stages=st.sampled_from([1, 2, 3]))
def test_interpreter_vs_numpy(m, n, k, t, layout, stages):
    module = lowered(pipeline(stages=stages), {"M": m, "N": n, "K": k}, t, *layout)
    r = gemmc.check(module, SM90, {})
    assert r.passed, r.summary()


@pytest.mark.parametrize("name,p,dims", [
    ("two warpgroups of 64x128, 3 stages", pipeline(128, 128, 128, 2, 1, 3), {"M": 257, "N": 131, "K": 95}),
    ("one warpgroup of two 64x64 along m", pipeline(128, 64, 64, 1, 1, 2), {"M": 130, "N": 70, "K": 200}),
    ("two warpgroups along n, synchronous copies", pipeline(64, 128, 64, 1, 2, 2, cp_async=False),
     {"M": 64, "N": 128, "K": 64}),
    ("m64n256, 4 stages", pipeline(64, 256, 256, 1, 1, 4), {"M": 70, "N": 250, "K": 300}),
])
def test_pipelines_pass(name, p, dims):
    r = gemmc.check(lowered(p, dims), SM90, {})
    assert r.passed, r.summary()


def test_candidates_lower():
    """benchmarks/h200/matrix.py's wgmma candidates lower at 4096^3 (the check runs them small)."""
    for name, p in WGMMA_CANDIDATES.items():
        module = lowered(p, {"M": 4096, "N": 4096, "K": 4096}, "bf16")
        assert "wgmma_m64n" in str(module), name


def test_planted_d_lane_swap_fails(monkeypatch):
    """Lanes 0 and 1 of D swapped in the interpreter's table (the kernel's epilogue keeps the right one)."""
    def swapped(st, op):
        instr = op.instr_on(st.arch)
        d = instr.d

        class Swapped(Layout):
            def at(self, lanes, items):
                lanes = np.asarray(lanes)
                return d.at(np.where(lanes < 2, 1 - lanes, lanes), items)

        return dataclasses.replace(instr, d=Swapped(d.lanes, d.items, d.row, d.col))

    monkeypatch.setattr(interp_nvgpu, "wgmma_instr", swapped)
    assert not gemmc.check(lowered(pipeline(), {"M": 64, "N": 64, "K": 64}), SM90, {}).passed


@pytest.mark.parametrize("field,value", [("sbo", 2048), ("lbo", 4096)])
def test_planted_wrong_stride_fails(field, value):
    """A descriptor's SBO (A, K-major) or LBO (B, N-major's panels) wrong after lowering: other elements are read."""
    module = lowered(pipeline(64, 128, 128, 1, 1, 1), {"M": 64, "N": 128, "K": 64})
    major = "k" if field == "sbo" else "mn"
    descs = [o for o in module.walk() if isinstance(o, WgmmaDescOp) and o.major.data == major]
    assert descs
    for d in descs:
        d.properties[field] = IntegerAttr(value, i32)
    try:
        assert not gemmc.check(module, SM90, {}).passed
    except InterpError:  # (reading past the tile, or a slot in flight, is located instead)
        pass


def test_unswizzled_tiles_fail():
    p = pipeline(64, 128, 128, 1, 1, 1).replace(",swizzle-lds{mode=sw128}", "")
    try:
        assert not gemmc.check(lowered(p, {"M": 64, "N": 128, "K": 64}), SM90, {}).passed
    except InterpError as e:
        assert "past its" in str(e) or "in flight" in str(e)


# -- nvcc -----------------------------------------------------------------------------------


@pytest.mark.skipif(shutil.which("nvcc") is None and not __import__("os").path.exists("/usr/local/cuda/bin/nvcc"),
                    reason="needs nvcc (the CUDA toolkit; no GPU)")
@pytest.mark.parametrize("name", ["wgmma_128x256x64_wg21_s3", "wgmma_128x128x64_wg11_s4"])
def test_candidates_build_for_sm90a_without_spills(name):
    from gemmc.target.cuda import nvcc_flags, resource_report

    module = lowered(WGMMA_CANDIDATES[name], {"M": 4096, "N": 4096, "K": 4096})
    hip = gemmc.emit(module, SM90, "hip")
    assert {"-arch=compute_90a", "-code=sm_90a"} <= set(nvcc_flags(SM90, hip)) and "-arch=sm_90" in nvcc_flags(SM90, "")
    (k,) = resource_report(hip, SM90)
    assert k.vgpr_spill == 0 and k.scratch_bytes == 0 and k.vgprs <= 255, k


def test_verifier_wants_trans_b_for_an_n_major_b():
    from xdsl.utils.exceptions import VerifyException

    from gemmc.dialects.nvgpu import WgmmaMmaAsyncOp

    module = lowered(pipeline(), {"M": 64, "N": 64, "K": 64})
    op = next(o for o in module.walk() if isinstance(o, WgmmaMmaAsyncOp))
    op.verify()
    del op.properties["transB"]
    with pytest.raises(VerifyException, match="B's descriptor is mn-major; transB must be set"):
        op.verify()


def test_header_build_line_names_sm_90a_for_wgmma():
    """The emitted file's Build line is one nvcc can build: sm_90a's target where a kernel issues wgmma."""
    import gemmc as g

    text = open("examples/hgemm.gemm").read()
    pipeline = ("gemm-to-kernel,lds-tiling{block-m=128 block-n=128 block-k=64},register-tiling{thread-m=8 thread-n=8},"
                "matrix-cores{instr=wgmma_m64n128k16 waves-m=2 waves-n=1},vectorize{width=8},"
                "direct-to-lds{fallback=true},lower-copies,swizzle-lds{mode=sw128}")
    wg = g.emit(g.lower(g.parse(text), pipeline, "sm_90"), "sm_90", "hip")
    plain = g.emit(g.lower(g.parse(text), "mma-sync-128x256", "sm_90"), "sm_90", "hip")  # (mma.sync: no wgmma)
    assert "// Build: nvcc -O3 -arch=compute_90a -code=sm_90a " in wg
    assert "// Build: nvcc -O3 -arch=sm_90 " in plain
