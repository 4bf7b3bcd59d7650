"""The test harness of emit-hip (`--harness`): a `main` that allocates, fills, launches,
times and checks C against a CPU reference, around the one launcher of a HIP file.

    HarnessWriter(emitter, launcher).write()   # called by gemmc.emit.hip.HipEmitter

It checks the GEMM recorded in the host function's `gemm.matmul_spec` (which gemm-to-kernel
sets); without it, it reads the GEMM back from the kernel: C is the matrix written, A and B
the others; dim names give the transposes; beta is the scalar that scales a value loaded
from C.  16-bit host conversions are written out by hand, so the harness links without
compiler-runtime helpers that older libgcc lacks.  FP8, FP6, FP4 and E8M0 matrices are filled
and read as codes, their values ml_dtypes' (gemmc.emit.host_formats); FP4 and FP6 rows go to the
device packed, and a block-scaled product's reference multiplies in the scales.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import DictionaryAttr, FloatAttr, IntegerAttr, IntegerType, MemRefType, VectorType
from xdsl.ir import Block, BlockArgument, Operation, SSAValue

from gemmc.dialects.gemm import type_name as gemm_type_name
from gemmc.emit import harness_epilogue, harness_grouped, harness_output, host_formats
from gemmc.emit.c_text import INDENT, Expr, Namer, macro
from gemmc.emit.c_types import float_eps, is_int4, scalar_ctype
from gemmc.emit.file_scope import FileScope, LauncherInfo, Param
from gemmc.emit.ir_access import emit_error, launch_operands, walk_block
from gemmc.support.ir_names import PRIVATE_SPACE, SPEC_ATTR, memory_space


# ---------------------------------------------------------------------------------------
# The test harness
# ---------------------------------------------------------------------------------------


@dataclass
class Gemm:
    """What the harness checks: C = alpha * op(A) @ op(B) + beta * C, read from the IR."""

    a: int  # host argument indices
    b: int
    c: int
    m: str
    n: str
    k: str
    transpose_a: bool
    transpose_b: bool
    alpha: Expr  # host expression or literal
    beta: Expr
    acc_eps: float
    scale_a: int | None = None  # a block-scaled (MX) product: the host arguments of the E8M0 scales
    scale_b: int | None = None
    block: int = 32
    integer: bool = False  # i8 / u8 operands, i32 C: checked exactly, wrapping as the kernel does
    # a fused epilogue (gemm.matmul_spec's): its ops, operands (host argument indices) and their axes
    epilogue: tuple[str, ...] = ()
    epilogue_args: tuple[int, ...] = ()
    epilogue_axes: tuple[str, ...] = ()
    acc: str = "f32"  # the accumulator's type, which bounds the epilogue's values
    group_sizes: int | None = None  # a grouped product: the host argument of its sizes (B [G, K, N])
    amax: int | None = None  # the host argument the kernel raises to max |x| of the epilogue's gemm.amax x


class HarnessWriter:
    """A `main` in the tutorial's style around one launcher."""

    DEFAULT_DIM = 4096

    def __init__(self, emitter: FileScope, launcher: LauncherInfo):
        self.e = emitter
        self.l = launcher

    @staticmethod
    def includes() -> list[str]:
        return ["#include <cmath>", "#include <cstdint>", "#include <cstdio>", "#include <cstdlib>", "#include <cstring>",
                "#include <algorithm>", "#include <limits>", "#include <random>", "#include <vector>"]

    # -- reading the GEMM back -------------------------------------------------------

    def infer(self) -> tuple[Gemm, dict[int, str]]:
        """The GEMM the host function computes: from its `gemm.matmul_spec` attribute
        (which gemm-to-kernel records), else read back from the kernel (hand-written IR)."""
        spec = self.l.op.attributes.get(SPEC_ATTR)
        if isinstance(spec, DictionaryAttr):
            return self._from_spec(spec)
        return self._from_kernel()

    def _from_spec(self, spec: DictionaryAttr) -> tuple[Gemm, dict[int, str]]:
        fn = self.l.op
        d = spec.data
        try:
            a, b, c = (d[k].value.data for k in "abc")  # type: ignore[union-attr]
        except (KeyError, AttributeError):
            raise emit_error(fn, f"--harness: {SPEC_ATTR} lacks integer a, b and c") from None
        ta, tb = "transpose_a" in d, "transpose_b" in d
        lines = [x.data for x in d["epilogue"].data] if "epilogue" in d else []  # type: ignore[union-attr]
        if any(x.startswith("gemm.output ") for x in lines):  # its C++ reference and buffers are C's (and amax's)
            raise emit_error(fn, "--harness checks C and an amax; the kernel also writes other outputs "
                                 "(gemmc run checks them)")
        hd = self.l.host_dims
        da, dc = hd[a] if a < len(hd) else None, hd[c] if c < len(hd) else None
        if da and dc and 3 in (len(da), len(dc)):
            raise emit_error(fn, "--harness has no batched product yet (its reference and buffers are one "
                                 "matrix each); `gemmc run` checks a batched one")
        if not (da and dc and len(da) == len(dc) == 2):
            raise emit_error(fn, "--harness needs the dim names of A and C (gemm.dims on the host arguments)")
        m, n = dc
        k = da[0] if ta else da[1]
        values: dict[int, str] = {}
        picks = iter(("1.5", "-0.5", "0.75", "1.25"))

        def scalar(name: str, default: str) -> Expr:
            v = d.get(name)
            if isinstance(v, IntegerAttr) and isinstance(v.type, IntegerType) and v.type.width.data != 64:
                return Expr(str(v.value.data))  # an integer product's constant (1)
            if isinstance(v, IntegerAttr):
                values.setdefault(v.value.data, next(picks))
                return Expr(values[v.value.data])
            if isinstance(v, FloatAttr):
                return Expr(repr(float(v.value.data)))
            return Expr(default)

        alpha, beta = scalar("alpha", "1.0"), scalar("beta", "0.0")
        acc = float_eps(d["acc_type"]) if "acc_type" in d else None
        kinfo = self.e.kernel_of(next(o for o in fn.walk() if o.name == "gpu.launch_func"))
        eps = acc or _acc_eps(kinfo.op.regions[0].blocks[0], kinfo.op)
        scales = [d[x].value.data if isinstance(d.get(x), IntegerAttr) else None  # type: ignore[union-attr]
                  for x in ("scale_a", "scale_b", "block")]
        epilogue = tuple(x.data for x in d["epilogue"].data) if "epilogue" in d else ()  # type: ignore[union-attr]
        extra = tuple(x.value.data for x in d["epilogue_args"].data) if epilogue else ()  # type: ignore[union-attr]
        axes = tuple(x.data for x in d["epilogue_axes"].data) if epilogue else ()  # type: ignore[union-attr]
        for arg, ax in zip(extra, axes):
            if not ax:  # a scalar the epilogue reads: a value of the fill's
                values.setdefault(arg, next(picks))
        gemm = Gemm(a, b, c, m, n, k, ta, tb, alpha, beta, eps, scales[0], scales[1], scales[2] or 32,
                    isinstance(d.get("acc_type"), IntegerType), epilogue, extra, axes,
                    gemm_type_name(d["acc_type"]) if "acc_type" in d else "f32",
                    d["group_sizes"].value.data if "group_sizes" in d else None,  # type: ignore[union-attr]
                    d["amax"].value.data if "amax" in d else None)  # type: ignore[union-attr]
        return gemm, values

    def _from_kernel(self) -> tuple[Gemm, dict[int, str]]:
        fn = self.l.op
        launches = [o for o in fn.walk() if o.name == "gpu.launch_func"]
        if len(launches) != 1:
            raise emit_error(fn, f"--harness needs one kernel launch in the host function, found {len(launches)}")
        launch = launches[0]
        kinfo = self.e.kernel_of(launch)
        kbody = kinfo.op.regions[0].blocks[0]
        operands = launch_operands(launch)
        host_body = fn.regions[0].blocks[0]

        def host_arg(v: SSAValue, what: str) -> int:
            if not isinstance(v, BlockArgument) or v.block is not host_body:
                raise emit_error(launch, f"--harness: {what} is not an argument of the host function")
            return v.index

        mem = [i for i, v in enumerate(kbody.args) if isinstance(v.type, MemRefType)]
        written = [i for i in mem if i not in kinfo.const_args]
        if len(mem) != 3 or len(written) != 1:
            raise emit_error(kinfo.op, "--harness expects a GEMM kernel: three matrices, one of them written (C)")
        c = written[0]
        a, b = [i for i in mem if i != c]
        # Dim names of the stored shapes, from the host function.
        hd = self.l.host_dims
        ha, hb, hc = (host_arg(operands[i], n) for i, n in ((a, "A"), (b, "B"), (c, "C")))
        da, db, dc = hd[ha], hd[hb], hd[hc]
        if not (da and db and dc and len(da) == len(db) == len(dc) == 2):
            raise emit_error(fn, "--harness needs the dim names of A, B and C (gemm.dims on the host arguments)")
        m, n = dc
        ka = [d for d in da if d != m]
        k = ka[0] if len(ka) == 1 else None
        if k is None or sorted(da) != sorted([m, k]) or sorted(db) != sorted([k, n]) or len({m, n, k}) < 3:
            ta, tb = _structural_transposes(kbody, a, b)
            if k is None:
                k = da[0] if ta else da[1]
        else:
            ta, tb = da == [k, m], db == [n, k]
        # Scalars: beta multiplies a value loaded from C, alpha is the other one.
        scalars = [i for i, v in enumerate(kbody.args) if not isinstance(v.type, MemRefType)]
        c_arg = kbody.args[c]
        beta_args = [i for i in scalars if _scales_load_of(kbody.args[i], c_arg)]
        alpha_args = [i for i in scalars if i not in beta_args]
        if len(beta_args) > 1 or len(alpha_args) > 1:
            raise emit_error(kinfo.op, "--harness cannot tell alpha from beta among the kernel's scalars")
        reads_c = any(u.operation.name in ("memref.load", "vector.load") for u in c_arg.uses)
        values: dict[int, str] = {}  # host scalar argument -> the harness's value
        picks = {"alpha": "1.5", "beta": "-0.5"}

        def scalar(args: list[int], default: str, role: str) -> Expr:
            if not args:
                return Expr(default)
            v = operands[args[0]]
            if isinstance(v, BlockArgument) and v.block is host_body:
                values[v.index] = picks[role]
                return Expr(picks[role])
            owner = v.owner
            if isinstance(owner, Operation) and owner.name == "arith.constant":
                attr = owner.properties.get("value")
                if isinstance(attr, FloatAttr):
                    return Expr(repr(float(attr.value.data)))
            raise emit_error(launch, f"--harness: {role} is neither a host argument nor a constant")

        alpha = scalar(alpha_args, "1.0", "alpha")
        beta = scalar(beta_args, "1.0" if reads_c else "0.0", "beta")
        gemm = Gemm(ha, hb, hc, m, n, k, ta, tb, alpha, beta, _acc_eps(kbody, kinfo.op))
        return gemm, values

    # -- writing main -------------------------------------------------------------------

    def write(self) -> list[str]:
        g, scalar_values = self.infer()
        l = self.l
        fn = l.op
        args = list(fn.regions[0].blocks[0].args)
        static: dict[str, int] = {}
        for i, hd in enumerate(l.host_dims):
            t = args[i].type
            if isinstance(t, MemRefType) and hd:
                for axis, size in enumerate(t.get_shape()):
                    if size >= 0 and axis < len(hd):
                        static[hd[axis]] = size
        dyn = [q.name for q in l.params if q.kind == "dim"]
        for d in (g.m, g.n, g.k):
            if d not in static and d not in dyn:
                raise emit_error(fn, f"--harness: dim {d} is neither static nor a launcher parameter")
        mem = [q for q in l.params if q.kind == "memref"]
        scal = [q for q in l.params if q.kind == "scalar"]
        used = {"uint8_t" if q.unsigned else scalar_ctype(q.type.element_type) for q in mem} \
            | {scalar_ctype(q.type) for q in scal}  # type: ignore[union-attr]
        formats = {q.arg: host_formats.format_of(q.type.element_type) for q in mem}  # type: ignore[union-attr]
        by_arg = {q.arg: q for q in mem}
        A, B, C = by_arg[g.a], by_arg[g.b], by_arg[g.c]
        SA, SB = (by_arg.get(x) if x is not None else None for x in (g.scale_a, g.scale_b))
        if (SA is None) != (SB is None):
            raise emit_error(fn, "--harness: a block-scaled product needs the scales of both A and B")
        M, N, K = g.m, g.n, g.k

        # Local names that cannot collide with the dims and arguments (which may be i, k...).
        names = Namer([*dyn, *static, *(q.name for q in l.params), l.name, "GEMMC_CHECK"])
        self.names = names  # the epilogue check's locals come from it too
        v = {x: names.fresh(x) for x in (
            "argc", "argv", "check_all", "given", "value", "dims", "props", "gen", "dist", "x",
            "launch", "warmup_runs", "timing_runs", "start", "stop", "total_ms", "ms", "result",
            "alpha_ref", "beta_ref", "eps_out", "eps_acc", "check", "i", "j", "k", "sum",
            "magnitude", "p", "c0", "expected", "bound", "got", "points", "row", "col", "s",
            "mismatches", "max_error", "point", "ok", "flops")}
        if g.amax is not None:
            v.update({x: names.fresh(x) for x in ("amax_x", "amax_e", "amax_ref", "amax_bound", "amax_got", "amax_ok")})
        for q in mem:
            for prefix in ("h", "d", "size", "p"):
                v[f"{prefix}_{q.name}"] = names.fresh(f"{prefix}_{q.name}")
        i, j, k = v["i"], v["j"], v["k"]

        def shape_of(q: Param) -> list[str]:
            t = q.type
            assert isinstance(t, MemRefType)
            hd = l.host_dims[q.arg]  # type: ignore[index]
            return [str(s) if s >= 0 else hd[axis] for axis, s in enumerate(t.get_shape())]  # type: ignore[index]

        def size_of(q: Param) -> str:
            parts = shape_of(q)
            return " * ".join([f"static_cast<size_t>({parts[0]})", *parts[1:]])

        def nibbles(q: Param) -> bool:
            """i4 / u4: codes 0 .. 15 a byte on the host, rows packed for the device (as FP4's)."""
            return is_int4(q.type.element_type)  # type: ignore[union-attr]

        def value(q: Param, code: str) -> str:
            if g.integer and nibbles(q) and not q.unsigned:  # an i4's code as its two's-complement value
                return f"static_cast<long long>(({code} ^ 8) - 8)"
            if g.integer:  # i8 / u8 elements (and u4 codes) as they are (uint8_t's promote unsigned), in 64 bits
                return f"static_cast<long long>({code})"
            name = formats[q.arg]
            return host_formats.to_double(name, code) if name else f"gemmc_to_double({code})"

        def device(q: Param) -> tuple[str, str]:
            """The host buffer that goes to the device (FP4 / FP6 rows packed) and its size."""
            if formats[q.arg] in host_formats.PACKED_BITS or nibbles(q):
                return v["p_" + q.name], f"{v['p_' + q.name]}.size()"
            return v["h_" + q.name], v["size_" + q.name]

        def elem(q: Param) -> str:
            return "uint8_t" if q.unsigned else scalar_ctype(q.type.element_type)  # type: ignore[union-attr]

        def at(q: Param, row: str, stride: str, col: str) -> str:
            return f"{v['h_' + q.name]}[static_cast<size_t>({row}) * {stride} + {col}]"

        a_at = at(A, k, M, i) if g.transpose_a else at(A, i, K, k)
        b_at = at(B, j, K, k) if g.transpose_b else at(B, k, N, j)
        G = by_arg[g.group_sizes] if g.group_sizes is not None else None
        if G is not None:  # B[g] of row i's group
            v["group_base"] = names.fresh("group_base")
            b_at = b_at.replace("[", f"[{v['group_base']} + ", 1)
        product = f"{value(A, a_at)} * {value(B, b_at)}"
        if SA is not None and SB is not None:  # scales stored as their operands, K / block
            kb = f"{k} / {g.block}"
            sa_cols, sb_cols = shape_of(SA)[1], shape_of(SB)[1]
            sa_at = at(SA, kb, sa_cols, i) if g.transpose_a else at(SA, i, sa_cols, kb)
            sb_at = at(SB, j, sb_cols, kb) if g.transpose_b else at(SB, kb, sb_cols, j)
            product = f"{value(A, a_at)} * {value(SA, sa_at)}\n{INDENT * 4}* {value(B, b_at)} * {value(SB, sb_at)}"
        c_at = f"static_cast<size_t>({i}) * {N} + {j}"
        c_format = formats[C.arg]  # an FP8 C's: its codes' values, the reference rounded to them
        integer_c = gemm_type_name(C.type.element_type) == "i8"  # type: ignore[union-attr]
        out_eps = 0.0 if integer_c else float_eps(C.type.element_type) or 2.0**-23  # type: ignore[union-attr]

        def c_value(code: str) -> str:
            return host_formats.to_double(c_format, code) if c_format else f"gemmc_to_double({code})"

        largest = host_formats.largest(c_format) if c_format else 127.0 if integer_c else None
        operands = self._epilogue_operands(g, l, by_arg, v, N)
        epilogue = None if operands is None else harness_output.Epilogue(
            v, product, K, g.epilogue, operands, g.acc, g.integer, names.fresh,
            harness_epilogue.Output(f"gemmc_{c_format}_round", largest) if c_format else None, (g.acc_eps, out_eps))
        spread = next((q.name for q in scal for arg, ax in zip(g.epilogue_args, g.epilogue_axes)
                       if q.arg == arg and not ax), None) if largest is not None and epilogue is not None else None
        hC, dC, sizeC = v["h_" + C.name], v["d_" + C.name], v["size_" + C.name]
        I = INDENT
        w: list[str] = []
        ln = w.append
        ln("")
        ln("// Exits with a message on the first HIP error.")
        w.extend(macro([
            "#define GEMMC_CHECK(expression)",
            "    do",
            "    {",
            "        const hipError_t status_ = (expression);",
            "        if (status_ != hipSuccess)",
            "        {",
            '            std::fprintf(stderr, "HIP error %d (%s) at %s:%d: %s\\n", (int)status_,',
            "                         hipGetErrorString(status_), __FILE__, __LINE__, #expression);",
            "            std::exit(EXIT_FAILURE);",
            "        }",
            "    } while (0)",
        ]))
        w.extend(_host_conversions(used))
        for name in dict.fromkeys(f for f in formats.values() if f):
            w.extend(host_formats.helpers(name))
        if c_format:
            w.extend(host_formats.rounding(c_format))
        if any(f in host_formats.PACKED_BITS for f in formats.values()) or any(is_int4(q.type.element_type)
                                                                              for q in mem):  # type: ignore[union-attr]
            w.extend(host_formats.PACK_HELPERS)
        ln("")
        ln(f"// Test harness: C = {g.alpha.text} * {'A^T' if g.transpose_a else 'A'} @ "
           f"{'B^T' if g.transpose_b else 'B'} + {g.beta.text} * C on random data, checked against a")
        ln("// float64 CPU reference (a sample of C, or all of it with --check-all), timed with HIP events.")
        usage = "".join(f" [{d}" for d in dyn) + "]" * len(dyn)
        ln(f"// Usage: ./a.out{usage} [--check-all]" + (f"   (dims default to {self.DEFAULT_DIM})" if dyn else ""))
        ln(f"int main(int {v['argc']}, char** {v['argv']})")
        ln("{")
        for d in (M, N, K):
            if d in static:
                ln(f"{I}const int {d} = {static[d]};")
        for d in dyn:
            ln(f"{I}int {d} = {self.DEFAULT_DIM};")
        ln(f"{I}bool {v['check_all']} = false;")
        if dyn:
            ln(f"{I}int {v['given']} = 0;")
        ln(f"{I}for (int {i} = 1; {i} < {v['argc']}; ++{i})")
        ln(f"{I}{{")
        ln(f'{I*2}if (std::strcmp({v["argv"]}[{i}], "--check-all") == 0)')
        ln(f"{I*2}{{")
        ln(f"{I*3}{v['check_all']} = true;")
        ln(f"{I*3}continue;")
        ln(f"{I*2}}}")
        if dyn:
            ln(f"{I*2}const long {v['value']} = std::strtol({v['argv']}[{i}], nullptr, 10);")
            ln(f"{I*2}if ({v['value']} <= 0 || {v['value']} > (1L << 30) || {v['given']} >= {len(dyn)})")
        ln(f"{I*2}{{")
        ln(f'{I*3}std::fprintf(stderr, "usage: %s{usage} [--check-all]\\n", {v["argv"]}[0]);')
        ln(f"{I*3}return 2;")
        ln(f"{I*2}}}")
        if dyn:
            ln(f"{I*2}int* const {v['dims']}[] = {{{', '.join('&' + d for d in dyn)}}};")
            ln(f"{I*2}*{v['dims']}[{v['given']}++] = static_cast<int>({v['value']});")
        ln(f"{I}}}")
        ln("")
        ln(f"{I}hipDeviceProp_t {v['props']}{{}};")
        ln(f"{I}GEMMC_CHECK(hipGetDeviceProperties(&{v['props']}, 0));")
        ln(f'{I}std::printf("Device      : %s (kernel built for " GEMMC_ARCH ")\\n", {v["props"]}.name);')
        ln(f'{I}std::printf("Matrix dims : {M}=%d {N}=%d {K}=%d\\n", {M}, {N}, {K});')
        ln("")
        ln(f"{I}// Host buffers, filled with uniform random values in [-1, 1].")
        if any(formats.values()):
            ln(f"{I}// FP8, FP6, FP4 and E8M0 as codes, the values rounded to the nearest (FP6 and FP4 over")
            ln(f"{I}// their range, E8M0 scales 2^-4 .. 2^4; gemmc/emit/host_formats.py).")
        ln(f"{I}std::mt19937 {v['gen']}(42);")
        ln(f"{I}std::uniform_real_distribution<float> {v['dist']}(-1.0f, 1.0f);")
        for q in mem:
            h, size = v["h_" + q.name], v["size_" + q.name]
            name = formats[q.arg]
            ln(f"{I}const size_t {size} = {size_of(q)};")
            ln(f"{I}std::vector<{elem(q)}> {h}({size});")
            ln(f"{I}for ({elem(q)}& {v['x']} : {h})")
            if name:
                ln(f"{I*2}{host_formats.fill(name, v['x'], v['gen'], v['dist'])}")
            elif q is G:  # a grouped product's sizes: valid ones, summing to M
                w[-1:] = harness_grouped.fill_sizes(h, shape_of(q)[0], M, v["gen"], v["x"])
            elif g.integer and nibbles(q):  # every 4-bit code
                ln(f"{I*2}{v['x']} = static_cast<{elem(q)}>(std::uniform_int_distribution<int>(0, 15)({v['gen']}));")
            elif g.integer and isinstance(q.type.element_type, IntegerType):  # uniform over the type's whole range
                ln(f"{I*2}{v['x']} = static_cast<{elem(q)}>(std::uniform_int_distribution<long long>("
                   f"std::numeric_limits<{elem(q)}>::min(), std::numeric_limits<{elem(q)}>::max())({v['gen']}));")
            else:
                ln(f"{I*2}gemmc_set({v['x']}, {v['dist']}({v['gen']}));")
            if name in host_formats.PACKED_BITS or nibbles(q):
                rows, cols = shape_of(q)
                bits = 4 if nibbles(q) else host_formats.PACKED_BITS[name]
                ln(f"{I}const std::vector<unsigned char> {v['p_' + q.name]} = gemmc_pack_rows({h}, {rows}, {cols}, "
                   f"{bits});")
        for q in scal:
            value = scalar_values.get(q.arg)  # type: ignore[arg-type]
            if value is None:
                raise emit_error(fn, f"--harness cannot tell what the scalar argument {q.name} is")
            ln(f"{I}{scalar_ctype(q.type)} {q.name};")
            ln(f"{I}gemmc_set({q.name}, {value}f);")
        if spread is not None:
            w.extend(epilogue.spread_lines(spread, largest, M, N))
        ln("")
        ln(f"{I}// Device buffers.")
        for q in mem:
            d = v["d_" + q.name]
            ln(f"{I}{elem(q)}* {d} = nullptr;")
            host, size = device(q)
            ln(f"{I}GEMMC_CHECK(hipMalloc(&{d}, sizeof({elem(q)}) * {size}));")
            ln(f"{I}GEMMC_CHECK(hipMemcpy({d}, {host}.data(), sizeof({elem(q)}) * {size}, hipMemcpyHostToDevice));")
        call_args = [v["d_" + q.name] if q.kind == "memref" else q.name for q in l.params] + ["nullptr"]
        ln(f"{I}auto {v['launch']} = [&]() {{ GEMMC_CHECK({l.name}({', '.join(call_args)})); }};")
        ln("")
        ln(f"{I}// Warm up, then time the average of several launches.")
        ln(f"{I}const int {v['warmup_runs']} = 3, {v['timing_runs']} = 10;")
        ln(f"{I}for (int {i} = 0; {i} < {v['warmup_runs']}; ++{i})")
        ln(f"{I*2}{v['launch']}();")
        ln(f"{I}GEMMC_CHECK(hipDeviceSynchronize());")
        ln(f"{I}hipEvent_t {v['start']}, {v['stop']};")
        ln(f"{I}GEMMC_CHECK(hipEventCreate(&{v['start']}));")
        ln(f"{I}GEMMC_CHECK(hipEventCreate(&{v['stop']}));")
        ln(f"{I}GEMMC_CHECK(hipEventRecord({v['start']}, nullptr));")
        ln(f"{I}for (int {i} = 0; {i} < {v['timing_runs']}; ++{i})")
        ln(f"{I*2}{v['launch']}();")
        ln(f"{I}GEMMC_CHECK(hipEventRecord({v['stop']}, nullptr));")
        ln(f"{I}GEMMC_CHECK(hipEventSynchronize({v['stop']}));")
        ln(f"{I}float {v['total_ms']} = 0.0f;")
        ln(f"{I}GEMMC_CHECK(hipEventElapsedTime(&{v['total_ms']}, {v['start']}, {v['stop']}));")
        ln(f"{I}const double {v['ms']} = {v['total_ms']} / {v['timing_runs']};")
        ln("")
        ln(f"{I}// One more launch on the original C, for the check.")
        ln(f"{I}GEMMC_CHECK(hipMemcpy({dC}, {hC}.data(), sizeof({elem(C)}) * {sizeC}, hipMemcpyHostToDevice));")
        X = by_arg[g.amax] if g.amax is not None else None
        if X is not None:  # the kernel raises it (atomic max): from 0, as the caller must
            ln(f"{I}{v['h_' + X.name]}[0] = 0.0f;")
            ln(f"{I}GEMMC_CHECK(hipMemcpy({v['d_' + X.name]}, {v['h_' + X.name]}.data(), sizeof(float), "
               "hipMemcpyHostToDevice));")
        ln(f"{I}{v['launch']}();")
        ln(f"{I}GEMMC_CHECK(hipDeviceSynchronize());")
        ln(f"{I}std::vector<{elem(C)}> {v['result']}({sizeC});")
        ln(f"{I}GEMMC_CHECK(hipMemcpy({v['result']}.data(), {dC}, sizeof({elem(C)}) * {sizeC}, hipMemcpyDeviceToHost));")
        if X is not None:
            ln(f"{I}float {v['amax_got']} = 0.0f;")
            ln(f"{I}GEMMC_CHECK(hipMemcpy(&{v['amax_got']}, {v['d_' + X.name]}, sizeof(float), hipMemcpyDeviceToHost));")
            ln(f"{I}double {v['amax_x']} = 0.0, {v['amax_e']} = 0.0; // the check's gemm.amax argument at (i, j)")
        ln("")
        ln(f"{I}// The float64 reference for C[i][j], and a bound on the error of a correct kernel:")
        ln(f"{I}// rounding of the output, plus accumulation error that grows like sqrt(K).")
        ln(f"{I}const double {v['alpha_ref']} = {g.alpha.text}, {v['beta_ref']} = {g.beta.text};")
        ln(f"{I}const double {v['eps_out']} = {out_eps!r}, {v['eps_acc']} = {g.acc_eps!r};")
        ln(f"{I}auto {v['check']} = [&](int {i}, int {j}, double& {v['expected']}, double& {v['bound']}) {{")
        if G is not None:
            w.extend(harness_grouped.group_base(v["group_base"], v["h_" + G.name], shape_of(G)[0], i,
                                                f"static_cast<size_t>({K}) * {N}"))
        element = c_value(f"{v['result']}[{c_at}]")
        if epilogue is not None:  # the epilogue's ops in double, a bound carried through them
            w.extend(epilogue.value_lines())
            ln(f"{I*2}const double {v['got']} = {element};")
            ln(f"{I*2}return std::fabs({v['got']} - {v['expected']}) <= {v['bound']};")
        elif g.integer:
            w.extend(self._integer_check(v, product, hC, c_at, K))
        else:
            w.extend(self._float_check(v, product, hC, c_at, K))
        ln(f"{I}}};")
        w.extend(self._check_points(v, M, N, K, mem, "%.0f" if g.integer else "%.6g", c_value, g.amax is not None))
        return w

    def _integer_check(self, v: dict[str, str], product: str, hC: str, c_at: str, K: str) -> list[str]:
        """C[i][j] exactly: the products summed in 64 bits, C0 added where beta is 1, wrapped to
        int32_t as the kernel's uint32_t arithmetic wraps."""
        I, k = INDENT, v["k"]
        return [
            f"{I*2}long long {v['sum']} = 0;",
            f"{I*2}for (int {k} = 0; {k} < {K}; ++{k})",
            f"{I*3}{v['sum']} += {product};",
            f"{I*2}const long long {v['c0']} = {hC}[{c_at}];",
            f"{I*2}{v['expected']} = static_cast<int32_t>(static_cast<uint32_t>(static_cast<long long>({v['alpha_ref']})"
            f" * {v['sum']} + static_cast<long long>({v['beta_ref']}) * {v['c0']}));",
            f"{I*2}{v['bound']} = 0.0;",
            f"{I*2}return static_cast<double>({v['result']}[{c_at}]) == {v['expected']};",
        ]

    @staticmethod
    def _epilogue_operands(g: Gemm, l, by_arg: dict, v: dict[str, str], N: str) -> list[str] | None:
        """C++ doubles of each epilogue operand's element at (i, j); None without an epilogue."""
        if not g.epilogue:
            return None
        scalars = {q.arg: q for q in l.params if q.kind == "scalar"}
        out = []
        for arg, ax in zip(g.epilogue_args, g.epilogue_axes):
            if not ax:
                out.append(f"gemmc_to_double({scalars[arg].name})")
                continue
            q = by_arg[arg]
            index = {"m": v["i"], "n": v["j"], "mn": f"static_cast<size_t>({v['i']}) * {N} + {v['j']}"}[ax]
            out.append(f"gemmc_to_double({v['h_' + q.name]}[{index}])")  # f32, f16 or bf16
        return out

    def _float_check(self, v: dict[str, str], product: str, hC: str, c_at: str, K: str) -> list[str]:
        """C[i][j] in float64 and the bound on a correct kernel's error."""
        w: list[str] = []
        ln, I, k = w.append, INDENT, v["k"]
        ln(f"{I*2}double {v['sum']} = 0.0, {v['magnitude']} = 0.0;")
        ln(f"{I*2}for (int {k} = 0; {k} < {K}; ++{k})")
        ln(f"{I*2}{{")
        ln(f"{I*3}const double {v['p']} = {product};")
        ln(f"{I*3}{v['sum']} += {v['p']};")
        ln(f"{I*3}{v['magnitude']} += std::fabs({v['p']});")
        ln(f"{I*2}}}")
        ln(f"{I*2}const double {v['c0']} = gemmc_to_double({hC}[{c_at}]);")
        ln(f"{I*2}{v['expected']} = {v['alpha_ref']} * {v['sum']} + {v['beta_ref']} * {v['c0']};")
        ln(f"{I*2}{v['bound']} = 2.0 * {v['eps_out']} * std::fabs({v['expected']})")
        ln(f"{I*2}    + {v['eps_acc']} * (std::sqrt(static_cast<double>({K})) + 2.0)")
        ln(f"{I*2}          * (std::fabs({v['alpha_ref']}) * {v['magnitude']} + std::fabs({v['beta_ref']} * {v['c0']}));")
        ln(f"{I*2}const double {v['got']} = gemmc_to_double({v['result']}[{c_at}]);")
        ln(f"{I*2}return std::fabs({v['got']} - {v['expected']}) <= {v['bound']};")
        return w

    def _check_points(self, v: dict[str, str], M: str, N: str, K: str, mem: list[Param], fmt: str,
                      c_value, amax: bool = False) -> list[str]:
        """Checks the chosen elements of C (and the amax output), prints the verdict and the time,
        frees the buffers."""
        w: list[str] = []
        ln, I, i, j = w.append, INDENT, v["i"], v["j"]
        ln("")
        ln(f"{I}// Which elements to check: all of C when it is small or with --check-all, else the")
        ln(f"{I}// corners, samples of the last row and column (edges of partial tiles) and random ones.")
        ln(f"{I}std::vector<std::pair<int, int>> {v['points']};")
        ln(f"{I}if ({v['check_all']} || static_cast<long long>({M}) * {N} <= 65536)")
        ln(f"{I}{{")
        ln(f"{I*2}for (int {i} = 0; {i} < {M}; ++{i})")
        ln(f"{I*3}for (int {j} = 0; {j} < {N}; ++{j})")
        ln(f"{I*4}{v['points']}.emplace_back({i}, {j});")
        ln(f"{I}}}")
        ln(f"{I}else")
        ln(f"{I}{{")
        ln(f"{I*2}std::uniform_int_distribution<int> {v['row']}(0, {M} - 1), {v['col']}(0, {N} - 1);")
        ln(f"{I*2}{v['points']} = {{{{0, 0}}, {{0, {N} - 1}}, {{{M} - 1, 0}}, {{{M} - 1, {N} - 1}}}};")
        ln(f"{I*2}for (int {v['s']} = 0; {v['s']} < 256; ++{v['s']})")
        ln(f"{I*2}{{")
        ln(f"{I*3}{v['points']}.emplace_back({M} - 1, {v['col']}({v['gen']}));")
        ln(f"{I*3}{v['points']}.emplace_back({v['row']}({v['gen']}), {N} - 1);")
        ln(f"{I*2}}}")
        ln(f"{I*2}for (int {v['s']} = 0; {v['s']} < 2048; ++{v['s']})")
        ln(f"{I*3}{v['points']}.emplace_back({v['row']}({v['gen']}), {v['col']}({v['gen']}));")
        ln(f"{I}}}")
        ln(f"{I}long long {v['mismatches']} = 0;")
        ln(f"{I}double {v['max_error']} = 0.0;")
        if amax:
            ln(f"{I}double {v['amax_ref']} = 0.0, {v['amax_bound']} = 0.0;")
        ln(f"{I}for (const auto& {v['point']} : {v['points']})")
        ln(f"{I}{{")
        pi, pj = f"{v['point']}.first", f"{v['point']}.second"
        ln(f"{I*2}double {v['expected']} = 0.0, {v['bound']} = 0.0;")
        ln(f"{I*2}const bool {v['ok']} = {v['check']}({pi}, {pj}, {v['expected']}, {v['bound']});")
        element = f"{v['result']}[static_cast<size_t>({pi}) * {N} + {pj}]"
        ln(f"{I*2}const double {v['got']} = {c_value(element)};")
        if amax:
            ln(f"{I*2}{v['amax_ref']} = std::fmax({v['amax_ref']}, std::fabs({v['amax_x']}));")
            ln(f"{I*2}{v['amax_bound']} = std::fmax({v['amax_bound']}, {v['amax_e']});")
        ln(f"{I*2}{v['max_error']} = std::fmax({v['max_error']}, std::fabs({v['got']} - {v['expected']}));")
        ln(f"{I*2}if (!{v['ok']} && {v['mismatches']}++ < 10)")
        ln(f'{I*3}std::fprintf(stderr, "Mismatch at C[%d][%d]: expected {fmt}, got {fmt} (bound %.3g)\\n",')
        ln(f"{I*3}             {pi}, {pj}, {v['expected']}, {v['got']}, {v['bound']});")
        ln(f"{I}}}")
        if amax:
            w.extend(harness_output.amax_verdict(v, M, N))
        ln("")
        ln(f"{I}const double {v['flops']} = 2.0 * {M} * static_cast<double>({N}) * {K};")
        ln(f'{I}std::printf("Checked     : %zu elements of C, max |error| %.3g: %s\\n", {v["points"]}.size(),')
        ln(f'{I}            {v["max_error"]}, {v["mismatches"]} ? "FAILED" : "PASSED");')
        ln(f'{I}std::printf("Kernel time : %.4f ms (average of %d runs)\\n", {v["ms"]}, {v["timing_runs"]});')
        ln(f'{I}std::printf("Throughput  : %.3f TFLOP/s\\n", {v["flops"]} / ({v["ms"]} * 1.0e-3) / 1.0e12);')
        ln("")
        ln(f"{I}GEMMC_CHECK(hipEventDestroy({v['start']}));")
        ln(f"{I}GEMMC_CHECK(hipEventDestroy({v['stop']}));")
        for q in mem:
            ln(f"{I}GEMMC_CHECK(hipFree({v['d_' + q.name]}));")
        ln(f"{I}return {v['mismatches']} ? EXIT_FAILURE : EXIT_SUCCESS;")
        ln("}")
        return w


