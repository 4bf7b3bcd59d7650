"""The one LDS count: what a schedule will allocate (checked by the tiling passes) is what
the kernel it builds allocates (what the cost model counts)."""

import pytest
from xdsl.dialects import gpu

import gemmc
from gemmc.transforms.contraction import analyze
from gemmc.cost.kernel import read_kernel
from gemmc.cost.occupancy import lds_bytes as occupancy_lds_bytes
from gemmc.target.resources import ELEMENT_BYTES, buffer_bytes, lds_bytes


@pytest.mark.parametrize("example, arch, step", [
    ("sgemm", "gfx942", "step2"), ("sgemm", "gfx942", "step4"), ("sgemm", "gfx1100", "step5"),
    ("hgemm", "gfx942", "step7"), ("hgemm", "gfx1100", "step7"),
])
def test_schedule_and_kernel_agree(example, arch, step):
    module = gemmc.parse_file(f"examples/{example}.gemm")
    gemmc.lower(module, step, arch=arch)
    kernel = next(op for op in module.walk() if isinstance(op, gpu.FuncOp))
    schedule = analyze(kernel, "test").schedule  # gemm.schedule with what the IR says of itself (slots)
    elem = ELEMENT_BYTES["f16" if example == "hgemm" else "f32"]
    counted = lds_bytes(kernel)
    assert counted > 0
    assert schedule.lds_bytes(elem) == counted == occupancy_lds_bytes(read_kernel(module, None))


def test_alloc_and_alloca_count():
    ir = """
    builtin.module {
      func.func @k() {
        %a = memref.alloca() : memref<16x17xf32, 3>
        %b = memref.alloc() : memref<2x8x8xf16, 3>
        %p = memref.alloca() : memref<4x4xf32, 5>
        func.return
      }
    }"""
    module = gemmc.parse_ir(ir, "<test>")
    assert lds_bytes(module) == 16 * 17 * 4 + 2 * 8 * 8 * 2


def test_buffer_bytes():
    assert buffer_bytes([(64, 16), (64, 16)] * 2, 2) == 4 * 64 * 16 * 2
    assert buffer_bytes([], 4) == 0
