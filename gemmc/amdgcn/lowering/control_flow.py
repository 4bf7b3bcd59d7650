"""Selection of scf.for and scf.if: amdgcn.for, amdgcn.if (EXEC-masked) and amdgcn.if_uniform.

A loop's bounds must be uniform (a scalar counter); its iter_args are carried in registers (a
vector<n x f32> one range of n registers, in AGPRs where an MFMA takes it as C with
accumulators=agpr).  A branch on a lane mask runs under EXEC, on a uniform i1 it is a scalar
branch.  Loop-carried values and branch results go through amdgcn.copy, which the allocator
coalesces away where it can.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects import scf
from xdsl.dialects.builtin import VectorType
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from gemmc.amdgcn.lowering.finish import finish_block
from gemmc.amdgcn.lowering.integers import IntegerArithmetic
from gemmc.amdgcn.lowering.ranges import RegisterRanges
from gemmc.amdgcn.values import B, E8, F, H, I, Packed, Vec
from gemmc.dialects.amdgcn.control_flow import ForOp, IfOp, IfUniformOp, YieldOp
from gemmc.dialects.amdgcn.pseudo import ConcatOp, CopyOp
from gemmc.dialects.amdgcn.registers import AGPRType, VGPRType
from gemmc.dialects.amdgpu import MFMAOp
from gemmc.support.ir_names import ROLE_ATTR


class ControlFlow(IntegerArithmetic, RegisterRanges):
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
        finish_block(self, body)
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
            finish_block(self, blk)
            self.pop()
        if divergent:
            mask = self.insert(CopyOp(c.reg, self.S(self.mask_n))).results[0]  # type: ignore[arg-type]
            new = self.insert(IfOp(mask, types, Region(tb), Region() if inits_form else Region(eb), inits))
        else:
            new = self.insert(IfUniformOp(c.reg, types, Region(tb), Region(eb)))  # type: ignore[arg-type]
        for r, tv, nr in zip(op.results, t_vals, new.results):
            self.env[r] = self._wrap(tv, nr)


CONTROL_FLOW_OPS: dict[type, Callable] = {scf.ForOp: ControlFlow._for, scf.IfOp: ControlFlow._if}
"""The handlers of structured control flow, by op class."""
