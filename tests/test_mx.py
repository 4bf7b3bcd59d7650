"""Block-scaled (MX) formats on gfx950: the language form (`C = A scaled SA @ B scaled SB`), its
located errors, the ml_dtypes reference numerics, the naive and tiled kernels and the lowering to
v_mfma_scale_* in the interpreter (with planted bugs that must FAIL), HIP for MXFP8 through clang,
and the f8f6f4 MFMAs (unscaled and v_mfma_scale_*) as data, layouts and lane-accurate semantics."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gemmc
from gemmc.driver import cli
from gemmc.target.arch import ARCHS, F8F6F4_FORMATS, Layout, Term, get_matrix_instr
from gemmc.support.arith_semantics import to_fp8
from gemmc.support.diagnostics import GemmcError
from gemmc.emit import fp6
from gemmc.interp.accuracy import PRECISION, UNIT_ROUNDOFF
from gemmc.interp.check import compare_runs, execute, host_function, matmul_spec, random_inputs, reference
from gemmc.interp.matrix import multiply

ROOT = Path(__file__).resolve().parents[1]
FORMATS = tuple(F8F6F4_FORMATS)
SCALED = ("v_mfma_scale_f32_16x16x128_f8f6f4", "v_mfma_scale_f32_32x32x64_f8f6f4")
UNSCALED = ("v_mfma_f32_16x16x128_f8f6f4", "v_mfma_f32_32x32x64_f8f6f4")


def source(a="f4e2m1fn", b="f4e2m1fn", k="96", sa="SA: f8e8m0fnu[M, K/32]", sb="SB: f8e8m0fnu[K/32, N]",
           assign="C = A scaled SA @ B scaled SB", extra=""):
    return (f"kernel mx {{\n  dim M = 257, N = 131, K = {k}\n  A: {a}[M, K]\n  {sa}\n  B: {b}[K, N]\n  {sb}\n"
            f"  C: f32[M, N]\n{extra}  {assign}\n}}\n")


def error_of(text: str, arch: str = "gfx950") -> str:
    with pytest.raises(GemmcError) as e:
        gemmc.parse(text, "mx.gemm", arch=arch)
    rendered = e.value.render()
    return rendered.splitlines()[0]


# -- the language -------------------------------------------------------------------------------


def test_scaled_product_in_the_gemm_ir():
    m = gemmc.parse(source(), "mx.gemm", arch="gfx950")
    text = gemmc.print_ir(m)
    assert "gemm.matmul %A, %B, %C scales %SA, %SB" in text
    assert 'memref<257x3xf8E8M0FNU> {gemm.dims = ["M", "K/32"]}' in text
    assert "memref<96x131xf4E2M1FN>" in text
    spec = matmul_spec(m)
    assert (spec.scale_a, spec.scale_b, spec.block) == (3, 4, 32)
    # the printed IR parses back
    assert "scales %SA, %SB" in gemmc.print_ir(gemmc.parse_ir(text))


def test_transposed_b_takes_scales_of_its_declared_dims():
    text = source(b="f6e3m2fn", sb="SB: f8e8m0fnu[N, K/32]", assign="C = A scaled SA @ B.T scaled SB")
    text = text.replace("B: f6e3m2fn[K, N]", "B: f6e3m2fn[N, K]")
    m = gemmc.parse(text, "mx.gemm", arch="gfx950")
    gemmc.lower(m, "gemm-to-kernel", "gfx950")
    assert gemmc.check(m, "gfx950").passed


@pytest.mark.parametrize("arch", ["gfx90a", "gfx942", "gfx1100", "gfx1201", "sm_90"])
def test_other_archs_refuse_mx_formats_naming_their_types(arch):
    err = error_of(source(), arch)
    assert err.startswith(f"mx.gemm:3:6: error: {arch} cannot do f4e2m1fn; its types: f32")
    assert "f4e2m1fn" not in err.split("its types:")[1]


def test_gfx1201_has_fp8_but_no_block_scaled_product():
    err = error_of(source(a="f8e4m3fn", b="f8e4m3fn"), "gfx1201")
    assert err == ("mx.gemm:8:16: error: gfx1201 has no block-scaled (MX) products (f8e8m0fnu scales); its types: "
                   "f32, f16, bf16, f8e4m3fn, f8e5m2")


@pytest.mark.parametrize("text,expected", [
    (source(k="100"), "mx.gemm:2:25: error: K = 100 is not a multiple of 32"),
    (source(sa="SA: f8e8m0fnu[M, K/16]"), "mx.gemm:4:22: error: a scale matrix's K dim is K/32"),
    (source(sa="SA: f8e8m0fnu[M, K]"), "mx.gemm:8:16: error: the scales 'SA' are [M, K]; 'A' [M, K] needs [M, K/32]"),
    (source(sb="SB: f8e8m0fnu[N, K/32]"), "mx.gemm:8:30: error: the scales 'SB' are [N, K/32]; 'B' [K, N] needs [K/32, N]"),
    (source(assign="C = A scaled SA @ B"), "mx.gemm:8:21: error: 'B' needs its scales too"),
    (source(assign="C = A @ B"), "mx.gemm:8:7: error: 'A' is f4e2m1fn, a block-scaled format: write 'A scaled SA'"),
    (source(sa="SA: f32[M, K/32]"), "mx.gemm:4:14: error: only a scale matrix (f8e8m0fnu) has a dim divided by 32"),
    (source(a="f16", b="f16"), "mx.gemm:3:6: error: 'A' is f16; a scaled operand must be one of f8e4m3fn"),
    (source(assign="C = A scaled SA @ B scaled SA"), "mx.gemm:8:30: error: the scales 'SA' are [M, K/32]; 'B' [K, N] needs [K/32, N]"),
    (source(extra="  acc f16\n"), "mx.gemm:9:16: error: a block-scaled product accumulates in f32, not f16"),
    (source(assign="C = SA @ B scaled SB"), "mx.gemm:8:7: error: 'SA' is a scale matrix"),
])
def test_located_errors(text, expected):
    assert error_of(text).startswith(expected)


def test_dynamic_k_is_refused_in_one_line():
    err = error_of(source().replace("K = 96", "K"))
    assert err.startswith("mx.gemm:2:25: error: a block-scaled product needs a static K (a multiple of 32)")


def test_cli_error_is_one_line(tmp_path, capsys):
    path = tmp_path / "bad.gemm"
    path.write_text(source(k="100"))
    assert cli.main(["run", str(path), "--arch", "gfx950"]) != 0
    err = capsys.readouterr().err.strip()
    assert err.splitlines()[0].endswith("error: K = 100 is not a multiple of 32: the block-scaled product scales "
                                        "blocks of 32 elements along K")
    assert "Traceback" not in err


# -- numerics ---------------------------------------------------------------------------------


def test_formats_come_from_ml_dtypes():
    assert [UNIT_ROUNDOFF[f] for f in ("f6e2m3fn", "f6e3m2fn", "f4e2m1fn")] == [2.0**-4, 2.0**-3, 2.0**-2]
    assert [PRECISION[f] for f in ("f6e2m3fn", "f6e3m2fn", "f4e2m1fn")] == [4, 3, 2]
    values = np.arange(16, dtype=np.uint8).view(ml_dtypes.float4_e2m1fn).astype(np.float64)
    assert sorted(set(np.abs(values))) == [0, 0.5, 1, 1.5, 2, 3, 4, 6]
    # E8M0: 2^(e - 127); 0xFF is NaN
    assert np.array([0x7F, 0x80, 0x00], np.uint8).view(ml_dtypes.float8_e8m0fnu).astype(np.float64).tolist() == \
        [1.0, 2.0, 2.0**-127]


def test_random_inputs_are_in_the_formats():
    m = gemmc.parse(source(), "mx.gemm", arch="gfx950")
    args = random_inputs(host_function(m), {}, 0)
    a, sa = args[0], args[3]
    assert set(np.abs(a.ravel())) <= {0, 0.5, 1, 1.5, 2, 3, 4, 6} and np.abs(a).max() == 6
    assert set(np.log2(sa.ravel())) <= set(range(-4, 5))


def test_reference_scales_each_block_of_32():
    m = gemmc.parse(source(), "mx.gemm", arch="gfx950")
    args = random_inputs(host_function(m), {}, 1)
    a, b, _, sa, sb = (x.astype(np.float64) for x in args)
    want = sum((a[:, q * 32:(q + 1) * 32] * sa[:, q:q + 1]) @ (b[q * 32:(q + 1) * 32] * sb[q:q + 1])
               for q in range(3))
    np.testing.assert_array_equal(reference(m, args), want)


# -- the naive kernel in the interpreter ----------------------------------------------------------


@pytest.mark.parametrize("example", ["mxfp4gemm", "mxfp6gemm", "mxfp8gemm"])
def test_examples_pass_at_257x131x96(example):
    m = gemmc.parse_file(str(ROOT / "examples" / f"{example}.gemm"), {"M": 257, "N": 131, "K": 96}, "gfx950")
    gemmc.lower(m, None, "gfx950")
    r = gemmc.check(m, "gfx950")
    assert r.passed, r.summary()
    assert r.exact is not None and r.exact.passed


def _lowered(text: str):
    m = gemmc.parse(text, "mx.gemm", arch="gfx950")
    gemmc.lower(m, "gemm-to-kernel", "gfx950")
    fn = host_function(m)
    return m, fn, matmul_spec(m, fn)


@pytest.mark.parametrize("which", ["a", "b"])
def test_a_wrong_scale_block_fails(which):
    """The kernel reads the scale of the next block (SA's / SB's blocks rotated by one):
    the check against the declared program must FAIL."""
    m, fn, spec = _lowered(source())
    arch = ARCHS["gfx950"]
    index = spec.scale_a if which == "a" else spec.scale_b
    axis = 1 if which == "a" else 0

    def bugged(args, stats):
        args[index] = np.ascontiguousarray(np.roll(args[index], 1, axis=axis))
        execute(m, fn.sym_name.data, args, arch, stats)

    r = compare_runs(m, fn, spec, {}, arch, 0, bugged)
    assert not r.passed and not r.declared.passed


def test_scales_left_out_fail():
    m, fn, spec = _lowered(source(a="f8e4m3fn", b="f8e5m2"))
    arch = ARCHS["gfx950"]

    def unscaled(args, stats):
        args[spec.scale_a] = np.ones_like(args[spec.scale_a])
        args[spec.scale_b] = np.ones_like(args[spec.scale_b])
        execute(m, fn.sym_name.data, args, arch, stats)

    assert not compare_runs(m, fn, spec, {}, arch, 0, unscaled).passed


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(m=st.integers(1, 40), n=st.integers(1, 40), blocks=st.integers(1, 3), a=st.sampled_from(FORMATS),
       b=st.sampled_from(FORMATS), seed=st.integers(0, 2**16))
def test_naive_kernel_matches_numpy_over_shapes(m, n, blocks, a, b, seed):
    text = source(a=a, b=b, k=str(32 * blocks)).replace("M = 257, N = 131", f"M = {m}, N = {n}")
    mod = gemmc.parse(text, "mx.gemm", arch="gfx950")
    gemmc.lower(mod, "gemm-to-kernel", "gfx950")
    r = gemmc.check(mod, "gfx950", seed=seed)
    assert r.passed, r.summary()


# -- through mfma-lowering to v_mfma_scale ---------------------------------------------------------

MX_TILED = "gemm-to-kernel,lds-tiling{{block-m={bm} block-n={bm} block-k=128}},register-tiling{{thread-m=4 thread-n=4}}"
# double-buffer's three stages after MX_TILED: LDS slots, staged through registers, one LDS slot
DOUBLE_BUFFERED = ("matrix-cores{frag-read=16},double-buffer,vectorize{width=16 peel=false}",
                   "matrix-cores{frag-read=16},vectorize{width=16 peel=false},double-buffer{stage=registers}",
                   "matrix-cores{frag-read=16},vectorize{width=16 peel=false},double-buffer{stage=registers lds-slots=1}")


def test_default_pipeline_uses_the_scaled_mfma():
    m = gemmc.parse_file(str(ROOT / "examples" / "mxfp4gemm.gemm"), {"M": 257, "N": 131, "K": 96}, "gfx950")
    gemmc.lower(m, None, "gfx950")
    text = gemmc.print_ir(m)
    assert "amdgpu.scaled_mfma" in text and "vector<32xf4E2M1FN>" in text
    assert "m = 16 : i32, n = 16 : i32, k = 128 : i32" in text  # MX_DEFAULTS' v_mfma_scale_f32_16x16x128_f8f6f4
    r = gemmc.check(m, "gfx950")
    assert r.passed and r.exact.passed, r.summary()
    assert r.stats.matrix_instrs > 0


@pytest.mark.parametrize("example", ["mxfp6gemm", "mxfp8gemm", "mxfp4gemm"])
def test_default_pipeline_bank_conflicts(example):
    """The MX default at rows a multiple of the copies' vector: fragment pieces of the copies' chunk
    (16 elements, FP4 32: LDS holds one code a byte), over the folded swizzle of the bank line: no
    LDS bank conflict (the interpreter's count)."""
    m = gemmc.parse_file(str(ROOT / "examples" / f"{example}.gemm"), {"M": 128, "N": 128, "K": 256}, "gfx950")
    gemmc.lower(m, None, "gfx950")
    r = gemmc.check(m, "gfx950")
    assert r.passed, r.summary()
    assert r.stats.lds_bank_conflicts == 0


@pytest.mark.parametrize("example,packed", [("mxfp4gemm", 0.5), ("mxfp6gemm", 0.75), ("mxfp8gemm", 1)])
def test_cost_model_counts_packed_global_bytes(example, packed):
    """FP4 and FP6 are packed in global memory (two FP4 codes a byte, FP6 6 bits an element) and
    unpacked in LDS: the cost model's global loads of A count packed bytes, its LDS stores a byte a
    code.  At 256^3 with 128-wide tiles each A element is loaded twice (N / block-n)."""
    from gemmc.cost.analysis import kernel_counts

    m = gemmc.parse_file(str(ROOT / "examples" / f"{example}.gemm"), {"M": 256, "N": 256, "K": 256}, "gfx950")
    gemmc.lower(m, None, "gfx950")
    _, c = kernel_counts(m, ARCHS["gfx950"], 1024, "test", print)
    load_a = sum(a.bytes for a in c.accesses if a.space == "global" and a.role == "load_a")
    assert load_a == 256 * 256 * 2 * packed
    assert c.lds_store_bytes == 2 * 256 * 256 * 2  # A and B, a byte a code


@pytest.mark.parametrize("passes", ["split-k{factor=2}", "stream-k{workgroups=3}", "multi-buffer,pipeline",
                                    "matrix-cores,split-k{factor=3}", "matrix-cores,stream-k{workgroups=5}"])
def test_k_loop_rewrites_keep_the_scales(passes):
    """split-k, stream-k and the multi-buffer / pipeline rewrites on a block-scaled kernel (FMAs
    and scaled MFMAs): each part of the K loop keeps its tiles' scales (PASS, exact on integers)."""
    mod = gemmc.parse(source(a="f6e2m3fn", b="f4e2m1fn", k="512"), "mx.gemm", arch="gfx950")
    gemmc.lower(mod, MX_TILED.format(bm=128) + "," + passes, "gfx950")
    r = gemmc.check(mod, "gfx950")
    assert r.passed and r.exact.passed, r.summary()


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(m=st.integers(1, 140), n=st.integers(1, 140), tiles=st.integers(1, 3), a=st.sampled_from(FORMATS),
       b=st.sampled_from(FORMATS), stage=st.sampled_from(DOUBLE_BUFFERED), seed=st.integers(0, 2**16))
def test_double_buffered_mx_kernel_matches_numpy_over_shapes(m, n, tiles, a, b, stage, seed):
    """double-buffer on a block-scaled kernel: each K tile's scales stay with its compute (the
    interpreter against the declared program in float64, and exactly on integer inputs)."""
    text = source(a=a, b=b, k=str(128 * tiles)).replace("M = 257, N = 131", f"M = {m}, N = {n}")
    mod = gemmc.parse(text, "mx.gemm", arch="gfx950")
    gemmc.lower(mod, MX_TILED.format(bm=128) + "," + stage, "gfx950")
    r = gemmc.check(mod, "gfx950", seed=seed)
    assert r.passed and r.exact.passed, r.summary()


@pytest.mark.parametrize("example", ["mxfp4gemm", "mxfp6gemm", "mxfp8gemm"])
@pytest.mark.parametrize("dims", [{"M": 128, "N": 128, "K": 256}, {"M": 130, "N": 131, "K": 256}])
def test_global_bytes_of_the_model_are_the_interpreters(example, dims):
    """The cost model's global load bytes are what the interpreter counts running the default
    kernel, packed FP4 / FP6 included (vector copies, and scalar ones where rows are odd)."""
    from gemmc.cost.analysis import kernel_counts

    m = gemmc.parse_file(str(ROOT / "examples" / f"{example}.gemm"), dims, "gfx950")
    gemmc.lower(m, None, "gfx950")
    _, c = kernel_counts(m, ARCHS["gfx950"], 1024, "test", print)
    r = gemmc.check(m, "gfx950")
    assert r.passed, r.summary()
    assert c.global_load_bytes == r.stats.global_load_bytes


@pytest.mark.parametrize("instr", SCALED)
@pytest.mark.parametrize("a,b", [("f4e2m1fn", "f4e2m1fn"), ("f8e4m3fn", "f8e5m2"), ("f6e2m3fn", "f6e3m2fn"),
                                 ("f6e3m2fn", "f4e2m1fn")])
def test_each_scaled_mfma_lowered_and_interpreted(instr, a, b):
    mod = gemmc.parse(source(a=a, b=b), "mx.gemm", arch="gfx950")
    gemmc.lower(mod, MX_TILED.format(bm=128) + f",mfma-lowering{{instr={instr}}}", "gfx950")
    r = gemmc.check(mod, "gfx950")
    assert r.passed and r.exact.passed, r.summary()


def permuted(mnemonic: str, **layouts):
    arch = ARCHS["gfx950"]
    instrs = tuple(dataclasses.replace(i, **layouts) if i.mnemonic == mnemonic else i for i in arch.matrix_instrs)
    return dataclasses.replace(arch, matrix_instrs=instrs)


@pytest.mark.parametrize("operand", ["sa", "sb"])
def test_scale_lanes_in_another_order_fail(operand):
    """A planted lane bug: the kernel passes each lane's scale by the true layout, the interpreter
    places the scales with lanes of two k-blocks swapped (still every block once): C is wrong."""
    name = SCALED[0]
    mod = gemmc.parse(source(), "mx.gemm", arch="gfx950")
    gemmc.lower(mod, MX_TILED.format(bm=128) + f",mfma-lowering{{instr={name}}}", "gfx950")
    assert gemmc.check(mod, "gfx950").passed
    swapped = (Term("lane", div=32, mod=2), Term("lane", div=16, mod=2, scale=2))  # blocks 0 1 2 3 -> 0 2 1 3
    other = (Term("lane", mod=16),)
    bad = {"sa": Layout(64, 1, row=other, col=swapped), "sb": Layout(64, 1, row=swapped, col=other)}[operand]
    r = gemmc.check(mod, permuted(name, **{operand: bad}))
    assert not r.passed, r.summary()


@pytest.mark.parametrize("pipeline", [None, *DOUBLE_BUFFERED])
def test_a_wrong_scale_block_in_the_mfma_kernel_fails(pipeline):
    """A planted bug in the lowered kernel (the default's, and double-buffered ones, whose compute
    reads the scales of its tile while the next tile's copies are in flight): its scale loads index
    blocks of 64 instead of 32."""
    from xdsl.dialects import arith

    from gemmc.transforms.contraction import role

    mod = gemmc.parse(source(k="384"), "mx.gemm", arch="gfx950")
    gemmc.lower(mod, pipeline and MX_TILED.format(bm=128) + "," + pipeline, "gfx950")
    changed = 0
    for op in list(mod.walk()):
        if role(op) == "load_sa":
            div = op.indices[-1].owner
            assert isinstance(div, arith.DivUIOp)
            div.operands[1] = arith.ConstantOp.from_int_and_width(64, div.operands[1].type).result
            div.parent_block().insert_op_before(div.operands[1].owner, div)
            changed += 1
    assert changed
    r = gemmc.check(mod, "gfx950")
    assert not r.passed and not r.declared.passed, r.summary()


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(m=st.integers(1, 70), n=st.integers(1, 70), blocks=st.integers(1, 5), a=st.sampled_from(FORMATS),
       b=st.sampled_from(FORMATS), seed=st.integers(0, 2**16))
def test_scaled_mfma_pipeline_matches_numpy_over_shapes(m, n, blocks, a, b, seed):
    text = source(a=a, b=b, k=str(32 * blocks)).replace("M = 257, N = 131", f"M = {m}, N = {n}")
    mod = gemmc.parse(text, "mx.gemm", arch="gfx950")
    gemmc.lower(mod, MX_TILED.format(bm=64) + ",matrix-cores", "gfx950")
    r = gemmc.check(mod, "gfx950", seed=seed)
    assert r.passed, r.summary()


def test_a_pass_not_declared_for_scales_refuses_a_scaled_kernel():
    """Every pass that reads the contraction takes scales today; the guard (gemmc.contraction's
    SCALED_PASSES) stays for the next one, which must say it writes them before it gets them."""
    from gemmc.transforms.contraction import analyze, working_kernels

    mod = gemmc.parse(source(), "mx.gemm", arch="gfx950")
    gemmc.lower(mod, MX_TILED.format(bm=128), "gfx950")
    kernel = next(iter(working_kernels(mod, "next-pass")))
    with pytest.raises(GemmcError) as e:
        analyze(kernel, "next-pass")
    assert "next-pass does not take block-scaled (MX) kernels yet" in e.value.message
    assert analyze(kernel, "double-buffer").scale_a is not None


def in_loop(asm: str, prefix: str) -> int:
    import re

    count, looping = 0, False
    for line in asm.splitlines():
        if re.match(r"^\.LBB\d+_\d+:", line):
            looping = "Loop" in line
        elif line.strip().startswith(prefix) and looping:
            count += 1
    return count


@pytest.mark.parametrize("a,b,mnemonic", [("f8e4m3fn", "f8e5m2", "v_mfma_scale_f32_16x16x128_f8f6f4"),
                                          ("f8e5m2", "f8e5m2", "v_mfma_scale_f32_16x16x128_f8f6f4")])
def test_mxfp8_compiles_with_the_scaled_mfma_in_the_k_loop(toolchain, a, b, mnemonic):
    from gemmc.target.toolchain import compile_device

    mod = gemmc.parse(source(a=a, b=b, k="1024").replace("M = 257, N = 131", "M = 1024, N = 1024"), "mx.gemm",
                      arch="gfx950")
    gemmc.lower(mod, None, "gfx950")
    hip = gemmc.emit(mod, "gfx950", "hip")
    assert f"__builtin_amdgcn_{mnemonic[2:]}(__builtin_bit_cast(v8int, a" in hip  # MX_DEFAULTS' MXFP8 instruction
    cbsz, blgp = F8F6F4_FORMATS[a], F8F6F4_FORMATS[b]
    assert f"c, {cbsz}, {blgp}, 0, __builtin_bit_cast(int, sa_vgpr), 0, __builtin_bit_cast(int, sb_vgpr));" in hip
    asm = compile_device(hip, "gfx950", "asm", toolchain=toolchain)
    assert in_loop(asm, mnemonic) > 0
    assert ".private_segment_fixed_size: 0" in asm and "scratch_" not in asm


def _one_line_error(capsys, *args: str) -> str:
    assert cli.main(["compile", *args]) != 0
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    return err


def test_fp6_vector_loads_other_than_16_are_refused_at_their_op(capsys):
    """4 FP6 elements are 3 bytes, fields across bytes: FP6 is read 16 elements (three whole
    words) or one at a time."""
    pipeline = (MX_TILED.format(bm=128) + ",matrix-cores,vectorize,launch-bounds{max-threads=256}")
    err = _one_line_error(capsys, str(ROOT / "examples" / "mxfp6gemm.gemm"), "--arch", "gfx950", "-p", pipeline)
    assert "vector.load of 4 FP6 elements from packed global memory is not emitted as HIP" in err
    assert "(at 'vector.load' in @mxfp6gemm)" in err


@pytest.mark.parametrize("example,width,load", [("mxfp6gemm", 16, "global_load_dwordx3"),
                                                ("mxfp4gemm", 32, "global_load_dwordx4")])
def test_sub_byte_vector_loads_are_whole_words(toolchain, example, width, load):
    """16 FP6 elements (12 bytes) and 32 FP4 elements (16 bytes) a lane from packed global memory:
    one load each in the ISA, the copies PASS in the interpreter, no scratch."""
    from gemmc.target.toolchain import compile_device

    pipeline = MX_TILED.format(bm=128) + f",matrix-cores,vectorize{{width={width}}},launch-bounds{{max-threads=256}}"
    m = gemmc.parse_file(str(ROOT / "examples" / f"{example}.gemm"), {"M": 130, "N": 96, "K": 256}, arch="gfx950")
    gemmc.lower(m, pipeline, "gfx950")
    assert f"vector<{width}x" in gemmc.print_ir(m)
    assert gemmc.check(m, "gfx950").passed
    asm = compile_device(gemmc.emit(m, "gfx950", "hip"), "gfx950", "asm", toolchain=toolchain)
    assert in_loop(asm, load) > 0 and ".private_segment_fixed_size: 0" in asm


@given(st.lists(st.integers(0, 63), min_size=16, max_size=16))
def test_fp6_vector_codes_read_the_packed_words(codes):
    """fp6.vector_codes (the HIP of a 16-element FP6 load) gives back the codes fp6.pack packed;
    a field cut one bit off does not."""
    words = np.frombuffer(fp6.pack(np.array([codes], np.uint8))[0].tobytes(), "<u4").astype(np.int64)
    assert [eval(c, {"w": words}) for c in fp6.vector_codes("w")] == codes
    planted = [c.replace(">> 6)", ">> 7)") for c in fp6.vector_codes("w")]
    if codes[1] != (codes[1] >> 1 | (codes[2] & 1) << 5):
        assert [eval(c, {"w": words}) for c in planted] != codes


def test_fp6_arithmetic_is_refused_at_its_op(capsys):
    err = _one_line_error(capsys, str(ROOT / "examples" / "mxfp6gemm.gemm"), "--arch", "gfx950", "-p", "step1")
    assert "arith.extf on f6E2M3FN is not emitted as HIP: FP4 and FP6 values" in err and "(at 'arith.extf'" in err


def _asm_operand_regs(asm: str, instr: str) -> list[int]:
    """The VGPRs of A and B (v[n:m]) in the first `instr` of the asm."""
    mfma = next(line for line in asm.splitlines() if line.strip().startswith(instr))
    return [int(r[r.index(":") + 1:-2]) - int(r[2:r.index(":")]) + 1 for r in mfma.split()[2:4]]


@pytest.mark.parametrize("dims,instr,b", [({}, "v_mfma_scale_f32_32x32x64_f8f6f4", "f6e3m2fn"),
                                          ({}, "v_mfma_scale_f32_16x16x128_f8f6f4", "f6e3m2fn"),
                                          ({"M": 257, "N": 131, "K": 96}, "v_mfma_scale_f32_32x32x64_f8f6f4",
                                           "f6e3m2fn"),
                                          ({"M": 257, "N": 131, "K": 96}, "v_mfma_scale_f32_32x32x64_f8f6f4",
                                           "f4e2m1fn")])
def test_mxfp6_compiles_with_the_scaled_mfma_in_the_k_loop(toolchain, dims, instr, b):
    """examples/mxfp6gemm.gemm (E2M3 x E3M2; at 1024^3 and the odd 257x131x96), with the
    16x16x128 instruction, and E2M3 x FP4: FP6's format codes in the builtin, 6 VGPRs an FP6
    operand in the asm (4 for FP4)."""
    from gemmc.target.toolchain import compile_device

    text = (ROOT / "examples" / "mxfp6gemm.gemm").read_text().replace("B: f6e3m2fn", f"B: {b}")
    mod = gemmc.parse(text, "mxfp6gemm.gemm", dims, arch="gfx950")
    pipeline = None if instr.startswith("v_mfma_scale_f32_32") else (
        MX_TILED.format(bm=128) + f",mfma-lowering{{instr={instr}}},launch-bounds{{max-threads=256}}")
    gemmc.lower(mod, pipeline, "gfx950")
    hip = gemmc.emit(mod, "gfx950", "hip")
    b_operand = "gemmc_fp6_operand(b" if b.startswith("f6") else "gemmc_fp4_operand(b"
    assert re.search(rf"__builtin_amdgcn_{instr[2:]}\(gemmc_fp6_operand\(a\w*\), {re.escape(b_operand)}", hip)
    cbsz, blgp = F8F6F4_FORMATS["f6e2m3fn"], F8F6F4_FORMATS[b]
    assert f", {cbsz}, {blgp}, 0, __builtin_bit_cast(int, sa_vgpr" in hip
    asm = compile_device(hip, "gfx950", "asm", toolchain=toolchain)
    assert in_loop(asm, instr) > 0 if not dims else instr in asm
    assert _asm_operand_regs(asm, instr) == [6, 6 if b.startswith("f6") else 4]
    assert f"cbsz:{cbsz} blgp:{blgp}" in next(line for line in asm.splitlines() if line.strip().startswith(instr))
    assert ".private_segment_fixed_size: 0" in asm and "scratch_" not in asm


@pytest.mark.parametrize("dims,instr", [({}, "v_mfma_scale_f32_32x32x64_f8f6f4"),
                                        ({}, "v_mfma_scale_f32_16x16x128_f8f6f4"),
                                        ({"M": 257, "N": 131, "K": 96}, "v_mfma_scale_f32_32x32x64_f8f6f4"),
                                        ({"M": 257, "N": 131, "K": 96}, "v_mfma_scale_f32_16x16x128_f8f6f4")])
def test_mxfp4_compiles_with_the_scaled_mfma_in_the_k_loop(toolchain, dims, instr):
    """examples/mxfp4gemm.gemm (1024^3, and the odd 257x131x96, whose one K tile leaves no loop)
    by the default pipeline (MX_DEFAULTS: 16x16x128), or with the 32x32x64 instruction: FP4's
    format code in the builtin, 4 VGPRs an operand in the asm."""
    from gemmc.target.toolchain import compile_device

    mod = gemmc.parse_file(str(ROOT / "examples" / "mxfp4gemm.gemm"), dims, "gfx950")
    pipeline = None if instr.startswith("v_mfma_scale_f32_16") else (
        MX_TILED.format(bm=128) + f",mfma-lowering{{instr={instr}}},launch-bounds{{max-threads=256}}")
    gemmc.lower(mod, pipeline, "gfx950")
    hip = gemmc.emit(mod, "gfx950", "hip")
    assert re.search(rf"__builtin_amdgcn_{instr[2:]}\(gemmc_fp4_operand\(a\w*\), gemmc_fp4_operand\(b", hip)
    assert ", 4, 4, 0, __builtin_bit_cast(int, sa_vgpr" in hip
    asm = compile_device(hip, "gfx950", "asm", toolchain=toolchain)
    assert in_loop(asm, instr) > 0 if not dims else instr in asm
    mfma = next(line for line in asm.splitlines() if line.strip().startswith(instr))
    regs = [r for r in mfma.split()[2:4]]  # A and B: v[n:n+3], FP4's 32 elements in 4 VGPRs
    assert all(int(r[r.index(":") + 1:-2]) - int(r[2:r.index(":")]) == 3 for r in regs), mfma
    assert "cbsz:4 blgp:4" in mfma
    assert ".private_segment_fixed_size: 0" in asm and "scratch_" not in asm


def test_fp4_arithmetic_is_refused_at_its_op(capsys):
    """The naive kernel converts FP4 to float: C would convert the code, not the value."""
    assert cli.main(["compile", str(ROOT / "examples" / "mxfp4gemm.gemm"), "--arch", "gfx950", "-p", "step1"]) != 0
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "arith.extf on f4E2M1FN is not emitted as HIP" in err and "(at 'arith.extf'" in err


# -- E8M0 scales on the FMA path (no scaled MFMA): the value 2^(code - 127), not the byte -----------


def _step_hip(pipeline: str) -> str:
    mod = gemmc.parse_file(str(ROOT / "examples" / "mxfp8gemm.gemm"), {}, "gfx950")
    gemmc.lower(mod, pipeline, "gfx950")
    return gemmc.emit(mod, "gfx950", "hip")


def _scale_expressions(hip: str) -> dict[str, str]:
    """The C expressions the FMA path's kernel multiplies A's and B's elements by, as functions
    of the scale byte `c`: `const float a_scaled = <A's element> * <scale of sa>;`."""
    found = dict(re.findall(r"const float ([ab])_scaled = __builtin_amdgcn_cvt_f32_(?:fp8|bf8)\(\(int\)\w+, 0\) \* (.*);",
                            hip))
    assert set(found) == {"a", "b"}, hip
    return {k: re.sub(rf"\bs{k}\b", "c", e) for k, e in found.items()}


def _host_cxx(toolchain) -> str:
    import shutil

    for cxx in (toolchain.clang, shutil.which("clang++"), shutil.which("g++")):
        if cxx:
            return cxx
    pytest.skip("no host C++ compiler")


def _values_of(toolchain, tmp_path: Path, hip: str, expr: str) -> np.ndarray:
    """`expr` (of the byte `c`) for c = 0..255, compiled with the file's helper functions by a
    host C++ compiler and run: the float bits of each."""
    import subprocess

    helpers = hip[hip.index("#define GEMMC_HOST_CODE 1"):hip.index("// ---- Kernels")].split("\n", 2)[2]
    prog = tmp_path / "e8m0.cpp"
    prog.write_text("#include <cstdio>\n#include <cstring>\n#define __device__\n" + helpers
                    + f"\nstatic float value(unsigned char c) {{ return {expr}; }}\n"
                    "int main() { for (int c = 0; c < 256; ++c) { float f = value((unsigned char)c); unsigned u;"
                    " std::memcpy(&u, &f, 4); std::printf(\"%08x\\n\", u); } }\n")
    exe = tmp_path / "e8m0"
    cxx = _host_cxx(toolchain)
    build = subprocess.run([cxx, "-x", "c++", "-std=c++20", "-O1", str(prog), "-o", str(exe)],
                           capture_output=True, text=True, timeout=120)
    assert build.returncode == 0, build.stderr
    out = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60, check=True).stdout
    return np.array([int(w, 16) for w in out.split()], np.uint32).view(np.float32)


