"""The text of an AMDGCN assembly file as LLVM writes it (clang -S for amdgcn-amd-amdhsa): the
target, each kernel's instruction lines (from its label to `.Lfunc_endN`), its `.amdhsa_kernel`
descriptor and its entry of the `.amdgpu_metadata` YAML (the kernarg layout).

The YAML is the small subset LLVM's AMDGPU metadata streamer writes (block maps and lists,
plain and quoted scalars); anything else is an error at its line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from gemmc.support.diagnostics import GemmcError, Location


@dataclass
class Line:
    """One instruction line, its comment and whitespace stripped, and where it is."""
    text: str
    loc: Location


@dataclass
class AsmKernel:
    name: str
    lines: list[Line] = field(default_factory=list)  # instructions and labels (`.LBB0_2:`)
    descriptor: dict[str, int] = field(default_factory=dict)  # `.amdhsa_x N` without `.amdhsa_`
    meta: dict = field(default_factory=dict)  # its amdhsa.kernels entry, keys without the dot


@dataclass
class AsmFile:
    path: str
    target: str  # gfx942 (features such as :xnack- dropped)
    kernels: dict[str, AsmKernel]


# the target triple and processor: clang's `amdgcn-amd-amdhsa--gfx942`, Triton's LLVM's
# `amdgpu9.42-amd-amdhsa-unknown-gfx942`
_TARGET = re.compile(r'\.amdgcn_target\s+"[a-z0-9.]+-amd-amdhsa-[a-z]*-(gfx[0-9a-f]+)')
_LABEL = re.compile(r"^([A-Za-z_.$][\w.$]*):")


def _strip(line: str) -> str:
    return line.split(";", 1)[0].strip()


def parse_file(path: str, text: str) -> AsmFile:
    """The kernels of an assembly file."""
    lines = text.splitlines()
    m = _TARGET.search(text)
    if m is None:
        raise GemmcError("no '.amdgcn_target \"amdgcn-amd-amdhsa--gfxNNN\"' directive: not AMDGCN assembly "
                         "for the HSA ABI", Location(path, 1, 1))
    descriptors = _descriptors(path, lines)
    meta = _metadata(path, lines)
    kernels = {}
    for name, desc in descriptors.items():
        k = AsmKernel(name, _body(path, lines, name), desc, meta.get(name, {}))
        if not k.meta:
            raise GemmcError(f"kernel {name} has no entry in the .amdgpu_metadata block", Location(path, 1, 1))
        kernels[name] = k
    if not kernels:
        raise GemmcError("no kernel (.amdhsa_kernel) in the file", Location(path, 1, 1))
    return AsmFile(path, m.group(1), kernels)


def _body(path: str, lines: list[str], name: str) -> list[Line]:
    """The instruction and label lines of kernel `name`: after `name:`, up to `.Lfunc_end`."""
    out: list[Line] = []
    inside = False
    for i, raw in enumerate(lines):
        s = _strip(raw)
        if not inside:
            inside = s == f"{name}:"
            continue
        if s.startswith(".Lfunc_end") or s.startswith(".end_amdhsa") or s.startswith(".amdhsa_kernel"):
            return out
        if not s or (s.startswith(".") and not _LABEL.match(s)):
            continue  # a directive (.p2align, .cfi_*) in the text
        col = len(raw) - len(raw.lstrip()) + 1
        out.append(Line(s, Location(path, i + 1, col, raw)))
    if not inside:
        raise GemmcError(f"kernel {name}: no label '{name}:' in the text", Location(path, 1, 1))
    return out


def _descriptors(path: str, lines: list[str]) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    cur: dict[str, int] | None = None
    sets = {m.group(1): m.group(2) for m in (_SET.match(_strip(l)) for l in lines) if m}
    for i, raw in enumerate(lines):
        s = _strip(raw)
        if s.startswith(".amdhsa_kernel "):
            cur = out.setdefault(s.split()[1], {})
        elif s.startswith(".end_amdhsa_kernel"):
            cur = None
        elif cur is not None and s.startswith(".amdhsa_"):
            key, _, expr = s.partition(" ")
            if key[len(".amdhsa_"):] in _UNREAD:
                continue
            try:
                cur[key[len(".amdhsa_"):]] = evaluate(expr, sets)
            except (ValueError, KeyError, SyntaxError, RecursionError):
                raise GemmcError(f"cannot read the descriptor directive '{s}'", Location(path, i + 1, 1, raw)) from None
    return out


# descriptor fields nothing here reads, whose values LLVM may write as expressions of the code's
# size (`.amdhsa_inst_pref_size ((instprefsize(.Lfunc_end0-k)<<4)&1008)>>4`, gfx11+: how much
# of the kernel the instruction cache prefetches; the interpreter and the timing model have no
# instruction cache)
_UNREAD = ("inst_pref_size",)
_SET = re.compile(r"^\.set\s+([\w.$]+)\s*,\s*(.+)$")
_SYMBOL = re.compile(r"[A-Za-z_.$][\w.$]*")
# the functions of LLVM's AMDGPU MC expressions (AMDGPUMCExpr): the register counts of code
# objects whose resources are symbols (`.set k.num_vgpr, max(46, amdgpu.max_num_vgpr)`)
_FUNCTIONS = {
    "max": lambda *a: max(a), "min": lambda *a: min(a), "or": lambda *a: __import__("functools").reduce(
        lambda x, y: x | y, a),
    "alignto": lambda x, a: -(-x // a) * a,
    # gfx90a+: AGPRs after the VGPRs rounded to 4 (AMDGPUMCExpr::createTotalNumVGPR)
    "totalnumvgprs": lambda agprs, vgprs: vgprs if agprs == 0 else -(-vgprs // 4) * 4 + agprs,
}


def evaluate(expr: str, sets: dict[str, str], depth: int = 0) -> int:
    """An assembler expression's value: integers, + - * / & | ~ << >>, LLVM's functions and the
    `.set` symbols (recursively; an undefined one is an error)."""
    import ast

    if depth > 50:
        raise RecursionError(expr)
    names: dict[str, str] = {}

    def symbol(m: re.Match) -> str:
        word = m.group(0)
        if word in _FUNCTIONS or word.isdigit():
            return word
        key = f"_s{len(names)}"
        names[key] = word
        return key

    text = _SYMBOL.sub(symbol, expr.replace("&&", " and ").replace("||", " or "))
    tree = ast.parse(text.replace("/", "//"), mode="eval")

    def ev(n):
        if isinstance(n, ast.Expression):
            return ev(n.body)
        if isinstance(n, ast.Constant) and isinstance(n.value, int):
            return n.value
        if isinstance(n, ast.Name):
            if n.id in names:
                return evaluate(sets[names[n.id]], sets, depth + 1)
            raise KeyError(n.id)
        if isinstance(n, ast.UnaryOp):
            v = ev(n.operand)
            return {ast.USub: -v, ast.Invert: ~v, ast.UAdd: v}[type(n.op)]
        if isinstance(n, ast.BinOp):
            a, b = ev(n.left), ev(n.right)
            ops = {ast.Add: a + b, ast.Sub: a - b, ast.Mult: a * b, ast.BitAnd: a & b, ast.BitOr: a | b,
                   ast.BitXor: a ^ b, ast.LShift: a << b if b >= 0 else 0, ast.RShift: a >> b if b >= 0 else 0}
            if isinstance(n.op, ast.FloorDiv):
                return int(a / b) if b else 0
            return ops[type(n.op)]
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in _FUNCTIONS:
            return int(_FUNCTIONS[n.func.id](*[ev(a) for a in n.args]))
        raise ValueError(expr)

    return int(ev(tree))


def _metadata(path: str, lines: list[str]) -> dict[str, dict]:
    """The amdhsa.kernels entries by name."""
    start = next((i for i, l in enumerate(lines) if _strip(l) == ".amdgpu_metadata"), None)
    if start is None:
        raise GemmcError("no .amdgpu_metadata block (the kernarg layout)", Location(path, 1, 1))
    body = []
    for i in range(start + 1, len(lines)):
        if _strip(lines[i]) == ".end_amdgpu_metadata":
            break
        if lines[i].strip() and lines[i].strip() not in ("---", "...") and not lines[i].lstrip().startswith("#"):
            body.append((i + 1, lines[i]))
    doc, _ = _yaml_block(path, body, 0, 0)
    kernels = doc.get("amdhsa.kernels", []) if isinstance(doc, dict) else []
    return {k.get("name"): k for k in kernels if isinstance(k, dict)}


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _scalar(s: str):
    s = s.strip()
    if len(s) >= 2 and s[0] == s[-1] and s[0] in "'\"":
        return s[1:-1]
    try:
        return int(s, 0)
    except ValueError:
        return s


def _yaml_block(path: str, body: list, i: int, indent: int):
    """The map or list starting at body[i] (indented `indent`), and the index after it."""
    if i < len(body) and body[i][1].lstrip(" ").startswith("- "):
        items = []
        while i < len(body) and _indent(body[i][1]) == indent and body[i][1].lstrip(" ").startswith("- "):
            lineno, line = body[i]
            if ":" not in line:  # a scalar item
                items.append(_scalar(line.lstrip(" ")[2:]))
                i += 1
                continue
            # the item's first key is on the dash's line: read it as a map indented past the dash
            body[i] = (lineno, " " * (indent + 2) + line.lstrip(" ")[2:])
            item, i = _yaml_block(path, body, i, indent + 2)
            items.append(item)
        return items, i
    out: dict = {}
    while i < len(body) and _indent(body[i][1]) == indent:
        lineno, line = body[i]
        key, sep, rest = line.strip().partition(":")
        if not sep:
            raise GemmcError(f"cannot read the metadata line '{line.strip()}'", Location(path, lineno, indent + 1, line))
        key = key.lstrip(".") if key.startswith(".") else key
        i += 1
        if rest.strip():
            out[key] = _scalar(rest)
        elif i < len(body) and _indent(body[i][1]) >= indent and (
                _indent(body[i][1]) > indent or body[i][1].lstrip(" ").startswith("- ")):
            out[key], i = _yaml_block(path, body, i, _indent(body[i][1]))
        else:
            out[key] = None
    return out, i
