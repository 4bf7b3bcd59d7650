"""Replace a tiled kernel's compute in place: its accumulators, K-tile compute loop and epilogue.

register-tiling and the matrix-core passes change how the workgroup's threads share the
block tile: the accumulator tile each owns, the loop that multiplies the LDS tiles, the
loops that store C, the workgroup's size, and which way the LDS tiles run.  They change
only that.  The copies into LDS (gemm.copy), the K loop, its barriers, a prologue or a
prefetch that double-buffer made, padding and the like stay as they are.

What is replaced, found in the IR (`_Parts`):
    setup     the top-level ops between `tid` (the copies' thread id) and the first LDS tile
    compute   the K loop's `gemm.role = "compute"` loop, reading the tiles at the slot `buf`
    epilogue  the top-level ops after the K loop
Before anything changes, these are compared with what the kernel's current schedule writes
there (gemmc.tiled_kernel's writer, bound to the same values), so that an edit inside them is
refused at its op rather than dropped.  A change of tile layout (tile_b -> tile_b_t) retypes the
buffer and flips the `transpose` of the gemm.copy ops writing it; any other access to it is
refused.  A new workgroup size updates gpu.known_block_size, the launch, and `tid`.
"""

from __future__ import annotations

from xdsl.dialects import arith, func, gpu, scf
from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, MemRefType, UnitAttr, i32
from xdsl.ir import Block, Operation, SSAValue
from xdsl.rewriter import InsertPoint
from xdsl.transforms.dead_code_elimination import region_dce

from gemmc.transforms import matrix_kernel
from gemmc.transforms.contraction import Contraction, find_role, role
from gemmc.support.diagnostics import pass_error
from gemmc.dialects.gemm import CopyOp
from gemmc.support.ir_names import (
    KNOWN_BLOCK_SIZE_ATTR,
    ROLE_COMPUTE,
    ROLE_K_LOOP,
    ROLE_LOAD_A,
    SCHEDULE_ATTR,
    UNROLL_ATTR,
)
from gemmc.transforms.kernel_builder import KernelBuilder, constant_value
from gemmc.transforms.lds_access import accesses, retype_alloc
from gemmc.transforms.schedule import Schedule
from gemmc.transforms.tiled_kernel import Writer, fix_launch, kernel_ids


class _Parts:
    """Where the compute of a tiled kernel is, and the values it is built from."""

    def __init__(self, con: Contraction):
        self.con = con
        kernel = con.kernel
        name = con.pass_name
        self.body = kernel.body.block
        self.k_loop = find_role(kernel, ROLE_K_LOOP)
        if not isinstance(self.k_loop, scf.ForOp) or self.k_loop.parent_op() is not kernel:
            raise pass_error(name, kernel, "expects the kernel's K loop (gemm.role = \"k_loop\") at its top level")
        computes = [op for op in self.k_loop.body.block.ops if role(op) == ROLE_COMPUTE]
        if len(computes) != 1:
            raise pass_error(name, self.k_loop, "expects one compute loop (gemm.role = \"compute\") in the K loop")
        self.compute = computes[0]
        self.copies = {}
        for op in kernel.walk():
            if isinstance(op, CopyOp):
                self.copies.setdefault("a" if role(op) == ROLE_LOAD_A else "b", []).append(op)
        if set(self.copies) != {"a", "b"}:
            raise pass_error(name, kernel, "expects the gemm.copy ops of A and B (lds-tiling's copies, before "
                             "lower-copies and double-buffer{stage=registers})")
        self.tile_a = self._one({c.dst for c in self.copies["a"]}, "A's copies write more than one buffer")
        self.tile_b = self._one({c.dst for c in self.copies["b"]}, "B's copies write more than one buffer")
        self.tid = self._one({c.tid for c in self.copies["a"] + self.copies["b"]}, "the copies use different thread ids")
        ops = list(self.body.ops)
        tid_op, first_tile = self.tid.owner, min(ops.index(self.tile_a.owner), ops.index(self.tile_b.owner))
        if not isinstance(tid_op, Operation) or tid_op not in ops or ops.index(tid_op) > first_tile:
            raise pass_error(name, kernel, "expects the thread id and then the LDS tiles at the kernel's top level")
        self.setup = ops[ops.index(tid_op) + 1:first_tile]
        k = ops.index(self.k_loop)
        self.epilogue = [op for op in ops[k + 1:] if not isinstance(op, gpu.ReturnOp)]
        self.buf = self._slot()
        ids = kernel_ids(con)
        self.tx, self.ty = ids["tx"], ids["ty"]
        a, b = self.copies["a"][0], self.copies["b"][0]
        # row/column origin and bounds of the block tile, as the copies have them
        self.row0, self.M = (a.o1, a.cols) if con.transpose_a else (a.o0, a.rows)
        self.col0, self.N = (b.o0, b.rows) if con.transpose_b else (b.o1, b.cols)
        self.K = a.rows if con.transpose_a else a.cols

    def _one(self, values: set, message: str) -> SSAValue:
        if len(values) != 1:
            raise pass_error(self.con.pass_name, self.con.kernel, message)
        return next(iter(values))

    def _slot(self) -> SSAValue | None:
        """The slot index the compute reads the tiles at (multi-buffered), else None."""
        slots = set()
        for a in accesses(self.tile_a.owner, self.con.pass_name):
            if self.compute.is_ancestor(a.op):
                slots.add(a.indices[0] if len(a.indices) == 3 else None)
        if len(slots) != 1:
            raise pass_error(self.con.pass_name, self.compute, "expects the compute to read the A tile at one slot")
        return slots.pop()

    def replaced(self) -> list[Operation]:
        return [*self.setup, self.compute, *self.epilogue]


