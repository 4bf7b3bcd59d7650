"""Every crash or silent wrong answer the fuzzer (tests/test_fuzz.py) and the bad-input
catalogue found, kept as a regression test: the input that broke, and what gemmc must do
now.  Each names the file that was fixed and the cause."""

from __future__ import annotations

import os
import sys
import threading
import time

import pytest

import fuzzing as F
from errors.helpers import BASE, SGEMM, base_with, run_in_process
import gemmc
from gemmc.support.diagnostics import GemmcError


def _diag(fn, *args, **kwargs) -> GemmcError:
    with pytest.raises(GemmcError) as e:
        fn(*args, **kwargs)
    F.assert_diagnostic(e.value)
    return e.value


# -- gemmc/driver/pipeline.py ---------------------------------------------------------------------------


@pytest.mark.parametrize("spec", ["gemm-to-kernel{", "gemm-to-kernel}", ",", "a,,b", "x{y=}", "'step1'", " ,"])
def test_malformed_pipeline_is_not_a_traceback(spec):
    """xDSL's ArgSpecParseError derives from BaseException, so `except Exception` let it
    through as a traceback (fuzzer: pipeline 'gemm-to-kernel{')."""
    e = _diag(gemmc.lower, gemmc.parse(BASE), spec, "gfx942")
    assert e.code == 2 and e.message.startswith(f"malformed pipeline '{spec}': ")


@pytest.mark.parametrize("spec", ["step1,step2", "step1,", "step1{block-x=8}"])
def test_named_pipeline_inside_a_list(spec):
    """A named pipeline in a pass list read `ArgSpec.args`, which does not exist
    (AttributeError, exit 5; fuzzer: 'step1,')."""
    m = gemmc.parse(BASE)
    if spec == "step1,":
        gemmc.lower(m, spec, "gfx942")  # a trailing comma is allowed
        return
    e = _diag(gemmc.lower, m, spec, "gfx942")
    if "{" in spec:
        assert e.code == 2 and "takes no options" in e.message
    else:
        assert "gemm-to-kernel: expects gemm.matmul ops" in e.message  # step2 starts again from the gemm level


def test_option_type_errors_are_worded():
    """'Incompatible types: given ('x',), expected <class 'int'>' leaked xDSL's internals."""
    e = _diag(gemmc.lower, gemmc.parse(BASE), "gemm-to-kernel{block-x=x}", "gfx942")
    assert e.message == "pass 'gemm-to-kernel': option 'block-x' expects an integer, not \"x\""


# -- gemmc/transforms/tiling_checks.py --------------------------------------------------------------------------


def test_launch_bounds_then_more_threads():
    """launch-bounds{max-threads=64} before register-tiling that makes 1024 threads printed
    __launch_bounds__(64) on a 1024-thread kernel: a launch failure on the GPU, and the
    interpreter passed it (fuzzer invariant: a kernel never exceeds its launch bounds)."""
    pipeline = ("gemm-to-kernel{block-x=8 block-y=8},launch-bounds{max-threads=64},"
                "lds-tiling{block-m=64 block-n=64},register-tiling{thread-m=2 thread-n=2}")
    e = _diag(gemmc.lower, gemmc.parse(BASE), pipeline, "gfx942")
    assert e.message.startswith("register-tiling: 1024 threads per workgroup exceed the launch bounds (64)")
    # launch-bounds after the tiling passes is the supported order
    m = gemmc.parse(BASE)
    gemmc.lower(m, pipeline.replace("launch-bounds{max-threads=64},", "") + ",launch-bounds{max-threads=1024}", "gfx942")
    assert gemmc.check(m, "gfx942").passed


# -- gemmc/frontend/parser.py ----------------------------------------------------------------------


def test_dims_beyond_32_bits():
    """dim M = 99999999999999999999 was accepted and printed as `const int M = 9999...;`
    (clang: integer literal too large); a 65536 x 65536 matrix overflowed int indices."""
    e = _diag(gemmc.parse, base_with("M = 8", "M = 99999999999999999999"))
    assert "exceeds 2147483647" in e.message and e.loc.line == 2
    e = _diag(gemmc.parse, base_with("M = 8, N = 8, K = 8", "M = 65536, N = 8, K = 65536"))
    assert "kernels index with 32-bit ints" in e.message
    e = _diag(gemmc.parse, BASE, "x.gemm", {"M": 2**31})
    assert e.code == 2
    gemmc.parse(base_with("M = 8, N = 8, K = 8", "M = 2147483647, N = 1, K = 1"))  # the largest allowed


