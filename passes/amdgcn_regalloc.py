"""amdgcn-regalloc: register allocation for the amdgcn dialect, on its SSA form.

Expects: amdgcn.kernels from lower-to-amdgcn (unallocated registers, structured control
flow).  Produces: every VGPR/SGPR value allocated (`!amdgcn.vgpr<v5>`, `!amdgcn.sgpr<s[4:5]>`),
copies between values that got one register removed, and the registers reached recorded
on the kernel (`vgprs`, `sgprs`, `agprs`: the next free register of each file).

How (docs/amdgcn.md has the long form):
  * positions: the kernel's ops are numbered in order; an op with regions has a start
    and an end position around them;
  * liveness on SSA: a value lives from its definition to its last use; a use inside a
    loop that the value is defined outside of extends to the loop's end (the value must
    survive the back edge); amdgcn.for reads ub and step at its end, amdgcn.if holds its
    mask until its end; loads and instructions that write a range read their operands
    "early-clobber" (their results may not reuse an operand's register), and so does
    amdgcn.concat, whose parts are either placed in its range or outside it;
  * one register for a web: a loop's init copy, carried argument, yield operand and
    result, or an if's two yield operands (or init and then-yield) and result;  a web's live range is the union
    of its members' ranges, with holes (a carried value is dead between its last use in
    the body and the yield);
  * an EXEC-masked amdgcn.if's inits are read at its start: inside the then branch every
    write to a VGPR is masked to the branch's lanes, so a value the branch computes may take
    the result's register (the load of `if (c) v = load else v = 0` lands in it directly)
    while the other lanes keep the init;
  * amdgcn.extract results live inside their source range (the source stays live while
    any part is used);
  * first fit in order of start, on the VGPR and SGPR files separately, ranges aligned
    (SGPR pairs even, SGPR quads and wider at multiples of 4, VGPR tuples even where the
    arch requires it); hints first: a copy's source register, a yield operand's web
    register, v_fma_f32's addend register (so it can become v_fmac_f32);
  * a value that finds no register is an error naming the budget and how many registers
    were live there (no spilling).
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, i64
from xdsl.ir import Block, BlockArgument, Operation, OpResult, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from gemmc.target.arch import Arch, GcnIsa, get_gcn_isa
from gemmc.support.diagnostics import GemmcError, pass_error
from gemmc.dialects.amdgcn.control_flow import ForOp, IfOp, IfUniformOp, YieldOp
from gemmc.dialects.amdgcn.instructions import GcnInstruction, is_matrix
from gemmc.dialects.amdgcn.kernel import KernelOp
from gemmc.dialects.amdgcn.pseudo import ConcatOp, CopyOp, ExtractOp, InputOp
from gemmc.dialects.amdgcn.registers import AGPRType, GcnRegisterType, SGPRType, VGPRType, is_allocated
from gemmc.target.module_arch import target_of

PASS = "amdgcn-regalloc"


@dataclass(frozen=True)
class AmdgcnRegallocPass(ModulePass):
    name = "amdgcn-regalloc"

    max_vgprs: int = 0
    """VGPR budget per lane (0: the arch's register file)."""
    max_sgprs: int = 0
    """SGPR budget (0: what the arch lets a kernel allocate)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        arch = target_of(op)
        isa = get_gcn_isa(arch)
        kernels = [k for k in op.walk() if isinstance(k, KernelOp)]
        if not kernels:
            raise pass_error(PASS, op, "expects amdgcn.kernel ops; run lower-to-amdgcn first")
        for k in kernels:
            Allocator(k, arch, isa, self.max_vgprs or arch.vgprs_per_lane, self.max_sgprs or isa.sgprs).run()


@dataclass
class Unit:
    """What gets one register (range): a value, with its aliases, or a web of values."""

    values: list[SSAValue]
    cls: type
    n: int
    segs: list[tuple[float, float]] = field(default_factory=list)
    reg: int | None = None
    hints: list = field(default_factory=list)

    @property
    def start(self) -> float:
        return min(s for s, _ in self.segs)


class Allocator:
    def __init__(self, kernel: KernelOp, arch: Arch, isa: GcnIsa, max_vgprs: int, max_sgprs: int):
        self.kernel, self.arch, self.isa = kernel, arch, isa
        self.limits = {VGPRType: max_vgprs, SGPRType: max_sgprs, AGPRType: arch.agprs_per_lane}
        self.pos: dict[Operation, int] = {}
        self.end: dict[Operation, int] = {}
        self.t = 0

    # -- positions and live ranges --------------------------------------------------------

    def number(self, block: Block) -> None:
        for op in block.ops:
            self.pos[op] = self.t
            self.t += 1
            if op.regions:
                for r in op.regions:
                    for b in r.blocks:
                        self.number(b)
                self.end[op] = self.t
                self.t += 1

    @staticmethod
    def def_op(v: SSAValue) -> Operation:
        if isinstance(v, BlockArgument):
            return v.block.parent_op()  # type: ignore[return-value]
        return v.owner  # type: ignore[return-value]

    def def_pos(self, v: SSAValue) -> float:
        if isinstance(v, BlockArgument):
            return self.pos[self.def_op(v)]
        op = v.owner
        assert isinstance(op, Operation)
        return self.end[op] if op.regions else self.pos[op]

    def inside(self, loop: Operation, v: SSAValue) -> bool:
        """v is defined inside `loop` (its own block arguments included, its results not)."""
        d = self.def_op(v)
        if isinstance(v, BlockArgument):
            return loop.is_ancestor(d)
        return d is not loop and loop.is_ancestor(d)

    def use_pos(self, v: SSAValue, user: Operation, operand_index: int) -> float:
        p: float = self.pos[user]
        if isinstance(user, ForOp) and user.operands[operand_index] in (user.ub, user.step) and operand_index in (1, 2):
            p = self.end[user]
        elif isinstance(user, IfOp) and operand_index == 0:  # the mask holds the saved EXEC
            p = self.end[user]
        elif isinstance(user, ConcatOp) or _early_clobber(user) and operand_index != user.FORM.acc:  # type: ignore[attr-defined]
            # (an MFMA's result may take its accumulator's registers: see _acc_ok; a concat's
            # range is disjoint from its parts, or they are in place: its moves form no cycle)
            p += 0.5
        # a use inside a loop that v comes from outside of lasts to that loop's end
        outer = None
        cur = user.parent_op()
        while cur is not None and cur is not self.kernel:
            if isinstance(cur, ForOp) and not self.inside(cur, v):
                outer = cur
            cur = cur.parent_op()
        if outer is not None:
            p = max(p, self.end[outer])
        return p

    def live_range(self, v: SSAValue) -> tuple[float, float]:
        d = self.def_pos(v)
        last = d + 0.25
        for use in v.uses:
            last = max(last, self.use_pos(v, use.operation, use.index))
        # web members: carried arguments and yield operands live across the back edge
        if isinstance(v, BlockArgument) and isinstance(self.def_op(v), ForOp) and v.index == 0:
            last = max(last, self.end[self.def_op(v)])
        for use in v.uses:
            y = use.operation
            if isinstance(y, YieldOp):
                parent = y.parent_op()
                assert parent is not None
                last = max(last, self.end[parent])
        if isinstance(v, OpResult) and isinstance(v.owner, InputOp):
            d = -1
        return (d, last)

    # -- allocation ----------------------------------------------------------------------------

    def run(self) -> None:
        body = self.kernel.body.block
        self.number(body)
        values: list[SSAValue] = []
        for op in _walk(body):
            for r in op.results:
                if isinstance(r.type, GcnRegisterType):
                    values.append(r)
            for region in op.regions:
                for b in region.blocks:
                    values.extend(a for a in b.args if isinstance(a.type, GcnRegisterType))
        # aliases: extract results live inside their source
        root: dict[SSAValue, tuple[SSAValue, int]] = {}

        def find(v: SSAValue) -> tuple[SSAValue, int]:
            if v in root:
                r, o = root[v]
                rr, oo = find(r)
                return rr, o + oo
            return v, 0

        for v in values:
            if isinstance(v, OpResult) and isinstance(v.owner, ExtractOp):
                root[v] = (v.owner.source, v.owner.offset.value.data)
        # webs
        parent: dict[SSAValue, SSAValue] = {}

        def wfind(v: SSAValue) -> SSAValue:
            while parent.get(v, v) is not v:
                v = parent[v]
            return v

        def union(a: SSAValue, b: SSAValue) -> None:
            ra, rb = wfind(a), wfind(b)
            if ra is not rb:
                parent[rb] = ra

        for op in _walk(body):
            if isinstance(op, ForOp):
                y = op.body.block.last_op
                assert isinstance(y, YieldOp)
                for i, init in enumerate(op.inits):
                    for m in (op.body.block.args[i + 1], y.values[i], op.res[i]):
                        union(init, m)
            elif isinstance(op, (IfOp, IfUniformOp)):
                for i, init in enumerate(op.inits):
                    union(op.res[i], init)
                for region in (op.then_region, op.else_region):
                    if region.blocks:
                        y = region.block.last_op
                        assert isinstance(y, YieldOp)
                        for i, r in enumerate(op.res):
                            union(r, y.values[i])
        webbed = set(parent) | set(parent.values())
        for v in root:
            if v in webbed:
                raise GemmcError(f"{PASS}: an extracted register cannot be loop-carried or a branch result")
        for op in _walk(body):
            if isinstance(op, ConcatOp):
                _place_parts(op, root, webbed)
        units: dict[SSAValue, Unit] = {}
        unit_of: dict[SSAValue, tuple[Unit, int]] = {}
        for v in values:
            r, off = find(v)
            key = wfind(r)
            t = key.type
            assert isinstance(t, GcnRegisterType)
            u = units.get(key)
            if u is None:
                u = units[key] = Unit([], type(t), t.n)
            u.values.append(v)
            unit_of[v] = (u, off)
            seg = self.live_range(v)
            u.segs.append(seg)
        # a unit's segments may nest (an alias used once inside its range's long life): merge
        # them, so that the segments held in one register never overlap (free() relies on it)
        for u in units.values():
            u.segs = _merge(u.segs)
        # fixed registers (kernel inputs) and the order of the rest
        self.occ: dict[tuple[type, int], list[tuple[float, float]]] = {}
        fixed = [u for u in units.values() if is_allocated(u.values[0].type)]
        for u in fixed:
            u.reg = u.values[0].type.first  # type: ignore[attr-defined]
            self.occupy(u)
        todo = sorted((u for u in units.values() if u.reg is None), key=lambda u: u.start)
        for u in todo:
            self.assign(u, unit_of)
        self._check_disjoint()
        # rewrite types
        for v in values:
            u, off = unit_of[v]
            t = v.type
            assert isinstance(t, GcnRegisterType) and u.reg is not None
            new = type(t)(u.reg + off, t.n)
            if new != t:
                Rewriter.replace_value_with_new_type(v, new)
        self._drop_self_copies(body)
        top = {VGPRType: 0, SGPRType: self.isa_user_sgprs(), AGPRType: 0}
        for op in _walk(body):
            for v in (*op.results, *(a for r in op.regions for b in r.blocks for a in b.args)):
                t = v.type
                if type(t) in top and is_allocated(t):
                    top[type(t)] = max(top[type(t)], t.first + t.n)  # type: ignore[attr-defined]
        self.kernel.attributes["vgprs"] = IntegerAttr(max(top[VGPRType], 1), i64)
        self.kernel.attributes["sgprs"] = IntegerAttr(top[SGPRType], i64)
        if top[AGPRType]:  # (kernels without AGPRs do not say so)
            self.kernel.attributes["agprs"] = IntegerAttr(top[AGPRType], i64)

    @staticmethod
    def isa_user_sgprs() -> int:
        return 4  # s[0:1] kernarg pointer, s2 s3 workgroup ids

    def align(self, u: Unit) -> int:
        if u.cls is SGPRType:
            return 1 if u.n == 1 else (2 if u.n == 2 else 4)
        if u.n > 1 and self.isa.aligned_vgpr_tuples:
            return 2
        return 1

    def occupy(self, u: Unit) -> None:
        for i in range(u.n):
            lst = self.occ.setdefault((u.cls, u.reg + i), [])  # type: ignore[operator]
            for s in u.segs:
                bisect.insort(lst, s)

    def free(self, cls: type, reg: int, segs: Iterable[tuple[float, float]]) -> bool:
        lst = self.occ.get((cls, reg))
        if not lst:
            return True
        for a, b in segs:
            # segments in one register never overlap, so only the last one starting before b can
            j = bisect.bisect_left(lst, (b, -1.0)) - 1
            while j >= 0:
                s, e = lst[j]
                if e <= a:
                    break
                if s < b and a < e:
                    return False
                j -= 1
        return True

    def hints(self, u: Unit, unit_of) -> list[int]:
        out = []
        for v in u.values:
            op = v.owner if isinstance(v, OpResult) else None
            if isinstance(op, CopyOp):
                src = op.source
                if src in unit_of:
                    su, off = unit_of[src]
                    if su.reg is not None:
                        out.append(su.reg + off)
            acc = 2 if isinstance(op, GcnInstruction) and op.MNEMONIC == "v_fma_f32" else (
                op.FORM.acc if isinstance(op, GcnInstruction) else None)
            if acc is not None:
                src = op.srcs[acc]
                if src in unit_of:
                    su, off = unit_of[src]
                    if su.reg is not None:
                        out.append(su.reg + off)
            for use in v.uses:
                if isinstance(use.operation, CopyOp):
                    cu, off = unit_of.get(use.operation.result, (None, 0))
                    if cu is not None and cu.reg is not None:
                        out.append(cu.reg + off)
        return out

    def assign(self, u: Unit, unit_of) -> None:
        limit = self.limits[u.cls]
        al = self.align(u)
        cands = [h for h in self.hints(u, unit_of) if h % al == 0 and h + u.n <= limit]
        for r in [*cands, *range(0, limit - u.n + 1, al)]:
            if all(self.free(u.cls, r + i, u.segs) for i in range(u.n)) and self._acc_ok(u, r, unit_of):
                u.reg = r
                self.occupy(u)
                return
        name = {VGPRType: "VGPRs", SGPRType: "SGPRs", AGPRType: "AGPRs"}[u.cls]
        at = u.start
        live = self.pressure(u.cls, at)
        where = next((op for op, p in self.pos.items() if p >= at), None)
        desc = f" at '{where.name}'" if where is not None else ""
        raise GemmcError(
            f"{PASS}: kernel @{self.kernel.sym_name.data} needs more than {limit} {name}: {live} are live{desc} "
            f"and {u.n} more are needed (no spilling; use smaller register tiles)"
        )

    @staticmethod
    def _acc_ok(u: Unit, r: int, unit_of) -> bool:
        """A matrix instruction's result and its accumulator (SrcC) are the same registers or
        disjoint ones (LLVM's constraint for results of more than 4 registers, kept for all)."""
        for v in u.values:
            pairs = []
            op = v.owner if isinstance(v, OpResult) else None
            if is_matrix(op):
                pairs.append(op.srcs[op.FORM.acc])  # type: ignore[union-attr]
            pairs += [use.operation.dsts[0] for use in v.uses
                      if is_matrix(use.operation) and use.index == use.operation.FORM.acc]  # type: ignore[attr-defined]
            mine = r + unit_of[v][1]
            for other in pairs:
                ou, off = unit_of.get(other, (None, 0))
                if ou is None or ou.reg is None:
                    continue
                theirs = ou.reg + off
                if theirs != mine and theirs < mine + other.type.n and mine < theirs + v.type.n:
                    return False
        return True

    def _check_disjoint(self) -> None:
        """No register holds two live values at once (an internal consistency check)."""
        for (cls, reg), lst in self.occ.items():
            for (a0, b0), (a1, b1) in zip(lst, lst[1:]):
                if a1 < b0:
                    raise GemmcError(f"{PASS}: internal error: {cls.PREFIX}{reg} is given to two values live "
                                     f"at once ({a0}-{b0}, {a1}-{b1})")

    def pressure(self, cls: type, at: float) -> int:
        n = 0
        for (c, _), lst in self.occ.items():
            if c is cls and any(s <= at < e for s, e in lst):
                n += 1
        return n

    def _drop_self_copies(self, body: Block) -> None:
        for op in list(_walk(body)):
            if isinstance(op, CopyOp) and op.source.type == op.result.type:
                op.result.replace_all_uses_with(op.source)
                op.detach()
                op.erase()


def _place_parts(op: ConcatOp, root: dict, webbed: set) -> None:
    """Alias the parts of a concat to their place in its range where nothing else decides
    their register, so that they are computed in place and the concat needs no moves: a
    part defined by an instruction, of the range's class, not loop-carried, not already an
    alias (a value in two concats, or twice in one, lands in the first place only).  Not
    where the range is in a web (an if's init, a loop-carried value): the web's other
    members write its registers while a part (hoisted out of the loop) must keep its value."""
    if op.result in webbed:
        return
    off = 0
    for p in op.parts:
        t = p.type
        if isinstance(t, GcnRegisterType):
            if (isinstance(p, OpResult) and isinstance(p.owner, GcnInstruction) and type(t) is type(op.result.type)
                    and not is_allocated(t) and p not in root and p not in webbed):
                root[p] = (op.result, off)
            off += t.n
        else:
            off += 1


def _merge(segs: list[tuple[float, float]]) -> list[tuple[float, float]]:
    out: list[list[float]] = []
    for a, b in sorted(segs):
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return [(a, b) for a, b in out]


def _early_clobber(op: Operation) -> bool:
    """Its results may not share a register with its operands: loads, and instructions
    that write a register range (v_mad_u64_u32)."""
    if not isinstance(op, GcnInstruction):
        return False
    if op.FORM.fmt in ("SMEM", "DS", "GLOBAL") and op.dsts:
        return True
    return any(isinstance(r.type, GcnRegisterType) and r.type.n > 1 for r in op.dsts)


def _walk(block: Block):
    for op in block.ops:
        yield op
        for r in op.regions:
            for b in r.blocks:
                yield from _walk(b)
