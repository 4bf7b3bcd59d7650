"""What the fuzz tests (tests/test_fuzz.py) generate and how they judge a case.

A case is a .gemm program, defines, a pass pipeline, an arch and run sizes.  `run_case`
takes it through gemmc's Python API (parse, lower, emit HIP, print/parse the IR, and the
interpreter's check against numpy) and returns what happened; it raises AssertionError
for anything that is neither a success with a matching C nor a one-line GemmcError:
a Python exception of any other kind, a multi-line or located-but-wrong diagnostic, an
internal-error exit code, a failing check, or an interpreter error (out-of-bounds
access, LDS race) in a kernel that gemmc accepted.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field

from hypothesis import strategies as st
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, MemRefType

import gemmc
from gemmc.target.arch import ARCHS
from gemmc.support.diagnostics import GemmcError
from gemmc.support.ir_names import DIMS_ATTR
from gemmc.driver.pipeline import NAMED_PIPELINES, PASSES

DTYPES = ("f32", "f16", "bf16")
KEYWORDS = {"kernel", "dim", "acc", "f32", "f16", "bf16", "row_major", "col_major"}
# Names a program may use: plain, one letter, and ones that collide with C++ / HIP.
NAMES = (
    "A", "B", "C", "X", "Y", "Z", "a", "b", "c", "lhs", "rhs", "out", "M", "N", "K", "m", "n",
    "k", "P", "Q", "R", "rows", "cols", "depth", "alpha", "beta", "s", "t", "_x", "x_1",
    "int", "float", "double", "main", "half", "threadIdx", "blockIdx", "i", "j", "tx", "ty",
    "row", "col", "sum", "As", "Bs", "stream", "T", "const", "for", "if", "return", "auto",
    "__global__", "hipError_t", "launch_k", "zero", "Cs", "bx", "by", "grid_x",
)
MAX_RUN_WORK = 60_000  # M * N * K above which a case is lowered and emitted but not run


# -- valid programs -----------------------------------------------------------------------


@dataclass
class Program:
    name: str
    dims: dict[str, int | None]  # declared dims, in order; None = dynamic
    mnk: tuple[str, str, str]
    names: tuple[str, str, str]  # A, B, C
    in_type: str
    c_type: str
    acc: str | None  # None: no acc statement (f32)
    layout: tuple[str | None, str | None, str | None]  # A, B, C: None, row_major, col_major
    trans: tuple[bool, bool]
    alpha: tuple[str, str] | None  # ("lit", "2.0") or ("name", "alpha")
    beta: tuple[str, str] | None  # ("plain", "") for '+ C', ("lit", ..), ("name", ..)
    order: list[int]  # permutation of the declaration statements
    sizes: dict[str, int]  # run sizes of the dynamic dims
    style: int = 0  # 0: newlines, 1: one line, 2: comments everywhere
    defines: dict[str, int] = field(default_factory=dict)

    def text(self) -> str:
        acc = self.acc or "f32"
        m, n, k = self.mnk
        a, b, c = self.names

        def decl(name, d0, d1, dtype, layout):
            return f"{name}: {dtype}[{d0}, {d1}]" + (f" {layout}" if layout else "")

        sa = (k, m) if self.trans[0] else (m, k)
        sb = (n, k) if self.trans[1] else (k, n)
        dims = "dim " + ", ".join(f"{d} = {v}" if v is not None else d for d, v in self.dims.items())
        stmts = [
            dims,
            decl(a, *sa, self.in_type, self.layout[0]),
            decl(b, *sb, self.in_type, self.layout[1]),
            decl(c, m, n, self.c_type, self.layout[2]),
        ]
        scalars = []
        for s in (self.alpha, self.beta):
            if s is not None and s[0] == "name" and s[1] not in scalars:
                scalars.append(s[1])
        stmts += [f"{s}: {acc}" for s in scalars]
        if self.acc is not None:
            stmts.append(f"acc {self.acc}")
        stmts = [stmts[i] for i in self.order if i < len(stmts)] + stmts[len(self.order):]
        prod = f"{a}{'.T' if self.trans[0] else ''} @ {b}{'.T' if self.trans[1] else ''}"
        if self.alpha is not None:
            prod = f"{self.alpha[1]} * {prod}"
        rhs = prod
        if self.beta is not None:
            rhs += f" + {c}" if self.beta[0] == "plain" else f" + {self.beta[1]} * {c}"
        stmts.append(f"{c} = {rhs}")
        if self.style == 1:
            return f"kernel {self.name} {{ " + " ".join(stmts) + " }"
        if self.style == 2:
            body = "".join(f"  # statement {i}\n  {s} // trailing\n" for i, s in enumerate(stmts))
            return f"// generated\nkernel {self.name} # name\n{{\n{body}}}\n# end\n"
        return f"kernel {self.name} {{\n" + "".join(f"  {s}\n" for s in stmts) + "}\n"

    def run_dims(self) -> dict[str, int]:
        return dict(self.sizes)


SMALL = st.one_of(st.integers(1, 9), st.integers(10, 40), st.sampled_from([16, 32, 33, 48, 64, 65]))


@st.composite
def programs(draw) -> Program:
    pool = [x for x in NAMES]
    picked = draw(st.permutations(pool))
    m, n, k, a, b, c, al, be = picked[:8]
    kname = draw(st.sampled_from(NAMES))
    dims: dict[str, int | None] = {}
    sizes: dict[str, int] = {}
    for d in draw(st.permutations([m, n, k])):
        static = draw(st.booleans())
        v = draw(SMALL)
        dims[d] = v if static else None
        if not static:
            sizes[d] = v
    in_type = draw(st.sampled_from(DTYPES))
    c_type = draw(st.sampled_from(DTYPES))
    acc = draw(st.sampled_from([None, "f32", "f32", "f16"]))
    lay = st.sampled_from([None, None, "row_major", "col_major"])
    layout = (draw(lay), draw(lay), draw(st.sampled_from([None, "row_major"])))
    trans = (draw(st.booleans()), draw(st.booleans()))
    lit = st.sampled_from(["2.0", "0.5", "1", "1.0", "1.5", "3e-1", "2.", "0.0", "1.25e0"])
    alpha = draw(st.one_of(st.none(), st.tuples(st.just("lit"), lit), st.just(("name", al))))
    beta = draw(st.one_of(st.none(), st.just(("plain", "")), st.tuples(st.just("lit"), lit),
                          st.just(("name", be)), st.just(("name", al))))
    order = draw(st.permutations(list(range(7))))
    style = draw(st.sampled_from([0, 0, 1, 2]))
    defines = {}
    if draw(st.integers(0, 5)) == 0:  # override one dim with -D
        d = draw(st.sampled_from([m, n, k]))
        defines[d] = draw(SMALL)
        if dims[d] is None:
            sizes.pop(d, None)
    return Program(kname, dims, (m, n, k), (a, b, c), in_type, c_type, acc, layout, trans,
                   alpha, beta, order, sizes, style, defines)


# -- mutations ------------------------------------------------------------------------------

TOKEN = re.compile(r"\.T|[A-Za-z_][A-Za-z_0-9]*|[0-9]+(?:\.[0-9]*)?(?:[eE][+-]?[0-9]+)?|#[^\n]*|//[^\n]*|\S")
VOCAB = ["kernel", "dim", "acc", "f32", "f16", "bf16", "f64", "i32", "row_major", "col_major", ".T",
         "{", "}", "[", "]", ",", ":", "=", "*", "+", "@", "-", "/", "(", ")", ".", "A", "B", "C",
         "M", "N", "K", "Q", "alpha", "beta", "0", "1", "2.5", "-1", "1e999", "99999999999",
         "4294967296", "3.4e38", "70000.0", "1e-50", "\n", "#", "//", ";", "\"", "'", "\\", "\t"]
CHARS = st.one_of(st.characters(min_codepoint=0, max_codepoint=127),
                  st.sampled_from(["\u00e9", "\u2028", "\ufeff", "\u0000", "\r", "\x7f", "\u03bb", "\U0001f600"]))


@st.composite
def mutants(draw) -> str:
    text = draw(programs()).text()
    toks = [(m.start(), m.end()) for m in TOKEN.finditer(text)]
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["delete", "insert", "swap", "replace", "char", "truncate", "dup"]))
        toks = [(m.start(), m.end()) for m in TOKEN.finditer(text)]
        if not toks:
            break
        i = draw(st.integers(0, len(toks) - 1))
        s, e = toks[i]
        if kind == "delete":
            text = text[:s] + text[e:]
        elif kind == "insert":
            text = text[:s] + draw(st.sampled_from(VOCAB)) + " " + text[s:]
        elif kind == "replace":
            text = text[:s] + draw(st.sampled_from(VOCAB)) + text[e:]
        elif kind == "dup":
            text = text[:e] + " " + text[s:e] + text[e:]
        elif kind == "swap":
            j = draw(st.integers(0, len(toks) - 1))
            (s1, e1), (s2, e2) = sorted([toks[i], toks[j]])
            if e1 <= s2:
                text = text[:s1] + text[s2:e2] + text[e1:s2] + text[s1:e1] + text[e2:]
        elif kind == "char":
            pos = draw(st.integers(0, len(text)))
            text = text[:pos] + draw(CHARS) + text[pos:]
        elif kind == "truncate":
            text = text[: draw(st.integers(0, len(text)))]
    return text


# -- pipelines ------------------------------------------------------------------------------

GOOD_BLOCK = [1, 2, 4, 8, 16]
BAD_INT = [0, -1, 3, 7, 2048, 100000]


def _opt(draw, good, bad=BAD_INT):
    return draw(st.sampled_from(bad)) if draw(st.integers(0, 9)) == 0 else draw(st.sampled_from(good))


@st.composite
def pass_specs(draw, name: str) -> str:
    opts: dict[str, object] = {}
    if name == "gemm-to-kernel":
        opts = {"block-x": _opt(draw, [1, 2, 4, 8, 16, 32]), "block-y": _opt(draw, [1, 2, 4, 8, 16])}
    elif name == "lds-tiling":
        opts = {"block-m": _opt(draw, [1, 2, 4, 8, 16, 32]), "block-n": _opt(draw, [1, 2, 4, 8, 16, 32]),
                "block-k": _opt(draw, [1, 2, 3, 4, 8, 16, 32])}
    elif name == "register-tiling":
        opts = {"thread-m": _opt(draw, [1, 2, 4]), "thread-n": _opt(draw, [1, 2, 4])}
    elif name == "vectorize":
        opts = {"width": _opt(draw, [1, 2, 4, 8], [0, 3, 16, -4]), "strict": draw(st.sampled_from(["true", "false"]))}
    elif name == "launch-bounds":
        opts = {"max-threads": _opt(draw, [64, 128, 256, 512, 1024], [0, 1, 2000, -5]),
                "min-waves-per-eu": _opt(draw, [0, 1, 2, 4], [9, 17, -1]),
                "max-waves-per-eu": _opt(draw, [0, 2, 8], [1, 99])}
    keep = [kv for kv in opts.items() if draw(st.integers(0, 3)) > 0]
    if not keep:
        return name
    return name + "{" + " ".join(f"{k}={v}" for k, v in keep) + "}"


@st.composite
def coherent_pipelines(draw) -> str:
    """The tutorial's order, a random subset of its passes, options that mostly fit
    together (tiles that the workgroup divides), now and then one that does not."""
    bx, by = draw(st.sampled_from([1, 2, 4, 8, 16])), draw(st.sampled_from([1, 2, 4, 8, 16]))
    fm, fn = draw(st.sampled_from([1, 2, 4])), draw(st.sampled_from([1, 2, 4]))
    bm, bn = by * fm, bx * fn
    bk = draw(st.sampled_from([1, 2, 4, 8, 16, 3, 5]))
    tm = draw(st.sampled_from([d for d in (1, 2, 4, 8) if bm % d == 0]))
    tn = draw(st.sampled_from([d for d in (1, 2, 4, 8) if bn % d == 0]))
    specs = [f"gemm-to-kernel{{block-x={bx} block-y={by}}}"]
    if draw(st.integers(0, 5)) > 0:
        specs.append(f"lds-tiling{{block-m={bm} block-n={bn} block-k={bk}}}")
    later = draw(st.lists(st.sampled_from(["register-tiling", "double-buffer", "vectorize", "launch-bounds"]),
                          unique=True, max_size=4))
    for name in later:
        if name == "register-tiling":
            specs.append(f"register-tiling{{thread-m={tm} thread-n={tn}}}")
        elif name == "vectorize":
            specs.append(f"vectorize{{width={draw(st.sampled_from([1, 2, 4, 8]))}}}")
        elif name == "launch-bounds":
            specs.append(f"launch-bounds{{max-threads=1024 min-waves-per-eu={draw(st.sampled_from([0, 1, 2]))}}}")
        else:
            specs.append(name)
    if draw(st.integers(0, 7)) == 0:  # one pass with random (often bad) options
        i = draw(st.integers(0, len(specs) - 1))
        specs[i] = draw(pass_specs(re.match(r"[a-z-]+", specs[i]).group(0)))
    return ",".join(specs)


@st.composite
def pipelines(draw) -> str:
    """Coherent pipelines mostly; sometimes a named one, or passes in any order."""
    how = draw(st.integers(0, 19))
    if how == 0:
        return draw(st.sampled_from(["", "step1", "step2", "step3", "step4", "step5", "step6"]))
    if how <= 3:  # any order, repeats allowed
        names = draw(st.lists(st.sampled_from(list(PASSES)), min_size=1, max_size=5))
        return ",".join(draw(pass_specs(n)) for n in names)
    return draw(coherent_pipelines())


PIPE_VOCAB = [*PASSES, *NAMED_PIPELINES, "{", "}", "=", ",", " ", "block-m", "block-x", "width",
              "strict", "max-threads", "thread-m", "1", "-1", "0", "16", "true", "x", "\"", "1.5",
              "99999999999999999999", "bogus", "_", "é", "'", "[", "]"]


@st.composite
def raw_pipelines(draw) -> str:
    return "".join(draw(st.lists(st.sampled_from(PIPE_VOCAB), min_size=1, max_size=8)))


archs = st.sampled_from(list(ARCHS))


# -- judging a case -----------------------------------------------------------------------------


def assert_diagnostic(e: GemmcError) -> None:
    """A one-line diagnostic with a documented exit code."""
    assert isinstance(e, GemmcError)
    assert e.code in (1, 2, 3, 4), f"exit code {e.code}: {e.render()}"
    assert e.message.strip() and "\n" not in e.message, f"multi-line message: {e.message!r}"
    assert "internal error" not in e.message and "Traceback" not in e.message
    lines = e.render().split("\n")
    if e.loc is None:
        assert len(lines) == 1 and lines[0].startswith("error: ")
    else:
        assert lines[0].startswith(f"{e.loc.file}:{e.loc.line}:{e.loc.col}: error: ")
        assert e.loc.line >= 1 and e.loc.col >= 1
        assert len(lines) in (1, 3), lines


def dynamic_dims(module, size: int | dict[str, int]) -> dict[str, int]:
    """A run size for every dynamic dim of the host function's memrefs."""
    from gemmc.interp.check import host_function

    fn = host_function(module)
    out: dict[str, int] = {}
    attrs = fn.arg_attrs.data if fn.arg_attrs is not None else []
    for arg, attr in zip(fn.args, attrs):
        if not isinstance(arg.type, MemRefType) or not isinstance(attr, DictionaryAttr):
            continue
        names = attr.data.get(DIMS_ATTR)
        if not isinstance(names, ArrayAttr):
            continue
        for n, s in zip(names.data, arg.type.get_shape()):
            if s < 0:
                out[n.data] = size[n.data] if isinstance(size, dict) and n.data in size else (
                    size if isinstance(size, int) else 5)
    return out


