"""The matrix-core epilogue's stores of C by pairs: vectorize's rewrite of the fragment store loop.

gemmc.transforms.matrix_kernel.epilogue stores each accumulator item of a lane on its own:

    for g in 0 .. items:                       (the innermost loop of ti, tj, g)
        r = lane_row + i(g) ; c = lane_col + j(g)                  (the D layout on IR values)
        if (r < M && c < N) { sum = acc[ti][tj][g]  (acc_read); <epilogue at (r, c)>; C[r, c] = v }   (epilogue)

Where the instruction's D layout puts every even item g and g + 1 of a lane on one row, at columns
c and c + 1 with c even (`pairs_layout`: sm_90's mma.sync m16n8 (c0 c1, c2 c3) and wgmma's D;
none of AMD's MFMA / WMMA C layouts, whose consecutive items lie down a column), `store_pairs`
rewrites the loop to step by 2:

    for g in 0 .. items step 2:
        r, c as before ; c1 = c + 1
        if (r >= M || c1 >= N [|| N % 2 != 0 where N is dynamic]) {                (epilogue_pairs)
            <the original guard at g> ; <the original guard at g + 1>               (scalar, role epilogue)
        } else {
            pair = vector.load acc[ti][tj][g] : vector<2 x acc>                     (acc_read)
            v0 = <epilogue at (r, c) of pair[0]> ; v1 = <epilogue at (r, c1) of pair[1]>
            vector.store [v0, v1], C[r, c]                                          (vector<2 x C's type>)
        }

The scalar branch comes first, so that gemmc.transforms.contraction.analyze (double-buffer after
vectorize) still finds the scalar guard as the epilogue; split-k and stream-k take stores under
either role (one accumulator value each: the vector store's is the pair).  A vector store needs
C[r, c] aligned to two elements: c is proven even from its index arithmetic
(gemmc.transforms.lds_access.known_multiple, with g now stepping by 2) and C's row length even,
statically (or by gemm.assume_rows_aligned) or at run time (the dynamic row length's parity joins
the branch's condition); a static odd row length keeps the loop as it is.
"""

from __future__ import annotations

from xdsl.dialects import arith, memref, scf, vector
from xdsl.dialects.builtin import BFloat16Type, Float16Type, Float32Type, VectorType
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from gemmc.support.diagnostics import GemmcError, pass_error
from gemmc.support.ir_names import (
    GLOBAL_SPACE, ROLE_ACC_READ, ROLE_EPILOGUE, ROLE_EPILOGUE_PAIRS, SCHEDULE_ATTR, memory_space,
)
from gemmc.target.arch import Layout, get_matrix_instr
from gemmc.target import wgmma
from gemmc.target.module_arch import arch_of
from gemmc.transforms.contraction import role, set_role
from gemmc.transforms.kernel_builder import KernelBuilder, constant_value, index_constant
from gemmc.transforms.lds_access import known_multiple, row_multiple
from gemmc.transforms.schedule import Schedule

PAIR = 2
_PAIR_TYPES = (Float32Type, Float16Type, BFloat16Type)  # C's types stored as a 2-vector


def pairs_layout(d: Layout) -> bool:
    """Every lane's items 2p and 2p + 1 lie on one row at columns c and c + 1, c even."""
    import numpy as np  # in the function: lit's `gemmc opt` / `compile` runs never reach it
    if d.items % PAIR:
        return False
    lanes = np.arange(d.lanes)[:, None]
    items = np.arange(d.items)[None, :]
    shape = (d.lanes, d.items)
    blk, row, col = (np.broadcast_to(x, shape) for x in d.at(lanes, items))
    even, odd = slice(0, None, 2), slice(1, None, 2)
    return bool((blk[:, even] == blk[:, odd]).all() and (row[:, even] == row[:, odd]).all()
                and (col[:, odd] == col[:, even] + 1).all() and (col[:, even] % 2 == 0).all())


def d_layout_of(kernel, pass_name: str) -> tuple[Layout, int] | None:
    """The D layout and accumulator stride of a matrix-core kernel's instruction; None for FMAs."""
    attr = kernel.attributes.get(SCHEDULE_ATTR)
    if attr is None:
        return None
    s = Schedule.from_attr(attr)
    if not s.instr:
        return None
    arch = arch_of(kernel)
    try:
        instr = wgmma.get(arch, s.instr) if wgmma.is_wgmma(s.instr) else get_matrix_instr(arch, s.instr)
    except GemmcError as e:
        raise pass_error(pass_name, kernel, f"the schedule's instruction: {e.message}") from None
    if instr is None:
        raise pass_error(pass_name, kernel, f"the schedule's instruction {s.instr} is no {arch.name} instruction")
    return instr.d, instr.d_stride


