"""The AMDGCN instructions gemmc's backend knows, as facts about the ISA: no xDSL in here.

FORMS gives each instruction (by its op name, `v_add_u32`) its encoding family, the register
classes and widths of what it writes and reads, its modifiers, and its spelling on each
generation (gfx9's `global_load_dword` is gfx11's `global_load_b32`); MATRIX_FORMS does the
same for the MFMA / WMMA instructions of every arch in gemmc.arch.  The amdgcn dialect
(dialects/amdgcn/instructions.py) makes one op class of each entry.

Also here: the families that hazards and waits are stated over (VALU, SALU, memory waits,
barriers), and the inline constants an operand may be without a literal.
"""

from __future__ import annotations

import re
import struct
from dataclasses import dataclass

from gemmc.target.arch import ARCHS

# -- operand signatures ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Slot:
    """One operand or result position: its register class and width in dwords.

    kind: "v" VGPR, "s" SGPR, "a" AGPR, "vs" VGPR or SGPR or constant (a VALU src0), "va" VGPR or
    AGPR, "vac" VGPR or AGPR or constant (an MFMA's SrcC: `0` starts an accumulation),
    "vs_noconst" VGPR or SGPR, "ss" SGPR or constant (an SALU source), "mask" a lane mask
    (SGPR, or exec / vcc), "special:<name>" that register.
    """

    kind: str
    width: int = 1
    also: tuple[int, ...] = ()  # other widths it takes (gfx950's f8f6f4 MFMAs: FP6's and FP4's A, B)

    def takes(self, n: int) -> bool:
        """Whether an operand of n registers fits."""
        return n == self.width or n in self.also


@dataclass(frozen=True)
class Form:
    fmt: str  # SOP1 SOP2 SOPK SOPC SOPP SMEM VOP1 VOP2 VOP3 VOPC DS GLOBAL PSEUDO
    dsts: tuple[Slot, ...]
    srcs: tuple[Slot, ...]
    mods: tuple[str, ...] = ()  # integer modifiers, printed `offset:16`
    gfx11: str | None = None  # the gfx11 spelling where it differs (gfx12's too, unless gfx12 says)
    suffix: str = ""  # _e32 / _e64 as LLVM prints it
    gfx9_suffix_only: bool = False
    asm: str | None = None  # the spelling where it differs from the op name (s_mov_b64_exec)
    explicit_exec: bool = False  # exec is written out as an operand (s_mov_b64 exec, s[4:5])
    tied: int | None = None  # this operand is the destination register too (not printed: v_fmac_f32)
    acc: int | None = None  # the accumulator operand (MFMA SrcC): the destination is exactly its
    # registers or disjoint from them, and in the same register file
    gfx12: str | None = None  # the gfx12 spelling where it differs from gfx11's


V, S = Slot("v"), Slot("s")
TRUE16_MODS = ("dst_half", "src0_half", "src1_half", "src2_half")  # gfx11+'s `v1.l` / `v1.h` operands
V2, V3, V4 = Slot("v", 2), Slot("v", 3), Slot("v", 4)
S2, S4, S8 = Slot("s", 2), Slot("s", 4), Slot("s", 8)
VS, SS, SS2 = Slot("vs"), Slot("ss"), Slot("ss", 2)
A, VA = Slot("a"), Slot("va")  # VA: a VGPR or an AGPR (memory data on gfx90a+)
MASK = Slot("mask")
VOP3_MODS = ("neg", "abs", "clamp", "omod")  # VOP3's input modifiers (a bit per source), clamp, omod
EXEC = Slot("special:exec")
SCC = Slot("special:scc")

# -- the instruction table ------------------------------------------------------------------------

FORMS: dict[str, Form] = {}
"""Every instruction but the matrix ones, by op name, in the order the dialect defines them."""

TERMINATORS = ("s_endpgm",)
"""The instructions that end a kernel."""


def _add(mnemonic: str, form: Form) -> None:
    FORMS[mnemonic] = form


def _sop(m, dsts, srcs, fmt, gfx11=None, **kw) -> None:
    _add(m, Form(fmt, dsts, srcs, gfx11=gfx11, **kw))


def _scalar_alu() -> None:
    """SOP1 / SOP2 / SOPK / SOPC.  Ops that set SCC list it as a result."""
    for m in ("s_mov_b32", "s_not_b32"):
        _sop(m, (S,), (SS,), "SOP1")
    _sop("s_mov_b64", (S2,), (SS2,), "SOP1")
    _sop("s_and_saveexec_b64", (S2, EXEC, SCC), (S2, EXEC), "SOP1")
    _sop("s_and_saveexec_b32", (S, EXEC, SCC), (S, EXEC), "SOP1")
    for m in ("s_add_u32", "s_sub_u32", "s_add_i32", "s_mul_hi_u32", "s_lshl_b32", "s_lshr_b32",
              "s_and_b32", "s_or_b32", "s_xor_b32", "s_min_u32", "s_max_u32", "s_andn2_b32"):
        _sop(m, (S, SCC) if m not in ("s_mul_hi_u32",) else (S,), (SS, SS), "SOP2",
             gfx11={"s_andn2_b32": "s_and_not1_b32"}.get(m))
    _sop("s_mul_i32", (S,), (SS, SS), "SOP2")
    for m in ("s_and_b64", "s_or_b64", "s_xor_b64", "s_andn2_b64"):
        _sop(m, (S2, SCC), (SS2, SS2), "SOP2", gfx11={"s_andn2_b64": "s_and_not1_b64"}.get(m))
    _sop("s_cselect_b32", (S,), (SS, SS, SCC), "SOP2")
    _sop("s_cselect_b64", (S2,), (SS2, SS2, SCC), "SOP2")
    # exec writes, after amdgcn-finalize
    _sop("s_mov_b64_exec", (EXEC,), (SS2,), "SOP1", asm="s_mov_b64", explicit_exec=True)
    _sop("s_mov_b32_exec", (EXEC,), (SS,), "SOP1", asm="s_mov_b32", explicit_exec=True)
    _sop("s_andn2_b64_exec", (EXEC, SCC), (SS2, EXEC), "SOP2", gfx11="s_and_not1_b64", asm="s_andn2_b64",
         explicit_exec=True)
    _sop("s_andn2_b32_exec", (EXEC, SCC), (SS, EXEC), "SOP2", gfx11="s_and_not1_b32", asm="s_andn2_b32",
         explicit_exec=True)
    _add("s_movk_i32", Form("SOPK", (S,), (), mods=("imm",)))
    for c in ("eq", "lg", "lt", "le", "gt", "ge"):
        _sop(f"s_cmp_{c}_u32", (SCC,), (SS, SS), "SOPC")
        _sop(f"s_cmp_{c}_i32", (SCC,), (SS, SS), "SOPC")


