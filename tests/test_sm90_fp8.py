"""sm_90's FP8 tensor-core path (issue #38, item 1): mma.sync m16n8k32 on the OCP formats
(f8e4m3fn, f8e5m2, and either pair), fragments by ldmatrix from k-contiguous tiles.

* the layouts are the PTX ISA's fragment tables for m16n8k32 with 8-bit types (`gemmc layout
  --arch sm_90`), checked against the ISA's formulas transcribed here; a planted swap in the table
  (two registers of A, two lanes of B) breaks that check;
* the interpreter's nvgpu.mma_sync against numpy for each format pair;
* the FP8 default (MATRIX_FP8_DEFAULTS["sm_90"], and the per-shape selection) PASSes the
  interpreter's float64 check at odd shapes (hypothesis), A and B either way round in memory;
* planted fragment swaps in the lowering's view of the table (element-wise reads and ldmatrix)
  FAIL the check;
* ldmatrix on bytes: the table, the pieces, the refusal of 8-bit .trans; the FNUZ formats are
  refused for sm_90 at their declaration; AMD targets' FP8 defaults unchanged;
* the printed CUDA passes nvcc's ptxas for sm_90 without spills (where the CUDA toolkit is installed).
"""

from __future__ import annotations

import dataclasses
import re
import shutil

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gemmc
from gemmc.driver.pipeline import MATRIX_FP8_DEFAULTS, MATRIX_FP8_PAIR_DEFAULTS, default_pipeline, typed_default
from gemmc.interp.matrix import multiply
from gemmc.support.arith_semantics import fp8_dtypes
from gemmc.support.diagnostics import GemmcError
from gemmc.target.arch import Layout, get_arch, get_matrix_instr
from gemmc.target.ldmatrix import decompose, deliver
from gemmc.transforms.ldmatrix_frags import tile_layouts
from test_matrix import holder, layout_csv

SM90 = get_arch("sm_90")
E4M3, E5M2 = "f8e4m3fn", "f8e5m2"
PAIRS = [(E4M3, E4M3), (E4M3, E5M2), (E5M2, E4M3), (E5M2, E5M2)]
PTX = {E4M3: "e4m3", E5M2: "e5m2"}
DEFAULT = MATRIX_FP8_DEFAULTS["sm_90"]


def mnemonic(a: str, b: str) -> str:
    return f"mma_m16n8k32_f32_{PTX[a]}_{PTX[b]}"


def source(a: str = E4M3, b: str = E4M3, dims: str = "M, N, K", b_transposed: bool = False,
           col_major: bool = False) -> str:
    bdecl = f"B: {b}[N, K]" if b_transposed else f"B: {b}[K, N]"
    return (f"kernel g {{ dim {dims}  A: {a}[M, K]{' col_major' if col_major else ''}  {bdecl}  "
            f"C: f32[M, N]  acc f32  C = A @ {'B.T' if b_transposed else 'B'} }}")


# -- the PTX ISA's table ---------------------------------------------------------------------


def isa_violations(instr) -> list[str]:
    """Where the instruction's layouts differ from the PTX ISA's m16n8k32 8-bit fragment formulas
    (groupID = lane >> 2, threadID_in_group = lane % 4): A's a_i at row groupID (+8 for 4 <= i < 8
    and i >= 12), col 4 t + (i & 3) (+16 for i >= 8); B's b_i at row 4 t + (i & 3) (+16 for i >= 4),
    col groupID; C's c_i at row groupID (+8 for i >= 2), col 2 t + (i & 1)."""
    out = []
    for lane in range(32):
        g, t = lane >> 2, lane % 4
        want = {"a": [(g + 8 * (4 <= i < 8 or i >= 12), 4 * t + (i & 3) + 16 * (i >= 8)) for i in range(16)],
                "b": [(4 * t + (i & 3) + 16 * (i >= 4), g) for i in range(8)],
                "d": [(g + 8 * (i >= 2), 2 * t + (i & 1)) for i in range(4)]}
        for name, cells in want.items():
            layout = getattr(instr, name)
            for i, cell in enumerate(cells):
                got = tuple(int(x) for x in layout.at(lane, i)[1:])
                if got != cell:
                    out.append(f"{name}{i} of lane {lane}: {got}, the ISA says {cell}")
    return out


@pytest.mark.parametrize("a,b", PAIRS)
def test_layouts_are_the_ptx_isa_formulas(a, b):
    instr = get_matrix_instr(SM90, mnemonic(a, b))
    assert (instr.in_type, instr.b_in_type, instr.k, instr.a_regs, instr.b_regs, instr.c_regs) == (a, b, 32, 4, 2, 4)
    assert instr.ptx == f"mma.sync.aligned.m16n8k32.row.col.f32.{PTX[a]}.{PTX[b]}.f32"
    assert isa_violations(instr) == []