def store_pairs(kernel, pass_name: str, strict: bool = False) -> int:
    """Rewrite the matrix-core epilogue loops of `kernel` whose layout pairs items; how many.  A kernel
    whose layout does not pair (or an FMA kernel) is left as it is; so is a loop whose pairs this
    cannot prove aligned or whose guard is not matrix_kernel.epilogue's, or with strict=true, a located error."""
    found = d_layout_of(kernel, pass_name)
    if found is None or found[1] != 1 or not pairs_layout(found[0]):
        return 0
    items = found[0].items
    done = 0
    for guard in [op for op in kernel.walk() if role(op) == ROLE_EPILOGUE]:
        loop = guard.parent_op()
        if not _is_item_loop(loop, items):
            continue
        reason = _rewrite(loop, guard)
        if reason is None:
            done += 1
        elif strict:
            at, why = reason
            raise pass_error(pass_name, at, f"cannot store C by pairs of items: {why}")
    return done


def _is_item_loop(loop, items: int) -> bool:
    return (isinstance(loop, scf.ForOp) and constant_value(loop.lb) == 0 and constant_value(loop.ub) == items
            and constant_value(loop.step) == 1 and not loop.results)


def _parts(guard: scf.IfOp):
    """The guard's acc_read load, its store to C, r, c, and M, N from its condition; or (op, why not)."""
    ops = list(guard.true_region.block.ops)
    store = ops[-2] if len(ops) >= 2 else None
    reads = [op for op in ops if role(op) == ROLE_ACC_READ]
    cond = guard.cond.owner
    if not (isinstance(store, memref.StoreOp) and len(reads) == 1 and isinstance(reads[0], memref.LoadOp)
            and isinstance(cond, arith.AndIOp) and not guard.false_region.blocks):
        return guard, "the epilogue is not a guarded store of one accumulator item (matrix_kernel.epilogue's form)"
    row_cmp, col_cmp = cond.lhs.owner, cond.rhs.owner
    if not all(isinstance(x, arith.CmpiOp) and x.predicate.value.data == 6 for x in (row_cmp, col_cmp)):  # ult
        return cond, "the epilogue's guard is not r < M && c < N"
    r, c = row_cmp.lhs, col_cmp.lhs
    if len(store.indices) != 2 or store.indices[0] is not r or store.indices[1] is not c:
        return store, "the epilogue does not store C[r, c] at the guard's row and column (a column-major C?)"
    return reads[0], store, r, c, row_cmp.rhs, col_cmp.rhs