def _program_control() -> None:
    """SOPP.  Branch targets are the `target` string attribute."""
    _add("s_nop", Form("SOPP", (), (), mods=("imm",)))
    _add("s_barrier", Form("SOPP", (), ()))
    _add("s_waitcnt", Form("SOPP", (), (), mods=("vmcnt", "expcnt", "lgkmcnt")))
    _add("s_waitcnt_vscnt", Form("SOPP", (), (), mods=("vscnt",)))
    # gfx12: one wait per counter, the split barrier, and s_wait_alu (a depctr field at 0 waits
    # for that kind of SGPR write: sa_sdst SALU, va_sdst VALU, va_vcc VALU writing VCC)
    for c in ("loadcnt", "dscnt", "kmcnt", "storecnt"):
        _add(f"s_wait_{c}", Form("SOPP", (), (), mods=("imm",)))
    _add("s_wait_alu", Form("SOPP", (), (), mods=("sa_sdst", "va_sdst", "va_vcc")))
    _add("s_barrier_signal", Form("SOPP", (), ()))
    _add("s_barrier_wait", Form("SOPP", (), ()))
    _add("s_branch", Form("SOPP", (), ()))
    _add("s_cbranch_scc0", Form("SOPP", (), (SCC,)))
    _add("s_cbranch_scc1", Form("SOPP", (), (SCC,)))
    _add("s_cbranch_execz", Form("SOPP", (), (EXEC,)))
    _add("s_cbranch_execnz", Form("SOPP", (), (EXEC,)))
    _add("s_endpgm", Form("SOPP", (), ()))


def _scalar_memory() -> None:
    """SMEM: kernel arguments.  Operands: the 64-bit base; modifier `offset` (bytes)."""
    for n, suf, g11 in ((1, "dword", "b32"), (2, "dwordx2", "b64"), (4, "dwordx4", "b128"), (8, "dwordx8", "b256")):
        _add(f"s_load_{suf}", Form("SMEM", (Slot("s", n),), (S2,), mods=("offset",), gfx11=f"s_load_{g11}"))


def _vector_alu() -> None:
    """VOP1 / VOP2 / VOP3 / VOPC.  VOP2's second source is a VGPR; VOP3 takes SGPRs anywhere."""
    _add("v_mov_b32", Form("VOP1", (V,), (VS,), suffix="_e32"))
    _add("v_readfirstlane_b32", Form("VOP1", (S,), (Slot("v"),)))
    # one lane, EXEC aside (LLVM's SGPR spills into VGPR lanes): D = S0[lane]; D[lane] = S0 (D kept)
    _add("v_readlane_b32", Form("VOP3", (S,), (Slot("v"), SS)))
    _add("v_writelane_b32", Form("VOP3", (V,), (SS, SS, V), tied=2))
    _add("v_cvt_f32_u32", Form("VOP1", (V,), (VS,), suffix="_e32"))
    # f16 in bits 0-15 (RNE); VOP3 on gfx11, whose VOP1 encoding reaches only v0-v127 for a 16-bit result
    _add("v_cvt_f16_f32", Form("VOP1", (V,), (VS,), suffix="_e32", gfx11="v_cvt_f16_f32_e64", gfx9_suffix_only=True,
                               mods=TRUE16_MODS))
    _add("v_pack_b32_f16", Form("VOP3", (V,), (VS, VS)))  # src1's low half above src0's
    # f16 in bits 0-15 -> f32 (exact); VOP3 on gfx11 for the same reason
    _add("v_cvt_f32_f16", Form("VOP1", (V,), (VS,), suffix="_e32", gfx11="v_cvt_f32_f16_e64", gfx9_suffix_only=True,
                               mods=TRUE16_MODS))
    _add("v_nop", Form("VOP1", (), ()))  # a VALU that does nothing (the WMMA hazard's fix)
    for m, g11 in (("v_add_u32", "v_add_nc_u32"), ("v_sub_u32", "v_sub_nc_u32"), ("v_mul_u32_u24", None),
                   ("v_lshlrev_b32", None), ("v_lshrrev_b32", None), ("v_and_b32", None), ("v_or_b32", None),
                   ("v_xor_b32", None), ("v_max_u32", None), ("v_min_u32", None), ("v_add_f32", None),
                   ("v_sub_f32", None), ("v_mul_f32", None), ("v_max_f32", None), ("v_min_f32", None)):
        # the f32 ops take VOP3's input modifiers (|v1|, -v1) and clamp; the integer ones none
        _add(m, Form("VOP2", (V,), (VS, V), gfx11=g11, suffix="_e32", mods=VOP3_MODS if m.endswith("f32") else ()))
    _add("v_fmac_f32", Form("VOP2", (V,), (VS, V, V), suffix="_e32", tied=2))  # dst == src2
    _add("v_cndmask_b32", Form("VOP3", (V,), (VS, VS, MASK), suffix="_e64"))
    _add("v_fma_f32", Form("VOP3", (V,), (VS, VS, VS), mods=VOP3_MODS))
    for m in ("v_mad_u32_u24", "v_lshl_add_u32", "v_add_lshl_u32", "v_lshl_or_b32", "v_bfe_u32",
              "v_add3_u32", "v_perm_b32"):
        _add(m, Form("VOP3", (V,), (VS, VS, VS)))
    for m in ("v_mul_lo_u32", "v_mul_hi_u32", "v_mul_hi_i32"):
        _add(m, Form("VOP3", (V,), (VS, VS)))
    _add("v_mad_u64_u32", Form("VOP3", (V2, Slot("mask")), (VS, VS, Slot("vs", 2)), gfx12="v_mad_co_u64_u32"))
    _add("v_lshl_add_u64", Form("VOP3", (V2,), (Slot("vs", 2), VS, Slot("vs", 2))))
    for c in ("eq", "ne", "lt", "le", "gt", "ge"):
        for t in ("u32", "i32", "f32"):
            cc = {"ne": "neq"}.get(c, c) if t == "f32" else c
            _add(f"v_cmp_{cc}_{t}", Form("VOPC", (MASK,), (VS, VS), suffix="_e64",
                                         mods=("neg", "abs") if t == "f32" else ()))
    _add("v_cmp_u_f32", Form("VOPC", (MASK,), (VS, VS), suffix="_e64", mods=("neg", "abs")))  # unordered: either is NaN
    _add("v_cmp_o_f32", Form("VOPC", (MASK,), (VS, VS), suffix="_e64", mods=("neg", "abs")))  # ordered: neither is
    # Accumulation registers (gfx90a+): AGPR <- VGPR or inline constant, VGPR <- AGPR, AGPR <- AGPR.
    _add("v_accvgpr_write_b32", Form("VOP3", (A,), (VS,)))
    _add("v_accvgpr_read_b32", Form("VOP3", (V,), (A,)))
    _add("v_accvgpr_mov_b32", Form("VOP1", (A,), (A,)))


