"""ldmatrix: read mma.sync's fragments from shared memory by ldmatrix (sm_90), 8x8 matrices at a time.

Expects: a kernel that matrix-cores lowered to mma.sync (its schedule names the instruction),
with 16-bit fragments read as they are stored (no convert=, frag-read or k-pack), and A's and
B's copies still gemm.copy ops with no vectorize marks on a copy whose tile turns around (run
it right after matrix-cores: before vectorize, direct-to-lds, double-buffer and lower-copies).
Produces, in place (gemmc.transforms.compute_rewrite): the compute loop reads each warp's
fragments with nvgpu.ldmatrix, one x4 per A fragment and per two B fragments (an x2 for an odd
last one), as gemmc/transforms/ldmatrix_frags.py lays out; the LDS tiles are stored as the
operands are in global memory (A[m][k] or A^T[k][m], B[k][n] or B^T[n][k]), and a tile whose
rows run along m or n is read .trans: no copy transposes a tile, so the copies can move 16-byte
rows (vectorize, direct-to-lds's cp.async).  8-bit (FP8) fragments: sm_90's ldmatrix transposes
16-bit elements only (Arch.ldmatrix_trans_bits), so their tiles are k-contiguous (A[m][k],
B^T[n][k]) and read as stored, and the copy of an operand stored the other way transposes it
(gemmc.transforms.ldmatrix_frags.tile_layouts).  The schedule records `ldmatrix = 1`.
Bank conflicts: each matrix's 8 rows are read in one phase; rows 64 or 256 bytes long (k- or
n-major tiles of 32 or 128 halves) put 2 to 8 of them on the same banks, which pad-lds{pad=8}
(a 16-byte pad) or swizzle-lds spreads over all 32 (tests/test_ldmatrix.py counts them).
Diagnostics, each naming the kernel or op: a target other than an NVIDIA one, a kernel not
lowered to mma.sync or already read by ldmatrix, converted or split fragments, a fragment that
is not 8x8 matrices (gemmc.target.ldmatrix.decompose's reason), a vectorized copy that the
new layout would turn around, the tiles no longer fitting.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from gemmc.dialects.gemm import CopyOp
from gemmc.support.diagnostics import pass_error
from gemmc.support.ir_names import ROLE_LOAD_A
from gemmc.target.arch import get_matrix_instr
from gemmc.target.module_arch import target_of
from gemmc.transforms.compute_rewrite import rewrite_compute
from gemmc.transforms.contraction import Contraction, analyze, role, working_kernels
from gemmc.transforms.ldmatrix_frags import operands, tile_layouts
from gemmc.transforms.tiling_checks import check_fits


@dataclass(frozen=True)
class LdmatrixPass(ModulePass):
    name = "ldmatrix"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        arch = target_of(op)
        if arch.vendor != "nvidia":
            raise pass_error(self.name, op, f"{arch.name} ({arch.family}) has no ldmatrix, an NVIDIA instruction "
                             "(sm_75 and later); AMD's fragment reads are LDS loads")
        for kernel in working_kernels(op, self.name):
            con = analyze(kernel, self.name)
            self._check(con)
            s = con.schedule
            instr = get_matrix_instr(arch, s.instr)
            a_kmajor, b_transposed = tile_layouts(arch, instr, con.transpose_a, con.transpose_b)
            new = s.with_(ldmatrix=1, a_kmajor=a_kmajor, b_transposed=b_transposed)
            reads = operands(instr, bool(new.a_kmajor), bool(new.b_transposed), arch.ldmatrix_trans_bits)
            if isinstance(reads, str):
                raise pass_error(self.name, kernel, f"ldmatrix cannot read the fragments: {reads}")
            self._check_copies(con, new)
            check_fits(self.name, kernel, new, con, arch)
            rewrite_compute(con, new)

    def _check(self, con: Contraction) -> None:
        s, kernel = con.schedule, con.kernel
        if s is None or not s.instr:
            raise pass_error(self.name, kernel, "expects a kernel lowered to mma.sync; run matrix-cores first")
        if s.ldmatrix:
            raise pass_error(self.name, kernel, "the kernel already reads its fragments by ldmatrix")
        if s.frag_type:
            raise pass_error(self.name, kernel, f"the fragment loads round f32 to {s.frag_type} (matrix-cores "
                             "convert=); ldmatrix moves 16-bit elements as they are in shared memory")
        if s.frag_read or s.k_pack:
            raise pass_error(self.name, kernel, "ldmatrix reads whole 8x8 matrices; frag-read and k-pack "
                             "(matrix-cores) cut or interleave the fragments' reads")

    def _check_copies(self, con: Contraction, new) -> None:
        """A copy whose tile turns around must not carry vectorize's choices for the old layout."""
        for copy in (o for o in con.kernel.walk() if isinstance(o, CopyOp)):
            a = role(copy) == ROLE_LOAD_A
            flips = (copy.transpose is not None) != (new.a_kmajor != con.transpose_a if a
                                                     else new.b_transposed != con.transpose_b)
            marked = copy.width.value.data > 1 or any(
                getattr(copy, m) is not None for m in ("blocks", "peel", "row_lanes", "column_first"))
            if flips and marked:
                raise pass_error(self.name, copy, f"ldmatrix stores {'A' if a else 'B'}'s tile as the operand is "
                                 "stored, which turns this copy around; run ldmatrix before vectorize, whose "
                                 "choices for this copy were for the other layout")
