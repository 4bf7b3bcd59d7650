"""gemmc.transforms.guards: what an op's scf.if guards prove (a < b), and what they do not."""

from __future__ import annotations

import pytest
from xdsl.dialects import memref
from xdsl.parser import Parser

from gemmc.support.context import make_context
from gemmc.transforms.guards import proven_less

_IR = """
builtin.module {{
  "gpu.module"() <{{sym_name = "m"}}> ({{
    "gpu.func"() <{{function_type = (memref<4x4xf32>, index, index, index, index) -> (), kernel}}> ({{
    ^bb0(%Y: memref<4x4xf32>, %r: index, %end: index, %c: index, %n: index):
      %x = arith.constant 0.0 : f32
      %a = arith.cmpi {p}, %r, %end : index
      %b = arith.cmpi ult, %c, %n : index
      %g = arith.{join} %a, %b : i1
      scf.if %g {{
        memref.store %x, %Y[%r, %c] : memref<4x4xf32>
      }} else {{
        memref.store %x, %Y[%c, %r] : memref<4x4xf32>
      }}
      "gpu.return"() : () -> ()
    }}) {{sym_name = "k"}} : () -> ()
  }}) : () -> ()
}}
"""


def _stores(p: str, join: str):
    m = Parser(make_context(), _IR.format(p=p, join=join)).parse_module()
    then, other = [o for o in m.walk() if isinstance(o, memref.StoreOp)]
    args = next(o for o in m.walk() if o.name == "gpu.func").body.blocks[0].args
    return then, other, args[1], args[2]


@pytest.mark.parametrize("p, join, in_then, in_else", [
    ("ult", "andi", True, False),   # then: both hold; else: nothing known
    ("uge", "ori", False, True),    # else: both fail, so r < end; then: nothing known
    ("slt", "andi", True, False),
    ("ult", "ori", False, False),   # then of an or: either may hold
    ("ule", "andi", False, False),  # r <= end is not r < end
    ("eq", "andi", False, False),
])
def test_proven_less(p, join, in_then, in_else):
    then, other, r, end = _stores(p, join)
    assert proven_less(then, r, end) is in_then
    assert proven_less(other, r, end) is in_else
    assert not proven_less(then, end, r)  # the other way round is never proven