@pytest.mark.parametrize("scale, acc", [("1e999", "f32"), ("3.5e38", "f32"), ("70000.0", "f16")])
def test_scale_literal_overflow(scale, acc):
    """`C = 1e999 * A @ B` made alpha = inf and C all inf or nan (fuzzer mutant)."""
    src = base_with("C = A @ B", f"acc {acc}\n  C = {scale} * A @ B")
    e = _diag(gemmc.parse, src)
    assert e.message.startswith(f"scale {scale} overflows the accumulator type {acc}")


def test_same_matrix_twice_points_at_the_operand():
    """`C = A @ A` pointed at C's declaration; it now points at the second A."""
    src = "kernel k {\n  dim M\n  A: f32[M, M]\n  B: f32[M, M]\n  C: f32[M, M]\n  C = A @ A\n}\n"
    e = _diag(gemmc.parse, src)
    assert (e.loc.line, e.loc.col) == (6, 11) and "'A' is both operands" in e.message


def test_end_of_file_is_named():
    """Lark calls the end '<END-OF-FILE>'; messages say 'end of file'."""
    e = _diag(gemmc.parse, BASE + "kernel j {}\n")
    assert e.message.endswith("expected end of file")


# -- gemmc/driver/source.py: reading ---------------------------------------------------------------------------


def test_fifo_input_does_not_hang(tmp_path):
    """Reading a FIFO that nobody writes blocked forever in open()."""
    fifo = tmp_path / "f.gemm"
    os.mkfifo(fifo)
    result = {}
    t = threading.Thread(target=lambda: result.update(r=run_in_process(["opt", str(fifo)])), daemon=True)
    t.start()
    t.join(20)
    if t.is_alive():  # unblock the reader before failing
        with open(fifo, "w"):
            pass
        t.join(5)
        pytest.fail("gemmc blocked on a FIFO without a writer")
    code, _, err = result["r"]
    assert code == 3 and "is a FIFO with no writer" in err


def test_fifo_with_a_writer_is_read(tmp_path):
    fifo = tmp_path / "f.gemm"
    os.mkfifo(fifo)

    def write():
        with open(fifo, "w") as f:
            time.sleep(0.2)
            f.write(BASE)

    t = threading.Thread(target=write, daemon=True)
    t.start()
    deadline = time.time() + 10
    while time.time() < deadline:  # wait until the writer has the FIFO open
        code, out, err = run_in_process(["opt", str(fifo)])
        if code == 0:
            break
        time.sleep(0.05)
    t.join(5)
    assert code == 0 and "gemm.matmul" in out, err


@pytest.mark.parametrize("data, message", [
    (b"\xff\xfe", "error: <stdin>: not UTF-8 text (byte 0)"),
    (b"", "error: <stdin>: is empty"),
    (b"\x00", "error: <stdin>: is a binary file, expected a .gemm or .mlir file"),
])
def test_stdin_bytes(data, message):
    """Binary stdin was decoded with surrogate escapes and parsed as IR ('Unexpected
    character: \\udcff'); empty stdin was a syntax error instead of 'is empty'."""
    code, _, err = run_in_process(["opt", "-"], stdin=data)
    assert code == 3 and err.strip() == message


def test_closed_stdin(monkeypatch):
    """`gemmc opt - <&-`: sys.stdin is None, and .read() was an AttributeError (exit 5)."""
    monkeypatch.setattr(sys, "stdin", None)
    e = _diag(gemmc.read_source, "-")
    assert e.code == 3


def test_endless_input_is_bounded():
    """`gemmc opt /dev/zero` read until memory ran out."""
    if not os.path.exists("/dev/zero"):
        pytest.skip("no /dev/zero")
    e = _diag(gemmc.read_source, "/dev/zero")
    assert e.code == 3 and "larger than 64 MiB" in e.message


def test_byte_order_mark():
    """A UTF-8 BOM (Windows editors) was 'unexpected character \\ufeff' at 1:1."""
    code, out, err = run_in_process(["opt", "-"], stdin=b"\xef\xbb\xbf" + BASE.encode())
    assert code == 0 and "gemm.matmul" in out, err


# -- gemmc/driver/api.py: running and writing ----------------------------------------------------------------


def test_out_of_memory_in_run(monkeypatch):
    """`gemmc run` with sizes numpy cannot allocate ended in 'internal error: MemoryError'."""
    import gemmc.interp

    def no_memory(*a, **k):
        raise MemoryError("Unable to allocate 74.5 GiB for an array with shape (100000, 100000)")

    monkeypatch.setattr(gemmc.interp, "check", no_memory)
    e = _diag(gemmc.check, gemmc.parse(BASE), "gfx942")
    assert e.message.startswith("not enough memory to interpret this size")