_HOST_CONVERSIONS = {
    "float": [
        "inline void gemmc_set(float& out, float x) { out = x; }",
        "inline double gemmc_to_double(const float& x) { return x; }",
    ],
    "_Float16": [
        "inline void gemmc_set(_Float16& out, float x)",
        "{",
        "    unsigned u;",
        "    std::memcpy(&u, &x, sizeof u);",
        "    const unsigned sign = (u >> 16) & 0x8000u, mantissa = u & 0x7fffffu;",
        "    const int exponent = static_cast<int>((u >> 23) & 0xffu) - 127 + 15;",
        "    unsigned short bits = static_cast<unsigned short>(sign); // tiny values flush to zero",
        "    if (exponent >= 31)",
        "        bits = static_cast<unsigned short>(sign | 0x7c00u);",
        "    else if (exponent > 0)",
        "    {",
        "        unsigned h = (static_cast<unsigned>(exponent) << 10) | (mantissa >> 13);",
        "        const unsigned rest = mantissa & 0x1fffu;",
        "        if (rest > 0x1000u || (rest == 0x1000u && (h & 1u)))",
        "            ++h; // to nearest, ties to even",
        "        bits = static_cast<unsigned short>(sign | h);",
        "    }",
        "    std::memcpy(&out, &bits, sizeof out);",
        "}",
        "inline double gemmc_to_double(const _Float16& x)",
        "{",
        "    unsigned short h;",
        "    std::memcpy(&h, &x, sizeof h);",
        "    const int exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;",
        "    const double v = exponent == 0    ? std::ldexp(mantissa, -24)",
        "                     : exponent == 31 ? (mantissa ? NAN : INFINITY)",
        "                                      : std::ldexp(mantissa | 0x400, exponent - 25);",
        "    return (h & 0x8000) ? -v : v;",
        "}",
    ],
    "__bf16": [
        "inline void gemmc_set(__bf16& out, float x)",
        "{",
        "    unsigned u;",
        "    std::memcpy(&u, &x, sizeof u);",
        "    const unsigned short bits = static_cast<unsigned short>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);",
        "    std::memcpy(&out, &bits, sizeof out);",
        "}",
        "inline double gemmc_to_double(const __bf16& x)",
        "{",
        "    unsigned short h;",
        "    std::memcpy(&h, &x, sizeof h);",
        "    const unsigned u = static_cast<unsigned>(h) << 16;",
        "    float f;",
        "    std::memcpy(&f, &u, sizeof f);",
        "    return f;",
        "}",
    ],
}