@dataclasses.dataclass(frozen=True)
class Permuted(Layout):
    """A planted bug: the layout with its lanes and items renumbered (item i read as perm[i])."""

    items_perm: tuple[int, ...] = ()
    lanes_perm: tuple[int, ...] = ()

    def at(self, lane, item):
        return super().at(_renumber(lane, self.lanes_perm), _renumber(item, self.items_perm))


def _renumber(x, perm: tuple[int, ...]):
    """x (an int or a numpy array) renumbered by perm; anything else (an IR value) as it is."""
    if not perm or not isinstance(x, (int, np.integer, np.ndarray)):
        return x
    return int(perm[int(x)]) if np.ndim(x) == 0 else np.asarray(perm)[x]


def permuted(layout: Layout, items=(), lanes=()) -> Permuted:
    return Permuted(layout.lanes, layout.items, layout.row, layout.col, layout.block, tuple(items), tuple(lanes))


A_REGS_1_2 = (0, 1, 2, 3, 8, 9, 10, 11, 4, 5, 6, 7, 12, 13, 14, 15)  # A's registers 1 and 2 exchanged
B_LANES_0_1 = (1, 0) + tuple(range(2, 32))  # lanes 0 and 1 of B exchanged


def test_planted_table_swap_breaks_the_isa_check():
    """Two registers of A, or two lanes' elements of B, swapped in the table: the ISA check names them."""
    instr = get_matrix_instr(SM90, mnemonic(E4M3, E4M3))
    bad_a = dataclasses.replace(instr, a=permuted(instr.a, items=A_REGS_1_2))
    bad_b = dataclasses.replace(instr, b=permuted(instr.b, lanes=B_LANES_0_1))
    assert any(v.startswith("a4 of lane 0") for v in isa_violations(bad_a))
    assert any(v.startswith("b0 of lane 0") for v in isa_violations(bad_b))


def test_layout_command_shows_the_table(capsys):
    """`gemmc layout`'s grid, byte by byte: a0..a3 of lane 0 are bytes 0-3 of its register 0 at
    k 0-3; a8 (register 2) sits 16 k's on; B's b4 of lane 5 at k 20, column 1."""
    table = layout_csv(mnemonic(E4M3, E5M2), "sm_90", capsys)
    assert [holder(table, "A", 0, k)[0] for k in range(4)] == [(0, 0, 8 * k, 8 * k + 7) for k in range(4)]
    assert holder(table, "A", 8, 0)[0][:2] == (0, 1) and holder(table, "A", 0, 16)[0][:2] == (0, 2)
    assert holder(table, "B", 20, 1)[0][:3] == (5, 1, 0)
    for matrix, rows, cols in (("A", 16, 32), ("B", 32, 8), ("D", 16, 8)):
        assert all(len(holder(table, matrix, r, c)) == 1 for r in range(rows) for c in range(cols))


@pytest.mark.parametrize("a,b", PAIRS)
def test_interpreter_multiplies_by_the_layouts(a, b):
    instr = get_matrix_instr(SM90, mnemonic(a, b))
    rng = np.random.default_rng(3)
    types = fp8_dtypes()
    a_mat = rng.normal(0, 4, (16, 32)).astype(types[a])
    b_mat = rng.normal(0, 4, (32, 8)).astype(types[b])
    c_mat = rng.normal(0, 4, (16, 8)).astype(np.float32)
    lanes = np.arange(32)[:, None]

    def gather(layout, mat):
        items = np.arange(layout.items)[None, :]
        _, r, c = (np.broadcast_to(x, (32, layout.items)) for x in layout.at(lanes, items))
        return mat[r, c][None]

    d = multiply(instr, gather(instr.a, a_mat), gather(instr.b, b_mat), gather(instr.d, c_mat))
    want = (a_mat.astype(np.float64) @ b_mat.astype(np.float64) + c_mat).astype(np.float32)
    np.testing.assert_array_equal(d, gather(instr.d, want))


# -- ldmatrix on bytes -------------------------------------------------------------------------


def test_ldmatrix_delivers_byte_quads():
    """8-bit elements ride in ldmatrix's 16-bit ones: lane l receives row l / 4, bytes 4 (l % 4) .. + 3."""
    rows = np.arange(2 * 128).reshape(1, 2, 8, 16)  # element (q, r, c) holds q * 128 + r * 16 + c
    out = deliver(rows, False)[0]
    assert out.shape == (32, 8)
    assert out[5].tolist() == [q * 128 + 16 + 4 + i for q in range(2) for i in range(4)]
    assert sorted(out.ravel().tolist()) == list(range(256))