def _matches_ml_dtypes(values: np.ndarray) -> bool:
    want = np.arange(256, dtype=np.uint8).view(ml_dtypes.float8_e8m0fnu).astype(np.float32)
    assert np.isnan(want[255]) and want[127] == 1.0 and want[0] == 2.0**-127 and want[254] == 2.0**127
    return len(values) == 256 and np.array_equal(values, want, equal_nan=True)


def test_e8m0_scales_convert_to_their_values_for_all_codes(toolchain, tmp_path):
    """The scale the step1 kernel multiplies by, compiled and run for every byte, is
    ml_dtypes.float8_e8m0fnu's value: 2^(c - 127) (code 0: 2^-127, a subnormal), 255 NaN.
    The byte converted as a number, `(float)sa` (the bug this replaced), fails the same check."""
    hip = _step_hip("step1")
    exprs = _scale_expressions(hip)
    for expr in dict.fromkeys(exprs.values()):
        assert _matches_ml_dtypes(_values_of(toolchain, tmp_path, hip, expr)), expr
    assert not _matches_ml_dtypes(_values_of(toolchain, tmp_path, hip, "(float)c"))  # a planted bug


@pytest.mark.parametrize("pipeline", ["step1", "step3"])
def test_mxfp8_fma_path_compiles_with_the_e8m0_conversion(toolchain, pipeline):
    """examples/mxfp8gemm.gemm without the scaled MFMA (step1: naive, step3: LDS and register
    tiles) compiles for gfx950; its scales go through gemmc_e8m0_to_float, no C cast of a byte."""
    from gemmc.target.toolchain import compile_device

    hip = _step_hip(pipeline)
    assert "* gemmc_e8m0_to_float(sa" in hip and "* gemmc_e8m0_to_float(sb" in hip
    assert not re.search(r"\(float\)s[ab]\b", hip)
    asm = compile_device(hip, "gfx950", "asm", toolchain=toolchain)
    assert "v_cvt_f32_fp8" in asm and "v_cvt_f32_bf8" in asm


