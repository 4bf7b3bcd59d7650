"""lower-to-amdgcn: instruction selection from kernel IR into the amdgcn dialect.

Expects: kernel IR (gemm-to-kernel and any of the tiling passes; `gemmc.target` names the
arch, one of gfx90a, gfx942, gfx950, gfx1100, gfx1201) after unroll-loops and promote-private:
no private (address space 5) buffers, their elements SSA values; loops kept as loops.
Produces: each `gpu.module` becomes an `amdgcn.module` of `amdgcn.kernel`s holding
instructions on unallocated registers (see dialects/amdgcn.py); the host function and its
`gpu.launch_func` stay as they are (the kernel symbols keep their names).

How values are selected:
  * uniformity decides the register file: block ids, kernel arguments, loop counters and
    arithmetic on them are SGPRs (SALU: s_add_u32, s_mul_i32, s_lshl_b32); anything that
    depends on a thread id, a load or a lane-varying branch is a VGPR (VALU);
  * integer values are kept as `register + constant`, so constant parts fold: into other
    constants, and into the immediate offset of LDS (0..65535) and global (13-bit signed)
    accesses; multiplication distributes over the constant part; instructions are
    value-numbered per region (no instruction is emitted twice where the first dominates);
  * multiply by 2^k is a shift, by a small constant of a value below 2^24 v_mul_u32_u24,
    else v_mul_lo_u32 / s_mul_i32; unsigned division and remainder by constants are shifts
    and masks, or a multiply-high by a magic number;
  * a divergent i1 is a lane mask (an SGPR pair on wave64, one SGPR on wave32) written by
    v_cmp_*_e64; a uniform i1 is an SGPR holding 0 or 1 (s_cmp + s_cselect_b32);
  * global addresses are 64-bit: a 64-bit SGPR base plus a 32-bit VGPR byte offset
    (global_load_dword v, v_off, s[base:base+1]) where the buffer is known to be below
    2 GiB, else v_mad_u64_u32 v[a:a+1], idx, elem_bytes, s[base:base+1] (or
    v_lshl_add_u64 on gfx942) and global_load_dword v, v[a:a+1], off;
  * vector loads and stores become dwordx2..x4 / ds_read_b64..b128 where the LDS address
    is provably aligned (else one dword at a time);
  * scf.for (uniform bounds) becomes amdgcn.for (a scalar counter), its iter_args carried
    values (a vector<n x f32> one range of n registers; in AGPRs with accumulators=agpr where
    it is an MFMA's C); which loops run unrolled is unroll-loops' decision, made before;
  * scf.if on a lane mask becomes amdgcn.if (EXEC-masked), on a uniform value
    amdgcn.if_uniform (a scalar branch);
  * amdgpu.mfma / amdgpu.wmma become the arch's v_mfma_* / v_wmma_* on VGPR ranges (a
    vector.shuffle of fragment pieces only picks registers; one that splits 16-bit or FP8
    registers, a copy's block transposed, is v_perm_b32 per result VGPR);
    arith.truncf of an f32 vector to f16 is v_cvt_f16_f32 per element and v_pack_b32_f16 per
    pair, to bf16 integer rounding to nearest even (NaN kept quiet) and the upper halves put
    together (matrix-core fragments, two 16-bit values per VGPR);
  * f16 / bf16 buffers: an element is a VGPR's low half (global_load_ushort, ds_read_u16,
    ds_write_b16, global_store_short; an odd element of a vector stored from the high half,
    ds_write_b16_d16_hi), a vector of them packed two to a VGPR (dword loads and stores where
    the byte offset is proven a multiple of 4, else refused); a scalar truncf / extf between
    f32 and f16 (v_cvt_f16_f32, v_cvt_f32_f16) or bf16 (integer rounding, shifts);
  * FP8 buffers (f8E4M3FNUZ, f8E5M2FNUZ, f8E4M3FN, f8E5M2): an element is a byte of a VGPR
    (global_load_ubyte, ds_read_u8, ds_write_b8, global_store_byte; the third byte of a packed
    word stored by ds_write_b8_d16_hi), a vector of them packed four to a VGPR, element 4i + b in
    byte b of VGPR i, as the FP8 MFMAs / WMMAs take A and B (dword loads where the byte offset is
    proven a multiple of 4; fragments from LDS not known to be so byte by byte, packed by
    v_lshl_or_b32); no FP8 conversion is selected (refused).
Loop-carried values and branch results go through amdgcn.copy, which the allocator
coalesces away where it can.
A private buffer left in the kernel is refused, naming promote-private.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import arith, gpu, math as xmath, memref, scf, vector
from xdsl.dialects.ub import PoisonOp
from xdsl.dialects.builtin import (
    ArrayAttr,
    BFloat16Type,
    DenseArrayBase,
    Float16Type,
    Float32Type,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    StringAttr,
    VectorType,
    i64,
)
from xdsl.ir import Attribute, Block, BlockArgument, Operation, Region, SSAValue
from xdsl.passes import ModulePass

from gemmc.target.amdgcn_isa import f32_bits, matrix_op_name
from gemmc.target.arch import Arch, GcnIsa, get_gcn_isa
from gemmc.support.diagnostics import GemmcError, pass_error
from gemmc.dialects.amdgcn.control_flow import ForOp, IfOp, IfUniformOp, YieldOp
from gemmc.dialects.amdgcn.instructions import GcnInstruction, instr
from gemmc.dialects.amdgcn.kernel import GcnModuleOp, KernelOp, kernel_args_attr
from gemmc.dialects.amdgcn.pseudo import ConcatOp, ConstantOp, CopyOp, ExtractOp, InputOp, UndefOp, constant_of
from gemmc.dialects.amdgcn.registers import (
    AGPRType,
    GcnRegisterType,
    ImmType,
    SGPRType,
    SpecialRegType,
    VGPRType,
    sgpr,
    vgpr,
)
from gemmc.dialects.amdgpu import MFMAOp, WMMAOp
from gemmc.support.ir_names import (
    ARG_DIMS_ATTR,
    FLAT_WORK_GROUP_SIZE_ATTR,
    KNOWN_BLOCK_SIZE_ATTR,
    LDS_SPACE,
    PRIVATE_SPACE,
    ROLE_ATTR,
    WAVES_PER_EU_ATTR,
)
from gemmc.amdgcn.values import B, E8, F, GlobalMem, H, I, LdsMem, Packed, Vec, log2, magic_u32, pow2
from gemmc.transforms.residues import offset_is_multiple
from gemmc.target.module_arch import target_of

PASS = "lower-to-amdgcn"
USER_SGPRS = 2  # the kernarg segment pointer, s[0:1]; workgroup ids follow in s2, s3


# -- the pass --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LowerToAmdgcnPass(ModulePass):
    name = "lower-to-amdgcn"

    saddr: bool = True
    """Address global buffers known to be below 2 GiB as SGPR base + 32-bit VGPR offset."""
    combine_loads: bool = True
    """Merge loads from one address: ds_read_b128/b64 (aligned runs), ds_read2_b32, and
    global_load_dwordx2/x3/x4 (consecutive dwords)."""
    hoist_loads: int = 16
    """Move loads up past arithmetic while they hold at most this many more VGPRs (0: program order)."""
    accumulators: str = "vgpr"
    """Where MFMA accumulators live: vgpr (gfx90a+, as LLVM chooses below 256 registers) or agpr
    (the accumulation registers: v_accvgpr_write to zero them, v_accvgpr_read before C is stored)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        arch = target_of(op)
        isa = get_gcn_isa(arch)
        if self.accumulators not in ("vgpr", "agpr"):
            raise pass_error(PASS, op, f"accumulators={self.accumulators}: expected vgpr or agpr")
        gmods = [m for m in op.body.block.ops if isinstance(m, gpu.ModuleOp)]
        if not gmods:
            raise pass_error(PASS, op, "expects kernel IR (a gpu.module); run gemm-to-kernel first")
        for gm in gmods:
            kernels = []
            for fn in gm.body.block.ops:
                if isinstance(fn, gpu.FuncOp) and fn.kernel is not None:
                    kernels.append(_KernelLowering(fn, arch, isa, self).lower())
                elif not isinstance(fn, gpu.TerminatorOp):
                    raise pass_error(PASS, fn, f"cannot lower '{fn.name}' in a gpu.module")
            new = GcnModuleOp(gm.sym_name.data, arch.name, Region(Block(kernels)))
            op.body.block.insert_op_before(new, gm)
            gm.detach()
            gm.erase()


# -- lowering one kernel ----------------------------------------------------------------------------


@dataclass
class _Frame:
    """A block being filled: the kernel's entry, a loop body or a branch."""

    block: Block
    cache: dict = field(default_factory=dict)  # value numbering: instruction key -> results


