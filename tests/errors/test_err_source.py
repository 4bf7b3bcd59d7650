"""The catalogue of bad .gemm sources: syntax at many positions, unknown names, shape
and dtype mismatches, out-of-range values.  Each prints one located diagnostic
(`file:line:col: error: ...`, the source line, a caret) and exits 1 (docs/errors.md)."""

from __future__ import annotations

import pytest

from errors.helpers import BASE, Case, base_with, run_in_process


def _src(id: str, source: str, expect: str, at: tuple[int, int]) -> Case:
    return Case(id, ["opt", "{src}"], 1, expect, files={"k.gemm": source}, located=at)


SOURCE = [
    _src('no-kernel-keyword', base_with("kernel k", "kern k"),
         "{src}:1:1: error: unexpected 'kern'; expected 'kernel'", (1, 1)),
    _src('no-kernel-name', base_with("kernel k", "kernel"),
         "{src}:1:8: error: unexpected '{'; expected a name", (1, 8)),
    _src('no-open-brace', base_with("kernel k {", "kernel k"),
         "{src}:2:3: error: unexpected 'dim' after 'k' on line 1; expected '{'", (2, 3)),
    _src('no-close-brace', BASE.rstrip().rstrip("}"),
         "{src}:6:11: error: unexpected end of file; expected ')', '*', '+', ',', '-', '.T', 'acc', 'dim', 'grouped', 'scaled', '}', "
         "a name", (6, 11)),
    _src('dim-missing-comma', base_with("M = 8, N", "M = 8 N"),
         "{src}:2:18: error: unexpected ','; expected '+', '-', 'acc', 'dim', 'grouped', '}', a name", (2, 18)),
    _src('dim-negative', base_with("M = 8", "M = -8"),
         "{src}:2:11: error: unexpected '-'; expected an integer", (2, 11)),
    _src('dim-float', base_with("M = 8", "M = 8.5"),
         "{src}:2:12: error: unexpected character '.'", (2, 12)),
    _src('dim-trailing-comma', base_with("K = 8\n", "K = 8,\n"),
         "{src}:3:4: error: unexpected ':'; expected ',', '=', '}', a name", (3, 4)),
    _src('tensor-missing-colon', base_with("A: f32", "A f32"),
         "{src}:3:5: error: unexpected 'f32'; expected ':', '='", (3, 5)),
    _src('tensor-missing-bracket', base_with("f32[M, K]", "f32[M, K"),
         "{src}:4:3: error: unexpected 'B' after 'K' on line 3; expected ',', '/', ']'", (4, 3)),
    _src('tensor-rank-4', base_with("f32[M, K]", "f32[M, K, N, N]"),
         "{src}:3:19: error: 'A' has 4 dims; a matrix has 2, and a batched one 3 (a leading batch dim: [Bt, M, K])", (3, 19)),
    # a vector is legal (an epilogue's operand), but not as a product's operand
    _src('tensor-rank-1', base_with("f32[M, K]", "f32[M]"),
         "{src}:6:7: error: 'A' is a vector [M]; expected a matrix operand (a vector is an epilogue's operand: "
         "C = A @ B + b)", (6, 7)),
    _src('unknown-dtype', base_with("A: f32", "A: f64"),
         "{src}:3:6: error: unexpected 'f64'; expected f32, f16, bf16, f8e4m3fnuz, f8e5m2fnuz, f8e4m3fn, f8e5m2, f6e2m3fn, f6e3m2fn, "
         "f4e2m1fn, f8e8m0fnu, i8, u8, i4, u4 or i32", (3, 6)),
    _src('unknown-layout', base_with("A: f32[M, K]", "A: f32[M, K] column_major"),
         "{src}:4:3: error: unexpected 'B' after 'column_major' on line 3; expected ':', '='", (4, 3)),
    _src('two-layouts', base_with("A: f32[M, K]", "A: f32[M, K] row_major col_major"),
         "{src}:4:3: error: unexpected 'B' after 'col_major' on line 3; expected ':', '='", (4, 3)),
    _src('no-at', base_with("A @ B", "A B"),
         "{src}:7:1: error: unexpected '}' after 'B' on line 6; expected ':', '='", (7, 1)),
    _src('double-at', base_with("A @ B", "A @ @ B"),
         "{src}:6:11: error: unexpected '@'; expected a name", (6, 11)),
    _src('dangling-plus', base_with("A @ B\n", "A @ B +\n"),
         "{src}:7:1: error: unexpected '}' after '+' on line 6; expected '(', '-', a name, a number", (7, 1)),
    _src('transposed-output', base_with("C = A", "C.T = A"),
         "{src}:6:4: error: unexpected '.T'; expected ':', '='", (6, 4)),
    _src('lowercase-t', base_with("A @ B", "A.t @ B"),
         "{src}:6:8: error: unexpected character '.'", (6, 8)),
    _src('double-transpose', base_with("A @ B", "A @ B.T.T"),
         "{src}:6:14: error: unexpected '.T'; expected ')', '*', '+', ',', '-', '@', '}', a name", (6, 14)),
    _src('stray-dollar', base_with("A @ B", "A $ B"),
         "{src}:6:9: error: unexpected character '$'", (6, 9)),
    _src('non-ascii-name', base_with("A: f32", "\u00c4: f32"),
         "{src}:3:3: error: unexpected character 'Ä'", (3, 3)),
    _src('two-kernels', BASE + "kernel j {}\n",
         "{src}:8:1: error: unexpected 'kernel' after '}' on line 7; expected end of file", (8, 1)),
    _src('only-comments', "# nothing here\n// nor here\n",
         "{src}:1:1: error: unexpected end of file; expected 'kernel'", (1, 1)),
    # `A @ B * 2.0`, `-A @ B` and `(A @ B)` are legal since fused epilogues (tests/test_epilogue.py)
    _src('unclosed-paren', base_with("A @ B", "(A @ B"),
         "{src}:7:1: error: unexpected '}' after 'B' on line 6; expected ')', '+', '-'", (7, 1)),
    _src('semicolon', base_with("A @ B", "A @ B;"),
         "{src}:6:12: error: unexpected character ';'", (6, 12)),
    _src('three-factors', base_with("A @ B", "A @ B @ C"),
         "{src}:6:13: error: unexpected '@'; expected ')', '*', '+', ',', '-', '.T', '}', a name", (6, 13)),
    _src('unknown-dim', base_with("A: f32[M, K]", "A: f32[M, Q]"),
         "{src}:3:13: error: unknown dim 'Q'; declare it with 'dim Q'", (3, 13)),
    _src('undeclared-operand', base_with("A @ B", "X @ B"),
         "{src}:6:7: error: 'X' is not declared; expected a matrix operand", (6, 7)),
    _src('scalar-operand', base_with("C = A @ B", "s: f32\n  C = s @ B"),
         "{src}:7:7: error: 's' is a scalar; expected a matrix operand", (7, 7)),
    _src('dim-operand', base_with("A @ B", "M @ B"),
         "{src}:6:7: error: 'M' is a dim; expected a matrix operand", (6, 7)),
    _src('undeclared-output', base_with("C = A", "D = A"),
         "{src}:6:3: error: 'D' is not declared; expected a matrix operand", (6, 3)),
    _src('dim-twice', base_with("K = 8\n", "K = 8, M\n"),
         "{src}:2:28: error: 'M' is already declared at line 2", (2, 28)),
    _src('dim-and-tensor', base_with("A: f32", "K: f32"),
         "{src}:3:3: error: 'K' is already declared at line 2", (3, 3)),
    _src('tensor-twice', base_with("B: f32[K, N]", "B: f32[K, N]\n  B: f32[K, N]"),
         "{src}:5:3: error: 'B' is already declared at line 4", (5, 3)),
    _src('no-assignment', base_with("  C = A @ B\n", ""),
         "{src}:1:8: error: kernel 'k' has no assignment such as 'C = A @ B'", (1, 8)),
    _src('two-assignments', base_with("  C = A @ B\n", "  C = A @ B\n  C = A @ B\n"),
         "{src}:7:3: error: 'C' is assigned already; each output is assigned once, apart from A and B", (7, 3)),
    _src('undeclared-scalar', base_with("A @ B", "alpha * A @ B"),
         "{src}:6:7: error: 'alpha' is not a declared scalar; declare it as 'alpha: f32'", (6, 7)),
    _src('scalar-wrong-type', base_with("C = A @ B", "alpha: f16\n  C = alpha * A @ B"),
         "{src}:7:7: error: scalar 'alpha' is f16 but the accumulator is f32", (7, 7)),
    # an added matrix other than C is a residual: it must be [M, N] (A is [M, K])
    _src('added-term-not-output', base_with("A @ B", "A @ B + A"),
         "{src}:6:15: error: 'A' is [M, K]; an epilogue operand is [M, N] (element-wise), [M] (one value a row) "
         "or [N] (one value a column)", (6, 15)),
    _src('output-col-major', base_with("C: f32[M, N]", "C: f32[M, N] col_major"),
         "{src}:6:3: error: the output 'C' must be row-major", (6, 3)),
    _src('acc-bf16', base_with("C = A", "acc bf16\n  C = A"),
         "{src}:6:7: error: accumulator type must be f32, f16 or i32, not bf16", (6, 7)),
    _src('zero-dim', base_with("M = 8", "M = 0"),
         "{src}:2:11: error: dim 'M' must be positive", (2, 11)),
    _src('dim-too-large', base_with("M = 8", "M = 4294967296"),
         "{src}:2:11: error: dim 'M' = 4294967296 exceeds 2147483647 (kernels index with 32-bit ints)", (2, 11)),
    _src('matrix-too-large', base_with("M = 8, N = 8, K = 8", "M = 65536, N = 8, K = 65536"),
         "{src}:3:3: error: 'A' has 65536 x 65536 = 4294967296 elements; kernels index with 32-bit ints, so a matrix holds at most 2147483647", (3, 3)),
    _src('scale-overflows-f16', base_with("C = A", "acc f16\n  C = 70000.0 * A"),
         "{src}:7:7: error: scale 70000.0 overflows the accumulator type f16 (at most 65504)", (7, 7)),
    _src('scale-overflows-f32', base_with("A @ B", "1e39 * A @ B"),
         "{src}:6:7: error: scale 1e39 overflows the accumulator type f32 (at most 3.40282e+38)", (6, 7)),
    _src('same-matrix', base_with("A @ B", "A @ A").replace("N = 8, K = 8", "N = 8, K = 8").replace("A: f32[M, K]", "A: f32[M, M]").replace("C: f32[M, N]", "C: f32[M, M]"),
         "{src}:6:11: error: 'A' is both operands; A, B and C must be three different matrices", (6, 11)),
    _src('b-shape', base_with("B: f32[K, N]", "B: f32[M, N]"),
         "{src}:6:11: error: 'B' has shape [M, N] but A @ B needs [K, N]", (6, 11)),
    _src('c-shape', base_with("C: f32[M, N]", "C: f32[N, M]"),
         "{src}:6:3: error: 'C' has shape [N, M] but the product is [M, N]", (6, 3)),
    # the operand that does not fit C either is blamed, spelled as written, with the shape it has
    # as written and the one the product needs
    _src('needs-transpose', base_with("A: f32[M, K]", "A: f32[K, M]"),
         "{src}:6:7: error: 'A' has shape [K, M] but A @ B needs [M, K] (the output is [M, N])", (6, 7)),
    _src('wrong-transpose', base_with("A @ B", "A.T @ B"),
         "{src}:6:7: error: 'A.T' has shape [K, M] but A.T @ B needs [M, K] (the output is [M, N])", (6, 7)),
    _src('wrong-transpose-b', base_with("A @ B", "A @ B.T"),
         "{src}:6:11: error: 'B.T' has shape [N, K] but A @ B.T needs [K, N]", (6, 11)),
    _src('missing-transpose-b', base_with("B: f32[K, N]", "B: f32[N, K]"),
         "{src}:6:11: error: 'B' has shape [N, K] but A @ B needs [K, N]", (6, 11)),
    _src('wrong-transposes', base_with("A @ B", "A.T @ B.T"),
         "{src}:6:7: error: 'A.T' has shape [K, M] but A.T @ B.T needs [M, ...] (the output is [M, N])", (6, 7)),
    # '*' where '@' belongs: at the '*', not at the token after B (the next line's '}')
    _src('star-for-at', base_with("A @ B", "A * B"),
         "{src}:6:9: error: unexpected '*' after the matrix 'A'; expected '@'", (6, 9)),
    _src('star-for-at-plus-c', base_with("A @ B", "A * B + C"),
         "{src}:6:9: error: unexpected '*' after the matrix 'A'; expected '@'", (6, 9)),
    _src('star-for-at-transposed', base_with("A @ B", "A * B.T"),
         "{src}:6:9: error: unexpected '*' after the matrix 'A'; expected '@'", (6, 9)),
    _src('scale-without-product', base_with("C = A @ B", "alpha: f32\n  C = alpha * A"),
         "{src}:7:7: error: the assignment has no product; expected 'A @ B' (a matrix product) in it", (7, 7)),
    _src('dtype-mismatch', base_with("B: f32", "B: f16"),
         "{src}:6:11: error: A and B must have one element type: 'A' is f32, 'B' is f16", (6, 11)),
    _src('fp8-with-f16', base_with("A: f32", "A: f8e4m3fn").replace("B: f32", "B: f16"),
         "{src}:6:11: error: A and B must have one element type: 'A' is f8e4m3fn, 'B' is f16", (6, 11)),
    _src('fp8-output', base_with("C: f32", "C: f8e4m3fnuz"),
         "{src}:5:6: error: the output 'C' is f8e4m3fnuz: its value is converted with saturation; "
         "write C = saturate(...)", (5, 6)),
    _src('fp8-acc', base_with("C = A", "acc f8e4m3fn\n  C = A"),
         "{src}:6:7: error: accumulator type must be f32, f16 or i32, not f8e4m3fn", (6, 7)),
]


