"""The interpreter's LDS race check: a tiled kernel missing a barrier is an error naming both ops."""

from __future__ import annotations

import pytest
from xdsl.dialects import gpu

import gemmc
from gemmc.interp import InterpError

SOURCE = """
kernel racy {
  dim M = 40, N = 40, K = 40
  A: f32[M, K]
  B: f32[K, N]
  C: f32[M, N]
  C = A @ B
}
"""


def tiled(pipeline: str):
    module = gemmc.parse(SOURCE, "racy.gemm")
    return gemmc.lower(module, pipeline, "gfx942")


def drop_barrier(module, which: int):
    barriers = [op for op in module.walk() if isinstance(op, gpu.BarrierOp)]
    barriers[which].detach()
    barriers[which].erase()
    return module


def test_tiled_kernel_with_barriers_passes():
    assert gemmc.check(tiled("step2"), "gfx942").passed


def test_missing_release_barrier_is_a_write_after_read_race():
    # Without the barrier after the compute loop, the next tile's copy overwrites
    # LDS words that slower threads are still reading.
    module = drop_barrier(tiled("step2"), 1)
    with pytest.raises(InterpError) as e:
        gemmc.check(module, "gfx942")
    msg = str(e.value)
    assert msg.startswith("error: LDS race on %tile_")
    assert "memref.store" in msg and "memref.load" in msg and "gpu.barrier is missing" in msg


def test_missing_acquire_barrier_is_a_read_after_write_race():
    module = drop_barrier(tiled("step2"), 0)
    with pytest.raises(InterpError) as e:
        gemmc.check(module, "gfx942")
    assert "LDS race" in str(e.value)


def test_double_buffered_kernel_without_its_barrier_races():
    module = drop_barrier(tiled("step4"), 1)  # the one barrier inside the K loop
    with pytest.raises(InterpError, match="LDS race"):
        gemmc.check(module, "gfx942")