def _rewrite(loop: scf.ForOp, guard: scf.IfOp) -> tuple[Operation, str] | None:
    """The rewrite of one item loop (module docstring); or where and why it does not apply."""
    parts = _parts(guard)
    if len(parts) == 2:
        return parts
    read, store, r, c, m, n = parts
    out = store.memref
    if memory_space(out.type) != GLOBAL_SPACE or not isinstance(out.type.element_type, _PAIR_TYPES):
        return store, f"C of {out.type.element_type} in global memory has no 2-element vector store here"
    acc_index = list(read.indices)
    g = loop.body.block.args[0]
    if acc_index[-1] is not g:  # (d_stride 1: item g is element g)
        return read, "the accumulator read is not at the loop's item"
    row = row_multiple(out)
    dynamic = out.type.get_shape()[-1] < 0 and row % PAIR != 0
    if not dynamic and row % PAIR:
        return store, f"C's row length {row} is odd: pairs on odd rows start misaligned"
    body = loop.body.block
    index_ops = [op for op in body.ops if op is not guard and not isinstance(op, scf.YieldOp)]
    if any(op.regions for op in index_ops):
        return loop, "the epilogue loop holds more than the index arithmetic and its guard"
    # g steps by 2 from here on: c must then be even (each pair's first column)
    one = loop.step
    two = index_constant(PAIR)
    Rewriter.insert_op(two, InsertPoint.before(loop))
    loop.operands[2] = two.result
    if known_multiple(c) % PAIR:
        loop.operands[2] = one
        Rewriter.erase_op(two)
        return (c.owner if isinstance(c.owner, Operation) else store), "the column is not provably even"
    kb = KernelBuilder.before(guard)
    c1 = kb.add(c, kb.index(1), "c_next")
    outside = kb.op(arith.OrIOp(kb.op(arith.CmpiOp(r, m, "uge")), kb.op(arith.CmpiOp(c1, n, "uge"))), "edge")
    if dynamic:
        ld = kb.dim(out, 1)
        odd = kb.op(arith.CmpiOp(kb.op(arith.RemUIOp(ld, kb.index(PAIR))), kb.index(0), "ne"))
        outside = kb.op(arith.OrIOp(outside, odd), "edge")
    pairs = scf.IfOp(outside, [], Region(Block()), Region(Block()))
    set_role(pairs, ROLE_EPILOGUE_PAIRS)
    Rewriter.insert_op(pairs, InsertPoint.before(guard))
    # the scalar branch: the guard at g, then the index ops and the guard again at g + 1
    scalar = pairs.true_region.block
    guard.detach()
    scalar.add_op(guard)
    sb = KernelBuilder(InsertPoint.at_end(scalar))
    mapping = {g: sb.add(g, sb.index(1), "g_next")}
    for op in index_ops + [guard]:
        scalar.add_op(op.clone(value_mapper=mapping))
    scalar.add_op(scf.YieldOp())
    # the vector branch
    vec = pairs.false_region.block
    vb = KernelBuilder(InsertPoint.at_end(vec))
    acc_t = read.res.type
    pair = vb.op(vector.LoadOp(read.memref, acc_index, VectorType(acc_t, [PAIR])), "pair")
    set_role(pair.owner, ROLE_ACC_READ)
    values = []
    for k, col in enumerate((c, c1)):
        s = vb.op(vector.ExtractOp(pair, [k], acc_t), f"sum{k}")
        values.append(_epilogue_at(vb, guard, read, store, {read.res: s, c: col}))
    out_t = VectorType(out.type.element_type, [PAIR])
    v = vb.op(vector.BroadcastOp(vb.float(0.0, out_t.element_type), out_t), "out_pair")
    for k, x in enumerate(values):  # (element by element: a broadcast would print its operand twice)
        v = vb.op(vector.InsertOp(x, v, [k]), "out_pair")
    vec.add_op(vector.StoreOp(v, out, [r, c]))
    vec.add_op(scf.YieldOp())
    return None


def _epilogue_at(vb: KernelBuilder, guard: scf.IfOp, read: Operation, store: memref.StoreOp, mapping: dict) -> SSAValue:
    """The guard's epilogue ops cloned into vb's block under `mapping`; the value it stores."""
    mapping = dict(mapping)
    for op in guard.true_region.block.ops:
        if op is read or op is store or isinstance(op, scf.YieldOp):
            continue
        vb.b.insert(op.clone(value_mapper=mapping))
    v = store.value
    return mapping.get(v, v)


def in_pairs_vector(op: Operation) -> bool:
    """`op` lies in the vector branch of a pair of items (store_pairs)."""
    child, p = op, op.parent_op()
    while p is not None:
        if isinstance(p, scf.IfOp) and role(p) == ROLE_EPILOGUE_PAIRS:
            return child.parent_region() is p.false_region
        child, p = p, p.parent_op()
    return False


def scalar_pairs(kernel) -> None:
    """Undo store_pairs: each pair's branch replaced by its scalar stores (split-k's atomic adds,
    which have no vector form); the loop keeps its step of 2, the scalar branch storing both items."""
    for pairs in [op for op in kernel.walk() if isinstance(op, scf.IfOp) and role(op) == ROLE_EPILOGUE_PAIRS]:
        block = pairs.true_region.block
        for op in list(block.ops):
            if isinstance(op, scf.YieldOp):
                continue
            op.detach()
            Rewriter.insert_op(op, InsertPoint.before(pairs))
        cond = pairs.cond
        pairs.detach()
        pairs.erase()
        _erase_dead(cond)


def _erase_dead(v: SSAValue) -> None:
    owner = v.owner
    if isinstance(owner, Operation) and not owner.regions and all(not r.uses for r in owner.results) \
            and owner.parent is not None and isinstance(owner, (arith.OrIOp, arith.CmpiOp, arith.RemUIOp,
                                                                arith.AddiOp, arith.ConstantOp, memref.DimOp)):
        operands = list(owner.operands)
        owner.detach()
        owner.erase()
        for o in operands:
            _erase_dead(o)