def _lds() -> None:
    """DS: LDS.  Address VGPR; modifier `offset` (bytes, unsigned)."""
    # the data may be AGPRs on gfx90a and later (clang reads an MFMA's operands from LDS into them
    # where VGPRs run out: gfx950's 16-bit default with scalar copies, `ds_read_b128 a[0:3], v238`)
    for n, b in ((1, 32), (2, 64), (3, 96), (4, 128)):
        _add(f"ds_read_b{b}", Form("DS", (Slot("va", n),), (V,), mods=("offset",), gfx11=f"ds_load_b{b}"))
        _add(f"ds_write_b{b}", Form("DS", (), (V, Slot("va", n)), mods=("offset",), gfx11=f"ds_store_b{b}"))
    # 16 bits (f16 / bf16 elements): the read zero-extends into the VGPR, the write takes its low half
    _add("ds_read_u16", Form("DS", (V,), (V,), mods=("offset",), gfx11="ds_load_u16"))
    _add("ds_write_b16", Form("DS", (), (V, Slot("va", 1)), mods=("offset",), gfx11="ds_store_b16"))
    _add("ds_write_b16_d16_hi", Form("DS", (), (V, Slot("va", 1)), mods=("offset",), gfx11="ds_store_b16_d16_hi"))  # the high half
    # 8 bits (FP8 elements): the read zero-extends into the VGPR, the write takes its low byte (_d16_hi:
    # bits 16-23, the third byte of a packed word)
    _add("ds_read_u8", Form("DS", (V,), (V,), mods=("offset",), gfx11="ds_load_u8"))
    _add("ds_write_b8", Form("DS", (), (V, Slot("va", 1)), mods=("offset",), gfx11="ds_store_b8"))
    _add("ds_write_b8_d16_hi", Form("DS", (), (V, Slot("va", 1)), mods=("offset",), gfx11="ds_store_b8_d16_hi"))
    # gfx950: 64 bits a lane, transposed among each 16 lanes (memory_ops._ds_transpose)
    _add("ds_read_b64_tr_b16", Form("DS", (V2,), (V,), mods=("offset",)))
    # two dwords at address + 4 * offset0 and + 4 * offset1 (8-bit offsets, in dwords)
    _add("ds_read2_b32", Form("DS", (V2,), (V,), mods=("offset0", "offset1"), gfx11="ds_load_2addr_b32"))


def _global_memory() -> None:
    """GLOBAL: a 64-bit VGPR address ("off"), or a 32-bit VGPR offset from a 64-bit SGPR base.  The
    data may be AGPRs (gfx90a and later; clang uses them where VGPRs run out)."""
    for n, suf, g11 in ((1, "dword", "b32"), (2, "dwordx2", "b64"), (3, "dwordx3", "b96"), (4, "dwordx4", "b128")):
        _add(f"global_load_{suf}", Form("GLOBAL", (Slot("va", n),), (V2,), mods=("offset",),
                                        gfx11=f"global_load_{g11}"))
        _add(f"global_load_{suf}_saddr", Form("GLOBAL", (Slot("va", n),), (V, S2), mods=("offset",),
                                              gfx11=f"global_load_{g11}", asm=f"global_load_{suf}"))
        _add(f"global_store_{suf}", Form("GLOBAL", (), (V2, Slot("va", n)), mods=("offset",),
                                         gfx11=f"global_store_{g11}"))
        _add(f"global_store_{suf}_saddr", Form("GLOBAL", (), (V, Slot("va", n), S2), mods=("offset",),
                                               gfx11=f"global_store_{g11}", asm=f"global_store_{suf}"))
    # 16 bits (f16 / bf16 elements): the load zero-extends into the VGPR, the store takes its low half
    _add("global_load_ushort", Form("GLOBAL", (VA,), (V2,), mods=("offset",), gfx11="global_load_u16"))
    _add("global_load_ushort_saddr", Form("GLOBAL", (VA,), (V, S2), mods=("offset",), gfx11="global_load_u16",
                                          asm="global_load_ushort"))
    _add("global_store_short", Form("GLOBAL", (), (V2, VA), mods=("offset",), gfx11="global_store_b16"))
    _add("global_store_short_saddr", Form("GLOBAL", (), (V, VA, S2), mods=("offset",), gfx11="global_store_b16",
                                          asm="global_store_short"))
    # 8 bits (FP8 elements): the load zero-extends into the VGPR, the store takes its low byte (_d16_hi:
    # bits 16-23)
    _add("global_load_ubyte", Form("GLOBAL", (VA,), (V2,), mods=("offset",), gfx11="global_load_u8"))
    _add("global_load_ubyte_saddr", Form("GLOBAL", (VA,), (V, S2), mods=("offset",), gfx11="global_load_u8",
                                         asm="global_load_ubyte"))
    _add("global_store_byte", Form("GLOBAL", (), (V2, VA), mods=("offset",), gfx11="global_store_b8"))
    _add("global_store_byte_saddr", Form("GLOBAL", (), (V, VA, S2), mods=("offset",), gfx11="global_store_b8",
                                         asm="global_store_byte"))


_scalar_alu()
_program_control()
_scalar_memory()
_vector_alu()
_lds()
_global_memory()

# -- what LLVM's backend emits besides ----------------------------------------------------------
# The instructions clang-22 writes for gemmc's HIP (and the tutorial's, and Triton's) kernels that
# gemmc's own backend does not select: ops of the dialect too, so that the assembly front
# (gemmc/amdgcn/asm_front/) gives them to the interpreter.  Their operands are in the order LLVM
# prints them; `neg` / `abs` / `clamp` and the other modifiers are integer attributes the
# interpreter's handlers read (docs/amdgcn-asm.md).

PACKED_MODS = ("op_sel", "op_sel_hi", "neg_lo", "neg_hi", "clamp")
SDWA_MODS = ("dst_sel", "dst_unused", "src0_sel", "src1_sel", "sext", "neg", "abs", "clamp")
VCC = Slot("special:vcc")
DEPCTR_FIELDS = ("va_vdst", "vm_vsrc", "sa_sdst", "va_sdst", "va_vcc", "vs_vcc", "va_ssrc", "hold_cnt")