@pytest.mark.parametrize("arch,reads", [("gfx942", "f8e4m3fnuz, f8e5m2fnuz")])
def test_fp8_conversion_for_an_arch_of_other_formats_is_refused(arch, reads):
    """The conversion builtins read the arch's own FP8 formats (gfx942: FNUZ): OCP bytes emitted for
    gfx942 (gemmc.emit on IR, without the CLI's dtype check) would be converted as another format
    (sm_90 converts OCP bytes by inline PTX and refuses FNUZ ones: tests/test_sm90_fp8.py)."""
    mod = gemmc.parse_file(str(ROOT / "examples" / "mxfp8gemm.gemm"), {}, "gfx950")
    gemmc.lower(mod, "step1", "gfx950")
    with pytest.raises(GemmcError) as e:
        gemmc.emit(mod, arch, "hip")
    assert e.value.message.startswith(f"emit-hip: arith.extf on f8E4M3FN is not emitted as HIP for {arch}: "
                                      f"its FP8 conversions read {reads}"), e.value.message
    assert "(at 'arith.extf' in @mxfp8gemm)" in e.value.render()


def _byte_kernel(body: str, types: str = "memref<4xf8E8M0FNU>, memref<4xf8E4M3FN>, memref<4xf32>") -> str:
    return ('builtin.module attributes {gpu.container_module} {\n  "gpu.module"() <{sym_name = "k"}> ({\n'
            f'    "gpu.func"() <{{function_type = ({types}) -> (), kernel}}> ({{\n'
            f"    ^bb0(%S: memref<4xf8E8M0FNU>, %A: memref<4xf8E4M3FN>, %C: memref<4xf32>):\n"
            "      %i = arith.constant 0 : index\n" + body +
            '      "gpu.return"() : () -> ()\n    }) {sym_name = "k"} : () -> ()\n  }) : () -> ()\n}\n')


