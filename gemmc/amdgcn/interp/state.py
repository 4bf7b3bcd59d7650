"""The amdgcn interpreter's register state: every wave of the grid at once, as numpy arrays
over waves and lanes (VGPRs and AGPRs 32 bits per lane, SGPRs, EXEC, VCC, SCC, the program
counter), with the reads and writes of instruction operands.

Global memory and LDS are in memory.py; what the checks track (pending loads, hazards, LDS
races) lives with each check.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import StringAttr
from xdsl.ir import Operation, SSAValue

from gemmc.target.arch import Arch, get_gcn_isa
from gemmc.support.diagnostics import GemmcError
from gemmc.dialects.amdgcn.instructions import GcnInstruction
from gemmc.dialects.amdgcn.kernel import KernelOp, kernel_inputs
from gemmc.dialects.amdgcn.pseudo import constant_of
from gemmc.dialects.amdgcn.registers import AGPRType, SGPRType, SpecialRegType, VGPRType

KERNARG_BASE = 0x7F << 40
BUFFER_SHIFT = 40
U32 = np.uint32
U64 = np.uint64
M32 = U64(0xFFFFFFFF)
TTMP_FIRST = 108  # ttmp0 among the SGPR numbers (the hardware's encoding)
VCC_HI = 107  # VCC_HI's number there (106 is VCC_LO); the interpreter keeps VCC itself apart


class GcnInterpError(GemmcError):
    """The program did something a GPU would not do right (or at all)."""


class WaveState:
    """The registers of every wave; waves are numbered workgroup by workgroup (`wg_of`: each
    wave's workgroup, `wpg` waves a workgroup).  `workgroups`: the linear ids (x fastest) of the
    grid's workgroups to run, None for all (a timing sample runs a few of a large launch)."""

    def __init__(self, kernel: KernelOp, arch: Arch, grid, block, workgroups=None):
        self.kernel, self.arch = kernel, arch
        self.isa = get_gcn_isa(arch)
        self.L = arch.wave_size
        bx, by, bz = block
        gx, gy, gz = grid
        if bz != 1:
            raise GcnInterpError("amdgcn interpreter: 3-d blocks are not supported")
        threads = bx * by
        self.wpg = -(-threads // self.L)
        self.nwg = gx * gy * gz if workgroups is None else len(workgroups)
        W = self.W = self.nwg * self.wpg
        L = self.L
        self.wg_of = np.repeat(np.arange(self.nwg), self.wpg)
        gid = self.wg_of if workgroups is None else np.asarray(workgroups, np.int64)[self.wg_of]
        wg_x = gid % gx
        wg_y = gid // gx % gy
        self.wg_z = gid // (gx * gy)  # (split-k's slices; gemmc's own kernels launch gz = 1)
        t = (np.arange(self.wpg)[:, None] * L + np.arange(L)[None, :])  # thread index in the workgroup
        t = np.tile(t, (self.nwg, 1))
        valid = t < threads
        tx, ty = t % bx, t // bx
        self.nv = kernel.int_attr("vgprs", 1)
        self.na = kernel.int_attr("agprs")  # (AGPR i is column nv + i of the hazard tables)
        ns = max(kernel.int_attr("sgprs", 4), 4)
        self.V = np.zeros((self.nv, W, L), U32)
        self.A = np.zeros((max(self.na, 1), W, L), U32)  # accumulation registers (gfx90a+)
        self.S = np.zeros((ns + 2, W), U32)
        self._launch_inputs(kernel_inputs(kernel), valid, tx, ty, wg_x, wg_y)
        self.lane_bit = (U64(1) << np.arange(L, dtype=U64))
        self.exec_bits = np.bitwise_or.reduce(np.where(valid, self.lane_bit[None, :], U64(0)), axis=1).astype(U64)
        self.lanes = valid.copy()
        self.vcc = np.zeros(W, U64)
        self.scc = np.zeros(W, bool)
        self.pc = np.zeros(W, np.int64)
        self.done = np.zeros(W, bool)
        # the program: (instruction, its compiled body); the machine fills it in
        self.prog: list[tuple[Operation, object]] = []

    def _launch_inputs(self, at: dict[str, int], valid, tx, ty, wg_x, wg_y) -> None:
        """The registers the hardware fills at wave launch (kernel_inputs says which)."""
        if at.get("tid_packed", 1):
            self.V[0] = np.where(valid, tx | (ty << 10), 0).astype(U32)
        else:
            self.V[0] = np.where(valid, tx, 0).astype(U32)
            if at.get("workitem_id", 0) >= 1:
                self.V[1] = np.where(valid, ty, 0).astype(U32)
        if "kernarg_ptr" in at:
            k = at["kernarg_ptr"]
            self.S[k], self.S[k + 1] = U32(KERNARG_BASE & 0xFFFFFFFF), U32(KERNARG_BASE >> 32)
        for name, ids in (("wgid_x", wg_x), ("wgid_y", wg_y)):
            if name in at:
                self.S[at[name]] = ids.astype(U32)
        if "wgid_z" in at:
            self.S[at["wgid_z"]] = self.wg_z.astype(U32)
        if at.get("ttmp_wgid"):  # gfx12's architected ids: TTMP9 = x, TTMP7 = y | z << 16
            self.S[TTMP_FIRST + 9] = wg_x.astype(U32)
            self.S[TTMP_FIRST + 7] = (wg_y | (self.wg_z << 16)).astype(U32)
            # and TTMP8 bits 25-29 the wave's number in its workgroup (LLVM's llvm.amdgcn.wave.id on
            # architected SGPRs: s_bfe_u32 ttmp8, 0x50019, SIISelLowering's lowerWaveID)
            self.S[TTMP_FIRST + 8] = ((np.arange(self.W) % self.wpg) << 25).astype(U32)

    def error(self, op: Operation, msg: str, waves=None) -> GcnInterpError:
        """An error at op, naming the first of `waves` (a bool per wave) if given."""
        idx = next((i for i, (o, _) in enumerate(self.prog) if o is op), -1)
        where = f"instruction {idx} '{op.MNEMONIC}'" if isinstance(op, GcnInstruction) else op.name
        loc = op.attributes.get("loc")  # the assembly line (gemmc.amdgcn.asm_front)
        if isinstance(loc, StringAttr):
            where = f"{loc.data}: '{op.MNEMONIC}'"  # type: ignore[attr-defined]
        if waves is not None:
            ws = np.nonzero(waves)[0]
            if len(ws):
                w = int(ws[0])
                where += f" (workgroup {int(self.wg_of[w])}, wave {w % self.wpg})"
        return GcnInterpError(f"amdgcn interpreter: {where}: {msg}")

    # -- EXEC ----------------------------------------------------------------------------------

    def lanes_act(self, act: np.ndarray) -> np.ndarray:
        return act[:, None] & self.lanes

    def set_exec(self, bits: np.ndarray, act: np.ndarray) -> None:
        self.exec_bits = np.where(act, bits.astype(U64), self.exec_bits).astype(U64)
        self.lanes = (self.exec_bits[:, None] & self.lane_bit[None, :]) != 0

    def mask_of_lanes(self, cond: np.ndarray, act: np.ndarray) -> np.ndarray:
        bits = np.where(cond & self.lanes_act(act), self.lane_bit[None, :], U64(0))
        return np.bitwise_or.reduce(bits, axis=1).astype(U64)

    def lanes_of_mask(self, bits: np.ndarray) -> np.ndarray:
        return (bits[:, None] & self.lane_bit[None, :]) != 0

    # -- operand reads ---------------------------------------------------------------------------

    def rd_scalar64(self, v: SSAValue) -> np.ndarray:
        """A 64-bit scalar operand (SGPR pair, exec, vcc or constant) per wave."""
        t = v.type
        if isinstance(t, SGPRType):
            lo = self.S[t.first].astype(U64)
            if t.n == 1:
                return lo
            return lo | (self.S[t.first + 1].astype(U64) << U64(32))
        if isinstance(t, SpecialRegType):
            name = t.reg.data
            if name.startswith("ttmp"):  # the trap temporaries (LLVM's assembly: gfx12's workgroup ids)
                return self.S[TTMP_FIRST + int(name[4:])].astype(U64)
            if name == "vcc_hi":  # wave32's spare scalar register (the front refuses it on wave64)
                return self.S[VCC_HI].astype(U64)
            if name == "exec_hi":  # wave64's lanes 32 .. 63, read as a source (v_mbcnt_hi_u32_b32's)
                return self.exec_bits.copy() >> U64(32)
            return {"exec": self.exec_bits, "vcc": self.vcc}[name].copy()
        c = constant_of(v)
        assert c is not None
        return np.full(self.W, U64(c.int_value & 0xFFFFFFFFFFFFFFFF), U64)

    def rd_s(self, v: SSAValue) -> np.ndarray:
        """A 32-bit scalar operand per wave."""
        t = v.type
        if isinstance(t, SGPRType):
            return self.S[t.first]
        if isinstance(t, SpecialRegType):
            return (self.rd_scalar64(v) & M32).astype(U32)
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
        if isinstance(t, SpecialRegType):  # exec, vcc, a trap temporary as a 32-bit VALU source
            return self.rd_s(v)[:, None]
        c = constant_of(v)
        assert c is not None
        if i == 0:
            return U32(c.bits)
        return U32(0xFFFFFFFF if c.int_value < 0 and not c.is_float else 0)

    def rd_v64(self, v: SSAValue):
        lo = np.asarray(self.rd_v(v, 0)).astype(U64)
        hi = np.asarray(self.rd_v(v, 1)).astype(U64)
        return lo | (hi << U64(32))

    # -- operand writes --------------------------------------------------------------------------

    def wr_v(self, t: VGPRType | AGPRType, vals: list, act: np.ndarray) -> None:
        m = self.lanes_act(act)
        file = self.A if isinstance(t, AGPRType) else self.V
        for i, x in enumerate(vals):
            file[t.first + i] = np.where(m, np.asarray(x).astype(U32), file[t.first + i])

    def wr_v_lanes(self, first: int, vals: list, m: np.ndarray, agpr: bool = False) -> None:
        """VGPR (with agpr: AGPR) first + i = vals[i] in the lanes of m (vals: one value per lane
        of m, as a load gives)."""
        file = self.A if agpr else self.V
        for i, x in enumerate(vals):
            reg = file[first + i].copy()
            reg[m] = x
            file[first + i] = reg

    def wr_s(self, t, vals: list, act: np.ndarray) -> None:
        if isinstance(t, SpecialRegType):
            if t.reg.data == "exec":
                self.set_exec(vals[0], act)
            elif t.reg.data == "vcc":
                self.vcc = np.where(act, vals[0], self.vcc).astype(U64)
            elif t.reg.data == "scc":
                self.scc = np.where(act, vals[0], self.scc)
            elif t.reg.data == "vcc_hi":
                self.S[VCC_HI] = np.where(act, np.asarray(vals[0]).astype(U32), self.S[VCC_HI])
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
            self.wr_s(t, [(val & M32).astype(U32)], act)
        else:
            self.wr_s(t, [(val & M32).astype(U32), (val >> U64(32)).astype(U32)], act)
