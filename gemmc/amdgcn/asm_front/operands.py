"""One instruction line of LLVM's AMDGCN assembly, split: the mnemonic, its operands (registers,
special registers, constants, each with its input modifiers) and its trailing modifiers
(`offset:16`, `op_sel:[0,1]`, `dst_sel:WORD_1`, ...) as integers.

The syntax is LLVM's AMDGPU assembler syntax (llvm/docs/AMDGPUOperandSyntax.rst and
AMDGPUModifierSyntax.rst): registers `v7`, `s[4:5]`, `a[0:15]`, `vcc`, `vcc_lo`, `exec`, `m0`,
`null`, `off`; integer and float constants; `-x`, `|x|`, `neg(x)`, `abs(x)`, `sext(x)` around
a source; `lit(x)`, gfx12's explicit literal.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gemmc.support.diagnostics import GemmcError, Location


@dataclass(frozen=True)
class Operand:
    kind: str  # "v" "s" "a" (registers), "special" (its name), "const" (int or float), "label",
    # "call" (`sendmsg(MSG_DEALLOC_VGPRS)`, `instid0(VALU_DEP_1)`: value the text)
    value: object = 0  # first register, special register name, constant or label
    n: int = 1  # registers
    half: int = -1  # a 16-bit half of a VGPR (gfx11+'s true16 `v1.l` 0, `v1.h` 1), -1 the whole
    neg: bool = False
    abs: bool = False
    sext: bool = False

    @property
    def is_reg(self) -> bool:
        return self.kind in ("v", "s", "a")


@dataclass
class Parsed:
    mnemonic: str
    operands: list[Operand]
    mods: dict[str, int]
    loc: Location


_REG = re.compile(r"^([vsa])(\d+)$|^([vsa])\[(\d+):(\d+)\]$")
_TTMP = re.compile(r"^ttmp(\d+)$")
_HALF = re.compile(r"^v(\d+)\.([lh])$")
_LABEL = re.compile(r"^\.?[A-Za-z_][\w.$]*$")
_CALL = re.compile(r"^(sendmsg|instid0|instid1|instskip|hwreg)\(.*\)$")
_SPECIAL = {"vcc": "vcc", "vcc_lo": "vcc", "exec": "exec", "exec_lo": "exec", "scc": "scc", "m0": "m0",
            "null": "null", "off": "off", "vcc_hi": "vcc_hi", "exec_hi": "exec_hi"}
# sel names of SDWA (AMDGPUModifierSyntax.rst: dst_sel, src0_sel, src1_sel; dst_unused)
SDWA_SEL = {"BYTE_0": 0, "BYTE_1": 1, "BYTE_2": 2, "BYTE_3": 3, "WORD_0": 4, "WORD_1": 5, "DWORD": 6}
SDWA_UNUSED = {"UNUSED_PAD": 0, "UNUSED_SEXT": 1, "UNUSED_PRESERVE": 2}
# modifiers that only choose a cache policy or a scope: nothing the interpreter's memory (one
# coherent copy, accesses in program order per wave) computes differently
CACHE_POLICY = ("glc", "slc", "dlc", "sc0", "sc1", "nt", "th", "scope", "nv")
_FLAGS = ("clamp", "high", "gds", "lds", "idxen", "offen", "addr64", "bound_ctrl", "fi")
_VALUED = ("offset", "offset0", "offset1", "mul", "div", "cbsz", "abid", "blgp", "row_mask", "bank_mask",
           "row_shl", "row_shr", "row_ror", "row_bcast", "wave_shl", "wave_shr", "wave_rol", "wave_ror",
           "row_share", "row_xmask", "index_key", "byte_sel", "bound_ctrl", "fi", "bitop3")
_LISTS = ("op_sel", "op_sel_hi", "neg_lo", "neg_hi", "quad_perm", "matrix_a_reuse", "matrix_b_reuse")


def _split(text: str) -> list[str]:
    """Split at the commas outside brackets and parentheses."""
    out, depth, cur = [], 0, []
    for ch in text:
        if ch in "[(":
            depth += 1
        elif ch in "])":
            depth -= 1
        if ch == "," and depth == 0:
            out.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    if "".join(cur).strip():
        out.append("".join(cur).strip())
    return out


def _number(s: str) -> int | float | None:
    try:
        return int(s, 0)
    except ValueError:
        pass
    try:
        return float(s)
    except ValueError:
        return None


def operand(text: str, loc: Location) -> Operand:
    t = text.strip()
    for fn, key in (("neg(", "neg"), ("abs(", "abs"), ("sext(", "sext"), ("lit(", None), ("lit64(", None)):
        if t.startswith(fn) and t.endswith(")"):
            inner = operand(t[len(fn):-1], loc)
            return inner if key is None else _with(inner, **{key: True})
    if t.startswith("-") and not t[1:2].isdigit():
        return _with(operand(t[1:], loc), neg=True)
    if len(t) >= 2 and t[0] == "|" and t[-1] == "|":
        return _with(operand(t[1:-1], loc), abs=True)
    m = _REG.match(t)
    if m:
        if m.group(1):
            return Operand(m.group(1), int(m.group(2)))
        lo, hi = int(m.group(4)), int(m.group(5))
        return Operand(m.group(3), lo, hi - lo + 1)
    m = _TTMP.match(t)
    if m:  # a trap temporary (gfx12 keeps the workgroup ids in ttmp7 and ttmp9): read-only here
        return Operand("special", t)
    m = _HALF.match(t)
    if m:
        return Operand("v", int(m.group(1)), half=0 if m.group(2) == "l" else 1)
    if t in _SPECIAL:
        return Operand("special", _SPECIAL[t])
    num = _number(t)
    if num is not None:
        return Operand("const", num)
    if _CALL.match(t):
        return Operand("call", t)
    if _LABEL.match(t):
        return Operand("label", t)
    raise GemmcError(f"cannot read the operand '{t}'", loc)


def _with(o: Operand, **kw) -> Operand:
    d = dict(o.__dict__)
    d.update(kw)
    return Operand(**d)


def _modifier(tok: str, mods: dict[str, int], loc: Location) -> None:
    key, _, val = tok.partition(":")
    if key in CACHE_POLICY:
        return
    if key in ("dst_sel", "src0_sel", "src1_sel") and val in SDWA_SEL:
        mods[key] = SDWA_SEL[val]
    elif key == "dst_unused" and val in SDWA_UNUSED:
        mods[key] = SDWA_UNUSED[val]
    elif key in _LISTS and val.startswith("[") and val.endswith("]"):
        bits = [int(x, 0) for x in val[1:-1].split(",")]
        # quad_perm: 2 bits a lane; the others: one bit an operand
        mods[key] = sum(b << ((2 if key == "quad_perm" else 1) * i) for i, b in enumerate(bits))
    elif key in _VALUED and val:
        mods[key] = int(val, 0)
    elif key in _FLAGS and not val:
        mods[key] = 1
    elif key in ("row_mirror", "row_half_mirror", "row_bcast15", "row_bcast31") and not val:
        mods[key] = 1
    else:
        raise GemmcError(f"unknown modifier '{tok}'", loc)


_SPACED_MOD = re.compile(r"\b([a-z_][a-z_0-9]*):\s+(?=[-\w\[])")
_WAIT = re.compile(r"(vmcnt|expcnt|lgkmcnt|vm_vsrc|va_vdst|sa_sdst|va_sdst|va_vcc|vs_vcc|va_ssrc|hold_cnt)\((\d+)\)")


def parse_line(text: str, loc: Location) -> Parsed:
    """One instruction: `mnemonic operand, operand ... modifier modifier`."""
    mnemonic, _, rest = text.strip().replace("\t", " ").partition(" ")  # (hand-written code: tabs)
    rest = rest.strip()
    if mnemonic in ("s_waitcnt", "s_waitcnt_depctr", "s_wait_alu") and "(" in rest:
        mods = {k.replace("depctr_", ""): int(v) for k, v in _WAIT.findall(rest)}
        return Parsed(mnemonic, [], mods, loc)
    if mnemonic == "s_delay_alu":  # a scheduling hint: `instid0(VALU_DEP_1) | instskip(NEXT) | ...`
        return Parsed(mnemonic, [], {}, loc)
    # `offset: 8`: LLVM's assembler takes a space after a modifier's colon (seb-v's hand-written .s)
    rest = _SPACED_MOD.sub(r"\1:", rest)
    pieces = _split(rest) if rest else []
    mods: dict[str, int] = {}
    if pieces:
        last = pieces[-1].split()
        # an operand-less instruction's modifiers, or the last operand and the modifiers after it
        first_is_mod = (":" in last[0] and not last[0].startswith(("[", "s[", "v[", "a["))
                        or last[0] in _FLAGS or last[0] in CACHE_POLICY)
        pieces[-1:] = [] if first_is_mod else [last[0]]
        for tok in last if first_is_mod else last[1:]:
            _modifier(tok, mods, loc)
    return Parsed(mnemonic, [operand(p, loc) for p in pieces], mods, loc)
