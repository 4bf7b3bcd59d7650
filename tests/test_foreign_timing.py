"""The ISA-level model on a foreign kernel (gemmc.amdgcn.timing.foreign, `gemmc explain
kernel.s --grid ... --block ... --arg ...`): Triton's matmul as its AMD backend compiles it, its C
checked against numpy (float64) before it is timed, its arguments bound by its metadata, and
every bad input a one-line error with gemmc's exit code.

tests/data/triton_matmul_gfx942.s: Triton's tutorial matmul (32x32 tiles, 4 waves) for gfx942,
its sizes and strides runtime arguments: needs no Triton.  The tests that compile with Triton's
wheel (gfx12's and odd shapes' instructions) skip without it."""

from __future__ import annotations

import json
import os
import pathlib
import re
import sys

import numpy as np
import pytest

from gemmc.amdgcn.interp.launch import Workgroups
from gemmc.amdgcn.asm_front import load, run
from gemmc.amdgcn.asm_front.text import parse_file
from gemmc.amdgcn.timing.foreign import Buffer, parse_arg, parse_dims, predict_foreign
from gemmc.driver.cli import main
from gemmc.support.diagnostics import EXIT_INPUT, EXIT_IO, EXIT_TOOLCHAIN, EXIT_USAGE, GemmcError
from gemmc.target.toolchain import have_toolchain

ROOT = pathlib.Path(__file__).resolve().parent.parent
TRITON = ROOT / "tests/data/triton_matmul_gfx942.s"


