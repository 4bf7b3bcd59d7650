"""Global-memory traffic at three levels: requested, from L2, from DRAM.

    t = traffic(k, arch, counts, occ)
    t.requested, t.l2, t.dram          # bytes over the launch

* requested: what the lanes ask for (lanes x bytes), before any cache; the tutorial's
  "global traffic" that LDS tiling divides by the tile size (and the interpreter's
  global_load_bytes + global_store_bytes).
* l2: bytes the CUs fetch from L2, in cache lines: the lines each (compiler-merged) wave
  instruction touches (coalescing).  The vector L1 is treated as a streaming cache: a
  line one wave instruction fetches serves that instruction (and, through the compiler's
  merged loads, the iterations it covers) but no other wave and no later iteration.
  Two switches credit it with more: `L1_SHARES_LINES` (the waves of a workgroup touching
  a line in the same iteration fetch it once) and `L1_WINDOW` > 1 (lines kept across
  the w consecutive iterations of the access's innermost loop whose lines, over all
  resident workgroups, fit in the L1: lines per iteration = lines(w) / w).  Both are off
  for AMD's vector L1 (measured naive kernels show no such reuse, docs/cost-model.md);
  an arch with `l1_reuse` (NVIDIA's L1 caches global loads) gets both, w up to 64.
* dram: bytes from memory.  Resident workgroups walk the grid in dispatch order (x
  fastest), so at any time they cover R / grid_x rows of C tiles; each such band reads
  its A panel once and all of B.  B is read again for every band unless it stays in the
  last-level cache (L2 + Infinity Cache): the hit fraction is capacity / B bytes
  (clamped to [0, 1]); the same for A when a band is narrower than a row of tiles.
  DRAM traffic of an operand never exceeds its L2 traffic.
A TMA box (sm_90a's nvgpu.tma_load) is read from L2 line by line into shared memory by the SM's TMA unit,
past the L1: its lines count whole, with no reuse window.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from xdsl.dialects.builtin import MemRefType

from gemmc.target.arch import Arch
from gemmc.cost.counts import TMA_LOAD, Access, Counts, touched_lines, element_offsets
from gemmc.cost.kernel import KernelIR
from gemmc.cost.lanes import loops_of
from gemmc.cost.occupancy import Occupancy
from gemmc.target.resources import global_bytes

MAX_WINDOW = 64
L1_WINDOW = 1  # iterations the L1 is credited with keeping lines across (see docstring)
L1_SHARES_LINES = False  # whether waves of a workgroup share lines fetched in one iteration


@dataclass
class Traffic:
    requested: float = 0.0
    l2: float = 0.0
    dram: float = 0.0
    l2_by_arg: dict[int, float] = field(default_factory=dict)
    dram_by_arg: dict[int, float] = field(default_factory=dict)
    l1_window: dict[str, int] = field(default_factory=dict)  # per loop: the reuse window


def traffic(k: KernelIR, arch: Arch, counts: Counts, occ: Occupancy) -> Traffic:
    t = Traffic()
    loads = [a for a in counts.accesses if a.space == "global" and a.instrs > 0]
    t.requested = sum(a.bytes for a in loads)
    by_loop: dict[object, list[Access]] = {}
    for a in loads:
        if a.op.name == TMA_LOAD:  # the TMA unit reads L2 into shared memory: no L1 in between to reuse lines
            _add(t.l2_by_arg, a.arg, a.issued * a.lines * arch.cache_line_bytes)
        elif not a.store:
            loops = loops_of(a.op, k.kernel)
            by_loop.setdefault(loops[-1] if loops else None, []).append(a)
    for loop, group in by_loop.items():
        factors, w = _reuse(k, arch, group, loop, max(1, occ.workgroups_per_cu))
        if loop is not None:
            t.l1_window[loop.name + f"@{id(loop) % 10000}"] = w
        for a, f in zip(group, factors):
            _add(t.l2_by_arg, a.arg, a.issued * a.lines * arch.cache_line_bytes * f)
    for a in loads:
        if a.store:
            _add(t.l2_by_arg, a.arg, a.bytes)
    t.l2 = sum(t.l2_by_arg.values())
    t.dram_by_arg = _dram(k, arch, occ, t.l2_by_arg)
    t.dram = sum(t.dram_by_arg.values())
    return t


def _add(d: dict, key, value: float) -> None:
    d[key] = d.get(key, 0.0) + value


def _reuse(k: KernelIR, arch: Arch, group: list[Access], loop, resident: int) -> tuple[list[float], int]:
    """Per access: L2 lines per iteration over the wave-summed lines (<= 1), and the window."""
    window = MAX_WINDOW if arch.l1_reuse else L1_WINDOW
    if loop is None or (window <= 1 and not (L1_SHARES_LINES or arch.l1_reuse)):
        return [1.0] * len(group), 1
    ev0 = k.evaluator()
    trip = ev0.samples(loop).trip
    wmax = max(1, min(trip, MAX_WINDOW, window))
    ev = k.evaluator(overrides={loop: np.arange(wmax)}, blocks=(np.zeros(1, np.int64), np.zeros(1, np.int64)))
    depth = len(loops_of(loop, k.kernel))
    per_access = []
    for a in group:
        lines_w = _window_lines(k, arch, ev, a, depth, wmax)
        per_access.append(lines_w)
    windows = [1 << i for i in range(wmax.bit_length()) if (1 << i) <= wmax]
    best = 1
    for w in windows:
        foot = sum(lw[w] for lw in per_access if lw is not None) * arch.cache_line_bytes * resident
        if foot <= arch.l1_bytes:
            best = w
    factors = []
    for a, lw in zip(group, per_access):
        if lw is None or lw.get("waves", 0) == 0:
            factors.append(1.0)
        else:
            factors.append(min(1.0, lw[best] / best / lw["waves"]))
    return factors, best


def _window_lines(k: KernelIR, arch: Arch, ev, a: Access, depth: int, wmax: int) -> dict | None:
    """Distinct lines one workgroup touches in the first w iterations, for w = 1, 2, 4, ...;
    and under "waves" the lines of one iteration summed over waves (no sharing)."""
    off = element_offsets(k, ev, a.op)
    if off is None:
        return None
    # keep the thread axis and this loop's axis; other loops at their first sample
    sel = [0, 0, slice(None)] + [0] * (off.ndim - 3)
    axis = 3 + depth
    if axis < off.ndim:
        sel[axis] = slice(None)
    x = off[tuple(sel)]
    if x.ndim == 1:
        x = np.repeat(x[:, None], wmax, axis=1)
    if x.shape[1] == 1:
        x = np.repeat(x, wmax, axis=1)
    access = a.width * a.elem_bytes
    line = arch.cache_line_bytes
    byte = x * a.elem_bytes
    out: dict = {}
    w = 1
    while w <= wmax:
        first = (np.floor(byte[:, :w]) // line).ravel()
        last = ((np.ceil(byte[:, :w] + access) - 1) // line).ravel()
        out[w] = float(len(np.unique(np.concatenate([first, last]))))
        w *= 2
    t = byte.shape[0]
    ws = arch.wave_size
    groups = -(-t // ws)
    col = byte[:, 0]
    pad = groups * ws - t
    if pad:
        col = np.concatenate([col, np.repeat(col[-1:], pad)])
    per_wave = touched_lines(col.reshape(groups, ws), np.ones((groups, ws), bool), access, line)
    out["waves"] = float(per_wave.sum())
    return out


def _dram(k: KernelIR, arch: Arch, occ: Occupancy, l2_by_arg: dict[int, float]) -> dict[int, float]:
    """DRAM bytes per kernel argument (the band model of the module docstring)."""
    p = k.problem
    gx, gy = k.grid.grid[0], k.grid.grid[1] * k.grid.grid[2]
    resident = max(1, min(k.grid.workgroups, arch.cu_count * max(1, occ.workgroups_per_cu)))
    if resident >= gx:
        passes_b = -(-gy // max(1, resident // gx))
        passes_a = 1
    else:
        passes_b = gy
        passes_a = -(-gx // resident)
    cache = arch.l2_bytes + arch.llc_bytes
    # a batched operand is read (C written) once a batch; a shared one once
    a_bytes = p.m * p.k * p.in_bytes * (p.batch if p.batched_a else 1)
    b_bytes = p.k * p.n * p.in_bytes * (p.batch if p.batched_b else 1)
    c_bytes = p.m * p.n * p.out_bytes * p.batch
    hit_b = min(1.0, cache / max(1, b_bytes))
    hit_a = min(1.0, cache / max(1, a_bytes))
    model = {
        "a": a_bytes * (1 + (passes_a - 1) * (1 - hit_a)),
        "b": b_bytes * (1 + (passes_b - 1) * (1 - hit_b)),
    }
    spec_args = _spec_args(k)
    out: dict[int, float] = {}
    for arg, l2 in l2_by_arg.items():
        if arg is None:
            out[arg] = l2
            continue
        name = spec_args.get(arg)
        if name in model:
            out[arg] = min(l2, model[name])
        elif name == "c":
            out[arg] = min(l2, c_bytes * (2 if p.has_beta else 1))
        else:
            out[arg] = min(l2, _operand_dram(k, arg, cache, l2))
    return out


def _operand_dram(k: KernelIR, arg: int, cache: int, l2: float) -> float:
    """DRAM bytes of another operand (an MX product's scales): read once where it fits in the
    last-level cache, else as often as the CUs fetch it from L2."""
    v = k.kernel.body.block.args[arg]
    t = v.type
    if not isinstance(t, MemRefType):
        return l2
    sizes = [k.dim_of(v, i) for i in range(t.get_num_dims())]
    if any(n is None for n in sizes):
        return l2
    size = math.prod(sizes) * global_bytes(str(t.element_type))
    return size if size <= cache else l2


def _spec_args(k: KernelIR) -> dict[int, str]:
    """Kernel argument index -> 'a', 'b', 'c', through the launch's operands (an operand's zero-padded
    copy, pack-operands', is that operand: its reads of the program's elements are the operand's)."""
    from gemmc.interp.check import matmul_spec
    from gemmc.transforms.packing import packed_source
    from xdsl.ir import BlockArgument

    spec = matmul_spec(k.module, k.host)
    host_to_name = {spec.a: "a", spec.b: "b", spec.c: "c"}
    out = {}
    for i, v in enumerate(k.launch.kernelOperands):
        v = packed_source(v) or v
        if isinstance(v, BlockArgument) and v.index in host_to_name:
            out[i] = host_to_name[v.index]
    return out
