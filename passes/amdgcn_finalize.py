"""amdgcn-finalize: from allocated, structured amdgcn IR to the instruction stream.

Expects: amdgcn.kernels after amdgcn-regalloc (and usually insert-waitcnt).
Produces: each kernel one block of instructions, labels and branches, ending in s_endpgm:
  * amdgcn.for: `s_mov_b32 c, lb` (then `s_cmp_lt_u32 c, ub; s_cbranch_scc0 END` unless the
    loop is known to run), `LOOP:` body, `s_add_u32 c, c, step; s_cmp_lt_u32 c, ub;
    s_cbranch_scc1 LOOP`;
  * amdgcn.if (lane mask m): `s_and_saveexec m, m` (m := exec, exec &= m),
    `s_cbranch_execz ELSE`, then-branch, `ELSE: s_andn2 exec, m, exec` (the other lanes),
    `s_cbranch_execz END`, else-branch, `END: s_mov exec, m` (with inits there is no else
    branch: the inits, in the results' registers, hold the other lanes' values);
  * amdgcn.if_uniform: `s_cmp_lg_u32 c, 0; s_cbranch_scc0 ELSE`, then, `s_branch END`,
    `ELSE:` else, `END:`;
  * block arguments and region results become `amdgcn.reg` values of their registers;
  * amdgcn.copy / amdgcn.concat become the v_mov_b32 / s_mov_b32 / s_mov_b64 of the parts
    not already in place; v_fma_f32 whose addend is its destination becomes v_fmac_f32;
  * the s_nop wait states the hardware does not enforce (arch.GcnIsa, Hazards below): after a
    VALU writes an SGPR or VCC before a VALU or VMEM reads it (gfx942's 2 and 5), after an MFMA
    writes VGPRs before anything but the next MFMA accumulating into them reads them (16-pass
    v_mfma_f32_32x32x2_f32: 18 before a store of C), after a VALU writes a VGPR an MFMA reads (2);
    and a v_nop between two WMMAs where the second reads the first's result as A or B;
  * on gfx12: s_barrier as s_barrier_signal, s_barrier_wait, and the s_wait_alu its SGPR read
    hazards need (SgprHazards);
  * the registers used (`vgprs`, `sgprs`, `agprs`, `uses_vcc`) are recorded on the kernel for the
    kernel descriptor.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, StringAttr, i64
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.passes import ModulePass

from gemmc.target.amdgcn_isa import PLAIN_VALU_FORMATS, SALU_FORMATS, VALU_FORMATS
from gemmc.target.arch import get_gcn_isa, get_matrix_instr
from gemmc.support.diagnostics import GemmcError, pass_error
from gemmc.dialects.amdgcn.control_flow import ForOp, IfOp, IfUniformOp, YieldOp
from gemmc.dialects.amdgcn.instructions import (
    GcnInstruction,
    instr,
    is_barrier,
    is_memory_wait,
    is_mfma,
    is_wmma,
    mfma_consumer,
)
from gemmc.dialects.amdgcn.kernel import KernelOp
from gemmc.dialects.amdgcn.pseudo import CommentOp, ConcatOp, ConstantOp, CopyOp, ExtractOp, LabelOp, RegOp
from gemmc.dialects.amdgcn.registers import (
    VCC_INDEX,
    AGPRType,
    GcnRegisterType,
    SGPRType,
    SpecialRegType,
    VGPRType,
    is_allocated,
    sgpr_numbers,
    sgpr_pair,
)
from gemmc.support.ir_names import ROLE_ATTR
from gemmc.target.module_arch import target_of

PASS = "amdgcn-finalize"


@dataclass(frozen=True)
class AmdgcnFinalizePass(ModulePass):
    name = "amdgcn-finalize"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        arch = target_of(op)
        get_gcn_isa(arch)
        kernels = [k for k in op.walk() if isinstance(k, KernelOp)]
        if not kernels:
            raise pass_error(PASS, op, "expects amdgcn.kernel ops; run lower-to-amdgcn first")
        for k in kernels:
            for v in _values(k.body.block):
                if not is_allocated(v.type):
                    raise pass_error(PASS, k, "expects allocated registers; run amdgcn-regalloc first")
            _Flatten(k, arch, get_gcn_isa(arch)).run()


def _values(block: Block):
    for op in block.walk():
        yield from op.results
        for r in op.regions:
            for b in r.blocks:
                yield from b.args


class _Flatten:
    def __init__(self, kernel: KernelOp, arch, isa):
        self.kernel, self.arch, self.isa = kernel, arch, isa
        self.wave64 = arch.wave_size == 64
        self.n_labels = 0
        self.out = Block()

    def label(self) -> str:
        self.n_labels += 1
        return f".L{self.kernel.sym_name.data}_{self.n_labels}"

    def add(self, op: Operation) -> Operation:
        self.out.add_op(op)
        return op

    def reg(self, t: Attribute) -> SSAValue:
        return self.add(RegOp(t)).results[0]

    def i(self, mnemonic: str, srcs, dsts, **kw) -> Operation:
        op = instr(mnemonic, srcs, dsts, **{k: v for k, v in kw.items() if k != "target"})
        if "target" in kw:
            op.attributes["target"] = StringAttr(kw["target"])
        return self.add(op)

    @staticmethod
    def scc() -> SpecialRegType:
        return SpecialRegType("scc")

    def const(self, value: int) -> SSAValue:
        """A constant operand, defined at the top of the kernel (where the others are)."""
        for op in self.out.ops:
            if isinstance(op, ConstantOp) and not op.is_float and op.int_value == value:
                return op.result
        c = ConstantOp(value)
        first = self.out.first_op
        if first is None:
            self.out.add_op(c)
        else:
            self.out.insert_op_before(c, first)
        return c.result

    def exec_(self) -> SSAValue:
        return self.reg(SpecialRegType("exec"))

    def run(self) -> None:
        body = self.kernel.body.block
        self.flatten(body)
        for op in reversed(list(body.ops)):
            op.detach()
            op.erase(safe_erase=False)
        for op in list(self.out.ops):
            op.detach()
            body.add_op(op)
        self._fmac(body)
        if self.isa.split_barrier:
            _split_barriers(body)
        _insert_nops(body, self.isa, self.arch)
        self._record(body)

    def flatten(self, block: Block) -> None:
        for op in list(block.ops):
            if isinstance(op, ForOp):
                self.for_(op)
            elif isinstance(op, IfOp):
                self.if_(op)
            elif isinstance(op, IfUniformOp):
                self.if_uniform(op)
            elif isinstance(op, YieldOp):
                continue
            elif isinstance(op, CopyOp):
                self.copy(op)
            elif isinstance(op, ConcatOp):
                self.concat(op)
            else:
                op.detach()
                self.add(op)

    def _args_to_regs(self, block: Block) -> None:
        for a in block.args:
            if a.uses:
                a.replace_all_uses_with(self.reg(a.type))

    def _results_to_regs(self, op: Operation) -> None:
        for r in op.results:
            if r.uses:
                r.replace_all_uses_with(self.reg(r.type))

    def _check_yield(self, block: Block, targets) -> None:
        y = block.last_op
        assert isinstance(y, YieldOp)
        for v, t in zip(y.values, targets):
            if v.type != t:
                raise GemmcError(f"{PASS}: internal error: yield of {v.type} into {t} (allocation broke a web)")

    def for_(self, op: ForOp) -> None:
        body = op.body.block
        counter_t = body.args[0].type
        c0 = self.i("s_mov_b32", [op.lb], [counter_t]).results[0]
        top, end = self.label(), self.label()
        if op.nonempty is None:
            s = self.i("s_cmp_lt_u32", [c0, op.ub], [self.scc()]).results[0]
            self.i("s_cbranch_scc0", [s], [], target=end)
        self._check_yield(body, [a.type for a in body.args[1:]])
        for init, a in zip(op.inits, body.args[1:]):
            if init.type != a.type:
                raise GemmcError(f"{PASS}: internal error: loop init in {init.type}, carried in {a.type}")
        role = op.attributes.get(ROLE_ATTR)
        role = role.data if isinstance(role, StringAttr) else None
        if role:
            self.add(CommentOp(f"{role} begin"))
        self.add(LabelOp(top))
        self._args_to_regs(body)
        self.flatten(body)
        c = self.reg(counter_t)
        c1 = self.i("s_add_u32", [c, op.step], [counter_t, self.scc()]).results[0]
        s = self.i("s_cmp_lt_u32", [c1, op.ub], [self.scc()]).results[0]
        self.i("s_cbranch_scc1", [s], [], target=top)
        if role:
            self.add(CommentOp(f"{role} end"))
        if op.nonempty is None:
            self.add(LabelOp(end))
        self._results_to_regs(op)

    @staticmethod
    def _nonempty(region) -> bool:
        return bool(region.blocks) and any(not isinstance(o, YieldOp) for o in region.block.ops)

    def if_(self, op: IfOp) -> None:
        m = op.cond
        mt = m.type
        b = "b64" if self.wave64 else "b32"
        exec_t = SpecialRegType("exec")
        self.i(f"s_and_saveexec_{b}", [m, self.exec_()], [mt, exec_t, self.scc()])
        has_else = self._nonempty(op.else_region)
        else_l, end_l = self.label(), self.label()
        skip_then, skip_else = _worth_skipping(op.then_region), _worth_skipping(op.else_region)
        if skip_then:
            self.i("s_cbranch_execz", [self.exec_()], [], target=else_l if has_else else end_l)
        for region in (op.then_region, op.else_region):
            if region.blocks and (region is op.then_region or not op.inits):
                self._check_yield(region.block, [r.type for r in op.res])
        for init, r in zip(op.inits, op.res):
            if init.type != r.type:
                raise GemmcError(f"{PASS}: internal error: if init in {init.type}, result in {r.type}")
        self.flatten(op.then_region.block)
        if has_else:
            if skip_then:
                self.add(LabelOp(else_l))
            saved = self.reg(mt)
            self.i(f"s_andn2_{b}_exec", [saved, self.exec_()], [exec_t, self.scc()])
            if skip_else:
                self.i("s_cbranch_execz", [self.exec_()], [], target=end_l)
            self.flatten(op.else_region.block)
        if skip_then or (has_else and skip_else):
            self.add(LabelOp(end_l))
        self.i(f"s_mov_{b}_exec", [self.reg(mt)], [exec_t])
        self._results_to_regs(op)

    def if_uniform(self, op: IfUniformOp) -> None:
        has_else = self._nonempty(op.else_region)
        else_l, end_l = self.label(), self.label()
        s = self.i("s_cmp_lg_u32", [op.cond, self.const(0)], [self.scc()]).results[0]
        self.i("s_cbranch_scc0", [s], [], target=else_l if has_else else end_l)
        for region in (op.then_region, op.else_region):
            if region.blocks:
                self._check_yield(region.block, [r.type for r in op.res])
        self.flatten(op.then_region.block)
        if has_else:
            self.i("s_branch", [], [], target=end_l)
            self.add(LabelOp(else_l))
            self.flatten(op.else_region.block)
        self.add(LabelOp(end_l))
        self._results_to_regs(op)

    # -- copies ---------------------------------------------------------------------------------

    def moves(self, pairs: list[tuple[GcnRegisterType, SSAValue]], cls) -> None:
        """Parallel moves dst <- src (single registers or constants), ordered so that no
        source is overwritten before it is read."""
        pending = [(d, s) for d, s in pairs if not (isinstance(s.type, GcnRegisterType) and s.type == d)]
        while pending:
            srcs = {(type(s.type), s.type.first) for _, s in pending if isinstance(s.type, GcnRegisterType)}
            ready = [p for p in pending if (type(p[0]), p[0].first) not in srcs]
            if not ready:
                raise GemmcError(f"{PASS}: internal error: a cycle of register moves in a copy")
            for d, s in ready:
                src = s if not isinstance(s.type, GcnRegisterType) else self.reg(s.type)
                self.i(_MOVE[cls] if cls is not AGPRType or isinstance(s.type, AGPRType)
                       else "v_accvgpr_write_b32", [src], [d])
            pending = [p for p in pending if p not in ready]

    def copy(self, op: CopyOp) -> None:
        src, dst = op.source.type, op.result.type
        assert isinstance(src, GcnRegisterType) and isinstance(dst, GcnRegisterType)
        if src != dst:
            if isinstance(dst, SGPRType) and dst.n == 2 and dst.first % 2 == 0 and src.first % 2 == 0:
                self.i("s_mov_b64", [op.source], [dst])
            else:
                self.moves([(dst.sub(i), _sub_value(self, op.source, i)) for i in range(dst.n)], type(dst))
        op.result.replace_all_uses_with(self.reg(dst) if dst != src else op.source)
        op.detach()
        op.erase()

    def concat(self, op: ConcatOp) -> None:
        dst = op.result.type
        assert isinstance(dst, GcnRegisterType)
        pairs = []
        off = 0
        for p in op.parts:
            n = p.type.n if isinstance(p.type, GcnRegisterType) else 1
            for i in range(n):
                pairs.append((dst.sub(off + i), _sub_value(self, p, i) if n > 1 or isinstance(p.type, GcnRegisterType) else p))
            off += n
        self.moves(pairs, type(dst))
        op.result.replace_all_uses_with(self.reg(dst))
        op.detach()
        op.erase()

    # -- peephole and resources ---------------------------------------------------------------

    def _fmac(self, body: Block) -> None:
        """v_fma_f32 d, a, b, d -> v_fmac_f32 d, a, b (VOP2: its second source a VGPR)."""
        for op in list(body.ops):
            if not (isinstance(op, GcnInstruction) and op.MNEMONIC == "v_fma_f32"):
                continue
            a, b, c = op.srcs
            d = op.dsts[0]
            if c.type != d.type or not isinstance(c.type, VGPRType):
                continue
            if not isinstance(b.type, VGPRType):
                if isinstance(a.type, VGPRType):
                    a, b = b, a
                else:
                    continue
            new = instr("v_fmac_f32", [a, b, c], [d.type])
            body.insert_op_before(new, op)
            d.replace_all_uses_with(new.results[0])
            op.detach()
            op.erase()

    def _record(self, body: Block) -> None:
        top, vcc = {VGPRType: 1, SGPRType: 4, AGPRType: 0}, 0
        for op in body.ops:
            for v in (*op.results, *op.operands):
                t = v.type
                if type(t) in top:
                    top[type(t)] = max(top[type(t)], t.first + t.n)  # type: ignore[attr-defined]
                elif isinstance(t, SpecialRegType) and t.reg.data == "vcc":
                    vcc = 1
        self.kernel.attributes["vgprs"] = IntegerAttr(top[VGPRType], i64)
        self.kernel.attributes["sgprs"] = IntegerAttr(top[SGPRType], i64)
        if top[AGPRType]:
            self.kernel.attributes["agprs"] = IntegerAttr(top[AGPRType], i64)
        self.kernel.attributes["uses_vcc"] = IntegerAttr(vcc, i64)
        self.kernel.attributes["finalized"] = IntegerAttr(1, i64)


# -- hazards: wait states the hardware does not enforce ------------------------------------------


def _vgprs(v: SSAValue) -> list[tuple[str, int]]:
    """The vector registers (VGPRs and AGPRs) of an operand, as ("v", i) / ("a", i)."""
    t = v.type
    if not isinstance(t, (VGPRType, AGPRType)):
        return []
    return [(t.PREFIX, i) for i in range(t.first, t.first + t.n)]


class Hazards:
    """The wait states an instruction needs since earlier ones wrote what it reads (arch.GcnIsa):
    a VALU writing an SGPR/VCC then a VALU or VMEM reading it; an MFMA writing VGPRs then a
    VALU, VMEM or DS instruction reading or overwriting them, or an MFMA reading them as SrcA/B
    or SrcC (none when SrcC is exactly that MFMA's result); a VALU writing a VGPR then an MFMA
    reading it; on gfx90a an MFMA reading SrcC then a VALU overwriting it.  The state maps what
    was written (or read as SrcC), ("s", sgpr), ("m", vgpr, mfma op), ("v", vgpr) or
    ("c", vgpr, mfma op), to the wait states issued since; a later non-MFMA write of a VGPR retires the
    MFMA's entry (its own wait was checked when it was written)."""

    def __init__(self, isa, arch):
        self.isa, self.arch = isa, arch
        self.instrs: dict = {}
        self.horizon = max(isa.valu_sgpr_then_valu, isa.valu_sgpr_then_vmem, isa.valu_then_mfma,
                           *(self.wait(i, c) for i in arch.matrix_instrs if i.kind == "mfma"
                             for c in ("read", "write", "srcab", "srcc_overlap", "war")), 0)

    def wait(self, instr, consumer: str) -> int:
        return self.isa.mfma_wait_states(instr, consumer)

    def instr(self, op):
        if op not in self.instrs:
            try:
                self.instrs[op] = get_matrix_instr(self.arch, op.MNEMONIC)
            except GemmcError as e:
                raise pass_error(PASS, op, e.message) from None
        return self.instrs[op]

    def need(self, op, key) -> int:
        """Wait states `op` needs after the write `key`."""
        if not isinstance(op, GcnInstruction):
            return 0
        fmt, kind, reg = op.FORM.fmt, key[0], key[1]
        if kind == "s":
            n = self.isa.valu_sgpr_then_valu if fmt in PLAIN_VALU_FORMATS else (self.isa.valu_sgpr_then_vmem if fmt == "GLOBAL" else 0)
            return n if n and reg in sgpr_numbers(op.srcs) else 0
        if kind == "v":
            return self.isa.valu_then_mfma if is_mfma(op) and any(reg in _vgprs(v) for v in op.srcs) else 0
        producer = key[2]
        instr = self.instr(producer)
        if kind == "c":  # the MFMA read this SrcC register: a VALU overwriting it (gfx90a)
            return self.wait(instr, "war") if fmt in PLAIN_VALU_FORMATS and any(reg in _vgprs(v) for v in op.dsts) else 0
        if is_mfma(op):
            out = 0
            for i, v in enumerate(op.srcs):
                if reg in _vgprs(v):
                    out = max(out, self.wait(instr, mfma_consumer(op, i, producer.dsts[0].type)))
            return out
        if fmt in (*PLAIN_VALU_FORMATS, "GLOBAL", "DS"):
            if any(reg in _vgprs(v) for v in op.srcs):
                return self.wait(instr, "read")
            if any(reg in _vgprs(v) for v in op.dsts):
                return self.wait(instr, "write")
        return 0

    def advance(self, state: dict, op) -> dict:
        if not isinstance(op, GcnInstruction):
            return state
        k = op.mods.get("imm", 0) + 1 if op.MNEMONIC == "s_nop" else 1
        written = {r for v in op.dsts for r in _vgprs(v)}
        new = {key: a + k for key, a in state.items() if a + k < self.horizon
               and not (key[0] in ("m", "v") and key[1] in written)}
        if op.FORM.fmt in PLAIN_VALU_FORMATS:
            for v in op.dsts:
                for r in sgpr_numbers([v]):
                    new[("s", r)] = 0
        if is_mfma(op) and self.wait(self.instr(op), "war"):
            for r in _vgprs(op.srcs[op.FORM.acc]):
                new[("c", r, op)] = 0
        for r in written:
            if is_mfma(op):
                new[("m", r, op)] = 0
            elif op.FORM.fmt in PLAIN_VALU_FORMATS:
                new[("v", r)] = 0
        return new

    def fixes(self, state: dict, op) -> list[Operation]:
        """The s_nops to put before op: the wait states it is short of."""
        short = max((self.need(op, key) - age for key, age in state.items()), default=0)
        nops = []
        while short > 0:  # s_nop waits 1 to 8 wait states
            nops.append(instr("s_nop", [], [], imm=min(short, 8) - 1))
            short -= min(short, 8)
        return nops


class WmmaHazards:
    """A WMMA reading as A or B the registers the VALU instruction just before it wrote, where
    that was a WMMA, needs a VALU instruction between (LLVM's fixWMMAHazards inserts v_nop; an
    s_nop does not count).  The state holds ("w", vgpr) for the last VALU's results while that
    VALU is a WMMA."""

    def advance(self, state: dict, op) -> dict:
        if not (isinstance(op, GcnInstruction) and op.FORM.fmt in VALU_FORMATS):
            return state
        return {("w", r): 0 for r in _vgprs(op.dsts[0])} if is_wmma(op) else {}

    def fixes(self, state: dict, op) -> list[Operation]:
        if is_wmma(op) and any(("w", r) in state for v in op.srcs[:2] for r in _vgprs(v)):
            return [instr("v_nop", [], [])]
        return []


class SgprHazards:
    """gfx12's SGPR read hazards (LLVM's AMDGPUWaitSGPRHazards): once a VALU instruction has
    read an SGPR pair, a value an SALU (or a VALU) then writes into it is not seen by a later
    read until `s_wait_alu depctr_sa_sdst(0)` (`depctr_va_sdst(0)` for a VALU write read by a
    VALU; `depctr_va_vcc(0)` for VCC).  The state holds ("t", pair) for pairs a VALU read,
    ("sa", sgpr) / ("va", sgpr) for uncommitted writes (VCC as amdgcn.VCC_INDEX).  Scalar
    loads commit every write (LLVM: SMEM clears the hazards)."""

    def _kind(self, op) -> str | None:
        if not isinstance(op, GcnInstruction):
            return None
        fmt = op.FORM.fmt
        return "valu" if fmt in VALU_FORMATS else ("salu" if fmt in SALU_FORMATS else None)

    def advance(self, state: dict, op) -> dict:
        if not isinstance(op, GcnInstruction):
            return state
        if op.FORM.fmt == "SMEM":
            return {k: a for k, a in state.items() if k[0] == "t"}
        if op.MNEMONIC == "s_wait_alu":
            clear = {"sa"} if "sa_sdst" in op.mods else set()
            return {k: a for k, a in state.items()
                    if not (k[0] in clear or k[0] == "va" and ("va_sdst" in op.mods and k[1] != VCC_INDEX
                                                               or "va_vcc" in op.mods and k[1] == VCC_INDEX))}
        kind = self._kind(op)
        if kind is None:
            return state
        new = dict(state)
        for r in sgpr_numbers(op.srcs):
            if ("t", sgpr_pair(r)) not in new:
                if kind == "valu":
                    new[("t", sgpr_pair(r))] = 0
            elif kind == "salu":  # an SALU read commits VALU writes
                new = {k: a for k, a in new.items() if not (k[0] == "va" and (k[1] == VCC_INDEX) == (r == VCC_INDEX))}
        for r in sgpr_numbers(op.dsts):
            if ("t", sgpr_pair(r)) in new:
                new[("sa" if kind == "salu" else "va", r)] = 0
        return new

    def fixes(self, state: dict, op) -> list[Operation]:
        kind = self._kind(op)
        if kind is None:
            return []
        mods = {}
        for r in sgpr_numbers(op.srcs):
            if ("t", sgpr_pair(r)) not in state:
                continue
            if ("sa", r) in state:
                mods["sa_sdst"] = 0
            if kind == "valu" and ("va", r) in state:
                mods["va_vcc" if r == VCC_INDEX else "va_sdst"] = 0
        return [instr("s_wait_alu", [], [], **mods)] if mods else []


def _split_barriers(body: Block) -> None:
    """gfx12: s_barrier is s_barrier_signal then s_barrier_wait."""
    for op in list(body.ops):
        if isinstance(op, GcnInstruction) and op.MNEMONIC == "s_barrier":
            body.insert_op_before(instr("s_barrier_signal", [], []), op)
            body.insert_op_before(instr("s_barrier_wait", [], []), op)
            op.detach()
            op.erase()


def _insert_nops(body: Block, isa, arch) -> None:
    hz = Hazards(isa, arch)
    if hz.horizon:
        _insert_fixes(body, hz)
    if any(i.kind == "wmma" for i in arch.matrix_instrs):
        _insert_fixes(body, WmmaHazards())
    if isa.sgpr_read_hazards:
        _insert_fixes(body, SgprHazards())


def _insert_fixes(body: Block, hz) -> None:
    """Insert the instructions `hz` says each instruction needs before it (s_nop, v_nop).  The
    hazard state flows along the program and is joined at labels with the branches to them
    (youngest wins), iterated so that loop back edges are seen."""

    def join(a: dict, b: dict) -> dict:
        out = dict(a)
        for r, x in b.items():
            out[r] = min(x, out.get(r, x))
        return out

    at_label: dict[str, dict] = {}
    for _ in range(4):  # the states at labels settle within a few passes (windows are short)
        state: dict = {}
        changed = False
        for op in body.ops:
            if isinstance(op, LabelOp):
                state = join(state, at_label.get(op.label.data, {}))
                continue
            state = hz.advance(state, op)
            t = op.attributes.get("target")
            if isinstance(t, StringAttr):
                merged = join(at_label.get(t.data, {}), state)
                if merged != at_label.get(t.data):
                    at_label[t.data] = merged
                    changed = True
            if isinstance(op, GcnInstruction) and op.MNEMONIC in ("s_branch", "s_endpgm"):
                state = {}
        if not changed:
            break
    state = {}
    for op in list(body.ops):
        if isinstance(op, LabelOp):
            state = join(state, at_label.get(op.label.data, {}))
            continue
        for fix in hz.fixes(state, op):
            body.insert_op_before(fix, op)
            state = hz.advance(state, fix)
        state = hz.advance(state, op)
        if isinstance(op, GcnInstruction) and op.MNEMONIC in ("s_branch", "s_endpgm"):
            state = {}


SKIP_THRESHOLD = 12


def _worth_skipping(region) -> bool:
    """Branch around a lane-masked region when no lane is active (s_cbranch_execz) unless it is
    short and harmless with EXEC = 0: fewer than SKIP_THRESHOLD instructions, no memory access,
    wait, barrier or nested control flow (LLVM's SIPreEmitPeephole makes the same choice)."""
    if not region.blocks:
        return False
    n = 0
    for op in region.block.walk():
        if op.regions and op is not region.block.parent_op():
            return True
        if isinstance(op, GcnInstruction):
            if op.FORM.fmt in ("SMEM", "DS", "GLOBAL") or is_memory_wait(op) or is_barrier(op):
                return True
            n += 1
        elif isinstance(op, (CopyOp, ConcatOp)):
            n += op.result.type.n if isinstance(op.result.type, GcnRegisterType) else 1
    return n >= SKIP_THRESHOLD


_MOVE = {VGPRType: "v_mov_b32", SGPRType: "s_mov_b32", AGPRType: "v_accvgpr_mov_b32"}


def _sub_value(f: _Flatten, v: SSAValue, i: int) -> SSAValue:
    t = v.type
    assert isinstance(t, GcnRegisterType)
    if t.n == 1:
        return v
    return f.add(ExtractOp(v, i, t.sub(i))).results[0]