def rewrite_compute(con: Contraction, s: Schedule) -> None:
    """Give the kernel schedule `s`'s accumulators, compute loop, epilogue and workgroup,
    in place (module docstring)."""
    parts = _Parts(con)
    _check_unchanged(con, parts)
    kernel = con.kernel
    _relayout(con, parts, parts.tile_a, "a", bool(s.a_kmajor), con.transpose_a)
    _relayout(con, parts, parts.tile_b, "b", bool(s.b_transposed), con.transpose_b)
    w = _bound_writer(con, s, parts)
    setup = w.kb = KernelBuilder.before(parts.tile_a.owner if _before(parts.tile_a.owner, parts.tile_b.owner)
                                        else parts.tile_b.owner)
    _write_setup(w)
    # the setup dominates what follows: its constants and lane arithmetic are shared, as the writer shares them
    w._compute(_sharing(setup, parts.compute), parts.buf)
    w.kb = _sharing(setup, parts.k_loop.next_op)
    w._epilogue()
    for op in reversed(parts.replaced()):
        if not isinstance(op, arith.ConstantOp):  # the writer shares constants: DCE takes the unused
            _erase(op)
    for copy in parts.copies["a"] + parts.copies["b"]:
        if s.unroll:
            copy.attributes[UNROLL_ATTR] = UnitAttr()
    _resize_workgroup(con, parts, s)
    kernel.attributes[SCHEDULE_ATTR] = s.to_attr()
    region_dce(kernel.body)


def _sharing(setup: KernelBuilder, before: Operation) -> KernelBuilder:
    kb = KernelBuilder(InsertPoint.before(before), setup.constants)
    if "_ix_ops" in setup.__dict__:
        kb._ix_ops = dict(setup._ix_ops)
    return kb


def _before(x: Operation, y: Operation) -> bool:
    ops = list(x.parent_block().ops)
    return ops.index(x) < ops.index(y)


def _bound_writer(con: Contraction, s: Schedule, parts: _Parts):
    """The tiled kernel writer, its values bound to the kernel's own."""
    w = Writer(con, s)
    w.M, w.N, w.tx, w.ty, w.tid = parts.M, parts.N, parts.tx, parts.ty, parts.tid
    w.row0, w.col0, w.K = parts.row0, parts.col0, parts.K
    w.k_iv = parts.k_loop.body.block.args[0]  # the K tile: block-scaled kernels read their scales by it
    w.tile_a, w.tile_b = parts.tile_a, parts.tile_b
    return w


def _write_setup(w) -> None:
    if w.s.instr:
        matrix_kernel.setup(w)
    else:
        w.write_accumulators()


# -- nothing dropped ----------------------------------------------------------------------


def _check_unchanged(con: Contraction, parts: _Parts) -> None:
    """The ops to be replaced are what the current schedule writes there: else refuse the
    first that differs (a hand edit or another pass's change would be lost)."""
    scratch = Block()
    w = _bound_writer(con, con.schedule, parts)
    w.kb = KernelBuilder.at_end(scratch)
    _write_setup(w)
    w._compute(KernelBuilder.at_end(scratch), parts.buf)
    w._epilogue()
    expected = list(scratch.ops)
    actual = parts.replaced()
    bad = first_difference(expected, actual)
    scratch.erase(safe_erase=False)
    if bad is not None:
        raise pass_error(
            con.pass_name, bad,
            f"this '{bad.name}' is not what the kernel's schedule writes in its compute; {con.pass_name} "
            "replaces the accumulators, the compute loop and the epilogue and would drop it. Run the passes "
            "that change those after it",
        )


