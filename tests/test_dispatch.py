"""Shape dispatch (gemmc.driver.dispatch): a problem with dynamic sizes gets the default and the idle-grid
variant, and a launcher that picks per call; the interpreter and the cost model follow the branch."""

from __future__ import annotations

import pytest
from xdsl.dialects import gpu, memref, scf, vector

import gemmc
from gemmc.target.arch import get_arch
from gemmc.cost.model import predict
from gemmc.interp.check import host_function
from gemmc.support.ir_names import PIPELINE_ATTR, SELECTED_ATTR

DYNAMIC = "kernel d { dim M, N, K  A: f32[M, K]  B: f32[N, K]  C: f32[M, N]  alpha: f32  beta: f32  " \
          "C = alpha * A @ B.T + beta * C }"


def _lowered(src: str, arch: str):
    return gemmc.lower(gemmc.parse(src), None, arch)


DYNAMIC16 = "kernel h { dim M, N, K  A: f16[M, K]  B: f16[N, K]  C: f32[M, N]  acc f32  C = A @ B.T }"


# gfx1100: its f32 default (the VALUs) vectorizes its copies, so it has all three variants;
# CDNA's f32 defaults copy element by element and get no aligned-rows variant.
def test_dynamic_sizes_get_a_launcher_that_dispatches():
    m = _lowered(DYNAMIC, "gfx1100")
    branches = [op for op in host_function(m).body.block.ops if isinstance(op, scf.IfOp)]
    assert len(branches) == 1 and branches[0].cond.name_hint == "few_workgroups"
    inner = [op for op in branches[0].false_region.block.ops if isinstance(op, scf.IfOp)]
    assert len(inner) == 1 and inner[0].cond.name_hint == "rows_aligned"
    spec = m.attributes[PIPELINE_ATTR].data
    assert "idle grid: " in spec and "stream-k" in spec and "aligned rows: " in spec and "assume-aligned" in spec
    assert "192 workgroups (96 CUs x 2)" in m.attributes[SELECTED_ATTR].data


def _widths_and_heads(m, name: str) -> tuple[set, bool]:
    """The vector widths of a variant's loads from dynamic matrices, and whether it peels rows."""
    kernel = next(op for op in m.walk() if isinstance(op, gpu.FuncOp) and op.sym_name.data == name)
    widths = {op.result.type.get_shape()[0] for op in kernel.walk() if isinstance(op, vector.LoadOp)
              and op.base.type.get_shape()[-1] < 0}
    return widths, any(op.results and op.results[0].name_hint == "head" for op in kernel.walk())


def test_the_aligned_variant_loads_vectors():
    """gfx90a's 16-bit default peels rows that may start at any alignment (each row's head computed
    from its start); the aligned variant loads the same vectors without heads.  (gfx1201's keeps
    misaligned rows scalar since its issue-term re-derivation, as gfx1100's f32 default below.)"""
    m = _lowered(DYNAMIC16, "gfx90a")
    assert _widths_and_heads(m, "h") == ({4}, True)
    assert _widths_and_heads(m, "h_aligned") == ({4}, False)


def test_a_default_of_scalar_copies_at_odd_rows_gets_vectors_where_they_are_aligned():
    """gfx1100's f32 default keeps misaligned rows scalar (peel=false): only the aligned variant loads
    vectors."""
    m = _lowered(DYNAMIC, "gfx1100")
    assert _widths_and_heads(m, "d") == (set(), False)
    assert _widths_and_heads(m, "d_aligned") == ({4}, False)


@pytest.mark.parametrize("dims,launches", [({"M": 67, "N": 45, "K": 300}, 2), ({"M": 1152, "N": 2048, "K": 16}, 1),
                                           ({"M": 1152, "N": 2047, "K": 17}, 1)])
def test_both_branches_match_numpy(dims, launches):
    """gfx1201 holds 128 workgroups of its f32 default: 1 tile takes stream-k (init + walk), 144 the
    aligned kernel or, with rows of 2047 and 17 elements, the default one."""
    r = gemmc.check(_lowered(DYNAMIC, "gfx1201"), "gfx1201", dims)
    assert r.passed, r.summary()
    assert r.stats.kernel_launches == launches


