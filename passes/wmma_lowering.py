"""wmma-lowering: the tutorial's step 7 on RDNA, the outer product on WMMA matrix cores.

Expects: a register-tiled kernel (lds-tiling + register-tiling; double-buffer and
vectorize may come before or after) for gfx1100 (RDNA3) or gfx1201 (RDNA4).
Produces: the workgroup as waves-m x waves-n waves of 32 lanes, each owning a tile of C
made of 16x16 instruction tiles; per k-step of 16 each lane loads its fragments of A
and B from LDS in the instruction's layout and issues `amdgpu.wmma`, and the epilogue
writes C from the accumulator layout.  The layouts differ by generation and come from
the arch description: on gfx1100 lanes 16-31 load the same A rows and B columns as
lanes 0-15 (replication) and D's rows alternate between the two halves; on gfx1201
lanes 0-15 hold k 0-3 and 8-11, lanes 16-31 k 4-7 and 12-15 (two loads of four, put
together), and D's rows 0-7 and 8-15.

Options: instr (v_wmma_f32_16x16x16_f16 or _bf16; default: the one for the fragment
type), waves-m, waves-n (default 4 x 2: eight waves, 256 threads, each a 32 x 64 tile of
a 128 x 128 block, which keeps accumulators and fragments within the VGPRs), convert (f16,
bf16 or gfx1201's FP8 formats: f32 inputs rounded in the fragment loads, the tutorial's "Case 1"; WMMA has no
f32 inputs, so f32 kernels need it).
frag-read (elements per LDS read of a fragment; 0: one read per run, as mfma-lowering).
k-pack (instructions whose fragments a lane reads at once, their k's interleaved, as
mfma-lowering: gfx1201's runs of four f16 become 16-byte reads with k-pack=2; gfx1100's
run of sixteen needs frag-read to stay within 16 bytes).
Diagnostics: an arch without WMMA, no register tiling, f32 fragments, an instruction the
arch lacks, tiles that 16x16x16 does not divide, k-pack as mfma-lowering.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from gemmc.passes.matrix_lowering import lower_module


@dataclass(frozen=True)
class WmmaLoweringPass(ModulePass):
    name = "wmma-lowering"

    instr: str = ""
    waves_m: int = 4
    waves_n: int = 2
    convert: str = ""
    frag_read: int = 0
    k_pack: int = 0

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        lower_module(self.name, "wmma", op, self.instr, self.waves_m, self.waves_n, self.convert, self.frag_read,
                     self.k_pack)