def first_difference(expected: list[Operation], actual: list[Operation],
                     same: list[tuple[SSAValue, SSAValue]] = ()) -> Operation | None:
    """Compare two op lists (nested regions included), constants by value, values defined
    inside each list by position, the pairs in `same` as equal, other values by identity."""
    exp, act = _flat(expected), _flat(actual)
    keys_e = {e: ("same", n) for n, (e, _) in enumerate(same)}
    keys_a = {a: ("same", n) for n, (_, a) in enumerate(same)}
    for i, (e, a) in enumerate(zip(exp, act)):
        if (e.name != a.name or dict(e.attributes) != dict(a.attributes) or dict(e.properties) != dict(a.properties)
                or [r.type for r in e.results] != [r.type for r in a.results]
                or [_key(v, keys_e) for v in e.operands] != [_key(v, keys_a) for v in a.operands]):
            return a
        for n, (re_, ra) in enumerate(zip(e.results, a.results)):
            keys_e[re_], keys_a[ra] = ("r", i, n), ("r", i, n)
        for r, (ge, ga) in enumerate(zip(e.regions, a.regions)):
            for bi, (be, ba) in enumerate(zip(ge.blocks, ga.blocks)):
                for ai, (xe, xa) in enumerate(zip(be.args, ba.args)):
                    keys_e[xe], keys_a[xa] = ("b", i, r, bi, ai), ("b", i, r, bi, ai)
    if len(act) > len(exp):
        return act[len(exp)]
    return act[-1] if len(act) < len(exp) and act else None


def _flat(ops: list[Operation]) -> list[Operation]:
    return [o for op in ops for o in op.walk() if not isinstance(o, arith.ConstantOp)]


def _key(v: SSAValue, keys: dict):
    c = constant_value(v)
    if c is not None:
        return ("c", c, v.type)
    if isinstance(v.owner, arith.ConstantOp):
        return ("c", v.owner.value, v.type)
    return keys.get(v, ("v", id(v)))


# -- what changes around the compute --------------------------------------------------------


def _relayout(con: Contraction, parts: _Parts, tile: SSAValue, operand: str, k_major: bool, trans: bool) -> None:
    """Turn the tile around when the schedule wants it the other way: a = k-major A,
    b = B^T ([n][k]).  A copy writes it transposed exactly when that differs from how the
    operand is stored."""
    copies = parts.copies[operand]
    want_transpose = k_major != trans
    if all((c.transpose is not None) == want_transpose for c in copies):
        return
    alloc = tile.owner
    for a in accesses(alloc, con.pass_name):
        if not isinstance(a.op, CopyOp) and not parts.compute.is_ancestor(a.op):
            raise pass_error(con.pass_name, a.op, f"this access to %{tile.name_hint} would not follow the layout "
                             f"change {con.pass_name} makes (the tile turned around)")
    t: MemRefType = tile.type
    shape = list(t.get_shape())
    for c in copies:
        if list(shape[-2:]) != list(c.dst_index(*c.tile)):
            raise pass_error(con.pass_name, alloc, f"%{tile.name_hint} {t} is not the copied tile exactly (padded?); "
                             "turning it around needs the tile's own shape")
    new = retype_alloc(alloc, MemRefType(t.get_element_type(), shape[:-2] + shape[-2:][::-1], memory_space=t.memory_space))
    new.results[0].name_hint = f"tile_{operand}" + ("_t" if k_major else "")
    for c in copies:
        if want_transpose:
            c.properties["transpose"] = UnitAttr()
        else:
            del c.properties["transpose"]
    setattr(parts, "tile_" + operand, new.results[0])


def _resize_workgroup(con: Contraction, parts: _Parts, s: Schedule) -> None:
    if con.block_size == (s.threads_x, s.threads_y):
        return
    tid = parts.tid.owner
    mul = tid.lhs.owner if isinstance(tid, arith.AddiOp) else None
    if not (isinstance(mul, arith.MuliOp) and mul.lhs is parts.ty and tid.rhs is parts.tx
            and constant_value(mul.rhs) == con.block_size[0]):
        raise pass_error(con.pass_name, tid, "expects tid = ty * threads_x + tx, to give the workgroup its new size")
    width = arith.ConstantOp(IntegerAttr(s.threads_x, mul.rhs.type))
    mul.parent_block().insert_op_before(width, mul)
    mul.operands = [mul.lhs, width.result]
    con.kernel.attributes[KNOWN_BLOCK_SIZE_ATTR] = DenseArrayBase.from_list(i32, [s.threads_x, s.threads_y, 1])
    fix_launch(con.kernel, s)
    module = con.kernel.parent_op().parent_op()
    for host in module.walk():
        if isinstance(host, func.FuncOp):
            region_dce(host.body)  # the launch's old block sizes


def _erase(op: Operation) -> None:
    if op.parent is not None:
        op.detach()
    op.erase(safe_erase=False)