def test_e8m0_and_fp8_constants_are_their_codes():
    """A constant of a byte format is its code (E8M0 2.0: 128, 2^-127: 0, NaN: 255; E4M3 0.5:
    0x30), not the number."""
    body = "".join(f"      %c{i} = arith.constant {v} : {t}\n      memref.store %c{i}, %{m}[%i] : memref<4x{t}>\n"
                   for i, (v, t, m) in enumerate([("2.0", "f8E8M0FNU", "S"), ("0x00", "f8E8M0FNU", "S"),
                                                  ("0xFF", "f8E8M0FNU", "S"), ("0.5", "f8E4M3FN", "A")]))
    hip = gemmc.emit(gemmc.parse_ir(_byte_kernel(body)), "gfx950", "hip")
    stores = re.findall(r"([SA])\[i\] = \(unsigned char\)(\d+);", hip)
    assert stores == [("S", "128"), ("S", "0"), ("S", "255"), ("A", "48")], hip


@pytest.mark.parametrize("body,expected", [
    ("      %a = memref.load %A[%i] : memref<4xf8E4M3FN>\n      %m = arith.mulf %a, %a : f8E4M3FN\n",
     "arith.mulf on f8E4M3FN is not emitted as HIP: FP8 and E8M0 values are their bytes in C"),
    ("      %s = memref.load %S[%i] : memref<4xf8E8M0FNU>\n      %m = arith.cmpf olt, %s, %s : f8E8M0FNU\n",
     "arith.cmpf on f8E8M0FNU is not emitted as HIP: FP8 and E8M0 values are their bytes in C"),
    ("      %x = memref.load %C[%i] : memref<4xf32>\n      %t = arith.truncf %x : f32 to f8E8M0FNU\n",
     "arith.truncf f32 -> f8E8M0FNU is not emitted as HIP (E8M0 scales are only converted to f32"),
])
def test_byte_formats_computed_on_as_numbers_are_refused_at_the_op(body, expected):
    with pytest.raises(GemmcError) as e:
        gemmc.emit(gemmc.parse_ir(_byte_kernel(body)), "gfx950", "hip")
    assert expected in e.value.message and len(e.value.render().splitlines()) == 1


