"""register-tiling: the tutorial's step 3, a thread-m x thread-n tile of C per thread.

Expects: an LDS-tiled kernel (lds-tiling's output), not yet register-tiled.
Produces: the same block tile computed by (block-n / thread-n) x (block-m / thread-m)
threads, each owning a contiguous thread-m x thread-n accumulator tile in private
memory (registers once the compiler unrolls).  Per step of the block-k loop a thread
loads an A fragment (thread-m values) and a B fragment (thread-n values) from LDS
into private arrays and forms their outer product.  B is stored transposed in LDS,
[block-n][block-k], so that a thread's B fragment is read like its A fragment, as
the tutorial explains.  With lds-layout=k-major instead, A is stored [block-k][block-m]
and B [block-k][block-n], and a thread's tile comes in chunks of 4 rows (columns) that
consecutive threads interleave, so fragments are read from LDS as vectors without bank
conflicts (the usual layout of fast SIMT SGEMMs).  unroll=true marks the block-k and
copy loops for full unrolling.  The rewrite is in place (gemmc/transforms/compute_rewrite.py): the
accumulators, the compute loop and the epilogue are replaced, the tiles turned around with
their gemm.copy ops, gpu.known_block_size, `tid` and the launch set to the new thread count
(the copies follow it when lowered); the rest (a prologue and prefetch of double-buffer,
vectorized copies, padding) stays.  An edit inside what it replaces is refused at its op.
A block-scaled (MX) kernel's fragments are multiplied by their E8M0 scales as lds-tiling's
are (read from global memory by the K tile); lds-layout=k-major's chunks are refused for it.
Diagnostics: no LDS tiling yet, a thread tile that does not divide the
block tile, more than 1024 threads, or an estimated VGPR count over the arch's budget.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from gemmc.transforms.contraction import analyze, working_kernels
from gemmc.support.diagnostics import pass_error
from gemmc.target.module_arch import target_of
from gemmc.transforms.compute_rewrite import rewrite_compute
from gemmc.transforms.tiling_checks import check_fits


@dataclass(frozen=True)
class RegisterTilingPass(ModulePass):
    name = "register-tiling"

    thread_m: int = 8
    thread_n: int = 8
    lds_layout: str = "tutorial"
    unroll: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        arch = target_of(op)
        for kernel in working_kernels(op, self.name):
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
                unroll=int(self.unroll),
            )
            if self.lds_layout == "k-major":
                new = new.with_(b_transposed=0, a_kmajor=1, chunk_m=_chunk(self.thread_m),
                                chunk_n=_chunk(self.thread_n))
            elif self.lds_layout != "tutorial":
                raise pass_error(self.name, kernel, f"lds-layout={self.lds_layout}: expected tutorial or k-major")
            check_fits(self.name, kernel, new, con, arch)
            rewrite_compute(con, new)


def _chunk(extent: int) -> int:
    """Four-element chunks (one 16-byte LDS read of f32) where the thread tile allows."""
    return 4 if extent % 4 == 0 else extent
