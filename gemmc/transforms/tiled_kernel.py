"""Write a GEMM kernel's loop nest for a tiling schedule.

lds-tiling reads the step-1 kernel back (gemmc.transforms.contraction) and calls `tile_in_place` to
replace its guarded K loop with this loop nest; the epilogue ops are moved over from the
guard (cloned with row, col and the sum remapped), so whatever the frontend put there survives.
register-tiling and the matrix-core passes use the same writer for the parts they replace
in place (gemmc.transforms.compute_rewrite): the accumulators, the compute loop, the epilogue.

The body, with the schedule's names:

    block_row = block_id.y * block_m ; block_col = block_id.x * block_n
    acc = memref.alloca : memref<thread_m x thread_n, private>    zeroed
    tile_a = LDS [block_m][block_k] ; tile_b = LDS [block_k][block_n] (or [block_n][block_k])
    for t in 0 .. ceil(K / block_k):                              (k_loop)
        gemm.copy of A's and B's tiles (the workgroup's threads, zeros outside the matrix)
        gpu.barrier
        for kk in 0 .. block_k: acc[i][j] += tile_a[..][kk] * tile_b[kk][..]   (compute)
        gpu.barrier
    for i, j: if (r < M && c < N) { sum = acc[i][j]; <epilogue> }  (epilogue)

The copies are `gemm.copy` ops; lower-copies makes their loops.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects import arith, gpu, memref, scf, vector
from xdsl.dialects.builtin import IntegerAttr, MemRefType, UnitAttr, VectorType
from xdsl.ir import Attribute, SSAValue
from xdsl.rewriter import InsertPoint
from xdsl.transforms.dead_code_elimination import region_dce

from gemmc.transforms import grouping, matrix_kernel
from gemmc.transforms.contraction import Contraction, find_role, set_role
from gemmc.support.diagnostics import pass_error
from gemmc.dialects.gemm import MX_BLOCK, CopyOp
from gemmc.support.ir_names import (
    LDS_SPACE,
    PRIVATE_SPACE,
    ROLE_ACC_READ,
    ROLE_COMPUTE,
    ROLE_EPILOGUE,
    ROLE_K_LOOP,
    ROLE_LOAD_A,
    ROLE_LOAD_B,
    ROLE_LOAD_SA,
    ROLE_LOAD_SB,
    SCHEDULE_ATTR,
    TRANSPOSED_ATTR,
    UNROLL_ATTR,
)
from gemmc.transforms.kernel_builder import KernelBuilder
from gemmc.transforms.schedule import Schedule

"""AMDGPU's private (per-lane) address space: register tiles live here until promoted."""


def private_type(shape, element: Attribute) -> MemRefType:
    return MemRefType(element, shape, memory_space=IntegerAttr(PRIVATE_SPACE, 64))


def lds_type(shape, element: Attribute) -> MemRefType:
    return MemRefType(element, shape, memory_space=IntegerAttr(LDS_SPACE, 64))