def _llvm_scalar() -> None:
    for m in ("s_sub_i32", "s_ashr_i32", "s_min_i32", "s_max_i32", "s_nor_b32", "s_nand_b32", "s_orn2_b32",
              "s_xnor_b32", "s_bfe_u32", "s_bfe_i32", "s_lshl1_add_u32", "s_lshl2_add_u32", "s_lshl3_add_u32",
              "s_lshl4_add_u32", "s_absdiff_i32"):
        _sop(m, (S, SCC), (SS, SS), "SOP2", gfx11={"s_orn2_b32": "s_or_not1_b32"}.get(m))
    _sop("s_mul_hi_i32", (S,), (SS, SS), "SOP2")
    for m in ("s_addc_u32", "s_subb_u32"):
        _sop(m, (S, SCC), (SS, SS, SCC), "SOP2")
    for m in ("s_nor_b64", "s_nand_b64", "s_orn2_b64", "s_xnor_b64"):
        _sop(m, (S2, SCC), (SS2, SS2), "SOP2", gfx11={"s_orn2_b64": "s_or_not1_b64"}.get(m))
    for m in ("s_lshl_b64", "s_lshr_b64", "s_ashr_i64"):
        _sop(m, (S2, SCC), (SS2, SS), "SOP2")
    for m in ("s_abs_i32", "s_ff1_i32_b32", "s_flbit_i32_b32", "s_bcnt1_i32_b32"):
        _sop(m, (S, SCC) if m in ("s_abs_i32", "s_bcnt1_i32_b32") else (S,), (SS,), "SOP1",
             gfx11={"s_ff1_i32_b32": "s_ctz_i32_b32", "s_flbit_i32_b32": "s_clz_i32_u32"}.get(m))
    _sop("s_brev_b32", (S,), (SS,), "SOP1")
    _sop("s_ff1_i32_b64", (S,), (SS2,), "SOP1", gfx11="s_ctz_i32_b64")
    _sop("s_bcnt1_i32_b64", (S, SCC), (SS2,), "SOP1")  # the lanes of a mask (LLVM's atomic optimizer)
    _sop("s_not_b64", (S2, SCC), (SS2,), "SOP1")
    _sop("s_sext_i32_i16", (S,), (SS,), "SOP1")
    _sop("s_bitset1_b32", (S,), (SS, S), "SOP1", tied=1)  # D.bit[S0] = 1: D is read too
    _sop("s_bitset0_b32", (S,), (SS, S), "SOP1", tied=1)
    for m, n in (("s_or_saveexec_b64", 2), ("s_xor_saveexec_b64", 2), ("s_andn2_saveexec_b64", 2),
                 ("s_or_saveexec_b32", 1), ("s_xor_saveexec_b32", 1), ("s_andn2_saveexec_b32", 1)):
        _sop(m, (Slot("s", n), EXEC, SCC), (Slot("ss", n), EXEC), "SOP1",
             gfx11={"s_andn2_saveexec_b64": "s_and_not1_saveexec_b64",
                    "s_andn2_saveexec_b32": "s_and_not1_saveexec_b32"}.get(m))
    _add("s_addk_i32", Form("SOPK", (S, SCC), (S,), mods=("imm",), tied=0))  # D += simm16: D is read too
    _add("s_mulk_i32", Form("SOPK", (S,), (S,), mods=("imm",), tied=0))
    for c in ("eq", "lg", "lt", "le", "gt", "ge"):
        for t in ("i32", "u32"):
            _add(f"s_cmpk_{c}_{t}", Form("SOPK", (SCC,), (S,), mods=("imm",)))
    # gfx12: 64-bit adds and multiplies, f32 on the SALU
    _sop("s_add_nc_u64", (S2,), (SS2, SS2), "SOP2")
    _sop("s_sub_nc_u64", (S2,), (SS2, SS2), "SOP2")
    _sop("s_mul_u64", (S2,), (SS2, SS2), "SOP2")
    for m in ("s_mul_f32", "s_add_f32", "s_sub_f32", "s_max_num_f32", "s_min_num_f32"):
        _sop(m, (S,), (SS, SS), "SOP2")
    for m in ("s_cvt_f32_u32", "s_cvt_u32_f32", "s_cvt_f32_i32", "s_cvt_i32_f32"):
        _sop(m, (S,), (SS,), "SOP1")
    # gfx12's pseudo-scalar transcendental: the VALU's reciprocal of a scalar into an SGPR (RDNA4
    # ISA guide, "VOP3 pseudo-scalar transcendental"; LLVM's integer division by a scalar uses it)
    _sop("v_s_rcp_f32", (S,), (SS,), "VOP3")
    _sop("s_cmp_eq_u64", (SCC,), (SS2, SS2), "SOPC")
    _sop("s_cmp_lg_u64", (SCC,), (SS2, SS2), "SOPC")
    for m in ("s_cbranch_vccnz", "s_cbranch_vccz"):
        _add(m, Form("SOPP", (), (VCC,)))


def _llvm_waits() -> None:
    """gfx12's combined waits: the first counter in imm[13:8], dscnt in imm[5:0] (LLVM's
    AMDGPUBaseInfo, encodeLoadcntDscnt / encodeStorecntDscnt)."""
    for m in ("s_wait_loadcnt_dscnt", "s_wait_storecnt_dscnt"):
        _add(m, Form("SOPP", (), (), mods=("imm",)))


def _llvm_hints() -> None:
    """Instructions that only steer the hardware's issue or its caches: the interpreter runs
    them as nothing, as it does s_nop (one coherent memory, accesses in program order)."""
    _add("s_waitcnt_depctr", Form("SOPP", (), (), mods=("imm", *DEPCTR_FIELDS)))
    for m in ("s_clause", "s_delay_alu", "s_sendmsg", "s_setprio", "s_sleep",
              "buffer_gl0_inv", "buffer_gl1_inv", "buffer_wbl2", "buffer_inv", "s_set_inst_prefetch_distance",
              "s_waitcnt_expcnt", "s_wait_expcnt", "global_inv", "global_wb", "global_wbinv",
              "buffer_wbinvl1_vol", "buffer_wbinvl1"):
        _add(m, Form("SOPP", (), (), mods=("imm",)))


