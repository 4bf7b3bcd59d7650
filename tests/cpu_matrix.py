"""C++ stand-ins for the matrix builtins (CDNA's MFMA, RDNA's WMMA), so that emitted matrix-core
kernels run on the CPU (test_emit_hip.run_on_cpu, whose launcher gives each wave a barrier).

    builtins("gfx942")     C++ defining every matrix builtin of the arch with an f32 (or i32) accumulator
                           as a call of gemmc_cpu_mfma<M, N, K>, and its FP8 conversions
                           (v_cvt_f32_fp8 / _bf8: a byte of the word, the arch's e4m3 / e5m2)
    builtins("gfx942", source)   only the matrix builtins `source` calls (their lane tables are
                           most of the header, and of clang's time on it)

Each lane hands its A, B operands (their bytes) and scales to its wave, waits for the others,
and computes the D elements it holds in float64 from everyone's: which lane and element holds
A(i, k), B(k, j), D(i, j) and the scales is gemmc.layout's table of the instruction (what
`gemmc layout` prints, checked against AMD's Matrix Instruction Calculator), element e of a lane
at bits e * bits of its operand; values are ml_dtypes' (FP8, FP6, FP4), IEEE's (f32, f16),
bf16's and bytes' (i8, u8: an iu8 WMMA's signedness arguments choose), an i32 D wrapped.  The kernels' own code (fragment loads and packing, lane arithmetic, LDS, stores) runs
as emitted, so the harness's check covers it; the layout itself is trusted.  Where the layout has
an element in two lanes (RDNA3's WMMA reads A and B replicated in both halves of the wave), the
two must hold the same bits, else the result is NaN.

The scaled f8f6f4 builtins take E8M0 scales (code c: 2^(c - 127)); gemmc prints the unscaled
f8f6f4 MFMAs as the scaled builtin with op_sel and scales 0, which LLVM selects as the unscaled
instruction, so a scale of 0 here is 1 (the harness's MX scales are 2^-4 .. 2^4, never code 0).
"""

from __future__ import annotations

import re

import numpy as np

from gemmc.driver import layout
from gemmc.target.arch import ELEMENT_BITS, F8F6F4_FORMATS, FNUZ_FP8, OCP_FP8, get_arch
from gemmc.emit import host_formats

# Element kinds: the f8f6f4 format codes (cbsz / blgp) first, then the fixed types
KINDS = [*sorted(F8F6F4_FORMATS, key=F8F6F4_FORMATS.get), *FNUZ_FP8, "f16", "bf16", "f32", "i8", "u8"]