def tile_in_place(con: Contraction, s: Schedule) -> None:
    """lds-tiling's rewrite of a step-1 kernel: its guarded K loop becomes the LDS-tiled loop
    nest of schedule `s`, in place.

    What stands before the guard (the sizes, the thread and block ids, anything else) stays,
    and the nest is built from those values; the guard goes, its K loop replaced by the
    tiled one and its epilogue ops moved into the new epilogue (gemmc.transforms.contraction checked
    that the guard holds nothing else).  The launch's grid follows the block tile."""
    kernel = con.kernel
    guard = find_role(kernel, ROLE_EPILOGUE)
    if guard is None or guard.parent_op() is not kernel:
        raise pass_error(con.pass_name, kernel, "expects the epilogue guard at the kernel's top level")
    w = Writer(con, s)
    w.kb = kb = KernelBuilder.before(guard)
    w.M, w.N = _bounds(con, guard)
    w.K = find_role(guard, ROLE_K_LOOP).ub
    ids = kernel_ids(con)
    w.tx, w.ty = ids["tx"], ids["ty"]
    if grouping.grouped_info(kernel) is not None:  # the group search again, for tiles of block_m rows
        sizes, _ = grouping.grouped_info(kernel)
        group = grouping.group_tile(kb, kernel.body.block.args[sizes], ids["by"], s.block_m)
        grouping.mark_grouped(kernel, sizes, s.block_m)
        w.row0, w.M, w.group = group.row0, group.end, group.g
    else:
        w.row0 = kb.mul(ids["by"], kb.index(s.block_m), "block_row")
    w.col0 = kb.mul(ids["bx"], kb.index(s.block_n), "block_col")
    w.tid = kb.add(kb.mul(w.ty, kb.index(s.threads_x)), w.tx, "tid")
    w.write_body()
    guard.detach()
    guard.erase(safe_erase=False)
    kernel.attributes[SCHEDULE_ATTR] = s.to_attr()
    fix_launch(kernel, s)
    region_dce(kernel.body)


def kernel_ids(con: Contraction) -> dict[str, SSAValue]:
    """tx, ty, bx, by: the kernel's gpu.thread_id and gpu.block_id values at its top level."""
    names = {(gpu.ThreadIdOp, "x"): "tx", (gpu.ThreadIdOp, "y"): "ty", (gpu.BlockIdOp, "x"): "bx",
             (gpu.BlockIdOp, "y"): "by"}
    ids = {names[(type(op), op.dimension.data)]: op.results[0] for op in con.kernel.body.block.ops
           if isinstance(op, gpu.ThreadIdOp | gpu.BlockIdOp) and (type(op), op.dimension.data) in names}
    if len(ids) != 4:
        raise pass_error(con.pass_name, con.kernel, "expects gpu.thread_id and gpu.block_id in x and y at the "
                         "kernel's top level")
    return ids


def _bounds(con: Contraction, guard: scf.IfOp) -> tuple[SSAValue, SSAValue]:
    """M and N as the step-1 guard compares row and column with them."""
    found = {}
    for op in guard.parent_block().ops:
        if isinstance(op, arith.CmpiOp) and op.lhs in (con.row, con.col):
            found[op.lhs] = op.rhs
    if set(found) != {con.row, con.col}:
        raise pass_error(con.pass_name, guard, "expects the guard to compare the row with M and the column with N")
    return found[con.row], found[con.col]


