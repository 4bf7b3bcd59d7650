"""The analytic time model: resource times per CU and for the whole GPU, and their max.

    p = predict(module, "gfx942")            # module: kernel IR (a lowered module)
    p.time_s, p.tflops, p.bound, p.times     # times: seconds per resource

Equations (docs/cost-model.md has them with their assumptions).  With W workgroups, C
CUs, f the clock, the busiest CU runs Wc = ceil(W / C) workgroups; per workgroup:

    valu    = slots x (wave / simd_lanes) / (simds x dual)       dual = arch.fp32_dual if the
                                                                 thread owns >= 2 accumulators
                                                                 (packed FP32 / dual issue), else 1
    matrix  = matrix-core issue cycles / simds
    lds     = sum over LDS instructions of cycles (bank conflicts included)
    vmem    = sum over global instructions of max(bytes / L1 bytes per clk, lines)
              + spills: 2 scratch dwords per spilled VGPR per wave per K-loop iteration
    latency = ceil(Wc / resident workgroups) x critical path of one workgroup

and T_cu(r) = Wc x r / f for r in valu, matrix, lds, vmem; T(latency) likewise; then
T(l2) = L2 bytes / (L2 bytes per clk x f), T(dram) = DRAM bytes / bandwidth, and

    time = combine(times);  bound = the argmax.

An arch with `launch_us` (sm_90) adds it to the first launch: the time the benchmark's events measure
around a launch before its kernel runs.

f is the boost clock unless the kernel's matrix work draws more power than the chip sustains
(gemmc.cost.clock): then every time but DRAM's is taken at the lower clock it runs at.

The critical path of a workgroup, per iteration of its K loop: the exposed latencies
(a global load used in the same iteration: mem_latency / loads in flight; a prefetched
one, cp.async and TMA copies in the prefetch stage included: what the prefetch distance's
iterations of the loop's own work do not cover; each guarded load whose value its own branch
reads, a peeled copy's vector, one mem_latency after another: clang (AMD) and nvcc (sm_90) wait
for it there, _waited_in_place; the first LDS read after a barrier
and the LDS writes before it: lds_latency each) plus the workgroup's own issue time
(the largest of its VALU, LDS and VMEM cycles) plus BARRIER_CYCLES per barrier.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.dialects import gpu, memref, scf, vector
from xdsl.dialects.builtin import ModuleOp, StringAttr

from gemmc.target.arch import Arch
from gemmc.cost import issue
from gemmc.cost.clock import at_clock, sustained_clock_mhz
from gemmc.cost.peaks import matrix_peak_tflops, vector_peak_tflops
from gemmc.cost.counts import TMA_LOAD, TO_LDS, Access, Counts, count
from gemmc.cost.kernel import KernelIR, main_kernel, read_kernels
from gemmc.cost.occupancy import Occupancy, occupancy
from gemmc.cost.traffic import Traffic, traffic
from gemmc.support.ir_names import ROLE_ATTR, ROLE_COMPUTE, ROLE_K_LOOP, ROLE_PREFETCH
from gemmc.target.resources import lane_bytes
from gemmc.transforms.contraction import prologue_stages
from gemmc.transforms.packing import packed_source

BARRIER_CYCLES = 32  # one s_barrier round trip once every wave has arrived (assumption)
UNROLL_LOADS = 8  # iterations whose global loads a wave issues back to back (clang unrolls by 8)
RESOURCES = ("valu", "matrix", "lds", "vmem", "issue", "l2", "dram", "latency")
OVERLAP_P = 2.0  # resources overlap imperfectly: time = (sum of time_r ** p) ** (1 / p)


def combine(times: dict[str, float], waves_per_simd: float = 2) -> float:
    """The kernel's time from its resource times: a p-norm, between the sum (p = 1, no
    overlap) and the max (p = inf, perfect overlap); OVERLAP_P is fitted in docs/cost-model.md.
    The overlap is other waves' work issued while one waits: with one wave per SIMD there is
    none (its LDS reads, the matrix instructions that use them and its waits follow one another
    in its own order), so p = min(OVERLAP_P, waves per SIMD)."""
    vals = [t for t in times.values() if t > 0]
    if not vals or any(t == float("inf") for t in vals):
        return max(vals, default=0.0)
    p = min(OVERLAP_P, max(1.0, waves_per_simd))
    if p == float("inf"):
        return max(vals)
    top = max(vals)
    return top * sum((t / top) ** p for t in vals) ** (1.0 / p)


@dataclass
class Prediction:
    arch: Arch
    kernel: KernelIR
    counts: Counts
    occ: Occupancy
    traffic: Traffic
    times: dict[str, float]  # seconds per resource
    time_s: float
    bound: str
    pairable: bool
    notes: list[str] = field(default_factory=list)
    others: list[Prediction] = field(default_factory=list)  # the host's other kernels, in time_s too
    clock_mhz: float = 0.0  # the clock it runs at (gemmc.cost.clock): the boost, or lower under matrix load

    @property
    def flops(self) -> int:
        return self.kernel.problem.flops

    @property
    def tflops(self) -> float:
        return self.flops / self.time_s / 1e12 if self.time_s else 0.0

    @property
    def peak_tflops(self) -> float:
        """The peak of what the kernel computes with: matrix cores for its input type, or the VALUs."""
        if self.counts.matrix_instrs:
            return matrix_peak_tflops(self.arch, self.kernel.problem.in_type)
        return vector_peak_tflops(self.arch)

    @property
    def percent_of_peak(self) -> float:
        return 100.0 * self.tflops / self.peak_tflops if self.peak_tflops else 0.0

    @property
    def intensity(self) -> float:
        """FLOPs per DRAM byte (the roofline's x axis)."""
        return self.flops / self.traffic.dram if self.traffic.dram else float("inf")


def predict(module: ModuleOp, arch: Arch, dims: dict[str, int] | None = None, resources=None) -> Prediction:
    """Predict the kernel of a lowered module on `arch` (resources: the compiler's report
    for this kernel, a gemmc.target.toolchain.KernelResources, or None to estimate)."""
    kernels = read_kernels(module, dims)
    main = main_kernel(kernels)
    p = predict_kernel(main, arch, resources)
    for k in kernels:
        if k is not main:  # split-k's init or reduce kernel: its time and its launch add to the main one's
            extra = predict_kernel(k, arch)
            p.others.append(extra)
            p.time_s += extra.time_s + arch.launch_gap_us * 1e-6
            p.notes.append(f"+ @{k.name}: {extra.time_s * 1e6:.3g} us, {extra.bound}-bound, "
                           f"+ {arch.launch_gap_us:g} us between launches")
    if arch.launch_us:  # the time measured around the launch before the kernel runs (Arch.launch_us)
        p.time_s += arch.launch_us * 1e-6
        p.notes.append(f"+ {arch.launch_us:g} us launching (the launcher's host work and the launch)")
    allocs = [op for op in main.host.walk() if isinstance(op, memref.AllocOp)]
    if allocs:  # split-k's and stream-k's workspaces, pack-operands' padded operands
        p.time_s += len(allocs) * arch.workspace_alloc_us * 1e-6
        packed = sum(packed_source(op.results[0]) is not None for op in allocs)
        what = "the workspace" if not packed else f"{packed} padded operand{'s' if packed > 1 else ''}" + (
            " and the workspace" if packed < len(allocs) else "")
        p.notes.append(f"+ {len(allocs) * arch.workspace_alloc_us:g} us allocating {what}")
    return p


def predict_kernel(k: KernelIR, arch: Arch, resources=None) -> Prediction:
    """The prediction for one launched kernel."""
    c = count(k, arch)
    occ = occupancy(k, arch, c, resources)
    t = traffic(k, arch, c, occ)
    return _combine(k, arch, c, occ, t, resources)


def _combine(k: KernelIR, arch: Arch, c: Counts, occ: Occupancy, t: Traffic, resources=None) -> Prediction:
    f = arch.clock_mhz * 1e6
    n_wg = max(1, k.grid.workgroups)
    wg_cu = -(-n_wg // arch.cu_count)
    pairable = _accumulators(k) >= 2
    per_wg = _per_workgroup_cycles(k, arch, c, occ, pairable)
    notes = []
    if issue.applies(arch, c.matrix_instrs):  # RDNA: WMMA on the VALU, one issue port (gemmc.cost.issue)
        valu_beside, issue_cycles, source = issue.issue_cycles(arch, c, resources, occ.waves_per_wg)
        per_wg["matrix"] += (valu_beside + per_wg["valu"] * arch.simds_per_cu) / arch.simds_per_cu
        per_wg["valu"] = 0.0
        per_wg["issue"] = issue_cycles / arch.simds_per_cu
        # one SIMD, two bounds of it: a WMMA holds the VALU for its cycles and leaves the issue port
        # to other instructions, so they overlap; the larger is the SIMD's time, the other drops out
        lesser = min(("matrix", "issue"), key=lambda r: per_wg[r])
        notes.append(f"RDNA: WMMA and VALU share the VALU ({per_wg['matrix'] / max(per_wg['issue'], 1e-30):.2f}x "
                     f"the issue port's one instruction a cycle); the SIMD is {'issue' if lesser == 'matrix' else 'VALU'}"
                     f"-bound (counts: {source})")
        per_wg[lesser] = 0.0
    times = {r: wg_cu * per_wg[r] / n_wg / f for r in ("valu", "matrix", "lds", "vmem", "issue")}
    times["l2"] = (t.l2 + _spill_bytes(k, arch, occ)) / (arch.l2_bytes_per_clk * f)
    times["dram"] = t.dram / (arch.mem_bandwidth_gbs * 1e9)
    if occ.workgroups_per_cu == 0:
        notes.append("a workgroup does not fit on a CU")
        times["latency"] = float("inf")
    else:
        cp = _critical_path(k, arch, c, occ, per_wg, pairable)
        rounds = -(-wg_cu // occ.workgroups_per_cu)
        times["latency"] = rounds * cp / f
    clock = sustained_clock_mhz(arch, k.problem.in_type, times, c.matrix_cycles,
                                lambda ts: combine(ts, occ.waves_per_simd))
    if clock < arch.clock_mhz:
        times = at_clock(times, arch.clock_mhz / clock)
        notes.append(f"matrix load holds the clock to {clock:.0f} MHz (boost {arch.clock_mhz})")
    bound = max(RESOURCES, key=lambda r: times[r])
    total = combine(times, occ.waves_per_simd)
    if bound == "lds" and c.accesses:
        extra = sum(a.extra_cycles for a in c.accesses if a.space == "lds")
        if extra > 0.5 * per_wg["lds"]:
            notes.append("LDS time is mostly bank conflicts")
    if occ.spilled_vgprs:
        notes.append(f"{occ.spilled_vgprs} VGPRs spill to scratch (budget {occ.vgpr_budget})")
    return Prediction(arch, k, c, occ, t, times, total, bound, pairable, notes, clock_mhz=clock)


def _per_workgroup_cycles(k: KernelIR, arch: Arch, c: Counts, occ: Occupancy, pairable: bool) -> dict:
    """Resource cycles of all workgroups together (divided by W later)."""
    wave_cycles = arch.wave_size / arch.simd_lanes
    valu = c.valu_slots * wave_cycles / arch.simds_per_cu / (arch.fp32_dual if pairable else 1)
    lds = sum(a.issued * a.cycles for a in c.accesses if a.space == "lds")
    vmem = sum(a.issued * vmem_cycles(a, arch) for a in c.accesses if a.space == "global")
    vmem += spill_instrs(k, occ) * max(1.0, arch.wave_size * 4 / arch.l1_bytes_per_clk)
    return {"valu": valu, "matrix": c.matrix_cycles / arch.simds_per_cu, "lds": lds, "vmem": vmem, "issue": 0.0}


def vmem_cycles(a: Access, arch: Arch) -> float:
    """CU cycles of one global wave instruction: data at the L1's bytes per clock, one
    tag lookup per cache line.  A TMA box (nvgpu.tma_load) is one instruction of one thread: its
    bytes move through the SM's TMA unit, not the load/store pipeline this term times (they are
    in the L2 and DRAM terms, and in LDS's as shared-memory writes), so it issues in one cycle where
    cp.async spends one instruction per warp for every 16 bytes a lane copies, each with its
    address and bounds computed by the threads (the 4096^3 128x256 wgmma kernel: 12 per thread a K tile)."""
    if a.instrs == 0:
        return 0.0
    if a.op.name == TMA_LOAD:
        return 1.0
    lanes = a.lanes / a.instrs
    width = lane_bytes(a.width, a.elem_bytes) * (a.merge if a.contiguous else 1)
    return max(1.0, lanes * width / arch.l1_bytes_per_clk, a.lines)


def spill_instrs(k: KernelIR, occ: Occupancy) -> float:
    """Scratch wave instructions: a store and a reload per spilled VGPR per K-loop iteration."""
    if not occ.spilled_vgprs:
        return 0.0
    return 2.0 * occ.spilled_vgprs * k_iterations(k) * k.grid.workgroups * occ.waves_per_wg


def _spill_bytes(k: KernelIR, arch: Arch, occ: Occupancy) -> float:
    return spill_instrs(k, occ) * arch.wave_size * 4


def k_loop(k: KernelIR) -> scf.ForOp | None:
    for op in k.kernel.walk():
        if isinstance(op, scf.ForOp) and op.attributes.get(ROLE_ATTR) == StringAttr(ROLE_K_LOOP):
            return op
    loops = [op for op in k.kernel.walk() if isinstance(op, scf.ForOp)]
    return loops[0] if loops else None


def k_iterations(k: KernelIR) -> int:
    loop = k_loop(k)
    return k.evaluator().samples(loop).trip if loop is not None else 1


def _accumulators(k: KernelIR) -> int:
    """Independent accumulators a thread owns: the thread tile (1 for the naive kernel)."""
    s = k.schedule
    return s.thread_m * s.thread_n if s is not None else 1


def _critical_path(k: KernelIR, arch: Arch, c: Counts, occ: Occupancy, per_wg: dict, pairable: bool) -> float:
    """Cycles one workgroup takes alone (module docstring)."""
    n_wg = max(1, k.grid.workgroups)
    loop = k_loop(k)
    iters = k_iterations(k) if loop is not None else 1
    simds_used = min(arch.simds_per_cu, max(1, occ.waves_per_wg))
    own = {r: per_wg[r] / n_wg for r in ("lds", "vmem")}
    own["valu"] = per_wg["valu"] / n_wg * arch.simds_per_cu / simds_used
    own["matrix"] = per_wg["matrix"] / n_wg * arch.simds_per_cu / simds_used
    own["issue"] = per_wg.get("issue", 0.0) / n_wg * arch.simds_per_cu / simds_used
    issue = max(own.values()) / max(1, iters)
    body = set(id(op) for op in loop.walk()) if loop is not None else set()
    barriers = sum(1 for op in loop.walk() if isinstance(op, gpu.BarrierOp)) if loop is not None else 0
    loads = [a for a in c.accesses if a.space == "global" and not a.store and a.instrs > 0 and id(a.op) in body]
    exposed = 0.0
    waited = sum(a.issued for a in loads if _waited_in_place(a, arch, loop))
    if waited:  # each waited for right after it is issued: their latencies follow one another
        exposed += arch.mem_latency_cycles * waited / (n_wg * max(1, occ.waves_per_wg) * max(1, iters))
    if any(not _overlapped(a, loop, arch) for a in loads):
        in_flight = UNROLL_LOADS if barriers == 0 else 1
        exposed += arch.mem_latency_cycles / in_flight
    elif loads:  # prefetched d tiles ahead: d iterations of the loop's own work cover the latency (sm_90)
        exposed += max(0.0, arch.mem_latency_cycles - prefetch_distance(loop, arch) * issue)
    lds = [a for a in c.accesses if a.space == "lds" and a.instrs > 0 and id(a.op) in body]
    exposed += arch.lds_latency_cycles * (any(not a.store for a in lds) + any(a.store for a in lds))
    exposed += BARRIER_CYCLES * barriers
    return iters * (issue + exposed) + arch.mem_latency_cycles


def _waited_in_place(a, arch: Arch, k_loop_op=None) -> bool:
    """A guarded global load whose value an op of its own branch reads: a peeled copy's interior
    vector, its elements extracted in the branch that loads it (copy_lowering._vector_or_elements).
    clang extracts an element by a shift of the loaded register there, and LLVM's SIInsertWaitcnts
    puts an `s_waitcnt vmcnt(0)` before it: the load's latency is exposed where it is issued,
    whatever prefetching meant to hide it (docs/cost-model.md, "Peeled copies on AMD").

    nvcc 13 on sm_90 (docs/cost-model.md, "Peeled copies on sm_90"; nvdisasm of its SASS): in the
    4097x4095x1023 wgmma kernel's peeled copies it keeps the branches whole (BSSY / BSYNC), so each
    copy's LDG is followed by what takes its value, the PRMTs and STS.U16s of the elements extracted in
    its branch or the STS of a head or tail element guarded by a branch of its own (an scf.if around the
    store that does not hold the load), which wait on its
    scoreboard before the next copy's LDG issues; where a guarded load's value goes unguarded into its
    store (an aligned copy: `if (in_bounds) v = load; else v = 0; store v`), it predicates the loads and
    issues them together (the 4096^3 two-slot ldmatrix kernel: four @P LDG.E.128, then the STS.128s).
    A load whose value is first used after the K loop's compute (double-buffer{stage=registers}) is
    not waited for there."""
    if not isinstance(a.op.parent_op(), scf.IfOp):
        return False
    block = a.op.parent_block()
    own = any(use.operation.parent_block() is block and not isinstance(use.operation, scf.YieldOp)
              for r in a.op.results for use in r.uses)
    if arch.vendor != "nvidia":
        return own
    if k_loop_op is not None and _staged_in_registers(a, k_loop_op):
        return False
    loop, outer = _innermost_loop(a.op), _ancestors(a.op)
    return own or any(_innermost_loop(u) is loop and isinstance(u.parent_op(), scf.IfOp)
                      and u.parent_op() not in outer for u in _uses(a.op))


def _ancestors(op) -> list:
    out, p = [], op.parent_op()
    while p is not None:
        out.append(p)
        p = p.parent_op()
    return out


def _innermost_loop(op) -> scf.ForOp | None:
    p = op.parent_op()
    while p is not None and not isinstance(p, scf.ForOp):
        p = p.parent_op()
    return p


def prefetch_distance(loop, arch: Arch) -> int:
    """Tiles the K loop's prefetch runs ahead on sm_90: the pipeline's prologue stages before the loop
    (pipeline{stages=S}: S - 1; wgmma-in-flight's d'; double-buffer: 1), at least 1.  AMD targets keep
    1 (their validated rows were predicted so; no AMD measurement of deeper pipelines to check it)."""
    if loop is None or arch.vendor != "nvidia":
        return 1
    return max(1, len(prologue_stages(loop)))


def _in_prefetch(op, loop) -> bool:
    """Whether op is the K loop's prefetch or inside it (its scf.if has gemm.role = "prefetch"; the copies
    lower-copies, direct-to-lds and tma-copies write there keep their own load_a / load_b role)."""
    p = op
    while p is not None and p is not loop:
        if p.attributes.get(ROLE_ATTR) == StringAttr(ROLE_PREFETCH):
            return True
        p = p.parent_op()
    return False


def _overlapped(a, loop, arch: Arch) -> bool:
    """A global load whose latency the iteration's compute covers: a prefetch (double
    buffering through LDS; on sm_90 cp.async and TMA copies issued in the prefetch stage, which
    complete asynchronously: PTX ISA, cp.async and cp.async.bulk.tensor), or a load whose
    value is first used after the compute loop of the same iteration (double buffering through
    registers).  A load the prefetch stage itself waits for (_waited_in_place) is exposed
    there whatever its stage."""
    if a.role == ROLE_PREFETCH or (arch.vendor == "nvidia" and a.op.name in TO_LDS and _in_prefetch(a.op, loop)):
        return True
    return _staged_in_registers(a, loop)


def _staged_in_registers(a, loop) -> bool:
    """A global load of the K loop whose value is first used after the loop's compute (double buffering
    through registers)."""
    body = list(loop.body.block.ops)
    compute = [i for i, op in enumerate(body) if op.attributes.get(ROLE_ATTR) == StringAttr(ROLE_COMPUTE)]
    if not compute:
        return False
    start = _top_index(a.op, loop, body)
    uses = [_top_index(u, loop, body) for u in _uses(a.op)]
    uses = [u for u in uses if u is not None]
    return start is not None and bool(uses) and all(start < compute[0] < u for u in uses)


def _top_index(op, loop, body) -> int | None:
    while op is not None and op.parent_op() is not loop:
        op = op.parent_op()
    return body.index(op) if op is not None and op in body else None


def _uses(op, depth: int = 4) -> list:
    """The ops using op's results, through scf.if results (a guarded load yields its value)
    and vector.extract (a peeled copy's vector load yields its elements: no work of its own)."""
    out = []
    for r in op.results:
        for use in r.uses:
            user = use.operation
            if isinstance(user, scf.YieldOp) and depth and isinstance(user.parent_op(), scf.IfOp):
                out.extend(_uses(user.parent_op(), depth - 1))
            elif isinstance(user, vector.ExtractOp) and depth:
                out.extend(_uses(user, depth - 1))
            else:
                out.append(user)
    return out