EMULATION = r"""
struct gemmc_cpu_operands { unsigned char a[64][32], b[64][32]; int sa[64], sb[64]; };
inline gemmc_cpu_operands gemmc_cpu_waves[32];  // a workgroup of 1024 lanes in waves of 32
inline unsigned long long gemmc_cpu_bits_at(const unsigned char* bytes, int bit, int bits)
{
    unsigned long long window = 0;
    for (int i = 0; i < 8 && bit / 8 + i < 32; ++i)
        window |= (unsigned long long)bytes[bit / 8 + i] << 8 * i;
    return (window >> bit % 8) & ((1ull << bits) - 1);
}
inline double gemmc_cpu_decode(int kind, unsigned long long code)
{
    if (kind == GEMMC_CPU_F16)
    {
        _Float16 h;
        const unsigned short u = (unsigned short)code;
        std::memcpy(&h, &u, 2);
        return (double)h;
    }
    if (kind == GEMMC_CPU_I8 || kind == GEMMC_CPU_U8)  // an integer instruction's bytes
        return kind == GEMMC_CPU_I8 ? (double)(signed char)code : (double)code;
    if (kind == GEMMC_CPU_BF16 || kind == GEMMC_CPU_F32)
    {
        const unsigned u = kind == GEMMC_CPU_BF16 ? (unsigned)code << 16 : (unsigned)code;
        float f;
        std::memcpy(&f, &u, 4);
        return f;
    }
    return gemmc_cpu_value[kind][code];
}
inline double gemmc_cpu_scale(int code) { return code == 0 ? 1.0 : code == 255 ? NAN : std::ldexp(1.0, code - 127); }
template <int M, int N, int K, class A_, class B_, class C_>
C_ gemmc_cpu_mfma(A_ a, B_ b, C_ c, int kind_a, int kind_b, int scale_a, int scale_b, const unsigned char* a_lane,
                  const unsigned char* a_elem, const unsigned char* a_twin, const unsigned char* b_lane,
                  const unsigned char* b_elem, const unsigned char* b_twin, const unsigned char* d_lane,
                  const unsigned char* d_reg, const unsigned char* sa_lane, const unsigned char* sb_lane)
{
    static_assert(sizeof(A_) <= 32 && sizeof(B_) <= 32, "an MFMA operand is at most 8 VGPRs");
    gemmc_cpu_operands& w = gemmc_cpu_waves[gemmc_wave];
    const unsigned l = gemmc_lane;
    std::memcpy(w.a[l], &a, sizeof a);
    std::memcpy(w.b[l], &b, sizeof b);
    w.sa[l] = scale_a;
    w.sb[l] = scale_b;
    gemmc_wave_barrier->arrive_and_wait();
    const int bits_a = gemmc_cpu_bits[kind_a], bits_b = gemmc_cpu_bits[kind_b];
    C_ d = c;
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j)
        {
            if (d_lane[i * N + j] != l)
                continue;
            double s = c[d_reg[i * N + j]];
            for (int k = 0; k < K; ++k)
            {
                const int ea = a_elem[i * K + k] * bits_a, eb = b_elem[k * N + j] * bits_b;
                const unsigned long long ca = gemmc_cpu_bits_at(w.a[a_lane[i * K + k]], ea, bits_a);
                const unsigned long long cb = gemmc_cpu_bits_at(w.b[b_lane[k * N + j]], eb, bits_b);
                const bool twins_differ = (a_twin[i * K + k] != 255 && gemmc_cpu_bits_at(w.a[a_twin[i * K + k]], ea, bits_a) != ca)
                                       || (b_twin[k * N + j] != 255 && gemmc_cpu_bits_at(w.b[b_twin[k * N + j]], eb, bits_b) != cb);
                const double x = twins_differ ? NAN : gemmc_cpu_decode(kind_a, ca);
                const double y = gemmc_cpu_decode(kind_b, cb);
                double scale = 1.0;
                if (sa_lane)
                    scale = gemmc_cpu_scale(w.sa[sa_lane[i * (K / 32) + k / 32]]) * gemmc_cpu_scale(w.sb[sb_lane[k / 32 * N + j]]);
                s += x * y * scale;
            }
            if constexpr (std::is_integral_v<decltype(+d[0])>)  // i32: exact in a double, wrapped
                d[d_reg[i * N + j]] = (int)(unsigned)(long long)s;
            else
                d[d_reg[i * N + j]] = static_cast<float>(s);
        }
    gemmc_wave_barrier->arrive_and_wait();  // every lane has read the operands before the next call
    return d;
}
"""


def _prelude() -> list[str]:
    tables = []
    for name in KINDS[: len(F8F6F4_FORMATS) + len(FNUZ_FP8)]:
        v = host_formats.values(name)
        tables.append("{" + ", ".join(host_formats.c_literal(x) for x in np.concatenate([v, np.zeros(256 - len(v))])) + "}")
    out = [f"#define GEMMC_CPU_{k.upper()} {i}" for i, k in enumerate(KINDS) if k in ("f16", "bf16", "f32", "i8", "u8")]
    out.append(f"static const int gemmc_cpu_bits[{len(KINDS)}] = {{{', '.join(str(ELEMENT_BITS[k]) for k in KINDS)}}};")
    out.append(f"static const double gemmc_cpu_value[{len(tables)}][256] = {{{', '.join(tables)}}};")
    return out


