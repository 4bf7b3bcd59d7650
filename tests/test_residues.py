"""gemmc.residues: index expressions mod a power of two.  Soundness on random expressions (the
polynomial, evaluated, equals the value mod m), and the proof it exists for: a peeled copy's
vector start, aligned as a sum, not aligned without its head."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import IndexType, MemRefType, f16
from xdsl.ir import Block

from gemmc.transforms import residues
from gemmc.transforms.residues import offset_is_multiple, residue

MASK = (1 << 64) - 1  # index arithmetic wraps at 64 bits in the IR (32 on the GPU: m divides both)
OPS = ("add", "sub", "mul", "rem", "div")


def const(c: int):
    return arith.ConstantOp.from_int_and_width(c, IndexType()).result


def build(kind: str, x, y):
    return {"add": arith.AddiOp, "sub": arith.SubiOp, "mul": arith.MuliOp,
            "rem": arith.RemUIOp, "div": arith.DivUIOp}[kind](x, y).result


def evaluate(kind: str, a: int, b: int) -> int:
    return {"add": a + b, "sub": a - b, "mul": a * b, "rem": a % b if b else 0, "div": a // b if b else 0}[kind] & MASK


def poly_value(poly, values: dict, m: int) -> int:
    total = 0
    for mono, c in poly.items():
        term = c
        for key, power in mono:
            term *= values[key] ** power
        total += term
    return total % m


@settings(max_examples=150, deadline=None, derandomize=True)
@given(inputs=st.lists(st.integers(0, 2**40), min_size=3, max_size=3),
       steps=st.lists(st.tuples(st.sampled_from(OPS), st.integers(0, 99), st.integers(0, 99),
                                st.sampled_from([None, 1, 2, 3, 4, 8, 16, 24, 32, 64])), min_size=1, max_size=12))
def test_the_polynomial_is_the_value_mod_m(inputs, steps):
    """Every value's polynomial, its variables evaluated, equals the value mod 2, 4, 8, 16."""
    block = Block(arg_types=[IndexType()] * 3)
    vals = list(block.args)
    nums = list(inputs)
    for kind, i, j, c in steps:
        x, a = vals[i % len(vals)], nums[i % len(nums)]
        y, b = (const(c), c) if c is not None else (vals[j % len(vals)], nums[j % len(nums)])
        if kind in ("rem", "div") and b == 0:
            continue
        vals.append(build(kind, x, y))
        nums.append(evaluate(kind, a, b))
    known = {residues._key(v): n for v, n in zip(vals, nums)}
    for m in (2, 4, 8, 16):
        for v, n in zip(vals, nums):
            assert poly_value(residue(v, m), known, m) == n % m


def peeled_start(with_head: bool):
    """row * 67 + col + j * 8 + head, head = (8 - (row * 67 + col) mod 8) mod 8: the flat
    index of a peeled copy's vector in a matrix of 67-element rows, and its two indices."""
    row, col, j = Block(arg_types=[IndexType()] * 3).args
    start = build("add", build("mul", row, const(67)), col)
    head = build("rem", build("sub", const(8), build("rem", start, const(8))), const(8))
    c = build("add", build("mul", j, const(8)), head if with_head else const(0))
    return row, build("add", col, c)


def test_a_peeled_vector_start_is_aligned_as_a_sum():
    row, gc = peeled_start(with_head=True)
    matrix = Block(arg_types=[MemRefType(f16, [41, 67])]).args[0]
    assert residue(gc, 8)  # the column alone is not aligned
    assert offset_is_multiple(matrix, [row, gc], 8)
    assert offset_is_multiple(matrix, [row, gc], 2)


def test_without_its_head_it_is_not():
    row, gc = peeled_start(with_head=False)
    matrix = Block(arg_types=[MemRefType(f16, [41, 67])]).args[0]
    assert not offset_is_multiple(matrix, [row, gc], 2)


def test_a_dynamic_row_length_is_one_variable_with_memref_dim():
    """The row head computed from memref.dim of the matrix cancels the stride the offset takes
    from that matrix's dynamic size (the same variable)."""
    matrix = Block(arg_types=[MemRefType(f16, [-1, -1])]).args[0]
    row, col = Block(arg_types=[IndexType()] * 2).args
    ld = memref.DimOp(matrix, const(1)).result
    start = build("add", build("mul", row, ld), col)
    head = build("rem", build("sub", const(4), build("rem", start, const(4))), const(4))
    assert offset_is_multiple(matrix, [row, build("add", col, head)], 4)
    assert not offset_is_multiple(matrix, [row, col], 4)