# -- the packed FP4 layout: the kernel's reads and the host's packer agree -------------------------


FP4_DIMS = {"M": 5, "N": 131, "K": 96}


def _emitted_fp4_loads(static: bool, fmt: str = "f4e2m1fn", n: int = 131) -> dict[str, str]:
    """The C expressions a kernel with scalar copies reads A's and B's elements with (static
    dims, or dynamic M and N: B's rows are then (N + 1) / 2 bytes for FP4), both of `fmt`."""
    import re

    dims = f"M = 5, N = {n}, K = 96" if static else "M, N, K = 96"
    text = source(a=fmt, b=fmt).replace("M = 257, N = 131, K = 96", dims)
    mod = gemmc.parse(text, "mx.gemm", arch="gfx950")
    gemmc.lower(mod, MX_TILED.format(bm=128) + ",matrix-cores,launch-bounds{max-threads=256}", "gfx950")
    hip = gemmc.emit(mod, "gfx950", "hip")
    loads = dict(re.findall(r"= (\(+([AB])\[[^;]*);", hip))
    return {name: expr.replace("_1", "") for expr, name in loads.items()}


def _reads_back(expr: str, name: str, packed: np.ndarray, codes: np.ndarray, dims=FP4_DIMS) -> bool:
    """Whether the C expression, evaluated at every element as Python (its int division by
    //; C's int promotion by int64), reads `codes`.  A byte read past the matrix's last raises
    IndexError."""
    flat, py = packed.reshape(-1).astype(np.int64), expr.replace(" / ", " // ")
    got = np.array([[eval(py, {name: flat, "g0": r, "g1": c, **dims}) for c in range(codes.shape[1])]
                    for r in range(codes.shape[0])])
    return np.array_equal(got, codes)


