"""f32 -> FP8 in software (gemmc/emit/fp8_soft.py), for an output format the arch has no conversion
instruction for: the emitted HIP, built for the CPU with the stand-in runtime, against the
interpreter's conversion (gemmc.support.arith_semantics.to_fp8, which arith.truncf runs) code for
code over every class of f32: each format's values, the ties between neighbours and a float either
side of them, the format's subnormals, overflow with and without a saturate in front, Inf, NaN,
+-0, f32 subnormals, random bits.  Planted bugs (ties away from zero, the saturate left out) FAIL."""

from __future__ import annotations

import numpy as np
import pytest

from gemmc.emit import fp8_soft
from gemmc.driver.source import parse_ir
from gemmc.emit import emit_hip
from gemmc.support.arith_semantics import fp8_dtypes, to_fp8
from gemmc.target.arch import FP8_FORMATS, get_arch
from test_emit_hip import run_on_cpu

MLIR_TYPE = {"f8e4m3fn": "f8E4M3FN", "f8e5m2": "f8E5M2", "f8e4m3fnuz": "f8E4M3FNUZ", "f8e5m2fnuz": "f8E5M2FNUZ"}
BLOCK = 64


def largest(fmt: str) -> float:
    import ml_dtypes

    return float(ml_dtypes.finfo(fp8_dtypes()[fmt]).max)


def kernel_ir(n: int, saturate: bool = True) -> str:
    """One thread an element: Y_f = truncf(x), Z_f = truncf(saturate(x)) for every FP8 format f."""
    outs = [f"memref<{n}x{MLIR_TYPE[f]}>" for f in FP8_FORMATS for _ in range(2)]
    args = ", ".join(f"%{w}{i}: {t}" for i, (w, t) in enumerate(zip("YZ" * 4, outs)))
    body = []
    for i, f in enumerate(FP8_FORMATS):
        t, hi = MLIR_TYPE[f], largest(f)
        body.append(f"      %y{i} = arith.truncf %x : f32 to {t}\n"
                    f"      memref.store %y{i}, %Y{2 * i}[%i] : memref<{n}x{t}>")
        clamped = "%x"
        if saturate:  # as the frontend writes saturate(x): maximumf (NaN stays NaN), then minimumf
            body.append(f"      %lo{i} = arith.constant {-hi:e} : f32\n      %hi{i} = arith.constant {hi:e} : f32\n"
                        f"      %m{i} = arith.maximumf %x, %lo{i} : f32\n      %s{i} = arith.minimumf %m{i}, %hi{i} : f32")
            clamped = f"%s{i}"
        body.append(f"      %z{i} = arith.truncf {clamped} : f32 to {t}\n"
                    f"      memref.store %z{i}, %Z{2 * i + 1}[%i] : memref<{n}x{t}>")
    types = ", ".join([f"memref<{n}xf32>"] + outs)
    nl = "\n"
    return f"""builtin.module attributes {{gemmc.target = "gfx90a", gpu.container_module}} {{
  "gpu.module"() <{{sym_name = "conv_kernels"}}> ({{
    "gpu.func"() <{{function_type = ({types}) -> (), kernel}}> ({{
    ^bb0(%X: memref<{n}xf32>, {args}):
      %c{BLOCK} = arith.constant {BLOCK} : index
      %tx = "gpu.thread_id"() <{{dimension = #gpu<dim x>}}> : () -> index
      %bx = "gpu.block_id"() <{{dimension = #gpu<dim x>}}> : () -> index
      %row = arith.muli %bx, %c{BLOCK} : index
      %i = arith.addi %row, %tx : index
      %x = memref.load %X[%i] : memref<{n}xf32>
{nl.join(body)}
      "gpu.return"() : () -> ()
    }}) {{sym_name = "conv", gpu.known_block_size = array<i32: {BLOCK}, 1, 1>}} : () -> ()
  }}) : () -> ()
}}
"""


