"""lower-to-amdgcn: instruction selection from kernel IR into the amdgcn dialect.

Expects: kernel IR (gemm-to-kernel and any of the tiling passes; `gemmc.target` names the
arch, one of gfx90a, gfx942, gfx950, gfx1100, gfx1201) after unroll-loops and promote-private:
no private (address space 5) buffers, their elements SSA values; loops kept as loops.
Produces: each `gpu.module` becomes an `amdgcn.module` of `amdgcn.kernel`s holding
instructions on unallocated registers (see dialects/amdgcn/); the host function and its
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

from collections.abc import Callable
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import gpu
from xdsl.dialects.builtin import ArrayAttr, IntegerAttr, MemRefType, ModuleOp, i64
from xdsl.ir import Block, Operation, Region
from xdsl.passes import ModulePass

from gemmc.amdgcn.lowering.addressing import ADDRESSING_OPS
from gemmc.amdgcn.lowering.arith_float import FLOAT_OPS, FloatOps
from gemmc.amdgcn.lowering.arith_int import INTEGER_OPS, IntegerOps
from gemmc.amdgcn.lowering.context import PASS
from gemmc.amdgcn.lowering.control_flow import CONTROL_FLOW_OPS, ControlFlow
from gemmc.amdgcn.lowering.elements import element_bytes
from gemmc.amdgcn.lowering.finish import drop_unused_extracts, finish_block
from gemmc.amdgcn.lowering.gpu_ops import GPU_OPS, GpuOps
from gemmc.amdgcn.lowering.kernargs import KERNARG_OPS, KernelArguments
from gemmc.amdgcn.lowering.loads import LOAD_OPS, Loads
from gemmc.amdgcn.lowering.matrix import MATRIX_OPS, MatrixOps
from gemmc.amdgcn.lowering.stores import STORE_OPS, Stores
from gemmc.amdgcn.lowering.vector_ops import VECTOR_OPS, VectorOps
from gemmc.target.arch import get_gcn_isa
from gemmc.support.diagnostics import pass_error
from gemmc.transforms.grouping import grouped_info
from gemmc.dialects.amdgcn.kernel import GcnModuleOp, KernelOp, kernel_args_attr
from gemmc.dialects.amdgpu import MFMAOp, WMMAOp
from gemmc.support.ir_names import FLAT_WORK_GROUP_SIZE_ATTR, WAVES_PER_EU_ATTR
from gemmc.target.module_arch import target_of


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
                    if grouped_info(fn) is not None:  # its sizes are an i32 buffer, which no load selects yet
                        raise pass_error(PASS, fn, "a grouped kernel (gemm.grouped) reads its i32 group sizes, "
                                                   "which this backend does not load yet; --emit asm or hsaco "
                                                   "(LLVM) builds it")
                    kernels.append(KernelLowering(fn, arch, isa, self).lower())
                elif not isinstance(fn, gpu.TerminatorOp):
                    raise pass_error(PASS, fn, f"cannot lower '{fn.name}' in a gpu.module")
            new = GcnModuleOp(gm.sym_name.data, arch.name, Region(Block(kernels)))
            op.body.block.insert_op_before(new, gm)
            gm.detach()
            gm.erase()


# -- lowering one kernel ----------------------------------------------------------------------------


class KernelLowering(GpuOps, KernelArguments, IntegerOps, FloatOps, Loads, Stores, VectorOps, MatrixOps, ControlFlow):
    """One gpu.func's selection: the instruction families (gemmc/amdgcn/lowering/) put together,
    walking the kernel's body op by op."""

    def lower(self) -> KernelOp:
        fn = self.fn
        body = fn.body.block
        for a in body.args:
            if isinstance(a.type, MemRefType) and element_bytes(a.type) is None:
                raise self.error(fn, f"buffer {a.name_hint or a.index} of {a.type.element_type}: only f32, f16, "
                                     "bf16 and FP8 (f8E4M3FNUZ, f8E5M2FNUZ, f8E4M3FN, f8E5M2) buffers are selected")
        self._refuse_unselected()
        self.declare_inputs()
        self.load_kernargs(body)
        for op in body.ops:
            self.lower_op(op)
        finish_block(self, self.entry)
        drop_unused_extracts(self.entry)
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

    def lower_op(self, op: Operation) -> None:
        h = _HANDLERS.get(type(op))
        if h is None:
            raise self.error(op, f"cannot select instructions for '{op.name}'")
        h(self, op)


_HANDLERS: dict[type, Callable] = {
    **INTEGER_OPS, **FLOAT_OPS, **GPU_OPS, **KERNARG_OPS, **ADDRESSING_OPS, **LOAD_OPS, **STORE_OPS,
    **VECTOR_OPS, **MATRIX_OPS, **CONTROL_FLOW_OPS,
}
