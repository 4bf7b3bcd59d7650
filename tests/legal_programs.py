"""Legal .gemm programs, per target, and what running one through the default pipeline must give.

`legal_programs(arch)` is a hypothesis strategy over the language (gemmc/frontend/gemm.lark,
docs/language.md) restricted to what the target declares it can do (Arch.dtypes): element types
and accumulators (f32, f16, bf16; f16 accumulation; every FP8 format of the target and every
pair of two of them; gfx950's block-scaled MX pairs of FP8, FP6 and FP4 with their E8M0
scales), C's type, layouts and transposes (the scales follow their operand's layout), the
alpha / beta forms (none, a literal, a scalar, `+ C`, one scalar for both), fused epilogues (relu,
gelu of a bias, silu of a scaled product, tanh of a clamp), static, dynamic,
1-sized and prime dims, the fuzzer's odd names (tests/fuzzing.py's NAMES), statements in any
order.  `run_default` takes one through what `gemmc run` and `gemmc compile` do without -p
(parse for the target, the default pipeline, HIP with the harness, the interpreter's check):
anything but a PASS raises AssertionError with the program.  `host_compile` builds the emitted
HIP's host side (tests/test_host_compile.py's clang for AMD; nvcc for sm_90).

tests/test_legal_programs.py runs a few dozen of them in CI; scripts/legal_sweep.py, many more.
"""

from __future__ import annotations

import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from hypothesis import strategies as st

import gemmc
from gemmc.support.diagnostics import GemmcError
from gemmc.target.arch import ARCHS, get_arch

from fuzzing import NAMES

TARGETS = tuple(ARCHS)  # the five AMD targets and sm_90
FP8 = ("f8e4m3fnuz", "f8e5m2fnuz", "f8e4m3fn", "f8e5m2")
MX_ELEMENTS = ("f8e4m3fn", "f8e5m2", "f6e2m3fn", "f6e3m2fn", "f4e2m1fn")
SCALE = "f8e8m0fnu"
MX_BLOCK = 32
# Small sizes keep the interpreter quick: 1-sized, primes, a power of two and its neighbours.
SIZES = (1, 2, 3, 5, 7, 8, 13, 16, 17, 31, 32, 33)
LITERALS = ("2.0", "0.5", "1", "1.0", "1.5", "3e-1", "2.", "0.0", "1.25e0", "0.25")


@dataclass
class Legal:
    """One legal program for one target, and the run sizes of its dynamic dims."""

    arch: str
    text: str
    sizes: dict[str, int] = field(default_factory=dict)
    kind: str = ""  # what the types are: "f32", "f16", "fp8", "mx", ...: the sweep counts by it

    def __str__(self) -> str:
        sizes = " ".join(f"-D {k}={v}" for k, v in self.sizes.items())
        return f"--arch {self.arch} {sizes}\n{self.text}"


def _types(draw, arch) -> tuple[str, str, str, str | None, str]:
    """(A's type, B's type, C's type, the acc statement's type or None, kind) legal on `arch`."""
    have = arch.dtypes
    kinds = ["f32"] + [t for t in ("f16", "bf16") if t in have]
    fp8 = [t for t in FP8 if t in have]
    mx = [t for t in MX_ELEMENTS if t in have] if SCALE in have else []
    kinds += ["fp8"] * bool(fp8) + ["fp8 pair"] * (len(fp8) > 1) + ["mx"] * bool(mx)
    kind = draw(st.sampled_from(kinds))
    outputs = [t for t in ("f32", "f16", "bf16") if t in have]
    if kind == "mx":  # a scaled product accumulates in f32 into an f32 C
        return draw(st.sampled_from(mx)), draw(st.sampled_from(mx)), "f32", draw(st.sampled_from([None, "f32"])), kind
    if kind == "fp8":
        a = b = draw(st.sampled_from(fp8))
    elif kind == "fp8 pair":  # e4m3 x e5m2 or e5m2 x e4m3: the hardware's fp8 x bf8
        a, b = draw(st.permutations(fp8))[:2]
    else:
        a = b = kind
    accs = [None, "f32"] + ["f16"] * ("f16" in (arch.compute_dtypes or have))  # (sm_90 stores f16, computes f32)
    return a, b, draw(st.sampled_from(outputs)), draw(st.sampled_from(accs)), kind