def _llvm_vector() -> None:
    for m, g11 in (("v_ashrrev_i32", None), ("v_max_i32", None), ("v_min_i32", None), ("v_subrev_u32",
                   "v_subrev_nc_u32"), ("v_subrev_f32", None), ("v_mul_hi_u32_u24", None), ("v_mul_i32_i24", None)):
        _add(m, Form("VOP2", (V,), (VS, V), gfx11=g11, suffix="_e32", mods=VOP3_MODS))
    for m in ("v_max_num_f32", "v_min_num_f32"):  # gfx12's IEEE maximumNumber / minimumNumber
        _add(m, Form("VOP2", (V,), (VS, V), suffix="_e32", mods=VOP3_MODS))
    for m in ("v_bfrev_b32", "v_cvt_u32_f32", "v_cvt_i32_f32", "v_cvt_f32_i32", "v_rcp_iflag_f32", "v_rcp_f32",
              "v_not_b32", "v_ffbh_u32", "v_ffbl_b32", "v_cvt_f32_ubyte0", "v_cvt_f32_ubyte1", "v_cvt_f32_ubyte2",
              "v_cvt_f32_ubyte3", "v_trunc_f32", "v_floor_f32"):
        _add(m, Form("VOP1", (V,), (VS,), suffix="_e32", mods=VOP3_MODS,
                     gfx11={"v_ffbh_u32": "v_clz_i32_u32", "v_ffbl_b32": "v_ctz_i32_b32"}.get(m)))
    # D = S1 + the set bits of the mask S0 below the lane (lo: lanes 0-31; hi: 32-63): LLVM's atomic
    # optimizer numbers a wave's lanes so that one of them does the wave's atomic
    for m in ("v_mbcnt_lo_u32_b32", "v_mbcnt_hi_u32_b32"):
        _add(m, Form("VOP3", (V,), (VS, VS)))
    _add("v_mov_b64", Form("VOP1", (V2,), (Slot("vs", 2),), suffix="_e32"))
    _add("v_lshlrev_b64", Form("VOP3", (V2,), (VS, Slot("vs", 2))))
    _add("v_lshrrev_b64", Form("VOP3", (V2,), (VS, Slot("vs", 2))))
    for m in ("v_and_or_b32", "v_or3_b32", "v_xad_u32", "v_bfe_i32", "v_bfi_b32", "v_alignbit_b32",
              "v_alignbyte_b32", "v_med3_i32", "v_max3_i32", "v_min3_i32", "v_mad_i32_i24", "v_xor3_b32",
              "v_max3_f32", "v_min3_f32", "v_med3_f32"):
        _add(m, Form("VOP3", (V,), (VS, VS, VS), mods=VOP3_MODS))
    _add("v_bitop3_b32", Form("VOP3", (V,), (VS, VS, VS), mods=("bitop3",)))  # gfx950: D = LUT[S0, S1, S2]
    _add("v_bitop3_b16", Form("VOP3", (V,), (VS, VS, VS), mods=("bitop3", "op_sel")))  # the low halves
    _add("v_mad_i64_i32", Form("VOP3", (V2, Slot("mask")), (VS, VS, Slot("vs", 2)), gfx12="v_mad_co_i64_i32"))
    # carries: D, the carry-out mask; (addc) the carry-in mask last.  gfx11: v_add_co_ci_u32
    for m, g11 in (("v_add_co_u32", None), ("v_sub_co_u32", None), ("v_subrev_co_u32", None)):
        _add(m, Form("VOP2", (V, MASK), (VS, VS), suffix="_e32", gfx11=g11))
    for m, g11 in (("v_addc_co_u32", "v_add_co_ci_u32"), ("v_subb_co_u32", "v_sub_co_ci_u32"),
                   ("v_subbrev_co_u32", "v_subrev_co_ci_u32")):
        _add(m, Form("VOP2", (V, MASK), (VS, VS, MASK), suffix="_e32", gfx11=g11))
    # 16 bits: gfx9 keeps the result in the low half (the high half zero); true16 (gfx11+) names
    # a half (`v1.l`): the front gives the op `dst_half` / `src<i>_half` attributes
    for m in ("v_lshlrev_b16", "v_lshrrev_b16", "v_add_u16", "v_sub_u16", "v_mul_lo_u16", "v_and_b16", "v_or_b16"):
        _add(m, Form("VOP2", (V,), (VS, VS), suffix="_e32", gfx11={"v_add_u16": "v_add_nc_u16",
                                                                     "v_sub_u16": "v_sub_nc_u16"}.get(m),
                     mods=("dst_half", "src0_half", "src1_half", "op_sel")))
    _add("v_mov_b16", Form("VOP1", (V,), (VS,), suffix="_e32", mods=("dst_half", "src0_half", "op_sel")))
    # SDWA (gfx9): a 32-bit op on selected bytes or words of its sources, into selected ones of D
    for m in ("v_or_b32", "v_and_b32", "v_lshrrev_b32", "v_lshlrev_b32", "v_mov_b32", "v_add_u32",
              "v_cvt_f32_f16", "v_cvt_f16_f32", "v_mul_f32", "v_add_f32", "v_xor_b32"):
        _add(f"{m}_sdwa", Form("VOP2" if m not in ("v_mov_b32", "v_cvt_f32_f16", "v_cvt_f16_f32") else "VOP1",
                               (V,), (VS, VS) if m not in ("v_mov_b32", "v_cvt_f32_f16", "v_cvt_f16_f32") else (VS,),
                               mods=SDWA_MODS, asm=f"{m}_sdwa"))
    # D = the mask's lanes ? S1 : S0, of the selected parts (Triton's bf16 rounding picks a word)
    # 16-bit ops too (clang's packing of 4-bit codes on gfx9: v_add_u16_sdwa into WORD_1)
    for m in ("v_add_u16", "v_sub_u16", "v_mul_lo_u16", "v_lshlrev_b16", "v_lshrrev_b16", "v_and_b16", "v_or_b16"):
        _add(f"{m}_sdwa", Form("VOP2", (V,), (VS, VS), mods=SDWA_MODS, asm=f"{m}_sdwa"))
    _add("v_cndmask_b32_sdwa", Form("VOP2", (V,), (VS, VS, MASK), mods=SDWA_MODS, asm="v_cndmask_b32_sdwa"))
    # VOPC SDWA (gfx9): the integer compare of the selected byte or word of each source, into a
    # lane mask (VCC or an SGPR pair); clang's test of a word (`u & 0xffff` against 0)
    for c in ("eq", "ne", "lt", "le", "gt", "ge"):
        for t in ("u32", "i32"):
            _add(f"v_cmp_{c}_{t}_sdwa", Form("VOPC", (MASK,), (VS, VS), mods=("src0_sel", "src1_sel", "sext"),
                                             asm=f"v_cmp_{c}_{t}_sdwa"))
    # VOPC into EXEC (gfx10+'s v_cmpx: EXEC = the lanes where the comparison holds)
    for c in ("eq", "ne", "lt", "le", "gt", "ge"):
        for t in ("u32", "i32"):
            _add(f"v_cmpx_{c}_{t}", Form("VOPC", (EXEC,), (VS, VS), suffix="_e32"))
    _add("v_pk_fma_f32", Form("VOP3P", (V2,), (Slot("vs", 2),) * 3, mods=PACKED_MODS))
    for m in ("v_pk_mul_f32", "v_pk_add_f32"):
        _add(m, Form("VOP3P", (V2,), (Slot("vs", 2),) * 2, mods=PACKED_MODS))
    _add("v_pk_mov_b32", Form("VOP3P", (V2,), (Slot("vs", 2),) * 2, mods=PACKED_MODS))