def _fp4_codes(rng, shape) -> np.ndarray:
    values = rng.choice([0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0], size=shape) * rng.choice([-1, 1], size=shape)
    return values.astype(ml_dtypes.float4_e2m1fn).view(np.uint8)


@pytest.mark.parametrize("static", [True, False])
def test_the_kernels_fp4_loads_read_what_the_packer_writes(static):
    """The emitted nibble expressions, run on gemmc.emit.fp4.pack's bytes (odd B rows of 131:
    66 bytes, padded), read every element back; the same bytes with nibbles swapped do not."""
    from gemmc.emit import fp4

    rng = np.random.default_rng(0)
    loads = _emitted_fp4_loads(static)
    assert set(loads) == {"A", "B"}
    assert ("(N + 1) / 2" in loads["B"]) != static
    for name, shape in (("A", (FP4_DIMS["M"], FP4_DIMS["K"])), ("B", (3, FP4_DIMS["N"]))):
        codes = _fp4_codes(rng, shape)
        packed = fp4.pack(codes)
        assert packed.shape == (shape[0], fp4.row_bytes(shape[1]))
        assert np.array_equal(fp4.unpack(packed, shape[1]), codes)
        assert _reads_back(loads[name], name, packed, codes)
        swapped = (packed >> 4) | (packed << 4)  # a planted layout bug: element 2j high
        assert not _reads_back(loads[name], name, swapped, codes)


def test_fp4_pack_refuses_what_is_no_code():
    from gemmc.emit import fp4

    with pytest.raises(ValueError):
        fp4.pack(np.array([[16]], np.uint8))


def test_fp4_mfma_operand_packs_element_e_at_bits_4e():
    """gemmc_fp4_operand's arithmetic (fp4.operand_words) puts each lane's element e where the
    instruction's layout says (gemmc.driver.layout: gpr, bit_lo); a nibble swap fails the check."""
    from gemmc.emit import fp4
    from gemmc.driver.layout import rows

    instr = get_matrix_instr(ARCHS["gfx950"], "v_mfma_scale_f32_32x32x64_f8f6f4").with_formats("f4e2m1fn", "f4e2m1fn")
    assert (instr.cbsz, instr.blgp, instr.a_regs) == (fp4.FORMAT_CODE, fp4.FORMAT_CODE, 4)
    place = {(r.row, r.col): (r.gpr, r.bit_lo) for r in rows(instr) if r.matrix == "A" and r.lane == 5}
    at = [instr.a.at(5, e)[1:] for e in range(32)]  # the (row, k) of the IR vector's element e in lane 5
    codes = _fp4_codes(np.random.default_rng(1), 32)

    def places(words) -> bool:
        return all((int(words[place[rc][0]]) >> place[rc][1]) & 15 == codes[e] for e, rc in enumerate(at))

    words = fp4.operand_words(codes)
    assert places(words)
    assert not places(((words >> 4) & 0x0F0F0F0F) | ((words & 0x0F0F0F0F) << 4))


# -- the packed FP6 layout: the kernel's reads and the host's packer agree -------------------------


def _fp6_codes(rng, fmt: str, shape) -> np.ndarray:
    """Every code of the format, at random: ml_dtypes' bytes (the low 6 bits)."""
    values = rng.integers(0, 64, size=shape, dtype=np.uint8).view(getattr(ml_dtypes, f"float6_{fmt[2:]}"))
    codes = values.astype(np.float32).astype(values.dtype).view(np.uint8)
    assert codes.max() < 64
    return codes


def _fp6_reads(name: str, expr: str, packed: np.ndarray, codes: np.ndarray, n: int) -> bool:
    """_reads_back, where a read past the matrix's last byte (IndexError) is a failed read."""
    try:
        return _reads_back(expr, name, packed, codes, {**FP4_DIMS, "N": n})
    except IndexError:
        return False


