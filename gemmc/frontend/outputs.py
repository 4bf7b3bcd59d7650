"""A kernel's outputs beyond C: later assignments of matrices (`Y = gelu(C)`, each reading the
outputs assigned before it as stored) and an amax (`m = amax(...)`), checked against the
declarations with located errors (`b`: the parser's _Builder; docs/language.md, "Several outputs"
and "amax")."""

from __future__ import annotations

from lark import Token

from gemmc.frontend import epilogue as epi
from gemmc.frontend.epilogue_check import REQUANT_OUTPUT, MoreOutput

AMAX_DTYPE = "f32"  # an amax output's type (gemm.matmul's amax operand, memref<1xf32>)


def more_outputs(b, c, c_tok: Token, ast: epi.Node) -> list[MoreOutput]:
    """The outputs assigned after C: matrices of C's dims, row-major, each assigned once, whose
    expressions have C's product or read the outputs assigned before them (not an i8 one)."""
    out: list[MoreOutput] = []
    written = {str(c_tok): c}
    product = epi.products(ast)
    operands = {str(op.children[0]) for n in product for op in n.tree.children}
    for stmt in b.k.more:
        tok, tree = stmt.children
        t = b._matrix(tok)
        if str(tok) in written or str(tok) in operands:
            what = "assigned already" if str(tok) in written else "an operand of the product"
            raise b.error(tok, f"'{tok}' is {what}; each output is assigned once, apart from A and B")
        if [str(d) for d in t.dims] != [str(d) for d in c.dims] or t.col_major:
            raise b.error(tok, f"'{tok}' is [{', '.join(t.dim_names())}]{' col_major' if t.col_major else ''}; "
                          f"another output is [{', '.join(c.dim_names())}] row-major, as {c_tok}")
        node = epi.to_ast(tree)
        later = {str(s.children[0]) for s in b.k.more} - set(written) - {str(tok)}
        for n in epi.walk(node):
            if n.kind == "name" and str(n.token) in later | {str(tok)}:
                raise b.error(n.token, f"'{n.token}' is assigned below; an output is read after its assignment")
            if n.kind == "name" and str(n.token) in written and written[str(n.token)].dtype == REQUANT_OUTPUT:
                raise b.error(n.token, f"'{n.token}' is {REQUANT_OUTPUT}; a later output reads a float one")
        for p in epi.products(node):
            if product and _spelled(p) != _spelled(product[0]):
                raise b.error(p.token, "an assignment has one product A @ B (written again it is the same "
                              "sum); this is another")
        if not epi.products(node) and not any(n.kind == "name" and str(n.token) in written for n in epi.walk(node)):
            raise b.error(tok, f"'{tok}''s expression has neither the product nor an output assigned before it")
        out.append(MoreOutput(tok, t, node))
        written[str(tok)] = t
    return out


def amax(b, ast: epi.Node) -> tuple[Token | None, epi.Node | None]:
    """The amax output's name and amax's argument (None, None without one): a declared f32
    scalar, read nowhere, assigned amax of one expression of the same product."""
    if b.k.amax_assign is None:
        return None, None
    tok, tree = b.k.amax_assign.children
    call = epi.to_ast(tree)
    if len(call.args) != 1:
        raise b.error(call.token, f"'amax' takes 1 argument (amax(x)), not {len(call.args)}")
    if str(tok) not in b.k.scalars or b.k.scalars[str(tok)][1] != AMAX_DTYPE:
        what = (f"is {b.k.scalars[str(tok)][1]}" if str(tok) in b.k.scalars else
                "is a matrix" if str(tok) in b.k.tensors else "is not declared")
        raise b.error(tok, f"'{tok}' {what}; an amax output is a scalar '{tok}: {AMAX_DTYPE}'")
    for n in list(epi.walk(ast)) + list(epi.walk(call.args[0])):
        if n.kind == "name" and str(n.token) == str(tok):
            raise b.error(n.token, f"'{tok}' is the amax output; an expression cannot read it")
    mine, theirs = epi.products(call.args[0]), epi.products(ast)
    if not mine:
        raise b.error(call.token, "amax's argument has no product; expected 'A @ B' in it (the assignment's)")
    if theirs and _spelled(mine[0]) != _spelled(theirs[0]):
        raise b.error(mine[0].token, "amax is taken of the assignment's product A @ B; this is another")
    return tok, call.args[0]


def _spelled(node: epi.Node) -> str:
    """A product as written (`A @ B.T`), to compare two."""
    return " ".join(str(t) for t in node.tree.scan_values(lambda _: True))
