"""`gemmc bench` of a kernel with a fused epilogue: its operands, and a check against the declared program.

cuBLAS computes the plain product only, so an epilogue's C is checked against the declared program
in float64 instead: at the corners, along the last row and column (partial tiles) and at random
elements, the product of the inputs as the kernel read them, then the epilogue's ops with the
error bound a correct kernel's roundings allow (gemmc.emit.harness_epilogue, the `--harness`
check's).  The timing is unchanged: gemmc's fused kernel against cuBLAS's plain product, so the
epilogue's cost shows in the ratio; benchmarks/h200/epilogue.py adds PyTorch's separate ops.

The epilogue's operands (a bias b[N], a row scale s[M], a residual R[M, N]: f32, f16 or bf16)
are filled once with uniform values in [-1, 1) and shared by the rotating input sets; C as an
operand (`s * (A @ B) + C`) is each set's own C.
"""

from __future__ import annotations

import itertools

from xdsl.dialects.builtin import MemRefType, ModuleOp

from gemmc.emit import harness_epilogue
from gemmc.support.diagnostics import usage_error
from gemmc.transforms.matmul_spec import MatmulSpec

_C_TYPES = {"f32": "float", "f16": "__half", "bf16": "__nv_bfloat16"}
_MACHINE_EPS = {"f32": 2.0**-23, "f16": 2.0**-10, "bf16": 2.0**-7}
# values for the epilogue's scalars, as the harness picks them: not 1 (a lost scale shows)
_SCALAR_PICKS = ("1.5", "-0.5", "0.75", "1.25")


class Fields:
    """_MAIN's fields for a kernel with an epilogue: its operands' buffers and the float64 check."""

    def __init__(self, module: ModuleOp, spec: MatmulSpec, prob, in_type: str):
        from gemmc.dialects.gemm import type_name
        from gemmc.interp import host_function

        if in_type not in _C_TYPES:
            raise usage_error(f"gemmc bench checks an epilogue on f32, f16 or bf16 inputs; these are {in_type}")
        fn = host_function(module)
        self.spec, self.prob, self.in_type = spec, prob, in_type
        self.buffers: dict[int, tuple[str, str]] = {}  # host argument -> (its C type, its axes)
        self.scalars: dict[int, str] = {}  # host argument -> the value passed
        picks = iter(_SCALAR_PICKS)
        for arg, axes in zip(spec.epilogue_args, spec.epilogue_axes):
            if arg == spec.c or arg in self.buffers or arg in self.scalars:
                continue
            t = fn.args[arg].type
            if not axes:
                self.scalars[arg] = next(picks)
                continue
            name = type_name(t.element_type) if isinstance(t, MemRefType) else "?"
            if name not in _C_TYPES:
                raise usage_error(f"gemmc bench fills epilogue operands of f32, f16 or bf16; argument {arg} is {name}")
            self.buffers[arg] = (_C_TYPES[name], axes)

    def argument(self, arg: int) -> str:
        """The launcher's argument for an epilogue operand."""
        return f"dE{arg}" if arg in self.buffers else f"(float){self.scalars[arg]}f"

    def _size(self, axes: str) -> str:
        return {"m": "(long)M", "n": "(long)N", "mn": "size_c"}[axes]

    def fields(self) -> dict:
        setup = ["", "    // The epilogue's operands: one set, uniform in [-1, 1), and their host copies for the check"]
        for arg, (ctype, axes) in self.buffers.items():
            n = self._size(axes)
            setup += [f"    {ctype}* dE{arg};", f"    BENCH_CHECK(cudaMalloc(&dE{arg}, sizeof({ctype}) * {n}));",
                      f"    fill(dE{arg}, {n}, {1000 + arg}u);",
                      f"    std::vector<{ctype}> hE{arg}({n});"]
        return dict(epilogue_setup="\n".join(setup), check=self._check(), checked_against="the declared program in float64")

    def _operand(self, arg: int, axes: str) -> str:
        """The C++ double of an epilogue operand's element at (i, j)."""
        if arg == self.spec.c:
            return "(double)hC0[(size_t)i * N + j]"
        if not axes:
            return self.scalars[arg]
        index = {"m": "i", "n": "j", "mn": "(size_t)i * N + j"}[axes]
        return f"bench_to_double(hE{arg}[{index}])"

    def _check(self) -> str:
        copies = "\n".join(f"    BENCH_CHECK(cudaMemcpy(hE{a}.data(), dE{a}, sizeof({t}) * hE{a}.size(), "
                           "cudaMemcpyDeviceToHost));" for a, (t, _) in self.buffers.items())
        return _CHECK.format(in_t=_C_TYPES[self.in_type], copies=copies, compare=self.compare())

    def compare(self) -> str:
        """The host C++ that compares C (`got`) with the declared program at sampled elements, from the
        host copies hA, hB, hC0 and hE<arg>; it sets `passed`, `rel` and `norm_rel`."""
        spec = self.spec
        counter = itertools.count()
        v = dict(sum="sum", magnitude="magnitude", eps_acc="eps_acc", eps_out="eps_out", expected="expected",
                 bound="bound")
        operands = [self._operand(a, x) for a, x in zip(spec.epilogue_args, spec.epilogue_axes)]
        lines = harness_epilogue.check_lines(spec.epilogue, operands, v, "K", " " * 8,
                                             lambda hint: f"e_{hint}_{next(counter)}", spec.acc)
        return _COMPARE.format(a_at="(size_t)k * M + i" if spec.transpose_a else "(size_t)i * K + k",
                               b_at="(size_t)j * K + k" if spec.transpose_b else "(size_t)k * N + j",
                               eps_acc=repr(_MACHINE_EPS.get(spec.acc, 2.0**-23)), eps_out=repr(2.0**-23),
                               lines="\n".join(lines))