def _llvm_memory() -> None:
    for n, suf, g11 in ((3, "dwordx3", "b96"), (16, "dwordx16", "b512")):  # (gfx12's b96)
        _add(f"s_load_{suf}", Form("SMEM", (Slot("s", n),), (S2,), mods=("offset",), gfx11=f"s_load_{g11}"))
    # d16 loads: 16 (8) bits into the low (_hi: high) half of D, its other half kept (D is read)
    for m, g11 in (("short_d16", "d16_b16"), ("short_d16_hi", "d16_hi_b16"), ("ubyte_d16", "d16_u8"),
                   ("ubyte_d16_hi", "d16_hi_u8")):
        _add(f"global_load_{m}", Form("GLOBAL", (V,), (V2, V), mods=("offset",), gfx11=f"global_load_{g11}", tied=1))
        _add(f"global_load_{m}_saddr", Form("GLOBAL", (V,), (V, S2, V), mods=("offset",), gfx11=f"global_load_{g11}",
                                            asm=f"global_load_{m}", tied=2))
    # scratch (spills of 16-bit values, gfx11+'s Triton kernels): d16 loads into a half, the other
    # kept (D is read), stores of the low (_d16_hi: high) half
    for m, g11 in (("short_d16", "d16_b16"), ("short_d16_hi", "d16_hi_b16")):
        _add(f"scratch_load_{m}", Form("SCRATCH", (V,), (V,), mods=("offset",), gfx11=f"scratch_load_{g11}", tied=0))
    for m, g11 in (("short", "b16"), ("short_d16_hi", "d16_hi_b16")):
        _add(f"scratch_store_{m}", Form("SCRATCH", (), (V,), mods=("offset",), gfx11=f"scratch_store_{g11}"))
    # d16_hi stores: the high half (16 bits) or bits 16-23 (8) of the data VGPR
    for m, g11 in (("short_d16_hi", "d16_hi_b16"), ("byte_d16_hi", "d16_hi_b8")):
        _add(f"global_store_{m}", Form("GLOBAL", (), (V2, V), mods=("offset",), gfx11=f"global_store_{g11}"))
        _add(f"global_store_{m}_saddr", Form("GLOBAL", (), (V, V, S2), mods=("offset",),
                                             gfx11=f"global_store_{g11}", asm=f"global_store_{m}"))
    for m, g11 in (("u16_d16", "u16_d16"), ("u16_d16_hi", "u16_d16_hi"), ("u8_d16", "u8_d16"),
                   ("u8_d16_hi", "u8_d16_hi")):
        _add(f"ds_read_{m}", Form("DS", (V,), (V, V), mods=("offset",), gfx11=f"ds_load_{g11}", tied=1))
    for m, n, g11, st64 in (("ds_read2st64_b64", 4, "ds_load_2addr_stride64_b64", 64),
                            ("ds_read2_b64", 4, "ds_load_2addr_b64", 1), ("ds_read2st64_b32", 2,
                                                                           "ds_load_2addr_stride64_b32", 64)):
        _add(m, Form("DS", (Slot("v", n),), (V,), mods=("offset0", "offset1"), gfx11=g11))
    for m, n, g11 in (("ds_write2_b32", 1, "ds_store_2addr_b32"), ("ds_write2st64_b32", 1,
                      "ds_store_2addr_stride64_b32"), ("ds_write2_b64", 2, "ds_store_2addr_b64"),
                      ("ds_write2st64_b64", 2, "ds_store_2addr_stride64_b64")):
        _add(m, Form("DS", (), (V, Slot("v", n), Slot("v", n)), mods=("offset0", "offset1"), gfx11=g11))
    # atomics: without `glc` (gfx12: th:TH_ATOMIC_RETURN) no result; the address, the data
    for m, n, g11 in (("global_atomic_add_f32", 1, None), ("global_atomic_add", 1, "global_atomic_add_u32"),
                      ("global_atomic_cmpswap", 2, "global_atomic_cmpswap_b32"),
                      ("global_atomic_umax", 1, "global_atomic_max_u32")):
        _add(m, Form("GLOBAL", (), (V2, Slot("v", n)), mods=("offset",), gfx11=g11))
        _add(f"{m}_saddr", Form("GLOBAL", (), (V, Slot("v", n), S2), mods=("offset",), gfx11=g11, asm=m))
        _add(f"{m}_rtn", Form("GLOBAL", (V,), (V2, Slot("v", n)), mods=("offset",), gfx11=g11, asm=m))
        _add(f"{m}_rtn_saddr", Form("GLOBAL", (V,), (V, Slot("v", n), S2), mods=("offset",), gfx11=g11, asm=m))
    # private (scratch) memory: spills.  `off` for the VGPR address and the SGPR offset: the offset alone
    for n, suf, g11 in ((1, "dword", "b32"), (2, "dwordx2", "b64"), (3, "dwordx3", "b96"), (4, "dwordx4", "b128")):
        _add(f"scratch_load_{suf}", Form("SCRATCH", (Slot("v", n),), (), mods=("offset",),
                                         gfx11=f"scratch_load_{g11}"))
        _add(f"scratch_store_{suf}", Form("SCRATCH", (), (Slot("v", n),), mods=("offset",),
                                          gfx11=f"scratch_store_{g11}"))
        # an SGPR offset (a spill slot past the 12-bit immediate): the lane's private bytes at S + offset
        _add(f"scratch_load_{suf}_saddr", Form("SCRATCH", (Slot("v", n),), (SS,), mods=("offset",),
                                               gfx11=f"scratch_load_{g11}", asm=f"scratch_load_{suf}"))
        _add(f"scratch_store_{suf}_saddr", Form("SCRATCH", (), (Slot("v", n), SS), mods=("offset",),
                                                gfx11=f"scratch_store_{g11}", asm=f"scratch_store_{suf}"))
        # gfx90a's spills: MUBUF through the private segment buffer (s[0:3]), `off` for the address
        _add(f"buffer_load_{suf}", Form("SCRATCH", (Slot("v", n),), (S4, SS), mods=("offset",)))
        _add(f"buffer_store_{suf}", Form("SCRATCH", (), (Slot("v", n), S4, SS), mods=("offset",)))


