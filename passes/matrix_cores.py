"""matrix-cores: the arch's matrix-core lowering, the tutorial's step 7 on any target.

Runs mfma-lowering on CDNA (gfx90a, gfx942, gfx950) and wmma-lowering on RDNA (gfx1100,
gfx1201), with the same options, so that one pipeline (`step7`) serves every arch; on sm_90 the
same lowering with the tensor cores' warp-level mma.sync (m16n8k16, f16 and bf16 -> f32; m16n8k32,
OCP FP8 e4m3 / e5m2 and either pair -> f32; `nvgpu.mma_sync`, printed as inline PTX), whose A
fragment lies on two rows of the tile.  `instr=wgmma_m64n<N>k16_f32_<f16|bf16>` (N 64, 128, 256) takes
Hopper's warpgroup MMA instead (sm_90a; gemmc.target.wgmma): each "wave" is then a warpgroup of 128
threads owning thread_m x thread_n tiles of 64 x N, A and B read from the shared tiles by descriptors
(nvgpu.wgmma_desc, nvgpu.wgmma_mma_async), the tiles stored as the operands are in global memory
(K-major, or MN-major read with imm-trans); it expects 16-bit inputs into f32, block-k a multiple of
64 (128-byte rows), and produces a kernel that swizzle-lds{mode=sw128} must lay out (the 128-byte
swizzle the descriptors name), after lower-copies: gemmc.passes.matrix_lowering.plan_wgmma.
Options: instr, waves-m, waves-n, frag-read, k-pack as those passes (0: that pass's default); convert
(default `auto`: f32 inputs on an arch without f32 matrix instructions, i.e. RDNA, are
rounded to f16 in the fragment loads, the tutorial's "Case 1"; `none` never rounds; f16,
bf16 or an FP8 format of the arch: rounded to it);
fallback (true: leave a kernel whose types the arch's matrix cores lack, or an arch
without matrix cores, as it is).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from gemmc.transforms.contraction import analyze, working_kernels
from gemmc.support.diagnostics import GemmcError
from gemmc.dialects.gemm import type_name
from gemmc.passes.matrix_lowering import DEFAULT_WAVES, lower_module
from gemmc.target.module_arch import target_of
from gemmc.target.wgmma import is_wgmma


@dataclass(frozen=True)
class MatrixCoresPass(ModulePass):
    name = "matrix-cores"

    instr: str = ""
    waves_m: int = 0
    waves_n: int = 0
    convert: str = "auto"
    fallback: bool = False
    frag_read: int = 0
    k_pack: int = 0

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        arch = target_of(op)
        kinds = {i.kind for i in arch.matrix_instrs}
        kind = "mfma" if "mfma" in kinds else "mma" if "mma" in kinds else "wmma"
        if is_wgmma(self.instr):
            kind = "wgmma"
        name = {"mfma": "mfma-lowering", "wmma": "wmma-lowering", "mma": self.name, "wgmma": self.name}[kind]
        convert = self.convert
        if kind == "wgmma" and convert in ("auto", "none"):  # (wgmma reads the tiles as they are)
            convert = ""
        elif convert == "auto":
            types = {type_name(analyze(k, self.name).in_type) for k in working_kernels(op, self.name)}
            has_f32 = any(i.in_type == "f32" for i in arch.matrix_instrs)
            convert = "f16" if types == {"f32"} and not has_f32 else ""
        elif convert == "none":
            convert = ""
        try:
            if not kinds and kind != "wgmma":
                raise GemmcError(f"{self.name}: {arch.name} has no matrix cores")
            wm, wn = DEFAULT_WAVES[kind]
            lower_module(name, kind, op, self.instr, self.waves_m or wm, self.waves_n or wn, convert, self.frag_read,
                         self.k_pack)
        except GemmcError:
            if not self.fallback:
                raise
