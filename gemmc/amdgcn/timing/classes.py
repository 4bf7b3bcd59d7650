"""What each instruction costs on a target: its class, the pipe it occupies and for how long,
when its result can be read, the memory counter it counts on and, for a wait, what it waits for.

Sources.  LLVM's AMDGPU scheduling models (llvm/lib/Target/AMDGPU/SISchedule.td): the SI models'
numbers are in 4-cycle units ("1 / (operations / cycle) / 4": one unit is a wave64 pass through a
16-lane SIMD), the GFX10/GFX11 models' in cycles:

    write class          SI/CDNA units    GFX11 latency     here (CDNA cycles / RDNA issue, latency)
    Write32Bit           1                5                 4 / 1, 5
    WriteFloatCvt        4                5                 16 / 1, 5
    WriteTrans32         4                10                16 / 1, 10 (RDNA: its own trans unit)
    WriteQuarterRate32   4                8                 16 / 4, 8
    WriteIntMul          4 (gfx940, 90a: 1)  8              16 (4) / 4, 8
    Write64Bit           2 (gfx940, 90a: 1)  6              8 (4) / 2, 6
    WriteDouble          4 (gfx940, 90a: 1)  38             16 (4) / 16, 38
    WriteSALU            1                2                 4 (a wave's issue slot) / 1, 2
    WriteSMEM            5                20                latency 20
    WriteBranch          8                32                32 cycles a taken branch (refetch)
    Write{2,4,8,16}PassMAI                                  the matrix pipe busy MatrixInstr.cycles

The MFMA pass counts of SISchedule.td (gfx940: 16x16x16 f16 4 passes, 32x32x8 8, 16x16x4 f32 8,
32x32x2 f32 16) are the CDNA3 ISA guide's cycles / 4, which gemmc.target.arch's MatrixInstr.cycles
holds; those are used.  Issue on CDNA (AMD's GCN architecture whitepaper, "CDNA3 ISA" 2.x): a
SIMD is offered an issue slot every 4 cycles and takes up to one instruction of each type
(VALU, SALU/SMEM, VMEM, LDS, branch) from different waves; a wave issues at most one
instruction a slot.  A wave64 VALU instruction takes 4 cycles on 16 lanes (packed FP32,
v_pk_fma_f32, is one such instruction doing two FMAs).  RDNA3/4 (wave32 on 32 lanes, RDNA3 ISA
guide): one instruction a cycle per SIMD, a VALU one cycle, v_dual_* one issue of two ops (the
second op of a pair costs nothing here), and a VALU result readable after the GFX11 latency
(5 cycles: what s_delay_alu tells the hardware to wait for).  WMMA runs on the SIMD's VALU
(RDNA3 whitepaper: "AI accelerators" inside the SIMD), so it occupies the VALU pipe for its
cycles.  On CDNA an MFMA is issued as a VALU instruction (ROCm Compute Profiler's "Scheduler":
one VALU-type instruction a SIMD a slot, MFMAs included; the matrix pipe then runs it while other
VALU work issues in its shadow) and, on CDNA3 and CDNA4, holds the SIMD's VALU issue for the slots
AMD's thread traces show (gemmc.target.amdgcn_isa.valu_after_mfma: an XDL MFMA with 8-byte sources
one slot, 16-byte ones two; packed F32 and DOT, and any VALU behind an f32 MFMA, NumPasses + 2;
read here as a hold on the SIMD, not on the wave: an assumption), and an LDS instruction holds its SIMD pair's LDS port for
lds_port_cycles (its "Local data share": the SIMDs reach the LDS in pairs, one instruction of a
pair at a time, 64 B/clk each way, each lane's 4-byte address in beside a store's data: a wave64
store of 4 B a lane 8 cycles, of 16 B 20).  CDNA's MFMA results need no scoreboard here: LLVM's
GCNHazardRecognizer puts the wait states the hardware does not interlock (s_nop) into the code,
and a dependent MFMA reading the same accumulator as SrcC issues back to back (its pipe
serializes them).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gemmc.amdgcn.interp.matrix_ops import matrix_instr
from gemmc.amdgcn.interp.memory_ops import access_bytes
from gemmc.dialects.amdgcn.instructions import GcnInstruction, is_matrix
from gemmc.dialects.amdgcn.registers import AGPRType, VGPRType
from gemmc.target.amdgcn_isa import (BARRIERS, SALU_FORMATS, is_packed_f32, issue_cadence, valu_after_mfma,
                                     valu_timing)
from gemmc.target.arch import Arch, get_gcn_isa

SMEM_LATENCY = 20  # SISchedule.td WriteSMEM: 5 units (GFX11: 20 cycles); a cached scalar load
LDS_ADDRESS_BYTES = 4  # what each lane sends the LDS beside its data (rocprofiler-compute, Arch.lds_pair_port_bytes)
BRANCH_TAKEN = 32  # SISchedule.td WriteBranch: 8 units (GFX11: 32 cycles); the refetch of a taken branch
# hints that issue and do nothing else (gemmc.amdgcn.interp.control runs them as nothing)
HINTS = ("s_clause", "s_delay_alu", "s_sendmsg", "s_waitcnt_depctr", "s_setprio", "s_sleep", "s_wait_alu",
         "s_set_inst_prefetch_distance", "s_waitcnt_expcnt", "s_wait_expcnt", "buffer_gl0_inv", "buffer_gl1_inv",
         "buffer_wbl2", "buffer_inv", "global_inv", "global_wb", "global_wbinv", "buffer_wbinvl1_vol",
         "buffer_wbinvl1")

@dataclass(frozen=True)
class InstrClass:
    """One instruction's timing.  kind: valu, matrix, salu, smem, lds, vmem, wait, barrier,
    nop, branch, end, hint.  pipe: the SIMD's pipe it occupies for `busy` cycles (valu,
    matrix, salu, lds, vmem, none); `wave_busy`: cycles before the same wave may issue again;
    `latency`: cycles until a VGPR it writes may be read (0: no scoreboard); `counter`: the
    memory counter it counts on (vm, vs, lds, sm); `waits`: {counter: count} of a wait;
    `reads`/`writes`: VGPR/AGPR index ranges (AGPR i is index 512 + i); `dual_second`: the
    second op of a VOPD pair (no issue of its own)."""
    kind: str
    pipe: str = ""
    busy: int = 0
    wave_busy: int = 1
    latency: int = 0
    counter: str = ""
    waits: tuple = ()
    reads: tuple = ()
    writes: tuple = ()
    dual_second: bool = False
    bytes_per_lane: int = 0
    mnemonic: str = ""
    extra: dict = field(default_factory=dict, compare=False)


def cadence(arch: Arch) -> int:
    """Cycles between two issues of one wave: 4 on wave64 CDNA, 1 on RDNA (gemmc.target.amdgcn_isa)."""
    return issue_cadence(arch)


def _regs(values) -> tuple:
    out = []
    for v in values:
        t = v.type
        if isinstance(t, VGPRType):
            out.append((t.first, t.first + t.n))
        elif isinstance(t, AGPRType):
            out.append((512 + t.first, 512 + t.first + t.n))
    return tuple(out)


def _valu(arch: Arch, m: str) -> tuple[int, int, int]:
    """(pipe busy, wave busy, result latency) of a VALU instruction (SISchedule.td, above; the rule
    is gemmc.target.amdgcn_isa.valu_timing, which the IR-level model's issue term reads too)."""
    return valu_timing(arch, m)


def lds_port_cycles(arch: Arch, nbytes: int, store: bool) -> tuple[float, float]:
    """(in, out) cycles a wave's LDS instruction of `nbytes` a lane holds its SIMD pair's LDS port
    (Arch.lds_pair_port_bytes each way; (0, 0) where the arch has no such ports): in, every lane's
    4-byte address and a store's data; out, a read's data (a whole wave: the loops timed here run
    every lane)."""
    per = arch.lds_pair_port_bytes
    if not per:
        return 0.0, 0.0
    lanes = arch.wave_size
    return lanes * (LDS_ADDRESS_BYTES + (nbytes if store else 0)) / per, 0.0 if store else lanes * nbytes / per


def _wait_counts(op: GcnInstruction, arch: Arch) -> tuple:
    """{counter: count} of s_waitcnt* / gfx12's s_wait_*cnt, as the interpreter reads them
    (gemmc.amdgcn.interp.control): lgkmcnt waits on LDS and scalar loads."""
    m, mods = op.MNEMONIC, op.mods
    out = {}
    if m in ("s_waitcnt", "s_waitcnt_vscnt"):
        if "vmcnt" in mods:
            out["vm"] = mods["vmcnt"]
        if "lgkmcnt" in mods:
            out["lds"] = out["sm"] = mods["lgkmcnt"]
        if "vscnt" in mods:
            out["vs"] = mods["vscnt"]
        return tuple(sorted(out.items()))
    which, n = m[len("s_wait_"):], mods.get("imm", 0)
    names = {"loadcnt": "vm", "storecnt": "vs", "dscnt": "lds", "kmcnt": "sm"}
    if "_dscnt" in which and which != "dscnt":
        out[names[which.split("_")[0]]] = n >> 8 & 0x3F
        out["lds"] = n & 0x3F
    elif which in names:
        out[names[which]] = n
    return tuple(sorted(out.items()))


def classify(op: GcnInstruction, arch: Arch, prev: GcnInstruction | None = None) -> InstrClass:
    """The timing class of op on arch; `prev`: the instruction before it in the program (a VOPD
    pair's two ops share their assembly line)."""
    m, f = op.MNEMONIC, op.FORM.fmt
    c = cadence(arch)
    reads, writes = _regs(op.srcs), _regs(op.dsts)
    if is_matrix(op):
        mi = matrix_instr(arch, op)
        on_valu = mi.kind == "wmma"  # RDNA: WMMA runs on the SIMD's VALU
        src = max(4 * (b - a) for a, b in reads[:2]) if reads else 0  # A's and B's bytes a lane
        hold = valu_after_mfma(arch, mi.in_type, mi.cycles, src)
        return InstrClass("matrix", "valu" if on_valu else "matrix", mi.cycles, c, mi.cycles if on_valu else 0,
                          reads=reads, writes=writes, mnemonic=m,
                          extra={"flops": mi.flops, "valu_hold": hold[0] * c, "packed_hold": hold[1] * c})
    if m == "s_nop":
        return InstrClass("nop", "", 0, (op.mods.get("imm", 0) + 1) * c, mnemonic=m)
    if m == "v_nop":
        return InstrClass("nop", "valu", c, c, mnemonic=m)
    if m in BARRIERS:
        return InstrClass("barrier", "", 0, c, mnemonic=m, extra={"signal": m != "s_barrier_wait",
                                                                  "wait": m != "s_barrier_signal"})
    if m in ("s_waitcnt", "s_waitcnt_vscnt") or (m.startswith("s_wait_") and m not in HINTS):
        return InstrClass("wait", "", 0, c, waits=_wait_counts(op, arch), mnemonic=m)
    if m in HINTS:
        return InstrClass("hint", "", 0, c, mnemonic=m)
    if m == "s_endpgm":
        return InstrClass("end", "", 0, c, mnemonic=m)
    if m == "s_branch" or m.startswith("s_cbranch"):
        return InstrClass("branch", "salu", c, c, mnemonic=m)
    if f == "SMEM":
        return InstrClass("smem", "salu", c, c, SMEM_LATENCY, "sm", writes=(), mnemonic=m)
    if f == "DS":
        n = access_bytes(op)
        return InstrClass("lds", "lds", c, c, 0, "lds", reads=reads, bytes_per_lane=n, mnemonic=m,
                          extra={"store": not op.dsts})
    if f in ("GLOBAL", "SCRATCH") or m.startswith("buffer_"):
        store = not op.dsts or "store" in m
        counter = "vs" if store and get_gcn_isa(arch).stores_in_vscnt else "vm"
        return InstrClass("vmem", "vmem", c, c, 0, counter, reads=reads, bytes_per_lane=access_bytes(op), mnemonic=m,
                          extra={"store": store})
    if f in SALU_FORMATS or f == "SOPP" or m.startswith("s_"):
        return InstrClass("salu", "salu", c, c, mnemonic=m)
    busy, wave_busy, lat = _valu(arch, m)
    dual = (prev is not None and c == 1 and prev.attributes.get("loc") is not None
            and prev.attributes.get("loc") == op.attributes.get("loc") and prev.MNEMONIC.startswith("v_"))
    return InstrClass("valu", "valu", busy, wave_busy, lat, reads=reads, writes=writes, dual_second=dual, mnemonic=m,
                      extra={"packed": is_packed_f32(m)})


def classify_program(prog: list, arch: Arch) -> list[InstrClass]:
    """The class of every instruction of a machine's program (a list of (op, body))."""
    out, prev = [], None
    for op, _ in prog:
        out.append(classify(op, arch, prev))
        prev = op
    return out