@pytest.mark.parametrize("static", [True, False])
@pytest.mark.parametrize("fmt", ["f6e2m3fn", "f6e3m2fn"])
def test_the_kernels_fp6_loads_read_what_the_packer_writes(static, fmt):
    """The emitted bit-field expressions, run on gemmc.emit.fp6.pack's bytes, exactly as long as
    the matrix (rows of ceil(6n / 8) bytes: N = 129 .. 132 gives every row end), read every
    element back without reading past the last byte; bytes with each group's three in the wrong
    order, or an expression that never reads the field's second byte, do not."""
    from gemmc.emit import fp6

    rng = np.random.default_rng(2)
    cases = [("A", 96, 5)] + [("B", n, 3) for n in ((131,) if static else (129, 130, 131, 132))]
    loads = _emitted_fp4_loads(static, fmt)
    assert set(loads) == {"A", "B"}
    assert ("(N * 3 + 3) / 4" in loads["B"]) != static
    for name, n, rows_ in cases:
        codes = _fp6_codes(rng, fmt, (rows_, n))
        packed = fp6.pack(codes)
        assert packed.shape == (rows_, fp6.row_bytes(n)) and fp6.row_bytes(n) == -(-6 * n // 8)
        assert np.array_equal(fp6.unpack(packed, n), codes)
        assert _fp6_reads(name, loads[name], packed, codes, n)
        big_endian = packed[:, : n * 3 // 4 // 3 * 3].reshape(rows_, -1, 3)[..., ::-1].reshape(rows_, -1)
        wrong = np.concatenate([big_endian, packed[:, big_endian.shape[1]:]], axis=1)  # a planted layout bug
        assert not _fp6_reads(name, loads[name], wrong, codes, n)
        no_span = loads[name].replace("& 7) > 2)", "& 7) > 7)")  # a planted bug: only the first byte read
        assert no_span != loads[name] and not _fp6_reads(name, no_span, packed, codes, n)


def test_fp6_pack_is_the_little_endian_bit_stream():
    """Element j at bits 6j .. 6j + 5 of its row's bits (numpy's little-endian bit order)."""
    from gemmc.emit import fp6

    codes = _fp6_codes(np.random.default_rng(3), "f6e2m3fn", (2, 7))
    bits = np.unpackbits(fp6.pack(codes), axis=-1, bitorder="little")
    assert bits.shape == (2, 48)  # 42 bits, rows of 6 bytes
    fields = bits[:, :42].reshape(2, 7, 6) << np.arange(6)
    assert np.array_equal(fields.sum(-1), codes) and not bits[:, 42:].any()


def test_fp6_pack_refuses_what_is_no_code():
    from gemmc.emit import fp6

    with pytest.raises(ValueError):
        fp6.pack(np.array([[64]], np.uint8))


@pytest.mark.parametrize("fmt", ["f6e2m3fn", "f6e3m2fn"])
def test_fp6_mfma_operand_packs_element_e_at_bits_6e(fmt):
    """gemmc_fp6_operand's arithmetic (fp6.operand_words) puts each lane's element e where the
    instruction's layout says (gemmc.driver.layout: gpr, bit_lo, running on into the next VGPR past
    bit 31); the words in another order fail the check."""
    from gemmc.emit import fp6
    from gemmc.driver.layout import rows

    instr = get_matrix_instr(ARCHS["gfx950"], "v_mfma_scale_f32_32x32x64_f8f6f4").with_formats(fmt, fmt)
    assert (instr.cbsz, instr.blgp, instr.a_regs, instr.b_regs) == (fp6.FORMAT_CODES[fmt],) * 2 + (6, 6)
    place = {(r.row, r.col): (r.gpr, r.bit_lo, r.bit_hi) for r in rows(instr) if r.matrix == "A" and r.lane == 5}
    assert any(hi > 31 for _, _, hi in place.values())  # FP6 fields cross VGPRs
    at = [instr.a.at(5, e)[1:] for e in range(32)]  # the (row, k) of the IR vector's element e in lane 5
    codes = _fp6_codes(np.random.default_rng(4), fmt, 32)

    def places(words) -> bool:
        stream = int.from_bytes(np.asarray(words, "<u4").tobytes(), "little")
        return all(stream >> 32 * place[rc][0] + place[rc][1] & 63 == codes[e] for e, rc in enumerate(at))

    words = fp6.operand_words(codes)
    assert len(words) == 6 and places(words)
    assert not places(words[[1, 0, 2, 3, 4, 5]])


# -- the f8f6f4 MFMAs -------------------------------------------------------------------------------


def test_instructions_are_data_of_gfx950_only():
    names = {i.mnemonic for i in ARCHS["gfx950"].matrix_instrs}
    assert set(SCALED + UNSCALED) <= names
    for arch in ("gfx90a", "gfx942", "gfx1100", "gfx1201"):
        assert not any("f8f6f4" in i.mnemonic for i in ARCHS[arch].matrix_instrs)
    instr = get_matrix_instr(ARCHS["gfx950"], SCALED[0])
    assert (instr.m, instr.n, instr.k, instr.scale_block, instr.a.items) == (16, 16, 128, 32, 32)
    regs = {f: instr.with_formats(f, f).a_regs for f in FORMATS}
    assert regs == {"f8e4m3fn": 8, "f8e5m2": 8, "f6e2m3fn": 6, "f6e3m2fn": 6, "f4e2m1fn": 4}
    assert [instr.with_formats(f, "f4e2m1fn").cbsz for f in FORMATS] == [0, 1, 2, 3, 4]
    assert instr.with_formats("f8e4m3fn", "f6e3m2fn").blgp == 3


def test_fp8_kernels_keep_their_fp8_mfma_on_gfx950():
    m = gemmc.parse_file(str(ROOT / "examples" / "fp8gemm.gemm"), {"M": 64, "N": 64, "K": 64})
    text = gemmc.print_ir(m).replace("f8E4M3FNUZ", "f8E4M3FN")
    m = gemmc.parse_ir(text)
    gemmc.lower(m, "step7", "gfx950")
    assert "k = 16 : i32" in gemmc.print_ir(m) or "k = 32 : i32" in gemmc.print_ir(m)


@pytest.mark.parametrize("name", SCALED + UNSCALED)
def test_each_lane_holds_one_mx_block(name):
    """Lane i + m*g holds row i, k 32g .. 32g+31 (one MX block), and for the scaled forms the
    scale of exactly that block: row i, block g."""
    instr = get_matrix_instr(ARCHS["gfx950"], name)
    for lane in range(64):
        _, row, k0 = instr.a.at(lane, 0)
        assert (row, k0) == (lane % instr.m, 32 * (lane // instr.m))
        assert [instr.a.at(lane, q)[2] for q in range(32)] == list(range(k0, k0 + 32))
        if instr.scale_block:
            assert instr.sa.at(lane, 0)[1:] == (row, k0 // 32)
            _, kb, col = instr.b.at(lane, 0)
            assert instr.sb.at(lane, 0)[1:] == (kb // 32, col)


def test_layout_prints_formats_and_scales(capsys):
    assert cli.main(["layout", SCALED[0], "--arch", "gfx950", "--types", "f4e2m1fn,f6e2m3fn", "--csv"]) == 0
    rows = [r.split(",") for r in capsys.readouterr().out.splitlines()[1:]]
    a = [r for r in rows if r[0] == "A" and r[2] == "0" and r[3] in ("7", "8")]
    assert [r[4:] for r in a] == [["0", "0", "28", "31"], ["1", "0", "0", "3"]]  # FP4: 8 per VGPR
    b = [r for r in rows if r[0] == "B" and r[2] == "5" and r[3] == "0"]
    assert b[0][4:] == ["0", "0", "30", "35"]  # FP6: element 5 runs into the next VGPR
    sa = [r for r in rows if r[0] == "SA"]
    assert len(sa) == 64 and ["SA", "0", "3", "2", "0", "35", "0", "7"] in sa
    assert cli.main(["layout", SCALED[1], "--arch", "gfx950"]) == 0
    out = capsys.readouterr().out
    assert "cbsz = 0, blgp = 0" in out and "scales of A[i][k-block of 32]" in out
    assert cli.main(["layout", SCALED[0], "--arch", "gfx950", "--types", "f16,f16"]) == 2
    assert "takes two of f8e4m3fn, f8e5m2, f6e2m3fn, f6e3m2fn, f4e2m1fn" in capsys.readouterr().err


def scatter(layout: Layout, mat: np.ndarray) -> np.ndarray:
    lanes = np.arange(layout.lanes)[:, None]
    items = np.arange(layout.items)[None, :]
    shape = (layout.lanes, layout.items)
    _, r, c = (np.broadcast_to(np.asarray(x), shape) for x in layout.at(lanes, items))
    return mat[:, r, c]


def scaled_case(instr, a_fmt, b_fmt, idx, seed=0, waves=2):
    """Random A, B (in their formats), E8M0 scales and C; the per-lane operands, the scale
    VGPRs (the lane's scale in byte `idx`, other bytes garbage) and the expected D."""
    rng = np.random.default_rng(seed)
    m, n, k, q = instr.m, instr.n, instr.k, instr.scale_block
    a = to_fp8(rng.uniform(-4, 4, (waves, m, k)), a_fmt)
    b = to_fp8(rng.uniform(-4, 4, (waves, k, n)), b_fmt)
    sa = 2.0 ** rng.integers(-3, 4, (waves, m, k // q))
    sb = 2.0 ** rng.integers(-3, 4, (waves, k // q, n))
    c = rng.uniform(-1, 1, (waves, m, n)).astype(np.float32)
    va, vb = (np.full((waves, 64, 4), 2.0**20, np.float32) for _ in range(2))
    va[..., idx[0]] = scatter(instr.sa, sa)[..., 0]
    vb[..., idx[1]] = scatter(instr.sb, sb)[..., 0]
    want = (a * np.repeat(sa, q, axis=2)) @ (b * np.repeat(sb, q, axis=1)) + c
    return (scatter(instr.a, a), scatter(instr.b, b), scatter(instr.d, c), va, vb), want


def gathered(instr, d: np.ndarray) -> np.ndarray:
    lanes = np.arange(64)[:, None]
    items = np.arange(instr.d.items)[None, :]
    _, r, col = (np.broadcast_to(np.asarray(x), (64, instr.d.items)) for x in instr.d.at(lanes, items))
    got = np.zeros((d.shape[0], instr.m, instr.n))
    got[:, r, col] = d
    return got


@pytest.mark.parametrize("name", SCALED)
@pytest.mark.parametrize("a_fmt,b_fmt", [(f, f) for f in FORMATS] + [("f4e2m1fn", "f8e5m2"), ("f6e2m3fn", "f4e2m1fn")])
def test_scaled_mfma_matches_numpy(name, a_fmt, b_fmt):
    instr = get_matrix_instr(ARCHS["gfx950"], name).with_formats(a_fmt, b_fmt)
    (a, b, c, va, vb), want = scaled_case(instr, a_fmt, b_fmt, (2, 1))
    d = multiply(instr, a, b, c, (va, 2, vb, 1))
    np.testing.assert_allclose(gathered(instr, d), want, rtol=1e-6, atol=1e-5)


@pytest.mark.parametrize("name", SCALED)
def test_scaled_mfma_planted_bugs_give_a_wrong_d(name):
    instr = get_matrix_instr(ARCHS["gfx950"], name).with_formats("f4e2m1fn", "f4e2m1fn")
    (a, b, c, va, vb), want = scaled_case(instr, "f4e2m1fn", "f4e2m1fn", (0, 3))
    ok = gathered(instr, multiply(instr, a, b, c, (va, 0, vb, 3)))
    np.testing.assert_allclose(ok, want, rtol=1e-6, atol=1e-5)
    # the scale of the wrong byte (op_sel)
    assert not np.allclose(gathered(instr, multiply(instr, a, b, c, (va, 1, vb, 3))), want)
    # two lanes' scales swapped (lane 0 and the lane of the next k-block)
    swapped = va.copy()
    swapped[:, [0, instr.m]] = swapped[:, [instr.m, 0]]
    assert not np.allclose(gathered(instr, multiply(instr, a, b, c, (swapped, 0, vb, 3))), want)
    # a scale layout that places the lanes' scales by the wrong k-block
    wrong = dataclasses.replace(instr, sa=Layout(64, 1, row=(Term("lane", mod=instr.m),),
                                                 col=(Term("lane", div=instr.m * (64 // instr.m) // 2, mod=2),
                                                      Term("lane", div=instr.m, mod=64 // instr.m // 2, scale=2))))
    if wrong.sa.at(instr.m, 0) != instr.sa.at(instr.m, 0):
        assert not np.allclose(gathered(wrong, multiply(wrong, a, b, c, (va, 0, vb, 3))), want)


@pytest.mark.parametrize("name", UNSCALED)
def test_unscaled_f8f6f4_mfma_of_two_formats(name):
    instr = get_matrix_instr(ARCHS["gfx950"], name).with_formats("f6e3m2fn", "f8e4m3fn")
    rng = np.random.default_rng(5)
    a = to_fp8(rng.uniform(-8, 8, (1, instr.m, instr.k)), "f6e3m2fn")
    b = to_fp8(rng.uniform(-8, 8, (1, instr.k, instr.n)), "f8e4m3fn")
    c = np.zeros((1, instr.m, instr.n), np.float32)
    d = multiply(instr, scatter(instr.a, a), scatter(instr.b, b), scatter(instr.d, c))
    np.testing.assert_allclose(gathered(instr, d), a @ b, rtol=1e-6, atol=1e-5)


def test_explain_counts_the_scaled_mfmas(capsys):
    """explain of a block-scaled product: the default row names its pipeline and the cost model
    counts amdgpu.scaled_mfma as matrix instructions (the passes without scales are skipped)."""
    assert cli.main(["explain", str(ROOT / "examples" / "mxfp8gemm.gemm"), "--arch", "gfx950",
                     "-D", "M=256", "-D", "N=256", "-D", "K=256"]) == 0
    out = capsys.readouterr().out
    default = next(line for line in out.splitlines() if line.startswith("default"))
    # the MFMA column: 2 * 256^3 flops / (2 * 16 * 16 * 128) per v_mfma_scale_f32_16x16x128 = 512 of them
    assert default.split()[15] == "512", default
    assert "selected: the block-scaled (MX) pipeline" in out
    assert any(line.startswith("step4") for line in out.splitlines())  # double-buffer takes the scales


def test_a_scaled_mfma_asked_for_an_unscaled_kernel_is_refused():
    m = gemmc.parse_file(str(ROOT / "examples" / "fp8gemm.gemm"), {"M": 64, "N": 64, "K": 128})
    m = gemmc.parse_ir(gemmc.print_ir(m).replace("f8E4M3FNUZ", "f8E4M3FN"))
    with pytest.raises(GemmcError) as e:
        gemmc.lower(m, MX_TILED.format(bm=128) + f",mfma-lowering{{instr={SCALED[0]}}}", "gfx950")
    assert e.value.message.startswith(f"mfma-lowering: {SCALED[0]} multiplies block-scaled operands; the kernel "
                                      "has no scales (v_mfma_f32_16x16x128_f8f6f4 takes unscaled ones)")


@pytest.mark.parametrize("b_type,instr", [("f8E4M3FN", UNSCALED[0]), ("f8E5M2", UNSCALED[1])])
def test_the_unscaled_f8f6f4_mfma_prints_as_its_scaled_builtin_with_zero_scales(toolchain, b_type, instr):
    """An FP8 kernel lowered with an unscaled f8f6f4 MFMA runs in the interpreter, and its HIP
    calls the scaled builtin with op_sel and scales 0 (clang has no unscaled one), which clang
    selects as the unscaled instruction."""
    from gemmc.target.toolchain import compile_device

    m = gemmc.parse_file(str(ROOT / "examples" / "fp8gemm.gemm"), {"M": 70, "N": 45, "K": 200})
    text = gemmc.print_ir(m).replace("f8E4M3FNUZ", "f8E4M3FN")
    text = text.replace("memref<200x45xf8E4M3FN>", f"memref<200x45x{b_type}>")
    m = gemmc.parse_ir(text)
    gemmc.lower(m, MX_TILED.format(bm=64) + f",mfma-lowering{{instr={instr}}}", "gfx950")
    assert gemmc.check(m, "gfx950").passed
    hip = gemmc.emit(m, "gfx950", "hip")
    blgp = F8F6F4_FORMATS[b_type.lower()]
    builtin = instr.replace("v_mfma_f32_", "__builtin_amdgcn_mfma_scale_f32_")
    assert f"{builtin}(__builtin_bit_cast(v8int, a), __builtin_bit_cast(v8int, b), c, 0, {blgp}, 0, 0, 0, 0)" in hip
    asm = compile_device(hip, "gfx950", "asm", toolchain=toolchain)
    assert f"\t{instr} v[" in asm and "v_mfma_scale" not in asm


@pytest.mark.parametrize("a_col_major,b_t", [(True, True), (True, False), (False, True)])
def test_stored_layouts_through_the_default_pipeline(a_col_major, b_t):
    """A column-major A (and its scales, stored the same way) and a transposed B ([N, K], scales
    [N, K/32]): the declared dims say where K is; the default pipeline PASSes."""
    a_layout = " col_major" if a_col_major else ""
    b_decl, sb_decl, b_use = ("B: f4e2m1fn[N, K]", "SB: f8e8m0fnu[N, K/32]", "B.T") if b_t else \
        ("B: f4e2m1fn[K, N]", "SB: f8e8m0fnu[K/32, N]", "B")
    text = (f"kernel mxt {{\n  dim M = 77, N = 50, K = 160\n  A: f6e3m2fn[M, K]{a_layout}\n"
            f"  SA: f8e8m0fnu[M, K/32]{a_layout}\n  {b_decl}\n  {sb_decl}\n  C: f32[M, N]\n"
            f"  C = A scaled SA @ {b_use} scaled SB\n}}\n")
    m = gemmc.parse(text, "mxt.gemm", arch="gfx950")
    gemmc.lower(m, None, "gfx950")
    assert "amdgpu.scaled_mfma" in gemmc.print_ir(m)
    r = gemmc.check(m, "gfx950")
    assert r.passed and r.exact.passed, r.summary()
    if a_col_major:  # scales in another layout than their operand: refused at the scales
        with pytest.raises(GemmcError) as e:
            gemmc.parse(text.replace("K/32] col_major", "K/32]"), "mxt.gemm", arch="gfx950")
        assert "needs [M, K/32] col_major" in e.value.message


def test_the_scales_come_from_dram_once():
    """An MX product's scales (SA: 4096 x 128 bytes) fit in the last-level cache: the model reads
    them from DRAM once, however often the CUs fetch their lines from L2."""
    from gemmc.target.arch import get_arch
    from gemmc.cost.compiled import predict_module

    m = gemmc.parse_file(str(ROOT / "examples" / "mxfp8gemm.gemm"), {"M": 4096, "N": 4096, "K": 4096}, arch="gfx950")
    gemmc.lower(m, None, "gfx950")
    t = predict_module(m, get_arch("gfx950"), compiler=False).traffic
    sa, sb = 3, 4  # the kernel's arguments: A, B, C, SA, SB
    assert t.dram_by_arg[sa] == 4096 * 128 and t.dram_by_arg[sb] == 128 * 4096
    assert t.l2_by_arg[sa] > 100 * t.dram_by_arg[sa]