def test_fp8_fragments_are_byte_matrices_read_as_stored():
    """A from A[m][k]: four 8x16-byte matrices (rows 0 / 8, k 0 / 16); B from B^T[n][k]: two (k 0 / 16);
    neither from a tile whose rows run along m or n: sm_90's ldmatrix transposes 16-bit elements only."""
    instr = get_matrix_instr(SM90, mnemonic(E4M3, E5M2))
    transposes = 8 in SM90.ldmatrix_trans_bits
    a = decompose(instr.a, True, True, 8, transposes)
    b = decompose(instr.b, False, True, 8, transposes)
    assert (a.trans, a.rows, a.cols) == (False, (0, 8, 0, 8), (0, 0, 16, 16))
    assert (b.trans, b.rows, b.cols) == (False, (0, 0), (0, 16))
    for layout, k_is_col in ((instr.a, True), (instr.b, False)):
        assert "transposes no 8-bit elements" in decompose(layout, k_is_col, False, 8, transposes)


@pytest.mark.parametrize("ta,tb", [(False, False), (True, False), (False, True), (True, True)])
def test_fp8_tiles_are_k_contiguous(ta, tb):
    """Whatever A's and B's layouts in memory, their FP8 tiles are A[m][k] and B^T[n][k] (a transposing
    copy where the operand is stored the other way); 16-bit tiles stay as the operands are stored."""
    fp8 = get_matrix_instr(SM90, mnemonic(E4M3, E4M3))
    f16 = get_matrix_instr(SM90, "mma_m16n8k16_f32_f16")
    assert tile_layouts(SM90, fp8, ta, tb) == (0, 1)
    assert tile_layouts(SM90, f16, ta, tb) == (int(ta), int(tb))


def test_ldmatrix_trans_of_bytes_does_not_verify():
    text = """builtin.module attributes {gemmc.target = "sm_90"} {
  func.func @g(%i: index) {
    %t = memref.alloca() : memref<64x64xf8E4M3FN, 3 : i64>
    %a = nvgpu.ldmatrix %t[%i, %i] {numTiles = 4 : i32, transpose} : memref<64x64xf8E4M3FN, 3 : i64> -> vector<16xf8E4M3FN>
    func.return
  }
}"""
    with pytest.raises(GemmcError, match="ldmatrix .trans moves 16-bit elements; it cannot transpose f8e4m3fn"):
        gemmc.parse_ir(text)


# -- the default and the lowering, checked by the interpreter ---------------------------------


def test_default_pipeline_is_the_fp8_tensor_core_one():
    assert default_pipeline(SM90, E4M3) == DEFAULT == default_pipeline(SM90, E5M2)
    assert typed_default(SM90, E4M3, E5M2, "f32") == (MATRIX_FP8_PAIR_DEFAULTS["sm_90"], "")
    for arch in ("gfx942", "gfx950", "gfx1201"):  # mixed pairs elsewhere keep the type-independent default
        a = get_arch(arch)
        assert typed_default(a, "f8e4m3fn", "f8e5m2", "f32")[0] == default_pipeline(a)


def test_fnuz_formats_are_refused_at_their_declaration():
    text = "kernel g {\n  dim M = 64, N = 64, K = 64\n  A: f8e4m3fnuz[M, K]\n  B: f8e4m3fnuz[K, N]\n  C: f32[M, N]\n  acc f32\n  C = A @ B\n}\n"
    with pytest.raises(GemmcError, match="sm_90 cannot do f8e4m3fnuz") as e:
        gemmc.parse(text, "g.gemm", arch=SM90)
    assert ":3:" in str(e.value)


_LOWERED: dict = {}


def lowered(a: str, b: str, b_transposed: bool, col_major: bool, pipeline: str | None):
    """The program with dynamic sizes lowered once per case."""
    key = (a, b, b_transposed, col_major, pipeline)
    if key not in _LOWERED:
        module = gemmc.parse(source(a, b, b_transposed=b_transposed, col_major=col_major))
        _LOWERED[key] = gemmc.lower(module, pipeline, SM90)
    return _LOWERED[key]


CASES = [(E4M3, E4M3, False, False), (E4M3, E5M2, True, False), (E5M2, E5M2, False, True), (E5M2, E4M3, True, True)]