class Writer:
    """Writes the parts of a tiled kernel at `kb`, from values of the kernel that the caller
    binds: M, N, K, tx, ty, row0, col0, tid (and tile_a, tile_b, acc where it writes less
    than the whole body)."""

    def __init__(self, con: Contraction, s: Schedule):
        self.con, self.s = con, s
        self.args = {arg: arg for arg in con.kernel.body.block.args}  # the epilogue's clones keep them
        self.A, self.B, self.C = con.a, con.b, con.c
        self.group: SSAValue | None = None  # a grouped B's matrix: the workgroup's group

    def write_body(self) -> None:
        """Accumulators, LDS tiles, the K loop and the epilogue, from the header values
        (M, N, K, tx, ty, row0, col0, tid) bound by the caller."""
        kb, s, con = self.kb, self.s, self.con
        if s.instr:  # matrix cores: wave tiles, accumulators in the instruction's layout
            matrix_kernel.setup(self)
        else:
            self.write_accumulators()
        a_shape = [s.block_k, s.block_m] if s.a_kmajor else [s.block_m, s.block_k]
        self.tile_a = kb.alloca(lds_type(a_shape, con.in_type), "tile_a_t" if s.a_kmajor else "tile_a")
        b_shape = [s.block_n, s.block_k] if s.b_transposed else [s.block_k, s.block_n]
        self.tile_b = kb.alloca(lds_type(b_shape, con.b_type), "tile_b_t" if s.b_transposed else "tile_b")
        num_tiles = kb.ceildiv(self.K, kb.index(s.block_k), "num_tiles")
        if self.group is not None:  # a tile past the last group's: no K tile (it stores nothing)
            busy = kb.lt(self.row0, self.M, "busy")
            num_tiles = kb.op(arith.SelectOp(busy, num_tiles, kb.index(0)), "group_tiles")
        self._single_buffered(num_tiles)
        self._epilogue()

    def write_accumulators(self) -> None:
        """A thread's tile of accumulators, zeroed."""
        kb, s, con = self.kb, self.s, self.con
        self.acc = kb.alloca(private_type([s.thread_m, s.thread_n], con.acc_type), "acc")
        zero = kb.float(0.0, con.acc_type, "zero")
        self._nest(kb, [s.thread_m, s.thread_n], lambda b, ij: b.store(zero, self.acc, ij), ["i", "j"])

    # -- the K loop ------------------------------------------------------------------

    def _single_buffered(self, num_tiles: SSAValue) -> None:
        def tile(b: KernelBuilder, t, _):
            self.k_iv = t
            k0 = b.mul(t, b.index(self.s.block_k), "k0")
            self._copies(b, k0, None)
            b.b.insert(gpu.BarrierOp())
            self._compute(b, None)
            b.b.insert(gpu.BarrierOp())
            return []

        loop = self.kb.for_(self.kb.index(0), num_tiles, self.kb.index(1), [], tile, "t")
        set_role(loop, ROLE_K_LOOP)

    # -- global -> LDS copies ----------------------------------------------------------

    def _tiles(self, k0: SSAValue) -> tuple[tuple, tuple]:
        """The A and B tiles at depth k0 in stored coordinates: (outer extent, inner extent,
        outer origin, inner origin, outer size, inner size) of the row-major memref."""
        s, con = self.s, self.con
        if con.transpose_a:
            a = (s.block_k, s.block_m, k0, self.row0, self.K, self.M)
        else:
            a = (s.block_m, s.block_k, self.row0, k0, self.M, self.K)
        if con.transpose_b:
            b = (s.block_n, s.block_k, self.col0, k0, self.N, self.K)
        else:
            b = (s.block_k, s.block_n, k0, self.col0, self.K, self.N)
        return a, b

    def _copies(self, b: KernelBuilder, k0: SSAValue, buf: SSAValue | None) -> None:
        for op in self._copy_ops(k0, buf):
            b.b.insert(op)

    def _copy_ops(self, k0: SSAValue, buf: SSAValue | None) -> list[CopyOp]:
        """The gemm.copy of the A and of the B tile at depth k0 into LDS (slot `buf`)."""
        s, con = self.s, self.con
        a, bb = self._tiles(k0)
        ops = []
        for role_name, src, tile, width, lds, index, trans, bit in (
            (ROLE_LOAD_A, self.A, a, s.width_a, self.tile_a, self._a_lds_index(con.transpose_a, s.a_kmajor),
             con.transpose_a, 1),
            (ROLE_LOAD_B, self.B, bb, s.width_b, self.tile_b, self._b_lds_index(con.transpose_b), con.transpose_b, 2),
        ):
            e0, e1, o0, o1, rows, cols = tile
            op = CopyOp(src, [o0, o1], [rows, cols], lds, [buf] if buf is not None else [], self.tid, [e0, e1],
                        width, transpose=index(0, 1) == (1, 0), direct=bool(s.direct & bit),
                        group=self.group if role_name == ROLE_LOAD_B else None)
            set_role(op, role_name)
            if trans:
                op.attributes[TRANSPOSED_ATTR] = UnitAttr()
            self._unrolled(op)
            ops.append(op)
        return ops

    @staticmethod
    def _a_lds_index(trans: bool, kmajor: int) -> Callable:
        # stored (s0, s1) -> tile_a[m][k], or tile_a_t[k][m]
        if trans == bool(kmajor):
            return lambda s0, s1: (s0, s1)
        return lambda s0, s1: (s1, s0)

    def _b_lds_index(self, trans: bool) -> Callable:
        # stored (s0, s1) -> logical (k, n) -> tile_b[k][n] or tile_b_t[n][k]
        logical = (lambda s0, s1: (s1, s0)) if trans else (lambda s0, s1: (s0, s1))
        if self.s.b_transposed:
            return lambda s0, s1: logical(s0, s1)[::-1]
        return logical

    # -- compute ---------------------------------------------------------------------------

    def _compute(self, b: KernelBuilder, buf) -> None:
        if self.s.instr:
            matrix_kernel.compute(self, b, buf)
            return
        s, con = self.s, self.con
        lead = [buf] if buf is not None else []
        self._buf = buf

        def a_at(x, m, kk):
            idx = [kk, m] if s.a_kmajor else [m, kk]
            a = x.convert(x.load(self.tile_a, lead + idx, "a"), con.acc_type, unsigned=con.unsigned_a)
            return x.fmul(a, self.scale_at(x, "a", x.add(self.row0, m), kk), "a_scaled") if con.scaled else a

        def b_at(x, kk, n):
            idx = [n, kk] if s.b_transposed else [kk, n]
            b = x.convert(x.load(self.tile_b, lead + idx, "b"), con.acc_type, unsigned=con.unsigned_b)
            return x.fmul(b, self.scale_at(x, "b", x.add(self.col0, n), kk), "b_scaled") if con.scaled else b

        if con.scaled and (s.chunk_m or s.chunk_n):
            raise pass_error(con.pass_name, con.kernel, "a block-scaled kernel takes no chunked fragments (lds-layout)")

        def step(x: KernelBuilder, kk, _):
            if s.contiguous:
                self._outer_product(x, kk, a_at, b_at)
            else:
                def fma(y: KernelBuilder, ij):
                    i, j = ij
                    m = y.add(self.ty, y.mul(i, y.index(s.threads_y)))
                    n = y.add(self.tx, y.mul(j, y.index(s.threads_x)))
                    acc = y.load(self.acc, [i, j], "c")
                    y.store(y.fma(a_at(y, m, kk), b_at(y, kk, n), acc), self.acc, [i, j])

                self._nest(x, [s.thread_m, s.thread_n], fma, ["i", "j"])
            return []

        loop = b.for_(b.index(0), b.index(s.block_k), b.index(1), [], step, "kk")
        set_role(loop, ROLE_COMPUTE)
        self._unrolled(loop)

    def scale_at(self, x: KernelBuilder, operand: str, rc: SSAValue, kk: SSAValue, convert: bool = True) -> SSAValue:
        """The E8M0 scale of A's row (B's column) `rc` at k = k-tile * block-k + kk, read from global
        memory (gemm.role load_sa / load_sb); row, column and k are clamped to the matrix, since
        the tile's padding is zeros whatever scale multiplies them."""
        con, s = self.con, self.s
        k = x.add(x.mul(self.k_iv, x.index(s.block_k)), kk)
        k = x.op(arith.MinUIOp(k, x.add(self.K, x.index(-1))))
        blk = x.op(arith.DivUIOp(k, x.index(MX_BLOCK)), "blk")
        bound = self.M if operand == "a" else self.N
        rc = x.op(arith.MinUIOp(rc, x.add(bound, x.index(-1))))
        if operand == "a":
            src, idx, name, role_name = con.scale_a, [blk, rc] if con.transpose_a else [rc, blk], "sa", ROLE_LOAD_SA
        else:
            src, idx, name, role_name = con.scale_b, [rc, blk] if con.transpose_b else [blk, rc], "sb", ROLE_LOAD_SB
        v = x.load(src, idx, name)
        set_role(v.owner, role_name)
        return x.convert(v, con.acc_type) if convert else v

    def _outer_product(self, x: KernelBuilder, kk, a_at, b_at) -> None:
        s, con = self.s, self.con
        a_frag = x.alloca(private_type([s.thread_m], con.acc_type), "a_frag")
        b_frag = x.alloca(private_type([s.thread_n], con.acc_type), "b_frag")
        if s.chunk_m or s.chunk_n:
            lead = [b for b in (self._buf,) if b is not None]
            self._chunked_fragment(x, a_frag, self.tile_a, s.thread_m, s.chunk_m or s.thread_m, s.threads_y,
                                   self.ty, lambda m: lead + ([kk, m] if s.a_kmajor else [m, kk]), s.a_kmajor,
                                   con.unsigned_a)
            self._chunked_fragment(x, b_frag, self.tile_b, s.thread_n, s.chunk_n or s.thread_n, s.threads_x,
                                   self.tx, lambda n: lead + ([n, kk] if s.b_transposed else [kk, n]),
                                   not s.b_transposed, con.unsigned_b)
        else:
            m0 = x.mul(self.ty, x.index(s.thread_m), "thread_row")
            n0 = x.mul(self.tx, x.index(s.thread_n), "thread_col")
            self._nest(x, [s.thread_m], lambda y, i: y.store(a_at(y, y.add(m0, i[0]), kk), a_frag, i), ["i"])
            self._nest(x, [s.thread_n], lambda y, j: y.store(b_at(y, kk, y.add(n0, j[0])), b_frag, j), ["j"])

        def fma(y: KernelBuilder, ij):
            i, j = ij
            acc = y.load(self.acc, [i, j], "c")
            y.store(y.fma(y.load(a_frag, [i], "a"), y.load(b_frag, [j], "b"), acc), self.acc, [i, j])

        self._nest(x, [s.thread_m, s.thread_n], fma, ["i", "j"])

    def _chunked_fragment(self, x: KernelBuilder, frag, tile, extent, chunk, threads, t, index, contiguous,
                          unsigned: bool = False):
        """frag[c * chunk + e] = tile[... (c * threads + t) * chunk + e ...]: a thread's rows
        (or columns) in chunks, consecutive threads on consecutive chunks, so a wave reads
        LDS without bank conflicts; one vector load per chunk where the LDS row is contiguous."""
        con = self.con
        elem = tile.type.element_type
        vector_ok = contiguous and chunk in (2, 4, 8) and elem == con.acc_type
        base = x.mul(t, x.index(chunk), "frag_base")
        for c in range(extent // chunk):
            start = x.add(base, x.index(c * threads * chunk))
            if vector_ok:
                v = x.op(vector.LoadOp(tile, index(start), VectorType(elem, [chunk])), "frag")
                x.b.insert(vector.StoreOp(v, frag, [x.index(c * chunk)]))
                continue
            for e in range(chunk):
                value = x.convert(x.load(tile, index(x.add(start, x.index(e)))), con.acc_type, unsigned=unsigned)
                x.store(value, frag, [x.index(c * chunk + e)])

    def _thread_offset(self, b: KernelBuilder, i, extent, chunk, threads, t):
        """Row (or column) of element i of a thread's tile within the block tile."""
        if chunk in (0, extent):
            return b.add(b.mul(t, b.index(extent)), i)
        c = b.op(arith.DivUIOp(i, b.index(chunk)))
        e = b.op(arith.RemUIOp(i, b.index(chunk)))
        return b.add(b.add(b.mul(c, b.index(threads * chunk)), b.mul(t, b.index(chunk))), e)

    def _unrolled(self, loop) -> None:
        if self.s.unroll:
            loop.attributes[UNROLL_ATTR] = UnitAttr()

    # -- epilogue --------------------------------------------------------------------------

    def _epilogue(self) -> None:
        if self.s.instr:
            matrix_kernel.epilogue(self)
            return
        s = self.s

        def store(b: KernelBuilder, ij):
            i, j = ij
            if s.contiguous:
                r = b.add(self.row0, self._thread_offset(b, i, s.thread_m, s.chunk_m, s.threads_y, self.ty), "r")
                c = b.add(self.col0, self._thread_offset(b, j, s.thread_n, s.chunk_n, s.threads_x, self.tx), "c")
            else:
                r = b.add(self.row0, b.add(self.ty, b.mul(i, b.index(s.threads_y))), "r")
                c = b.add(self.col0, b.add(self.tx, b.mul(j, b.index(s.threads_x))), "c")
            self.guarded_epilogue(b, r, c, [i, j])

        self._nest(self.kb, [s.thread_m, s.thread_n], store, ["i", "j"])

    def guarded_epilogue(self, b: KernelBuilder, r, c, acc_index) -> None:
        """if (r < M && c < N) { sum = acc[acc_index]; <the epilogue at (r, c)> }"""
        con = self.con
        inside = b.land(b.lt(r, self.M), b.lt(c, self.N), "inside")

        def body(ib: KernelBuilder):
            read = memref.LoadOp.get(self.acc, acc_index)
            ib.op(read, "sum")
            set_role(read, ROLE_ACC_READ)
            mapping = dict(self.args)
            mapping.update({con.row: r, con.col: c, con.sum: read.results[0]})
            for op in con.epilogue:
                ib.b.insert(op.clone(value_mapper=mapping))

        guard = b.if_(inside, body)
        set_role(guard, ROLE_EPILOGUE)

    # -- loops -----------------------------------------------------------------------------

    def _nest(self, b: KernelBuilder, extents, body, names) -> None:
        """Loops over constant extents; an extent of 1 is no loop, just index 0."""

        def level(x: KernelBuilder, d: int, ivs: list):
            if d == len(extents):
                body(x, ivs)
                return
            if extents[d] == 1:
                level(x, d + 1, ivs + [x.index(0)])
                return

            def inner(y, iv, _):
                level(y, d + 1, ivs + [iv])
                return []

            x.for_(x.index(0), x.index(extents[d]), x.index(1), [], inner, names[d])

        level(b, 0, [])


def fix_launch(kernel: gpu.FuncOp, s: Schedule) -> None:
    """Point the host's launch at the new block and grid sizes."""
    module = kernel.parent_op().parent_op()  # builtin.module
    for launch in module.walk():
        if not isinstance(launch, gpu.LaunchFuncOp):
            continue
        if launch.kernel.nested_references.data[-1].data != kernel.sym_name.data:
            continue
        gx, gy = launch.gridSizeX.owner, launch.gridSizeY.owner
        top_y, groups = gy, None
        if grouping.grouped_info(kernel) is not None:  # ceil(M / block) + G: the ceildiv and G
            gy, groups = (gy.lhs.owner, gy.rhs) if isinstance(gy, arith.AddiOp) else (gy, None)
        if not (isinstance(gx, arith.CeilDivUIOp) and isinstance(gy, arith.CeilDivUIOp)):
            raise ValueError("the launch's grid is not ceil(N / block) x ceil(M / block)")
        kb = KernelBuilder(InsertPoint.before(launch))
        n, m = gx.lhs, gy.lhs
        grid_x = kb.ceildiv(n, kb.index(s.block_n), "grid_x")
        if groups is not None:
            grid_y = grouping.grid_tiles(kb, m, groups, s.block_m)
        else:
            grid_y = kb.ceildiv(m, kb.index(s.block_m), "grid_y")
        tx, ty = kb.index(s.threads_x, "block_x"), kb.index(s.threads_y, "block_y")
        for i, v in ((0, grid_x), (1, grid_y), (3, tx), (4, ty)):
            launch.operands[i] = v
        for dead in dict.fromkeys((gx, top_y, gy)):  # one op after cse when M and N are the same
            if not any(r.uses for r in dead.results):
                consts = list(dict.fromkeys(o.owner for o in dead.operands))
                dead.detach()
                dead.erase()
                for c in consts:
                    if isinstance(c, arith.ConstantOp) and not c.result.uses:
                        c.detach()
                        c.erase()
