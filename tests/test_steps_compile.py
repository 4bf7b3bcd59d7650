"""Issue "steps 2-6": every named step compiles for every AMD arch, and step 6 needs no scratch."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import gemmc
from gemmc.target.arch import AMD_ARCHS
from gemmc.target.toolchain import compile_device, resource_report

SGEMM = (Path(__file__).resolve().parent.parent / "examples" / "sgemm.gemm").read_text()
STEPS = [f"step{i}" for i in range(1, 7)]


def hip_for(step: str, arch: str) -> str:
    module = gemmc.lower(gemmc.parse(SGEMM, "sgemm.gemm"), step, arch)
    return gemmc.emit(module, arch, "hip")


def test_every_step_compiles_for_every_arch():
    jobs = [(s, a) for s in STEPS for a in AMD_ARCHS]

    def build(job):
        step, arch = job
        asm = compile_device(hip_for(step, arch), arch, "asm")
        return step, arch, f".amdgcn_target \"amdgcn-amd-amdhsa--{arch}" in asm

    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(build, jobs))
    assert [r for r in results if not r[2]] == []


@pytest.mark.parametrize("arch", ["gfx942", "gfx1100"])
def test_step6_needs_no_scratch(arch):
    (kernel,) = resource_report(hip_for("step6", arch), arch)
    assert kernel.scratch_bytes == 0 and kernel.vgpr_spill == 0
    assert kernel.lds_bytes == 2 * 2 * 128 * 16 * 4  # two buffers of A and B tiles