@pytest.mark.parametrize("a,b,bt,cm", CASES)
@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(m=st.integers(1, 200), n=st.integers(1, 150), k=st.integers(1, 300))
def test_fp8_default_passes_at_odd_shapes(a, b, bt, cm, m, n, k):
    """MATRIX_FP8_DEFAULTS["sm_90"] (ldmatrix, cp.async where the rows allow, 128x128x128 tiles),
    checked against float64 of the declared types."""
    module = lowered(a, b, bt, cm, DEFAULT)
    r = gemmc.check(module, SM90, {"M": m, "N": n, "K": k})
    assert r.passed and r.stats.matrix_instrs > 0, r.summary()


@pytest.mark.parametrize("a,b,bt,dims", [(E4M3, E4M3, False, "M = 131, N = 77, K = 200"),
                                         (E4M3, E5M2, True, "M = 300, N = 200, K = 129"),
                                         (E5M2, E5M2, False, "M = 64, N = 64, K = 2000")])
def test_selection_passes(a, b, bt, dims):
    """`gemmc compile --arch sm_90`'s choice for the shape (smaller tiles, split-k, stream-k) on the tensor cores."""
    module = gemmc.lower(gemmc.parse(source(a, b, dims, b_transposed=bt)), None, SM90)
    assert "nvgpu.mma_sync" in gemmc.print_ir(module)
    r = gemmc.check(module, SM90, {})
    assert r.passed and r.stats.matrix_instrs > 0, r.summary()


ELEMENTWISE = ("gemm-to-kernel,lds-tiling{block-m=64 block-n=64 block-k=64},register-tiling{thread-m=4 thread-n=4},"
               "matrix-cores{waves-m=2 waves-n=2},vectorize{width=8 blocks=true},double-buffer{stage=lds},lower-copies")


@pytest.mark.parametrize("pipeline", [DEFAULT, ELEMENTWISE], ids=["ldmatrix", "elementwise"])
@pytest.mark.parametrize("operand", ["a", "b"])
def test_planted_swap_in_the_lowerings_table_fails(monkeypatch, pipeline, operand):
    """The lowering reads its fragments by a table with A's registers 1 and 2 (rows 8-15 / k 0-15 and
    rows 0-7 / k 16-31) or B's registers 0 and 1 (k 0-15 / 16-31) exchanged; the interpreter's
    mma.sync places them by the PTX ISA's: FAIL."""
    from gemmc.passes import ldmatrix as ldmatrix_pass
    from gemmc.transforms import matrix_kernel

    real = matrix_kernel.get_matrix_instr
    perm = {"a": ("a", A_REGS_1_2), "b": ("b", (4, 5, 6, 7, 0, 1, 2, 3))}[operand]

    def planted(arch, name):
        instr = real(arch, name)
        if instr.k != 32:
            return instr
        field, items = perm
        return dataclasses.replace(instr, **{field: permuted(getattr(instr, field), items=items)})

    monkeypatch.setattr(matrix_kernel, "get_matrix_instr", planted)
    monkeypatch.setattr(ldmatrix_pass, "get_matrix_instr", planted)
    module = gemmc.lower(gemmc.parse(source(), defines={"M": 64, "N": 64, "K": 96}), pipeline, SM90)
    assert not gemmc.check(module, SM90, {}).passed


def test_emitted_mma_and_ldmatrix():
    module = gemmc.lower(gemmc.parse(source(E5M2, E4M3, "M = 256, N = 256, K = 256", b_transposed=True)), DEFAULT, SM90)
    text = gemmc.emit(module, SM90, "hip")
    assert ('asm("mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e4m3.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, '
            '{%10, %11, %12, %13};"') in text
    assert "ldmatrix.sync.aligned.m8n8.x4.shared.b16" in text and ".trans" not in text
    assert "cp.async.cg.shared.global" in text


# -- ptxas (nvcc's, through gemmc.target.cuda, where the CUDA toolkit is installed) -------------


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc (CUDA) is not installed")
@pytest.mark.parametrize("bt", [False, True], ids=["B[K][N]", "B[N][K]"])
def test_default_passes_ptxas_without_spills(bt):
    from gemmc.target.cuda import compile_cuda, resource_report

    module = gemmc.lower(gemmc.parse(source(E4M3, E4M3, "M = 4096, N = 4096, K = 4096", b_transposed=bt)), None, SM90)
    hip = gemmc.emit(module, SM90, "hip")
    assert "mma.sync.aligned.m16n8k32.row.col.f32" in compile_cuda(hip, SM90, "asm")
    (kernel,) = resource_report(hip, SM90)
    assert kernel.vgpr_spill == 0 and kernel.scratch_bytes == 0 and kernel.vgprs <= 255