def _host_conversions(types: set[str]) -> list[str]:
    """Host conversions between float / double and the element types.  The 16-bit ones are
    done by hand, on references: the compiler would call __truncsfbf2 / __extendhfsf2 (even
    to pass a __bf16 by value), which older libgcc (GCC < 12 / 13) does not have."""
    out = ["", "// Conversions between the element types and float / double on the host; the 16-bit",
           "// ones by hand, so that the harness links without compiler-runtime helpers."]
    for t in ("float", "_Float16", "__bf16"):
        if t in types or t == "float":
            out += _HOST_CONVERSIONS[t]
    for t in ("int8_t", "uint8_t", "int32_t"):  # an integer product's (exact in a double)
        if t in types:
            out.append(f"inline double gemmc_to_double(const {t}& x) {{ return x; }}")
    return out


def _scales_load_of(scalar: SSAValue, mem: SSAValue) -> bool:
    """Whether `scalar` is an operand of a multiply or fma with a value loaded from `mem`."""
    for use in scalar.uses:
        op = use.operation
        if op.name not in ("arith.mulf", "math.fma", "vector.fma"):
            continue
        operands = list(op.operands)[:2]
        for other in operands:
            if other is not scalar and _loaded_from(other, mem):
                return True
    return False


def _loaded_from(v: SSAValue, mem: SSAValue, depth: int = 0) -> bool:
    owner = v.owner
    if depth > 8 or not isinstance(owner, Operation):
        return False
    if owner.name in ("memref.load", "vector.load"):
        return owner.operands[0] is mem
    if owner.name in ("arith.extf", "arith.truncf", "vector.broadcast", "vector.extract"):
        return _loaded_from(owner.operands[0], mem, depth + 1)
    return False