def _work(module, dims: dict[str, int]) -> int:
    from gemmc.interp.check import arg_shapes, host_function

    fn = host_function(module)
    total = 1
    seen = {}
    attrs = fn.arg_attrs.data if fn.arg_attrs is not None else []
    for attr, shape in zip(attrs, arg_shapes(fn, dims)):
        names = attr.data.get(DIMS_ATTR) if isinstance(attr, DictionaryAttr) else None
        if shape is None or not isinstance(names, ArrayAttr):
            continue
        for n, s in zip(names.data, shape):
            seen[n.data] = s
    for s in seen.values():
        total *= s
    return total


def run_case(source: str, pipeline: str | None, arch: str, defines: dict[str, int] | None = None,
             sizes: dict[str, int] | int = 5, expect_parse: bool = False, roundtrip: bool = True,
             seed: int = 0) -> str:
    """Run one case; returns 'parse', 'lower', 'emit' (a diagnostic there), 'big' or 'ok'."""
    try:
        module = gemmc.parse(source, "fuzz.gemm", defines)
    except GemmcError as e:
        assert_diagnostic(e)
        assert not expect_parse, f"a valid program was rejected: {e.render()}\n{source}"
        return "parse"
    try:
        gemmc.lower(module, pipeline, arch)
    except GemmcError as e:
        assert_diagnostic(e)
        return "lower"
    lowered = gemmc.is_lowered(module)
    text = gemmc.print_ir(module)
    if roundtrip:
        again = gemmc.print_ir(gemmc.parse_ir(text, "fuzz.mlir"))
        assert again == text, "the IR does not round-trip"
    if lowered:
        _check_launch_bounds(module)
        try:
            gemmc.emit(module, arch, "hip")
            gemmc.emit(module, arch, "hip", harness=True)
        except GemmcError as e:
            assert_diagnostic(e)
            return "emit"
    dims = dynamic_dims(module, sizes)
    if _work(module, dims) > MAX_RUN_WORK:
        return "big"
    result = gemmc.check(module, arch, dims, seed=seed)  # any exception here is a bug
    if not result.passed and _may_overflow(module, result.shape[2]):
        return "overflow"  # a huge literal scale: C overflows its type, numpy's float64 does not
    assert result.passed, f"C differs from numpy: {result.summary()}"
    return "ok"