# -- gemmc bench and benchmarks/h200/matrix.py -------------------------------------------------


@pytest.mark.parametrize("a,b,bt,lt,dims", [(E4M3, E5M2, True, True, "M = 256, N = 128, K = 64"),
                                            (E4M3, E4M3, False, False, "M = 256, N = 128, K = 64"),
                                            (E5M2, E5M2, True, False, "M = 256, N = 128, K = 64"),
                                            (E4M3, E4M3, True, False, "M = 257, N = 128, K = 72")])
def test_bench_checks_fp8_against_f16_copies(a, b, bt, lt, dims):
    """gemmc bench's program for FP8 inputs: filled through cuda_fp8.h's types, checked against
    cublasGemmEx on f16 copies (exact), timed against cuBLASLt's FP8 GEMM where it takes the problem
    (TN, not e5m2 x e5m2, sizes multiples of 16; its A is gemmc's B), else against that f16 GemmEx."""
    from gemmc.driver.bench import bench_source

    module = gemmc.lower(gemmc.parse(source(a, b, dims, b_transposed=bt)), None, SM90)
    text = bench_source(module, SM90, {})
    fa, fb = ("__nv_fp8_e4m3" if t == E4M3 else "__nv_fp8_e5m2" for t in (a, b))
    assert f"fill_fp8<{fa}>(dA[s], size_a" in text and f"fill_fp8<{fb}>(dB[s], size_b" in text
    assert "auto cublas_check = [&](int s, float* c) { BLAS_CHECK(cublasGemmEx(handle" in text
    assert "dB16[s], CUDA_R_16F" in text and f"bench_fp8_to_half<{fa}><<<1024, 256>>>(dA[s], dA16[s], size_a)" in text
    timed = re.search(r"auto cublas = \[&\]\(int s, float\* c\) \{ BLAS_CHECK\((\w+)\(", text).group(1)
    assert timed == ("cublasLtMatmul" if lt else "cublasGemmEx")
    if lt:
        assert f"cublasLtMatrixLayoutCreate(&lt_a, CUDA_R_8F_{PTX[b].upper()}, K, N, K)" in text


def test_matrix_benchmark_generates_fp8_programs():
    """benchmarks/h200/matrix.py: the FP8 labels' sources, the suite's shapes in the TN layout."""
    from benchmark_scripts import load

    matrix = load("h200/matrix")
    text = matrix.source("e4m3_e5m2", 4097, 4095, 1023, False, True, False)
    assert "A: f8e4m3fn[M, K]" in text and "B: f8e5m2[N, K]" in text and "C = A @ B.T" in text
    assert matrix.FP8_SHAPES["sq4096_tn"] == (4096, 4096, 4096, False, True, False)
    assert "a_transposed_tn" not in matrix.FP8_SHAPES and matrix.FP8_SHAPES["odd"] == matrix.SHAPES["odd"]


def test_fp8_bytes_convert_on_the_fma_route():
    """An FP8 program on sm_90's FMAs (step1) converts its OCP bytes by cvt.rn.f16x2 inline PTX; FNUZ
    bytes (IR lowered for gfx942, emitted for sm_90 without the CLI's dtype check) are refused at the op."""
    module = gemmc.lower(gemmc.parse(source(E4M3, E5M2, "M = 64, N = 64, K = 64")), "step1", SM90)
    assert gemmc.check(module, SM90, {}).passed
    text = gemmc.emit(module, SM90, "hip")
    assert "cvt.rn.f16x2.e4m3x2" in text and "cvt.rn.f16x2.e5m2x2" in text and "amdgcn" not in text
    fnuz = gemmc.lower(gemmc.parse(source("f8e4m3fnuz", "f8e4m3fnuz", "M = 64, N = 64, K = 64")), "step1", "gfx942")
    with pytest.raises(GemmcError, match="arith.extf on f8E4M3FNUZ is not emitted as HIP for sm_90: its FP8 "
                                         "conversions read f8e4m3fn, f8e5m2"):
        gemmc.emit(fnuz, SM90, "hip")


def test_matrix_benchmark_fp8_candidates_are_the_default_varied():
    from benchmark_scripts import load

    matrix = load("h200/matrix")
    assert matrix._FP8_DEFAULT.format(bk=128, peel="") == DEFAULT
    assert matrix.FP8_CANDIDATES["odd"]["unpeeled"] == DEFAULT.replace("vectorize{width=16}", "vectorize{width=16 peel=false}")