def f32_classes() -> np.ndarray:
    """The f32 bit patterns the conversion is checked on, a multiple of BLOCK of them."""
    bits = [np.array([0, 0x80000000, 1, 0x807fffff, 0x00800000, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00000,
                      0x7f800001, 0xff812345, 0x7f7fffff, 0xff7fffff], np.uint32)]
    for f in FP8_FORMATS:
        v = np.arange(256, dtype=np.uint8).view(fp8_dtypes()[f]).astype(np.float64)
        v = np.unique(v[np.isfinite(v)])
        ties = (v[1:] + v[:-1]) / 2  # exact in f32: FP8 values have 4 significant bits at most
        step = v[-1] - v[-2]  # beyond the largest: its tie with the next (absent) value, and past it
        edge = np.array([v[-1] + step / 2, v[-1] + step, 2 * v[-1], v[1] / 2, v[1] / 4, v[1] * 0.75])
        for w in (v, ties, edge, -ties, -edge):
            w32 = w.astype(np.float32).view(np.uint32)
            bits += [w32, w32 + 1, w32 - 1]
    bits.append(np.random.default_rng(0).integers(0, 2**32, 4096, dtype=np.uint64).astype(np.uint32))
    u = np.concatenate(bits)
    return np.concatenate([u, np.zeros(-len(u) % BLOCK, np.uint32)])


def expected_codes(x: np.ndarray, fmt: str, saturate: bool) -> np.ndarray:
    """The interpreter's conversion (arith.truncf: to_fp8) as codes, after the saturate's clamp."""
    if saturate:
        x = np.where(np.isnan(x), x, np.clip(x, -largest(fmt), largest(fmt))).astype(np.float32)
    return np.asarray(to_fp8(x, fmt)).astype(fp8_dtypes()[fmt]).view(np.uint8)


MAIN = r"""
#include <cstdio>
int main()
{
    static unsigned x[%(n)d];
    static unsigned char out[8][%(n)d];
    if (fread(x, 4, %(n)d, stdin) != %(n)d) return 2;
    conv<<<dim3(%(blocks)d, 1, 1), dim3(%(block)d, 1, 1), 0, 0>>>(reinterpret_cast<float*>(x), %(outs)s);
    fwrite(out, 1, sizeof out, stdout);
    return 0;
}
"""


