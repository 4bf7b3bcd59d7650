"""An interpreter for finalized amdgcn kernels: the emitted program, run without a GPU.

State, per wave of every workgroup of the grid at once (numpy arrays over waves and lanes):
VGPRs (32 bits per lane), SGPRs, EXEC, VCC, SCC, the program counter; per workgroup the
LDS; global memory is the host's numpy arrays at made-up 64-bit base addresses, with the
kernarg segment laid out as the kernel's metadata says.  A buffer is held as the device holds
it (device_words: f32 4 bytes an element, f16 and bf16 2, bf16 the upper half of the host's
float32, FP8 1, the host's float32 as ml_dtypes encodes the format) and read back after the
launch (host_values); LDS is addressable by bytes.

Scheduling: the waves whose program counter is lowest run the next instruction together
(the others wait), which keeps waves in step through uniform control flow and lets
s_barrier check that every wave of a workgroup arrived at the same one.

What it checks, beyond computing C:
  * s_waitcnt: a load writes its registers at once but marks them pending on its
    counter (vmcnt for global loads, lgkmcnt for LDS and scalar loads; gfx11 counts
    stores in vscnt); `s_waitcnt vmcnt(N)` completes all but the N youngest, LDS in
    order, scalar loads only at lgkmcnt(0) (they return out of order).  Reading, or
    overwriting, a pending register is an error, and so is an s_barrier with LDS
    accesses outstanding;
  * every global access inside its buffer, every LDS access inside the kernel's LDS
    and aligned to its size;
  * LDS races: a wave reading a byte another wave wrote (or writing one another wave
    read or wrote) since the last barrier (by byte: ds_write_b16 or ds_write_b8 of two waves into
    different bytes of one word is no race, as LDS writes bytes);
  * barriers: all live waves of a workgroup at the same s_barrier;
  * WMMA hazards: a WMMA reading as A or B what the WMMA just before it wrote (no VALU
    instruction between) is an error;
  * MFMA hazards: each wave counts the wait states it issued (an instruction one, s_nop
    imm + 1); reading or overwriting a VGPR or AGPR an MFMA wrote fewer wait states ago than
    arch.GcnIsa requires (the same table amdgcn-finalize inserts s_nop from) is an error, as
    is an MFMA reading a VGPR a VALU wrote too recently, or an MFMA with some lanes masked off.

v_mfma_* and v_wmma_* compute D = A * B + C lane-accurately from the instruction's layouts in
gemmc.target.arch (gemmc.interp.matrix.multiply, as the kernel-IR interpreter does for amdgpu.mfma and
amdgpu.wmma); f16 operands are unpacked two per register, FP8 four (byte b of a register is
element 4i + b, decoded by ml_dtypes in the instruction's formats: A's in_type, B's b_in_type).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from xdsl.dialects import gpu, memref
from xdsl.dialects.builtin import ModuleOp
from xdsl.interpreter import Interpreter, InterpreterFunctions, PythonValues, impl, register_impls
from xdsl.interpreters.func import FuncFunctions
from xdsl.ir import Operation, SSAValue

from gemmc.target.amdgcn_isa import BARRIERS, PLAIN_VALU_FORMATS, SALU_FORMATS, VALU_FORMATS, Form
from gemmc.target.arch import Arch, get_arch, get_gcn_isa, get_matrix_instr
from gemmc.support.diagnostics import GemmcError
from gemmc.dialects.amdgcn.control_flow import ForOp, IfOp, IfUniformOp
from gemmc.dialects.amdgcn.instructions import GcnInstruction, is_matrix, is_mfma, is_wmma, mfma_consumer
from gemmc.dialects.amdgcn.kernel import KernelOp, kernel_args
from gemmc.dialects.amdgcn.pseudo import ConcatOp, CopyOp, LabelOp, constant_of
from gemmc.dialects.amdgcn.registers import (
    VCC_INDEX,
    AGPRType,
    GcnRegisterType,
    SGPRType,
    SpecialRegType,
    VGPRType,
    sgpr_numbers,
    sgpr_pair,
)
from gemmc.interp.host import launch_geometry

KERNARG_BASE = 0x7F << 40
BUFFER_SHIFT = 40
U32 = np.uint32
U64 = np.uint64
MAX_STEPS = 20_000_000


class GcnInterpError(GemmcError):
    """The program did something a GPU would not do right (or at all)."""


@dataclass
class Counters:
    issued: np.ndarray
    done: np.ndarray


@dataclass
class Stats:
    instructions: int = 0  # executed per wave, summed over waves
    steps: int = 0
    waits: int = 0
    by_class: dict = field(default_factory=dict)


class Machine:
    def __init__(self, kernel: KernelOp, arch: Arch, grid, block, buffers: list[np.ndarray], kernarg: np.ndarray,
                 buffer_bytes: list[int] | None = None):
        self.kernel, self.arch = kernel, arch
        self.isa = get_gcn_isa(arch)
        self.L = arch.wave_size
        bx, by, bz = block
        gx, gy, gz = grid
        if gz != 1 or bz != 1:
            raise GcnInterpError("amdgcn interpreter: 3-d grids and blocks are not supported")
        threads = bx * by
        self.wpg = -(-threads // self.L)
        self.nwg = gx * gy
        W = self.W = self.nwg * self.wpg
        L = self.L
        self.wg_of = np.repeat(np.arange(self.nwg), self.wpg)
        wg_x = self.wg_of % gx
        wg_y = self.wg_of // gx
        t = (np.arange(self.wpg)[:, None] * L + np.arange(L)[None, :])  # thread index in the workgroup
        t = np.tile(t, (self.nwg, 1))
        valid = t < threads
        tx, ty = t % bx, t // bx
        nv = max(k.int_attr("vgprs", 1) for k in [kernel])
        ns = max(kernel.int_attr("sgprs", 4), 4)
        na = kernel.int_attr("agprs")
        self.V = np.zeros((nv, W, L), U32)
        self.A = np.zeros((max(na, 1), W, L), U32)  # accumulation registers (gfx90a+)
        self.S = np.zeros((ns + 2, W), U32)
        self.V[0] = np.where(valid, tx | (ty << 10), 0).astype(U32)
        self.S[0] = U32(KERNARG_BASE & 0xFFFFFFFF)
        self.S[1] = U32(KERNARG_BASE >> 32)
        self.S[2] = wg_x.astype(U32)
        self.S[3] = wg_y.astype(U32)
        self.lane_bit = (U64(1) << np.arange(L, dtype=U64))
        self.exec_bits = np.bitwise_or.reduce(np.where(valid, self.lane_bit[None, :], U64(0)), axis=1).astype(U64)
        self.lanes = valid.copy()
        self.vcc = np.zeros(W, U64)
        self.scc = np.zeros(W, bool)
        self.pc = np.zeros(W, np.int64)
        self.done = np.zeros(W, bool)
        self.buffers = [np.ascontiguousarray(b).reshape(-1).view(U32) for b in buffers]
        # the bytes each buffer holds (a 16-bit buffer's words are padded to a whole word)
        self.buffer_bytes = buffer_bytes or [4 * len(b) for b in self.buffers]
        self.kernarg = kernarg
        self.lds_words = max(1, -(-kernel.int_attr("lds_bytes") // 4))
        self.lds_bytes = kernel.int_attr("lds_bytes")
        self.LDS = np.zeros((self.nwg, self.lds_words), U32)
        self.epoch = np.zeros(self.nwg, np.int64)
        nbytes = 4 * self.lds_words  # races are tracked by byte
        self.w_wave = np.full((self.nwg, nbytes), -1, np.int64)
        self.w_epoch = np.full((self.nwg, nbytes), -1, np.int64)
        self.r_wave = np.full((self.nwg, nbytes), -1, np.int64)
        self.r_epoch = np.full((self.nwg, nbytes), -1, np.int64)
        # pending registers: kind 0 none, 1 vm load, 2 lds load, 3 smem load; with the op's sequence number
        self.vkind = np.zeros((W, nv), np.int8)
        self.vseq = np.zeros((W, nv), np.int64)
        self.skind = np.zeros((W, ns + 2), np.int8)
        self.sseq = np.zeros((W, ns + 2), np.int64)
        z = lambda: Counters(np.zeros(W, np.int64), np.zeros(W, np.int64))  # noqa: E731
        self.vm, self.lds, self.smem, self.vs = z(), z(), z(), z()
        self.lds_write_seq = np.zeros(W, np.int64)
        self.vmaybe = np.zeros((W, nv), bool)
        self.smaybe = np.zeros((W, ns + 2), bool)
        self.stats = Stats()
        # hazards: wait states issued per wave; per VGPR the count when an MFMA (mfma_by: its
        # index in mfma_ops, -1 none) or a VALU last wrote it
        self.ws = np.zeros(W, np.int64)
        # (AGPR i is column nv + i)
        self.nv = nv
        self.mfma_at = np.zeros((W, nv + na), np.int64)
        self.mfma_by = np.full((W, nv + na), -1, np.int64)
        self.valu_at = np.full((W, nv + na), -(1 << 40), np.int64)
        self.mfma_ops: list = []
        # WMMA hazard: the VGPRs the last VALU instruction wrote, where that was a WMMA
        self.wmma_d = np.zeros((W, nv), bool)
        # gfx12 SGPR read hazards: SGPR pairs a VALU read, SGPRs (VCC at amdgcn.VCC_INDEX) with an
        # uncommitted SALU / VALU write
        self.sg_tracked = np.zeros((W, 64), bool)
        self.sg_sa = np.zeros((W, VCC_INDEX + 1), bool)
        self.sg_va = np.zeros((W, VCC_INDEX + 1), bool)
        self._compile()

    # -- program -------------------------------------------------------------------------------

    def _counter(self, op: GcnInstruction):
        """(gemmc.interp.Stats field, bytes per lane or 0, per lane?) for what op counts as."""
        f, m = op.FORM.fmt, op.MNEMONIC
        if f == "GLOBAL":
            return ("global_load" if op.dsts else "global_store", _access_bytes(op))
        if f == "DS":
            return ("lds_load" if op.dsts else "lds_store", _access_bytes(op))
        if is_matrix(op):
            return ("mfma", _matrix_instr(self.arch, op).flops)
        if f in PLAIN_VALU_FORMATS:
            return ("valu" if m.endswith("_f32") else "valu_int", 2 if m in ("v_fma_f32", "v_fmac_f32") else
                    (1 if m.endswith("_f32") and not m.startswith(("v_cmp", "v_cvt")) else 0))
        if m in ("s_barrier", "s_barrier_wait"):
            return ("barrier", 0)
        return None

    def count(self, op, act: np.ndarray, st) -> None:
        kind = self.kinds.get(op)
        if kind is None:
            return
        what, x = kind
        waves = int(act.sum())
        if what == "barrier":
            st.barriers += len(np.unique(self.wg_of[act]))
            return
        lanes = int((act[:, None] & self.lanes).sum())
        if what == "mfma":
            st.matrix_instrs += waves
            st.flops += x * waves
            return
        if what in ("valu", "valu_int"):
            if what == "valu":
                st.valu_instrs += waves
                st.flops += x * lanes
            else:
                st.valu_int_instrs += waves
            return
        setattr(st, f"{what}_instrs", getattr(st, f"{what}_instrs") + waves)
        setattr(st, f"{what}_bytes", getattr(st, f"{what}_bytes") + x * lanes)

    def _compile(self) -> None:
        ops = list(self.kernel.body.block.ops)
        self.prog: list[tuple[Operation, object]] = []
        labels: dict[str, int] = {}
        for op in ops:
            if isinstance(op, LabelOp):
                labels[op.label.data] = len(self.prog)
            elif isinstance(op, GcnInstruction):
                self.prog.append((op, None))
            elif isinstance(op, (ForOp, IfOp, IfUniformOp, CopyOp, ConcatOp)):
                raise GcnInterpError("amdgcn interpreter: the kernel is not finalized; run amdgcn-finalize")
        self.labels = labels
        self.has_mfma = any(is_mfma(op) for op, _ in self.prog)
        self.has_wmma = any(is_wmma(op) for op, _ in self.prog)
        self.prog = [(op, self._compile_op(op)) for op, _ in self.prog]
        self.kinds = {op: self._counter(op) for op, _ in self.prog}

    def error(self, op: Operation, msg: str, waves=None) -> GcnInterpError:
        idx = next((i for i, (o, _) in enumerate(self.prog) if o is op), -1)
        where = f"instruction {idx} '{op.MNEMONIC}'" if isinstance(op, GcnInstruction) else op.name
        if waves is not None:
            ws = np.nonzero(waves)[0]
            if len(ws):
                w = int(ws[0])
                where += f" (workgroup {int(self.wg_of[w])}, wave {w % self.wpg})"
        return GcnInterpError(f"amdgcn interpreter: {where}: {msg}")

    # -- operand access ------------------------------------------------------------------------

    def lanes_act(self, act: np.ndarray) -> np.ndarray:
        return act[:, None] & self.lanes

    def set_exec(self, bits: np.ndarray, act: np.ndarray) -> None:
        self.exec_bits = np.where(act, bits.astype(U64), self.exec_bits).astype(U64)
        self.lanes = (self.exec_bits[:, None] & self.lane_bit[None, :]) != 0

    def rd_scalar64(self, v: SSAValue) -> np.ndarray:
        """A 64-bit scalar operand (SGPR pair, exec, vcc or constant) per wave."""
        t = v.type
        if isinstance(t, SGPRType):
            lo = self.S[t.first].astype(U64)
            if t.n == 1:
                return lo
            return lo | (self.S[t.first + 1].astype(U64) << U64(32))
        if isinstance(t, SpecialRegType):
            return {"exec": self.exec_bits, "vcc": self.vcc}[t.reg.data].copy()
        c = constant_of(v)
        assert c is not None
        return np.full(self.W, U64(c.int_value & 0xFFFFFFFFFFFFFFFF), U64)

    def rd_s(self, v: SSAValue) -> np.ndarray:
        """A 32-bit scalar operand per wave."""
        t = v.type
        if isinstance(t, SGPRType):
            return self.S[t.first]
        if isinstance(t, SpecialRegType):
            return (self.rd_scalar64(v) & U64(0xFFFFFFFF)).astype(U32)
        c = constant_of(v)
        assert c is not None
        return np.full(self.W, U32(c.bits), U32)

    def rd_v(self, v: SSAValue, i: int = 0):
        """A VALU source (dword i of it): (W, L) for VGPRs, (W, 1) for SGPRs, a scalar for constants."""
        t = v.type
        if isinstance(t, VGPRType):
            return self.V[t.first + i]
        if isinstance(t, AGPRType):
            return self.A[t.first + i]
        if isinstance(t, SGPRType):
            return self.S[t.first + i][:, None]
        c = constant_of(v)
        assert c is not None
        if i == 0:
            return U32(c.bits)
        return U32(0xFFFFFFFF if c.int_value < 0 and not c.is_float else 0)

    def rd_v64(self, v: SSAValue):
        lo = np.asarray(self.rd_v(v, 0)).astype(U64)
        hi = np.asarray(self.rd_v(v, 1)).astype(U64)
        return lo | (hi << U64(32))

    def wr_v(self, t: VGPRType | AGPRType, vals: list, act: np.ndarray) -> None:
        m = self.lanes_act(act)
        file = self.A if isinstance(t, AGPRType) else self.V
        for i, x in enumerate(vals):
            file[t.first + i] = np.where(m, np.asarray(x).astype(U32), file[t.first + i])

    def wr_s(self, t, vals: list, act: np.ndarray) -> None:
        if isinstance(t, SpecialRegType):
            if t.reg.data == "exec":
                self.set_exec(vals[0], act)
            elif t.reg.data == "vcc":
                self.vcc = np.where(act, vals[0], self.vcc).astype(U64)
            elif t.reg.data == "scc":
                self.scc = np.where(act, vals[0], self.scc)
            return
        assert isinstance(t, SGPRType)
        for i, x in enumerate(vals):
            self.S[t.first + i] = np.where(act, np.asarray(x).astype(U32), self.S[t.first + i])

    def wr_s64(self, t, val: np.ndarray, act: np.ndarray) -> None:
        if isinstance(t, SpecialRegType):
            self.wr_s(t, [val], act)
            return
        assert isinstance(t, SGPRType)
        if t.n == 1:
            self.wr_s(t, [(val & U64(0xFFFFFFFF)).astype(U32)], act)
        else:
            self.wr_s(t, [(val & U64(0xFFFFFFFF)).astype(U32), (val >> U64(32)).astype(U32)], act)

    def mask_of_lanes(self, cond: np.ndarray, act: np.ndarray) -> np.ndarray:
        bits = np.where(cond & self.lanes_act(act), self.lane_bit[None, :], U64(0))
        return np.bitwise_or.reduce(bits, axis=1).astype(U64)

    def lanes_of_mask(self, bits: np.ndarray) -> np.ndarray:
        return (bits[:, None] & self.lane_bit[None, :]) != 0

    # -- pending registers -----------------------------------------------------------------------

    def pending(self, kind: np.ndarray, seq: np.ndarray) -> np.ndarray:
        return (((kind == 1) & (seq > self.vm.done[:, None])) | ((kind == 2) & (seq > self.lds.done[:, None]))
                | ((kind == 3) & (seq > self.smem.done[:, None])))

    def refresh_pending(self) -> None:
        """Recompute which registers may be pending (after waits); checks read this first."""
        self.vmaybe = self.pending(self.vkind, self.vseq)
        self.smaybe = self.pending(self.skind, self.sseq)

    def check_regs(self, op: Operation, vals, act: np.ndarray, what: str) -> None:
        for v in vals:
            t = v.type
            if isinstance(t, VGPRType):
                k, s, base, maybe = self.vkind, self.vseq, t.first, self.vmaybe
            elif isinstance(t, SGPRType):
                k, s, base, maybe = self.skind, self.sseq, t.first, self.smaybe
            else:
                continue
            sl = slice(base, base + t.n)
            if not maybe[:, sl].any():
                continue
            p = self.pending(k[:, sl], s[:, sl]) & act[:, None]
            if p.any():
                w, r = (int(x[0]) for x in np.nonzero(p))
                kinds = ({1: "s_wait_loadcnt", 2: "s_wait_dscnt", 3: "s_wait_kmcnt 0"} if self.isa.split_counters
                         else {1: "s_waitcnt vmcnt", 2: "s_waitcnt lgkmcnt", 3: "s_waitcnt lgkmcnt(0)"})
                counter = kinds[int(k[w, base + r])]
                name = f"{'v' if isinstance(t, VGPRType) else 's'}{base + r}"
                raise self.error(op, f"{what} {name} before the load writing it completed "
                                     f"(missing {counter})", p.any(axis=1))

    def saturate(self) -> None:
        """A counter holds at most its maximum: the wave stalls rather than issue more, so
        accesses with that many younger ones in flight have completed."""
        self.vm.done = np.maximum(self.vm.done, self.vm.issued - self.isa.vmcnt_max)
        self.lds.done = np.maximum(self.lds.done, self.lds.issued - self.isa.lgkmcnt_max)

    def mark(self, t, kind: int, seq: np.ndarray, act: np.ndarray) -> None:
        if isinstance(t, VGPRType):
            k, s = self.vkind, self.vseq
        else:
            k, s = self.skind, self.sseq
        sl = slice(t.first, t.first + t.n)
        k[:, sl] = np.where(act[:, None], kind, k[:, sl])
        s[:, sl] = np.where(act[:, None], seq[:, None], s[:, sl])
        (self.vmaybe if isinstance(t, VGPRType) else self.smaybe)[:, sl] |= act[:, None]

    # -- memory ----------------------------------------------------------------------------------

    def resolve(self, op: Operation, addr: np.ndarray, m: np.ndarray, nbytes: int):
        """(buffer index array, word index array) of the active lanes' addresses."""
        a = addr[m]
        buf = (a >> U64(BUFFER_SHIFT)).astype(np.int64)
        off = (a & U64((1 << BUFFER_SHIFT) - 1)).astype(np.int64)
        align = min(nbytes, 4)
        if np.any(off % align):
            raise self.error(op, f"global access not aligned to {align} bytes", m.any(axis=1))
        bad = np.zeros(len(a), bool)
        for b in np.unique(buf):
            sel = buf == b
            if b == KERNARG_BASE >> BUFFER_SHIFT:
                size = len(self.kernarg) * 4
            elif 1 <= b <= len(self.buffers):
                size = self.buffer_bytes[b - 1]
            else:
                bad |= sel
                continue
            bad |= sel & ((off < 0) | (off + nbytes > size))
        if bad.any():
            raise self.error(op, f"out-of-bounds global access (address 0x{int(a[bad][0]):x})", m.any(axis=1))
        return buf, off // 4, off

    def gload(self, buf, word, n: int) -> list[np.ndarray]:
        out = [np.zeros(len(word), U32) for _ in range(n)]
        for b in np.unique(buf):
            sel = buf == b
            data = self.kernarg if b == KERNARG_BASE >> BUFFER_SHIFT else self.buffers[b - 1]
            for i in range(n):
                out[i][sel] = data[word[sel] + i]
        return out

    def gload16(self, buf, byte) -> np.ndarray:
        """16 bits at each byte address (2-aligned), zero-extended."""
        out = np.zeros(len(byte), U32)
        for b in np.unique(buf):
            sel = buf == b
            out[sel] = self.buffers[b - 1].view(np.uint16)[byte[sel] // 2]
        return out

    def gload8(self, buf, byte) -> np.ndarray:
        """The byte at each byte address, zero-extended."""
        out = np.zeros(len(byte), U32)
        for b in np.unique(buf):
            sel = buf == b
            out[sel] = self.buffers[b - 1].view(np.uint8)[byte[sel]]
        return out

    def gstore8(self, buf, byte, vals: np.ndarray) -> None:
        for b in np.unique(buf):
            sel = buf == b
            self.buffers[b - 1].view(np.uint8)[byte[sel]] = (vals[sel] & U32(0xFF)).astype(np.uint8)

    def gstore16(self, buf, byte, vals: np.ndarray) -> None:
        for b in np.unique(buf):
            sel = buf == b
            self.buffers[b - 1].view(np.uint16)[byte[sel] // 2] = vals[sel].astype(np.uint16)

    def gstore(self, buf, word, vals: list[np.ndarray]) -> None:
        for b in np.unique(buf):
            sel = buf == b
            data = self.buffers[b - 1]
            for i, x in enumerate(vals):
                data[word[sel] + i] = x[sel]

    def lds_index(self, op, addr: np.ndarray, m: np.ndarray, nbytes: int):
        a = addr[m].astype(np.int64)
        align = min(nbytes, 16) if nbytes != 12 else 16
        if np.any(a % align):
            raise self.error(op, f"LDS address not aligned to {align} bytes", m.any(axis=1))
        if np.any((a < 0) | (a + nbytes > self.lds_bytes)):
            raise self.error(op, f"LDS access outside the kernel's {self.lds_bytes} bytes", m.any(axis=1))
        w_idx = np.broadcast_to(np.arange(self.W)[:, None], m.shape)[m]
        return w_idx, self.wg_of[w_idx], a // 4

    def lds_byte(self, op, addr: np.ndarray, m: np.ndarray, nbytes: int = 2):
        """(waves, workgroups, byte addresses) of a 16-bit (8-bit) LDS access's active lanes."""
        a = addr[m].astype(np.int64)
        w_idx, wg, _ = self.lds_index(op, addr, m, nbytes)
        return w_idx, wg, a

    @staticmethod
    def _bytes(wave, wg, first, n: int):
        """The n bytes from byte address `first` of each access, with its wave and workgroup."""
        if n == 1:
            return wave, wg, first
        return np.repeat(wave, n), np.repeat(wg, n), (first[:, None] + np.arange(n)).ravel()

    def race_read(self, op, wave, wg, word) -> None:
        self.race_read_bytes(op, wave, wg, 4 * word, 4)

    def race_write(self, op, wave, wg, word) -> None:
        self.race_write_bytes(op, wave, wg, 4 * word, 4)

    def race_read_bytes(self, op, wave, wg, first, n: int) -> None:
        wave, wg, byte = self._bytes(wave, wg, first, n)
        cur = self.epoch[wg]
        bad = (self.w_epoch[wg, byte] == cur) & (self.w_wave[wg, byte] != wave)
        if bad.any():
            raise self.error(op, f"LDS race: word {int(byte[bad][0]) // 4} read by one wave after another wrote it "
                                 "with no barrier between", np.isin(np.arange(self.W), wave[bad]))
        other = (self.r_epoch[wg, byte] == cur) & (self.r_wave[wg, byte] != wave)
        self.r_wave[wg, byte] = np.where(other, -2, wave)
        self.r_epoch[wg, byte] = cur

    def race_write_bytes(self, op, wave, wg, first, n: int) -> None:
        wave, wg, byte = self._bytes(wave, wg, first, n)
        cur = self.epoch[wg]
        bad = ((self.w_epoch[wg, byte] == cur) & (self.w_wave[wg, byte] != wave)) | (
            (self.r_epoch[wg, byte] == cur) & (self.r_wave[wg, byte] != wave))
        if bad.any():
            raise self.error(op, f"LDS race: word {int(byte[bad][0]) // 4} written by one wave while another "
                                 "accesses it, with no barrier between", np.isin(np.arange(self.W), wave[bad]))
        self.w_wave[wg, byte] = wave
        self.w_epoch[wg, byte] = cur

    # -- instructions ----------------------------------------------------------------------------

    def _compile_op(self, op: GcnInstruction):
        m = op.MNEMONIC
        f = op.FORM
        srcs, dsts = list(op.srcs), list(op.dsts)
        reg_srcs = [v for v in srcs if isinstance(v.type, GcnRegisterType)]
        reg_dsts = [v for v in dsts if isinstance(v.type, GcnRegisterType)]
        body = self._semantics(op, m, f, srcs, dsts)
        target = op.attributes.get("target")
        tgt = self.labels.get(target.data) if target is not None else None  # type: ignore[attr-defined]
        if target is not None and tgt is None:
            raise GcnInterpError(f"amdgcn interpreter: branch to unknown label {target.data}")  # type: ignore[attr-defined]

        hazards = [h for h in (self._hazard_check(op), self._wmma_hazard_check(op), self._sgpr_hazard_check(op))
                   if h is not None]
        issue = op.mods.get("imm", 0) + 1 if m == "s_nop" else 1

        def run(act: np.ndarray):
            self.check_regs(op, reg_srcs, act, "reads")
            self.check_regs(op, reg_dsts, act, "overwrites")
            for hazard in hazards:
                hazard(act)
            out = body(act, tgt)
            if self.has_mfma:
                self.ws += np.where(act, issue, 0)
            return out

        return run

    # -- MFMA hazards ------------------------------------------------------------------------------

    def _hazard_check(self, op):
        """The wait-state check of op's VGPR operands and the bookkeeping of its writes, or None."""
        fmt = op.FORM.fmt
        mfma = is_mfma(op)
        valu = fmt in PLAIN_VALU_FORMATS
        if not self.has_mfma or not (mfma or valu or fmt in ("GLOBAL", "DS")):
            return None  # (no MFMA, no hazard to track: the other kernels run as fast as before)
        isa = self.isa
        vector = (VGPRType, AGPRType)
        reads = [(v, i) for i, v in enumerate(op.srcs) if isinstance(v.type, vector)]
        writes = [v.type for v in op.dsts if isinstance(v.type, vector)]
        me = -1
        if mfma:
            me = len(self.mfma_ops)
            self.mfma_ops.append((get_matrix_instr(self.arch, op.MNEMONIC), op.dsts[0].type))

        def check(act: np.ndarray) -> None:
            for v, i in reads:
                t = v.type
                cols = self._cols(t)
                self._check_mfma_writes(op, act, cols, lambda d, i=i: mfma_consumer(op, i, d),
                                        f"reads {t.PREFIX}{t.first}")
                if mfma:
                    since = self.ws[:, None] - self.valu_at[:, cols]
                    bad = act[:, None] & (since < isa.valu_then_mfma)
                    if bad.any():
                        raise self.error(op, f"reads a register of {t.register_name} "
                                             f"{int(since[bad].min())} wait states after a VALU wrote it; needs "
                                             f"{isa.valu_then_mfma} (missing s_nop)", bad.any(axis=1))
            for t in writes:
                cols = self._cols(t)
                if not mfma:
                    self._check_mfma_writes(op, act, cols, lambda d: "write", f"overwrites {t.PREFIX}{t.first}")
                self.mfma_by[:, cols] = np.where(act[:, None], me, self.mfma_by[:, cols])
                self.mfma_at[:, cols] = np.where(act[:, None], self.ws[:, None], self.mfma_at[:, cols])
                if valu:
                    self.valu_at[:, cols] = np.where(act[:, None], self.ws[:, None], self.valu_at[:, cols])
        return check

    def _wmma_hazard_check(self, op):
        """A WMMA reading as A or B a VGPR that the VALU instruction before it, a WMMA, wrote
        is an error: a VALU instruction must come between (LLVM's fixWMMAHazards: v_nop)."""
        if not self.has_wmma or op.FORM.fmt not in VALU_FORMATS:
            return None
        wmma = is_wmma(op)
        reads = [v.type for v in op.srcs[:2]] if wmma else []
        written = self._cols(op.dsts[0].type) if wmma else None

        def check(act: np.ndarray) -> None:
            for t in reads:
                bad = act[:, None] & self.wmma_d[:, self._cols(t)]
                if bad.any():
                    raise self.error(op, f"reads {t.register_name}, which the WMMA just before it wrote; a VALU "
                                         "instruction must come between (missing v_nop)", bad.any(axis=1))
            rows = np.nonzero(act)[0]
            self.wmma_d[rows] = False
            if written is not None:
                self.wmma_d[rows, written] = True
        return check

    def _sgpr_hazard_check(self, op):
        """gfx12: reading an SGPR whose pair a VALU read before an SALU (or VALU) wrote it, with
        no s_wait_alu (depctr_sa_sdst(0), depctr_va_sdst(0), depctr_va_vcc(0)) or scalar load
        since, is an error (the rules of LLVM's AMDGPUWaitSGPRHazards, which amdgcn-finalize
        follows)."""
        if not self.isa.sgpr_read_hazards:
            return None
        fmt, m = op.FORM.fmt, op.MNEMONIC
        if fmt == "SMEM":
            def commit(act):
                self.sg_sa[act] = False
                self.sg_va[act] = False
            return commit
        if m == "s_wait_alu":
            mods = op.mods

            def wait(act):
                if "sa_sdst" in mods:
                    self.sg_sa[act] = False
                if "va_sdst" in mods:
                    self.sg_va[act, :VCC_INDEX] = False
                if "va_vcc" in mods:
                    self.sg_va[act, VCC_INDEX] = False
            return wait
        valu = fmt in VALU_FORMATS
        if not (valu or fmt in SALU_FORMATS):
            return None
        uses, defs = sgpr_numbers(op.srcs), sgpr_numbers(op.dsts)

        def check(act: np.ndarray) -> None:
            for r in uses:
                pair = sgpr_pair(r)
                tracked = act & self.sg_tracked[:, pair]
                name = "vcc" if r == VCC_INDEX else f"s{r}"
                bad = tracked & self.sg_sa[:, r]
                if bad.any():
                    raise self.error(op, f"reads {name}, which an SALU instruction wrote after a VALU read it, "
                                         "with no s_wait_alu depctr_sa_sdst(0) between", bad)
                bad = tracked & self.sg_va[:, r] if valu else None
                if bad is not None and bad.any():
                    field = "va_vcc" if r == VCC_INDEX else "va_sdst"
                    raise self.error(op, f"reads {name}, which a VALU instruction wrote after a VALU read it, "
                                         f"with no s_wait_alu depctr_{field}(0) between", bad)
                if valu:
                    self.sg_tracked[act, pair] = True
                elif r == VCC_INDEX:  # an SALU read commits VALU writes (of VCC, or of SGPRs)
                    self.sg_va[tracked, VCC_INDEX] = False
                else:
                    self.sg_va[tracked, :VCC_INDEX] = False
            for r in defs:
                pair = sgpr_pair(r)
                hit = act & self.sg_tracked[:, pair]
                (self.sg_va if valu else self.sg_sa)[hit, r] = True
        return check

    def _cols(self, t) -> slice:
        first = t.first + (self.nv if isinstance(t, AGPRType) else 0)
        return slice(first, first + t.n)

    def _check_mfma_writes(self, op, act, cols, consumer, what: str) -> None:
        by = self.mfma_by[:, cols]
        live = act[:, None] & (by >= 0)
        if not live.any():
            return
        since = self.ws[:, None] - self.mfma_at[:, cols]
        for k in np.unique(by[live]):
            instr, dst = self.mfma_ops[int(k)]
            need = self.isa.mfma_wait_states(instr, consumer(dst))
            bad = live & (by == k) & (since < need)
            if bad.any():
                raise self.error(op, f"{what} {int(since[bad].min())} wait states after the {instr.mnemonic} "
                                     f"writing {dst.register_name}; needs {need} (missing s_nop)", bad.any(axis=1))

    def _semantics(self, op, m: str, f: Form, srcs, dsts):  # noqa: C901
        S, rs = self, self.rd_s
        d0 = dsts[0].type if dsts else None

        def salu(fn, scc_fn=None):
            def body(act, tgt):
                vals = [rs(v) for v in srcs if not (isinstance(v.type, SpecialRegType) and v.type.reg.data == "scc")]
                r = fn(*[x.astype(U64) for x in vals])
                S.wr_s(d0, [(r & U64(0xFFFFFFFF)).astype(U32)], act)
                if scc_fn is not None:
                    S.scc = np.where(act, scc_fn(r, *[x.astype(U64) for x in vals]), S.scc)
            return body

        def salu64(fn):
            def body(act, tgt):
                vals = [S.rd_scalar64(v) for v in srcs if not (isinstance(v.type, SpecialRegType) and v.type.reg.data == "scc")]
                r = fn(*vals).astype(U64)
                S.wr_s64(d0, r, act)
                S.scc = np.where(act, r != 0, S.scc)
            return body

        M32 = U64(0xFFFFFFFF)
        if m in ("s_mov_b32",):
            return salu(lambda a: a)
        if m == "s_not_b32":
            return salu(lambda a: ~a & M32, lambda r, a: r != 0)
        if m in ("s_mov_b64", "s_mov_b64_exec", "s_mov_b32_exec"):
            def body(act, tgt):
                S.wr_s64(d0, S.rd_scalar64(srcs[0]), act)
            return body
        ops2 = _SALU2
        if m in ops2:
            fn, sc = ops2[m]
            return salu(fn, sc)
        if m in ("s_and_b64", "s_or_b64", "s_xor_b64", "s_andn2_b64", "s_andn2_b64_exec", "s_andn2_b32_exec"):
            fn = {"s_and_b64": lambda a, b: a & b, "s_or_b64": lambda a, b: a | b, "s_xor_b64": lambda a, b: a ^ b}.get(
                m, lambda a, b: a & ~b)
            wave_mask = U64((1 << self.L) - 1) if self.L < 64 else U64(0xFFFFFFFFFFFFFFFF)
            return salu64(lambda a, b: fn(a, b) & wave_mask if m.endswith("_exec") else fn(a, b))
        if m in ("s_cselect_b32", "s_cselect_b64"):
            def body(act, tgt):
                a, b = S.rd_scalar64(srcs[0]), S.rd_scalar64(srcs[1])
                r = np.where(S.scc, a, b).astype(U64)
                if m == "s_cselect_b32":
                    r = r & M32
                S.wr_s64(d0, r, act)
            return body
        if m in ("s_and_saveexec_b64", "s_and_saveexec_b32"):
            def body(act, tgt):
                old = S.exec_bits.copy()
                s = S.rd_scalar64(srcs[0])
                S.wr_s64(d0, old, act)
                new = s & old
                S.set_exec(new, act)
                S.scc = np.where(act, new != 0, S.scc)
            return body
        if m == "s_movk_i32":
            def body(act, tgt):
                v = op.mods["imm"]
                S.wr_s(d0, [np.full(S.W, U32((v - (1 << 16) if v >= 1 << 15 else v) & 0xFFFFFFFF))], act)
            return body
        if m.startswith("s_cmp_"):
            cc, ty = m.split("_")[2], m.split("_")[3]
            def body(act, tgt):
                a, b = rs(srcs[0]), rs(srcs[1])
                if ty == "i32":
                    a, b = a.view(np.int32), b.view(np.int32)
                r = _CMP[cc](a, b)
                S.scc = np.where(act, r, S.scc)
            return body
        if m == "s_nop":
            return lambda act, tgt: None
        if m in BARRIERS:
            return self._barrier(op, signal=m != "s_barrier_wait", wait=m != "s_barrier_signal")
        if m == "s_wait_alu":
            return lambda act, tgt: None
        if m.startswith("s_wait_"):  # gfx12: one counter each
            n, which = op.mods.get("imm", 0), m[len("s_wait_"):]

            def body(act, tgt):
                S.stats.waits += int(act.sum())
                if which == "kmcnt":
                    if n == 0:  # scalar loads return out of order
                        S.smem.done = np.where(act, S.smem.issued, S.smem.done)
                else:
                    c = {"loadcnt": S.vm, "dscnt": S.lds, "storecnt": S.vs}[which]
                    c.done = np.where(act, np.maximum(c.done, c.issued - n), c.done)
                S.refresh_pending()
            return body
        if m in ("s_waitcnt", "s_waitcnt_vscnt"):
            mods = op.mods

            def body(act, tgt):
                S.stats.waits += int(act.sum())
                if "vmcnt" in mods:
                    S.vm.done = np.where(act, np.maximum(S.vm.done, S.vm.issued - mods["vmcnt"]), S.vm.done)
                if "lgkmcnt" in mods:
                    S.lds.done = np.where(act, np.maximum(S.lds.done, S.lds.issued - mods["lgkmcnt"]), S.lds.done)
                    if mods["lgkmcnt"] == 0:
                        S.smem.done = np.where(act, S.smem.issued, S.smem.done)
                if "vscnt" in mods:
                    S.vs.done = np.where(act, np.maximum(S.vs.done, S.vs.issued - mods["vscnt"]), S.vs.done)
                S.refresh_pending()
            return body
        if m == "s_branch":
            return lambda act, tgt: np.full(S.W, tgt)
        if m in ("s_cbranch_scc0", "s_cbranch_scc1"):
            want = m.endswith("1")
            return lambda act, tgt: np.where(S.scc == want, tgt, S.pc + 1)
        if m in ("s_cbranch_execz", "s_cbranch_execnz"):
            z = m.endswith("z")
            return lambda act, tgt: np.where((S.exec_bits == 0) == z, tgt, S.pc + 1)
        if m == "s_endpgm":
            def body(act, tgt):
                S.done |= act
                return np.where(act, -1, S.pc)
            return body
        if f.fmt == "SMEM":
            n = dsts[0].type.n
            off = op.mods.get("offset", 0)

            def body(act, tgt):
                base = S.rd_scalar64(srcs[0]) + U64(off)
                m2 = np.broadcast_to(act[:, None], (S.W, 1))
                buf, word, _ = S.resolve(op, base[:, None], m2, 4 * n)
                vals = S.gload(buf, word, n)
                for i in range(n):
                    col = S.S[d0.first + i].copy()
                    col[act] = vals[i]
                    S.S[d0.first + i] = col
                S.smem.issued += act
                S.mark(d0, 3, S.smem.issued, act)
            return body
        if f.fmt == "GLOBAL":
            return self._global(op, m, srcs, dsts)
        if f.fmt == "DS":
            return self._ds(op, m, srcs, dsts)
        if is_matrix(op):
            return self._matrix(op, srcs, dsts)
        if m == "v_nop":
            return lambda act, tgt: None
        return self._valu(op, m, srcs, dsts)

    def _matrix(self, op, srcs, dsts):
        """D = A * B + C per wave (v_mfma_*, v_wmma_*), from the instruction's lane layouts;
        16-bit inputs are unpacked two per register, element 2i from the low half (bf16: the
        upper half of an f32)."""
        from gemmc.interp.matrix import multiply

        S = self
        instr = _matrix_instr(self.arch, op)
        d = dsts[0].type

        def regs(v, n, dtype):
            x = np.stack([np.broadcast_to(S.rd_v(v, i), (S.W, S.L)) for i in range(n)], axis=-1)
            if dtype == "bf16":
                return (x.view(np.uint16).astype(U32) << U32(16)).view(np.float32)
            if np.dtype(dtype).itemsize == 1:  # FP8: byte b of register i is element 4i + b
                return np.ascontiguousarray(x).view(np.uint8).view(dtype).astype(np.float32)
            return x.view(dtype)

        def operand_type(name: str):
            if name in _FP8_FORMATS:
                from gemmc.support.arith_semantics import fp8_dtypes

                return fp8_dtypes()[name]
            t = {"f32": np.float32, "f16": np.float16, "bf16": "bf16"}.get(name)
            if t is None or instr.formats:  # (gfx950's f8f6f4 MFMAs: cbsz / blgp are not selected)
                raise self.error(op, f"{name} operands of {instr.mnemonic} are not interpreted by gemmc's AMDGCN "
                                     "backend")
            return t

        ab, bb = operand_type(instr.in_type), operand_type(instr.b_in_type)

        def body(act, tgt):
            full = S.lanes.all(axis=1)
            if np.any(act & ~full):
                raise S.error(op, "a matrix instruction with some lanes of its wave masked off (EXEC is not all ones)",
                              act & ~full)
            a, b = regs(srcs[0], instr.a_regs, ab), regs(srcs[1], instr.b_regs, bb)
            c = regs(srcs[2], instr.c_regs, np.float32)
            out = c.copy()
            out[act] = multiply(instr, a[act], b[act], c[act])
            S.wr_v(d, [out[..., i].view(U32) for i in range(instr.c_regs)], act)
        return body

    def _barrier(self, op, signal: bool = True, wait: bool = True):
        """s_barrier (gfx12: s_barrier_signal, which publishes this wave's LDS writes, then
        s_barrier_wait, where the workgroup's waves meet)."""
        S = self
        missing = "s_wait_dscnt 0x0" if S.isa.split_counters else "s_waitcnt lgkmcnt(0)"

        def body(act, tgt):
            if signal and np.any(act & (S.lds.issued > S.lds.done)):
                raise S.error(op, f"{op.MNEMONIC} with LDS accesses outstanding (missing {missing})",
                              act & (S.lds.issued > S.lds.done))
            if not wait:
                return
            wgs = np.unique(S.wg_of[act])
            for wgi in wgs:
                members = (S.wg_of == wgi) & ~S.done
                if np.any(members & ~act):
                    raise S.error(op, f"{op.MNEMONIC} reached by only some waves of a workgroup", members & ~act)
            S.epoch[wgs] += 1
        return body

    def _global(self, op, m: str, srcs, dsts):
        S = self
        saddr = m.endswith("_saddr")
        off = op.mods.get("offset", 0)
        load = m.startswith("global_load")
        n = dsts[0].type.n if load else srcs[1].type.n
        nbytes = _access_bytes(op)

        def addr():
            if saddr:
                base = S.rd_scalar64(srcs[-1])[:, None]
                return base + S.rd_v(srcs[0]).astype(U64) + U64(off & 0xFFFFFFFFFFFFFFFF)
            return S.rd_v64(srcs[0]) + U64(off & 0xFFFFFFFFFFFFFFFF)

        def body(act, tgt):
            mm = S.lanes_act(act)
            a = addr() & U64(0xFFFFFFFFFFFFFFFF)
            buf, word, byte = S.resolve(op, np.broadcast_to(a, mm.shape), mm, nbytes)
            if load:
                vals = S.gload(buf, word, n) if nbytes >= 4 else [S.gload16(buf, byte) if nbytes == 2
                                                                  else S.gload8(buf, byte)]
                d = dsts[0].type
                for i in range(n):
                    reg = S.V[d.first + i].copy()
                    reg[mm] = vals[i]
                    S.V[d.first + i] = reg
                S.vm.issued += act
                S.saturate()
                S.mark(d, 1, S.vm.issued, act)
            else:
                data = srcs[1]
                vals = [np.broadcast_to(S.rd_v(data, i), mm.shape)[mm] for i in range(n)]
                if nbytes >= 4:
                    S.gstore(buf, word, vals)
                elif nbytes == 2:
                    S.gstore16(buf, byte, vals[0])
                else:
                    S.gstore8(buf, byte, vals[0])
                (S.vs if S.isa.stores_in_vscnt else S.vm).issued += act
        return body

    def _ds(self, op, m: str, srcs, dsts):
        S = self
        off = op.mods.get("offset", 0)
        load = m.startswith("ds_read")
        n = dsts[0].type.n if load else srcs[1].type.n
        if m == "ds_read2_b32":
            return self._ds_read2(op, srcs, dsts)
        if _access_bytes(op) in (1, 2):
            return self._ds_narrow(op, load, off, srcs, dsts, _access_bytes(op))

        def body(act, tgt):
            mm = S.lanes_act(act)
            a = S.rd_v(srcs[0]).astype(np.int64) + off
            wave, wg, word = S.lds_index(op, np.broadcast_to(a, mm.shape), mm, 4 * n)
            if load:
                for i in range(n):
                    S.race_read(op, wave, wg, word + i)
                d = dsts[0].type
                for i in range(n):
                    reg = S.V[d.first + i].copy()
                    reg[mm] = S.LDS[wg, word + i]
                    S.V[d.first + i] = reg
                S.lds.issued += act
                S.saturate()
                S.mark(d, 2, S.lds.issued, act)
            else:
                for i in range(n):
                    S.race_write(op, wave, wg, word + i)
                for i in range(n):
                    S.LDS[wg, word + i] = np.broadcast_to(S.rd_v(srcs[1], i), mm.shape)[mm]
                S.lds.issued += act
                S.saturate()
        return body

    def _ds_narrow(self, op, load: bool, off: int, srcs, dsts, nbytes: int):
        """ds_read_u16 / ds_read_u8 (zero-extended) and ds_write_b16 / ds_write_b8 (the low half or
        byte; _d16_hi: bits 16 and up): LDS as halves or bytes, races tracked by byte."""
        S = self
        high = op.MNEMONIC.endswith("_d16_hi")
        dtype, mask = (np.uint16, U32(0xFFFF)) if nbytes == 2 else (np.uint8, U32(0xFF))

        def body(act, tgt):
            mm = S.lanes_act(act)
            a = S.rd_v(srcs[0]).astype(np.int64) + off
            wave, wg, byte = S.lds_byte(op, np.broadcast_to(a, mm.shape), mm, nbytes)
            mem = S.LDS.view(dtype)
            if load:
                S.race_read_bytes(op, wave, wg, byte, nbytes)
                d = dsts[0].type
                reg = S.V[d.first].copy()
                reg[mm] = mem[wg, byte // nbytes]
                S.V[d.first] = reg
                S.lds.issued += act
                S.saturate()
                S.mark(d, 2, S.lds.issued, act)
            else:
                S.race_write_bytes(op, wave, wg, byte, nbytes)
                data = np.broadcast_to(S.rd_v(srcs[1]), mm.shape)[mm]
                mem[wg, byte // nbytes] = ((data >> U32(16) if high else data) & mask).astype(dtype)
                S.lds.issued += act
                S.saturate()
        return body

    def _ds_read2(self, op, srcs, dsts):
        S = self
        offs = (4 * op.mods.get("offset0", 0), 4 * op.mods.get("offset1", 0))
        d = dsts[0].type

        def body(act, tgt):
            mm = S.lanes_act(act)
            for i, off in enumerate(offs):
                a = S.rd_v(srcs[0]).astype(np.int64) + off
                wave, wg, word = S.lds_index(op, np.broadcast_to(a, mm.shape), mm, 4)
                S.race_read(op, wave, wg, word)
                reg = S.V[d.first + i].copy()
                reg[mm] = S.LDS[wg, word]
                S.V[d.first + i] = reg
            S.lds.issued += act
            S.saturate()
            S.mark(d, 2, S.lds.issued, act)
        return body

    def _valu(self, op, m: str, srcs, dsts):  # noqa: C901
        S = self
        d0 = dsts[0].type if dsts else None
        f32, u, M32 = _f32, _u, _M32
        ALU, FLOAT = _ALU, _FLOAT
        n_in = len(srcs)
        if m in ALU:
            fn = ALU[m]

            def body(act, tgt):
                r = fn(*[S.rd_v(s) for s in srcs])
                S.wr_v(d0, [np.broadcast_to(np.asarray(r).astype(U32), (S.W, S.L))], act)
            return body
        if m in FLOAT:
            fn = FLOAT[m]

            def body(act, tgt):
                r = fn(*[S.rd_v(s) for s in srcs[:n_in]])
                S.wr_v(d0, [np.broadcast_to(np.asarray(r, dtype=np.float32).view(U32), (S.W, S.L))], act)
            return body
        if m.startswith("v_cmp_"):
            _, _, cc, ty = m.split("_")
            cc = {"neq": "lg", "ne": "lg"}.get(cc, cc)

            def body(act, tgt):
                a, b = S.rd_v(srcs[0]), S.rd_v(srcs[1])
                if ty == "i32":
                    a, b = np.asarray(a, U32).view(np.int32), np.asarray(b, U32).view(np.int32)
                elif ty == "f32":
                    a, b = f32(a), f32(b)
                r = np.broadcast_to(_CMP[cc](a, b), (S.W, S.L))
                S.wr_s64(d0, S.mask_of_lanes(r, act), act)
            return body
        if m == "v_cndmask_b32":
            def body(act, tgt):
                sel = S.lanes_of_mask(S.rd_scalar64(srcs[2]))
                r = np.where(sel, S.rd_v(srcs[1]), S.rd_v(srcs[0]))
                S.wr_v(d0, [r], act)
            return body
        if m == "v_mad_u64_u32":
            def body(act, tgt):
                a, b = u(S.rd_v(srcs[0])), u(S.rd_v(srcs[1]))
                c = S.rd_v64(srcs[2])
                r = (a * b + c) & U64(0xFFFFFFFFFFFFFFFF)
                r = np.broadcast_to(r, (S.W, S.L))
                S.wr_v(d0, [(r & M32).astype(U32), (r >> U64(32)).astype(U32)], act)
            return body
        if m == "v_readfirstlane_b32":
            def body(act, tgt):
                src = S.rd_v(srcs[0])
                first = np.argmax(S.lanes, axis=1)
                val = np.broadcast_to(src, (S.W, S.L))[np.arange(S.W), first]
                S.wr_s(d0, [val], act)
            return body
        raise GcnInterpError(f"amdgcn interpreter: no semantics for {m}")

    # -- running ---------------------------------------------------------------------------------

    def run(self, counts=None) -> None:
        """Run to the end; `counts` (a gemmc.interp.Stats) accumulates what was executed."""
        n = len(self.prog)
        steps = 0
        while True:
            alive = ~self.done
            if not alive.any():
                return
            p = int(self.pc[alive].min())
            if p >= n:
                raise GcnInterpError("amdgcn interpreter: a wave ran past the end of the program (no s_endpgm)")
            act = alive & (self.pc == p)
            op, fn = self.prog[p]
            if counts is not None:
                self.count(op, act, counts)
            nxt = fn(act)
            if nxt is None:
                self.pc = np.where(act, p + 1, self.pc)
            else:
                self.pc = np.where(act, nxt, self.pc)
            k = int(act.sum())
            self.stats.instructions += k
            self.stats.steps += 1
            steps += 1
            if steps > MAX_STEPS:
                raise GcnInterpError(f"amdgcn interpreter: more than {MAX_STEPS} steps; an endless loop?")


def _matrix_instr(arch: Arch, op: GcnInstruction):
    return get_matrix_instr(arch, op.FORM.asm or op.MNEMONIC)


def _f32(x):
    return np.asarray(x, dtype=U32).view(np.float32)


_BYTES16 = ("global_load_ushort", "global_store_short", "ds_read_u16", "ds_write_b16", "ds_write_b16_d16_hi")
_BYTES8 = ("global_load_ubyte", "global_store_byte", "ds_read_u8", "ds_write_b8", "ds_write_b8_d16_hi")
_FP8_FORMATS = ("f8e4m3fnuz", "f8e5m2fnuz", "f8e4m3fn", "f8e5m2")


def _access_bytes(op: GcnInstruction) -> int:
    """Bytes a GLOBAL or DS instruction moves per lane."""
    m = op.MNEMONIC
    if m.removesuffix("_saddr") in _BYTES16:
        return 2
    if m.removesuffix("_saddr") in _BYTES8:
        return 1
    if m == "ds_read2_b32":
        return 8
    return 4 * (op.dsts[0].type if op.dsts else op.srcs[1].type).n  # type: ignore[attr-defined]


def _perm(s0, s1, sel):
    """v_perm_b32: byte b of D is byte sel_b of {S0, S1} (0-3: S1's, 4-7: S0's); 8-11: the sign
    of S1's (S0's) low or high half repeated, 12: 0x00, 13 and up: 0xFF (the CDNA3 ISA's table)."""
    s0, s1, sel = np.broadcast_arrays(s0, s1, sel)
    both = (s0 << U64(32)) | s1
    out = np.zeros(s0.shape, dtype=U64)
    for b in range(4):
        k = (sel >> U64(8 * b)) & U64(0xFF)
        byte = (both >> (U64(8) * np.minimum(k, U64(7)))) & U64(0xFF)
        signs = {8: (s1 >> U64(15)) & U64(1), 9: (s1 >> U64(31)) & U64(1),
                 10: (s0 >> U64(15)) & U64(1), 11: (s0 >> U64(31)) & U64(1)}
        for code, bit in signs.items():
            byte = np.where(k == U64(code), bit * U64(0xFF), byte)
        byte = np.where(k == U64(12), U64(0), np.where(k >= U64(13), U64(0xFF), byte))
        out |= byte << U64(8 * b)
    return out


def _u(x):
    return np.asarray(x).astype(U64)


_M32 = U64(0xFFFFFFFF)
_U24 = U64(0xFFFFFF)
_S31 = U64(31)
_ALU = {
    "v_mov_b32": lambda a: a,
    "v_accvgpr_write_b32": lambda a: a,
    "v_accvgpr_read_b32": lambda a: a,
    "v_accvgpr_mov_b32": lambda a: a,
    "v_add_u32": lambda a, b: (_u(a) + _u(b)) & _M32,
    "v_sub_u32": lambda a, b: (_u(a) - _u(b)) & _M32,
    "v_mul_u32_u24": lambda a, b: ((_u(a) & _U24) * (_u(b) & _U24)) & _M32,
    "v_lshlrev_b32": lambda a, b: (_u(b) << (_u(a) & _S31)) & _M32,
    "v_lshrrev_b32": lambda a, b: _u(b) >> (_u(a) & _S31),
    "v_and_b32": lambda a, b: _u(a) & _u(b),
    "v_or_b32": lambda a, b: _u(a) | _u(b),
    "v_xor_b32": lambda a, b: _u(a) ^ _u(b),
    "v_max_u32": lambda a, b: np.maximum(_u(a), _u(b)),
    "v_min_u32": lambda a, b: np.minimum(_u(a), _u(b)),
    "v_mul_lo_u32": lambda a, b: (_u(a) * _u(b)) & _M32,
    "v_mul_hi_u32": lambda a, b: (_u(a) * _u(b)) >> U64(32),
    "v_mad_u32_u24": lambda a, b, c: ((_u(a) & _U24) * (_u(b) & _U24) + _u(c)) & _M32,
    "v_lshl_add_u32": lambda a, b, c: ((_u(a) << (_u(b) & _S31)) + _u(c)) & _M32,
    "v_add_lshl_u32": lambda a, b, c: ((_u(a) + _u(b)) << (_u(c) & _S31)) & _M32,
    "v_lshl_or_b32": lambda a, b, c: ((_u(a) << (_u(b) & _S31)) | _u(c)) & _M32,
    "v_add3_u32": lambda a, b, c: (_u(a) + _u(b) + _u(c)) & _M32,
    "v_perm_b32": lambda a, b, c: _perm(_u(a), _u(b), _u(c)),
    "v_bfe_u32": lambda a, b, c: (_u(a) >> (_u(b) & _S31)) & ((U64(1) << (_u(c) & _S31)) - U64(1)),
    "v_cvt_f32_u32": lambda a: np.asarray(a).astype(np.float32).view(U32),
    # f16 in the low half, rounded to nearest even (numpy's cast); the high half zero
    "v_cvt_f16_f32": lambda a: _f32(a).astype(np.float16).view(np.uint16).astype(U64),
    "v_pack_b32_f16": lambda a, b: ((_u(b) & U64(0xFFFF)) << U64(16)) | (_u(a) & U64(0xFFFF)),
    # the low half's f16, exactly
    "v_cvt_f32_f16": lambda a: (_u(a) & U64(0xFFFF)).astype(np.uint16).view(np.float16).astype(np.float32).view(U32),
}
_FLOAT = {
    "v_add_f32": lambda a, b: _f32(a) + _f32(b),
    "v_sub_f32": lambda a, b: _f32(a) - _f32(b),
    "v_mul_f32": lambda a, b: _f32(a) * _f32(b),
    "v_max_f32": lambda a, b: np.maximum(_f32(a), _f32(b)),
    "v_min_f32": lambda a, b: np.minimum(_f32(a), _f32(b)),
    # fused: the f32 product is exact in float64, the sum rounded once more to f32
    "v_fma_f32": lambda a, b, c: (_f32(a).astype(np.float64) * _f32(b) + _f32(c)).astype(np.float32),
    "v_fmac_f32": lambda a, b, c: (_f32(a).astype(np.float64) * _f32(b) + _f32(c)).astype(np.float32),
}

_SALU2 = {
    "s_add_u32": (lambda a, b: a + b, lambda r, a, b: r > _M32),
    "s_sub_u32": (lambda a, b: (a - b) & _M32, lambda r, a, b: b > a),
    "s_add_i32": (lambda a, b: a + b, None),
    "s_mul_i32": (lambda a, b: a * b, None),
    "s_mul_hi_u32": (lambda a, b: (a * b) >> U64(32), None),
    "s_lshl_b32": (lambda a, b: a << (b & U64(31)), lambda r, a, b: (r & _M32) != 0),
    "s_lshr_b32": (lambda a, b: a >> (b & U64(31)), lambda r, a, b: r != 0),
    "s_and_b32": (lambda a, b: a & b, lambda r, a, b: r != 0),
    "s_or_b32": (lambda a, b: a | b, lambda r, a, b: r != 0),
    "s_xor_b32": (lambda a, b: a ^ b, lambda r, a, b: r != 0),
    "s_andn2_b32": (lambda a, b: a & ~b & _M32, lambda r, a, b: r != 0),
    "s_min_u32": (lambda a, b: np.minimum(a, b), lambda r, a, b: a < b),
    "s_max_u32": (lambda a, b: np.maximum(a, b), lambda r, a, b: a > b),
}


_CMP = {
    "eq": lambda a, b: a == b, "lg": lambda a, b: a != b, "lt": lambda a, b: a < b,
    "le": lambda a, b: a <= b, "gt": lambda a, b: a > b, "ge": lambda a, b: a >= b,
    "u": lambda a, b: np.isnan(a) | np.isnan(b),
}


# -- launching from the host function -------------------------------------------------------------


def kernarg_segment(kernel: KernelOp, operands: list, buffer_index: dict[int, int]) -> np.ndarray:
    """The kernarg segment (as 32-bit words) for the launch operands."""
    size = kernel.int_attr("kernarg_size")
    seg = np.zeros(max(1, -(-size // 4)), U32)
    for a in kernel_args(kernel):
        o = a["offset"] // 4
        if a["kind"] == "global_buffer":
            base = (buffer_index[a["arg"]] + 1) << BUFFER_SHIFT
            seg[o], seg[o + 1] = base & 0xFFFFFFFF, base >> 32
        elif "dim" in a:
            seg[o] = U32(operands[a["dim_arg"]].shape[a["dim_axis"]])
        else:
            seg[o] = np.asarray(operands[a["arg"]], dtype=np.float32).reshape(()).view(U32)
    return seg


def device_words(x: np.ndarray, elem: str) -> tuple[np.ndarray, int]:
    """(the 32-bit words, the bytes) of host array x as the device holds elements of type
    `elem`: f32, f16, bf16 (held as float32 on the host, its upper 16 bits on the device), or an
    FP8 format (held as float32 on the host, one byte each on the device, as ml_dtypes encodes it)."""
    if elem == "f32":
        raw = np.ascontiguousarray(x, np.float32).reshape(-1).view(U32)
        return raw.copy(), 4 * raw.size
    if elem in _FP8_FORMATS:
        from gemmc.support.arith_semantics import fp8_dtypes

        byte = np.ascontiguousarray(x).reshape(-1).astype(fp8_dtypes()[elem]).view(np.uint8)
        padded8 = np.zeros(-(-byte.size // 4) * 4, np.uint8)
        padded8[:byte.size] = byte
        return padded8.view(U32), byte.size
    if elem == "f16":
        half = np.ascontiguousarray(x, np.float16).reshape(-1).view(np.uint16)
    elif elem == "bf16":
        half = (np.ascontiguousarray(x, np.float32).reshape(-1).view(U32) >> U32(16)).astype(np.uint16)
    else:
        raise GcnInterpError(f"amdgcn interpreter: buffers of {elem} are not supported")
    padded = np.zeros(-(-half.size // 2) * 2, np.uint16)
    padded[:half.size] = half
    return padded.view(U32), 2 * half.size


def host_values(words: np.ndarray, elem: str, like: np.ndarray) -> np.ndarray:
    """The device words back as host values of `like`'s shape and dtype (device_words' inverse)."""
    if elem == "f32":
        return words.view(np.float32)[:like.size].reshape(like.shape)
    if elem in _FP8_FORMATS:
        from gemmc.support.arith_semantics import fp8_dtypes

        return words.view(np.uint8)[:like.size].view(fp8_dtypes()[elem]).astype(like.dtype).reshape(like.shape)
    half = words.view(np.uint16)[:like.size]
    if elem == "f16":
        return half.view(np.float16).reshape(like.shape)
    return (half.astype(U32) << U32(16)).view(np.float32).reshape(like.shape)


def run_kernel(kernel: KernelOp, arch: Arch, grid, block, operands: list, counts=None,
               elems: list[str] | None = None) -> Stats:
    """Run `kernel` on the launch operands; `elems`: each operand's element type (f32, f16,
    bf16; all f32 if not given), which says how the device holds a buffer."""
    buffers, index, types = [], {}, []
    for i, x in enumerate(operands):
        if isinstance(x, np.ndarray) and x.ndim > 0:
            index[i] = len(buffers)
            buffers.append(x)
            types.append(elems[i] if elems else "f32")
    images = [device_words(b, t) for b, t in zip(buffers, types)]
    work = [w for w, _ in images]
    seg = kernarg_segment(kernel, operands, index)
    m = Machine(kernel, arch, grid, block, work, seg, [n for _, n in images])
    if counts is not None:
        counts.kernel_launches += 1
        counts.workgroups += m.nwg
        counts.threads += m.nwg * block[0] * block[1] * block[2]
    with np.errstate(all="ignore"):
        m.run(counts)
    for orig, t, flat in zip(buffers, types, m.buffers):
        orig[...] = host_values(flat, t, orig)
    return m.stats


@register_impls
@dataclass
class _GcnHost(InterpreterFunctions):
    arch: Arch | None = None
    stats: list = field(default_factory=list)
    counts: object = None  # a gemmc.interp.Stats

    @impl(gpu.LaunchFuncOp)
    def run_launch(self, interp: Interpreter, op: gpu.LaunchFuncOp, args: PythonValues):
        values, grid, block = launch_geometry(op, args)
        kernel = interp.get_op_for_symbol(op.kernel)
        if not isinstance(kernel, KernelOp):
            raise GcnInterpError(f"amdgcn interpreter: {op.kernel} is not an amdgcn.kernel; run lower-to-amdgcn")
        kb = tuple(a.value.data for a in kernel.attributes["block"].data)  # type: ignore[attr-defined]
        if block != kb:
            raise GcnInterpError(f"amdgcn interpreter: launched with block {block}, the kernel is built for {kb}")
        self.stats.append(run_kernel(kernel, self.arch, grid, block, [values[v] for v in op.kernelOperands],
                                     self.counts, [_elem_name(v.type) for v in op.kernelOperands]))
        return ()

    @impl(memref.DimOp)
    def run_dim(self, interp: Interpreter, op: memref.DimOp, args: PythonValues):
        array, axis = args
        return (np.int64(array.shape[int(axis)]),)


def _elem_name(t) -> str:
    """f32, f16, bf16 or the FP8 format's name for a memref of those (scalars: f32), else the
    type's text."""
    from xdsl.dialects.builtin import BFloat16Type, Float16Type, Float32Type, MemRefType

    from gemmc.interp.common import fp8_format

    e = t.element_type if isinstance(t, MemRefType) else t
    fmt = fp8_format(e)
    if fmt in _FP8_FORMATS:
        return fmt
    return {Float32Type: "f32", Float16Type: "f16", BFloat16Type: "bf16"}.get(type(e), str(e))


def execute(module: ModuleOp, args: list, arch: Arch | str, counts=None) -> list[Stats]:
    """Run the host function with the amdgcn kernels; memref arguments are updated in place;
    `counts` (a gemmc.interp.Stats) accumulates the executed instructions, bytes and barriers."""
    from gemmc.interp.check import _bind, host_function
    from gemmc.interp.ops import ArithFunctions

    arch = get_arch(arch) if isinstance(arch, str) else arch
    fn = host_function(module)
    values, copies = _bind(fn, args)
    interp = Interpreter(module)
    interp.register_implementations(FuncFunctions())
    interp.register_implementations(ArithFunctions())
    host = _GcnHost(arch, counts=counts)
    interp.register_implementations(host)
    try:
        with np.errstate(all="ignore"):
            interp.call_op(fn, tuple(values))
    except GemmcError as e:
        e.__notes__ = []
        raise
    finally:
        for original, work in copies:
            original[...] = work
    return host.stats


def check(module: ModuleOp, arch: Arch | str, dims: dict[str, int] | None = None, seed: int = 0):
    """Run a finalized amdgcn module on random and exact inputs and compare C with the
    declared program (gemmc.interp.check.compare_runs, as gemmc.check)."""
    from gemmc.interp.check import compare_runs, host_function, matmul_spec

    arch = get_arch(arch) if isinstance(arch, str) else arch
    fn = host_function(module)
    return compare_runs(module, fn, matmul_spec(module, fn), dims or {}, arch, seed,
                        lambda args, counts: execute(module, args, arch, counts))