def _check_launch_bounds(module) -> None:
    """A kernel's workgroup never exceeds the launch bounds it declares."""
    from xdsl.dialects import gpu
    from xdsl.dialects.builtin import StringAttr

    for op in module.walk():
        if isinstance(op, gpu.FuncOp) and op.known_block_size is not None:
            bounds = op.attributes.get("rocdl.flat_work_group_size")
            if isinstance(bounds, StringAttr):
                threads = 1
                for d in op.known_block_size.get_values():
                    threads *= d
                assert threads <= int(bounds.data.split(",")[-1]), f"{threads} threads > launch bounds {bounds.data}"


def _may_overflow(module, k: int) -> bool:
    from gemmc.interp.check import matmul_spec

    spec = matmul_spec(module)
    scale = max([abs(s.value) for s in (spec.alpha, spec.beta) if s is not None and s.value is not None] + [1.0])
    return scale * max(k, 1) * 2 >= 65504.0  # the smallest finite max of f16, bf16, f32


def random_mutation(rng: random.Random, text: str) -> str:
    """A plain-random mutation (no hypothesis), for the console-script subset."""
    toks = [(m.start(), m.end()) for m in TOKEN.finditer(text)]
    s, e = rng.choice(toks)
    how = rng.randrange(3)
    if how == 0:
        return text[:s] + text[e:]
    if how == 1:
        return text[:s] + rng.choice(VOCAB) + " " + text[s:]
    return text[:s] + rng.choice(VOCAB) + text[e:]