def _fp8_on(arch: str, a: str, b: str, expect: str, at: tuple[int, int]) -> Case:
    source = base_with("A: f32", f"A: {a}").replace("B: f32", f"B: {b}")
    return Case(f"{a}-{b}-on-{arch}", ["compile", "{src}", "--arch", arch], 1, expect,
                files={"k.gemm": source}, located=at)


# FP8 formats the target does not have: at the declaration, naming the target's types
FP8_TARGETS = [
    _fp8_on("gfx950", "f8e4m3fnuz", "f8e4m3fnuz", "{src}:3:6: error: gfx950 cannot do f8e4m3fnuz; its types: "
            "f32, f16, bf16, f8e4m3fn, f8e5m2, f6e2m3fn, f6e3m2fn, f4e2m1fn, f8e8m0fnu", (3, 6)),
    _fp8_on("gfx942", "f8e4m3fnuz", "f8e5m2", "{src}:4:6: error: gfx942 cannot do f8e5m2; its types: "
            "f32, f16, bf16, f8e4m3fnuz, f8e5m2fnuz", (4, 6)),
    _fp8_on("gfx1201", "f8e5m2fnuz", "f8e5m2fnuz", "{src}:3:6: error: gfx1201 cannot do f8e5m2fnuz; its types: "
            "f32, f16, bf16, f8e4m3fn, f8e5m2", (3, 6)),
    _fp8_on("gfx90a", "f8e4m3fnuz", "f8e4m3fnuz", "{src}:3:6: error: gfx90a cannot do f8e4m3fnuz; its types: "
            "f32, f16, bf16", (3, 6)),
    _fp8_on("sm_90", "f8e4m3fnuz", "f8e4m3fnuz", "{src}:3:6: error: sm_90 cannot do f8e4m3fnuz; its types: "
            "f32, f16, bf16, f8e4m3fn, f8e5m2", (3, 6)),
]


@pytest.mark.parametrize("case", FP8_TARGETS, ids=lambda c: c.id)
def test_fp8_type_the_target_lacks(case: Case, tmp_path):
    argv = case.prepare(tmp_path)
    case.check(tmp_path, *run_in_process(argv))


@pytest.mark.parametrize("case", SOURCE, ids=lambda c: c.id)
def test_bad_source(case: Case, tmp_path):
    argv = case.prepare(tmp_path)
    case.check(tmp_path, *run_in_process(argv))