# the f32 VOPC conditions beyond eq / neq / lt / le / gt / ge / o / u: lg (ordered not-equal) and
# the negations (nlt = !(a < b), true where either is NaN); CDNA3 and RDNA3 ISA guides, "VOPC"
F32_MORE_CONDITIONS = ("lg", "nlt", "nle", "ngt", "nge", "nlg")
F32_CONDITIONS = ("eq", "neq", "lt", "le", "gt", "ge", "o", "u", *F32_MORE_CONDITIONS)


def _llvm_epilogue() -> None:
    """The f32 instructions of LLVM's exp / erf / tanh / division code in the fused epilogues."""
    for m in ("v_exp_f32", "v_rndne_f32"):  # D = 2^S0; D = S0 rounded to an integer, ties to even
        _add(m, Form("VOP1", (V,), (VS,), suffix="_e32", mods=VOP3_MODS))
    _add("v_ldexp_f32", Form("VOP3", (V,), (VS, VS), mods=VOP3_MODS))  # D = S0 * 2^S1 (S1 an i32)
    # VOP2 with a 32-bit literal K: fmamk D = S0 * K + S1, fmaak D = S0 * S1 + K, the operands
    # printed in the product's order (`v_fmamk_f32 v0, v1, 0x3fb8aa3b, v2`)
    _add("v_fmamk_f32", Form("VOP2", (V,), (VS, VS, V)))
    _add("v_fmaak_f32", Form("VOP2", (V,), (VS, V, VS)))
    for cc in F32_MORE_CONDITIONS:
        _add(f"v_cmp_{cc}_f32", Form("VOPC", (MASK,), (VS, VS), suffix="_e64", mods=("neg", "abs")))
    for cc in F32_CONDITIONS:  # gfx10+'s v_cmpx: EXEC = the lanes where the condition holds
        _add(f"v_cmpx_{cc}_f32", Form("VOPC", (EXEC,), (VS, VS), suffix="_e32", mods=("neg", "abs")))
    # gfx950: two f32 to bf16 (round to nearest even), S0's in D's low half, S1's in the high
    _add("v_cvt_pk_bf16_f32", Form("VOP3", (V,), (VS, VS)))
    # gfx942, gfx950, gfx12: two f32 to FP8 bytes of the arch's formats, into the word op_sel's D bit picks
    for m in ("v_cvt_pk_fp8_f32", "v_cvt_pk_bf8_f32"):
        _add(m, Form("VOP3", (V,), (VS, VS), mods=("op_sel", "clamp")))
    # IEEE 754-2019 maximum / minimum (NaN in, NaN out): gfx950's three-operand forms, gfx12's
    for m in ("v_maximum_f32", "v_minimum_f32"):
        _add(m, Form("VOP3", (V,), (VS, VS), mods=VOP3_MODS))
    for m in ("v_maximum3_f32", "v_minimum3_f32", "v_maximumminimum_f32", "v_minimummaximum_f32"):
        _add(m, Form("VOP3", (V,), (VS, VS, VS), mods=VOP3_MODS))
    # LLVM's correctly rounded f32 division: scale (D, the scaled-or-not mask), fmas (reads VCC), fixup
    _add("v_div_scale_f32", Form("VOP3", (V, MASK), (VS, VS, VS), mods=("neg", "abs")))
    _add("v_div_fmas_f32", Form("VOP3", (V,), (VS, VS, VS, VCC), mods=("neg", "abs")))
    _add("v_div_fixup_f32", Form("VOP3", (V,), (VS, VS, VS), mods=("neg", "abs")))


GFX12_NAMES = {"s_addk_co_i32": "s_addk_i32", "s_add_co_i32": "s_add_i32", "s_add_co_u32": "s_add_u32", "s_add_co_ci_u32": "s_addc_u32",
               "s_sub_co_i32": "s_sub_i32", "s_sub_co_u32": "s_sub_u32", "s_sub_co_ci_u32": "s_subb_u32"}
"""gfx12's names of scalar ops whose gfx9 / gfx11 names gemmc's own printer keeps (LLVM's
assembler takes both): the op each names."""

_llvm_scalar()
_llvm_waits()
_llvm_hints()
_llvm_vector()
_llvm_memory()
_llvm_epilogue()


# -- the matrix instructions ----------------------------------------------------------------------
# VOP3P: the matrix instructions of every arch's table (gemmc.target.arch), in that arch's spelling:
# D (and C) one register per accumulator element, A and B their packed registers.
# MFMA (CDNA): SrcA/B take VGPRs or AGPRs, no SGPR or constant (llvm-mc: "invalid operand"); SrcC
# also an inline constant (`v_mfma_f32_16x16x4_f32 v[0:3], v16, v17, 0`).
# WMMA (RDNA): VGPRs only.  gfx12's WMMAs have gfx11's names but half the A/B registers (no
# replicated halves): they are ops of their own, `<name>_gfx12`, printed with the plain name.


def matrix_form(mi) -> Form:
    if mi.kind == "mfma" and mi.formats:
        return _f8f6f4_form(mi)
    if mi.kind == "mfma":
        return Form("VOP3P", (Slot("va", mi.c_regs),), (Slot("va", mi.a_regs), Slot("va", mi.b_regs),
                                                        Slot("vac", mi.c_regs)), acc=2)
    # an iu8 WMMA: neg_lo's bits 0 and 1 are A's and B's signedness, clamp saturates D
    mods = ("neg_lo", "clamp") if mi.signedness else ()
    return Form("VOP3P", (Slot("v", mi.c_regs),), (Slot("v", mi.a_regs), Slot("v", mi.b_regs),
                                                   Slot("v", mi.c_regs)), acc=2,
                asm=mi.mnemonic, mods=mods)


def _f8f6f4_form(mi) -> Form:
    """gfx950's f8f6f4 MFMAs: A and B of 8, 6 or 4 VGPRs (or AGPRs) as cbsz / blgp select FP8, FP6
    or FP4 (LLVM checks the tuple against the format); v_mfma_scale_* read two more sources, the
    E8M0 scales of A and B, each a VGPR, an SGPR or a constant whose byte op_sel / op_sel_hi pick."""
    also = tuple(sorted({mi.with_formats(f, f).a_regs for f in mi.formats} - {mi.a_regs}))
    srcs = (Slot("va", mi.a_regs, also), Slot("va", mi.b_regs, also), Slot("vac", mi.c_regs))
    if not mi.scale_block:
        return Form("VOP3P", (Slot("va", mi.c_regs),), srcs, mods=("cbsz", "blgp"), acc=2)
    return Form("VOP3P", (Slot("va", mi.c_regs),), srcs + (VS, VS), mods=("cbsz", "blgp", "op_sel", "op_sel_hi"),
                acc=2)