_CHECK = r"""    // Correctness on set 0: C against the declared program in float64 (cuBLAS has no such epilogue).
    gemmc(0);
    BENCH_CHECK(cudaDeviceSynchronize());
    std::vector<float> got(size_c), hC0(size_c);
    std::vector<{in_t}> hA(size_a), hB(size_b);
    BENCH_CHECK(cudaMemcpy(got.data(), dC[0], 4 * size_c, cudaMemcpyDeviceToHost));
    BENCH_CHECK(cudaMemcpy(hC0.data(), dC0, 4 * size_c, cudaMemcpyDeviceToHost));
    BENCH_CHECK(cudaMemcpy(hA.data(), dA[0], sizeof({in_t}) * size_a, cudaMemcpyDeviceToHost));
    BENCH_CHECK(cudaMemcpy(hB.data(), dB[0], sizeof({in_t}) * size_b, cudaMemcpyDeviceToHost));
{copies}
{compare}"""

# The comparison alone, host C++ over got, hC0, hA, hB and hE<arg> (tests build it with the host compiler).
_COMPARE = r"""    std::vector<std::pair<int, int>> points = {{{{0, 0}}, {{0, N - 1}}, {{M - 1, 0}}, {{M - 1, N - 1}}}};
    std::mt19937 gen(7);
    std::uniform_int_distribution<int> row(0, M - 1), col(0, N - 1);
    for (int s = 0; s < 256; ++s) {{ points.emplace_back(M - 1, col(gen)); points.emplace_back(row(gen), N - 1); }}
    for (int s = 0; s < 2048; ++s) points.emplace_back(row(gen), col(gen));
    const double eps_acc = {eps_acc}, eps_out = {eps_out};
    double max_diff = 0, max_ref = 0, sum_sq = 0, ref_sq = 0;
    long long mismatches = 0;
    bool finite = true;
    for (const auto& point : points) {{
        const int i = point.first, j = point.second;
        double sum = 0.0, magnitude = 0.0, expected = 0.0, bound = 0.0;
        for (int k = 0; k < K; ++k) {{
            const double p = bench_to_double(hA[{a_at}]) * bench_to_double(hB[{b_at}]);
            sum += p; magnitude += std::fabs(p);
        }}
{lines}
        const double value = got[(size_t)i * N + j], d = std::fabs(value - expected);
        finite = finite && std::isfinite(value);
        if (!(d <= bound) && mismatches++ < 5)
            std::fprintf(stderr, "Mismatch at C[%d][%d]: expected %.9g, got %.9g (bound %.3g)\n", i, j, expected, value, bound);
        max_diff = std::max(max_diff, d); max_ref = std::max(max_ref, std::fabs(expected));
        sum_sq += d * d; ref_sq += expected * expected;
    }}
    const double rel = max_diff / std::max(max_ref, 1e-30), norm_rel = std::sqrt(sum_sq / std::max(ref_sq, 1e-30));
    const bool passed = finite && mismatches == 0;
"""