def test_interrupted_write_leaves_no_temporary(tmp_path, monkeypatch):
    """write_output removed its temporary file only on OSError; Ctrl-C left it behind."""
    target = tmp_path / "out.hip"

    def interrupt(src, dst):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", interrupt)
    with pytest.raises(KeyboardInterrupt):
        gemmc.write_output(str(target), "text")
    assert list(tmp_path.iterdir()) == []


def test_sgemm_example_still_runs():
    """The examples stay valid under the new limits."""
    code, out, err = run_in_process(["run", str(SGEMM), "-D", "M=33", "-D", "N=17", "-D", "K=9", "-p", "step2"])
    assert code == 0 and out.startswith("PASS"), err


# -- gemmc/driver/cli.py --------------------------------------------------------------------------------------


def test_base_exception_from_a_library_is_one_line(monkeypatch, capsys):
    """main() caught Exception only; a library error deriving from BaseException (as xDSL's
    ArgSpecParseError does) would have reached the user as a traceback."""
    from dataclasses import dataclass

    from xdsl.passes import ModulePass

    from gemmc.driver import pipeline
    from gemmc.driver.cli import main

    class Odd(BaseException):
        pass

    @dataclass(frozen=True)
    class Raise(ModulePass):
        name = "raise-odd"

        def apply(self, ctx, op):
            raise Odd("from a library")

    monkeypatch.setitem(pipeline.PASSES, "raise-odd", lambda: Raise)
    monkeypatch.delenv("GEMMC_DEBUG", raising=False)
    code = main(["opt", str(SGEMM), "-p", "raise-odd"])
    err = capsys.readouterr().err
    assert code == 5 and err.strip() == "gemmc: internal error: Odd: from a library (set GEMMC_DEBUG=1 for a traceback)"


# -- gemmc/target/toolchain.py --------------------------------------------------------------------------------


def test_asm_does_not_depend_on_the_temporary_directory():
    """clang named the __hip_cuid_* symbol after the input's path, a fresh temporary
    directory each time, so `--emit asm` and `--emit hsaco` differed from run to run."""
    from gemmc.target.toolchain import compile_device, find_toolchain

    try:
        find_toolchain()
    except GemmcError:
        pytest.skip("no clang with the AMDGPU backend")
    m = gemmc.parse(BASE)
    gemmc.lower(m, "step1", "gfx942")
    hip = gemmc.emit(m, "gfx942", "hip")
    assert compile_device(hip, "gfx942", "asm") == compile_device(hip, "gfx942", "asm")


# -- gemmc/emit/hip.py ---------------------------------------------------------------------------------

WEIRD = """kernel main {
  dim float, int = 3, threadIdx
  __global__: f16[float, threadIdx] col_major
  hipError_t: f16[int, threadIdx]
  launch_k: f32[float, int]
  stream: f32
  const: f32
  C_: f32
  launch_k = stream * __global__ @ hipError_t.T + const * launch_k
}
"""


def test_harness_with_dims_named_like_cpp_keywords(tmp_path):
    """`--harness` with a dim called `float`: the launcher names the parameter `float_` but
    the harness looked for `float` ('dim float is neither static nor a launcher parameter').
    Found by running valid programs with C++ and HIP names through every emitter."""
    m = gemmc.parse(WEIRD)
    gemmc.lower(m, "step2", "gfx942")
    from gemmc.emit import emit_hip

    source = emit_hip(m, "gfx942", harness=True)
    assert "int float_" in source and "int float," not in source
    try:
        from test_emit_hip import _run_on_cpu
        from gemmc.target.toolchain import find_toolchain

        tc = find_toolchain()
    except (ImportError, GemmcError):
        pytest.skip("no CPU harness runner or no clang")
    if tc.kind != "llvm":
        pytest.skip("the CPU run uses plain clang++ for the host")
    proc = _run_on_cpu(tc, source, ["37", "11"], tmp_path)
    assert proc.returncode == 0 and ": PASSED" in proc.stdout, proc.stdout + proc.stderr


# -- gemmc/transforms/kernel_builder.py -------------------------------------------------------------------------------


def test_f16_accumulator_into_bf16_output():
    """`acc f16` with a bf16 C converted with one `arith.truncf f16 to bf16` (not a narrowing,
    so not valid MLIR), printed as `(__bf16)sum`, which clang rejects ('C-style cast from
    _Float16 to __bf16 is not allowed').  It now goes through f32.  Found by compiling
    fuzzed programs with clang."""
    src = base_with("C: f32", "C: bf16").replace("C = A @ B", "acc f16\n  C = A @ B")
    m = gemmc.parse(src)
    gemmc.lower(m, "step1", "gfx942")
    ir = gemmc.print_ir(m)
    assert "f16 to bf16" not in ir and "arith.extf %sum : f16 to f32" in ir
    assert gemmc.check(m, "gfx942", {}).passed
    hip = gemmc.emit(m, "gfx942", "hip")
    assert "(__bf16)sum" not in hip
    try:
        from gemmc.target.toolchain import compile_device, find_toolchain

        find_toolchain()
    except GemmcError:
        return
    compile_device(hip, "gfx942", "asm")  # raises on a compile error