@st.composite
def legal_programs(draw, arch_name: str | None = None) -> Legal:
    """A legal program for `arch_name` (any target when None)."""
    arch = get_arch(arch_name or draw(st.sampled_from(TARGETS)))
    a_t, b_t, c_t, acc, kind = _types(draw, arch)
    scaled = kind == "mx"
    names = draw(st.permutations(NAMES))
    m, n, k, a, b, c, al, be, sa, sb, bias, scale = names[:12]
    kernel = draw(st.sampled_from(NAMES))
    dims: dict[str, int | None] = {}
    sizes: dict[str, int] = {}
    for d in draw(st.permutations([m, n, k])):
        value = draw(st.sampled_from(SIZES))
        if d == k and scaled:  # a static multiple of 32
            dims[d] = draw(st.sampled_from([MX_BLOCK, 2 * MX_BLOCK]))
        elif draw(st.booleans()):
            dims[d] = value
        else:
            dims[d], sizes[d] = None, value
    trans = (draw(st.booleans()), draw(st.booleans()))
    layout = (draw(st.sampled_from([None, "row_major", "col_major"])),
              draw(st.sampled_from([None, "row_major", "col_major"])), draw(st.sampled_from([None, "row_major"])))
    shape_a, shape_b = ([k, m] if trans[0] else [m, k]), ([n, k] if trans[1] else [k, n])

    def decl(name, dtype, shape, lay):
        return f"{name}: {dtype}[{shape[0]}, {shape[1]}]" + (f" {lay}" if lay else "")

    stmts = ["dim " + ", ".join(f"{d} = {v}" if v is not None else d for d, v in dims.items()),
             decl(a, a_t, shape_a, layout[0]), decl(b, b_t, shape_b, layout[1]), decl(c, c_t, [m, n], layout[2])]
    operand_a, operand_b = f"{a}{'.T' if trans[0] else ''}", f"{b}{'.T' if trans[1] else ''}"
    if scaled:
        scales_a = [f"{d}/{MX_BLOCK}" if d == k else d for d in shape_a]
        scales_b = [f"{d}/{MX_BLOCK}" if d == k else d for d in shape_b]
        stmts += [decl(sa, SCALE, scales_a, layout[0]), decl(sb, SCALE, scales_b, layout[1])]
        operand_a, operand_b = f"{operand_a} scaled {sa}", f"{operand_b} scaled {sb}"
    alpha = draw(st.sampled_from([None, "lit", "name"]))
    beta = draw(st.sampled_from([None, "plain", "lit", "name", "alpha"]))
    alpha_text = {None: "", "lit": draw(st.sampled_from(LITERALS)) + " * ", "name": f"{al} * "}[alpha]
    beta_text = {None: "", "plain": f" + {c}", "lit": f" + {draw(st.sampled_from(LITERALS))} * {c}",
                 "name": f" + {be} * {c}", "alpha": f" + {al} * {c}"}[beta]
    scalars = list(dict.fromkeys([al] * (alpha == "name" or beta == "alpha") + [be] * (beta == "name")))
    stmts += [f"{s}: {acc or 'f32'}" for s in scalars]
    if acc is not None:
        stmts.append(f"acc {acc}")
    expr = f"{alpha_text}{operand_a} @ {operand_b}{beta_text}"
    # a fused epilogue around it (docs/language.md): a function, a bias along N, a scale along M
    epilogue = draw(st.sampled_from([None, None, "relu", "gelu bias", "scale silu", "clamp tanh"]))
    if epilogue == "relu":
        expr = f"relu({expr})"
    elif epilogue == "gelu bias":
        expr, stmts = f"gelu({expr} + {bias})", stmts + [f"{bias}: f32[{n}]"]
    elif epilogue == "scale silu":
        expr, stmts = f"silu({scale} * ({expr}))", stmts + [f"{scale}: {acc or 'f32'}[{m}]"]
    elif epilogue == "clamp tanh":
        expr = f"tanh(clamp({expr}, -0.5, 2.0))"
    stmts = draw(st.permutations(stmts))
    stmts.append(f"{c} = {expr}")
    text = f"kernel {kernel} {{\n" + "".join(f"  {s}\n" for s in stmts) + "}\n"
    kind += f", acc {acc}" if acc == "f16" else ""
    kind += f", {epilogue}" if epilogue else ""
    return Legal(arch.name, text, sizes, kind)


def run_default(case: Legal, host: bool = False, tmp: Path | None = None) -> str:
    """`gemmc compile` and `gemmc run` of a legal program without -p: parse, the default pipeline,
    HIP with the harness (and its host side built, with `host`), the interpreter's check.  Returns
    the pipeline the selection chose; raises AssertionError for a refusal or a FAIL."""
    try:
        module = gemmc.parse(case.text, "legal.gemm", None, case.arch)
        gemmc.lower(module, None, case.arch)
        source = gemmc.emit(module, case.arch, "hip", harness=True)
        result = gemmc.check(module, case.arch, case.sizes)
    except GemmcError as e:
        raise AssertionError(f"a legal program was refused: {e.render()}\n{case}") from None
    assert result.passed, f"C differs from the declared program: {result.summary()}\n{case}"
    if host:
        with tempfile.TemporaryDirectory() as d:
            proc = host_compile(source, case.arch, Path(tmp or d))
        assert proc.returncode == 0, f"the host side does not build:\n{proc.stderr[:2000]}\n{case}"
    selected = module.attributes.get("gemmc.selected")
    return selected.data if selected is not None else ""


def host_compile(source: str, arch_name: str, tmp: Path) -> subprocess.CompletedProcess:
    """The host side of `source` compiled: clang's as tests/test_host_compile.py runs it on AMD
    targets; nvcc's host pass (-cuda: the CUDA front end, which type-checks the host code) on sm_90."""
    arch = get_arch(arch_name)
    if arch.vendor == "nvidia":
        from gemmc.target.cuda import find_nvcc, nvcc_flags

        path = tmp / "k.cu"
        path.write_text(source)
        return subprocess.run([find_nvcc(), *nvcc_flags(arch), "-cuda", str(path), "-o", str(tmp / "k.ii")],
                              capture_output=True, text=True, timeout=300)
    from gemmc.target.toolchain import find_toolchain
    from test_host_compile import host_compile as amd_host_compile

    return amd_host_compile(find_toolchain(), source, arch.name, tmp)
