"""gemm-to-kernel: the tutorial's step 1, one thread per element of C.

Expects: a module of `func.func`s holding `gemm.matmul` (the frontend's output).
Produces: kernel IR in upstream dialects.  Each `gemm.matmul` becomes
  * a `gpu.func` kernel in a `gpu.module @<func>_kernels`, where the thread at
    (row, col) = (block_id.y * block-y + thread_id.y, block_id.x * block-x + thread_id.x)
    runs an `scf.for` over K of global `memref.load`s and `math.fma` (an integer product: i8
    elements widened by arith.extsi, a u8 operand's by arith.extui, then arith.muli and arith.addi
    in i32; a block-scaled product:
    each a and b times its E8M0 scale, SA[row, k / 32] and SB[k / 32, col]), guarded by
    `row < M && col < N` so any M, N, K is correct, and stores alpha * acc + beta * C;
  * in the host function, the grid size (ceil(N / block-x), ceil(M / block-y)) and a
    `gpu.launch_func` that passes the memrefs and scalars.
A batched product (memrefs of rank 3: gemmc.transforms.batch) becomes the same kernel over the
matrices of one batch (rank-2 arguments, the batched ones listed in `gemm.batch_args`), launched with
the batch count along the grid's z.
A grouped product (B [G, K, N], sizes i32[G]): the y blocks are tiles of block-y rows of the groups,
ceil(M / block-y) + G of them; each workgroup finds its group g and first row by a walk over the sizes
(gemmc.transforms.grouping, gemm.role = "group"), the thread's row is that row + thread_id.y, the guard
is `row < the group's end && col < N`, and B is read at B[g, k, col]; the sizes are the kernel's last
argument and `gemm.grouped` on the kernel records it and the tile.
The kernel's arguments carry their dim names in the `gemm.arg_dims` attribute, which
the HIP emitter uses to name the dynamic sizes it passes.

Options: block-x, block-y (threads per block), unroll (n: `gemmc.unroll = n` on the K
loop, which the HIP printer writes as `#pragma unroll n`; 0: leave it to the compiler;
-1, the default: the target's `naive_k_unroll`, which is 0 on the AMD targets).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func, gpu, math, memref
from xdsl.dialects.builtin import (
    ArrayAttr, DenseArrayBase, DictionaryAttr, Float32Type, IntegerAttr, IntegerType, ModuleOp, StringAttr, SymbolRefAttr,
    UnitAttr, i64,
)
from xdsl.ir import Block, Region, SSAValue
from xdsl.passes import ModulePass

from gemmc.support.diagnostics import pass_error
from gemmc.dialects.gemm import MX_BLOCK, AmaxOp, MatmulOp, OutputOp, YieldOp
from gemmc.support.ir_names import (
    ARG_DIMS_ATTR,
    ARG_UNSIGNED_ATTR,
    ATOMIC_MAXIMUMF,
    CONTAINER_MODULE_ATTR,
    DIMS_ATTR,
    ROLE_AMAX,
    ROLE_ATTR,
    ROLE_EPILOGUE,
    ROLE_K_LOOP,
    SPEC_ATTR,
    UNROLL_ATTR,
)
from gemmc.transforms.batch import matrix_type, set_batch
from gemmc.transforms import grouping
from gemmc.transforms.kernel_builder import KernelBuilder, index_constant
from gemmc.transforms.matmul_spec import spec_attr, spec_from_matmul
from gemmc.target.module_arch import target_of

"""Marks the ops later passes look for: the K loop, the epilogue guard, copy loops."""
MAX_THREADS = 1024


@dataclass(frozen=True)
class GemmToKernelPass(ModulePass):
    name = "gemm-to-kernel"

    block_x: int = 16
    block_y: int = 16
    unroll: int = -1

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        matmuls = [m for m in op.walk() if isinstance(m, MatmulOp)]
        if not matmuls:
            raise pass_error(self.name, op, "expects gemm.matmul ops; found none")
        for matmul in matmuls:
            self._check(matmul)
            self._lower(op, matmul)
        op.attributes[CONTAINER_MODULE_ATTR] = UnitAttr()

    def _check(self, matmul: MatmulOp) -> None:
        if matmul.scale_a is not None and matmul.acc_type != Float32Type():
            raise pass_error(self.name, matmul, "a block-scaled product accumulates in f32")
        for name, v in (("block-x", self.block_x), ("block-y", self.block_y)):
            if v < 1:
                raise pass_error(self.name, matmul, f"{name}={v} must be positive")
        if self.unroll < -1:
            raise pass_error(self.name, matmul, f"unroll={self.unroll} must be a count, 0 (the compiler's "
                                                "choice) or -1 (the target's)")
        if self.block_x * self.block_y > MAX_THREADS:
            raise pass_error(
                self.name, matmul,
                f"block-x * block-y = {self.block_x * self.block_y} exceeds {MAX_THREADS} threads per block",
            )
        if not isinstance(matmul.parent_op(), func.FuncOp):
            raise pass_error(self.name, matmul, "expects gemm.matmul directly inside a func.func")
        if isinstance(matmul.acc_type, IntegerType):
            for name in ("alpha", "beta"):
                v = getattr(matmul, name)
                const = v.owner if v is not None else None
                if v is not None and not (isinstance(const, arith.ConstantOp) and isinstance(const.value, IntegerAttr)
                                          and const.value.value.data == 1):
                    raise pass_error(self.name, matmul, f"an integer product takes no {name} but the constant 1 "
                                                        "(C = A @ B or C = A @ B + C)")

    def _lower(self, module: ModuleOp, matmul: MatmulOp) -> None:
        host = matmul.parent_op()
        assert isinstance(host, func.FuncOp)
        kname = host.sym_name.data
        scales = [v for v in (matmul.scale_a, matmul.scale_b) if v]
        operands = [matmul.a, matmul.b, matmul.c] + scales + [v for v in (matmul.alpha, matmul.beta) if v]
        # a fused epilogue's vectors, matrices and scalars, each once: C read in the epilogue is C's
        # argument (split-k's linearity check and the store see one C), not an alias of it
        operands += [v for v in dict.fromkeys(matmul.epilogue_args) if v not in operands]
        operands += [v for v in matmul.outputs if v not in operands]  # the other outputs
        operands += [matmul.amax] if matmul.amax is not None else []  # the amax output
        if matmul.group_sizes is not None:  # last: alpha and beta keep their places after A, B, C
            operands.append(matmul.group_sizes)
        kernel = self._kernel(kname, matmul, operands, self._k_unroll(module))
        kmodule = gpu.ModuleOp(StringAttr(f"{kname}_kernels"), Region(Block([kernel])))
        module.body.block.add_op(kmodule)
        # Record what the host function computes, so a lowered module still says which
        # product the interpreter's reference must compute.
        host.attributes[SPEC_ATTR] = spec_attr(spec_from_matmul(host, matmul))
        self._launch(matmul, kname, operands)

    # -- the kernel -------------------------------------------------------------------

    def _k_unroll(self, module: ModuleOp) -> int:
        return self.unroll if self.unroll >= 0 else target_of(module).naive_k_unroll

    def _kernel(self, name: str, matmul: MatmulOp, operands: list[SSAValue], unroll: int) -> gpu.FuncOp:
        # a batched operand's kernel argument is one matrix; a grouped B keeps its G (not a batch)
        types = [v.type if matmul.grouped else matrix_type(v.type) for v in operands]
        kernel = gpu.FuncOp(
            name, (types, []), kernel=True,
            known_block_size=[self.block_x, self.block_y, 1],
        )
        batched = [i for i, (v, t) in enumerate(zip(operands, types)) if t != v.type]
        dims = [_dims_of(v) for v in operands]  # a batched one's without its batch (the kernel's is 2-D)
        kernel.attributes[ARG_DIMS_ATTR] = ArrayAttr([ArrayAttr(d.data[1:]) if i in batched else d
                                                     for i, d in enumerate(dims)])
        if batched:
            set_batch(kernel, batched)
        unsigned_a, unsigned_b = matmul.unsigned_a is not None, matmul.unsigned_b is not None
        if unsigned_a or unsigned_b:  # A and B are kernel arguments 0 and 1
            kernel.attributes[ARG_UNSIGNED_ATTR] = DenseArrayBase.from_list(
                i64, [i for i, on in enumerate((unsigned_a, unsigned_b)) if on])
        args = kernel.body.block.args
        for arg, v in zip(args, operands):
            arg.name_hint = v.name_hint
        A, B, C = args[:3]
        scaled = matmul.scale_a is not None
        SA, SB = args[3:5] if scaled else (None, None)
        scalars = dict(zip([n for n in ("alpha", "beta") if getattr(matmul, n)], args[5 if scaled else 3:]))
        extra = [args[operands.index(v)] for v in matmul.epilogue_args]
        amax = args[operands.index(matmul.amax)] if matmul.amax is not None else None
        outputs = [args[operands.index(v)] for v in matmul.outputs]
        kb = KernelBuilder.at_end(kernel.body.block)
        ta, tb = matmul.transpose_a is not None, matmul.transpose_b is not None
        M = kb.dim(C, 0, "M")
        N = kb.dim(C, 1, "N")
        K = kb.dim(A, 0 if ta else 1, "K")
        col = kb.add(kb.mul(kb.block_id("x", "bx"), kb.index(self.block_x)), kb.thread_id("x", "tx"), "col")
        group = None
        if matmul.group_sizes is not None:  # the workgroup's group, first row and the group's end
            grouping.mark_grouped(kernel, len(operands) - 1, self.block_y)
            group = grouping.group_tile(kb, args[-1], kb.block_id("y", "by"), self.block_y)
            row, M = kb.add(group.row0, kb.thread_id("y", "ty"), "row"), group.end
        else:
            row = kb.add(kb.mul(kb.block_id("y", "by"), kb.index(self.block_y)), kb.thread_id("y", "ty"), "row")
        lead = [group.g] if group is not None else []  # B[g] of a grouped product
        inside = kb.land(kb.lt(row, M), kb.lt(col, N), "inside")
        acc_type = matmul.acc_type

        def body(kb: KernelBuilder) -> None:
            zero = kb.float(0.0, acc_type, "zero")
            c0, c1 = kb.index(0), kb.index(1)

            def step(kb: KernelBuilder, k, iters):
                a = kb.load(A, [k, row] if ta else [row, k], "a")
                b = kb.load(B, lead + ([col, k] if tb else [k, col]), "b")
                # integers: each widened to i32 by its signedness (extsi, extui for u8)
                a, b = kb.convert(a, acc_type, unsigned=unsigned_a), kb.convert(b, acc_type, unsigned=unsigned_b)
                if scaled:  # times the E8M0 scales of the MX_BLOCK-element blocks k lies in
                    blk = kb.op(arith.DivUIOp(k, kb.index(MX_BLOCK)), "blk")
                    sa = kb.load(SA, [blk, row] if ta else [row, blk], "sa")
                    sb = kb.load(SB, [col, blk] if tb else [blk, col], "sb")
                    a = kb.fmul(a, kb.convert(sa, acc_type), "a_scaled")
                    b = kb.fmul(b, kb.convert(sb, acc_type), "b_scaled")
                return [kb.fma(a, b, iters[0], "sum")]

            loop = kb.for_(c0, K, c1, [zero], step)
            loop.attributes[ROLE_ATTR] = StringAttr(ROLE_K_LOOP)
            if unroll:
                loop.attributes[UNROLL_ATTR] = IntegerAttr(unroll, i64)
            loop.results[0].name_hint = "sum"
            if matmul.has_epilogue:
                result = _fused_epilogue(kb, matmul, loop.results[0], extra, row, col, amax, outputs)
            else:
                result = _epilogue(kb, loop.results[0], C, row, col, scalars, isinstance(acc_type, IntegerType))
            kb.store(kb.convert(result, C.type.element_type), C, [row, col])

        guard = kb.if_(inside, body)
        guard.attributes[ROLE_ATTR] = StringAttr(ROLE_EPILOGUE)
        kb.b.insert(gpu.ReturnOp([]))
        return kernel

    # -- the host side ------------------------------------------------------------------

    def _launch(self, matmul: MatmulOp, name: str, operands: list[SSAValue]) -> None:
        kb = KernelBuilder.before(matmul)
        first = 1 if matmul.batched else 0  # C's rows after its batch dim
        M = kb.dim(matmul.c, first, "M")
        N = kb.dim(matmul.c, first + 1, "N")
        bx, by, one = kb.index(self.block_x), kb.index(self.block_y), kb.index(1)
        grid_x = kb.ceildiv(N, bx, "grid_x")
        if matmul.group_sizes is not None:  # ceil(M / block-y) + G tiles cover every group
            grid_y = grouping.grid_tiles(kb, M, kb.dim(matmul.group_sizes, 0, "groups"), self.block_y)
        else:
            grid_y = kb.ceildiv(M, by, "grid_y")
        z = kb.dim(matmul.c, 0, "batches") if matmul.batched else one  # one z a batch
        grid = [grid_x, grid_y, z]
        kb.b.insert(
            gpu.LaunchFuncOp(
                SymbolRefAttr(f"{name}_kernels", [StringAttr(name)]), grid, [bx, by, one],
                kernelOperands=operands,
            )
        )
        matmul.detach()
        matmul.erase()


def _dims_of(value: SSAValue) -> ArrayAttr:
    """The dim names of a host function argument (empty for scalars)."""
    from xdsl.ir import BlockArgument

    if isinstance(value, BlockArgument):
        fn = value.block.parent_op()
        if isinstance(fn, func.FuncOp) and fn.arg_attrs is not None:
            attrs = fn.arg_attrs.data[value.index]
            assert isinstance(attrs, DictionaryAttr)
            if DIMS_ATTR in attrs.data:
                return attrs.data[DIMS_ATTR]  # type: ignore[return-value]
    return ArrayAttr([])


def _fused_epilogue(kb: KernelBuilder, matmul: MatmulOp, acc, extra: list, row, col, amax=None,
                    outputs=()) -> SSAValue:
    """The matmul's epilogue region at (row, col): each operand's element loaded where its axes say
    (a vector [N] at col, [M] at row, a matrix at (row, col), a scalar as it is), the region's
    ops copied in after the K loop (so the tiling passes move them with the epilogue); gemm.amax
    becomes the element's atomic max into the amax output (`_amax`), each gemm.output the element's
    store into the next other output (before C's, which ends the epilogue)."""
    stores = iter(outputs)
    block = matmul.epilogue.blocks[0]
    mapping: dict[SSAValue, SSAValue] = {block.args[0]: acc}
    index = {"m": [row], "n": [col], "mn": [row, col]}
    for arg, value, axes in zip(block.args[1:], extra, matmul.axes()):
        mapping[arg] = kb.load(value, index[axes], f"{value.name_hint}_e") if axes else value
    result = None
    for op in block.ops:
        if isinstance(op, YieldOp):
            result = mapping[op.value]
            break
        if isinstance(op, AmaxOp):
            _amax(kb, mapping[op.value], amax)
            continue
        if isinstance(op, OutputOp):
            out = next(stores)
            kb.store(kb.convert(mapping[op.value], out.type.element_type), out, [row, col])
            continue
        copy = op.clone(value_mapper=mapping)
        kb.b.insert(copy)
    assert result is not None  # the verifier: the region ends in gemm.yield
    return result


def _amax(kb: KernelBuilder, value: SSAValue, amax: SSAValue) -> None:
    """amax[0] = max(amax[0], |value|) with memref.atomic_rmw maximumf: every element's, across
    workgroups (the HIP prints it as an integer atomic max of the bits, which orders
    non-negative floats as their values: hence the absf right before it, and amax[0] >= 0)."""
    magnitude = kb.op(math.AbsFOp(value), "magnitude")
    zero = kb.op(index_constant(0))  # in the epilogue: the passes move it along
    op = memref.AtomicRMWOp.build(operands=[magnitude, amax, [zero]], result_types=[value.type],
                                  properties={"kind": IntegerAttr(ATOMIC_MAXIMUMF, i64)})
    op.attributes[ROLE_ATTR] = StringAttr(ROLE_AMAX)
    kb.b.insert(op)


def _epilogue(kb: KernelBuilder, acc, C, row, col, scalars: dict[str, SSAValue], integer: bool = False):
    """alpha * acc + beta * C[row, col], leaving out what the source left out (an integer product's
    alpha and beta are 1: acc, or C[row, col] + acc)."""
    if integer:
        return kb.op(arith.AddiOp(kb.load(C, [row, col], "c_old"), acc), "result") if "beta" in scalars else acc
    result = acc
    if "alpha" in scalars:
        result = kb.fmul(scalars["alpha"], acc, "scaled")
    if "beta" in scalars:
        c_old = kb.convert(kb.load(C, [row, col], "c_old"), acc.type)
        result = kb.fma(scalars["beta"], c_old, result, "result")
    return result