class _KernelLowering:
    def __init__(self, fn: gpu.FuncOp, arch: Arch, isa: GcnIsa, opts: LowerToAmdgcnPass):
        self.fn, self.arch, self.isa, self.opts = fn, arch, isa, opts
        self.wave64 = arch.wave_size == 64
        self.mask_n = 2 if self.wave64 else 1
        self.env: dict[SSAValue, object] = {}
        self.lds_top = 0
        self.entry = Block()
        self.frames = [_Frame(self.entry)]
        self.def_frame: dict[SSAValue, int] = {}
        self.consts: dict[tuple, SSAValue] = {}
        self.const_block = Block()  # constants, moved to the kernel's top at the end
        self.block_size = self._block_size()
        self.ranks: dict[SSAValue, int] = {}
        self.reg_align: dict[SSAValue, int] = {}  # LDS address registers: a power of 2 dividing them
        self.part_of: dict[SSAValue, tuple[SSAValue, int]] = {}  # extract result -> (range, offset)
        self.packed_ranges: dict[Packed, SSAValue] = {}  # a 16-bit fragment's VGPR range

    # -- emission -----------------------------------------------------------------------------

    def error(self, op: Operation, msg: str) -> GemmcError:
        return pass_error(PASS, op, msg)

    @property
    def block(self) -> Block:
        return self.frames[-1].block

    def insert(self, op: Operation, frame: int | None = None) -> Operation:
        f = len(self.frames) - 1 if frame is None else frame
        self.frames[f].block.add_op(op)
        for r in op.results:
            self.def_frame[r] = f
        return op

    def const(self, v: int | float) -> SSAValue:
        key = ("f", float(v)) if isinstance(v, float) else ("i", int(v) & 0xFFFFFFFF)
        c = self.consts.get(key)
        if c is None:
            op = ConstantOp(v)
            self.const_block.add_op(op)
            c = self.consts[key] = op.result
        return c

    def emit(self, mnemonic: str, srcs: Sequence[SSAValue], dsts: Sequence[Attribute], cse: bool = True,
             name: str | None = None, **mods) -> list[SSAValue]:
        """Emit an instruction.  With cse (pure instructions): reuse an identical one that
        dominates here, else place it in the outermost block where its operands are
        available (loop-invariant code leaves the loop, and also the branch it is in)."""
        key = (mnemonic, tuple(srcs), tuple(dsts), tuple(sorted(mods.items())))
        target = len(self.frames) - 1
        if cse:
            for fr in reversed(self.frames):
                hit = fr.cache.get(key)
                if hit is not None:
                    return hit
            target = max((self.def_frame.get(x, 0) for x in srcs), default=0)
        op = self.insert(instr(mnemonic, srcs, dsts, **mods), target)
        res = list(op.results)
        for r in res:
            self.rank(r)
        if name and res:
            res[0].name_hint = name
        if cse:
            self.frames[target].cache[key] = res
        return res

    def e1(self, mnemonic, srcs, dst, cse=True, name=None, **mods) -> SSAValue:
        return self.emit(mnemonic, srcs, [dst], cse, name, **mods)[0]

    def rank(self, v: SSAValue) -> int:
        """Creation order of a value (operands of commutative ops are ordered by it)."""
        r = self.ranks.get(v)
        if r is None:
            r = self.ranks[v] = len(self.ranks)
        return r

    def push(self, block: Block) -> None:
        self.frames.append(_Frame(block))
        for a in block.args:
            self.def_frame[a] = len(self.frames) - 1

    def pop(self) -> None:
        self.frames.pop()

    # -- register classes --------------------------------------------------------------------

    @staticmethod
    def is_v(x: SSAValue | None) -> bool:
        return x is not None and isinstance(x.type, VGPRType)

    @staticmethod
    def is_s(x: SSAValue | None) -> bool:
        return x is not None and isinstance(x.type, (SGPRType, SpecialRegType))

    @staticmethod
    def is_imm(x: SSAValue) -> bool:
        return isinstance(x.type, ImmType)

    def V(self, n=1):
        return vgpr(n)

    def S(self, n=1):
        return sgpr(n)

    def scc(self):
        return SpecialRegType("scc")

    def to_vgpr(self, x: SSAValue) -> SSAValue:
        if self.is_v(x):
            return x
        if isinstance(x.type, AGPRType):
            return self.e1("v_accvgpr_read_b32", [x], self.V())
        return self.e1("v_mov_b32", [x], self.V())

    def literal_ok(self, x: SSAValue) -> bool:
        c = constant_of(x)
        return c is None or c.is_inline()

    def vop2(self, mnemonic: str, a: SSAValue, b: SSAValue, commutative: bool, name=None) -> SSAValue:
        """VOP2: src1 must be a VGPR; src0 anything (SGPR, inline constant, literal)."""
        if not self.is_v(b):
            if commutative and self.is_v(a):
                a, b = b, a
            else:
                b = self.to_vgpr(b)
        if commutative and self.is_v(a) and self.is_v(b) and self.rank(a) > self.rank(b):
            a, b = b, a
        return self.e1(mnemonic, [a, b], self.V(), name=name)

    def legal_vop3(self, srcs: list[SSAValue]) -> list[SSAValue]:
        """Respect the constant bus (SGPRs + literals per VALU instruction) and, on gfx9,
        VOP3's lack of literals, moving operands into VGPRs as needed."""
        out = list(srcs)
        lits = [i for i, x in enumerate(out) if not self.literal_ok(x)]
        if not self.isa.vop3_literal:
            # no literal in VOP3 on gfx9: an SGPR holds it while the constant bus has room
            used = len({x for x in out if isinstance(x.type, SGPRType)})
            for i in lits:
                if used < self.isa.constant_bus_limit:
                    out[i] = self.e1("s_mov_b32", [out[i]], self.S())
                    used += 1
                else:
                    out[i] = self.to_vgpr(out[i])
        elif len({out[i] for i in lits}) > 1:
            for i in lits[1:]:
                out[i] = self.to_vgpr(out[i])
        bus: list = []
        for i, x in enumerate(out):
            if isinstance(x.type, SGPRType) or (self.is_imm(x) and not self.literal_ok(x)):
                if x in bus:
                    continue
                if len(bus) >= self.isa.constant_bus_limit:
                    out[i] = self.to_vgpr(x)
                else:
                    bus.append(x)
        return out

    def vop3(self, mnemonic: str, srcs: list[SSAValue], dst=None, name=None, cse=True) -> SSAValue:
        return self.e1(mnemonic, self.legal_vop3(srcs), dst or self.V(), name=name, cse=cse)

    # -- integers ------------------------------------------------------------------------------

    def ival(self, v: SSAValue, op: Operation) -> I:
        x = self.env.get(v)
        if not isinstance(x, I):
            raise self.error(op, f"expected an integer value for {v.name_hint or 'an operand'}")
        return x

    def mat(self, x: I) -> SSAValue:
        """x as one register (or constant operand)."""
        if x.reg is None:
            return self.const(x.const)
        if x.const == 0:
            return x.reg
        return self.add_regs(x.reg, self.const(x.const))

    def add_regs(self, a: SSAValue, b: SSAValue) -> SSAValue:
        if self.is_imm(a) and self.is_imm(b):
            raise AssertionError("constant folding missed")
        if not self.is_v(a) and not self.is_v(b):
            return self.emit("s_add_u32", [a, b], [self.S(), self.scc()])[0]
        return self.vop2("v_add_u32", a, b, True)

    @staticmethod
    def bnd(x: I) -> int | None:
        return x.const + 1 if x.reg is None else x.bound

    def add(self, x: I, y: I) -> I:
        bx, by = self.bnd(x), self.bnd(y)
        bound = bx + by if bx is not None and by is not None else None
        if x.reg is None or y.reg is None:
            r = x.reg if x.reg is not None else y.reg
            al = x.align if x.reg is not None else y.align
            return I(r, x.const + y.const, bound, al)
        a, b = (x.reg, y.reg) if self.rank(x.reg) <= self.rank(y.reg) else (y.reg, x.reg)
        return I(self.add_regs(a, b), x.const + y.const, bound, min(x.align, y.align))

    def sub(self, x: I, y: I, op: Operation) -> I:
        if y.reg is None:
            return I(x.reg, x.const - y.const, x.bound, x.align)
        a, b = self.mat(x), self.mat(y)
        if not self.is_v(a) and not self.is_v(b):
            return I(self.emit("s_sub_u32", [a, b], [self.S(), self.scc()])[0], 0, x.bound)
        return I(self.e1("v_sub_u32", [a, self.to_vgpr(b)], self.V()), 0, x.bound)

    def mul_const(self, r: SSAValue, c: int, bound: int | None) -> SSAValue:
        if c == 1:
            return r
        uniform = not self.is_v(r)
        if pow2(c):
            sh = self.const(log2(c))
            if uniform:
                return self.emit("s_lshl_b32", [r, sh], [self.S(), self.scc()])[0]
            return self.e1("v_lshlrev_b32", [sh, r], self.V())
        if uniform:
            return self.e1("s_mul_i32", [r, self.const(c)], self.S())
        if bound is not None and bound <= 1 << 24 and 0 <= c < 1 << 24:
            return self.e1("v_mul_u32_u24", [self.const(c), r], self.V())
        return self.vop3("v_mul_lo_u32", [r, self.const(c)])

    def mul(self, x: I, y: I) -> I:
        bx, by = self.bnd(x), self.bnd(y)
        bound = bx * by if bx is not None and by is not None else None
        if x.reg is None and y.reg is None:
            return I(None, x.const * y.const)
        if y.reg is None or x.reg is None:
            if x.reg is None:
                x, y = y, x
            c = y.const
            if c == 0:
                return I(None, 0)
            rb = x.bound - x.const if x.bound is not None else None
            r = self.mul_const(x.reg, c, rb)  # type: ignore[arg-type]
            al = x.align * (c & -c) if c > 0 else 1
            return I(r, x.const * c, bound, al)
        a, b = self.mat(x), self.mat(y)
        if self.rank(a) > self.rank(b):
            a, b = b, a
        if not self.is_v(a) and not self.is_v(b):
            return I(self.e1("s_mul_i32", [a, b], self.S()), 0, bound)
        if bound is not None and bound <= 1 << 24:
            return I(self.vop2("v_mul_u32_u24", a, b, True), 0, bound)
        return I(self.vop3("v_mul_lo_u32", [a, b]), 0, bound)

    def shr(self, r: SSAValue, k: int) -> SSAValue:
        if k == 0:
            return r
        if not self.is_v(r):
            return self.emit("s_lshr_b32", [r, self.const(k)], [self.S(), self.scc()])[0]
        return self.e1("v_lshrrev_b32", [self.const(k), r], self.V())

    def divc(self, x: I, d: int, op: Operation) -> I:
        if d <= 0:
            raise self.error(op, f"division by {d}")
        bound = -(-x.bound // d) if x.bound is not None else None
        if x.reg is None:
            return I(None, x.const // d)
        if d == 1:
            return x
        rb = x.bound - x.const if x.bound is not None and x.const >= 0 else None
        if x.const > 0 and (x.const % d == 0 or x.align % d == 0):
            # floor((r + c) / d) = floor(r / d) + floor(c / d) when d divides c or r (r, c >= 0)
            q = self.divc(I(x.reg, 0, rb, x.align), d, op)
            return I(q.reg, q.const + x.const // d, bound, q.align)
        r = self.mat(x)
        if pow2(d):
            return I(self.shr(r, log2(d)), 0, bound, max(1, x.align // d) if x.const == 0 else 1)
        m, s = magic_u32(d, x.bound if x.bound is not None else 1 << 31)
        if not self.is_v(r):
            hi = self.e1("s_mul_hi_u32", [r, self.const(m)], self.S())
        else:
            hi = self.vop3("v_mul_hi_u32", [r, self.const(m)])
        return I(self.shr(hi, s), 0, bound)

    def remc(self, x: I, d: int, op: Operation) -> I:
        if d <= 0:
            raise self.error(op, f"remainder by {d}")
        if x.reg is None:
            return I(None, x.const % d)
        if x.bound is not None and x.const >= 0 and x.bound <= d and x.const == 0:
            return x
        if x.const > 0 and x.const % d == 0:  # (r + c) % d = r % d when d divides c
            return self.remc(I(x.reg, 0, x.bound - x.const if x.bound is not None else None, x.align), d, op)
        if x.align % d == 0 and x.const >= 0:  # d divides r
            return I(None, x.const % d)
        if pow2(d):
            r = self.mat(x)
            mask = self.const(d - 1)
            if not self.is_v(r):
                return I(self.emit("s_and_b32", [r, mask], [self.S(), self.scc()])[0], 0, d)
            return I(self.vop2("v_and_b32", mask, r, True), 0, d)
        q = self.divc(x, d, op)
        qd = self.mul(q, I(None, d))
        res = self.sub(I(self.mat(x), 0, x.bound), qd, op)
        return I(self.mat(res), 0, d)

    # -- booleans ---------------------------------------------------------------------------------

    CC = {0: ("eq", "u"), 1: ("lg", "u"), 2: ("lt", "i"), 3: ("le", "i"), 4: ("gt", "i"), 5: ("ge", "i"),
          6: ("lt", "u"), 7: ("le", "u"), 8: ("gt", "u"), 9: ("ge", "u")}
    PY = {"eq": lambda a, b: a == b, "lg": lambda a, b: a != b, "lt": lambda a, b: a < b,
          "le": lambda a, b: a <= b, "gt": lambda a, b: a > b, "ge": lambda a, b: a >= b}

    def cmp(self, pred: int, x: I, y: I, op: Operation) -> B:
        cc, sign = self.CC[pred]
        if x.reg is None and y.reg is None:
            return B(const=self.PY[cc](x.const, y.const))
        # a known bound decides `x < c` for unsigned compares against constants
        if sign == "u" and y.reg is None and x.bound is not None and cc in ("lt", "ge") and x.bound <= y.const:
            return B(const=cc == "lt")
        a, b = self.mat(x), self.mat(y)
        if not self.is_v(a) and not self.is_v(b):
            s = self.e1(f"s_cmp_{cc}_{sign}32", [a, b], self.scc())
            r = self.e1("s_cselect_b32", [self.const(1), self.const(0), s], self.S())
            return B(reg=r)
        vcc = "ne" if cc == "lg" else cc
        m = self.vop3(f"v_cmp_{vcc}_{sign}32", [a, b], self.S(self.mask_n))
        return B(reg=m, mask=True)

    def to_mask(self, x: B) -> SSAValue:
        if x.mask:
            return x.reg  # type: ignore[return-value]
        ones, zero = self.const(-1), self.const(0)
        if x.const is not None:
            return self.e1("s_mov_b64" if self.wave64 else "s_mov_b32", [ones if x.const else zero], self.S(self.mask_n))
        s = self.e1("s_cmp_lg_u32", [x.reg, zero], self.scc())  # type: ignore[list-item]
        return self.e1("s_cselect_b64" if self.wave64 else "s_cselect_b32", [ones, zero, s], self.S(self.mask_n))

    def band(self, x: B, y: B, is_and: bool) -> B:
        for p, q in ((x, y), (y, x)):
            if p.const is not None:
                if p.const == is_and:
                    return q
                return B(const=not is_and)
        if not x.mask and not y.mask:
            m = "s_and_b32" if is_and else "s_or_b32"
            return B(reg=self.emit(m, [x.reg, y.reg], [self.S(), self.scc()])[0])  # type: ignore[list-item]
        a, b = self.to_mask(x), self.to_mask(y)
        suffix = "b64" if self.wave64 else "b32"
        m = f"s_{'and' if is_and else 'or'}_{suffix}"
        return B(reg=self.emit(m, [a, b], [self.S(self.mask_n), self.scc()])[0], mask=True)

    # -- floats -----------------------------------------------------------------------------------

    def fval(self, v: SSAValue, op: Operation) -> F:
        x = self.env.get(v)
        if not isinstance(x, F):
            raise self.error(op, f"expected an f32 value for {v.name_hint or 'an operand'}")
        if x.reg is not None and isinstance(x.reg.type, AGPRType):
            # an AGPR accumulator read on its own (the epilogue): v_accvgpr_read where it is used
            return F(self.to_vgpr(x.reg))
        return x

    def fmat(self, x: F) -> SSAValue:
        return x.reg if x.reg is not None else self.const(float(x.const))  # type: ignore[arg-type]

    def fvgpr(self, x: F) -> SSAValue:
        return self.to_vgpr(self.fmat(x))

    # -- the kernel -------------------------------------------------------------------------------

    def _block_size(self) -> tuple[int, int, int]:
        bs = self.fn.attributes.get(KNOWN_BLOCK_SIZE_ATTR) or self.fn.properties.get("known_block_size")
        if isinstance(bs, DenseArrayBase):
            vals = list(bs.get_values())
            return (int(vals[0]), int(vals[1]), int(vals[2]))
        raise self.error(self.fn, "expects gpu.known_block_size on the kernel")

    def lower(self) -> KernelOp:
        fn = self.fn
        body = fn.body.block
        for a in body.args:
            if isinstance(a.type, MemRefType) and _elem_bytes(a.type) is None:
                raise self.error(fn, f"buffer {a.name_hint or a.index} of {a.type.element_type}: only f32, f16, "
                                     "bf16 and FP8 (f8E4M3FNUZ, f8E5M2FNUZ, f8E4M3FN, f8E5M2) buffers are selected")
        self._refuse_unselected()
        self._inputs()
        self._kernargs(body)
        for op in body.ops:
            self.lower_op(op)
        self.finish_block(self.entry)
        _drop_unused_extracts(self.entry)
        kernel_attrs = {
            "args": kernel_args_attr(self.arg_layout),
            "kernarg_size": IntegerAttr(self.kernarg_size, i64),
            "lds_bytes": IntegerAttr(self.lds_top, i64),
            "block": ArrayAttr([IntegerAttr(v, i64) for v in self.block_size]),
            "wave_size": IntegerAttr(self.arch.wave_size, i64),
        }
        for k in (FLAT_WORK_GROUP_SIZE_ATTR, WAVES_PER_EU_ATTR):
            if k in fn.attributes:
                kernel_attrs[k] = fn.attributes[k]
        # constants first, then the kernel's instructions
        first = self.entry.first_op
        for c in list(self.const_block.ops):
            c.detach()
            if first is None:
                self.entry.add_op(c)
            else:
                self.entry.insert_op_before(c, first)
        return KernelOp(fn.sym_name.data, Region(self.entry), kernel_attrs)

    _NOT_SELECTED = {"amdgpu.gather_to_lds": "direct-to-LDS copies; use a pipeline without direct-to-lds"}

    def _refuse_unselected(self) -> None:
        """One line for the matrix-core ops this backend does not select: direct-to-LDS,
        WMMAs with 16-bit accumulators and gfx950's f8f6f4 MFMAs."""
        for op in self.fn.walk():
            if isinstance(op, WMMAOp) and (instr := op.instr_on(self.arch)) is not None and instr.out_type != "f32":
                raise self.error(op, f"'amdgpu.wmma' with {instr.out_type} accumulators ({instr.mnemonic}) is not "
                                     "selected; use the HIP path (--emit asm) or acc f32")
            elif isinstance(op, MFMAOp) and (instr := op.instr_on(self.arch)) is not None and instr.formats:
                raise self.error(op, f"'amdgpu.mfma' on {instr.mnemonic} is not selected (its cbsz / blgp formats); "
                                     "use the FP8 MFMAs (v_mfma_f32_*_fp8_fp8, ...) or the HIP path")
            elif op.name in self._NOT_SELECTED:
                raise self.error(op, f"'{op.name}' is not selected yet ({self._NOT_SELECTED[op.name]})")
            elif op.name == "gemm.copy":
                raise self.error(op, "'gemm.copy' is a tile-level copy: run lower-copies first (GCN_PREPARE does)")

    def _inputs(self) -> None:
        self.kernarg_ptr = self.insert(InputOp("kernarg_segment_ptr", sgpr(2, 0))).results[0]
        self.kernarg_ptr.name_hint = "kernarg"
        self.wg = {
            "x": self.insert(InputOp("workgroup_id_x", sgpr(1, USER_SGPRS))).results[0],
            "y": self.insert(InputOp("workgroup_id_y", sgpr(1, USER_SGPRS + 1))).results[0],
        }
        self.wg["x"].name_hint, self.wg["y"].name_hint = "wg_x", "wg_y"
        self.tid_in = self.insert(InputOp("workitem_ids", vgpr(1, 0))).results[0]
        self.tid_in.name_hint = "tid"
        self.tids: dict[str, I] = {}

    def thread_id(self, dim: str) -> I:
        if dim in self.tids:
            return self.tids[dim]
        n = self.block_size["xyz".index(dim)]
        if n == 1:
            x = I(None, 0)
        elif dim == "x":
            if self.isa.packed_workitem_ids and (self.block_size[1] > 1 or self.block_size[2] > 1):
                r = self.vop2("v_and_b32", self.const(0x3FF), self.tid_in, True, name="tx")
            else:
                r = self.tid_in
            x = I(r, 0, n)
        elif dim == "y":
            r = self.vop3("v_bfe_u32", [self.tid_in, self.const(10), self.const(10)], name="ty")
            x = I(r, 0, n)
        else:
            raise GemmcError(f"{PASS}: thread_id z is not supported")
        self.tids[dim] = x
        return x


    def _kernargs(self, body: Block) -> None:
        """The kernarg segment, as the HIP emitter's launcher passes it: pointers, then the
        distinct dynamic dims (in the order the body asks for them), then scalars."""
        args = list(body.args)
        names = _arg_dim_names(self.fn, len(args))
        dims: dict[tuple[int, int], str] = {}
        for a in args:
            if isinstance(a.type, MemRefType):
                for axis, size in enumerate(a.type.get_shape()):
                    if size < 0:
                        nm = names[a.index]
                        dims[(a.index, axis)] = nm[axis] if nm and axis < len(nm) else f"{a.name_hint or 'arg'}_dim{axis}"
        order: list[str] = []
        for op in body.walk():
            if isinstance(op, memref.DimOp) and isinstance(op.source, BlockArgument) and op.source.block is body:
                c = op.index.owner
                if isinstance(c, arith.ConstantOp):
                    nm = dims.get((op.source.index, c.value.value.data))  # type: ignore[union-attr]
                    if nm is not None and nm not in order:
                        order.append(nm)
        for key in sorted(dims):
            if dims[key] not in order:
                order.append(dims[key])
        layout: list[dict] = []
        off = 0
        for a in args:
            if isinstance(a.type, MemRefType):
                layout.append({"name": a.name_hint or f"arg{a.index}", "kind": "global_buffer", "offset": off,
                               "size": 8, "arg": a.index})
                off += 8
        for d in order:
            src = min(k for k, v in dims.items() if v == d)  # (argument, axis) that has this size
            layout.append({"name": d, "kind": "by_value", "offset": off, "size": 4, "dim": d,
                           "dim_arg": src[0], "dim_axis": src[1]})
            off += 4
        for a in args:
            if not isinstance(a.type, MemRefType):
                if a.type != Float32Type():
                    raise self.error(self.fn, f"kernel argument {a.name_hint} of type {a.type} is not supported")
                layout.append({"name": a.name_hint or f"arg{a.index}", "kind": "by_value", "offset": off, "size": 4,
                               "arg": a.index})
                off += 4
        self.arg_layout = layout
        self.kernarg_size = off
        # one s_load per chunk of up to 8 dwords, then extracts
        used = [e for e in layout if self._arg_used(body, e)]
        dwords: dict[int, SSAValue] = {}
        if used:
            lo = min(e["offset"] for e in used) // 4
            hi = max(e["offset"] + e["size"] for e in used) // 4
            pos = lo
            chunks = []
            while pos < hi:
                n = next(k for k in (8, 4, 2, 1) if pos + k <= hi)
                suffix = {1: "dword", 2: "dwordx2", 4: "dwordx4", 8: "dwordx8"}[n]
                r = self.e1(f"s_load_{suffix}", [self.kernarg_ptr], self.S(n), cse=False, offset=pos * 4)
                chunks.append((pos, n, r))
                pos += n
            for e in used:
                d0, nd = e["offset"] // 4, e["size"] // 4
                for (p, n, r) in chunks:
                    if p <= d0 and d0 + nd <= p + n:
                        v = r if (p == d0 and n == nd) else self.insert(ExtractOp(r, d0 - p, self.S(nd))).results[0]
                        v.name_hint = e["name"]
                        dwords[e["offset"]] = v
                        break
                else:
                    # straddles two chunks: load it alone
                    suffix = {1: "dword", 2: "dwordx2"}[nd]
                    v = self.e1(f"s_load_{suffix}", [self.kernarg_ptr], self.S(nd), cse=False, offset=e["offset"])
                    v.name_hint = e["name"]
                    dwords[e["offset"]] = v
        self.dim_vals: dict[str, I] = {}
        for e in layout:
            v = dwords.get(e["offset"])
            if "dim" in e and v is not None:
                self.dim_vals[e["dim"]] = I(v, 0, 1 << 31)
        for e in layout:
            v = dwords.get(e["offset"])
            if "dim" not in e and v is not None:
                a = args[e["arg"]]
                if isinstance(a.type, MemRefType):
                    self.env[a] = self._global_mem(a, v, dims)
                else:
                    self.env[a] = F(reg=v)
        for a in args:
            if isinstance(a.type, MemRefType) and a not in self.env and a.uses:
                self.env[a] = self._global_mem(a, None, dims)  # type: ignore[arg-type]
        self.arg_dims = dims

    def _arg_used(self, body: Block, e: dict) -> bool:
        if "dim" in e:
            return True
        return bool(body.args[e["arg"]].uses)

    def _global_mem(self, a: BlockArgument, base: SSAValue, dims) -> GlobalMem:
        t = a.type
        assert isinstance(t, MemRefType)
        shape = t.get_shape()
        sizes = [I(None, s) if s >= 0 else self.dim_vals[dims[(a.index, axis)]] for axis, s in enumerate(shape)]
        eb = _elem_bytes(t)
        assert eb is not None  # (lower() refused the others)
        static = math.prod(shape) * eb if all(s >= 0 for s in shape) else None
        return GlobalMem(base, sizes, eb, static)

    # -- ops --------------------------------------------------------------------------------------

    def lower_block(self, block: Block) -> None:
        for op in block.ops:
            self.lower_op(op)

    def lower_op(self, op: Operation) -> None:
        h = _HANDLERS.get(type(op))
        if h is None:
            raise self.error(op, f"cannot select instructions for '{op.name}'")
        h(self, op)

    def _constant(self, op: arith.ConstantOp) -> None:
        v = op.value
        t = op.result.type
        if isinstance(v, IntegerAttr):
            if t == IntegerType(1):
                self.env[op.result] = B(const=bool(v.value.data))
            else:
                self.env[op.result] = I(None, v.value.data)
        elif isinstance(v, FloatAttr) and isinstance(t, Float32Type):
            self.env[op.result] = F(const=v.value.data)
        elif isinstance(v, FloatAttr) and isinstance(t, (Float16Type, BFloat16Type)):
            self.env[op.result] = H(bits=_half_bits(v.value.data, t))
        elif isinstance(v, FloatAttr) and _fp8_name(t) is not None:
            self.env[op.result] = E8(bits=_fp8_bits(v.value.data, t))
        else:
            raise self.error(op, f"constant of type {t} is not supported")

    def _binary_int(self, op: Operation) -> None:
        x, y = self.ival(op.operands[0], op), self.ival(op.operands[1], op)
        if isinstance(op, arith.AddiOp):
            r = self.add(x, y)
        elif isinstance(op, arith.SubiOp):
            r = self.sub(x, y, op)
        elif isinstance(op, arith.MuliOp):
            r = self.mul(x, y)
        elif isinstance(op, (arith.DivUIOp, arith.CeilDivUIOp, arith.RemUIOp)):
            if y.reg is not None:
                raise self.error(op, "division by a value that is not a compile-time constant")
            if isinstance(op, arith.RemUIOp):
                r = self.remc(x, y.const, op)
            elif isinstance(op, arith.DivUIOp):
                r = self.divc(x, y.const, op)
            else:
                r = self.divc(self.add(x, I(None, y.const - 1)), y.const, op)
        elif isinstance(op, (arith.MinUIOp, arith.MaxUIOp)):
            if x.reg is None and y.reg is None:
                r = I(None, (min if isinstance(op, arith.MinUIOp) else max)(x.const, y.const))
            else:
                a, b = self.mat(x), self.mat(y)
                m = "min" if isinstance(op, arith.MinUIOp) else "max"
                if not self.is_v(a) and not self.is_v(b):
                    r = I(self.emit(f"s_{m}_u32", [a, b], [self.S(), self.scc()])[0])
                else:
                    r = I(self.vop2(f"v_{m}_u32", a, b, True))
        else:
            raise self.error(op, f"cannot select instructions for '{op.name}'")
        self.env[op.results[0]] = r

    _BITWISE = {arith.AndIOp: ("and", int.__and__), arith.OrIOp: ("or", int.__or__), arith.XOrIOp: ("xor", int.__xor__)}

    def _bitwise(self, op: Operation) -> None:
        x, y = self.env.get(op.operands[0]), self.env.get(op.operands[1])
        m, fold = self._BITWISE[type(op)]
        if isinstance(x, B) and isinstance(y, B):
            if m == "xor":
                raise self.error(op, "xor of i1 values is not selected")
            self.env[op.results[0]] = self.band(x, y, m == "and")
            return
        x, y = self.ival(op.operands[0], op), self.ival(op.operands[1], op)
        if x.reg is None and y.reg is None:
            self.env[op.results[0]] = I(None, fold(x.const, y.const))
            return
        a, b = self.mat(x), self.mat(y)
        if not self.is_v(a) and not self.is_v(b):
            self.env[op.results[0]] = I(self.emit(f"s_{m}_b32", [a, b], [self.S(), self.scc()])[0])
        else:
            self.env[op.results[0]] = I(self.vop2(f"v_{m}_b32", a, b, True))

    def _cmpi(self, op: arith.CmpiOp) -> None:
        self.env[op.result] = self.cmp(op.predicate.value.data, self.ival(op.lhs, op), self.ival(op.rhs, op), op)

    def _select(self, op: arith.SelectOp) -> None:
        c = self.env.get(op.cond)
        if not isinstance(c, B):
            raise self.error(op, "expects an i1 condition")
        t, f = self.env.get(op.lhs), self.env.get(op.rhs)
        if c.const is not None:
            self.env[op.result] = t if c.const else f
            return
        if isinstance(t, I) and isinstance(f, I):
            a, b = self.mat(t), self.mat(f)
            if not c.mask and not self.is_v(a) and not self.is_v(b):
                s = self.e1("s_cmp_lg_u32", [c.reg, self.const(0)], self.scc())  # type: ignore[list-item]
                self.env[op.result] = I(self.e1("s_cselect_b32", [a, b, s], self.S()))
                return
            m = self.to_mask(c)
            self.env[op.result] = I(self.vop3("v_cndmask_b32", [b, a, m]))
        elif isinstance(t, F) and isinstance(f, F):
            m = self.to_mask(c)
            self.env[op.result] = F(self.vop3("v_cndmask_b32", [self.fmat(f), self.fmat(t), m]))
        else:
            raise self.error(op, f"select of {op.result.type} is not supported")

    def _float_binary(self, op: Operation) -> None:
        x, y = self.fval(op.operands[0], op), self.fval(op.operands[1], op)
        if x.reg is None and y.reg is None:
            import numpy as np

            a, b = np.float32(x.const), np.float32(y.const)
            r = {arith.AddfOp: a + b, arith.MulfOp: a * b, arith.SubfOp: a - b}[type(op)]  # type: ignore[index]
            self.env[op.results[0]] = F(const=float(r))
            return
        if isinstance(op, arith.AddfOp):
            self.env[op.results[0]] = F(self.vop2("v_add_f32", self.fmat(x), self.fmat(y), True))
        elif isinstance(op, arith.MulfOp):
            self.env[op.results[0]] = F(self.vop2("v_mul_f32", self.fmat(x), self.fmat(y), True))
        elif isinstance(op, arith.SubfOp):
            self.env[op.results[0]] = F(self.e1("v_sub_f32", [self.fmat(x), self.fvgpr(y)], self.V()))
        else:
            raise self.error(op, f"cannot select instructions for '{op.name}'")

    def _fma(self, op: xmath.FmaOp) -> None:
        a, b, c = (self.fval(v, op) for v in op.operands)
        srcs = [self.fmat(a), self.fmat(b), self.fmat(c)]
        self.env[op.results[0]] = F(self.vop3("v_fma_f32", srcs))

    def _passthrough(self, op: Operation) -> None:
        self.env[op.results[0]] = self.env[op.operands[0]]

    def _thread_id(self, op: gpu.ThreadIdOp) -> None:
        self.env[op.result] = self.thread_id(op.dimension.data.value)

    def _block_id(self, op: gpu.BlockIdOp) -> None:
        d = op.dimension.data.value
        if d not in self.wg:
            raise self.error(op, f"block_id {d} is not supported")
        self.env[op.result] = I(self.wg[d])

    def _barrier(self, op: gpu.BarrierOp) -> None:
        self.emit("s_barrier", [], [], cse=False)

    def _return(self, op: Operation) -> None:
        if op.parent_block() is not self.fn.body.block:
            raise self.error(op, "gpu.return inside a region is not supported")
        self.emit("s_endpgm", [], [], cse=False)

    def _dim(self, op: memref.DimOp) -> None:
        src = op.source
        axis = self.ival(op.index, op)
        if axis.reg is not None:
            raise self.error(op, "memref.dim with a dynamic axis")
        t = src.type
        assert isinstance(t, MemRefType)
        size = t.get_shape()[axis.const]
        if size >= 0:
            self.env[op.result] = I(None, size)
            return
        if isinstance(src, BlockArgument) and src.block is self.fn.body.block:
            nm = self.arg_dims[(src.index, axis.const)]
            self.env[op.result] = self.dim_vals[nm]
            return
        raise self.error(op, "memref.dim of a memref that is not a kernel argument")

    def _alloca(self, op: memref.AllocaOp) -> None:
        t = op.memref.type
        assert isinstance(t, MemRefType)
        space = _space(t)
        shape = list(t.get_shape())
        if any(s < 0 for s in shape):
            raise self.error(op, "dynamically sized allocations are not supported")
        eb = _elem_bytes(t)
        if eb is None:
            raise self.error(op, f"{t.element_type} buffers are not supported")
        if space == LDS_SPACE:
            self.lds_top = (self.lds_top + 15) // 16 * 16
            self.env[op.memref] = LdsMem(self.lds_top, shape, eb)
            self.lds_top += math.prod(shape) * eb
            if self.lds_top > self.arch.lds_bytes:
                raise self.error(op, f"LDS buffers need {self.lds_top} bytes but {self.arch.name} has {self.arch.lds_bytes}")
        elif space == PRIVATE_SPACE:
            raise self.error(op, f"private buffer %{op.memref.name_hint or 'buffer'} left in the kernel; run "
                                 "unroll-loops and promote-private first (they turn register tiles into values)")
        else:
            raise self.error(op, f"allocation in memory space {space} is not supported")

    # -- memory -----------------------------------------------------------------------------------

    def _indices(self, op: Operation, idx: Sequence[SSAValue]) -> list[I]:
        return [self.ival(v, op) for v in idx]

    def linear(self, idx: list[I], sizes: list, scale: int) -> I:
        """sum(idx[i] * stride[i]) * scale, the strides from the sizes (ints or I)."""
        total: I | None = None
        stride = I(None, scale)
        for i in reversed(range(len(idx))):
            term = self.mul(idx[i], stride)
            total = term if total is None else self.add(total, term)
            if i > 0:
                s = sizes[i]
                stride = self.mul(stride, s if isinstance(s, I) else I(None, s))
        return total if total is not None else I(None, 0)

    def split(self, x: I, lo: int, hi: int) -> tuple[SSAValue | None, int, int]:
        """(register part or None, immediate offset, alignment of the register part):
        the constant part goes to the offset field when it fits."""
        if lo <= x.const <= hi:
            return x.reg, x.const, x.align if x.reg is not None else 1 << 30
        return self.mat(x), 0, x.total_align()

    def _global_access(self, op: Operation, mem: GlobalMem, idx: list[I], n: int):
        """(mnemonic suffix, address operands, operands after the data, offset)."""
        lo, hi = self.isa.global_offset_min, self.isa.global_offset_max
        if self.opts.saddr and mem.static_bytes is not None and mem.static_bytes < 1 << 31:
            r, c, _ = self.split(self.linear(idx, mem.sizes, mem.elem_bytes), lo, hi)
            voff = self.to_vgpr(r if r is not None else self.const(0))
            return "_saddr", [voff], [mem.base], c
        el = self.linear(idx, mem.sizes, 1)
        eb = mem.elem_bytes
        if lo <= el.const * eb <= hi:
            r, c = el.reg, el.const * eb
        else:
            r, c = self.mat(el), 0
        ridx = self.to_vgpr(r if r is not None else self.const(0))
        carry = SpecialRegType("vcc" if self.isa.generation == "gfx9" else "null")
        addr = self.emit("v_mad_u64_u32", self.legal_vop3([ridx, self.const(eb), mem.base]), [self.V(2), carry])[0]
        return "", [addr], [], c

    def _lds_addr(self, op: Operation, mem: LdsMem, idx: list[I]) -> tuple[SSAValue, int, int]:
        off = self.add(self.linear(idx, mem.sizes, mem.elem_bytes), I(None, mem.offset))
        r, c, al = self.split(off, 0, self.isa.ds_offset_max)
        a = self.to_vgpr(r if r is not None else self.const(0))
        self.reg_align[a] = max(self.reg_align.get(a, 1), al)
        return a, c, al

    _G_SUFFIX = {1: "dword", 2: "dwordx2", 3: "dwordx3", 4: "dwordx4"}

    def _load(self, op: Operation, base: SSAValue, idx_vals: Sequence[SSAValue], n: int) -> object:
        mem = self.env.get(base)
        idx = self._indices(op, idx_vals)
        if isinstance(mem, (GlobalMem, LdsMem)) and mem.elem_bytes == 2:
            return self._load16(op, mem, idx, n)
        if isinstance(mem, (GlobalMem, LdsMem)) and mem.elem_bytes == 1:
            return self._load8(op, mem, idx, n)
        if isinstance(mem, GlobalMem):
            suffix, srcs, extra, c = self._global_access(op, mem, idx, n)
            r = self.e1(f"global_load_{self._G_SUFFIX[n]}{suffix}", srcs + extra, self.V(n), cse=False, offset=c)
        elif isinstance(mem, LdsMem):
            a, c, al = self._lds_addr(op, mem, idx)
            if n > 4:  # a matrix-core fragment: 16 bytes at a time
                elems: list = []
                for e in range(0, n, 4):
                    elems += self.vec_elems(self._lds_read(a, c + 4 * e, al, 4))
                return Vec(n, elems=tuple(elems))
            return self._lds_read(a, c, al, n)
        else:
            raise self.error(op, "load from an unknown memref")
        return F(r) if n == 1 else Vec(n, reg=r)

    def _load16(self, op: Operation, mem: GlobalMem | LdsMem, idx: list[I], n: int) -> H | Packed:
        """An element of a 16-bit buffer (zero-extended into a VGPR), or a vector of them from
        LDS packed two to a VGPR as the matrix instructions take them."""
        if n == 1 and isinstance(mem, GlobalMem):
            suffix, srcs, extra, c = self._global_access(op, mem, idx, 1)
            return H(self.e1(f"global_load_ushort{suffix}", srcs + extra, self.V(), cse=False, offset=c))
        if n == 1:
            a, c, _ = self._lds_addr(op, mem, idx)
            return H(self.e1("ds_read_u16", [a], self.V(), cse=False, offset=c))
        if isinstance(mem, GlobalMem):
            return self._packed_global_load(op, mem, idx, n)
        return self._packed_lds_load(op, mem, idx, n)

    def _packed_global_load(self, op: Operation, mem: GlobalMem, idx: list[I], n: int) -> Packed:
        """2, 4 or 8 16-bit elements as 1, 2 or 4 dwords (global_load_dword..x4), where the
        element offset is known to be a multiple of 4 bytes: each index a multiple (vectorize
        proved its width), or their sum (a peeled copy's aligned interior, gemmc.transforms.residues)."""
        aligned = self.ir_byte_multiple(op, mem.sizes, 2, 0) % 4 == 0 or \
            offset_is_multiple(op.base, op.indices, 2)  # type: ignore[attr-defined]
        if n not in (2, 4, 8) or not aligned:
            raise self.error(op, f"a vector load of {n} 16-bit elements from global memory is selected for 2, 4 or 8 "
                                 "elements at an offset known to be a multiple of 4 bytes")
        suffix, srcs, extra, c = self._global_access(op, mem, idx, n // 2)
        r = self.e1(f"global_load_{self._G_SUFFIX[n // 2]}{suffix}", srcs + extra, self.V(n // 2), cse=False, offset=c)
        return Packed(n, (r,) if n == 2 else tuple(self.part(r, i).reg for i in range(n // 2)))  # type: ignore[misc]

    def _load8(self, op: Operation, mem: GlobalMem | LdsMem, idx: list[I], n: int) -> E8 | Packed:
        """An element of an FP8 buffer (zero-extended into a VGPR: global_load_ubyte, ds_read_u8),
        or a vector of them packed four to a VGPR as the FP8 matrix instructions take them."""
        if n == 1 and isinstance(mem, GlobalMem):
            suffix, srcs, extra, c = self._global_access(op, mem, idx, 1)
            return E8(self.e1(f"global_load_ubyte{suffix}", srcs + extra, self.V(), cse=False, offset=c))
        if n == 1:
            a, c, _ = self._lds_addr(op, mem, idx)
            return E8(self.e1("ds_read_u8", [a], self.V(), cse=False, offset=c))
        if isinstance(mem, GlobalMem):
            return self._packed8_global_load(op, mem, idx, n)
        return self._packed8_lds_load(op, mem, idx, n)

    def _packed8_global_load(self, op: Operation, mem: GlobalMem, idx: list[I], n: int) -> Packed:
        """4, 8 or 16 FP8 elements as 1, 2 or 4 dwords (global_load_dword..x4) where the byte
        offset is known to be a multiple of 4 (as _packed_global_load proves it), 2 as one
        global_load_ushort where it is known even."""
        def aligned(m: int) -> bool:
            return self.ir_byte_multiple(op, mem.sizes, 1, 0) % m == 0 or \
                offset_is_multiple(op.base, op.indices, m)  # type: ignore[attr-defined]

        if n == 2 and aligned(2):
            suffix, srcs, extra, c = self._global_access(op, mem, idx, 1)
            return Packed(2, (self.e1(f"global_load_ushort{suffix}", srcs + extra, self.V(), cse=False, offset=c),), 1)
        if n not in (4, 8, 16) or not aligned(4):
            raise self.error(op, f"a vector load of {n} FP8 elements from global memory is selected for 4, 8 or 16 "
                                 "elements at an offset known to be a multiple of 4 bytes (2 at an even one)")
        suffix, srcs, extra, c = self._global_access(op, mem, idx, n // 4)
        r = self.e1(f"global_load_{self._G_SUFFIX[n // 4]}{suffix}", srcs + extra, self.V(n // 4), cse=False, offset=c)
        return Packed(n, (r,) if n == 4 else tuple(self.part(r, i).reg for i in range(n // 4)), 1)  # type: ignore[misc]

    def _packed8_lds_load(self, op: Operation, mem: LdsMem, idx: list[I], n: int) -> Packed:
        """n FP8 elements from LDS as n/4 dwords (ds_read_b128 / b64 where aligned, else ds_read_b32s)
        where the address is known to be a multiple of 4 bytes; else byte by byte (ds_read_u8),
        each four packed into a VGPR by shifts and ors: element 4i + b in byte b of dword i."""
        a, c, al = self._lds_addr16(op, mem, idx)
        if n % 4:
            raise self.error(op, f"a vector of {n} FP8 elements from LDS is selected for multiples of 4 elements "
                                 "(matrix operands are read four to a VGPR)")
        if al % 4 == 0 and c % 4 == 0:
            parts: list[SSAValue] = []
            for d in range(0, n // 4, 4):
                v = self._lds_read(a, c + 4 * d, al, min(4, n // 4 - d))
                parts += [e.reg for e in (self.vec_elems(v) if isinstance(v, Vec) else [v])]
            return Packed(n, tuple(parts), 1)
        loaded = [self.e1("ds_read_u8", [a], self.V(), cse=False, offset=c + e) for e in range(n)]
        return Packed(n, tuple(self.pack_bytes(loaded[i:i + 4]) for i in range(0, n, 4)), 1)

    def pack_bytes(self, b: Sequence[SSAValue]) -> SSAValue:
        """Four zero-extended bytes (b[0] lowest) in one VGPR: (b1 << 8 | b0) | (b3 << 8 | b2) << 16."""
        lo = self.vop3("v_lshl_or_b32", [b[1], self.const(8), b[0]])
        hi = self.vop3("v_lshl_or_b32", [b[3], self.const(8), b[2]])
        return self.vop3("v_lshl_or_b32", [hi, self.const(16), lo])

    def ir_byte_multiple(self, op: Operation, sizes: list, elem_bytes: int, base: int) -> int:
        """A number the byte offset of op's element (base + its indices' linear offset) is
        known to be a multiple of (0: the offset is 0), proved on the kernel IR's indices
        (lds_access.known_multiple: it sees through the swizzle's remainders, which the
        register values' alignments do not keep)."""
        from gemmc.transforms.lds_access import known_multiple

        total, stride = base, elem_bytes
        for i in reversed(range(len(op.indices))):  # type: ignore[attr-defined]
            total = math.gcd(total, known_multiple(op.indices[i]) * stride)  # type: ignore[attr-defined]
            s = sizes[i] if isinstance(sizes[i], int) else sizes[i].const if sizes[i].reg is None else 1
            stride *= s
        return total

    def _lds_addr16(self, op: Operation, mem: LdsMem, idx: list[I]) -> tuple[SSAValue, int, int]:
        """_lds_addr, with the register's alignment also from what the IR proves of the whole
        offset (the register is the offset less the immediate c)."""
        a, c, al = self._lds_addr(op, mem, idx)
        total = self.ir_byte_multiple(op, mem.sizes, mem.elem_bytes, mem.offset)
        known = math.gcd(total, c) if total else 1 << 30
        return a, c, max(al, known & -known)

    def _packed_lds_load(self, op: Operation, mem: LdsMem, idx: list[I], n: int) -> Packed:
        """n 16-bit elements from LDS as n/2 dwords (ds_read_b128 / b64 where aligned, else
        ds_read_b32s that load combining pairs up): element 2i in the low half of dword i."""
        a, c, al = self._lds_addr16(op, mem, idx)
        if n % 2 or al % 4 or c % 4:
            raise self.error(op, f"a vector of {n} 16-bit elements from LDS at an address not known to be a "
                                 "multiple of 4 bytes is not selected (matrix operands are read in pairs)")
        parts: list[SSAValue] = []
        for d in range(0, n // 2, 4):
            v = self._lds_read(a, c + 4 * d, al, min(4, n // 2 - d))
            parts += [e.reg for e in (self.vec_elems(v) if isinstance(v, Vec) else [v])]
        return Packed(n, tuple(parts))

    def _lds_read(self, a: SSAValue, c: int, al: int, n: int) -> F | Vec:
        """n dwords from LDS at register a + offset c (a known to be a multiple of al): one
        ds_read_b{32n} where the address is n-dword aligned, else one ds_read_b32 per dword."""
        if n > 1 and (n == 3 or al % (4 * n) != 0 or c % (4 * n) != 0):
            parts = [self.e1("ds_read_b32", [a], self.V(), cse=False, offset=c + 4 * e) for e in range(n)]
            return Vec(n, elems=tuple(F(p) for p in parts))
        r = self.e1(f"ds_read_b{32 * n}", [a], self.V(n), cse=False, offset=c)
        return F(r) if n == 1 else Vec(n, reg=r)

    def _store(self, op: Operation, value: object, base: SSAValue, idx_vals: Sequence[SSAValue], n: int) -> None:
        mem = self.env.get(base)
        idx = self._indices(op, idx_vals)
        if isinstance(value, H):
            self._store16(op, value, mem, idx)
            return
        if isinstance(value, E8):
            self._store8(op, value, mem, idx)
            return
        if n == 1:
            assert isinstance(value, F)
            data = self.fvgpr(value)
        else:
            data = self.vec_range(value)  # type: ignore[arg-type]
        if isinstance(mem, GlobalMem):
            suffix, srcs, extra, c = self._global_access(op, mem, idx, n)
            self.emit(f"global_store_{self._G_SUFFIX[n]}{suffix}", srcs + [data] + extra, [], cse=False, offset=c)
        elif isinstance(mem, LdsMem):
            a, c, al = self._lds_addr(op, mem, idx)
            if n > 1 and (n == 3 or al % (4 * n) != 0 or c % (4 * n) != 0):
                for e in range(n):
                    part = self.insert(ExtractOp(data, e, self.V())).results[0]
                    self.emit("ds_write_b32", [a, part], [], cse=False, offset=c + 4 * e)
                return
            self.emit(f"ds_write_b{32 * n}", [a, data], [], cse=False, offset=c)
        else:
            raise self.error(op, "store to an unknown memref")

    def low_half(self, x: H) -> SSAValue:
        """x's bits in the low half of a VGPR."""
        if x.reg is None:
            return self.to_vgpr(self.const(x.bits))  # type: ignore[arg-type]
        return self.vop2("v_lshrrev_b32", self.const(16), x.reg, False) if x.high else x.reg

    def _store16(self, op: Operation, value: H, mem: object, idx: list[I]) -> None:
        """One element of a 16-bit buffer: the low half of its VGPR (into LDS also the high
        half, ds_write_b16_d16_hi, as LLVM stores the odd elements of a vector)."""
        if isinstance(mem, LdsMem) and value.high:
            a, c, _ = self._lds_addr(op, mem, idx)
            self.emit("ds_write_b16_d16_hi", [a, value.reg], [], cse=False, offset=c)  # type: ignore[list-item]
            return
        data = self.low_half(value)
        if isinstance(mem, GlobalMem):
            suffix, srcs, extra, c = self._global_access(op, mem, idx, 1)
            self.emit(f"global_store_short{suffix}", srcs + [data] + extra, [], cse=False, offset=c)
        elif isinstance(mem, LdsMem):
            a, c, _ = self._lds_addr(op, mem, idx)
            self.emit("ds_write_b16", [a, data], [], cse=False, offset=c)
        else:
            raise self.error(op, "store to an unknown memref")

    def low_byte(self, x: E8) -> SSAValue:
        """x's bits in the low byte of a VGPR (the bytes above not cleared)."""
        if x.reg is None:
            return self.to_vgpr(self.const(x.bits))  # type: ignore[arg-type]
        return self.vop2("v_lshrrev_b32", self.const(8 * x.byte), x.reg, False) if x.byte else x.reg

    def _ds_write_byte(self, a: SSAValue, c: int, x: E8) -> None:
        """One FP8 element into LDS: ds_write_b8 of its low byte (the third byte of a packed word
        with ds_write_b8_d16_hi, no shift)."""
        if x.reg is not None and x.byte == 2:
            self.emit("ds_write_b8_d16_hi", [a, x.reg], [], cse=False, offset=c)
        else:
            self.emit("ds_write_b8", [a, self.low_byte(x)], [], cse=False, offset=c)

    def _store8(self, op: Operation, value: E8, mem: object, idx: list[I]) -> None:
        """One element of an FP8 buffer: its byte (ds_write_b8, global_store_byte)."""
        if isinstance(mem, LdsMem):
            a, c, _ = self._lds_addr(op, mem, idx)
            self._ds_write_byte(a, c, value)
        elif isinstance(mem, GlobalMem):
            data = self.low_byte(value)
            suffix, srcs, extra, c = self._global_access(op, mem, idx, 1)
            self.emit(f"global_store_byte{suffix}", srcs + [data] + extra, [], cse=False, offset=c)
        else:
            raise self.error(op, "store to an unknown memref")

    def _packed_lds_store(self, op: vector.StoreOp, v: Packed) -> None:
        """A 16-bit (FP8) vector into LDS as its n/2 (n/4) dwords (ds_write_b64 / b128 where aligned,
        else ds_write_b32s), at an address known to be a multiple of 4 bytes; an FP8 vector at
        another address byte by byte (ds_write_b8, the third of each word ds_write_b8_d16_hi)."""
        mem = self.env.get(op.base)
        unit = "16-bit" if v.elem_bytes == 2 else "FP8"
        if not isinstance(mem, LdsMem):
            raise self.error(op, f"vector stores of {unit} elements are selected into LDS only")
        a, c, al = self._lds_addr16(op, mem, self._indices(op, op.indices))
        nd = len(v.parts)
        if (al % 4 or c % 4) and v.elem_bytes == 1:
            for e in range(v.n):
                self._ds_write_byte(a, c + e, E8(v.parts[e // 4], byte=e % 4))
            return
        if al % 4 or c % 4:
            raise self.error(op, f"a vector of {v.n} 16-bit elements into LDS at an address not known to be a "
                                 "multiple of 4 bytes is not selected")
        if nd in (2, 4) and al % (4 * nd) == 0 and c % (4 * nd) == 0:
            data = self.whole_packed(v) or self.insert(ConcatOp(self.packed_pieces(v), self.V(nd))).results[0]
            self.emit(f"ds_write_b{32 * nd}", [a, data], [], cse=False, offset=c)
            return
        for e, part in enumerate(v.parts):
            self.emit("ds_write_b32", [a, part], [], cse=False, offset=c + 4 * e)

    def part(self, reg: SSAValue, e: int) -> F:
        """Register e of range reg, as an f32 value that remembers where it came from."""
        r = self.insert(ExtractOp(reg, e, type(reg.type).unallocated(1))).results[0]
        self.part_of[r] = (reg, e)
        return F(r)

    def vec_elems(self, v: Vec) -> list:
        return list(v.elems) if v.elems is not None else [self.part(v.reg, e) for e in range(v.n)]  # type: ignore[arg-type]

    def whole(self, v: Vec) -> SSAValue | None:
        """The range v is made of, when its elements are that range's registers in order (an
        accumulator stored to and loaded from a register tile): no moves needed."""
        if v.reg is not None:
            return v.reg
        parts = [self.part_of.get(e.reg) if isinstance(e, F) and e.reg is not None else None for e in v.elems]  # type: ignore[union-attr]
        if parts[0] is None:
            return None
        r = parts[0][0]
        ok = r.type.n == v.n and all(p == (r, i) for i, p in enumerate(parts))  # type: ignore[attr-defined]
        return r if ok else None

    def vec_range(self, v: Vec) -> SSAValue:
        r = self.whole(v)
        if r is not None:
            return r
        parts = [self.fvgpr(e) for e in v.elems]  # type: ignore[union-attr]
        return self.insert(ConcatOp(parts, self.V(v.n))).results[0]

    def _memref_load(self, op: memref.LoadOp) -> None:
        self.env[op.res] = self._load(op, op.memref, op.indices, 1)

    def _memref_store(self, op: memref.StoreOp) -> None:
        v = self.env.get(op.value)
        if not isinstance(v, (F, H, E8)):
            raise self.error(op, "stores of f32, f16, bf16 and FP8 values only")
        self._store(op, v, op.memref, op.indices, 1)

    def _vector_load(self, op: vector.LoadOp) -> None:
        t = op.result.type
        n = t.get_shape()[0]  # type: ignore[attr-defined]
        mem = self.env.get(op.base)
        if isinstance(mem, (GlobalMem, LdsMem)) and mem.elem_bytes in (1, 2) and t.get_num_dims() == 1:  # type: ignore[attr-defined]
            self.env[op.result] = self._load(op, op.base, op.indices, n)
            return
        lds_fragment = isinstance(mem, LdsMem) and n % 4 == 0  # matrix-core fragments: 16-byte pieces
        if t.get_num_dims() != 1 or not (n in (2, 3, 4) or lds_fragment):  # type: ignore[attr-defined]
            raise self.error(op, f"vector loads of {t} are not supported")
        self.env[op.result] = self._load(op, op.base, op.indices, n)

    def _vector_store(self, op: vector.StoreOp) -> None:
        v = self.env.get(op.vector)
        if isinstance(v, Packed):
            self._packed_lds_store(op, v)
            return
        if not isinstance(v, Vec):
            raise self.error(op, "expects a vector value")
        self._store(op, v, op.base, op.indices, v.n)

    def _broadcast(self, op: vector.BroadcastOp) -> None:
        x = self.env.get(op.source)
        n = op.vector.type.get_shape()[0]  # type: ignore[attr-defined]
        if isinstance(x, H) and n % 2 == 0:
            self.env[op.vector] = Packed(n, (self.half_pair(x),) * (n // 2))
            return
        if isinstance(x, E8) and n % 4 == 0:
            self.env[op.vector] = Packed(n, (self.byte_quad(x),) * (n // 4), 1)
            return
        if not isinstance(x, F):
            raise self.error(op, "broadcast of f32 only")
        self.env[op.vector] = Vec(n, elems=tuple([x] * n))

    def half_pair(self, x: H) -> SSAValue:
        """A VGPR holding x in both halves (a 16-bit vector.broadcast)."""
        if x.reg is None:
            return self.to_vgpr(self.const(x.bits | x.bits << 16))  # type: ignore[operator]
        low = self.vop2("v_and_b32", self.const(0xFFFF), self.low_half(x), True)
        return self.vop3("v_lshl_or_b32", [low, self.const(16), low])

    def byte_quad(self, x: E8) -> SSAValue:
        """A VGPR holding x in all four bytes (an FP8 vector.broadcast)."""
        if x.reg is None:
            return self.to_vgpr(self.const(x.bits * 0x01010101))  # type: ignore[operator]
        low = self.vop2("v_and_b32", self.const(0xFF), self.low_byte(x), True)
        pair = self.vop3("v_lshl_or_b32", [low, self.const(8), low])
        return self.vop3("v_lshl_or_b32", [pair, self.const(16), pair])

    def _extract(self, op: vector.ExtractOp) -> None:
        v = self.env.get(op.vector)
        pos = list(op.static_position.get_values())
        if isinstance(v, Packed) and v.elem_bytes == 1:
            if len(pos) != 1 or not 0 <= pos[0] < v.n or op.dynamic_position:
                raise self.error(op, "vector.extract of an FP8 vector with a constant position only")
            # element 4i + b in byte b of VGPR i (shifted down where it is used so)
            self.env[op.result] = E8(v.parts[pos[0] // 4], byte=pos[0] % 4)
            return
        if isinstance(v, Packed):
            if len(pos) != 1 or not 0 <= pos[0] < v.n or op.dynamic_position:
                raise self.error(op, "vector.extract of a 16-bit vector with a constant position only")
            # element 2i in the low half, 2i+1 in the high half (shifted down where it is used so)
            self.env[op.result] = H(v.parts[pos[0] // 2], high=pos[0] % 2 == 1)
            return
        if not isinstance(v, Vec) or len(pos) != 1 or pos[0] < 0 or op.dynamic_position:
            raise self.error(op, "vector.extract with a constant position only")
        if v.elems is not None:
            self.env[op.result] = v.elems[pos[0]]
            return
        self.env[op.result] = self.part(v.reg, pos[0])  # type: ignore[arg-type]

    def _insert_elem(self, op: vector.InsertOp) -> None:
        """No instruction: the vector's elements with one replaced (promote-private builds the
        register tile's vectors this way)."""
        v, x = self.env.get(op.dest), self.env.get(op.source)
        pos = list(op.static_position.get_values())
        if not isinstance(v, Vec) or not isinstance(x, F) or len(pos) != 1 or pos[0] < 0 or op.dynamic_position:
            raise self.error(op, "vector.insert of an f32 at a constant position only")
        elems = self.vec_elems(v)
        elems[pos[0]] = x
        self.env[op.result] = Vec(v.n, elems=tuple(elems))

    def _poison(self, op: PoisonOp) -> None:
        """An undefined value (an element of a register tile read before it is written): registers
        with no instruction writing them."""
        t = op.result.type
        if isinstance(t, VectorType) and t.get_num_dims() == 1 and t.element_type == Float32Type():
            n = t.get_shape()[0]
            self.env[op.result] = Vec(n, reg=self.insert(UndefOp(self.V(n))).results[0])
        elif t == Float32Type():
            self.env[op.result] = F(self.insert(UndefOp(self.V())).results[0])
        else:
            raise self.error(op, f"ub.poison of {t} is not selected")

    def _shuffle(self, op: vector.ShuffleOp) -> None:
        """Registers picked, no instruction (RDNA4's fragments: two runs of four f32 put
        together before they are rounded to 16 bits)."""
        v1, v2 = self.env.get(op.v1), self.env.get(op.v2)
        mask = list(op.mask.get_values())
        if isinstance(v1, Packed) and isinstance(v2, Packed) and v1.elem_bytes == v2.elem_bytes:
            self.env[op.result] = self._shuffle_packed(op, v1, v2, mask)
            return
        if not (isinstance(v1, Vec) and isinstance(v2, Vec)) or min(mask) < 0:
            raise self.error(op, "vector.shuffle is selected for f32 vectors with a defined mask only")
        elems = self.vec_elems(v1) + self.vec_elems(v2)
        self.env[op.result] = Vec(len(mask), elems=tuple(elems[i] for i in mask))

    def _shuffle_packed(self, op: vector.ShuffleOp, v1: Packed, v2: Packed, mask: list[int]) -> Packed:
        """16-bit (FP8) vectors put together a VGPR at a time: a whole source VGPR where the mask
        takes one as it is (gfx12's fragments: two runs of four f16 read from LDS), else
        v_perm_b32 picking the bytes of at most two source VGPRs (a copy's blocks transposed in
        registers: element c of two rows)."""
        if min(mask) < 0:
            raise self.error(op, f"vector.shuffle with mask {mask} is not selected: it must not leave elements undefined")
        k = v1.per_reg
        out = []
        for start in range(0, len(mask), k):
            places = [self._packed_place(v1, v2, e) for e in mask[start:start + k]]
            whole = [(reg, pos) for reg, pos in places] == [(places[0][0], i) for i in range(k)]
            out.append(places[0][0] if whole else self._perm(op, places, v1.elem_bytes))
        return Packed(len(mask), tuple(out), v1.elem_bytes)

    @staticmethod
    def _packed_place(v1: Packed, v2: Packed, e: int) -> tuple:
        """The VGPR holding element e of v1 ++ v2, and the element's place in it."""
        v, i = (v1, e) if e < v1.n else (v2, e - v1.n)
        return v.parts[i // v.per_reg], i % v.per_reg

    def _perm(self, op: Operation, places: list, elem_bytes: int) -> SSAValue:
        """One VGPR of the given elements (a VGPR and a place each; the rest zero): v_perm_b32
        D, S0, S1, sel takes byte b of D from byte sel_b of {S0, S1} (0-3: S1, 4-7: S0, 12: 0)."""
        regs = list(dict.fromkeys(reg for reg, _ in places))
        if len(regs) > 2:
            raise self.error(op, f"vector.shuffle is selected where each VGPR of its result takes elements of at "
                                 f"most two source VGPRs; one takes {len(regs)}")
        sel = [12, 12, 12, 12]
        for i, (reg, pos) in enumerate(places):
            for b in range(elem_bytes):
                sel[i * elem_bytes + b] = pos * elem_bytes + b + 4 * regs.index(reg)
        word = sel[0] | sel[1] << 8 | sel[2] << 16 | sel[3] << 24
        return self.vop3("v_perm_b32", [regs[-1], regs[0], self.const(word)])

    def _matrix(self, op: MFMAOp | WMMAOp) -> None:
        """v_mfma / v_wmma D, A, B, C: A and B in VGPRs (f32: one per item; f16/bf16: packed
        pairs, one range per fragment), C a range that the allocator may give D too (an
        accumulation chain stays in its registers).  An MFMA's C may be AGPRs
        (accumulators=agpr), and the first MFMA of a chain adds to an inline 0; a WMMA's C is
        VGPRs, and the first of a chain adds to zeroed registers."""
        instr = op.instr_on(self.arch)
        assert instr is not None  # _refuse_unselected checked it
        operand = self._vgpr_operand if instr.kind == "mfma" else self.packed_range
        a, b = (operand(v, op) for v in (op.sourceA, op.sourceB))
        c = self.env.get(op.destC)
        if not isinstance(c, Vec):
            raise self.error(op, "expects a vector accumulator")
        agpr = instr.kind == "mfma" and self.opts.accumulators == "agpr"
        if instr.kind == "mfma" and c.elems is not None and all(
                isinstance(e, F) and e.const is not None and f32_bits(e.const) == 0 for e in c.elems):
            acc = self.const(0.0)  # no zeroed registers
        else:
            acc = self.agpr_range(c) if agpr else self.vec_range(c)
        d = self.e1(matrix_op_name(self.arch, instr), [a, b, acc],
                    (AGPRType if agpr else VGPRType).unallocated(instr.c_regs), cse=False)
        self.env[op.destD] = Vec(instr.c_regs, reg=d)

    def _truncf(self, op: arith.TruncFOp) -> None:
        """f32 vector -> f16 or bf16 vector, packed two per VGPR, rounded to nearest even as
        arith.truncf rounds."""
        src, t = self.env.get(op.input), op.result.type
        if _fp8_name(t) is not None:
            raise self.error(op, f"truncf to {t} is not selected (no f32 -> FP8 conversion: v_cvt_pk_fp8_f32); "
                                 "FP8 fragments are read from FP8 buffers")
        if isinstance(src, F) and isinstance(t, (Float16Type, BFloat16Type)):
            self.env[op.result] = self._round_to_half(src, t)
            return
        if not (isinstance(src, Vec) and src.n % 2 == 0 and isinstance(t, VectorType)
                and isinstance(t.element_type, (Float16Type, BFloat16Type))):
            raise self.error(op, f"truncf to {t} is not selected; only f32 vectors of even length to f16 or bf16 are")
        pack = self.pack_f16 if isinstance(t.element_type, Float16Type) else self.pack_bf16
        elems = self.vec_elems(src)
        self.env[op.result] = Packed(src.n, tuple(pack(lo, hi) for lo, hi in zip(elems[::2], elems[1::2])))

    def _round_to_half(self, x: F, t: Float16Type | BFloat16Type) -> H:
        """An f32 rounded to f16 (v_cvt_f16_f32) or bf16 (integer rounding, the upper half
        shifted down), to nearest even, in the low half of a VGPR (C stored as f16 / bf16)."""
        if x.reg is None:
            return H(bits=_half_bits(float(x.const), t))  # type: ignore[arg-type]
        if isinstance(t, Float16Type):
            return H(self.e1("v_cvt_f16_f32", [self.fmat(x)], self.V()))
        return H(self.vop2("v_lshrrev_b32", self.const(16), self.round_bf16(x), False))

    def _extf(self, op: arith.ExtFOp) -> None:
        """f16 (v_cvt_f32_f16) or bf16 (its bits in the upper half) -> f32, exactly."""
        x, t = self.env.get(op.input), op.input.type
        if isinstance(x, E8) or isinstance(x, Packed) and x.elem_bytes == 1:
            raise self.error(op, f"extf of {t} to {op.result.type} is not selected (FP8 values reach the matrix "
                                 "instructions only; use a pipeline with matrix-cores, or the HIP path)")
        if not isinstance(x, H) or op.result.type != Float32Type():
            raise self.error(op, f"extf of {t} to {op.result.type} is not selected; f16 and bf16 to f32 are")
        if x.reg is None:
            self.env[op.result] = F(const=_half_value(x.bits, t))  # type: ignore[arg-type]
        elif isinstance(t, Float16Type):
            self.env[op.result] = F(self.e1("v_cvt_f32_f16", [self.low_half(x)], self.V()))
        elif x.high:  # a bf16 in the high half is that f32 with its low bits cleared
            self.env[op.result] = F(self.vop2("v_and_b32", self.const(0xFFFF0000), x.reg, True))
        else:
            self.env[op.result] = F(self.vop2("v_lshlrev_b32", self.const(16), x.reg, False))

    def pack_f16(self, lo: F, hi: F) -> SSAValue:
        if lo.reg is None and hi.reg is None:
            import numpy as np

            bits = np.array([lo.const, hi.const], np.float32).astype(np.float16).view(np.uint32)[0]
            return self.to_vgpr(self.const(int(bits)))
        halves = [self.e1("v_cvt_f16_f32", [self.fmat(x)], self.V()) for x in (lo, hi)]
        return self.vop3("v_pack_b32_f16", halves)

    def pack_bf16(self, lo: F, hi: F) -> SSAValue:
        """Each f32 rounded to bf16 in its upper half, then lo's upper half below hi's."""
        if lo.reg is None and hi.reg is None:
            import numpy as np

            from gemmc.support.arith_semantics import to_bf16

            halves = to_bf16(np.array([lo.const, hi.const], np.float32)).view(np.uint32) >> np.uint32(16)
            return self.to_vgpr(self.const(int(halves[0] | halves[1] << np.uint32(16))))
        rlo, rhi = self.round_bf16(lo), self.round_bf16(hi)
        low = self.vop2("v_lshrrev_b32", self.const(16), rlo, False)
        high = self.vop2("v_and_b32", self.const(0xFFFF0000), rhi, True)
        return self.vop2("v_or_b32", low, high, True)

    def round_bf16(self, x: F) -> SSAValue:
        """x's f32 bits rounded at bit 16 to nearest even (+ 0x7fff + the lowest kept bit);
        a NaN stays a NaN, made quiet (| 0x400000), as LLVM's expansion does."""
        u = self.fvgpr(x)
        lsb = self.vop3("v_bfe_u32", [u, self.const(16), self.const(1)])
        rounded = self.vop3("v_add3_u32", [u, self.const(0x7FFF), lsb])
        quiet = self.vop2("v_or_b32", self.const(0x400000), u, True)
        nan = self.vop3("v_cmp_u_f32", [u, u], self.S(self.mask_n))
        return self.e1("v_cndmask_b32", [rounded, quiet, nan], self.V())

    def packed_range(self, v: SSAValue, op: Operation) -> SSAValue:
        x = self.env.get(v)
        if not isinstance(x, Packed):
            raise self.error(op, f"expects packed 16-bit operands (arith.truncf of an f32 vector), not {v.type}")
        r = self.packed_ranges.get(x) or self.whole_packed(x)
        if r is None:  # one range per fragment, however many instructions read it
            frame = max(self.def_frame.get(q, 0) for q in x.parts)  # (where the parts are, so it dominates)
            r = self.insert(ConcatOp(self.packed_pieces(x), self.V(len(x.parts))), frame).results[0]
            self.packed_ranges[x] = r
        return r

    def whole_packed(self, x: Packed) -> SSAValue | None:
        """The range a packed vector's VGPRs are, in order (a fragment read from LDS by one
        ds_read_b64 / b128): the matrix instruction reads it where it is, no moves."""
        parts = [self.part_of.get(p) for p in x.parts]
        if parts[0] is None:
            return None
        r = parts[0][0]
        return r if r.type.n == len(parts) and all(p == (r, i) for i, p in enumerate(parts)) else None  # type: ignore[attr-defined]

    def packed_pieces(self, x: Packed) -> list[SSAValue]:
        """x's VGPRs for an amdgcn.concat, runs that are a whole loaded range given as that
        range (a 16-element fragment read by two ds_read_b128): the allocator places the
        loads in the concat's registers, where single extracted registers would be moved."""
        pieces: list[SSAValue] = []
        i = 0
        while i < len(x.parts):
            src = self.part_of.get(x.parts[i])
            n = src[0].type.n if src is not None and src[1] == 0 else 0  # type: ignore[attr-defined]
            if n and i + n <= len(x.parts) and all(self.part_of.get(x.parts[i + j]) == (src[0], j) for j in range(n)):
                pieces.append(src[0])  # type: ignore[index]
                i += n
            else:
                pieces.append(x.parts[i])
                i += 1
        return pieces

    def agpr_range(self, v: Vec) -> SSAValue:
        """v in an AGPR range: itself where it is one, else its elements written in: inline
        constants and AGPRs by the moves of an amdgcn.concat, VGPRs through v_accvgpr_write."""
        whole = self.whole(v)
        if whole is not None and isinstance(whole.type, AGPRType):
            return whole
        parts = []
        for e in self.vec_elems(v):
            x = self.fmat(e)
            if not (isinstance(x.type, AGPRType) or self.is_imm(x) and self.literal_ok(x)):
                x = self.e1("v_accvgpr_write_b32", [self.fvgpr(e)], AGPRType.unallocated(1))
            parts.append(x)
        return self.insert(ConcatOp(parts, AGPRType.unallocated(v.n))).results[0]

    def _vgpr_operand(self, v: SSAValue, op: Operation) -> SSAValue:
        x = self.env.get(v)
        if isinstance(x, Packed):  # f16 fragments
            return self.packed_range(v, op)
        if isinstance(x, Vec):
            return self.vec_range(x)
        return self.fvgpr(self.fval(v, op))

    # -- control flow --------------------------------------------------------------------------

    def _for(self, op: scf.ForOp) -> None:
        lb, ub, st = (self.ival(v, op) for v in (op.lb, op.ub, op.step))
        if st.is_const and st.const <= 0:
            raise self.error(op, f"loop step {st.const} must be positive")
        if not (lb.uniform and ub.uniform and st.uniform):
            raise self.error(op, "loops with lane-varying bounds are not supported")
        self._scalar_loop(op, lb, ub, st)

    def _reg_type_of(self, v: object, op: Operation):
        if isinstance(v, (F, H, E8)):
            return self.V()
        if isinstance(v, I):
            return self.V()
        if isinstance(v, Vec):
            return self.V(v.n)
        if isinstance(v, Packed):
            return self.V(len(v.parts))
        raise self.error(op, "loop-carried or branch-result booleans are not supported")

    def _materialize(self, v: object, t: Attribute, op: Operation, fresh: bool) -> SSAValue:
        """v in a register of type t; with fresh=True a new value (a copy if need be)."""
        if isinstance(v, Vec) and isinstance(t, AGPRType):
            r = self.agpr_range(v)
            if not fresh or isinstance(r.owner, ConcatOp):
                return r
        elif isinstance(v, Vec):
            whole = self.whole(v)
            if whole is not None:
                r = whole
            else:
                parts = [self.fvgpr(e) for e in v.elems]  # type: ignore[union-attr]
                return self.insert(ConcatOp(parts, t)).results[0]
        elif isinstance(v, F):
            if v.reg is None:
                return self.e1("v_mov_b32", [self.const(float(v.const))], t, cse=False)  # type: ignore[arg-type]
            r = v.reg
        elif isinstance(v, H):
            if v.reg is None:
                return self.e1("v_mov_b32", [self.const(v.bits)], t, cse=False)  # type: ignore[arg-type]
            r = self.low_half(v)
        elif isinstance(v, E8):
            if v.reg is None:
                return self.e1("v_mov_b32", [self.const(v.bits)], t, cse=False)  # type: ignore[arg-type]
            r = self.low_byte(v)
        elif isinstance(v, Packed):
            whole = self.whole_packed(v)
            if whole is None:
                return self.insert(ConcatOp(self.packed_pieces(v), t)).results[0]
            r = whole
        elif isinstance(v, I):
            if v.reg is None or v.const != 0:
                m = self.mat(v)
                if self.is_imm(m):
                    mn = "v_mov_b32" if isinstance(t, VGPRType) else "s_mov_b32"
                    return self.e1(mn, [m], t, cse=False)
                r = m
            else:
                r = v.reg
        else:
            raise self.error(op, "cannot carry this value in a register")
        if isinstance(t, VGPRType) and not self.is_v(r):
            mov = "v_accvgpr_read_b32" if isinstance(r.type, AGPRType) else "v_mov_b32"
            return self.e1(mov, [r], t, cse=False)
        if not fresh:
            return r
        return self.insert(CopyOp(r, t)).results[0]

    def _wrap(self, v: object, reg: SSAValue) -> object:
        if isinstance(v, F):
            return F(reg)
        if isinstance(v, H):
            return H(reg)
        if isinstance(v, E8):
            return E8(reg)
        if isinstance(v, Packed):
            k = len(v.parts)
            return Packed(v.n, tuple(self.part(reg, i).reg for i in range(k)) if k > 1 else (reg,), v.elem_bytes)  # type: ignore[misc]
        if isinstance(v, I):
            return I(reg)
        if isinstance(v, Vec):
            return Vec(v.n, reg=reg)
        raise AssertionError

    def _scalar_loop(self, op: scf.ForOp, lb: I, ub: I, st: I) -> None:
        """An amdgcn.for carrying op's iter_args."""
        entry_vals = [self.env[v] for v in op.iter_args]
        types = [self._reg_type_of(v, op) for v in entry_vals]
        for i in self._agpr_carried(op):
            types[i] = AGPRType.unallocated(entry_vals[i].n)  # type: ignore[union-attr]
        inits = [self._materialize(v, t, op, fresh=True) for v, t in zip(entry_vals, types)]
        lbv, ubv, stv = (self.mat(x) for x in (lb, ub, st))
        body = Block(arg_types=[self.S(), *types])
        body.args[0].name_hint = op.body.block.args[0].name_hint
        self.push(body)
        bound = ub.const if ub.is_const else ub.bound
        self.env[op.body.block.args[0]] = I(body.args[0], 0, bound)
        for a, v, arg in zip(op.body.block.args[1:], entry_vals, body.args[1:]):
            self.env[a] = self._wrap(v, arg)
        yielded: list = []
        for inner in op.body.block.ops:
            if isinstance(inner, scf.YieldOp):
                yielded = [self.env[v] for v in inner.operands]
            else:
                self.lower_op(inner)
        outs = [self._materialize(v, t, op, fresh=True) for v, t in zip(yielded, types)]
        self.insert(YieldOp(*outs))
        self.finish_block(body)
        self.pop()
        nonempty = lb.is_const and ub.is_const and lb.const < ub.const
        loop = self.insert(ForOp(lbv, ubv, stv, inits, Region(body), nonempty=nonempty))
        if ROLE_ATTR in op.attributes:
            loop.attributes[ROLE_ATTR] = op.attributes[ROLE_ATTR]
        for r, v, lr in zip(op.results, entry_vals, loop.results):
            self.env[r] = self._wrap(v, lr)

    def _agpr_carried(self, op: scf.ForOp) -> list[int]:
        """With accumulators=agpr: the carried vectors that an MFMA in the loop takes as its C
        (the accumulator tile, promoted to values): they go around the loop in AGPRs."""
        if self.opts.accumulators != "agpr":
            return []
        args = op.body.block.args[1:]
        accs = {m.destC for m in op.body.walk() if isinstance(m, MFMAOp)}
        return [i for i, a in enumerate(args) if a in accs and isinstance(a.type, VectorType)]

    def _if(self, op: scf.IfOp) -> None:
        c = self.env.get(op.cond)
        if not isinstance(c, B):
            raise self.error(op, "expects an i1 condition")
        if c.const is not None:
            region = op.true_region if c.const else op.false_region
            if region.blocks:
                for inner in region.block.ops:
                    if isinstance(inner, scf.YieldOp):
                        for r, v in zip(op.results, inner.operands):
                            self.env[r] = self.env[v]
                    else:
                        self.lower_op(inner)
            return
        divergent = c.mask

        def branch(region: Region):
            blk = Block()
            self.push(blk)
            ys: list = []
            if region.blocks:
                for inner in region.block.ops:
                    if isinstance(inner, scf.YieldOp):
                        ys = [self.env[v] for v in inner.operands]
                    else:
                        self.lower_op(inner)
            self.pop()
            return blk, ys

        tb, t_vals = branch(op.true_region)
        eb, e_vals = branch(op.false_region)
        types = []
        for tv, ev in zip(t_vals, e_vals):
            t = self._reg_type_of(tv, op)
            if not divergent and isinstance(tv, I) and isinstance(ev, I) and tv.uniform and ev.uniform:
                t = self.S()
            types.append(t)
        # `if (c) v = load else v = 0` under EXEC: the else values (no instructions of their own)
        # initialise the results in all lanes before the branch, and there is no else branch
        inits_form = divergent and bool(types) and not list(eb.ops)
        inits: list[SSAValue] = []
        if inits_form:
            inits = [self._materialize(v, t, op, fresh=True) for v, t in zip(e_vals, types)]
        for blk, vals in ((tb, t_vals), (eb, e_vals)):
            if inits_form and blk is eb:
                continue
            self.push(blk)
            outs = [self._materialize(v, t, op, fresh=True) for v, t in zip(vals, types)]
            self.insert(YieldOp(*outs))
            self.finish_block(blk)
            self.pop()
        if divergent:
            mask = self.insert(CopyOp(c.reg, self.S(self.mask_n))).results[0]  # type: ignore[arg-type]
            new = self.insert(IfOp(mask, types, Region(tb), Region() if inits_form else Region(eb), inits))
        else:
            new = self.insert(IfUniformOp(c.reg, types, Region(tb), Region(eb)))  # type: ignore[arg-type]
        for r, tv, nr in zip(op.results, t_vals, new.results):
            self.env[r] = self._wrap(tv, nr)


# -- after a block is selected: combine LDS loads, hoist loads ----------------------------------


def _is_ds_read1(op: Operation) -> bool:
    return isinstance(op, GcnInstruction) and op.MNEMONIC == "ds_read_b32"


def _is_load(op: Operation) -> bool:
    return isinstance(op, GcnInstruction) and op.FORM.fmt in ("DS", "GLOBAL") and bool(op.dsts)


def _is_memory_or_sync(op: Operation) -> bool:
    if op.regions or isinstance(op, YieldOp):
        return True
    return isinstance(op, GcnInstruction) and (
        op.FORM.fmt in ("SMEM", "DS", "GLOBAL") or op.MNEMONIC in ("s_barrier", "s_waitcnt", "s_endpgm"))


def _finish_block(self: _KernelLowering, block: Block) -> None:
    if self.opts.combine_loads:
        _combine_ds_reads(self, block)
        _combine_global_loads(self, block)
    if self.opts.hoist_loads > 0:
        _hoist_loads(block, self.opts.hoist_loads)


def _combine_ds_reads(self: _KernelLowering, block: Block) -> None:
    """Within a stretch without LDS writes, barriers or regions, ds_read_b32s from one address
    register at offsets o, o+4, o+8, o+12 become one ds_read_b128 (o and the register 16-byte
    aligned), pairs at o, o+4 a ds_read_b64 (8-byte aligned), other pairs a ds_read2_b32
    (offsets below 1024); the parts are amdgcn.extract of the wide result."""
    group: list[Operation] = []
    for op in list(block.ops):
        if _is_ds_read1(op):
            group.append(op)
        elif op.regions or isinstance(op, YieldOp) or (
                isinstance(op, GcnInstruction) and (op.MNEMONIC.startswith("ds_write") or
                                                     op.MNEMONIC in ("s_barrier", "s_waitcnt"))):
            _combine_group(self, block, group)
            group = []
    _combine_group(self, block, group)


def _combine_group(self: _KernelLowering, block: Block, loads: list[Operation]) -> None:
    if len(loads) < 2:
        return
    order = {op: i for i, op in enumerate(block.ops)}
    by_addr: dict[SSAValue, list] = {}
    for op in loads:
        by_addr.setdefault(op.srcs[0], []).append(op)  # type: ignore[attr-defined]
    for addr, ops in by_addr.items():
        al = self.reg_align.get(addr, 4)
        ops.sort(key=lambda o: (o.mods["offset"], order[o]) if "offset" in o.mods else (0, order[o]))
        offs = [o.mods.get("offset", 0) for o in ops]
        singles = []
        i = 0
        while i < len(ops):
            o = offs[i]
            n = 1
            while i + n < len(ops) and n < 4 and offs[i + n] == o + 4 * n:
                n += 1
            if n == 4 and o % 16 == 0 and al % 16 == 0:
                _replace_loads(block, order, ops[i:i + 4], "ds_read_b128", 4, {"offset": o})
                i += 4
            elif n >= 2 and o % 8 == 0 and al % 8 == 0:
                _replace_loads(block, order, ops[i:i + 2], "ds_read_b64", 2, {"offset": o})
                i += 2
            else:
                singles.append(ops[i])
                i += 1
        # pairs of the rest: ds_read2_b32 reaches 255 dwords past its address register, so
        # when the offsets are beyond that, the address is rebased once (v_add_u32) for them
        singles = [x for x in singles if x.mods.get("offset", 0) % 4 == 0]
        if len(singles) < 2:
            continue
        base = min(x.mods.get("offset", 0) for x in singles)
        base = 0 if max(x.mods.get("offset", 0) for x in singles) <= 4 * 255 else base
        reg = addr
        if base:
            first = min(singles, key=lambda x: order[x])
            c = self.const(base)
            add = instr("v_add_u32", [c, addr], [vgpr()])
            block.insert_op_before(add, first)
            order[add] = order[first]
            reg = add.results[0]
        k = 0
        while k + 1 < len(singles):
            o1, o2 = (x.mods.get("offset", 0) - base for x in singles[k:k + 2])
            if o1 != o2 and 0 <= o1 <= 4 * 255 and 0 <= o2 <= 4 * 255:
                _replace_loads(block, order, singles[k:k + 2], "ds_read2_b32", 2,
                               {"offset0": o1 // 4, "offset1": o2 // 4}, reg)
                k += 2
            else:
                k += 1


_GLOBAL1 = ("global_load_dword", "global_load_dword_saddr")


def _combine_global_loads(self: _KernelLowering, block: Block) -> None:
    """Within a stretch without stores, barriers or regions (one EXEC), global_load_dwords from
    one address at consecutive offsets become one global_load_dwordx2/x3/x4 (multi-dword
    global accesses need only dword alignment on these targets, as LLVM also assumes)."""
    group: list[Operation] = []
    for op in list(block.ops):
        if isinstance(op, GcnInstruction) and op.MNEMONIC in _GLOBAL1:
            group.append(op)
        elif op.regions or isinstance(op, YieldOp) or (
                isinstance(op, GcnInstruction) and (op.MNEMONIC.startswith("global_store") or
                                                     op.MNEMONIC in ("s_barrier", "s_waitcnt"))):
            _combine_global_group(block, group)
            group = []
    _combine_global_group(block, group)


def _combine_global_group(block: Block, loads: list[Operation]) -> None:
    if len(loads) < 2:
        return
    order = {op: i for i, op in enumerate(block.ops)}
    by_addr: dict[tuple, list] = {}
    for op in loads:
        by_addr.setdefault((op.MNEMONIC, tuple(op.operands)), []).append(op)  # type: ignore[attr-defined]
    for (mn, operands), ops in by_addr.items():
        ops.sort(key=lambda o: (o.mods.get("offset", 0), order[o]))
        offs = [o.mods.get("offset", 0) for o in ops]
        i = 0
        while i < len(ops):
            n = 1
            while i + n < len(ops) and n < 4 and offs[i + n] == offs[i] + 4 * n:
                n += 1
            if n >= 2:
                wide = mn.replace("global_load_dword", "global_load_dword" + {2: "x2", 3: "x3", 4: "x4"}[n])
                _replace_loads(block, order, ops[i:i + n], wide, n, {"offset": offs[i]}, operands=list(operands))
            i += n


def _replace_loads(block: Block, order: dict, parts: list[Operation], mnemonic: str, n: int, mods: dict,
                   addr: SSAValue | None = None, operands: list | None = None) -> None:
    first = min(parts, key=lambda o: order[o])
    wide = instr(mnemonic, operands or [addr or parts[0].operands[0]], [vgpr(n)], **mods)
    block.insert_op_before(wide, first)
    anchor: Operation = wide
    for k, op in enumerate(parts):
        ex = ExtractOp(wide.results[0], k, vgpr())
        block.insert_op_after(ex, anchor)
        anchor = ex
        op.results[0].replace_all_uses_with(ex.results[0])
    for op in parts:
        op.detach()
        op.erase()
    order[wide] = order[first]


def _hoist_loads(block: Block, budget: int) -> None:
    """Issue loads earlier: move each load up past arithmetic, never past another memory
    instruction, a wait, a barrier or a region (loads keep their order), and only while the
    loads moved over an instruction hold at most `budget` more registers there.  A VALU
    instruction that computes only this load's address moves up with it.  (Latency hides
    behind the arithmetic before the load; register pressure stays bounded.)"""
    ops = list(block.ops)
    extra = [0] * len(ops)  # registers held over each op by loads moved above it

    def movable_def(prev: Operation, load: Operation) -> bool:
        return (isinstance(prev, GcnInstruction) and prev.FORM.fmt in ("VOP1", "VOP2", "VOP3")
                and all(use.operation is load for r in prev.results for use in r.uses))

    def move(i: int, width: int, owner: Operation) -> int:
        """Move ops[i] up as far as allowed; returns its new index."""
        op = ops[i]
        needed = set(op.operands)
        j = i
        while j > 0:
            prev = ops[j - 1]
            if needed.intersection(prev.results):
                if movable_def(prev, owner):
                    k = move(j - 1, width, owner)  # bring the address computation along
                    if k == j - 1:
                        break
                    continue
                break
            if _is_memory_or_sync(prev) or extra[j - 1] + width > budget:
                break
            j -= 1
        if j < i:
            for k in range(j, i):
                extra[k] += width
            op.detach()
            block.insert_op_before(op, ops[j])
            ops.insert(j, ops.pop(i))
            extra.insert(j, extra.pop(i))
        return j

    i = 0
    while i < len(ops):
        op = ops[i]
        if _is_load(op):
            width = sum(r.type.n for r in op.results if isinstance(r.type, GcnRegisterType))
            move(i, width, op)
        i += 1


_KernelLowering.finish_block = _finish_block  # type: ignore[attr-defined]


def _drop_unused_extracts(block: Block) -> None:
    """Remove the register-tile parts (amdgcn.extract) nothing reads: a stored accumulator's
    registers are named one by one in case a scalar load reads them."""
    changed = True
    while changed:
        changed = False
        for op in list(block.walk()):
            if isinstance(op, ExtractOp) and not op.result.uses:
                op.detach()
                op.erase()
                changed = True


def _elem_bytes(t: MemRefType) -> int | None:
    """Bytes of an element of the buffers this backend selects (f32, f16, bf16, FP8), else None."""
    e = t.element_type
    if isinstance(e, Float32Type):
        return 4
    if isinstance(e, (Float16Type, BFloat16Type)):
        return 2
    return 1 if _fp8_name(e) is not None else None


def _fp8_name(t: Attribute) -> str | None:
    """The FP8 format of type t (f8e4m3fnuz, f8e5m2fnuz, f8e4m3fn, f8e5m2), else None."""
    from gemmc.interp.common import fp8_format

    name = fp8_format(t)
    return name if name in ("f8e4m3fnuz", "f8e5m2fnuz", "f8e4m3fn", "f8e5m2") else None


def _fp8_bits(x: float, t: Attribute) -> int:
    """The byte of x rounded to FP8 format t (to nearest even, as arith.truncf)."""
    import numpy as np

    from gemmc.support.arith_semantics import fp8_dtypes

    return int(np.array(x, np.float64).astype(fp8_dtypes()[_fp8_name(t)]).view(np.uint8))


def _half_bits(x: float, t: Attribute) -> int:
    """The 16 bits of x rounded to f16 or bf16 (to nearest even, as arith.truncf)."""
    import numpy as np

    if isinstance(t, Float16Type):
        return int(np.array(x, np.float32).astype(np.float16).view(np.uint16))
    from gemmc.support.arith_semantics import to_bf16

    return int(to_bf16(np.array([x], np.float32)).view(np.uint32)[0] >> np.uint32(16))


def _half_value(bits: int, t: Attribute) -> float:
    import numpy as np

    if isinstance(t, Float16Type):
        return float(np.array(bits, np.uint16).view(np.float16))
    return float(np.array(bits << 16, np.uint32).view(np.float32))


def _space(t: MemRefType) -> int:
    ms = t.memory_space
    if isinstance(ms, IntegerAttr):
        return ms.value.data
    return 1


def _arg_dim_names(fn: gpu.FuncOp, n: int) -> list[list[str] | None]:
    out: list[list[str] | None] = [None] * n
    a = fn.attributes.get(ARG_DIMS_ATTR)
    if isinstance(a, ArrayAttr):
        for i, entry in enumerate(a.data[:n]):
            if isinstance(entry, ArrayAttr):
                out[i] = [e.data for e in entry.data if isinstance(e, StringAttr)]
    return out


_K = _KernelLowering
_HANDLERS: dict[type, Callable] = {
    arith.ConstantOp: _K._constant,
    arith.AddiOp: _K._binary_int, arith.SubiOp: _K._binary_int, arith.MuliOp: _K._binary_int,
    arith.DivUIOp: _K._binary_int, arith.RemUIOp: _K._binary_int, arith.CeilDivUIOp: _K._binary_int,
    arith.MinUIOp: _K._binary_int, arith.MaxUIOp: _K._binary_int,
    arith.AndIOp: _K._bitwise, arith.OrIOp: _K._bitwise, arith.XOrIOp: _K._bitwise,
    arith.CmpiOp: _K._cmpi, arith.SelectOp: _K._select,
    arith.AddfOp: _K._float_binary, arith.MulfOp: _K._float_binary, arith.SubfOp: _K._float_binary,
    xmath.FmaOp: _K._fma,
    arith.IndexCastOp: _K._passthrough,
    gpu.ThreadIdOp: _K._thread_id, gpu.BlockIdOp: _K._block_id, gpu.BarrierOp: _K._barrier,
    gpu.ReturnOp: _K._return,
    memref.DimOp: _K._dim, memref.AllocaOp: _K._alloca, memref.LoadOp: _K._memref_load,
    memref.StoreOp: _K._memref_store,
    vector.LoadOp: _K._vector_load, vector.StoreOp: _K._vector_store, vector.BroadcastOp: _K._broadcast,
    vector.ExtractOp: _K._extract, vector.InsertOp: _K._insert_elem, vector.ShuffleOp: _K._shuffle,
    PoisonOp: _K._poison,
    MFMAOp: _K._matrix, WMMAOp: _K._matrix, arith.TruncFOp: _K._truncf, arith.ExtFOp: _K._extf,
    scf.ForOp: _K._for, scf.IfOp: _K._if,
}