# -- gemmc/driver/lowering.py: dtypes per arch --------------------------------------------------------------------


def test_f16_accumulator_on_an_arch_without_f16():
    """`acc f16` with f32 matrices passed the per-arch dtype check (it looked at memrefs
    only), and `gemmc compile --arch sm_90` wrote a file that stops with #error under nvcc."""
    src = BASE.replace("C = A @ B", "acc f16\n  C = A @ B")
    e = _diag(gemmc.lower, gemmc.parse(src), "step1", "sm_90")
    assert e.message == "sm_90 cannot accumulate in f16 (it supports f32); use 'acc f32'"
    lowered = gemmc.print_ir(gemmc.lower(gemmc.parse(src), "step1", "gfx942"))
    e = _diag(gemmc.lower, gemmc.parse_ir(lowered), None, "sm_90")  # the same kernel as IR input
    assert e.message.startswith("sm_90 cannot do f16 arithmetic")
    gemmc.lower(gemmc.parse(BASE), "step1", "sm_90")  # f32 throughout is fine


# -- IR input: gemmc/driver/api.py, gemmc/transforms/schedule.py, gemmc/interp/check.py ----------------------------------
# Found by test_fuzz_mutated_ir (IR with tokens deleted or moved).


def _ir(level: str = "step1") -> str:
    return F.ir_text(level)


@pytest.mark.parametrize("old, new, message", [
    ("arith.cmpi ult, %row", "arith.cmpi bogus, %row", "IR does not verify: Unknown comparison mnemonic: bogus"),
    ("^bb0", "^5", "cannot parse the IR: Invalid Block name format `5`. Make sure names contain only"),
])
def test_ir_errors_raised_while_parsing(old, new, message):
    """xDSL raises VerifyException (an op checking its syntax) or ValueError (a block name)
    from inside the parser; parse_ir caught ParseError only, so they were internal errors."""
    text = _ir()
    assert old in text
    e = _diag(gemmc.parse_ir, text.replace(old, new, 1), "k.mlir")
    assert e.message.startswith(message)


def test_ir_value_used_before_it_is_defined():
    """xDSL's verifier does not check dominance: a load moved above the loop that defines its
    index verified, and the interpreter then died with a KeyError."""
    lines = _ir().split("\n")
    i = next(n for n, l in enumerate(lines) if "memref.load %A" in l)
    j = next(n for n, l in enumerate(lines) if "scf.for" in l)
    lines.insert(j, lines.pop(i))
    e = _diag(gemmc.parse_ir, "\n".join(lines), "k.mlir")
    assert e.message == "IR does not verify: %k is used by 'memref.load' where it is not defined"


def test_ir_truncated():
    """The end of a file inside a block read ' in block definition'."""
    text = _ir()
    e = _diag(gemmc.parse_ir, text[: text.index('"gpu.module"')], "k.mlir")
    assert e.message.startswith("unexpected end of file (")


def test_ir_with_a_bad_schedule_field():
    """A gemm.schedule with an unknown field was a TypeError from Schedule(**fields)."""
    text = _ir("step2").replace("gemm.schedule = {", "gemm.schedule = {gfx942 = 1 : i64, ", 1)
    e = _diag(gemmc.lower, gemmc.parse_ir(text, "k.mlir"), "double-buffer", "gfx942")
    assert e.message.startswith("gemm.schedule has a bad field 'gfx942' (fields: block_m, ")


@pytest.mark.parametrize("old, new, why", [
    ("{a = 0 : i64, ", "{", "KeyError: 'a'"),
    ("b = 1 : i64", "b = 9 : i64", "argument indices"),
])
def test_ir_with_a_bad_matmul_spec(old, new, why):
    """A gemm.matmul_spec without 'a', or pointing past the arguments, was a KeyError or an
    IndexError in `gemmc run`."""
    text = _ir()
    assert old in text
    m = gemmc.parse_ir(text.replace(old, new, 1), "k.mlir")
    e = _diag(gemmc.check, m, "gfx942", {"M": 5, "K": 3})
    assert e.message.startswith("check: the gemm.matmul_spec of @k is malformed (") and why in e.message
