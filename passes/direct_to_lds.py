"""direct-to-lds: global->LDS copies by global_load_lds, without VGPRs (gfx942, gfx950).

The tutorial's DirectLoadTilePolicy (step 7).  Expects: kernel IR with gemm.copy ops
(lds-tiling's copies, before lower-copies), on an arch whose description lists
global_load_lds (gfx942, gfx950).  Produces: each copy it can prove marked `direct`,
nothing else; lower-copies then moves it by `amdgpu.gather_to_lds`: the LDS tile (which
must be dense: no padded rows) is treated as a flat array of 4-byte words in LDS order; word `idx` is moved by lane idx % wave of its wave, which reads it
at its own global address, and the hardware writes a wave's words to consecutive LDS
words from the wave-uniform base (M0).  Words outside the matrix are written as zeros
by a plain store instead, so every shape stays correct; waves past the tile's last word
skip.  One word holds one f32 element, or two 16-bit ones when both lie next to each
other in global memory too (the tile's LDS rows run along the stored rows, and rows and
tiles have even lengths, and the tile's column origin is provably even, so a pair is
wholly inside or outside the matrix).

An operand whose layout does not allow this (16-bit B transposed into LDS by register
tiling, odd or dynamic row lengths) keeps its ordinary copy, or with strict=true the
pass stops with a diagnostic; it also stops when neither operand can be loaded directly.
Composes with double-buffer (the next tile's words are in flight during the compute),
register tiling and the matrix-core lowerings; a direct copy ignores its vector width, and
the marks that order or split an ordinary copy's lanes (lds-tiling's `column_first`,
vectorize's `peel`, `row_lanes` and `blocks`) are taken off the copies it makes direct, as they no longer apply.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, UnitAttr
from xdsl.passes import ModulePass

from gemmc.arch import ARCHS
from gemmc.contraction import working_kernels, role
from gemmc.copy_lowering import direct_per_lane
from gemmc.diagnostics import pass_error
from gemmc.dialects.gemm import CopyOp, type_name
from gemmc.ir_names import ROLE_LOAD_A
from gemmc.lds_access import known_multiple, row_multiple
from gemmc.target import target_of


@dataclass(frozen=True)
class DirectToLdsPass(ModulePass):
    name = "direct-to-lds"

    strict: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        arch = target_of(op)
        if 4 not in arch.global_load_lds_bytes:
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
                reason = self._unproven(copy)
                if reason is None:
                    proven.append(copy)
                    continue
                if self.strict:
                    raise pass_error(self.name, copy, f"cannot load {operand} directly: {reason}")
                reasons.append(f"{operand}: {reason}")
            if not proven:
                raise pass_error(self.name, kernel, "neither operand can be loaded directly ("
                                 + "; ".join(dict.fromkeys(reasons)) + ")")
            for copy in proven:
                copy.properties["direct"] = UnitAttr()
                for mark in ("column_first", "peel", "row_lanes", "blocks"):  # they order a copy through VGPRs
                    copy.properties.pop(mark, None)

    @staticmethod
    def _unproven(copy: CopyOp) -> str | None:
        """Why this copy's words cannot be moved by global_load_lds, or None when they can."""
        elem = copy.src.type.element_type
        tile = list(copy.dst_index(*copy.tile))
        if list(copy.dst.type.get_shape()[-2:]) != tile:
            return f"its LDS buffer {copy.dst.type} does not hold the {tile[0]}x{tile[1]} tile densely"
        if direct_per_lane(elem) == 1:
            return None
        if copy.transpose is not None:
            return f"its {type_name(elem)} pairs are adjacent in global memory but not in its LDS tile (transposed there)"
        _, extent = copy.tile
        row = row_multiple(copy.src)
        if extent % 2:
            return f"the tile's rows have an odd length {extent}"
        if known_multiple(copy.o1) % 2:
            return "the tile's column origin is not provably even"
        if copy.src.type.get_shape()[1] < 0 and row % 2:
            return "its row length is dynamic, so 4-byte pairs are not provably aligned"
        if row % 2:
            return f"its row length {row} is odd"
        return None
