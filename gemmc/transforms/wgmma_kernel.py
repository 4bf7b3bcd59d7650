"""The warpgroup-MMA path of the matrix-core writer (sm_90a's wgmma; gemmc.target.wgmma).

With Schedule.instr a wgmma instruction (matrix-cores{instr=wgmma_...}), gemmc.transforms.matrix_kernel
calls `setup` and `compute` here; its epilogue is the generic one, which stores C from D's layout
(gemmc.target.wgmma.d_layout: 128 lanes, n / 2 items).  In the schedule's names (thread_m x thread_n
instruction tiles of 64 x N a warpgroup, waves_m x waves_n warpgroups):

    wg_lane = tx % 128 ; wave_row = ty * thread_m * 64 ; wave_col = (tx / 128) * thread_n * N
    acc = memref.alloca : memref<thread_m x thread_n x N/2 x f32, private>  zeroed
    for t in K tiles: copy tiles to shared memory; barrier
        scf.for %wg = 0 to 1 {gemm.role = "compute"}          (one op, as compute_rewrite replaces it)
            nvgpu.wgmma_fence
            for kk in 0 .. block_k step 16 (unrolled):
                da[ti] = nvgpu.wgmma_desc tile_a[wave_row + 64 ti][kk]       (A^T: tile_a_t[kk][...], "mn")
                db[tj] = nvgpu.wgmma_desc tile_b[kk][wave_col + N tj]        (B^T: tile_b_t[...][kk], "k")
                acc[ti][tj] = nvgpu.wgmma_mma_async da[ti], db[tj], acc[ti][tj]
            nvgpu.wgmma_commit_group ; nvgpu.wgmma_wait_group 0
        barrier

Waiting for the group at the end of each K tile keeps the tile's slot readable until the barrier
after it, so the passes that reuse slots (double-buffer, multi-buffer + pipeline) stay correct; the
next tiles' cp.async copies are in flight meanwhile.  The descriptors' strides (LBO, SBO) are those
of the tiles once swizzle-lds{mode=sw128} has laid them out (gemmc.target.wgmma.strides), the
descriptors' start the indexed element, which that pass maps like every other access.
"""

from __future__ import annotations

from xdsl.dialects import arith, vector
from xdsl.dialects.builtin import IntegerAttr, MemRefType, UnitAttr, VectorType

from gemmc.dialects.nvgpu import WgmmaCommitGroupOp, WgmmaDescOp, WgmmaFenceOp, WgmmaMmaAsyncOp, WgmmaWaitGroupOp
from gemmc.support.ir_names import PRIVATE_SPACE, ROLE_COMPUTE, UNROLL_ATTR
from gemmc.target import wgmma
from gemmc.target.module_arch import arch_of
from gemmc.transforms.contraction import set_role
from gemmc.transforms.kernel_builder import KernelBuilder
from gemmc.dialects.gemm import ELEMENT_TYPES


def setup(w) -> None:
    """Warpgroup coordinates, the accumulator tiles (zeroed)."""
    kb, s = w.kb, w.s
    w.arch = arch_of(w.con.kernel)
    w.instr = instr = wgmma.get(w.arch, s.instr)
    assert instr is not None  # (matrix-cores checked it)
    w.lane = kb.op(arith.RemUIOp(w.tx, kb.index(wgmma.WARPGROUP)), "wg_lane")
    wave_n = kb.op(arith.DivUIOp(w.tx, kb.index(wgmma.WARPGROUP)), "wg_n")
    w.wave_row = kb.mul(w.ty, kb.index(s.thread_m * instr.m), "wave_row")
    w.wave_col = kb.mul(wave_n, kb.index(s.thread_n * instr.n), "wave_col")
    f32 = ELEMENT_TYPES["f32"]()
    acc_t = MemRefType(f32, [s.thread_m, s.thread_n, instr.acc_len], memory_space=IntegerAttr(PRIVATE_SPACE, 64))
    w.acc = kb.alloca(acc_t, "acc")
    zeros = kb.op(vector.BroadcastOp(kb.float(0.0, f32, "zero"), VectorType(f32, [instr.acc_len])), "zeros")
    w._nest(kb, [s.thread_m, s.thread_n],
            lambda b, ij: b.b.insert(vector.StoreOp(zeros, w.acc, [*ij, b.index(0)])), ["i", "j"])


def majors(s) -> tuple[str, str]:
    """How A's and B's tiles lie for the descriptors: "k" (K-major) or "mn"."""
    return ("mn" if s.a_kmajor else "k"), ("k" if s.b_transposed else "mn")


def compute(w, b: KernelBuilder, buf) -> None:
    """One K tile's warpgroup MMAs: fence, block_k / 16 steps of descriptors and mma_async, commit, wait."""
    s, instr = w.s, w.instr
    lead = [buf] if buf is not None else []
    a_major, b_major = majors(s)
    (a_lbo, a_sbo), (b_lbo, b_sbo) = wgmma.strides(a_major, s.block_k), wgmma.strides(b_major, s.block_k)
    acc_t = VectorType(ELEMENT_TYPES["f32"](), [instr.acc_len])

    def group(g: KernelBuilder, _iv, _):
        g.b.insert(WgmmaFenceOp())

        def step(x: KernelBuilder, kk, _):
            da = []
            for ti in range(s.thread_m):
                row = x.add(w.wave_row, x.index(ti * instr.m))
                idx = [kk, row] if s.a_kmajor else [row, kk]
                da.append(x.op(WgmmaDescOp(w.tile_a, lead + idx, a_major, a_lbo, a_sbo), "desc_a"))
            db = []
            for tj in range(s.thread_n):
                col = x.add(w.wave_col, x.index(tj * instr.n))
                idx = [col, kk] if s.b_transposed else [kk, col]
                db.append(x.op(WgmmaDescOp(w.tile_b, lead + idx, b_major, b_lbo, b_sbo), "desc_b"))
            for ti in range(s.thread_m):
                for tj in range(s.thread_n):
                    at = [x.index(ti), x.index(tj), x.index(0)]
                    c = x.op(vector.LoadOp(w.acc, at, acc_t), "c")
                    d = x.op(WgmmaMmaAsyncOp(da[ti], db[tj], c, instr.m, instr.n, instr.k, a_major == "mn",
                                             b_major == "mn"), "d")
                    x.b.insert(vector.StoreOp(d, w.acc, at))
            return []

        loop = g.for_(g.index(0), g.index(s.block_k), g.index(instr.k), [], step, "kk")
        loop.attributes[UNROLL_ATTR] = UnitAttr()
        g.b.insert(WgmmaCommitGroupOp())
        g.b.insert(WgmmaWaitGroupOp(0))
        return []

    outer = b.for_(b.index(0), b.index(1), b.index(1), [], group, "wg")
    set_role(outer, ROLE_COMPUTE)