def _structural_transposes(body: Block, a: int, b: int) -> tuple[bool, bool]:
    """Transposes from a step-1 kernel: which index of A and B is the K loop's induction var."""
    out = []
    for i, axis_of_k in ((a, 1), (b, 0)):
        arg = body.args[i]
        found = None
        for use in arg.uses:
            op = use.operation
            if op.name != "memref.load":
                continue
            idx = list(op.operands[1:])
            for pos, v in enumerate(idx):
                if isinstance(v, BlockArgument) and v.index == 0 and v.block.parent_op() is not None \
                        and v.block.parent_op().name == "scf.for":
                    found = pos != axis_of_k
        if found is None:
            raise emit_error(body.parent_op(), "--harness cannot tell the layout of A and B: give the dims distinct names")
        out.append(found)
    return out[0], out[1]


def _acc_eps(body: Block, fn: Operation) -> float:
    """The rounding unit of the accumulator: loop-carried floats and private tiles."""
    eps: list[float] = []
    for op in walk_block(body):
        if op.name == "scf.for":
            for r in op.results:
                e = float_eps(r.type.element_type if isinstance(r.type, VectorType) else r.type)
                if e:
                    eps.append(e)
        if op.name in ("memref.alloca", "memref.alloc"):
            t = op.results[0].type
            if isinstance(t, MemRefType) and memory_space(t) == PRIVATE_SPACE:
                e = float_eps(t.element_type)
                if e:
                    eps.append(e)
    if not eps:
        for arg in body.args:
            t = arg.type.element_type if isinstance(arg.type, MemRefType) else arg.type
            e = float_eps(t)
            if e:
                eps.append(e)
    return max(eps) if eps else 2.0**-23
