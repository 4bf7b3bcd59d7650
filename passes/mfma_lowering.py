"""mfma-lowering: the tutorial's step 7 on CDNA, the outer product on MFMA matrix cores.

Expects: a register-tiled kernel (lds-tiling + register-tiling; double-buffer and
vectorize may come before or after) for gfx90a, gfx942 or gfx950.
Produces: the workgroup as waves-m x waves-n waves of 64 lanes; each wave owns a
(block-m / waves-m) x (block-n / waves-n) tile of C made of instruction tiles, whose
accumulators live in a private `acc[tiles_m][tiles_n][regs]` (AGPRs/VGPRs once
compiled).  Per k-step of the instruction, each lane loads its fragment of A and of B
from LDS in the instruction's layout (one vector load each) and issues `amdgpu.mfma`;
the epilogue writes C from the accumulator layout.  All layouts come from the arch
description (gemmc.target.arch.MatrixInstr).

Options: instr (the ISA mnemonic, e.g. v_mfma_f32_32x32x8_f16 on gfx942; default: the
largest instruction for the fragment type that the tiles allow), waves-m, waves-n
(default 2 x 2), convert (f16, bf16 or an FP8 format of the arch: f32 inputs stay f32 in memory and LDS and are
rounded in the fragment loads, the tutorial's "Case 1"; without it f32 inputs use the
f32 MFMA, and f16/bf16 inputs are f16/bf16 in memory and LDS, "Case 2").
A block-scaled (MX) kernel (gemm.role load_sa / load_sb scale loads) takes gfx950's
v_mfma_scale_f32_*_f8f6f4 of its two formats (cbsz, blgp; instr= may name the 16x16x128 or the
32x32x64 form): each lane passes the E8M0 scale of the 32-element block its fragment holds
(MatrixInstr.sa / .sb), read from global memory by the K tile, as `amdgpu.scaled_mfma`.
frag-read (elements per LDS read of a lane's fragment; default 0: one read per run of
consecutive k's, e.g. one ds_read_b64 of four f16; 2: 4-byte reads, whose chunks a
swizzle-lds over the bank line can place so that a transposed 16-bit copy's stores, which
all hit one position of their chunk, spread over every bank too).
k-pack (instructions whose fragments a lane reads at once; default 0: one): the k's of k-pack
consecutive instructions interleave (a lane's run of r k's that starts at k s lies at s x
k-pack, and instruction p takes its elements p*r .. p*r+r-1), so one read, e.g. a ds_read_b128
of 8 bf16 for two 16x16x16 instructions, holds them all, as in gau-nernst's MI300X v3b; a sum
over k does not see the order, since A's and B's fragments take the same.
Diagnostics: an arch without MFMA, no register tiling, an instruction the arch lacks or
that takes another type, tiles that the instruction tile does not divide, a block-k that is
not a multiple of k-pack instructions' k, a packed read wider than 16 bytes.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from gemmc.passes.matrix_lowering import lower_module


@dataclass(frozen=True)
class MfmaLoweringPass(ModulePass):
    name = "mfma-lowering"

    instr: str = ""
    waves_m: int = 2
    waves_n: int = 2
    convert: str = ""
    frag_read: int = 0
    k_pack: int = 0

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        lower_module(self.name, "mfma", op, self.instr, self.waves_m, self.waves_n, self.convert, self.frag_read,
                     self.k_pack)
