"""direct-to-lds: global->LDS copies by global_load_lds, without VGPRs (gfx942, gfx950), or by
cp.async on sm_90.

The tutorial's DirectLoadTilePolicy (step 7).  Expects: kernel IR with gemm.copy ops
(lds-tiling's copies, before lower-copies), on an arch whose description lists
global_load_lds (gfx942, gfx950).  Produces: each copy it can prove marked `direct`,
nothing else; lower-copies then moves it by `amdgpu.gather_to_lds`: the LDS tile (which
must be dense: no padded rows) is treated as a flat array of 4-byte words in LDS order;
word `idx` is moved by lane idx % wave of its wave, which reads it at its own global
address, and the hardware writes a wave's words to consecutive LDS words from the
wave-uniform base (M0).  Words outside the matrix are written as zeros by a plain store
instead, so every shape stays correct; waves past the tile's last word skip.  Only 4-byte
words: gfx950's 12- and 16-byte global_load_lds is not used.

A word holds 4 / element bytes elements: one f32, two 16-bit or four FP8 ones.  More than
one must lie next to each other in global memory too: the tile's LDS rows run along the
stored rows (not transposed), and the tile's row length, the matrix's row length (static,
or the multiple that assume-aligned asserts) and the tile's column origin (provably) are
multiples of the elements per word, so a word starts 4-byte aligned and lies wholly inside
or outside the matrix (the transfer tests only its first element against the copy's column
bound, the matrix's row length).

An operand whose layout does not allow this (16-bit or FP8 B transposed into LDS by
register tiling, row lengths that are not multiples of the elements per word or are
dynamic without assume-aligned, FP4 and FP6, which are packed in global memory) keeps its ordinary copy, or with
strict=true the pass stops with a diagnostic; it also stops when neither operand can be
loaded directly.  The proof is gemmc.transforms.copy_lowering.direct_unproven, which lower-copies
checks again: a later pass that changes a direct copy's tile (register tiling transposing
it, say) gets a located error there, not wrong words.
On sm_90 the same pass marks the copies that cp.async can move (cp.async.cg, 16 bytes a lane:
the tile stored as in global memory, its rows, the matrix's rows and the column origin
multiples of 16 bytes; padded shared rows are fine); lower-copies then issues them as
nvgpu.device_async_copy (src-size zero-fills past the matrix's edge) and places their
commit_group / wait_group by the K loop's stages (gemmc/transforms/async_waits.py), so that
double-buffer, or multi-buffer + pipeline with 2 to 4 stages, keep that many tiles in flight.
ldmatrix before it keeps 16-bit B untransposed in shared memory, so both operands qualify.
fallback=true leaves a kernel of which no copy qualifies as it is (the default pipelines
run at any shape), where fallback=false stops with the diagnostic below.

Composes with double-buffer (the next tile's words are in flight during the compute),
register tiling and the matrix-core lowerings (before it, for words of several elements:
see above); a direct copy ignores its vector width, and the marks that order or split an
ordinary copy's lanes (lds-tiling's `column_first`, vectorize's `peel`, `row_lanes` and
`blocks`) are taken off the copies it makes direct, as they no longer apply.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, UnitAttr
from xdsl.passes import ModulePass

from gemmc.target.arch import ARCHS
from gemmc.transforms.contraction import working_kernels, role
from gemmc.transforms.copy_lowering import direct_unproven
from gemmc.support.diagnostics import pass_error
from gemmc.dialects.gemm import CopyOp
from gemmc.support.ir_names import ROLE_LOAD_A
from gemmc.target.module_arch import target_of


@dataclass(frozen=True)
class DirectToLdsPass(ModulePass):
    name = "direct-to-lds"

    strict: bool = False
    fallback: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        arch = target_of(op)
        if 4 not in arch.global_load_lds_bytes and arch.vendor != "nvidia":
            capable = ", ".join(a.name for a in ARCHS.values() if 4 in a.global_load_lds_bytes)
            raise pass_error(self.name, op, f"{arch.name} ({arch.family}) has no global_load_lds; it exists on {capable}")
        for kernel in working_kernels(op, self.name):
            copies = [c for c in kernel.walk() if isinstance(c, CopyOp)]
            if not copies:
                raise pass_error(self.name, kernel, "expects gemm.copy ops: run lds-tiling first, and direct-to-lds "
                                 "before the passes that lower the copies (lower-copies, double-buffer{stage=registers})")
            if any(c.direct is not None for c in copies):
                raise pass_error(self.name, kernel, "the kernel already loads LDS directly")
            proven, reasons = [], []
            for copy in copies:
                operand = "A" if role(copy) == ROLE_LOAD_A else "B"
                reason = direct_unproven(copy)
                if reason is None:
                    proven.append(copy)
                    continue
                if self.strict:
                    raise pass_error(self.name, copy, f"cannot load {operand} directly: {reason}")
                reasons.append(f"{operand}: {reason}")
            if not proven and self.fallback:
                continue
            if not proven:
                raise pass_error(self.name, kernel, "neither operand can be loaded directly ("
                                 + "; ".join(dict.fromkeys(reasons)) + ")")
            for copy in proven:
                copy.properties["direct"] = UnitAttr()
                for mark in ("column_first", "peel", "row_lanes", "blocks"):  # they order a copy through VGPRs
                    copy.properties.pop(mark, None)
