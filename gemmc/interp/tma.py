"""TMA's tile loads (nvgpu.tma_load, sm_90) in the SIMT interpreter.

Each active lane issues its own box (gemmc's kernels guard the op by one thread).  At issue the box is
read from global memory through the tensor map, which the launcher encodes from the host's memref (its
start, whatever the kernel does to its pointer): element (i, j) of the box at (row, col) is
src[row + i][col + j] of the host array's first matrix, and with a batch coordinate b of its matrix b (a
batched argument's [Bt, rows, cols] array: gemmc.transforms.batch; a rank-3 source's src[b]), zero where that is past the
matrix's shape or b past Bt (the tensor map's dims, with CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE's zero
fill): a box of the wrong batch reads another matrix, and the check against numpy fails; it goes to the shared byte start + (i x box columns + j) x element bytes from the buffer
instance's start, whose 16-byte chunk bits 4-6 are XORed with bits 7-9 when the op's swizzle is 128
(gemmc.target.wgmma.swizzle: gemmc prints such tiles 1024-byte aligned, so the instance-relative
address has the shared address's bits).  The start must be 128-byte aligned (1024 with the swizzle).
The box then is in flight, as a cp.async is (memory.check_landed: any access to those elements before
it lands is an error naming the mbarrier wait that is missing), and it lands, completing its bytes on
its mbarrier, only when an nvgpu.mbarrier_wait_parity of that mbarrier cannot otherwise complete
(gemmc.interp.mbarrier: the latest moment the GPU may land it).  So a missing expect_tx (the phase
completes, or fails, without the box), a wait on the wrong phase (passes before the box lands), a box
written over a tile that a wgmma in flight reads (gemmc.interp.wgmma_async at issue) and a wrong
swizzle (the wgmma reads other elements: the check against numpy fails) all show.  Stats: each box
counts as one global load instruction of its bytes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.interpreter import Interpreter, InterpreterFunctions, PythonValues, impl, register_impls

from gemmc.dialects.nvgpu import TmaLoadOp
from gemmc.interp import memory
from gemmc.interp.common import InterpError
from gemmc.interp.mbarrier import active_mbarriers
from gemmc.interp.state import KernelState
from gemmc.target import tma, wgmma


@register_impls
@dataclass
class TmaFunctions(InterpreterFunctions):
    """nvgpu.tma_load inside kernels (module docstring)."""

    state: KernelState | None = None

    @impl(TmaLoadOp)
    def run_tma_load(self, interp: Interpreter, op: TmaLoadOp, args: PythonValues):
        st = self.state
        if st is None:
            raise InterpError(f"{op.name} outside a kernel")
        n_src, n_dst = len(op.srcIndices), len(op.dstIndices)
        src, src_idx = args[0], args[1: 1 + n_src]
        dst, dst_idx = args[1 + n_src], list(args[2 + n_src: 2 + n_src + n_dst])
        bars, bar_idx = args[2 + n_src + n_dst], list(args[3 + n_src + n_dst:])
        lanes = np.flatnonzero(st.active_mask())
        if lanes.size == 0:
            return ()
        mb = active_mbarriers(st)
        if mb is None:
            raise InterpError(f"{op.name} by {st.where(int(lanes[0]))} completes on an mbarrier that no "
                              "nvgpu.mbarrier_init initialized")
        count = st.lanes.count
        start = np.broadcast_to(memory.addresses(st, op, dst, dst_idx, 1), (count,))
        bar_at = np.broadcast_to(memory.addresses(st, op, bars, bar_idx, 1), (count,))
        base = np.broadcast_to(np.asarray(dst.base, dtype=np.int64), (count,))
        coords = [np.broadcast_to(np.asarray(v, dtype=np.int64), (count,)) for v in src_idx]
        if len(coords) == 2:  # the host array's first matrix (a batched argument's too)
            coords.insert(0, np.zeros(count, dtype=np.int64))
        batch, rows, cols = coords
        for lane in lanes:
            self._issue(st, op, mb, src, dst, bars, int(lane), (int(batch[lane]), int(rows[lane]), int(cols[lane])),
                        int(start[lane] - base[lane]), int(base[lane]), int(bar_at[lane]))
        return ()

    def _issue(self, st, op: TmaLoadOp, mb, src, dst, bars, lane: int, at: tuple[int, int, int], rel: int, base: int,
               bar_at: int) -> None:
        b, row, col = at
        box_r, box_c = op.box_shape
        eb = dst.elem_bytes
        align = wgmma.ATOM_BYTES if op.swizzle_bytes else tma.SMEM_ALIGN
        if (rel * eb) % align:
            raise InterpError(f"misaligned {op.name} of {dst.name} by {st.where(lane)}: its box starts at byte "
                              f"{rel * eb}, not a multiple of {align}")
        i, j = np.meshgrid(np.arange(box_r), np.arange(box_c), indexing="ij")
        gr, gc = row + i, col + j
        rows, cols = src.shape[-2:]  # of each matrix: a batched argument's, a rank-3 source's
        inside = (gr < rows) & (gc < cols) & (gr >= 0) & (gc >= 0) & (0 <= b < src.data.size // (rows * cols))
        values = np.zeros(i.shape, dtype=dst.data.dtype)
        values[inside] = src.data[b * rows * cols + gr[inside] * cols + gc[inside]]
        byte = rel * eb + (i * box_c + j) * eb
        if op.swizzle_bytes:
            byte = wgmma.swizzle(byte)
        if (byte // eb >= dst.size).any():
            raise InterpError(f"{op.name} by {st.where(lane)}: its {box_r}x{box_c} box runs past {dst.name}'s "
                              f"{dst.size * eb} bytes")
        flat = (base + byte // eb).reshape(-1)
        who = np.full(flat.size, lane, dtype=np.int64)
        if dst.in_flight is not None:
            memory.check_landed(st, op, dst, flat, who, "overwrites")
        if dst.wgmma is not None:  # no wgmma in flight may read the elements the box lands on
            dst.wgmma.check_write(st, op, dst, flat, who)
        mb.on_box(st, op, bars, bar_at, lane, dst, flat, values.reshape(-1), op.box_bytes())
        st.stats.global_load_instrs += 1
        st.stats.global_load_bytes += box_r * box_c * eb