def test_the_cost_model_follows_the_branch():
    m = _lowered(DYNAMIC, "gfx1100")
    arch = get_arch("gfx1100")
    small = predict(m, arch, {"M": 256, "N": 256, "K": 8192})
    aligned = predict(m, arch, {"M": 4096, "N": 4096, "K": 4096})
    odd = predict(m, arch, {"M": 4096, "N": 4095, "K": 4097})
    small_odd = predict(m, arch, {"M": 256, "N": 255, "K": 8191})
    assert [o.kernel.name for o in small.others] == ["d_streamk_init_idle_aligned"]
    assert small.kernel.name == "d_idle_aligned" and small_odd.kernel.name == "d_idle"
    assert aligned.others == [] and aligned.kernel.name == "d_aligned"
    assert odd.kernel.name == "d"


def test_scalar_copies_get_no_aligned_variant():
    """gfx942's f32 default copies element by element: the launcher has the default and the
    idle-grid variant only."""
    m = _lowered(DYNAMIC, "gfx942")
    spec = m.attributes[PIPELINE_ATTR].data
    assert "idle grid: " in spec and "aligned rows: " not in spec
    assert "1520 workgroups (304 CUs x 5)" in m.attributes[SELECTED_ATTR].data


def test_a_16_bit_output_dispatches_to_split_k_through_a_workspace():
    src = "kernel h { dim M, N, K  A: f16[M, K]  B: f16[K, N]  C: f16[M, N]  acc f32  C = A @ B }"
    m = _lowered(src, "gfx942")
    assert "split-k{factor=8 reduce=workspace}" in m.attributes[PIPELINE_ATTR].data
    assert any(isinstance(op, memref.AllocOp) for op in host_function(m).walk())
    assert gemmc.check(m, "gfx942", {"M": 70, "N": 33, "K": 500}).passed


@pytest.mark.parametrize("arch", ["sm_90"])
def test_the_aligned_variant_assumes_the_defaults_vector_width(arch):
    """A 16-bit default copies 8 elements (16 bytes) at a time: its aligned variant assumes rows of a
    multiple of 8, and the launcher checks 8; assuming 4 (the f32 width) left every copy scalar (an H100
    ran the dynamic f16 4096^3 kernel 4.4x slower than the static one)."""
    from gemmc.driver.dispatch import vector_width

    m = _lowered(DYNAMIC16, arch)
    spec = m.attributes[PIPELINE_ATTR].data
    default = spec.split(" | ")[0]
    assert vector_width(default) == 8 and "assume-aligned{multiple=8}" in spec
    assert "every row length is a multiple of 8" in m.attributes[SELECTED_ATTR].data
    dims = {"M": 4096, "N": 4096, "K": 4096}
    static = gemmc.lower(gemmc.parse(DYNAMIC16.replace("dim M, N, K", "dim M = 4096, N = 4096, K = 4096")), None, arch)
    assert predict(m, get_arch(arch), dims).time_s <= 1.05 * predict(static, get_arch(arch), {}).time_s


def test_vector_width_reads_the_vectorize_pass():
    from gemmc.driver.dispatch import vector_width

    assert vector_width("gemm-to-kernel,vectorize{width=16},lower-copies") == 16
    assert vector_width("gemm-to-kernel,vectorize,lower-copies") == 4
    assert vector_width("gemm-to-kernel,lower-copies") is None


def test_the_idle_grid_variant_has_an_aligned_twin():
    """A small grid of aligned rows runs the idle-grid variant with vector copies: without its twin an H100
    ran the dynamic f16 16384x256x4096 (128 workgroups) at 1.00 ms, the static kernel at 0.16."""
    m = _lowered(DYNAMIC16, "sm_90")
    spec = m.attributes[PIPELINE_ATTR].data
    assert "idle grid, aligned rows: " in spec
    few = next(op for op in host_function(m).body.block.ops if isinstance(op, scf.IfOp))
    inner = [op for op in few.true_region.block.ops if isinstance(op, scf.IfOp)]
    assert len(inner) == 1 and inner[0].cond.name_hint == "rows_aligned"
    arch = get_arch("sm_90")
    dims = {"M": 16384, "N": 256, "K": 4096}
    aligned = predict(m, arch, dims)
    assert aligned.kernel.name.endswith("idle_aligned")
    assert predict(m, arch, dims | {"K": 4095}).time_s > aligned.time_s