# -- IR input ---------------------------------------------------------------------------------------

IR_TOKEN = re.compile(r'%[A-Za-z0-9_]+|@[A-Za-z0-9_]+|"[^"\n]*"|[A-Za-z_][A-Za-z0-9_.]*|-?\d+(?:\.\d+)?|\S')
IR_SOURCE = ("kernel k {\n  dim M, N = 9, K\n  A: f32[M, K]\n  B: f32[K, N]\n  C: f32[M, N]\n  alpha: f32\n"
             "  C = alpha * A @ B + C\n}\n")
_IR_TEXTS: dict[str, str] = {}


def ir_text(level: str) -> str:
    """The IR of IR_SOURCE after a named pipeline ('' = the gemm level), cached."""
    if level not in _IR_TEXTS:
        m = gemmc.parse(IR_SOURCE)
        gemmc.lower(m, level, "gfx942")
        _IR_TEXTS[level] = gemmc.print_ir(m)
    return _IR_TEXTS[level]


@st.composite
def ir_mutants(draw) -> str:
    """IR at some level with one to three tokens deleted, copied over others or inserted."""
    text = ir_text(draw(st.sampled_from(["", "step1", "step2", "step3", "step5"])))
    for _ in range(draw(st.integers(1, 3))):
        toks = [m.span() for m in IR_TOKEN.finditer(text)]
        s, e = toks[draw(st.integers(0, len(toks) - 1))]
        s2, e2 = toks[draw(st.integers(0, len(toks) - 1))]
        how = draw(st.integers(0, 2))
        if how == 0:
            text = text[:s] + text[e:]
        elif how == 1:
            text = text[:s] + text[s2:e2] + text[e:]
        else:
            text = text[:s] + text[s2:e2] + " " + text[s:]
    return text


def run_ir_case(text: str, pipeline: str | None, arch: str) -> str:
    """Mutated IR: a one-line diagnostic, or it runs (its C may legitimately differ from
    what the recorded spec says, so only crashes and out-of-bounds accesses count)."""
    try:
        module = gemmc.parse_ir(text, "fuzz.mlir")
        gemmc.lower(module, pipeline, arch)
        if gemmc.is_lowered(module):
            gemmc.emit(module, arch, "hip")
        gemmc.check(module, arch, {"M": 5, "K": 3, "N": 9})
    except GemmcError as e:
        assert_diagnostic(e)
        if "out-of-bounds" in e.message and "lds" not in e.message.lower():
            return "oob"  # a mutated index: the interpreter caught it, as it should
        return "diagnostic"
    return "ran"
