"""lds-tiling: the tutorial's step 2, A and B tiles staged through LDS.

Expects: a step-1 kernel (gemm-to-kernel's output: one thread per element of C, a K
loop of global loads).  Produces: the K loop strip-mined by block-k; per iteration the
workgroup cooperatively copies a block-m x block-k tile of A and a block-k x block-n
tile of B into LDS (`memref.alloca` in address space 3), guarded by the matrix
bounds (zeros outside), then `gpu.barrier`, a block-k loop of FMAs from LDS, and a
second barrier.  The workgroup keeps gemm-to-kernel's threads; when the block tile is
larger than the workgroup, each thread owns (block-m / threads-y) x (block-n /
threads-x) elements of C, strided by the workgroup size, in a private accumulator.
A block-scaled (MX) kernel's FMAs multiply each A and B value by its E8M0 scale, read from
global memory at the K tile's k / 32 (gemm.role load_sa / load_sb), the row, column and k
clamped to the matrix.
Options: block-m, block-n, block-k.  Diagnostics: a kernel already tiled, a block
tile that the workgroup does not divide, LDS or VGPRs exceeded.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from gemmc.transforms.contraction import analyze, working_kernels
from gemmc.support.diagnostics import pass_error
from gemmc.transforms.schedule import Schedule
from gemmc.target.module_arch import target_of
from gemmc.transforms.tiled_kernel import tile_in_place
from gemmc.transforms.tiling_checks import check_fits


@dataclass(frozen=True)
class LdsTilingPass(ModulePass):
    name = "lds-tiling"

    block_m: int = 16
    block_n: int = 16
    block_k: int = 16

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        arch = target_of(op)
        for kernel in working_kernels(op, self.name):
            con = analyze(kernel, self.name)
            if con.schedule is not None:
                raise pass_error(self.name, kernel, "the kernel is already LDS-tiled")
            for opt in ("block_m", "block_n", "block_k"):
                if getattr(self, opt) < 1:
                    raise pass_error(self.name, kernel, f"{opt.replace('_', '-')}={getattr(self, opt)} must be positive")
            tx, ty = con.block_size
            if self.block_m % ty or self.block_n % tx:
                raise pass_error(
                    self.name, kernel,
                    f"block tile {self.block_m}x{self.block_n} is not a multiple of the workgroup's "
                    f"{ty}x{tx} threads (rows x columns)",
                )
            s = Schedule(
                self.block_m, self.block_n, self.block_k, threads_x=tx, threads_y=ty,
                thread_m=self.block_m // ty, thread_n=self.block_n // tx,
            )
            check_fits(self.name, kernel, s, con, arch)
            tile_in_place(con, s)
