"""register-tiling: the tutorial's step 3, a thread-m x thread-n tile of C per thread.

Expects: an LDS-tiled kernel (lds-tiling's output), not yet register-tiled.
Produces: the same block tile computed by (block-n / thread-n) x (block-m / thread-m)
threads, each owning a contiguous thread-m x thread-n accumulator tile in private
memory (registers once the compiler unrolls).  Per step of the block-k loop a thread
loads an A fragment (thread-m values) and a B fragment (thread-n values) from LDS
into private arrays and forms their outer product.  B is stored transposed in LDS,
[block-n][block-k], so that a thread's B fragment is read like its A fragment, as
the tutorial explains.  The launch's block size and the copy loops follow the new
thread count.  Diagnostics: no LDS tiling yet, a thread tile that does not divide the
block tile, more than 1024 threads, or an estimated VGPR count over the arch's budget.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from gemmc.contraction import analyze, kernels
from gemmc.diagnostics import pass_error
from gemmc.pipeline import target_of
from gemmc.tiled_kernel import rebuild
from gemmc.tiling_checks import check_fits


@dataclass(frozen=True)
class RegisterTilingPass(ModulePass):
    name = "register-tiling"

    thread_m: int = 8
    thread_n: int = 8

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        arch = target_of(op)
        for kernel in kernels(op, self.name):
            con = analyze(kernel, self.name)
            s = con.schedule
            if s is None:
                raise pass_error(self.name, kernel, "expects an LDS-tiled kernel; run lds-tiling first")
            if s.contiguous:
                raise pass_error(self.name, kernel, "the kernel is already register-tiled")
            if self.thread_m < 1 or self.thread_n < 1:
                raise pass_error(self.name, kernel, f"thread tile {self.thread_m}x{self.thread_n} must be positive")
            if s.block_m % self.thread_m or s.block_n % self.thread_n:
                raise pass_error(
                    self.name, kernel,
                    f"thread tile {self.thread_m}x{self.thread_n} does not divide the block tile "
                    f"{s.block_m}x{s.block_n}",
                )
            new = s.with_(
                threads_x=s.block_n // self.thread_n, threads_y=s.block_m // self.thread_m,
                thread_m=self.thread_m, thread_n=self.thread_n, contiguous=1, b_transposed=1,
            )
            check_fits(self.name, kernel, new, con, arch)
            rebuild(con, new)
