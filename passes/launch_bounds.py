"""launch-bounds: the tutorial's step 6, tell the compiler the workgroup size and occupancy.

Expects: kernel IR (any step).  Produces: on each gpu.func the attributes MLIR's ROCDL
target uses, `rocdl.flat_work_group_size = "1,<max-threads>"` and, when asked,
`rocdl.waves_per_eu = <min-waves-per-eu>` (or "<min>,<max>" with max-waves-per-eu); the
HIP emitter prints them as `__launch_bounds__` / `amdgpu_waves_per_eu`, and the
compiler then budgets VGPRs for that many waves (see `gemmc compile --report`).
Diagnostics: max-threads below the kernel's workgroup size or above 1024, or waves per
EU outside 1 .. the arch's maximum.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, StringAttr, i32
from xdsl.passes import ModulePass

from gemmc.transforms.contraction import kernels
from gemmc.support.diagnostics import pass_error
from gemmc.support.ir_names import FLAT_WORK_GROUP_SIZE_ATTR as FLAT_WORK_GROUP_SIZE
from gemmc.support.ir_names import WAVES_PER_EU_ATTR as WAVES_PER_EU
from gemmc.target.module_arch import target_of



@dataclass(frozen=True)
class LaunchBoundsPass(ModulePass):
    name = "launch-bounds"

    max_threads: int = 256
    min_waves_per_eu: int = 0
    max_waves_per_eu: int = 0

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        arch = target_of(op)
        for kernel in kernels(op, self.name):
            size = kernel.known_block_size
            threads = 1
            for d in size.get_values() if size is not None else ():
                threads *= d
            if not threads <= self.max_threads <= arch.max_threads_per_block:
                raise pass_error(
                    self.name, kernel,
                    f"max-threads={self.max_threads} must be between the workgroup's {threads} threads "
                    f"and {arch.max_threads_per_block}",
                )
            kernel.attributes[FLAT_WORK_GROUP_SIZE] = StringAttr(f"1,{self.max_threads}")
            self._waves(kernel, arch)

    def _waves(self, kernel, arch) -> None:
        lo, hi = self.min_waves_per_eu, self.max_waves_per_eu
        if lo == 0 and hi == 0:
            return
        limit = arch.max_waves_per_simd
        if not 1 <= lo <= limit or (hi and not lo <= hi <= limit):
            raise pass_error(
                self.name, kernel,
                f"waves per EU {lo}..{hi or lo} outside 1..{limit} for {arch.name}",
            )
        kernel.attributes[WAVES_PER_EU] = StringAttr(f"{lo},{hi}") if hi else IntegerAttr(lo, i32)