def _tables(instr, tag: str) -> tuple[list[str], str]:
    """The lane tables of `instr` as C arrays named gemmc_cpu_<tag>_*, and their names in call order."""
    m, n, k = instr.m, instr.n, instr.k
    bits = instr.in_bits  # A's and B's (an f8f6f4 MFMA's at 8: its FP8 layout, element e at bits 8e)
    t = {x: np.zeros(size, np.uint8) for x, size in (
        ("a_lane", m * k), ("a_elem", m * k), ("a_twin", m * k), ("b_lane", k * n), ("b_elem", k * n),
        ("b_twin", k * n), ("d_lane", m * n), ("d_reg", m * n), ("sa_lane", m * k // 32), ("sb_lane", k // 32 * n))}
    t["a_twin"][:], t["b_twin"][:] = 255, 255  # 255: the element is in one lane
    seen = set()

    def operand(x: str, at: int, lane: int, elem: int) -> None:
        if (x, at) in seen:
            t[f"{x}_twin"][at] = lane
        else:
            seen.add((x, at))
            t[f"{x}_lane"][at], t[f"{x}_elem"][at] = lane, elem

    for r in layout.rows(instr):
        bit = r.gpr * 32 + r.bit_lo
        if r.matrix == "A":
            operand("a", r.row * k + r.col, r.lane, bit // bits)
        elif r.matrix == "B":
            operand("b", r.row * n + r.col, r.lane, bit // bits)
        elif r.matrix == "D":
            t["d_lane"][r.row * n + r.col], t["d_reg"][r.row * n + r.col] = r.lane, r.gpr
        elif r.matrix == "SA":
            t["sa_lane"][r.row * (k // 32) + r.col] = r.lane
        elif r.matrix == "SB":
            t["sb_lane"][r.row * n + r.col] = r.lane
    scaled = instr.sa is not None
    names = [x for x in t if scaled or not x.startswith("s")]
    lines = [f"static const unsigned char gemmc_cpu_{tag}_{x}[{len(t[x])}] = {{{', '.join(map(str, t[x]))}}};"
             for x in names]
    refs = ", ".join(f"gemmc_cpu_{tag}_{x}" for x in names) + ("" if scaled else ", nullptr, nullptr")
    return lines, refs


def builtins(arch_name: str, source: str | None = None) -> str:
    """C++ for every MFMA builtin of the arch (those `source` calls, where given) and its FP8
    conversions on the CPU."""
    arch = get_arch(arch_name)
    out = ["", "#include <cmath>", "#include <type_traits>", *_prelude(), EMULATION]
    fp8 = [t for t in (*FNUZ_FP8, *OCP_FP8) if t in arch.dtypes]  # the arch's e4m3 and e5m2
    for builtin, name in zip(("fp8", "bf8"), fp8):
        out.append(f"#define __builtin_amdgcn_cvt_f32_{builtin}(w, sel) "
                   f"((float)gemmc_cpu_value[{KINDS.index(name)}][(static_cast<unsigned>(w) >> 8 * (sel)) & 255u])")
    seen = set()
    for instr in arch.matrix_instrs:
        if instr.out_type not in ("f32", "i32") or instr.builtin in seen:  # (RDNA's 16-bit accumulators: not here)
            continue
        if source is not None and not re.search(rf"\b{instr.builtin}\s*\(", source):
            continue
        assert instr.blocks == 1, instr.mnemonic
        seen.add(instr.builtin)
        if instr.formats:  # f8f6f4: element e of a lane at bits 8e in the FP8 table, its format's bits at run time
            instr = layout.with_types(instr, "f8e4m3fn,f8e4m3fn")
        tag = instr.builtin.removeprefix("__builtin_amdgcn_")
        lines, refs = _tables(instr, tag)
        out += lines
        m, n, k = instr.m, instr.n, instr.k
        if instr.formats and instr.sa is not None:
            out.append(f"#define {instr.builtin}(a, b, c, cbsz, blgp, oa, sa, ob, sb) gemmc_cpu_mfma<{m}, {n}, {k}>"
                       f"(a, b, c, cbsz, blgp, (sa) >> 8 * (oa) & 255, (sb) >> 8 * (ob) & 255, {refs})")
        elif instr.signedness:  # iu8 WMMA: (a_signed, a, b_signed, b, c, clamp)
            i8, u8 = KINDS.index("i8"), KINDS.index("u8")
            out.append(f"#define {instr.builtin}(sa, a, sb, b, c, clamp) gemmc_cpu_mfma<{m}, {n}, {k}>"
                       f"(a, b, c, (sa) ? {i8} : {u8}, (sb) ? {i8} : {u8}, 0, 0, {refs})")
        elif not instr.formats:
            ka, kb = KINDS.index(instr.in_type), KINDS.index(instr.b_in_type)
            modifiers = ", cbsz, abid, blgp" if instr.kind == "mfma" else ""
            out.append(f"#define {instr.builtin}(a, b, c{modifiers}) gemmc_cpu_mfma<{m}, {n}, {k}>"
                       f"(a, b, c, {ka}, {kb}, 0, 0, {refs})")
    return "\n".join(out) + "\n"