def run_conversions(toolchain, tmp_path, saturate: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """(the f32 inputs, the 8 x n codes the emitted HIP wrote: per format Y then Z)."""
    import subprocess

    u = f32_classes()
    n = len(u)
    hip = emit_hip(parse_ir(kernel_ir(n, saturate)), get_arch("gfx90a"))
    main = MAIN % {"n": n, "blocks": n // BLOCK, "block": BLOCK, "outs": ", ".join(f"out[{k}]" for k in range(8))}
    run_on_cpu(toolchain, hip + main, [], tmp_path)  # builds it; run again below with stdin
    proc = subprocess.run([str(tmp_path / "harness")], input=u.tobytes(), capture_output=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    return u.view(np.float32), np.frombuffer(proc.stdout, np.uint8).reshape(8, n)


def mismatches(x: np.ndarray, codes: np.ndarray) -> list[str]:
    bad = []
    for k, f in enumerate(FP8_FORMATS):
        for j, sat in enumerate((False, True)):
            want, got = expected_codes(x, f, sat), codes[2 * k + j]
            for i in np.nonzero(want != got)[0][:3]:
                bad.append(f"{f}{' saturated' if sat else ''}: {x[i]!r} ({x.view(np.uint32)[i]:#010x}) "
                           f"-> {got[i]:#04x}, expected {want[i]:#04x}")
    return bad


@pytest.fixture
def cpu(toolchain):
    if toolchain.kind != "llvm":
        pytest.skip("the CPU run uses plain clang++ for the host")
    return toolchain


def test_software_conversion_is_the_interpreters_code_for_code(cpu, tmp_path):
    x, codes = run_conversions(cpu, tmp_path)
    assert not mismatches(x, codes)


def test_planted_ties_away_from_zero_fails(cpu, tmp_path, monkeypatch):
    real = fp8_soft.soft_fp8_function
    even = "(rest > half || (rest == half && ((sig >> shift) & 1u)))"

    def ties_away(fmt: str) -> list[str]:
        lines = real(fmt)
        assert any(even in line for line in lines)
        return [line.replace(even, "(rest >= half)") for line in lines]

    monkeypatch.setattr(fp8_soft, "soft_fp8_function", ties_away)
    x, codes = run_conversions(cpu, tmp_path)
    assert any("saturated" in m for m in mismatches(x, codes))


def test_planted_missing_saturation_fails(cpu, tmp_path):
    x, codes = run_conversions(cpu, tmp_path, saturate=False)
    bad = mismatches(x, codes)
    assert bad and all("saturated" in m for m in bad)


@pytest.mark.parametrize("arch,hardware,software", [("gfx942", "f8e4m3fnuz", "f8e4m3fn"),
                                                    ("gfx950", "f8e5m2", "f8e5m2fnuz"),
                                                    ("gfx90a", None, "f8e5m2")])
def test_hardware_where_the_arch_has_the_format_else_software(arch, hardware, software):
    """Arch.converts_in_hardware decides: the builtin for the arch's own format, the device
    function for another."""
    target = get_arch(arch)
    assert software in target.output_dtypes and not target.converts_in_hardware(software)
    assert hardware is None or target.converts_in_hardware(hardware)
    module = parse_ir(kernel_ir(BLOCK).replace('"gfx90a"', f'"{arch}"'))
    hip = emit_hip(module, target)
    assert f"gemmc_f32_to_{software}(x)" in hip
    if hardware is not None:
        assert f"gemmc_f32_to_{hardware}(" not in hip and "__builtin_amdgcn_cvt_pk_" in hip


@pytest.mark.parametrize("arch,c,software", [("gfx942", "f8e4m3fn", True), ("gfx942", "f8e4m3fnuz", False),
                                            ("gfx90a", "f8e5m2", True)])
def test_interpreter_and_cost_model_count_the_software_conversion(arch, c, software):
    """A software conversion is SOFT_FP8_VALU_INSTRS VALU instructions (clang's), the hardware's one,
    in the interpreter's count and the cost model's alike."""
    import gemmc
    from gemmc.cost.counts import count
    from gemmc.cost.kernel import read_kernel
    from gemmc.support.arith_semantics import SOFT_FP8_VALU_INSTRS

    source = f"""kernel q {{
  dim M = 16, N = 16, K = 8
  A: bf16[M, K]
  B: bf16[K, N]
  C: {c}[M, N]
  C = saturate(A @ B)
}}
"""
    counts = []
    for program in (source, source.replace(f"C: {c}", "C: f32")):  # the f32 C: no conversion
        module = gemmc.lower(gemmc.parse(program), "step1", arch)
        counted = count(read_kernel(module, {}), get_arch(arch)).stats_dict()
        ran = gemmc.check(module, arch).stats.as_dict()
        assert counted["valu_instrs"] == ran["valu_instrs"]
        counts.append(ran["valu_instrs"])
    waves = 16 * 16 // get_arch(arch).wave_size
    assert counts[0] - counts[1] == waves * (SOFT_FP8_VALU_INSTRS if software else 1)


def test_own_backend_refuses_the_conversion_at_its_op():
    """gemmc's own AMDGCN backend has no FP8 conversion, in hardware or software: a located refusal."""
    import gemmc
    from gemmc.support.diagnostics import GemmcError

    text = kernel_ir(BLOCK, saturate=False)
    with pytest.raises(GemmcError, match=r"truncf to f8E4M3FNUZ is not selected \(no f32 -> FP8 conversion: neither "
                                         r"v_cvt_pk_fp8_f32 nor the HIP's software rounding.*at 'arith.truncf' in @conv"):
        gemmc.lower(parse_ir(text), "unroll-loops,promote-private,lower-to-amdgcn", "gfx90a")