def matrix_op_name(arch, mi) -> str:
    """The amdgcn op (its MNEMONIC key) for matrix instruction `mi` on `arch`."""
    return f"{mi.mnemonic}_gfx12" if mi.kind == "wmma" and arch.name.startswith("gfx12") else mi.mnemonic


def _matrix_forms() -> dict[str, tuple[str, Form]]:
    forms: dict[str, tuple[str, Form]] = {}
    for arch in ARCHS.values():
        if arch.vendor != "amd":  # sm_90's mma.sync is no AMDGCN instruction
            continue
        for mi in arch.matrix_instrs:
            form, name = matrix_form(mi), matrix_op_name(arch, mi)
            known = forms.get(name)
            if known is None:
                forms[name] = (mi.kind, form)
            elif known[1] != form:
                raise AssertionError(f"{mi.mnemonic} has different operands on different archs")
    return forms


MATRIX_FORMS = _matrix_forms()
"""Every arch's MFMA / WMMA instructions, by op name: their kind ("mfma" or "wmma") and form."""

# -- instruction families ---------------------------------------------------------------------------

MEMORY_WAITS = ("s_waitcnt", "s_waitcnt_vscnt", "s_wait_loadcnt", "s_wait_dscnt", "s_wait_kmcnt", "s_wait_storecnt")
BARRIERS = ("s_barrier", "s_barrier_signal", "s_barrier_wait")
PLAIN_VALU_FORMATS = ("VOP1", "VOP2", "VOP3", "VOPC")  # vector ALU but the matrix instructions
VALU_FORMATS = (*PLAIN_VALU_FORMATS, "VOP3P")  # what LLVM's isVALU covers (MFMA, WMMA too)
SALU_FORMATS = ("SOP1", "SOP2", "SOPK", "SOPC")

# -- VALU timing (LLVM's SISchedule.td; gemmc.amdgcn.timing.classes has the table and the sources) ------

_TRANS = re.compile(r"v_(rcp|rsq|sqrt|exp|log|sin|cos|rcp_iflag)_(f32|f16|legacy)")
_INT_MUL = re.compile(r"v_(mul_lo_u32|mul_hi_u32|mul_hi_i32|mad_u64_u32|mad_i64_i32|mul_lo_i32|mad_u32_u24_e64_x)")
_DOUBLE = re.compile(r"_f64")
_WIDE = re.compile(r"v_(lshlrev_b64|lshrrev_b64|ashrrev_i64|lshl_add_u64|mov_b64|lshl_b64|lshr_b64|ashr_i64)")
_CVT = re.compile(r"v_cvt_")


def issue_cadence(arch) -> int:
    """Cycles between two issues of one wave: 4 on wave64 CDNA (a SIMD's issue slot comes every
    4 cycles), 1 on RDNA."""
    return 4 if arch.wave_size == 64 and arch.simd_lanes == 16 else 1


def valu_timing(arch, mnemonic: str) -> tuple[int, int, int]:
    """(pipe busy, wave busy, result latency) in cycles of a (non-matrix) VALU instruction on arch:
    SISchedule.td's write classes (Write32Bit, WriteTrans32, WriteIntMul, Write64Bit, WriteDouble,
    WriteFloatCvt), its SI/CDNA 4-cycle units or its GFX11 cycles."""
    m = mnemonic
    if issue_cadence(arch) == 4:  # CDNA: a unit is 4 cycles; results are readable when the instruction is done
        dp_full = arch.family in ("CDNA2", "CDNA3", "CDNA4")  # SIDPFullSpeedModel / SIDPGFX940FullSpeedModel
        units = 1
        if _TRANS.match(m) or _CVT.match(m):
            units = 4
        elif _INT_MUL.match(m) or _DOUBLE.search(m):
            units = 1 if dp_full else 4
        elif _WIDE.match(m):
            units = 1 if dp_full else 2
        busy = 4 * units * (arch.wave_size // 64)
        return busy, busy, busy
    if _TRANS.match(m):
        return 1, 1, 10
    if _INT_MUL.match(m):
        return 4, 4, 8
    if _DOUBLE.search(m):
        return 16, 16, 38
    if _WIDE.match(m):
        return 2, 2, 6
    return 1, 1, 5


# -- VALU issue behind an MFMA (CDNA3, CDNA4) ------------------------------------------------------
# Measured by AMD with ATT thread traces on MI308X (gfx942, the peak-TOPS limiter on, as MI300X
# runs) and MI350X (gfx950) for every MFMA family (LLVM pull request #233721, "[AMDGPU] Add MFMA
# VALU and packed-VALU issue cycle helpers", getVALUIssueCycle / getPackedVALUIssueCycle), in
# 4-clock issue slots counted from the MFMA's issue:
#   an XDL MFMA (16-bit, FP8, XF32 inputs) holds VALU off until slot 1 + (widest A/B source in
#   bytes a lane) / 16; packed F32 (v_pk_{add,fma,mul}_f32, v_pk_mov_b32) and DOT until
#   NumPasses + 2 (+ 1 when A is 16 bytes or more); an SGEMM or DGEMM MFMA (f32, f64 inputs)
#   holds every VALU until NumPasses + 2.
VALU_AFTER_MFMA_FAMILIES = ("CDNA3", "CDNA4")
_PACKED_F32 = re.compile(r"v_(pk_(add|fma|mul)_f32|pk_mov_b32|dot)")


def is_packed_f32(mnemonic: str) -> bool:
    """Whether a VALU instruction issues behind an MFMA as packed F32 / DOT does (above)."""
    return bool(_PACKED_F32.match(mnemonic))


def valu_after_mfma(arch, in_type: str, cycles: int, src_bytes: int) -> tuple[int, int]:
    """(VALU, packed F32 / DOT) issue slots after an MFMA of `in_type` inputs, `cycles` long, whose
    widest A/B source is `src_bytes` a lane, before which its SIMD issues no such instruction (the
    measured rule above); elsewhere (1, 1): the next slot."""
    if arch.family not in VALU_AFTER_MFMA_FAMILIES:
        return 1, 1
    passes = cycles // 4
    if in_type in ("f32", "f64"):
        return passes + 2, passes + 2
    return 1 + src_bytes // 16, passes + 2 + (src_bytes >= 16)


# -- inline constants -------------------------------------------------------------------------------

INLINE_FLOATS = {0.5: "0.5", -0.5: "-0.5", 1.0: "1.0", -1.0: "-1.0", 2.0: "2.0", -2.0: "-2.0", 4.0: "4.0", -4.0: "-4.0"}


def f32_bits(x: float) -> int:
    return struct.unpack("<I", struct.pack("<f", x))[0]


def is_inline_int(v: int) -> bool:
    return -16 <= v <= 64
