"""insert-waitcnt: the weakest s_waitcnt before each use of a load's result.

Expects: amdgcn.kernels after amdgcn-regalloc (physical registers, structured control flow).
Produces: `amdgcn.s_waitcnt {vmcnt = N, lgkmcnt = M}` (gfx12: `amdgcn.s_wait_loadcnt {imm = N}`,
`s_wait_dscnt`, `s_wait_kmcnt`) before every instruction that reads
(or overwrites) a register whose load may still be in flight, and before s_barrier while
LDS accesses are outstanding.  The model (docs/amdgcn.md has it per arch):

  * vmcnt counts vector memory loads in flight, and they return in order: a register
    loaded with k vector loads issued after it is safe after `vmcnt(k)`.  (On gfx9
    stores count in vmcnt too and may complete out of order with loads; counting only
    the loads issued after it is still sound, since `vmcnt(k)` bounds loads and stores
    together.  gfx11 counts stores apart, in vscnt, which gemmc never needs to wait on.)
  * lgkmcnt counts LDS accesses (in order, reads and writes) and scalar memory loads
    (out of order): an LDS result with k LDS accesses after it is safe after
    `lgkmcnt(k)`; a scalar load's result only after `lgkmcnt(0)`.
  * s_barrier makes other waves' LDS writes visible only if they completed: wait
    `lgkmcnt(0)` before it while any LDS access is outstanding.
  * a load from before a loop or branch whose result is read inside it is waited for
    before it, once;
  * counters saturate at the arch's maximum (vmcnt 63; lgkmcnt 15 on gfx9, 63 on gfx11):
    at most that many are in flight, older ones are complete;
  * gfx12 has a counter per kind and a wait instruction per counter: loadcnt (vector memory
    loads, in order, 63), dscnt (LDS, in order, 63), kmcnt (scalar loads, out of order, 31):
    `s_wait_loadcnt 0x2`, `s_wait_dscnt 0x0`, `s_wait_kmcnt 0x0`; before s_barrier only LDS
    accesses are waited for (scalar loads no longer share their counter).

The state is, per counter class, the number of accesses possibly in flight and, per
register, how many accesses of its class were issued after its load.  Through an
amdgcn.for the state at the loop head joins the state before the loop and at the end of
the body, iterated to a fixed point; through an EXEC-masked amdgcn.if the else branch
starts from the then branch's end (both run, one after the other), and either may be
skipped.  Joining keeps a register pending if it is pending on either path, with the
smaller count (the stronger wait).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass

from gemmc.target.arch import GcnIsa, get_gcn_isa
from gemmc.support.diagnostics import pass_error
from gemmc.dialects.amdgcn.control_flow import ForOp, IfOp, IfUniformOp
from gemmc.dialects.amdgcn.instructions import GcnInstruction, instr, is_memory_wait
from gemmc.dialects.amdgcn.kernel import KernelOp
from gemmc.dialects.amdgcn.pseudo import ConcatOp, CopyOp
from gemmc.dialects.amdgcn.registers import GcnRegisterType, SGPRType, VGPRType, is_allocated
from gemmc.target.module_arch import target_of

PASS = "insert-waitcnt"
CLASSES = ("vm", "lds", "smem")
COUNTERS = {  # the counter each class of access counts in
    False: {"vm": "vmcnt", "lds": "lgkmcnt", "smem": "lgkmcnt"},  # one s_waitcnt with fields
    True: {"vm": "loadcnt", "lds": "dscnt", "smem": "kmcnt"},  # gfx12: one s_wait_<counter> each
}


@dataclass(frozen=True)
class InsertWaitcntPass(ModulePass):
    name = "insert-waitcnt"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        arch = target_of(op)
        isa = get_gcn_isa(arch)
        kernels = [k for k in op.walk() if isinstance(k, KernelOp)]
        if not kernels:
            raise pass_error(PASS, op, "expects amdgcn.kernel ops; run lower-to-amdgcn first")
        for k in kernels:
            for v in _all_values(k.body.block):
                if not is_allocated(v.type):
                    raise pass_error(PASS, k, "expects allocated registers; run amdgcn-regalloc first")
            n = _Waits(isa).block(k.body.block, State(), insert=True)
            del n


def _all_values(block: Block):
    for op in block.walk():
        yield from op.results
        for r in op.regions:
            for b in r.blocks:
                yield from b.args


@dataclass
class State:
    out: dict = field(default_factory=lambda: {c: 0 for c in CLASSES})  # accesses possibly in flight
    age: dict = field(default_factory=dict)  # (class, reg) -> accesses of the class issued after its load

    def copy(self) -> State:
        return State(dict(self.out), dict(self.age))

    def join(self, other: State) -> State:
        out = {c: max(self.out[c], other.out[c]) for c in CLASSES}
        age = dict(self.age)
        for k, a in other.age.items():
            age[k] = min(a, age[k]) if k in age else a
        s = State(out, age)
        s.prune()
        return s

    def prune(self) -> None:
        self.age = {k: a for k, a in self.age.items() if a < self.out[k[0]]}

    def __eq__(self, other) -> bool:
        return isinstance(other, State) and self.out == other.out and self.age == other.age


def _used_inside(region_op: Operation) -> list[SSAValue]:
    """Values defined before `region_op` and read inside it: their loads are waited for
    before the loop or branch, once, rather than inside it (on every iteration, or in each
    branch while the state after a skippable branch keeps them pending)."""
    out: dict[SSAValue, None] = {}
    for r in region_op.regions:
        for b in r.blocks:
            for inner in b.walk():
                for v in inner.operands:
                    owner = v.owner if isinstance(v.owner, Operation) else v.owner.parent_op()  # type: ignore[union-attr]
                    if owner is not None and not region_op.is_ancestor(owner):
                        out[v] = None
    return list(out)


def _regs(v: SSAValue):
    t = v.type
    if isinstance(t, GcnRegisterType):
        p = "v" if isinstance(t, VGPRType) else ("s" if isinstance(t, SGPRType) else "a")
        for i in range(t.n):
            yield (p, t.first + i)


class _Waits:
    def __init__(self, isa: GcnIsa):
        self.isa = isa
        self.counter = COUNTERS[isa.split_counters]
        self.max = {"vm": isa.vmcnt_max, "lds": isa.lgkmcnt_max,
                    "smem": isa.kmcnt_max if isa.split_counters else isa.lgkmcnt_max}

    def need(self, s: State, vals, barrier: bool = False) -> dict[str, int]:
        """The counters to wait for before reading/writing `vals`."""
        want: dict[str, int] = {}
        for v in vals:
            for r in _regs(v):
                for c in CLASSES:
                    a = s.age.get((c, r))
                    if a is None:
                        continue
                    n = 0 if c == "smem" else a
                    key = self.counter[c]
                    want[key] = min(want.get(key, n), n)
        shared = self.counter["lds"] == self.counter["smem"]
        if barrier and (s.out["lds"] > 0 or shared and s.out["smem"] > 0):
            want[self.counter["lds"]] = 0
        return want

    def apply_wait(self, s: State, want: dict[str, int]) -> None:
        for c in CLASSES:
            n = want.get(self.counter[c])
            if n is None:
                continue
            if c != "smem":
                s.out[c] = min(s.out[c], n)
            elif n == 0:  # scalar loads return out of order: only a wait for all completes one
                s.out[c] = 0
        s.prune()

    def event(self, s: State, c: str, dsts) -> None:
        s.age = {k: (a + 1 if k[0] == c else a) for k, a in s.age.items()}
        s.out[c] = min(s.out[c] + 1, self.max[c])
        for v in dsts:
            for r in _regs(v):
                for cc in CLASSES:
                    s.age.pop((cc, r), None)
                s.age[(c, r)] = 0
        s.prune()

    def written(self, s: State, dsts) -> None:
        for v in dsts:
            for r in _regs(v):
                for cc in CLASSES:
                    s.age.pop((cc, r), None)

    def wait_before(self, op: Operation, s: State, want: dict[str, int], insert: bool) -> None:
        if not want:
            return
        self.apply_wait(s, want)
        if not insert:
            return
        if self.isa.split_counters:
            waits = [instr(f"s_wait_{k}", [], [], imm=n) for k, n in sorted(want.items())]
        else:
            waits = [instr("s_waitcnt", [], [], **want)]
        for w in waits:
            op.parent_block().insert_op_before(w, op)  # type: ignore[union-attr]

    def block(self, block: Block, s: State, insert: bool) -> State:
        for op in list(block.ops):
            s = self.op(op, s, insert)
        return s

    def op(self, op: Operation, s: State, insert: bool) -> State:
        if isinstance(op, ForOp):
            self.wait_before(op, s, self.need(s, [*op.operands, *_used_inside(op)]), insert)
            head = s.copy()
            for _ in range(64):
                end = self.block(op.body.block, head.copy(), insert=False)
                new = s.join(end)
                if new == head:
                    break
                head = new
            return self.block(op.body.block, head, insert)
        if isinstance(op, IfOp):
            self.wait_before(op, s, self.need(s, [*op.operands, *_used_inside(op)]), insert)
            t = self.block(op.then_region.block, s.copy(), insert)
            e_in = s.join(t)
            if op.else_region.blocks:
                e = self.block(op.else_region.block, e_in.copy(), insert)
                return e_in.join(e)
            return e_in
        if isinstance(op, IfUniformOp):
            self.wait_before(op, s, self.need(s, [*op.operands, *_used_inside(op)]), insert)
            t = self.block(op.then_region.block, s.copy(), insert)
            e = self.block(op.else_region.block, s.copy(), insert) if op.else_region.blocks else s
            return t.join(e)
        if isinstance(op, GcnInstruction):
            m = op.MNEMONIC
            if m == "s_waitcnt":
                self.apply_wait(s, op.mods)
                return s
            if is_memory_wait(op) and m.startswith("s_wait_"):
                self.apply_wait(s, {m[len("s_wait_"):]: op.mods["imm"]})
                return s
            want = self.need(s, [*op.srcs, *op.dsts], barrier=(m == "s_barrier"))
            self.wait_before(op, s, want, insert)
            fmt = op.FORM.fmt
            if fmt == "SMEM":
                self.event(s, "smem", op.dsts)
            elif fmt == "GLOBAL" and op.dsts:
                self.event(s, "vm", op.dsts)
            elif fmt == "DS":
                self.event(s, "lds", op.dsts)
            else:
                self.written(s, op.dsts)
            return s
        if isinstance(op, (CopyOp, ConcatOp)):
            want = self.need(s, [*op.operands, *op.results])
            self.wait_before(op, s, want, insert)
            self.written(s, op.results)
            return s
        return s