def _launch(m: int, n: int, k: int, bufs=None):
    """The tutorial's launch of the checked-in kernel: cdiv(M, 32) x cdiv(N, 32) programs of 256
    work-items, A and B f16 and C f32 row-major, Triton's two null scratch pointers."""
    a, b, c = bufs or (Buffer("f16", (m, k)), Buffer("f16", (k, n)), Buffer("f32", (m, n)))
    grid = (-(-m // 32) * -(-n // 32),)
    return grid, (256,), [a, b, c, m, n, k, k, 1, n, 1, n, 1, None, None]


def _f16_bound(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """|C - A B| for f16 inputs summed in f32: the products are exact in f32, each of the K
    additions rounds once (2^-24 relative), so K 2^-24 |A| |B| bounds the error."""
    k = a.shape[1]
    return k * 2.0 ** -24 * (np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64))) + 1e-30


def test_triton_kernel_computes_the_product_then_is_timed():
    m, n, k = 70, 45, 50
    rng = np.random.default_rng(3)
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    c = np.zeros((m, n), np.float32)
    grid, block, args = _launch(m, n, k, (a, b, c))
    text = TRITON.read_text()
    run(load(str(TRITON), text), "matmul", grid, block, args, ["f16", "f16", "f32"] + [None] * 11, dynamic_lds=2048)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    assert np.all(np.abs(c - ref) <= _f16_bound(a, b))
    grid, block, args = _launch(m, n, k)
    p = predict_foreign(text, grid, block, args, 2.0 * m * n * k, dynamic_lds=2048, path=str(TRITON))
    x = p.main
    assert x.kernel == "matmul" and x.grid == (grid[0], 1, 1) and x.block == (256, 1, 1)
    assert p.in_type == "f16" and p.arch.name == "gfx942"
    assert x.res.lds_bytes == 2048  # the dynamic LDS counts in its residency
    assert 0 < p.time_s < 1e-3 and p.tflops == pytest.approx(2.0 * m * n * k / p.time_s / 1e12)


def test_time_grows_with_the_k_loop():
    """Four times the K iterations: the loop's extrapolated iterations make the round longer."""
    text = TRITON.read_text()
    times = []
    for k in (256, 1024):
        grid, block, args = _launch(512, 512, k)
        p = predict_foreign(text, grid, block, args, 2.0 * 512 * 512 * k, dynamic_lds=2048)
        times.append(p.main.round_cycles)
    assert times[1] > 2.5 * times[0]


def test_cli_prints_what_the_api_predicts(tmp_path, capsys):
    grid, block, args = _launch(256, 256, 128)
    p = predict_foreign(TRITON.read_text(), grid, block, args, 2.0 * 256 * 256 * 128, dynamic_lds=2048)
    argv = ["explain", str(TRITON), "--grid", str(grid[0]), "--block", "256", "--arg", "f16:256x128",
            "--arg", "f16[128,256]", "--arg", "f32:256x256", *[f"--arg={v}" for v in (256, 256, 128, 128, 1, 256, 1,
                                                                                     256, 1)],
            "--arg", "null", "--arg", "null", "--mnk", "256,256,128", "--dynamic-lds", "2048", "--json"]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["time_s"] == pytest.approx(p.time_s) and out["bound"] == p.main.bound
    assert main(argv[:-1]) == 0
    text = capsys.readouterr().out
    assert text.startswith("ISA-level prediction on gfx942") and "matmul: grid" in text


def test_arguments_as_the_command_line_spells_them():
    assert parse_arg("f16:4096x4096") == Buffer("f16", (4096, 4096))
    assert parse_arg("bf16[3, 5]") == Buffer("bf16", (3, 5))
    assert parse_arg("null") is None and parse_arg("-7") == -7 and parse_arg("1.5") == 1.5
    assert parse_dims("32,19", "grid") == (32, 19)
    for bad in ("f16:0x4", "f99:4", "f16:", "pointer"):
        with pytest.raises(GemmcError):
            parse_arg(bad)
    for bad in ("0", "1,2,3,4", "a", ""):
        with pytest.raises(GemmcError):
            parse_dims(bad, "grid")


_GOOD = ["--grid", "4", "--block", "256", "--arg", "f16:64x64", "--arg", "f16:64x64", "--arg", "f32:64x64",
         *[f"--arg={v}" for v in (64, 64, 64, 64, 1, 64, 1, 64, 1)], "--arg", "null", "--arg", "null",
         "--mnk", "64,64,64", "--dynamic-lds", "2048"]


def _without(*options: str) -> list[str]:
    """_GOOD with each named option's value(s) removed (every --arg for "--arg")."""
    out, i = [], 0
    while i < len(_GOOD):
        if _GOOD[i] in options:
            i += 2
            continue
        if _GOOD[i].startswith("--arg=") and "--arg" in options:
            i += 1
            continue
        out.append(_GOOD[i])
        i += 1
    return out


@pytest.mark.parametrize("extra,code,words", [
    (_without("--arg"), EXIT_USAGE, "takes 14 arguments"),
    (_without("--grid"), EXIT_USAGE, "needs its launch"),
    (_without("--mnk"), EXIT_USAGE, "--mnk M,N,K or --flops"),
    (_GOOD + ["--flops", "5"], EXIT_USAGE, "one of them"),
    (_GOOD + ["--arg", "null"], EXIT_USAGE, "takes 14 arguments"),
    (_GOOD[:5] + ["7"] + _GOOD[6:], EXIT_USAGE, "argument 0 is a pointer"),
    (_without("--block") + ["--block", "1024"], EXIT_USAGE, "at most 256 work-items"),
    (_GOOD + ["--kernel", "gemm"], EXIT_INPUT, "no kernel 'gemm'"),
    (_GOOD + ["--arch", "gfx90a"], EXIT_INPUT, "for gfx942, not gfx90a"),
    (_GOOD + ["-p", "step1"], EXIT_USAGE, "-p: not for an assembly file"),
    (_GOOD + ["--level", "ir"], EXIT_USAGE, "--level ir: not for an assembly file"),
    (_GOOD + ["--in-type", "f12"], EXIT_USAGE, "--in-type f12"),
    (_GOOD + ["--dynamic-lds", "-4"], EXIT_USAGE, "dynamic LDS -4"),
])
def test_bad_input_is_one_line_and_its_exit_code(extra, code, words, capsys):
    assert main(["explain", str(TRITON), *extra]) == code
    err = capsys.readouterr().err.strip()
    assert words in err and "Traceback" not in err and len(err.splitlines()) <= 3  # (+ a source line, a caret)


def test_a_buffer_too_small_is_the_interpreters_error(capsys):
    """A launch that reads past a buffer is refused at the instruction, not timed."""
    argv = [x.replace("f16:64x64", "f16:8x8") for x in _GOOD]
    assert main(["explain", str(TRITON), *argv]) == EXIT_INPUT
    assert "out-of-bounds" in capsys.readouterr().err


def test_files_that_are_no_kernels(tmp_path, capsys):
    binary = tmp_path / "k.s"
    binary.write_bytes(b"\x00\xff\xfe" * 10)
    assert main(["explain", str(binary), *_GOOD]) == EXIT_USAGE
    assert "neither assembly text nor an ELF code object" in capsys.readouterr().err
    broken = tmp_path / "k.hsaco"
    broken.write_bytes(b"\x7fELF\x02\x01\x01" + b"\x00" * 40)
    if have_toolchain():
        assert main(["explain", str(broken), *_GOOD]) == EXIT_TOOLCHAIN
        assert "llvm-objdump cannot read" in capsys.readouterr().err
    assert main(["explain", str(tmp_path / "none.s"), *_GOOD]) == EXIT_IO
    plain = tmp_path / "p.s"
    plain.write_text("\ts_endpgm\n")
    assert main(["explain", str(plain), *_GOOD]) == EXIT_INPUT
    assert "not AMDGCN assembly" in capsys.readouterr().err
    assert main(["explain", str(ROOT / "examples" / "sgemm.gemm"), "--grid", "4"]) == EXIT_USAGE
    assert "give its assembly (.s)" in capsys.readouterr().err


def test_the_instruction_prefetch_size_is_not_read():
    """gfx11+'s `.amdhsa_inst_pref_size`, an expression of the code's size, is skipped; any
    other descriptor expression the front cannot read stays an error."""
    text = TRITON.read_text().replace(".amdhsa_kernarg_size 80", ".amdhsa_kernarg_size 80\n\t\t.amdhsa_inst_pref_size "
                                      "((instprefsize(.Lfunc_end0-matmul)<<4)&1008)>>4")
    assert parse_file("t.s", text).kernels["matmul"].descriptor["kernarg_size"] == 80
    with pytest.raises(GemmcError, match="cannot read the descriptor"):
        parse_file("t.s", text.replace(".amdhsa_inst_pref_size", ".amdhsa_next_free_sgpr"))


# -- compiled by Triton's wheel here: what its code needs of the interpreter on each target -------------

@pytest.mark.parametrize("arch,instr", [
    ("gfx942", "v_mul_hi_i32"),  # the odd shape's divisions by constants
    ("gfx950", "ds_read_b64_tr_b16"),  # A column-major: read transposed from LDS
    ("gfx1201", "v_s_rcp_f32"),  # and its wave number from TTMP8, its d16 loads waited for by halves
])
def test_triton_compiled_here_at_an_odd_shape(arch, instr):
    pytest.importorskip("triton")
    sys.path.insert(0, str(ROOT / "benchmarks"))
    os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
    from triton_compare import compile_matmul

    from gemmc.target.arch import get_arch

    m, n, k = 67, 45, 53
    ck = compile_matmul(arch, (32, 32, 32, 4), (m, n, k), ("fp16", "fp16", "fp32"), (1, m, n, 1, n, 1), num_warps=4)
    text = ck.asm["amdgcn"]
    assert f"\t{instr} " in text  # what this case is for
    rng = np.random.default_rng(5)
    a_t = rng.standard_normal((k, m)).astype(np.float16)  # A column-major: stored as its transpose
    b = rng.standard_normal((k, n)).astype(np.float16)
    c = np.zeros((m, n), np.float32)
    grid, block = (-(-m // 32) * -(-n // 32),), (4 * get_arch(arch).wave_size,)
    run(load("t.s", text), ck.metadata.name, grid, block, [a_t, b, c, None, None], ["f16", "f16", "f32", None, None],
        dynamic_lds=ck.metadata.shared)
    a = a_t.T
    assert np.all(np.abs(c - a.astype(np.float64) @ b.astype(np.float64)) <= _f16_bound(a, b))
    p = predict_foreign(text, grid, block, [Buffer("f16", (k, m)), Buffer("f16", (k, n)), Buffer("f32", (m, n)),
                                            None, None], 2.0 * m * n * k, dynamic_lds=ck.metadata.shared)
    assert p.arch.name == arch and p.time_s > 0


def test_triton_spills_16_bit_halves_on_gfx1201():
    """Triton's 128x128x64 tile at an odd K spills 16-bit values to scratch (scratch_store_b16,
    _d16_hi, the d16 loads back): one workgroup's tile of C against numpy."""
    pytest.importorskip("triton")
    sys.path.insert(0, str(ROOT / "benchmarks"))
    os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
    from triton_compare import compile_matmul

    m, n, k = 257, 255, 1023
    ck = compile_matmul("gfx1201", (128, 128, 64, 4), (m, n, k), ("fp16", "fp16", "fp32"), (1, m, n, 1, n, 1))
    text = ck.asm["amdgcn"]
    assert "\tscratch_store_d16_hi_b16 " in text and "\tscratch_load_d16_hi_b16 " in text
    rng = np.random.default_rng(6)
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    c = np.full((m, n), np.nan, np.float32)
    run(load("t.s", text), ck.metadata.name, (6,), (256,), [np.ascontiguousarray(a.T), b, c, None, None],
        ["f16", "f16", "f32", None, None], dynamic_lds=ck.metadata.shared, sample=Workgroups([4]))
    done = ~np.isnan(c)
    assert done.sum() == 128 * 127  # one tile, at C's right edge
    err = np.abs(c - a.astype(np.float64) @ b.astype(np.float64))
    assert np.all(err[done] <= _f16_bound(a, b)[done])


def test_triton_bf16_a_bt_on_gfx942_rounds_and_keeps_nan():
    """gau-nernst's problem (bf16 C = A Bᵀ) in Triton's tutorial: C rounded to bf16 through
    v_cmp_o_f32 and v_cndmask_b32_sdwa (a NaN kept quiet); a NaN in A makes its row of C NaN."""
    pytest.importorskip("triton")
    sys.path.insert(0, str(ROOT / "benchmarks"))
    os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
    from triton_compare import compile_matmul

    m, n, k = 130, 70, 96
    ck = compile_matmul("gfx942", (64, 64, 64, 4), (m, n, k), ("bf16", "bf16", "bf16"), (k, 1, 1, k, n, 1),
                        num_warps=4)
    text = ck.asm["amdgcn"]
    assert "\tv_cmp_o_f32_e32 " in text and "\tv_cndmask_b32_sdwa " in text
    rng = np.random.default_rng(7)

    def bf16(x):  # round to nearest even, held as float32
        u = x.astype(np.float32).view(np.uint32).astype(np.uint64)
        return (((u + 0x7FFF + ((u >> 16) & 1)) & 0xFFFF0000).astype(np.uint32)).view(np.float32)

    a, b = bf16(rng.standard_normal((m, k))), bf16(rng.standard_normal((n, k)))
    a[3, 5] = np.nan
    c = np.zeros((m, n), np.float32)
    run(load("t.s", text), ck.metadata.name, (-(-m // 64) * -(-n // 64),), (256,), [a, b, c, None, None],
        ["bf16", "bf16", "bf16", None, None], dynamic_lds=ck.metadata.shared)
    ref = a.astype(np.float64) @ b.astype(np.float64).T
    # f32 accumulation, then C rounded to bf16 (half an ulp of its 8 bits)
    bound = k * 2.0 ** -24 * (np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64)).T) + np.abs(ref) * 2.0 ** -8
    rows = np.arange(m) != 3
    assert np.all(np.isnan(c[3])) and np.all(np.abs(c - ref)[rows] <= bound[rows])


_HIP = """#include <hip/hip_runtime.h>
__global__ void naive(const float *a, const float *b, float *c, int m, int n, int k, float alpha) {
  int row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= m || col >= n) return;
  float s = 0.0f;
  for (int i = 0; i < k; ++i) s += a[row * k + i] * b[i * n + col];
  c[row * n + col] = alpha * s;
}
"""


def test_a_hip_kernel_with_hidden_arguments(tmp_path, capsys):
    """A HIP kernel (clang's code object v6 ABI): its blockDim comes from the hidden arguments
    the launch fills (hidden_group_size_*), its name is mangled (--kernel names the function),
    a float by value; C against numpy, then the CLI times it with a 2-d grid and block."""
    from gemmc.amdgcn.asm_front.foreign import compile_hip, have_device_library
    from gemmc.target.toolchain import have_toolchain

    if not have_toolchain() or not have_device_library():
        pytest.skip("no clang with the AMDGPU backend, or no ockl.bc")
    src = tmp_path / "naive.hip"
    src.write_text(_HIP)
    text = compile_hip(str(src), "gfx942")
    kinds = [a["value_kind"] for a in next(iter(parse_file("k.s", text).kernels.values())).meta["args"]]
    assert "hidden_group_size_x" in kinds and "hidden_block_count_y" in kinds
    m, n, k = 40, 35, 17
    rng = np.random.default_rng(2)
    a, b = rng.standard_normal((m, k)).astype(np.float32), rng.standard_normal((k, n)).astype(np.float32)
    c = np.zeros((m, n), np.float32)
    grid = (-(-n // 16), -(-m // 8))
    run(load("k.s", text), "naive", grid, (16, 8), [a, b, c, m, n, k, np.float32(0.5)])
    ref = 0.5 * (a.astype(np.float64) @ b.astype(np.float64))
    assert np.all(np.abs(c - ref) <= k * 2.0 ** -23 * 0.5 * (np.abs(a) @ np.abs(b)) + 1e-30)
    path = tmp_path / "naive.s"
    path.write_text(text)
    argv = ["explain", str(path), "--kernel", "naive", "--grid", f"{grid[0]},{grid[1]}", "--block", "16,8",
            "--arg", f"f32:{m}x{k}", "--arg", f"f32:{k}x{n}", "--arg", f"f32:{m}x{n}", "--arg", str(m), "--arg", str(n),
            "--arg", str(k), "--arg", "0.5", "--mnk", f"{m},{n},{k}", "--json"]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["launches"][0]["grid"] == [grid[0], grid[1], 1] and out["launches"][0]["block"] == [16, 8, 1]
    assert out["time_s"] > 0 and out["launches"][0]["kernel"].startswith("_Z5naive")
    assert main(argv[:-3] + ["--arg", "3", "--mnk", "1,1,1"]) == EXIT_USAGE  # 8 arguments for 7
    assert "takes 7 arguments" in capsys.readouterr().err


def test_triton_f32_spills_on_gfx1100():
    """Triton's 256x128x64 f32 tile on gfx1100 (no f32 WMMA: FMAs) spills past the 12-bit
    offsets (scratch with an SGPR offset), spills SGPRs into VGPR lanes (v_writelane_b32 /
    v_readlane_b32) and uses wave32's VCC_HI as a scalar register: its C against numpy."""
    pytest.importorskip("triton")
    sys.path.insert(0, str(ROOT / "benchmarks"))
    os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
    from triton_compare import compile_matmul

    m, n, k = 256, 128, 64
    ck = compile_matmul("gfx1100", (256, 128, 64, 4), (m, n, k), ("fp32", "fp32", "fp32"), (k, 1, n, 1, n, 1))
    text = ck.asm["amdgcn"]
    for what in ("\tv_writelane_b32 ", "\tv_readlane_b32 ", "vcc_hi"):
        assert what in text
    assert re.search(r"\tscratch_store_b128 off, v\[\d+:\d+\], s\d+", text)  # an SGPR offset
    rng = np.random.default_rng(8)
    a, b = rng.standard_normal((m, k)).astype(np.float32), rng.standard_normal((k, n)).astype(np.float32)
    c = np.zeros((m, n), np.float32)
    run(load("t.s", text), ck.metadata.name, (1,), (256,), [a, b, c, None, None], ["f32"] * 3 + [None, None],
        dynamic_lds=ck.metadata.shared)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    assert np.all(np.abs(c - ref) <= k * 2.0 ** -23 * (np.abs(a).astype(np.float64) @ np.abs(b)))


def test_a_code_object_is_read_back_by_llvms_tools(tmp_path, capsys):
    """Triton's .hsaco (its compiled.asm["hsaco"]): llvm-objdump's instructions and descriptor and
    llvm-readelf's metadata make the assembly the front reads; its C is right and the CLI times it
    as it times the .s Triton wrote beside it."""
    pytest.importorskip("triton")
    if not have_toolchain():
        pytest.skip("no LLVM tools")
    sys.path.insert(0, str(ROOT / "benchmarks"))
    os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
    from triton_compare import compile_matmul

    from gemmc.amdgcn.asm_front.code_object import assembly_of

    m, n, k = 67, 45, 53
    ck = compile_matmul("gfx942", (32, 32, 32, 4), (m, n, k), ("fp16", "fp16", "fp32"), (1, m, n, 1, n, 1), num_warps=4)
    hsaco, s_file = tmp_path / "k.hsaco", tmp_path / "k.s"
    hsaco.write_bytes(ck.asm["hsaco"])
    s_file.write_text(ck.asm["amdgcn"])
    text = assembly_of(str(hsaco))
    assert "\t.amdhsa_user_sgpr_count 12" in text  # 2 (kernarg pointer) + 10 preloaded, as the .s says
    assert "\t\t.amdhsa_user_sgpr_count 12" in ck.asm["amdgcn"]
    rng = np.random.default_rng(9)
    a_t, b = rng.standard_normal((k, m)).astype(np.float16), rng.standard_normal((k, n)).astype(np.float16)
    c = np.zeros((m, n), np.float32)
    run(load(str(hsaco), text), ck.metadata.name, (6,), (256,), [a_t, b, c, None, None],
        ["f16", "f16", "f32", None, None], dynamic_lds=ck.metadata.shared)
    assert np.all(np.abs(c - a_t.T.astype(np.float64) @ b.astype(np.float64)) <= _f16_bound(a_t.T, b))
    times = []
    for f in (hsaco, s_file):
        argv = ["explain", str(f), "--grid", "6", "--block", "256", "--arg", f"f16:{k}x{m}", "--arg", f"f16:{k}x{n}",
                "--arg", f"f32:{m}x{n}", "--arg", "null", "--arg", "null", "--mnk", f"{m},{n},{k}",
                "--dynamic-lds", str(ck.metadata.shared), "--json"]
        assert main(argv) == 0
        times.append(json.loads(capsys.readouterr().out)["time_s"])
    # the same instructions, but the object holds the `s_nop 0`s the assembler pads `.p2align`ed
    # loop heads with (run on the way in), which the front skips in the .s as directives
    assert times[0] == pytest.approx(times[1], rel=2e-2) and times[0] >= times[1]
