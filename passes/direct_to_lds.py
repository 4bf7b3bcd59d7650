"""direct-to-lds: global->LDS copies by global_load_lds, without VGPRs (gfx942, gfx950).

The tutorial's DirectLoadTilePolicy (step 7).  Expects: an LDS-tiled kernel, on an arch
whose description lists global_load_lds (gfx942, gfx950).  Produces: the copy of each
operand as `amdgpu.gather_to_lds`: the LDS tile is treated as a flat array of 4-byte
words in LDS order; word `idx` is moved by lane idx % wave of its wave, which reads it
at its own global address, and the hardware writes a wave's words to consecutive LDS
words from the wave-uniform base (M0).  Words outside the matrix are written as zeros
by a plain store instead, so every shape stays correct; waves past the tile's last word
skip.  One word holds one f32 element, or two 16-bit ones when both lie next to each
other in global memory too (the tile's LDS rows run along the stored rows, and rows and
tiles have even lengths, so a pair is wholly inside or outside the matrix).

An operand whose layout does not allow this (16-bit B transposed into LDS by register
tiling, odd or dynamic row lengths) keeps its ordinary copy, or with strict=true the
pass stops with a diagnostic; it also stops when neither operand can be loaded directly.
Composes with double-buffer (the next tile's words are in flight during the compute),
register tiling and the matrix-core lowerings; it replaces vectorize's copies.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from gemmc.arch import ARCHS
from gemmc.contraction import Contraction, analyze, kernels
from gemmc.diagnostics import pass_error
from gemmc.dialects.gemm import type_name
from gemmc.matrix_kernel import direct_per_lane
from gemmc.target import target_of
from gemmc.tiled_kernel import rebuild


@dataclass(frozen=True)
class DirectToLdsPass(ModulePass):
    name = "direct-to-lds"

    strict: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        arch = target_of(op)
        if 4 not in arch.global_load_lds_bytes:
            capable = ", ".join(a.name for a in ARCHS.values() if 4 in a.global_load_lds_bytes)
            raise pass_error(self.name, op, f"{arch.name} ({arch.family}) has no global_load_lds; it exists on {capable}")
        for kernel in kernels(op, self.name):
            con = analyze(kernel, self.name)
            s = con.schedule
            if s is None:
                raise pass_error(self.name, kernel, "expects an LDS-tiled kernel; run lds-tiling first")
            if s.direct:
                raise pass_error(self.name, kernel, "the kernel already loads LDS directly")
            direct, reasons = 0, []
            for bit, operand in ((1, "a"), (2, "b")):
                reason = self._unproven(con, operand)
                if reason is None:
                    direct |= bit
                    continue
                if self.strict:
                    raise pass_error(self.name, kernel, f"cannot load {operand.upper()} directly: {reason}")
                reasons.append(f"{operand.upper()}: {reason}")
            if not direct:
                raise pass_error(self.name, kernel, "neither operand can be loaded directly (" + "; ".join(reasons) + ")")
            rebuild(con, s.with_(direct=direct))

    @staticmethod
    def _unproven(con: Contraction, operand: str) -> str | None:
        """Why `operand`'s words cannot be moved by global_load_lds, or None when they can."""
        s = con.schedule
        if direct_per_lane(con.in_type) == 1:
            return None
        value, trans = (con.a, con.transpose_a) if operand == "a" else (con.b, con.transpose_b)
        if operand == "a":
            kmajor = getattr(s, "a_kmajor", 0)
            same_way = trans == bool(kmajor)  # LDS rows run along the stored rows
            extent = s.block_m if trans else s.block_k
        else:
            same_way = trans == bool(s.b_transposed)
            extent = s.block_k if trans else s.block_n
        elem = type_name(con.in_type)
        if not same_way:
            return f"its {elem} pairs are adjacent in global memory but not in its LDS tile (transposed there)"
        row = value.type.get_shape()[1]
        if extent % 2:
            return f"the tile's rows have an odd length {extent}"
        if row < 0:
            return "its row length is dynamic, so 4-byte pairs are not provably aligned"
        if row % 2:
            return f"its row length {row} is odd"
        return None
