"""Arch descriptions: every fact about a target that gemmc's code uses, in one place.

Passes, the interpreter, the emitters and the toolchain read targets from here and
nowhere else.  Figures are per device (per GCD for MI250X) and carry their public
source in the comment beside them; docs/arch.md explains them.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from gemmc.support.diagnostics import usage_error
from gemmc.target.latencies import measured
from gemmc.target.layouts import WMMA_GFX11, WMMA_GFX12, Layout, Term, mfma_layouts, wmma_gfx12_iu4


# Bits of an element type, by its .gemm name (FP8: AMD's FNUZ formats on gfx942, OCP's on
# gfx950 and gfx1201; gemmc.dialects.gemm.FP8_TYPES).
ELEMENT_BITS = {"f32": 32, "f16": 16, "bf16": 16,
                "f8e4m3fnuz": 8, "f8e5m2fnuz": 8, "f8e4m3fn": 8, "f8e5m2": 8,
                "f6e2m3fn": 6, "f6e3m2fn": 6, "f4e2m1fn": 4, "f8e8m0fnu": 8}
# Integer GEMM (i8 or u8 inputs, i32 accumulator and C): every target's VALU widens and
# multiply-adds them (v_mad_u32_u24 / v_mul_lo_u32 + v_add_u32), so they are not in Arch.dtypes,
# which lists the float formats a target has.
INTEGER_DTYPES = ("i8", "u8", "i4", "u4", "i32")
ELEMENT_BITS.update({"i8": 8, "u8": 8, "i4": 4, "u4": 4, "i32": 32})
FNUZ_FP8 = ("f8e4m3fnuz", "f8e5m2fnuz")
OCP_FP8 = ("f8e4m3fn", "f8e5m2")
FP8_FORMATS = FNUZ_FP8 + OCP_FP8
# gfx950's block-scaled (OCP MX) element formats, by the format code that selects each in the
# f8f6f4 MFMAs' cbsz (A) and blgp (B) fields (LLVM's AMDGPU::MFMAScaleFormats / the clang
# builtins' format table, /work/shared/seed-reference/mfma-ref/f32-16x16x128-f8f6f4-scale.rst):
# 0 FP8 E4M3, 1 BF8 E5M2, 2 FP6 E2M3, 3 FP6 E3M2, 4 FP4 E2M1; the E8M0 scale type.
F8F6F4_FORMATS = {"f8e4m3fn": 0, "f8e5m2": 1, "f6e2m3fn": 2, "f6e3m2fn": 3, "f4e2m1fn": 4}
MX_SCALE = "f8e8m0fnu"


@dataclass(frozen=True)
class MatrixInstr:
    """A matrix-core instruction: D[m x n] += A[m x k] * B[k x n] for one wave."""

    mnemonic: str  # the ISA spelling on this arch
    m: int
    n: int
    k: int
    in_type: str  # element type of A (and of B unless b_type says): f32, f16, bf16, an FP8 format
    out_type: str  # element type of C and D
    cycles: int  # issue cycles (passes x 4) from the ISA guide
    # -- the matrix-core lowerings, interpreter and HIP emitter read these --
    kind: str = "mfma"  # "mfma" (CDNA, amdgpu.mfma), "wmma" (RDNA, amdgpu.wmma) or "mma" (sm_90, nvgpu.mma_sync)
    builtin: str = ""  # the clang builtin that issues it from HIP (sm_90: gemmc's inline-PTX device function)
    a: Layout | None = None  # A[i][k]: row i, col k per (lane, item)
    b: Layout | None = None  # B[k][j]: row k, col j
    d: Layout | None = None  # C and D[i][j] per (lane, accumulator register)
    blocks: int = 1  # independent output blocks (every instruction gemmc lowers to has 1)
    # C/D item g is element g * d_stride of the per-lane accumulator vector: 2 for RDNA3's
    # 16-bit accumulators, whose results sit in the low halves (OPSEL 0) of 8 VGPRs
    d_stride: int = 1
    builtin_args: tuple[str, ...] = ()  # trailing builtin arguments (RDNA3's 16-bit OPSEL: "false")
    b_type: str = ""  # B's element type where it is not A's (fp8 x bf8: _fp8_bf8, _bf8_fp8)
    # FP8 inputs: the f32 -> FP8 conversion that makes its operands from f32 values
    # (v_cvt_pk_fp8_f32 / v_cvt_pk_bf8_f32, as their clang builtins issue them, without clamp):
    # rounds to nearest even; saturates=False: beyond the largest finite value it gives NaN
    # (e4m3, FNUZ e5m2) or Inf (OCP e5m2), as ml_dtypes' casts do; libraries that saturate
    # clamp with __builtin_amdgcn_fmed3f first (docs/arch.md)
    convert: str = ""
    convert_saturates: bool = False
    # gfx950's f8f6f4 MFMAs: the element formats cbsz (A) and blgp (B) may select (F8F6F4_FORMATS);
    # in_type / b_type are the ones chosen (`with_formats`), the table's entry is FP8 x FP8
    formats: tuple[str, ...] = ()
    # v_mfma_scale_*: elements along k that one E8M0 scale multiplies (32), and where the scales
    # live: lane `lane` passes one 32-bit VGPR per operand of which op_sel picks one byte, the
    # scale of A's (row, k-block) `sa.at(lane, 0)` and of B's (k-block, column) `sb.at(lane, 0)`
    scale_block: int = 0
    sa: Layout | None = None
    sb: Layout | None = None
    # integer inputs (i8, i32 accumulators): the builtin takes each operand's signedness (RDNA's iu8
    # WMMAs: bool a_signed, b_signed; CDNA's i8 MFMAs multiply signed bytes only, so a u8 operand is refused)
    signedness: bool = False
    # sm_90: the PTX instruction (its mnemonic above is gemmc's name for it, a token that pipeline
    # options can spell: instr=mma_m16n8k16_f32_f16)
    ptx: str = ""

    def with_formats(self, a: str, b: str) -> "MatrixInstr":
        """This f8f6f4 instruction with A of format `a` and B of `b` (cbsz, blgp).  Both FP6 or FP4:
        half the FP8 cycles (AMD Instinct MI355X data sheet: MXFP6 and MXFP4 10.1 PFLOP/s dense
        against MXFP8's 5.0; an FP8 operand keeps the FP8 rate, which is assumed)."""
        assert a in self.formats and b in self.formats, (a, b, self.formats)
        narrow = ELEMENT_BITS[a] < 8 and ELEMENT_BITS[b] < 8
        return replace(self, in_type=a, b_type=b if b != a else "", cycles=self.cycles // 2 if narrow else self.cycles)

    @property
    def cbsz(self) -> int:
        """The format code of A (the cbsz field of an f8f6f4 MFMA; 0 for every other MFMA)."""
        return F8F6F4_FORMATS[self.in_type] if self.formats else 0

    @property
    def blgp(self) -> int:
        return F8F6F4_FORMATS[self.b_in_type] if self.formats else 0

    @property
    def b_in_type(self) -> str:
        return self.b_type or self.in_type

    @property
    def in_bits(self) -> int:
        return ELEMENT_BITS[self.in_type]

    @property
    def a_regs(self) -> int:
        """32-bit VGPRs the A operand takes per lane (B's are the same)."""
        return -(-self.a.items * self.in_bits // 32)

    @property
    def b_regs(self) -> int:
        return -(-self.b.items * ELEMENT_BITS[self.b_in_type] // 32)

    @property
    def out_bits(self) -> int:
        return ELEMENT_BITS[self.out_type]

    @property
    def acc_len(self) -> int:
        """Elements of the per-lane accumulator vector (C and D operands of amdgpu.wmma)."""
        return self.d.items * self.d_stride

    @property
    def c_regs(self) -> int:
        """Accumulator registers (AGPRs or VGPRs) per lane, 32 bits each."""
        return -(-self.acc_len * self.out_bits // 32)

    @property
    def replicas(self) -> int:
        """How many lanes hold each element of A (and of B): 2 on RDNA3's WMMA, else 1."""
        return self.a.lanes * self.a.items // (self.blocks * self.m * self.k)

    @property
    def flops(self) -> int:
        return 2 * self.m * self.n * self.k * self.blocks


@dataclass(frozen=True)
class AchievablePeak:
    """The matrix throughput a chip sustains with `in_type` inputs under dense matrix load: a
    published measurement, its clock well below the data sheet's boost (power limits it)."""

    in_type: str
    tflops: float
    source: str


@dataclass(frozen=True)
class Arch:
    name: str
    family: str
    product: str
    wave_size: int
    cu_count: int
    simds_per_cu: int
    clock_mhz: int  # peak engine clock
    max_waves_per_simd: int
    vgprs_per_lane: int  # architected VGPRs a wave can address
    agprs_per_lane: int  # accumulation registers (0 where there are none)
    vgpr_granule: int  # allocation granule, in registers
    lds_bytes: int  # LDS a workgroup can allocate
    lds_banks: int
    lds_bank_bytes: int
    l2_bytes: int
    cache_line_bytes: int
    mem_bandwidth_gbs: float
    fp32_vector_tflops: float
    fp16_matrix_tflops: float
    max_threads_per_block: int = 1024
    dtypes: tuple[str, ...] = ("f32", "f16", "bf16")
    matrix_instrs: tuple[MatrixInstr, ...] = field(default=())
    vendor: str = "amd"  # "nvidia": CUDA-flavoured HIP, built with nvcc (the sm_90 target)
    # global_load_lds (global -> LDS without VGPRs): bytes per lane it can move; () if absent.
    # Lane k of a wave writes LDS base + 4k (sizes up to 4): direct-to-LDS builtins reference.
    global_load_lds_bytes: tuple[int, ...] = ()
    # -- what the cost model (gemmc/cost/) needs; docs/arch.md gives the source of each --
    simd_lanes: int = 16  # VALU lanes per SIMD: a wave instruction takes wave_size / simd_lanes cycles
    vgpr_file_per_lane: int = 512  # VGPRs (+AGPRs) a SIMD holds per lane, shared by its waves
    l1_bytes: int = 16 * 1024  # vector L1 (RDNA: L0) data cache per CU
    l1_bytes_per_clk: int = 64  # vector L1 bandwidth per CU
    l2_bytes_per_clk: int = 2048  # L2 bandwidth, all channels together
    llc_bytes: int = 0  # last-level (Infinity Cache / MALL) capacity behind the L2; 0 if none
    lds_latency_cycles: int = 64  # LDS load-to-use latency (model assumption, docs/cost-model.md)
    mem_latency_cycles: int = 500  # global load-to-use latency from L2/memory (model assumption)
    load_latency_ns: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)  # measured (latencies.py), 0: none
    lds_latency_measured: float = 0.0  # measured LDS load-to-use cycles (latencies.py), 0: none; ISA-level only
    cus_per_wgp: int = 1  # CUs a workgroup may span: 2 on RDNA in WGP mode (HIP's default), sharing LDS
    lds_per_cu: int = 0  # LDS (shared memory) per CU or WGP for occupancy; 0: lds_bytes x cus_per_wgp
    lds_optin_bytes: int = 0  # shared memory beyond lds_bytes by opting in (CUDA's dynamic shared memory); 0: none
    l2_sector_bytes: int = 0  # the L2's read granule where finer than a line (NVIDIA: 32-byte sectors); 0: a line
    max_workgroups_per_cu: int = 16  # per CU (WGP): LLVM's barrier limit 16 (32 in WGP mode); CUDA 32
    l1_reuse: bool = False  # the L1 keeps global lines for other waves and later iterations (NVIDIA's
    # L1 caches global loads); AMD's vector L1 is modelled as streaming (docs/cost-model.md)
    fp32_dual: int = 1  # FP32 FMAs per lane per VALU issue slot: 2 with packed FP32 (v_pk_fma_f32,
    # CDNA2+) or dual issue (v_dual_fmac_f32, RDNA3+), which clang emits for register-tiled code
    # the host side of a multi-kernel GEMM (split-k, stream-k), for the cost model: a kernel launched
    # after another on one stream starts this much later (assumption), and a workspace allocated and
    # freed in the launcher (hipMallocAsync / hipFreeAsync, the pool trimmed between calls) costs this
    # much (H200, measured 2026-12-02: 41-51 us, benchmarks/h200/shapes.md; AMD: assumed the same)
    launch_gap_us: float = 4.0
    workspace_alloc_us: float = 40.0
    launch_us: float = 0.0  # what gemmc bench's events time around a launch before its kernel runs (host work,
    # the launch); sm_90: fitted (docs/cost-model.md, "Every measured sm_90 row"); 0: not modelled (AMD)
    naive_k_unroll: int = 0  # gemm-to-kernel's default unroll count for the K loop; 0: the compiler's
    split_default_tile: bool = True  # gemmc.driver.selection also splits (split-k, stream-k) the default
    # pipeline's own workgroup tile, not only the smaller tiles it tries for an underfilled grid
    unpeeled_candidates: bool = True  # gemmc.driver.selection also weighs scalar copies (vectorize{peel=false})
    # against peeled ones where rows are misaligned
    # double-buffer's scalar copies into a transposed LDS tile: threads walk the tile's stored columns
    # (consecutive LDS words, conflict-free stores; each lane's load a global row apart) or its rows
    # (coalesced loads, stores e0 words apart, 16-way conflicted).  sm_90: columns, measured faster (its
    # L1 caches the strided lines; step 4 at 4096^3 6.28 -> 6.65 TFLOP/s, benchmarks/h200/results.md).
    # RDNA: rows.  Its L0 keeps no strided lines, each lane fetches its own from L2, and the L2 binds: seb-v's
    # kernels 4 and 5 on gfx1100 (4096^3) measured 5.38 and 4.10 ms, predicted 14.8 and 14.5 ms L2-bound
    # walking columns, 5.42 and 4.12 walking rows.  CDNA: columns, from the model (no measurement): its
    # kernels are LDS-bound with L2 to spare, so the conflict-free stores win (gfx942 sgemm step 6 5.31
    # ms against 6.04 walking rows, where clang-22 also spills 284 bytes a lane).
    transposed_copy_column_first: bool = False
    # the types a kernel may accumulate (`acc`) and compute in; () means every type of `dtypes`.  sm_90:
    # f32 only: its 16-bit values are loaded, stored, converted and fed to mma.sync, which accumulates
    # in f32 (nvcc takes no arithmetic of the __half that gemmc prints for _Float16)
    compute_dtypes: tuple[str, ...] = ()
    # what the chip sustains under dense matrix load (gemmc.cost.clock times matrix kernels by
    # it); () where nothing is published, and the model keeps the data sheet's clock
    achievable_matrix: tuple[AchievablePeak, ...] = ()
    # the lanes of a wave64 ds_read_b128 the LDS serves together, in groups of 8 (every group one
    # phase, conflict-free when no bank is asked for two words in it); () where none is published:
    # consecutive lanes, as for every other access.  32-bank CDNA: AMD's Composable Kernel docs,
    # "Understanding AMD GPU LDS and Bank Conflicts" (ROCm/composable_kernel, docs/conceptual/ck_tile/
    # hardware/lds_bank_conflicts.rst): 0:3+20:23, 4:7+16:19, 8:11+28:31, 12:15+24:27, the same 32 on
    lds_read_b128_lanes: tuple[int, ...] = ()
    lds_pair_port_bytes: int = 0  # B/clk each way of a SIMD pair's LDS port (CDNA; docs/arch.md); 0: banks alone
    # element bits ldmatrix .trans transposes (sm_90: .b16 alone; its .b8 forms are sm_100a / sm_120a's)
    ldmatrix_trans_bits: tuple[int, ...] = ()
    # i4 / u4 operands' fragment type on the matrix cores: "i4" RDNA's iu4 WMMAs (signedness flags);
    # "i8" CDNA, no int4 MFMA: unpacked to bytes (i4, u4 fit a signed byte) for its i8 MFMAs; "": no route
    int4_frags: str = ""
    # instructions a SIMD issues a cycle, all types together; 0: not modelled (gemmc.cost.issue; RDNA3 ISA guide, SISchedule.td's IssueWidth = 1)
    issue_per_clk: float = 0.0
    matrix_on_valu: bool = False  # the matrix instructions run on the SIMD's VALU (RDNA's WMMA: RDNA3 ISA guide)
    # An FP8 output is an f32 value rounded to a byte, which integer VALU ops do on any target
    # (gemmc/emit/fp8_soft.py, where `dtypes` lacks the format); FP8 operands need the matrix
    # unit's formats (`dtypes`).  sm_90: False (its FNUZ outputs are not built with nvcc here).
    software_fp8_outputs: bool = True

    @property
    def output_dtypes(self) -> tuple[str, ...]:
        """The formats an output may be stored in: `dtypes`, and the FP8 ones it converts to in software."""
        return self.dtypes + tuple(f for f in FP8_FORMATS if f not in self.dtypes and self.software_fp8_outputs)

    def converts_in_hardware(self, fmt: str) -> bool:
        """Whether f32 -> `fmt` is an instruction of the arch (else software, for an output)."""
        return fmt in self.dtypes

    @property
    def lds_limit(self) -> int:
        """Bytes of LDS (shared memory) a workgroup may allocate: the static limit, or the opt-in one."""
        return max(self.lds_bytes, self.lds_optin_bytes)

    @property
    def lds_kib(self) -> int:
        return self.lds_bytes // 1024

    @property
    def is_wave64(self) -> bool:
        return self.wave_size == 64

    @property
    def lds_bytes_per_clk(self) -> int:
        """LDS bandwidth per CU: every bank serves one word a clock."""
        return self.lds_banks * self.lds_bank_bytes

    @property
    def valu_lanes_per_clk(self) -> int:
        """FP32 FMA lanes per CU per clock for plain (not packed, not dual-issued) VALU code."""
        return self.simds_per_cu * self.simd_lanes

    @property
    def fp32_valu_peak_tflops(self) -> float:
        """FP32 FMA peak of the VALUs: every lane of every SIMD, packed / dual-issued."""
        return 2 * self.cu_count * self.valu_lanes_per_clk * self.fp32_dual * self.clock_mhz / 1e6


def _b128_read_lanes() -> tuple[int, ...]:
    """Arch.lds_read_b128_lanes on 32-bank CDNA: the 8 phases of ds_read_b128, in order."""
    half = [0, 1, 2, 3, 20, 21, 22, 23, 4, 5, 6, 7, 16, 17, 18, 19,
            8, 9, 10, 11, 28, 29, 30, 31, 12, 13, 14, 15, 24, 25, 26, 27]
    return tuple(half + [32 + i for i in half])


def _mfma(mn: str, m, n, k, t, cycles, builtin: str) -> MatrixInstr:
    return MatrixInstr(mn, m, n, k, t, "f32", cycles, kind="mfma",
                       builtin=f"__builtin_amdgcn_{builtin}", **mfma_layouts(m, n, k))


def _wmma(mn: str, t: str, cycles: int, builtin: str, layouts: dict, out: str = "f32", **extra) -> MatrixInstr:
    return MatrixInstr(mn, 16, 16, 16, t, out, cycles, kind="wmma",
                       builtin=f"__builtin_amdgcn_{builtin}", **layouts, **extra)


# 16-bit accumulators (v_wmma_f16_16x16x16_f16, v_wmma_bf16_16x16x16_bf16).  RDNA3: D in the
# f32 layout's rows, each result in the low half (OPSEL 0) of its VGPR: a v16half of which
# elements 0, 2, .. 14 count (RDNA3 WMMA builtins reference, `opsel`).  RDNA4: the same rows,
# 8 results packed in 4 VGPRs (v8half; RDNA4 WMMA builtins reference, which gives the type but
# no table: element g holds row 8 * (L // 16) + g, the f32 form's rows in order).
_WMMA_GFX11_16 = dict(WMMA_GFX11, d=Layout(32, 8, row=WMMA_GFX11["d"].row, col=WMMA_GFX11["d"].col),
                      d_stride=2, builtin_args=("false",))


# CDNA3 ISA guide, section 7 (MFMA): shapes and pass counts; gfx90a spells the
# 16-bit-input variants without the underscore and bf16 with the _1k suffix.
# The builtins keep gfx90a's spelling on gfx942 (clang's BuiltinsAMDGPU.def).
_GFX90A_MFMA = (
    _mfma("v_mfma_f32_32x32x2f32", 32, 32, 2, "f32", 64, "mfma_f32_32x32x2f32"),
    _mfma("v_mfma_f32_16x16x4f32", 16, 16, 4, "f32", 32, "mfma_f32_16x16x4f32"),
    _mfma("v_mfma_f32_32x32x8f16", 32, 32, 8, "f16", 64, "mfma_f32_32x32x8f16"),
    _mfma("v_mfma_f32_16x16x16f16", 16, 16, 16, "f16", 32, "mfma_f32_16x16x16f16"),
    _mfma("v_mfma_f32_32x32x8bf16_1k", 32, 32, 8, "bf16", 64, "mfma_f32_32x32x8bf16_1k"),
    _mfma("v_mfma_f32_16x16x16bf16_1k", 16, 16, 16, "bf16", 32, "mfma_f32_16x16x16bf16_1k"),
)
_GFX942_MFMA_16 = (
    _mfma("v_mfma_f32_32x32x2_f32", 32, 32, 2, "f32", 64, "mfma_f32_32x32x2f32"),
    _mfma("v_mfma_f32_16x16x4_f32", 16, 16, 4, "f32", 32, "mfma_f32_16x16x4f32"),
    _mfma("v_mfma_f32_32x32x8_f16", 32, 32, 8, "f16", 32, "mfma_f32_32x32x8f16"),
    _mfma("v_mfma_f32_16x16x16_f16", 16, 16, 16, "f16", 16, "mfma_f32_16x16x16f16"),
    _mfma("v_mfma_f32_32x32x8_bf16", 32, 32, 8, "bf16", 32, "mfma_f32_32x32x8bf16_1k"),
    _mfma("v_mfma_f32_16x16x16_bf16", 16, 16, 16, "bf16", 16, "mfma_f32_16x16x16bf16_1k"),
)


def _fp8_mfmas(a_fmt: str, b_fmt: str) -> tuple[MatrixInstr, ...]:
    """The four FP8 MFMAs of each shape (_fp8_fp8, _fp8_bf8, _bf8_fp8, _bf8_bf8): "fp8" is the
    e4m3 format, "bf8" e5m2, FNUZ on gfx942 and OCP on gfx950 under the same mnemonics.  A and
    B are 8 FP8 values per lane (a long in the builtin: 2 VGPRs), in the layout of every
    single-block MFMA: lane i + m * (k // 8) holds k % 8 (AMD Matrix Instruction Calculator,
    `-a cdna3 -i v_mfma_f32_16x16x32_fp8_fp8`: A k = 8 (lane / 16) + 4 GPR + byte).  Cycles:
    the calculator's 16 for 16x16x32 (CDNA3 ISA guide: 4 passes), 32 for 32x32x16 (8 passes)."""
    fmts = {"fp8": a_fmt, "bf8": b_fmt}
    out = []
    for (m, n, k, cycles) in ((16, 16, 32, 16), (32, 32, 16, 32)):
        for a, b in (("fp8", "fp8"), ("fp8", "bf8"), ("bf8", "fp8"), ("bf8", "bf8")):
            name = f"mfma_f32_{m}x{n}x{k}_{a}_{b}"
            instr = _mfma(f"v_{name}", m, n, k, fmts[a], cycles, name)
            out.append(replace(instr, b_type=fmts[b] if fmts[b] != fmts[a] else "",
                               convert=f"v_cvt_pk_{a}_f32", convert_saturates=False))
    return tuple(out)


def _f8f6f4_mfmas() -> tuple[MatrixInstr, ...]:
    """gfx950's f8f6f4 MFMAs, unscaled and scaled (v_mfma_scale_*): A and B of any two of the
    five formats (cbsz / blgp), 32 elements per lane in 8 (FP8), 6 (FP6) or 4 (FP4) VGPRs.
    Lanes: the layout of every single-block MFMA with 32 consecutive k's per lane (lane
    i + m * g holds row i, k 32g .. 32g + 31), which is one MX block: IREE's
    getSingleSubgroupLayout for MFMA_SCALE_F32_{16x16x128,32x32x64}_B32 (LHS thread {16, 4} /
    {32, 2}, element {1, 32}), the same as the formula of CDNA3's MFMAs at k = 128 / 64.
    Scales (v_mfma_scale_*): lane i + m * g passes the E8M0 scale of A's row i, block g (and of
    B's column j, block g) in the byte of its 32-bit scale VGPR that op_sel selects (IREE's
    LHS/RHS scale layouts: thread {16, 4} / {4, 16}, one element per lane; the clang builtins'
    op_sel_a / op_sel_b).  Cycles: 8 passes for 16x16x128 and 16 for 32x32x64 (LLVM's gfx950
    scheduling model for FP8 operands; FP4 operands take half, which the cost model does not
    use yet: gemmc lowers these instructions for the interpreter and HIP only)."""
    out = []
    for m, k, cycles in ((16, 128, 32), (32, 64, 64)):
        lay = mfma_layouts(m, m, k)
        for scaled in (False, True):
            name = f"mfma_{'scale_' if scaled else ''}f32_{m}x{m}x{k}_f8f6f4"
            extra = {}
            if scaled:
                groups = 64 // m
                extra = dict(scale_block=32,
                             sa=Layout(64, 1, row=(Term("lane", mod=m),), col=(Term("lane", div=m, mod=groups),)),
                             sb=Layout(64, 1, row=(Term("lane", div=m, mod=groups),), col=(Term("lane", mod=m),)))
            out.append(MatrixInstr(f"v_{name}", m, m, k, OCP_FP8[0], "f32", cycles, kind="mfma",
                                   builtin=f"__builtin_amdgcn_{name}", formats=tuple(F8F6F4_FORMATS), **lay, **extra))
    return tuple(out)


def _int(mn: str, m: int, k: int, cycles: int, builtin: str = "", kind: str = "mfma", lay: dict | None = None,
         in_type: str = "i8", **extra) -> MatrixInstr:
    """An integer matrix instruction: i8 (or i4) A and B, i32 C/D (wrapping, as the builtins' i32 adds)."""
    return MatrixInstr(mn, m, m, k, in_type, "i32", cycles, kind=kind, builtin=f"__builtin_amdgcn_{builtin or mn[2:]}",
                       **(lay or mfma_layouts(m, m, k)), **extra)


# CDNA's i8 MFMAs multiply signed bytes (no signedness operand; a u8 operand is refused, matrix_lowering).
# Builtins (clang-22, checked by compiling each): gfx90a's take 4 bytes as an int, gfx942's
# 16x16x32 / 32x32x16 8 bytes as a long, gfx950's 16x16x64 / 32x32x32 16 bytes as a v4i32; the
# layouts are every single-block MFMA's (_mfma_layouts: lane i + m * (k // kp) holds k % kp, the
# FP8 MFMAs' at 16x16x32 and 32x32x16; IREE's getSingleSubgroupLayout gives all six mfmaLhs{16,32}xK).  Cycles: CDNA2 ISA guide (8 and 16 passes), CDNA3 (4 and
# 8: the FP8 MFMAs' of those shapes), gfx950's double-k forms as its f8f6f4 FP8 rate (assumed).
_GFX90A_IMFMA = (_int("v_mfma_i32_16x16x16i8", 16, 16, 32), _int("v_mfma_i32_32x32x8i8", 32, 8, 64))
_GFX942_IMFMA = (_int("v_mfma_i32_16x16x32_i8", 16, 32, 16), _int("v_mfma_i32_32x32x16_i8", 32, 16, 32))
_GFX950_IMFMA = _GFX942_IMFMA + (_int("v_mfma_i32_16x16x64_i8", 16, 64, 16), _int("v_mfma_i32_32x32x32_i8", 32, 32, 32))
_GFX90A_MFMA = _GFX90A_MFMA + _GFX90A_IMFMA
_GFX942_MFMA = _GFX942_MFMA_16 + _fp8_mfmas(*FNUZ_FP8) + _GFX942_IMFMA
_GFX950_MFMA = _GFX942_MFMA_16 + _fp8_mfmas(*OCP_FP8) + _f8f6f4_mfmas() + _GFX950_IMFMA + (
    _mfma("v_mfma_f32_16x16x32_f16", 16, 16, 32, "f16", 16, "mfma_f32_16x16x32_f16"),
    _mfma("v_mfma_f32_32x32x16_f16", 32, 32, 16, "f16", 32, "mfma_f32_32x32x16_f16"),
    _mfma("v_mfma_f32_16x16x32_bf16", 16, 16, 32, "bf16", 16, "mfma_f32_16x16x32_bf16"),
    _mfma("v_mfma_f32_32x32x16_bf16", 32, 32, 16, "bf16", 32, "mfma_f32_32x32x16_bf16"),
)
# RDNA3 ISA guide 7.9 / RDNA4 ISA guide: one 16x16x16 shape per input type, wave32.
# The 16-bit-accumulator forms' cycles are assumed equal to the f32 forms' (same shape; no
# separate figure is used here).
_GFX11_WMMA = (
    _wmma("v_wmma_f32_16x16x16_f16", "f16", 32, "wmma_f32_16x16x16_f16_w32", WMMA_GFX11),
    _wmma("v_wmma_f32_16x16x16_bf16", "bf16", 32, "wmma_f32_16x16x16_bf16_w32", WMMA_GFX11),
    _wmma("v_wmma_f16_16x16x16_f16", "f16", 32, "wmma_f16_16x16x16_f16_w32", _WMMA_GFX11_16, out="f16"),
    _wmma("v_wmma_bf16_16x16x16_bf16", "bf16", 32, "wmma_bf16_16x16x16_bf16_w32", _WMMA_GFX11_16, out="bf16"),
    # __builtin_amdgcn_wmma_i32_16x16x16_iu8_w32(bool a_signed, v4i32 a, bool b_signed, v4i32 b, v8i32 c,
    # bool clamp): 16 bytes a lane in the f16 form's layout (lanes 16-31 replicate), D as the f32 form's
    _int("v_wmma_i32_16x16x16_iu8", 16, 16, 32, "wmma_i32_16x16x16_iu8_w32", "wmma", WMMA_GFX11,
         builtin_args=("false",), signedness=True),
    # __builtin_amdgcn_wmma_i32_16x16x16_iu4_w32(bool a_signed, v2i32 a, bool b_signed, v2i32 b, v8i32 c,
    # bool clamp): 16 nibbles a lane (v2i32, element e at bits 4e: the low nibble first, 8 a dword) in
    # the f16 form's layout (lanes 16-31 replicate).  16 cycles: half the iu8 form's (AMD Matrix
    # Instruction Calculator, gfx1100)
    _int("v_wmma_i32_16x16x16_iu4", 16, 16, 16, "wmma_i32_16x16x16_iu4_w32", "wmma", WMMA_GFX11,
         builtin_args=("false",), signedness=True, in_type="i4"),
)


def _fp8_wmmas() -> tuple[MatrixInstr, ...]:
    """RDNA4's FP8 WMMAs (OCP formats; fp8 = e4m3, bf8 = e5m2), 16x16x16 with f32 accumulators.
    A and B are 8 FP8 values per lane (an int2 in the builtin: 2 VGPRs) in the element layout
    of the 16-bit forms (layouts.WMMA_GFX12: lanes 0-15 hold k 0-3 and 8-11, lanes 16-31 k 4-7 and
    12-15), four to a VGPR; docs/arch.md weighs the sources.  Cycles: the 16-bit forms'."""
    out = []
    for a, b in (("fp8", "fp8"), ("fp8", "bf8"), ("bf8", "fp8"), ("bf8", "bf8")):
        fa, fb = (OCP_FP8[0] if x == "fp8" else OCP_FP8[1] for x in (a, b))
        instr = _wmma(f"v_wmma_f32_16x16x16_{a}_{b}", fa, 16, f"wmma_f32_16x16x16_{a}_{b}_w32_gfx12", WMMA_GFX12)
        out.append(replace(instr, b_type=fb if fb != fa else "", convert=f"v_cvt_pk_{a}_f32",
                           convert_saturates=False))
    return tuple(out)


_GFX12_WMMA = (
    _wmma("v_wmma_f32_16x16x16_f16", "f16", 16, "wmma_f32_16x16x16_f16_w32_gfx12", WMMA_GFX12),
    _wmma("v_wmma_f32_16x16x16_bf16", "bf16", 16, "wmma_f32_16x16x16_bf16_w32_gfx12", WMMA_GFX12),
    _wmma("v_wmma_f16_16x16x16_f16", "f16", 16, "wmma_f16_16x16x16_f16_w32_gfx12", WMMA_GFX12, out="f16"),
    _wmma("v_wmma_bf16_16x16x16_bf16", "bf16", 16, "wmma_bf16_16x16x16_bf16_w32_gfx12", WMMA_GFX12, out="bf16"),
) + _fp8_wmmas() + (
    # ..._iu8_w32_gfx12: 8 bytes a lane (v2i32) in the FP8 forms' layout; cycles as theirs
    _int("v_wmma_i32_16x16x16_iu8", 16, 16, 16, "wmma_i32_16x16x16_iu8_w32_gfx12", "wmma", WMMA_GFX12,
         builtin_args=("false",), signedness=True),
    # ..._iu4_w32_gfx12 (bool a_signed, int a, ...): 8 nibbles a lane in one VGPR; _iu4 16x16x32 (v2i32 a):
    # 16 nibbles in two.  Element e at bits 4e of the lane's VGPRs read as one integer (the low nibble
    # first).  Layouts: layouts.wmma_gfx12_iu4.  Cycles: the iu8 form's for both (the Matrix Instruction
    # Calculator gives the two iu4 forms one figure; the cost model's assumption)
    _int("v_wmma_i32_16x16x16_iu4", 16, 16, 16, "wmma_i32_16x16x16_iu4_w32_gfx12", "wmma",
         wmma_gfx12_iu4(16), builtin_args=("false",), signedness=True, in_type="i4"),
    _int("v_wmma_i32_16x16x32_iu4", 16, 32, 16, "wmma_i32_16x16x32_iu4_w32_gfx12", "wmma",
         wmma_gfx12_iu4(32), builtin_args=("false",), signedness=True, in_type="i4"),
)

def _mma_layouts(p: int) -> dict:
    """sm_90's mma.sync m16n8k(8p), p elements a register (PTX ISA, "Matrix Fragments for mma.m16n8k16 with floating
    point type": p = 2; "for mma.m16n8k32", 8-bit: p = 4); groupID = lane / 4, t = lane % 4.  A: item i at row groupID
    (+8 in odd registers), k p t + i % p (+4p from register 2 on); B: k as A's (+4p from register 1), column groupID;
    C/D (f32): c_i at row groupID (+8 for c2, c3), column 2 t + i % 2."""
    return dict(
        a=Layout(32, 4 * p, row=(Term("lane", div=4), Term("item", div=p, mod=2, scale=8)),
                 col=(Term("lane", mod=4, scale=p), Term("item", mod=p), Term("item", div=2 * p, scale=4 * p))),
        b=Layout(32, 2 * p, row=(Term("lane", mod=4, scale=p), Term("item", mod=p), Term("item", div=p, scale=4 * p)),
                 col=(Term("lane", div=4),)),
        d=Layout(32, 4, row=(Term("lane", div=4), Term("item", div=2, scale=8)),
                 col=(Term("lane", mod=4, scale=2), Term("item", mod=2))))


def _mma_sync(a: str, b: str = "") -> MatrixInstr:
    """mma.sync.aligned.m16n8k<k>.row.col.f32.<a>.<b>.f32 as inline PTX (gemmc.emit.nvgpu); cycles (docs/arch.md), to
    check on the H200: m16n8k16 (f16, bf16) 8, half the datasheet's rate (wgmma's); m16n8k32 (OCP FP8) 16, f16 in ptxas."""
    pa, pb = (_PTX_TYPE.get(t, t) for t in (a, b or a))
    k, name = (32, f"mma_m16n8k32_f32_{pa}_{pb}") if b else (16, f"mma_m16n8k16_f32_{pa}")
    return MatrixInstr(name, 16, 8, k, a, "f32", k // 2, kind="mma", builtin=f"gemmc_{name}",
                       ptx=f"mma.sync.aligned.m16n8k{k}.row.col.f32.{pa}.{pb}.f32", b_type=b if b != a else "",
                       **_mma_layouts(k // 8))


_PTX_TYPE = {"f8e4m3fn": "e4m3", "f8e5m2": "e5m2"}
_SM90_MMA = (_mma_sync("f16"), _mma_sync("bf16")) + tuple(_mma_sync(a, b) for a in OCP_FP8 for b in OCP_FP8)

# Max-achievable matrix throughput (docs/arch.md, "Sustained clocks").  MI300X: hipBLASLt's
# FP16 and BF16 figures, AMD's max-achievable FLOPs measurement (ROCm blogs, "Measuring
# Max-Achievable FLOPs", part 2, 2025), as issue #35 quotes them; the chip's median clock under
# that load is about 1.1-1.2 GHz, not the 2.1 GHz boost.  MI355X: hipBLASLt's FP8 e4m3 GEMM at
# 4096^3 (Cao, Salykov, Luo, "FP8 GEMM Optimization on AMD CDNA4 Architecture", ROCm blogs, 2026),
# a measured lower bound of its max-achievable FP8.  No published figure: gfx90a, RDNA, sm_90.
_MAF_BLOG = "AMD max-achievable FLOPs (hipBLASLt), ROCm blogs 2025"
_MI300X_ACHIEVABLE = (AchievablePeak("f16", 654.0, _MAF_BLOG), AchievablePeak("bf16", 708.0, _MAF_BLOG))
_MI355X_ACHIEVABLE = (AchievablePeak("f8e4m3fn", 2750.42, "hipBLASLt FP8 4096^3, ROCm blogs 2026 (lower bound)"),)

ARCHS: dict[str, Arch] = {
    a.name: a
    for a in (
        # AMD Instinct MI250X data sheet (per GCD: half of 220 CUs, 3.2 TB/s, 47.9 TF
        # FP32 vector, 383 TF FP16 matrix); CDNA2 ISA guide for LDS and registers.
        Arch(
            name="gfx90a", family="CDNA2", product="AMD Instinct MI250X (one GCD)",
            wave_size=64, cu_count=110, simds_per_cu=4, clock_mhz=1700,
            max_waves_per_simd=8, vgprs_per_lane=256, agprs_per_lane=256,
            vgpr_granule=8, lds_bytes=64 * 1024, lds_banks=32, lds_bank_bytes=4,
            l2_bytes=8 * 2**20, cache_line_bytes=128, mem_bandwidth_gbs=1638.4,
            fp32_vector_tflops=23.95, fp16_matrix_tflops=191.5,
            matrix_instrs=_GFX90A_MFMA, int4_frags="i8",
            # cost model (docs/arch.md): 16 KiB vL1D at 64 B/clk; 8 MiB L2, 32 channels x 128 B/clk; no MALL
            simd_lanes=16, vgpr_file_per_lane=512, l1_bytes=16 * 1024, l1_bytes_per_clk=64,
            l2_bytes_per_clk=32 * 128, llc_bytes=0, fp32_dual=2, **measured("gfx90a"),
            transposed_copy_column_first=True,  # LDS-bound: conflict-free stores (see the field)
            lds_read_b128_lanes=_b128_read_lanes(), lds_pair_port_bytes=64,
        ),
        # AMD Instinct MI300X data sheet (304 CUs, 2100 MHz, 5.3 TB/s, 81.7 TF FP32
        # vector, 1307.4 TF FP16 dense); CDNA3 ISA guide (unified 512-entry VGPR/AGPR file).
        Arch(
            name="gfx942", family="CDNA3", product="AMD Instinct MI300X",
            wave_size=64, cu_count=304, simds_per_cu=4, clock_mhz=2100,
            max_waves_per_simd=8, vgprs_per_lane=256, agprs_per_lane=256,
            vgpr_granule=8, lds_bytes=64 * 1024, lds_banks=32, lds_bank_bytes=4,
            l2_bytes=4 * 2**20, cache_line_bytes=128, mem_bandwidth_gbs=5300.0,
            fp32_vector_tflops=81.7, fp16_matrix_tflops=1307.4,
            matrix_instrs=_GFX942_MFMA, int4_frags="i8", global_load_lds_bytes=(1, 2, 4),
            dtypes=("f32", "f16", "bf16") + FNUZ_FP8,  # CDNA3 ISA guide: FP8/BF8 are AMD's FNUZ formats
            # cost model (docs/arch.md): 32 KiB vL1D, 64 B/clk; 8 XCDs x 16 L2 channels x 128 B/clk; 256 MiB MALL (rocminfo)
            simd_lanes=16, vgpr_file_per_lane=512, l1_bytes=32 * 1024, l1_bytes_per_clk=64,
            l2_bytes_per_clk=8 * 16 * 128, llc_bytes=256 * 2**20, fp32_dual=2, **measured("gfx942"),
            transposed_copy_column_first=True,  # LDS-bound: conflict-free stores (see the field)
            achievable_matrix=_MI300X_ACHIEVABLE, lds_read_b128_lanes=_b128_read_lanes(), lds_pair_port_bytes=64,
        ),
        # AMD Instinct MI355X data sheet (256 CUs, 2400 MHz, 8 TB/s, 157.3 TF FP32
        # vector, 2516 TF FP16 dense); CDNA4 ISA guide (160 KiB LDS, 64 banks).
        Arch(
            name="gfx950", family="CDNA4", product="AMD Instinct MI355X",
            wave_size=64, cu_count=256, simds_per_cu=4, clock_mhz=2400,
            max_waves_per_simd=8, vgprs_per_lane=256, agprs_per_lane=256,
            vgpr_granule=8, lds_bytes=160 * 1024, lds_banks=64, lds_bank_bytes=4,
            l2_bytes=4 * 2**20, cache_line_bytes=128, mem_bandwidth_gbs=8000.0,
            fp32_vector_tflops=157.3, fp16_matrix_tflops=2516.0,
            matrix_instrs=_GFX950_MFMA, int4_frags="i8", global_load_lds_bytes=(1, 2, 4, 12, 16),
            # CDNA4 ISA guide: OCP FP8/BF8 (no FNUZ); the MX formats (FP6, FP4 and E8M0 scales) of
            # the f8f6f4 MFMAs, in block-scaled products only
            dtypes=("f32", "f16", "bf16") + OCP_FP8 + ("f6e2m3fn", "f6e3m2fn", "f4e2m1fn", MX_SCALE),
            # cost model (docs/arch.md): as CDNA3 (32 KiB vL1D, 8 XCDs x 16 L2 channels), 256 MiB MALL
            simd_lanes=16, vgpr_file_per_lane=512, l1_bytes=32 * 1024, l1_bytes_per_clk=64,
            l2_bytes_per_clk=8 * 16 * 128, llc_bytes=256 * 2**20, fp32_dual=2,
            transposed_copy_column_first=True,  # LDS-bound: conflict-free stores (see the field)
            achievable_matrix=_MI355X_ACHIEVABLE,
        ),
        # AMD Radeon RX 7900 XTX specifications (96 CUs, 2500 MHz boost, 960 GB/s,
        # 61.4 TF FP32, 122.8 TF FP16 WMMA); RDNA3 ISA guide (1536 VGPRs/SIMD in wave32).
        Arch(
            name="gfx1100", family="RDNA3", product="AMD Radeon RX 7900 XTX",
            wave_size=32, cu_count=96, simds_per_cu=2, clock_mhz=2500,
            max_waves_per_simd=16, vgprs_per_lane=256, agprs_per_lane=0,
            vgpr_granule=24, lds_bytes=64 * 1024, lds_banks=32, lds_bank_bytes=4,
            l2_bytes=6 * 2**20, cache_line_bytes=128, mem_bandwidth_gbs=960.0,
            fp32_vector_tflops=61.4, fp16_matrix_tflops=122.8,
            matrix_instrs=_GFX11_WMMA, int4_frags="i4",
            # cost model (docs/arch.md): SIMD32, 1536 VGPRs/lane in wave32 (LLVM AMDGPUBaseInfo),
            # 32 KiB L0 per CU, 96 MiB Infinity Cache; L0/L2 bandwidths are estimates
            simd_lanes=32, vgpr_file_per_lane=1536, l1_bytes=32 * 1024, l1_bytes_per_clk=128,
            l2_bytes_per_clk=16 * 128, llc_bytes=96 * 2**20, cus_per_wgp=2, fp32_dual=2,
            max_workgroups_per_cu=32, issue_per_clk=1.0, matrix_on_valu=True, **measured("gfx1100"),
        ),
        # AMD Radeon RX 9070 XT specifications (64 CUs, 2970 MHz boost, 644.6 GB/s,
        # 48.7 TF FP32, 194.7 TF FP16 dense WMMA); RDNA4 ISA guide.
        Arch(
            name="gfx1201", family="RDNA4", product="AMD Radeon RX 9070 XT",
            wave_size=32, cu_count=64, simds_per_cu=2, clock_mhz=2970,
            max_waves_per_simd=16, vgprs_per_lane=256, agprs_per_lane=0,
            vgpr_granule=24, lds_bytes=64 * 1024, lds_banks=32, lds_bank_bytes=4,
            l2_bytes=8 * 2**20, cache_line_bytes=128, mem_bandwidth_gbs=644.6,
            fp32_vector_tflops=48.7, fp16_matrix_tflops=194.7,
            matrix_instrs=_GFX12_WMMA, int4_frags="i4", dtypes=("f32", "f16", "bf16") + OCP_FP8,  # RDNA4 ISA guide: OCP FP8/BF8
            # cost model (docs/arch.md): SIMD32, 1536 VGPRs/lane in wave32 (LLVM AMDGPUBaseInfo),
            # 32 KiB L0 per CU, 64 MiB Infinity Cache; L0/L2 bandwidths are estimates
            simd_lanes=32, vgpr_file_per_lane=1536, l1_bytes=32 * 1024, l1_bytes_per_clk=128,
            l2_bytes_per_clk=16 * 128, llc_bytes=64 * 2**20, cus_per_wgp=2, fp32_dual=2,
            max_workgroups_per_cu=32, issue_per_clk=1.0, matrix_on_valu=True,
        ),
        # NVIDIA H200 SXM (Hopper, sm_90): 132 SMs, 1980 MHz boost, 4.8 TB/s HBM3e, 67 TF FP32,
        # 989 TF dense FP16/BF16 tensor (NVIDIA H200 datasheet); 4 SM sub-partitions ("SIMDs") of
        # 32 FP32 lanes, 64 warps and 65536 registers per SM, 255 registers per thread, 50 MiB L2,
        # 228 KiB shared memory per SM of which a block gets 48 KiB statically (CUDA C++
        # Programming Guide, compute capability 9.0; Hopper tuning guide).  lds_bytes is the 48 KiB
        # static limit, to which gemmc prints static __shared__ arrays; past it (lds_optin_bytes) views of
        # dynamic shared memory that the launcher opts in to.  "wave" = warp.
        # f16 and bf16 through the tensor cores' warp-level mma.sync (printed as __half and __nv_bfloat16 for
        # nvcc, which cannot compile _Float16 / __bf16 device code); OCP FP8 (not FNUZ) by m16n8k32, as bytes.
        Arch(
            name="sm_90", family="Hopper", product="NVIDIA H200 SXM",
            wave_size=32, cu_count=132, simds_per_cu=4, clock_mhz=1980,
            max_waves_per_simd=16, vgprs_per_lane=255, agprs_per_lane=0,
            vgpr_granule=8, lds_bytes=48 * 1024, lds_banks=32, lds_bank_bytes=4,
            l2_bytes=50 * 2**20, cache_line_bytes=128, mem_bandwidth_gbs=4800.0,
            fp32_vector_tflops=66.9, fp16_matrix_tflops=989.4, dtypes=("f32", "f16", "bf16") + OCP_FP8, vendor="nvidia",
            matrix_instrs=_SM90_MMA,
            simd_lanes=32, vgpr_file_per_lane=512, l1_bytes=256 * 1024, l1_bytes_per_clk=128,
            # L2 9.8 TB/s: te42kyfo/gpu-benches gpu-l2-cache/h200.txt (the H100 SXM's GH100), 9.7-9.9 over 10-40 MB
            l2_bytes_per_clk=9800 * 1000 // 1980, lds_latency_cycles=30, mem_latency_cycles=600,
            lds_per_cu=228 * 1024, max_workgroups_per_cu=32, l1_reuse=True,  # cost model: SM shared
            # memory, blocks per SM; global loads are cached in L1 (CUDA guide, compute capability 9.0)
            lds_optin_bytes=227 * 1024, l2_sector_bytes=32,  # a block's dynamic shared memory, opted in; L2 sectors
            transposed_copy_column_first=True, compute_dtypes=("f32",), ldmatrix_trans_bits=(16,),
            software_fp8_outputs=False,
            launch_us=7.7,  # fitted: median of measured - predicted, raw/batched_ldmatrix.jsonl's chk_* (model_rows.py)
            naive_k_unroll=64,  # nvcc 13 unrolls a K loop of static trip count 16 times and issues
            # all 32 loads first: 3% slower than with the count known at run time; 64 is 5% faster
            # (H200, 4096^3; benchmarks/h200/results.md, "step1_unroll*")
            split_default_tile=False,  # split 128x128 tiles measured 1.2-1.8x slower than the model
            # predicts at 512^3-1024x1024x65536, the 64x128 and 128x64 ones within 1.1x and faster
            # (H200, 2026-12-02; benchmarks/h200/candidates.md)
            unpeeled_candidates=False,  # the model predicts scalar copies of misaligned rows as fast as
            # peeled ones or faster; measured 1.05-1.7x slower (4097x4095x1023 with 8-deep K tiles:
            # 1.75 against 1.02 ms; H200, 2026-12-02, benchmarks/h200/raw/block_k.jsonl)
        ),
    )
}

AMD_ARCHS = tuple(name for name, a in ARCHS.items() if a.vendor == "amd")

DEFAULT_ARCH = "gfx942"


def get_arch(name: str) -> Arch:
    """The description of `name`, or a usage error that lists the known archs."""
    try:
        return ARCHS[name]
    except KeyError:
        known = ", ".join(ARCHS)
        raise usage_error(f"unknown arch '{name}'; known archs: {known}") from None


def as_arch(arch: Arch | str) -> Arch:
    """An Arch, or the arch of that name (get_arch's errors)."""
    return arch if isinstance(arch, Arch) else get_arch(arch)


def instrs_taking(arch: Arch, a: str, b: str) -> list[MatrixInstr]:
    """The arch's unscaled matrix instructions with A of type `a` and B of `b`: those of these
    types, and gfx950's f8f6f4 MFMAs with these formats (cbsz, blgp)."""
    return ([i for i in arch.matrix_instrs if (i.in_type, i.b_in_type) == (a, b) and not i.formats]
            + [i.with_formats(a, b) for i in arch.matrix_instrs
               if i.formats and not i.scale_block and {a, b} <= set(i.formats)])


def flops_per_cycle(instr: MatrixInstr) -> float:
    """Floating-point operations one SIMD does a cycle with `instr` (2mnk / cycles)."""
    return 2 * instr.m * instr.n * instr.k / instr.cycles


def get_matrix_instr(arch: Arch, mnemonic: str) -> MatrixInstr:
    """The matrix instruction `mnemonic` of `arch`, or a usage error listing the arch's."""
    for instr in arch.matrix_instrs:
        if instr.mnemonic == mnemonic:
            return instr
    known = ", ".join(i.mnemonic for i in arch.matrix_instrs) or "none"
    raise usage_error(f"{arch.name} has no matrix instruction '{mnemonic}'; its instructions: {known}")


# -- the instruction set, for gemmc's own AMDGCN backend (dialects/amdgcn/, gemmc/target/amdgcn_isa.py, gemmc/amdgcn/) --


@dataclass(frozen=True)
class GcnIsa:
    """What gemmc's AMDGCN backend needs of an arch's instruction set (docs/amdgcn.md).

    Sources: the CDNA2/CDNA3 and RDNA3 ISA reference guides (register files, s_waitcnt
    fields, instruction offsets, operand rules), LLVM's AMDGPUUsage (kernel descriptor,
    packed work-item ids), checked against llvm-mc-22.
    """

    generation: str  # "gfx9" (GCN/CDNA spellings: global_load_dword), "gfx11" (RDNA3: global_load_b32), "gfx12"
    sgprs: int  # SGPRs a kernel may allocate, s0..s{sgprs-1} (VCC, XNACK mask, flat scratch excluded)
    aligned_vgpr_tuples: bool  # 64-bit and wider VGPR operands start at an even register
    constant_bus_limit: int  # SGPRs and literals one VALU instruction may read
    vop3_literal: bool  # VOP3 encodings take a 32-bit literal operand
    vmcnt_max: int  # s_waitcnt field maxima
    lgkmcnt_max: int
    expcnt_max: int
    stores_in_vscnt: bool  # vector stores count in vscnt (s_waitcnt_vscnt), not in vmcnt
    global_offset_min: int  # global_* immediate offset range, bytes (13-bit signed)
    global_offset_max: int
    ds_offset_max: int  # ds_* immediate offset, bytes (16-bit unsigned)
    packed_workitem_ids: bool  # v0 holds x in bits 0-9, y in 10-19, z in 20-29
    has_accum_offset: bool  # unified VGPR/AGPR file: descriptor needs .amdhsa_accum_offset
    barrier_waits_memory: bool  # s_barrier itself waits for outstanding memory (no BackOffBarrier)
    # wait states software must insert (s_nop) after a VALU writes an SGPR or VCC (v_cmp_*_e64,
    # v_mad_u64_u32's carry, v_readfirstlane) before a VALU / a VMEM instruction reads it
    # (CDNA3 ISA guide, "Manually Inserted Wait States"; 0: the hardware interlocks)
    valu_sgpr_then_valu: int = 0
    valu_sgpr_then_vmem: int = 0
    # MFMA wait states (LLVM's GCNHazardRecognizer, checkMAIHazards90A / checkMAIVALUHazards, and
    # the CDNA3 ISA guide 7.4 "Dependency Resolution: Required Independent Instructions"), for
    # the f32 MFMAs gemmc selects (non-XDL "SMFMA" on gfx940+), as N passes + these offsets:
    mfma_then_read: int = 2  # an MFMA writes a VGPR, a VALU / VMEM / DS instruction reads it
    mfma_then_write: int = 2  # ... and a VALU instruction overwrites it (WAW)
    mfma_then_srcab: int = 2  # ... and an MFMA reads it as SrcA / SrcB
    mfma_then_srcc_overlap: int = 0  # ... as SrcC, overlapping but not the same range
    # an MFMA reads a VGPR as SrcC and a VALU instruction overwrites it (WAR): None where none
    # is needed (gfx940+ for SMFMA), else N passes + this
    mfma_srcc_then_write: int | None = None
    valu_then_mfma: int = 2  # a VALU writes a VGPR, an MFMA reads it (LegacyVALUWritesVGPR)
    # SrcC being exactly the range the previous MFMA wrote (a back-to-back accumulation) needs
    # no wait states for 8- and 16-pass MFMAs: the hardware forwards it
    # gfx940+'s XDL MFMAs (16-bit inputs; LLVM's GFX940_XDL_N_Pass* helpers): N passes + these
    # for read, write, srcab, srcc_overlap, war (an XDL MFMA reads SrcC, a VALU overwrites it);
    # None where MFMAs have no XDL kind (gfx90a: the numbers above hold for every MFMA)
    xdl: tuple[int, int, int, int, int] | None = None
    # the same for 2-pass XDL MFMAs where they differ (gfx950 adds a wait state to read, write
    # and srcab only from 4 passes up); None: `xdl` holds for every pass count
    xdl_2pass: tuple[int, int, int, int, int] | None = None
    # gfx12 (RDNA4): one wait instruction per counter (s_wait_loadcnt, s_wait_dscnt, s_wait_kmcnt;
    # vmcnt_max / lgkmcnt_max are loadcnt's and dscnt's maxima), s_barrier split into
    # s_barrier_signal and s_barrier_wait, and the SGPR read hazards that s_wait_alu resolves
    # (LLVM's AMDGPUWaitSGPRHazards)
    split_counters: bool = False
    kmcnt_max: int = 0
    split_barrier: bool = False
    sgpr_read_hazards: bool = False

    def mfma_passes(self, instr: MatrixInstr) -> int:
        """Passes of an MFMA: its issue cycles / 4 (the CDNA3 ISA guide's pass counts)."""
        return instr.cycles // 4

    def is_xdl(self, instr: MatrixInstr) -> bool:
        return self.xdl is not None and instr.in_type != "f32"

    def mfma_wait_states(self, instr: MatrixInstr, consumer: str) -> int:
        """Wait states between `instr` writing (or, for "war", reading as SrcC) a VGPR and a
        `consumer` of it: "read" (VALU, VMEM, DS), "write" (VALU), "srcab", "srcc_overlap",
        "srcc_same" (SrcC exactly the written range), "war" (a VALU overwrites a SrcC)."""
        n = self.mfma_passes(instr)
        if consumer == "srcc_same":
            return 0
        if self.is_xdl(instr):
            offsets = self.xdl_2pass if n == 2 and self.xdl_2pass is not None else self.xdl
            read, write, srcab, srcc_overlap, war = offsets  # type: ignore[misc]
            return n + {"read": read, "write": write, "srcab": srcab, "srcc_overlap": srcc_overlap,
                        "war": war}[consumer]
        if consumer == "war":
            return 0 if self.mfma_srcc_then_write is None else n + self.mfma_srcc_then_write
        return n + {"read": self.mfma_then_read, "write": self.mfma_then_write, "srcab": self.mfma_then_srcab,
                    "srcc_overlap": self.mfma_then_srcc_overlap}[consumer]


_GFX9_ISA = GcnIsa(
    generation="gfx9", sgprs=96, aligned_vgpr_tuples=True, constant_bus_limit=1, vop3_literal=False,
    vmcnt_max=63, lgkmcnt_max=15, expcnt_max=7, stores_in_vscnt=False,
    global_offset_min=-4096, global_offset_max=4095, ds_offset_max=65535,
    packed_workitem_ids=True, has_accum_offset=True, barrier_waits_memory=False,
    valu_sgpr_then_valu=2, valu_sgpr_then_vmem=5,
)
GCN_ISA: dict[str, GcnIsa] = {
    # the 2 wait states are CDNA3's; gfx90a's MFMAs need one more than CDNA3's SMFMAs (LLVM's
    # SMFMA{4x4,16x16,32x32}WritesVGPR* = 5, 11, 19 for 2, 8, 16 passes) and have the SrcC WAR
    # hazard (SMFMA*ReadVgprVALUWarWaitStates = 1, 7, 15)
    "gfx90a": GcnIsa(**{**_GFX9_ISA.__dict__, "valu_sgpr_then_valu": 0, "mfma_then_read": 3,
                        "mfma_then_write": 3, "mfma_then_srcab": 3, "mfma_srcc_then_write": -1}),
    # XDL: N + 3 to read, overwrite or take as SrcA/B, N + 1 as an overlapping SrcC, N - 1 for the
    # SrcC WAR (checkMAIHazards90A / checkMAIVALUHazards with hasGFX940Insts)
    "gfx942": GcnIsa(**{**_GFX9_ISA.__dict__, "xdl": (3, 3, 3, 1, -1)}),
    # gfx950 (LLVM's GFX940_XDL_N_Pass* helpers with IsGFX950; llvm-project PRs #117263,
    # #117285, #126132, #126727, #126732): one more wait state than gfx942 to read, overwrite or
    # take as SrcA/B a 4-, 8- or 16-pass XDL result (2 passes: as gfx942), and one more as an
    # overlapping SrcC at every pass count; the SrcC WAR as gfx942's (no gfx950 change upstream)
    "gfx950": GcnIsa(**{**_GFX9_ISA.__dict__, "xdl": (4, 4, 4, 2, -1), "xdl_2pass": (3, 3, 3, 2, -1)}),
    # RDNA3 ISA guide: 106 SGPRs, s_waitcnt_vscnt, 6-bit lgkmcnt, 2 constant-bus reads, VOP3 literals.
    "gfx1100": GcnIsa(
        generation="gfx11", sgprs=104, aligned_vgpr_tuples=False, constant_bus_limit=2, vop3_literal=True,
        vmcnt_max=63, lgkmcnt_max=63, expcnt_max=7, stores_in_vscnt=True,
        global_offset_min=-4096, global_offset_max=4095, ds_offset_max=65535,
        packed_workitem_ids=True, has_accum_offset=False, barrier_waits_memory=False,
    ),
    # RDNA4 ISA guide: gfx11's register files and operand rules; split counters (6-bit loadcnt,
    # dscnt and storecnt, 5-bit kmcnt), the split barrier, s_wait_alu.
    "gfx1201": GcnIsa(
        generation="gfx12", sgprs=104, aligned_vgpr_tuples=False, constant_bus_limit=2, vop3_literal=True,
        vmcnt_max=63, lgkmcnt_max=63, expcnt_max=7, stores_in_vscnt=True,
        global_offset_min=-8388608, global_offset_max=8388607, ds_offset_max=65535,
        packed_workitem_ids=True, has_accum_offset=False, barrier_waits_memory=False,
        split_counters=True, kmcnt_max=31, split_barrier=True, sgpr_read_hazards=True,
    ),
}


def get_gcn_isa(arch: Arch | str) -> GcnIsa:
    """The instruction-set facts of `arch` for gemmc's own AMDGCN backend, or an error."""
    name = arch.name if isinstance(arch, Arch) else arch
    try:
        return GCN_ISA[name]
    except KeyError:
        from gemmc.support.diagnostics import GemmcError

        raise GemmcError(
            f"gemmc's AMDGCN backend does not support {name}; it supports {', '.join(GCN_ISA)}"
        ) from None
