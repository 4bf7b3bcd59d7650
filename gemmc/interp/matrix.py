"""Matrix-core ops and direct-to-LDS loads, lane-accurate.

`amdgpu.mfma` / `amdgpu.wmma` / `nvgpu.mma_sync` (sm_90's tensor cores): every wave assembles A, B and C from its lanes exactly as
the instruction's layout (gemmc.target.arch.MatrixInstr.a / .b / .d) places them, computes
D = A @ B + C (in float64, rounded once to the accumulator type: f32, or f16 / bf16 on
RDNA, whose RDNA3 forms fill every other element, OPSEL 0; integer instructions exactly, i8
bytes signed or unsigned by the op's flags, wrapped to i32), and hands each lane back the registers
the layout gives it.  A lane's operand contributes only the elements the layout assigns
to it, so fragments loaded in a wrong layout give a wrong C.  Where the layout has
lanes replicate an operand (RDNA3's WMMA: lanes 16-31 repeat lanes 0-15), each half of
the wave computes the rows of D it holds from its own copies of A and B, so a missing
replica shows in C as well.  A matrix op needs its wave whole: a wave with some lanes
masked off is an error (a wave with none active skips it).

`amdgpu.gather_to_lds` (global_load_lds): each active lane reads its transfer at its own
source indices; lane k of a wave writes it at the wave's LDS position plus k slots (4
bytes each for transfers up to 4 bytes, 16 beyond), and that position must be the same
on all active lanes of the wave.  Bounds, races and bank conflicts are checked and
counted as for other memory ops; no LDS store instruction is counted (the hardware
writes LDS without one).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from xdsl.interpreter import Interpreter, InterpreterFunctions, PythonValues, impl, register_impls

from gemmc.target.arch import Layout, MatrixInstr
from gemmc.dialects.amdgpu import (
    GatherToLDSOp, MFMAOp, ScaledMFMAOp, WMMAOp, lanes_of, lds_slot_bytes, transfer_bytes, unsigned_operands,
)
from gemmc.dialects.nvgpu import MmaSyncOp
from gemmc.interp import memory
from gemmc.interp.common import InterpError, is_vector, to_bf16, wrap
from gemmc.interp.state import KernelState


@dataclass(frozen=True)
class OperandMap:
    """Gather indices of one operand: lane[r, blk, row, col] and item[...] of replica r."""

    lane: np.ndarray
    item: np.ndarray


@lru_cache(maxsize=None)
def operand_map(layout: Layout, blocks: int, rows: int, cols: int) -> OperandMap:
    """Invert a layout: for every element, the (lane, item) of each of its replicas, in
    lane order.  Every element must be held the same number of times."""
    lanes = np.arange(layout.lanes)[:, None]
    items = np.arange(layout.items)[None, :]
    shape = (layout.lanes, layout.items)
    blk, row, col = (np.broadcast_to(np.asarray(x), shape).ravel() for x in layout.at(lanes, items))
    if (blk >= blocks).any() or (row >= rows).any() or (col >= cols).any() or min(blk.min(), row.min(), col.min()) < 0:
        raise InterpError("a matrix layout places an element outside the instruction's shape")
    flat = (blk * rows + row) * cols + col
    count = np.bincount(flat, minlength=blocks * rows * cols)
    replicas = int(count[0])
    if (count != replicas).any() or replicas == 0:
        raise InterpError("a matrix layout does not hold every element equally often")
    order = np.lexsort((np.repeat(np.arange(layout.lanes), layout.items), flat))
    lane_of = np.repeat(np.arange(layout.lanes), layout.items)[order].reshape(blocks, rows, cols, replicas)
    item_of = np.tile(np.arange(layout.items), layout.lanes)[order].reshape(blocks, rows, cols, replicas)
    return OperandMap(np.moveaxis(lane_of, -1, 0), np.moveaxis(item_of, -1, 0))


def scale_matrix(layout: Layout, scales: np.ndarray, idx: int, rows: int, cols: int) -> np.ndarray:
    """The E8M0 scales of whole waves as the instruction sees them: scales (W, wave, 4) -> (W, rows,
    cols), element (r, c) taken from byte `idx` (op_sel) of the one lane the layout gives it."""
    sm = operand_map(layout, 1, rows, cols)
    return scales[:, sm.lane[0, 0], idx].astype(np.float64)


def multiply(instr: MatrixInstr, a: np.ndarray, b: np.ndarray, c: np.ndarray,
             scales: tuple[np.ndarray, int, np.ndarray, int] | None = None,
             unsigned: tuple[bool, bool] = (False, False)) -> np.ndarray:
    """D for whole waves: a (W, wave, ka), b (W, wave, kb), c (W, wave, acc) -> (W, wave, acc).

    D is rounded once to the accumulator type (f32, f16, bf16).  Where results take every
    other element (RDNA3's 16-bit accumulators, OPSEL 0: the low halves), C is read there
    only and D's other elements are NaN: the builtin leaves them undefined.  Integer
    instructions (i8 inputs, i32 accumulators): each byte read as signed, or as unsigned where
    `unsigned` says so for its operand (an iu8 WMMA's flags; CDNA's i8 MFMAs: signed), the
    products and C summed exactly in int64, D wrapped to i32 (two's complement)."""
    am = operand_map(instr.a, instr.blocks, instr.m, instr.k)
    bm = operand_map(instr.b, instr.blocks, instr.k, instr.n)
    dm = operand_map(instr.d, instr.blocks, instr.m, instr.n)
    reps = am.lane.shape[0]
    if instr.out_type == "i32":
        return _multiply_int(instr, a[:, am.lane, am.item], b[:, bm.lane, bm.item], c, dm, reps, unsigned)
    a_mat = a[:, am.lane, am.item].astype(np.float64)  # (W, R, blk, m, k)
    b_mat = b[:, bm.lane, bm.item].astype(np.float64)  # (W, R, blk, k, n)
    if scales is not None:  # v_mfma_scale_*: each element times its block's scale, before the products
        sa, ia, sb, ib = scales
        q = instr.scale_block
        sa_mat = scale_matrix(instr.sa, sa, ia, instr.m, instr.k // q)  # (W, m, k / q)
        sb_mat = scale_matrix(instr.sb, sb, ib, instr.k // q, instr.n)  # (W, k / q, n)
        a_mat = a_mat * np.repeat(sa_mat, q, axis=-1)[:, None, None]
        b_mat = b_mat * np.repeat(sb_mat, q, axis=-2)[:, None, None]
    prod = a_mat @ b_mat  # (W, R, blk, m, n)
    d_lane, d_item = dm.lane[0], dm.item[0]  # (blk, m, n)
    rep = d_lane * reps // instr.d.lanes  # the replica of A and B that the lane holding D(i, j) uses
    blk, i, j = np.indices(d_lane.shape)
    stride = instr.d_stride
    acc = c[:, d_lane, d_item * stride].astype(np.float64) + prod[:, rep, blk, i, j]
    out = np.full_like(c, np.nan) if stride > 1 else np.empty_like(c)
    out[:, d_lane, d_item * stride] = _round(acc, instr.out_type).astype(c.dtype)
    return out


def _multiply_int(instr: MatrixInstr, a_mat: np.ndarray, b_mat: np.ndarray, c: np.ndarray, dm: OperandMap, reps: int,
                  unsigned: tuple[bool, bool]) -> np.ndarray:
    """multiply's integer path: bytes or nibbles (held as int64 of any value: their low 8 / 4 bits
    count) read by each operand's signedness, summed in int64 (exact: |sum| <= k * 2^16 + 2^31), wrapped to i32."""
    ua, ub = unsigned
    bits = instr.in_bits  # 8, or 4: an iu4 WMMA's nibbles
    a_mat, b_mat = (x.astype(np.int64) & (2**bits - 1) if u else wrap(x, bits) for x, u in ((a_mat, ua), (b_mat, ub)))
    prod = a_mat @ b_mat  # (W, R, blk, m, n)
    d_lane, d_item = dm.lane[0], dm.item[0]
    rep = d_lane * reps // instr.d.lanes
    blk, i, j = np.indices(d_lane.shape)
    out = np.empty_like(c)
    out[:, d_lane, d_item] = wrap(wrap(c[:, d_lane, d_item], 32) + prod[:, rep, blk, i, j], 32).astype(c.dtype)
    return out


def _round(x: np.ndarray, out_type: str) -> np.ndarray:
    """float64 results rounded once to the accumulator type."""
    if out_type == "bf16":
        return to_bf16(x)
    return x.astype(np.float16 if out_type == "f16" else np.float32)


def _per_lane(x, lanes: int, vector: bool) -> np.ndarray:
    """An operand as (lanes, width): a uniform value (a numpy scalar, or (w,) for a vector)
    is broadcast; a scalar operand has width 1."""
    x = np.asarray(x)
    if x.ndim == (1 if vector else 0):
        x = np.broadcast_to(x, (lanes, *x.shape))
    return x if vector else x[:, None]


@register_impls
@dataclass
class MatrixFunctions(InterpreterFunctions):
    """amdgpu.mfma, amdgpu.wmma, nvgpu.mma_sync, amdgpu.gather_to_lds inside kernels."""

    state: KernelState | None = None

    @impl(MFMAOp)
    def run_mfma(self, interp: Interpreter, op: MFMAOp, args: PythonValues):
        return (self._matrix(op, args),)

    @impl(WMMAOp)
    def run_wmma(self, interp: Interpreter, op: WMMAOp, args: PythonValues):
        return (self._matrix(op, args),)

    @impl(MmaSyncOp)
    def run_mma_sync(self, interp: Interpreter, op: MmaSyncOp, args: PythonValues):
        """sm_90's mma.sync: a warp of 32 lanes, the same layout-driven product."""
        return (self._matrix(op, args),)

    @impl(ScaledMFMAOp)
    def run_scaled_mfma(self, interp: Interpreter, op: ScaledMFMAOp, args: PythonValues):
        """The operands in MLIR's order (scalesA, A, scalesB, B, C); each lane's scale byte is
        placed by the instruction's scale layouts (MatrixInstr.sa / .sb)."""
        sa, a, sb, b, c = args
        return (self._matrix(op, [a, b, c], scales=(sa, sb)),)

    def _matrix(self, op, args, scales=None) -> np.ndarray:
        st = self.state
        if st is None:
            raise InterpError(f"{op.name} outside a kernel")
        instr = op.instr_on(st.arch)
        if instr is None:
            m, n, k = op.shape
            raise InterpError(f"{op.name} {m}x{n}x{k} with {lanes_of(op.sourceA.type)[0]} inputs does not exist on "
                              f"{st.arch.name}")
        ln = st.lanes
        wave = st.arch.wave_size
        if instr.a.lanes != wave:
            raise InterpError(f"{instr.mnemonic} spans {instr.a.lanes} lanes; {st.arch.name} waves have {wave}")
        if ln.threads % wave:
            raise InterpError(f"{op.name} needs whole waves; the workgroup has {ln.threads} threads "
                              f"({st.arch.name} waves have {wave} lanes)")
        values = [op.sourceA, op.sourceB, op.destC]
        a, b, c = (_per_lane(x, ln.count, is_vector(v.type)) for x, v in zip(args, values))
        waves = ln.count // wave
        if scales is not None:
            sa, sb = (_per_lane(x, ln.count, True).reshape(waves, wave, -1) for x in scales)
        out = c.reshape(waves, wave, -1).copy()
        active = np.ones(waves, dtype=bool)
        if st.mask is not None:
            per_wave = st.mask.reshape(waves, wave)
            active = per_wave.any(axis=1)
            partial = active & ~per_wave.all(axis=1)
            if partial.any():
                lane = int(np.argmax(partial)) * wave + int(np.argmax(~per_wave[np.argmax(partial)]))
                raise InterpError(f"{op.name} in divergent control flow: {st.where(lane)} is masked off "
                                  "while other lanes of its wave run it")
        sel = np.flatnonzero(active)
        if sel.size:
            wave_scales = None
            if scales is not None:
                ia, ib = op.scale_indices
                wave_scales = (sa[sel], ia, sb[sel], ib)
            out[sel] = multiply(instr, a.reshape(waves, wave, -1)[sel], b.reshape(waves, wave, -1)[sel],
                                c.reshape(waves, wave, -1)[sel], wave_scales, unsigned_operands(op))
        st.stats.matrix_instrs += int(sel.size)
        st.stats.flops += int(sel.size) * instr.flops
        return out.reshape(ln.count, -1)

    @impl(GatherToLDSOp)
    def run_gather_to_lds(self, interp: Interpreter, op: GatherToLDSOp, args: PythonValues):
        st = self.state
        if st is None:
            raise InterpError(f"{op.name} outside a kernel")
        n_src = len(op.srcIndices)
        src, src_idx = args[0], list(args[1 : 1 + n_src])
        dst, dst_idx = args[1 + n_src], list(args[2 + n_src :])
        _, width = lanes_of(op.transferType)
        slot = lds_slot_bytes(transfer_bytes(op.transferType)) // dst.elem_bytes
        value = memory.load(st, op, src, src_idx, width)
        ln, wave = st.lanes, st.arch.wave_size
        base = np.int64(0)
        for i, stride in zip(dst_idx, (int(np.prod(dst.shape[d + 1 :], dtype=np.int64)) for d in range(len(dst.shape)))):
            base = base + np.asarray(i, dtype=np.int64) * stride
        base = np.broadcast_to(base, (ln.count,))
        self._check_uniform(op, base, wave)
        flat = base + (ln.tid % wave) * slot
        last = dst.shape[-1]
        active = st.active_mask()
        if ((flat < 0) | (flat + width > dst.size))[active].any() or ((flat % last) + width > last)[active].any():
            lane = st.first_active_lane(active & ((flat < 0) | (flat + width > dst.size) | ((flat % last) + width > last)))
            raise InterpError(f"out-of-bounds {op.name} into LDS {dst.name}: lane {lane % wave} of its wave writes "
                              f"element {int(flat[lane])} of {dst.size} ({st.where(lane)})")
        flat = np.where(active, flat, 0)
        indices = list(np.unravel_index(flat, dst.shape))
        before = st.stats.lds_store_instrs
        memory.store(st, op, dst, indices, value, width)
        st.stats.lds_store_instrs = before
        return ()

    def _check_uniform(self, op, base: np.ndarray, wave: int) -> None:
        st = self.state
        per_wave = base.reshape(-1, wave)
        mask = st.active_mask().reshape(-1, wave)
        ref = np.where(mask.any(axis=1), per_wave[np.arange(per_wave.shape[0]), np.argmax(mask, axis=1)], 0)
        bad = mask & (per_wave != ref[:, None])
        if bad.any():
            lane = int(np.argmax(bad.ravel()))
            raise InterpError(f"{op.name}: the LDS destination differs between the lanes of a wave "
                              f"(it is the wave's M0 base); {st.where(lane)} disagrees")
