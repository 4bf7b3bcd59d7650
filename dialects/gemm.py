"""The gemm dialect: a whole matrix multiplication as one op, as the frontend builds it,
and the workgroup's tile copy that lds-tiling leaves for the late lowering.

    gemm.matmul %A, %B, %C alpha %alpha beta %beta {acc_type = f32, transpose_b}
        : memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>, f32

computes C = alpha * op(A) @ op(B) + beta * C, where op(X) is X or its transpose.
Memrefs hold operands in their stored, row-major shape: a transposed A is stored
[K, M].  Without alpha the product is scaled by 1; without beta, C is overwritten.

A fused epilogue replaces alpha and beta by a region that turns the product sum at
(row, col) into the stored value:

    gemm.matmul %A, %B, %C epilogue(%b, %R) {acc_type = f32, epilogue_axes = ["n", "mn"]}
        : memref<..>, memref<..>, memref<..> epilogue(memref<64xf32>, memref<64x64xbf16>) {
    ^bb0(%sum: f32, %b_e: f32, %r_e: bf16):
      ...arith / math ops...
      gemm.yield %v : f32
    }

The block's arguments are the sum (accumulator type) and, per epilogue operand, its
element at (row, col): a vector indexed along "m" (row) or "n" (column), a matrix "mn",
a scalar "".  The yielded value has the accumulator type and is rounded to C's type.

A grouped product (a mixture-of-experts layer's) multiplies G groups of A's rows each by
its own matrix of B:

    gemm.matmul %A, %B, %C grouped %sizes {acc_type = f32}
        : memref<?x64xf16>, memref<8x64x32xf16>, memref<?x32xf32> grouped memref<8xi32>

sizes[g] rows of A and C, from sizes[0] + ... + sizes[g - 1] on, times B[g] (after any
transpose_b, per group); the sizes are read at run time (docs/language.md, "Grouped GEMM").

`gemm.copy` (CopyOp, below) is the tile-level copy of the structured path: the
workgroup moves one tile of a global operand into an LDS buffer.  lds-tiling makes it,
vectorize and direct-to-lds choose how it moves, multi-buffer and pipeline index and
move it like any LDS store, and lower-copies turns it into the tutorial's copy loops.

A batched product has a leading batch dim on C and on A, B (or both): memrefs of rank 3,
[Bt, stored rows, stored cols]; an operand of rank 2 is shared by every batch (broadcast),
and transposes act on the last two dims.  A matrix epilogue operand ("mn") may be batched
as C is.

Function arguments carry `gemm.dims`, the names of their dimensions from the .gemm
source (["M", "K"] for A), which later levels use to name launch parameters.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    DenseArrayBase,
    IndexType,
    IntegerAttr,
    i64,
    ArrayAttr,
    Float32Type,
    IntegerType,
    MemRefType,
    StringAttr,
    UnitAttr,
)
from xdsl.ir import Attribute, Dialect, Region, SSAValue, TypeAttribute
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_region_def,
    traits_def,
    var_operand_def,
    opt_prop_def,
    prop_def,
)
from xdsl.traits import HasParent, IsTerminator
from xdsl.irdl.operations import AttrSizedOperandSegments, ParsePropInAttrDict
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from gemmc.dialects.element_types import (  # noqa: F401  (the element types' names, re-exported)
    ACC_TYPES, ELEMENT_TYPES, FP8_TYPES, INT4_TYPES, INT_ACC, INT_INPUT_TYPES, MX_BLOCK, MX_ELEMENT_NAMES,
    MX_NARROW_TYPES, OUTPUT_TYPES, SCALE_NAME, SCALE_TYPES, is_fp8, is_int, is_narrow_float, type_name,
)


def dims_attr(names: Sequence[str]) -> ArrayAttr[StringAttr]:
    return ArrayAttr([StringAttr(n) for n in names])


@irdl_op_definition
class MatmulOp(IRDLOperation):
    """C = alpha * op(A) @ op(B) + beta * C over memrefs."""

    name = "gemm.matmul"

    a = operand_def(MemRefType)
    b = operand_def(MemRefType)
    c = operand_def(MemRefType)
    alpha = opt_operand_def()  # of the accumulator type (verify_)
    beta = opt_operand_def()
    scale_a = opt_operand_def(MemRefType)  # block-scaled (MX) product: E8M0 scales of A and B
    scale_b = opt_operand_def(MemRefType)
    epilogue_args = var_operand_def()  # a fused epilogue's vectors, matrices and scalars
    outputs = var_operand_def(MemRefType)  # more outputs of C's shape, each stored by a gemm.output
    amax = opt_operand_def(MemRefType)  # memref<1xf32> raised to max |x| of the region's gemm.amax x
    # a grouped product (MoE): i32[G], each group's rows of A and C in order; B is [G, K, N]
    group_sizes = opt_operand_def(MemRefType)
    epilogue = opt_region_def()  # (sum, their elements) -> the stored value, in the acc type
    epilogue_axes = opt_prop_def(ArrayAttr)  # per epilogue arg: "m", "n", "mn" or "" (a scalar)

    acc_type = prop_def(TypeAttribute)
    transpose_a = opt_prop_def(UnitAttr)
    transpose_b = opt_prop_def(UnitAttr)
    # integer operands: A's (B's) i8 elements are unsigned (u8), zero-extended; else sign-extended
    unsigned_a = opt_prop_def(UnitAttr)
    unsigned_b = opt_prop_def(UnitAttr)

    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def __init__(
        self,
        a: SSAValue,
        b: SSAValue,
        c: SSAValue,
        acc_type: Attribute,
        alpha: SSAValue | None = None,
        beta: SSAValue | None = None,
        transpose_a: bool = False,
        transpose_b: bool = False,
        scale_a: SSAValue | None = None,
        scale_b: SSAValue | None = None,
        unsigned_a: bool = False,
        unsigned_b: bool = False,
        epilogue_args: Sequence[SSAValue] = (),
        epilogue_axes: Sequence[str] = (),
        epilogue: Region | None = None,
        amax: SSAValue | None = None,
        outputs: Sequence[SSAValue] = (),
        group_sizes: SSAValue | None = None,
    ):
        props: dict[str, Attribute | None] = {"acc_type": acc_type}
        for name, on in (("transpose_a", transpose_a), ("transpose_b", transpose_b),
                         ("unsigned_a", unsigned_a), ("unsigned_b", unsigned_b)):
            if on:
                props[name] = UnitAttr()
        if epilogue is not None:
            props["epilogue_axes"] = ArrayAttr([StringAttr(x) for x in epilogue_axes])
        super().__init__(
            operands=[a, b, c, [alpha] if alpha else [], [beta] if beta else [],
                      [scale_a] if scale_a else [], [scale_b] if scale_b else [], list(epilogue_args),
                      list(outputs), [amax] if amax else [], [group_sizes] if group_sizes else []],
            properties=props,
            regions=[[epilogue] if epilogue is not None else []],
        )

    # -- the fused epilogue ---------------------------------------------------------

    @property
    def has_epilogue(self) -> bool:
        return bool(self.epilogue is not None and self.epilogue.blocks)

    def axes(self) -> list[str]:
        """Per epilogue operand, the axes of C it is indexed by ("m", "n", "mn", "")."""
        attr = self.epilogue_axes
        return [x.data for x in attr.data] if attr is not None else []

    # -- shapes -------------------------------------------------------------

    @property
    def batched(self) -> bool:
        """C has a leading batch dim (memref of rank 3)."""
        return self.c.type.get_num_dims() == 3

    def logical_shapes(self) -> tuple[tuple[int, int], tuple[int, int], tuple[int, int]]:
        """(M, K), (K, N), (M, N) as the product sees them (a batch dim left out; of a grouped B
        [G, K, N], each group's); DYNAMIC_INDEX where unknown."""
        a = tuple(self.a.type.get_shape()[-2:])
        b = tuple(self.b.type.get_shape()[-2:])
        c = tuple(self.c.type.get_shape()[-2:])
        if self.transpose_a:
            a = a[::-1]
        if self.transpose_b:
            b = b[::-1]
        return a, b, c  # type: ignore[return-value]

    # -- verification ---------------------------------------------------------

    @property
    def grouped(self) -> bool:
        return self.group_sizes is not None

    def verify_(self) -> None:
        if self.grouped:
            self._verify_groups()
        for name in ("a", "b", "c"):
            t = getattr(self, name).type
            if self.grouped:  # B [G, K, N], A and C 2-D: a grouped product is not batched
                if t.get_num_dims() != (3 if name == "b" else 2):
                    raise VerifyException(f"operand {name.upper()} must be 2-D, got {t}"
                                          + (" (a grouped product is not batched)" if name != "b" else ""))
            elif t.get_num_dims() not in (2, 3):
                raise VerifyException(f"operand {name.upper()} must be 2-D (or 3-D: a batch), got {t}")
            allowed = ELEMENT_TYPES if name != "c" else OUTPUT_TYPES
            if type_name(t.element_type) not in allowed:
                raise VerifyException(
                    f"operand {name.upper()} has element type {t.element_type}; "
                    f"expected {', '.join(allowed)}"
                )
        self._verify_batch()
        a_type, b_type = (type_name(x.type.element_type) for x in (self.a, self.b))
        if is_int(a_type) or is_int(b_type) or is_int(type_name(self.acc_type)):
            self._verify_integers(a_type, b_type)
            return self._verify_shapes()
        if self.unsigned_a is not None or self.unsigned_b is not None:
            raise VerifyException("unsigned_a / unsigned_b need integer operands")
        if self.scale_a is not None or self.scale_b is not None:
            self._verify_scales(a_type, b_type)
        elif a_type not in FP8_TYPES and a_type in MX_ELEMENT_NAMES + (SCALE_NAME,) or (
                b_type not in FP8_TYPES and b_type in MX_ELEMENT_NAMES + (SCALE_NAME,)):
            raise VerifyException(f"{a_type} x {b_type} inputs need E8M0 scales (scales %SA, %SB)")
        if a_type != b_type and not (a_type in MX_ELEMENT_NAMES and b_type in MX_ELEMENT_NAMES
                                     and self.scale_a is not None) and not (is_fp8(a_type) and is_fp8(b_type)):
            raise VerifyException(
                f"A and B must have one element type, got {self.a.type.element_type} "
                f"and {self.b.type.element_type} (only two FP8 formats may differ)"
            )
        if type_name(self.acc_type) not in ACC_TYPES:
            raise VerifyException(f"accumulator type must be f32 or f16, got {self.acc_type}")
        if is_int(type_name(self.c.type.element_type)):
            raise VerifyException(f"C of {self.c.type.element_type} needs an integer product")
        self._verify_shapes()

    def _verify_batch(self) -> None:
        """A batch dim leads C and A, B or both, of one size; a 3-D A or B needs a 3-D C, a 3-D C
        a 3-D A or B; a block-scaled product is not batched. A grouped product's 3-D B is its
        groups' matrices, no batch (verify_ and _verify_groups check its ranks)."""
        if self.grouped:
            return
        ranks = [v.type.get_num_dims() for v in (self.a, self.b, self.c)]
        if ranks[2] == 2 and 3 in ranks[:2]:
            raise VerifyException("a batched A or B needs a batched C (rank 3)")
        if ranks[2] == 3 and 3 not in ranks[:2]:
            raise VerifyException("a batched C needs a batched A or B (rank 3)")
        if ranks[2] == 3 and self.scale_a is not None:
            raise VerifyException("a block-scaled product is not batched")
        batched = [v for v in (self.c, self.a, self.b) if v.type.get_num_dims() == 3]
        batched += [v for v, ax in zip(self.epilogue_args, self.axes())
                    if isinstance(v.type, MemRefType) and v.type.get_num_dims() == len(ax) + 1]
        for v in batched[1:]:
            _check_dim("batch", v.type.get_shape()[0], str(v.type), self.c.type.get_shape()[0], "C")

    def _verify_groups(self) -> None:
        """A grouped product: sizes i32[G], B [G, K, N] (one matrix per group), A row-major (each
        group's rows are A's and C's rows), a float product without block scales."""
        st, bt = self.group_sizes.type, self.b.type
        if st.get_num_dims() != 1 or st.element_type != IntegerType(32):
            raise VerifyException(f"the group sizes must be a 1-D memref of i32, got {st}")
        if bt.get_num_dims() != 3:
            raise VerifyException(f"a grouped product's B is [G, K, N] (one matrix per group), got {bt}")
        g, bg = st.get_shape()[0], bt.get_shape()[0]
        if DYNAMIC_INDEX not in (g, bg) and g != bg:
            raise VerifyException(f"{g} group sizes but B has {bg} matrices")
        if self.transpose_a is not None:
            raise VerifyException("a grouped product's A is row-major [M, K], not transposed")
        if self.scale_a is not None or is_int(type_name(self.acc_type)):
            raise VerifyException("a grouped product is a float product without block scales")
        if self.outputs or self.amax is not None or is_fp8(type_name(self.c.type.element_type)):
            raise VerifyException("a grouped product has one output C of f32, f16 or bf16 (no more outputs, amax "
                                  "or FP8 C)")

    def _verify_integers(self, a_type: str, b_type: str) -> None:
        """An integer product: A and B both i8 or both i4 (signless; unsigned_a / unsigned_b say u8,
        u4), the accumulator and C i32, no scales, alpha and beta (if any) i32."""
        c_type = type_name(self.c.type.element_type)
        requantized = c_type == "i8" and self.has_epilogue  # the epilogue rounds and saturates to i8
        if a_type != b_type or a_type not in ("i8", "i4") or type_name(self.acc_type) != INT_ACC or not (
                c_type == INT_ACC or requantized):
            raise VerifyException(f"an integer product takes i8 (or i4) A and B into an i32 accumulator and C (an "
                                  f"i8 C through a requantizing epilogue), got {self.a.type.element_type} x "
                                  f"{self.b.type.element_type} -> {self.acc_type}, C {self.c.type.element_type}")
        if self.scale_a is not None or self.scale_b is not None:
            raise VerifyException("an integer product has no E8M0 scales")

    def _verify_epilogue(self) -> None:
        """The region takes the sum and one element per epilogue operand and yields the
        accumulator type; each operand's shape is C's along its axes."""
        if not self.has_epilogue:
            if self.epilogue_args or self.epilogue_axes is not None or self.amax is not None or self.outputs:
                raise VerifyException("epilogue operands and an amax output need an epilogue region")
            return
        if self.alpha is not None or self.beta is not None:
            raise VerifyException("a fused epilogue states alpha and beta in its region (C as an epilogue operand)")
        axes = self.axes()
        if len(axes) != len(self.epilogue_args):
            raise VerifyException(f"{len(self.epilogue_args)} epilogue operands but {len(axes)} epilogue_axes")
        block = self.epilogue.blocks[0]
        want = [self.acc_type] + [_element(v.type) for v in self.epilogue_args]
        if [a.type for a in block.args] != want:
            raise VerifyException(f"the epilogue block takes ({', '.join(map(str, want))}): the sum and an element "
                                  "of each epilogue operand")
        shape = self.c.type.get_shape()[-2:]
        for v, ax in zip(self.epilogue_args, axes):
            vs = v.type.get_shape() if isinstance(v.type, MemRefType) else ()
            if ax == "mn" and len(vs) == 3 and self.batched:  # a batched matrix, as C
                vs = vs[1:]
            if ax not in ("", "m", "n", "mn") or len(vs) != len(ax):
                raise VerifyException(f"epilogue operand of type {v.type} cannot be indexed along '{ax}'")
            for got, axis in zip(vs, ax):
                c_size = shape["mn".index(axis)]
                if DYNAMIC_INDEX not in (got, c_size) and got != c_size:
                    raise VerifyException(f"epilogue operand {v.type} has {got} along {axis.upper()}, C has {c_size}")
        stored = [op for op in block.ops if isinstance(op, OutputOp)]
        if len(stored) != len(self.outputs) or any(op.value.type != self.acc_type for op in stored):
            raise VerifyException(f"{len(self.outputs)} more outputs need as many gemm.output of the accumulator "
                                  f"type {self.acc_type} in the epilogue, in order")
        for out in self.outputs:
            if out.type.get_shape() != self.c.type.get_shape():
                raise VerifyException(f"output {out.type} is not of C's shape {self.c.type}")
        amaxes = [op for op in block.ops if isinstance(op, AmaxOp)]
        if len(amaxes) != (self.amax is not None) or (self.amax is not None and self.amax.type != AMAX_TYPE):
            raise VerifyException(f"an amax output ({AMAX_TYPE}) and one gemm.amax in the epilogue go together")
        last = block.last_op
        if not isinstance(last, YieldOp) or last.value.type != self.acc_type:
            raise VerifyException(f"the epilogue must end in gemm.yield of the accumulator type {self.acc_type}")

    def _verify_shapes(self) -> None:
        self._verify_epilogue()
        for name in ("alpha", "beta"):
            v = getattr(self, name)
            if v is not None and v.type != self.acc_type:
                raise VerifyException(
                    f"{name} has type {v.type}; it must have the accumulator type {self.acc_type}"
                )
        (m, k), (k2, n), (mc, nc) = self.logical_shapes()
        _check_dim("K", k, "A", k2, "B")
        _check_dim("M", m, "A", mc, "C")
        _check_dim("N", n, "B", nc, "C")

    def _verify_scales(self, a_type: str, b_type: str) -> None:
        """A block-scaled product: both scales, of E8M0, each its operand's stored shape with
        K divided by MX_BLOCK; A and B of MX element formats; a static K a multiple of MX_BLOCK."""
        if self.scale_a is None or self.scale_b is None:
            raise VerifyException("a block-scaled product needs the scales of both A and B")
        for name, t in (("A", a_type), ("B", b_type)):
            if t not in MX_ELEMENT_NAMES:
                raise VerifyException(f"operand {name} is {t}; scaled operands must be {', '.join(MX_ELEMENT_NAMES)}")
        for name, scale, op, k_axis in (("A", self.scale_a, self.a, 0 if self.transpose_a else 1),
                                        ("B", self.scale_b, self.b, 1 if self.transpose_b else 0)):
            st = scale.type
            if type_name(st.element_type) != SCALE_NAME or st.get_num_dims() != 2:
                raise VerifyException(f"the scales of {name} must be a 2-D memref of {SCALE_NAME}, got {st}")
            want = list(op.type.get_shape())
            if want[k_axis] != DYNAMIC_INDEX:
                if want[k_axis] % MX_BLOCK:
                    raise VerifyException(f"K = {want[k_axis]} is not a multiple of the MX block {MX_BLOCK}")
                want[k_axis] //= MX_BLOCK
            for axis, (got, w) in enumerate(zip(st.get_shape(), want)):
                if DYNAMIC_INDEX not in (got, w) and got != w:
                    raise VerifyException(f"the scales of {name} are {list(st.get_shape())}; {name} "
                                          f"{list(op.type.get_shape())} needs {want} (one per {MX_BLOCK} along K)")

    @property
    def is_scaled(self) -> bool:
        return self.scale_a is not None

    # -- custom syntax ------------------------------------------------------------

    def print(self, printer: Printer):
        printer.print_string(" ")
        printer.print_list([self.a, self.b, self.c], printer.print_ssa_value)
        for name in ("alpha", "beta"):
            v = getattr(self, name)
            if v is not None:
                printer.print_string(f" {name} ")
                printer.print_ssa_value(v)
        if self.scale_a is not None and self.scale_b is not None:
            printer.print_string(" scales ")
            printer.print_list([self.scale_a, self.scale_b], printer.print_ssa_value)
        if self.has_epilogue:
            printer.print_string(" epilogue(")
            printer.print_list(self.epilogue_args, printer.print_ssa_value)
            printer.print_string(")")
        if self.outputs:
            printer.print_string(" outputs(")
            printer.print_list(self.outputs, printer.print_ssa_value)
            printer.print_string(")")
        if self.amax is not None:
            printer.print_string(" amax ")
            printer.print_ssa_value(self.amax)
        if self.group_sizes is not None:
            printer.print_string(" grouped ")
            printer.print_ssa_value(self.group_sizes)
        printer.print_op_attributes(
            self.properties, reserved_attr_names=("operandSegmentSizes",)
        )
        printer.print_string(" : ")
        types = [self.a.type, self.b.type, self.c.type]
        if self.scale_a is not None and self.scale_b is not None:
            types += [self.scale_a.type, self.scale_b.type]
        printer.print_list(types, printer.print_attribute)
        if self.group_sizes is not None:
            printer.print_string(" grouped ")
            printer.print_attribute(self.group_sizes.type)
        if self.has_epilogue:
            printer.print_string(" epilogue(")
            printer.print_list([v.type for v in self.epilogue_args], printer.print_attribute)
            printer.print_string(") ")
            if self.outputs:
                printer.print_string("outputs(")
                printer.print_list([v.type for v in self.outputs], printer.print_attribute)
                printer.print_string(") ")
            printer.print_region(self.epilogue, print_entry_block_args=True)

    @classmethod
    def parse(cls, parser: Parser) -> MatmulOp:
        operands = parser.parse_comma_separated_list(
            parser.Delimiter.NONE, parser.parse_unresolved_operand
        )
        scalars = {}
        for name in ("alpha", "beta"):
            if parser.parse_optional_keyword(name):
                scalars[name] = parser.parse_unresolved_operand()
        scales = []
        if parser.parse_optional_keyword("scales"):
            scales = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_unresolved_operand)
        extra = []
        if parser.parse_optional_keyword("epilogue"):
            extra = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_unresolved_operand)
        outputs = []
        if parser.parse_optional_keyword("outputs"):
            outputs = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_unresolved_operand)
        amax = parser.parse_unresolved_operand() if parser.parse_optional_keyword("amax") else None
        sizes = parser.parse_unresolved_operand() if parser.parse_optional_keyword("grouped") else None
        props = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
        if sizes is not None:
            parser.parse_keyword("grouped")
            sizes = parser.resolve_operand(sizes, parser.parse_type())
        region = None
        if parser.parse_optional_keyword("epilogue"):
            extra_types = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_type)
            if len(extra_types) != len(extra):
                parser.raise_error(f"{len(extra)} epilogue operands but {len(extra_types)} types")
            extra = [parser.resolve_operand(o, t) for o, t in zip(extra, extra_types)]
            if outputs:
                parser.parse_keyword("outputs")
                out_types = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_type)
                if len(out_types) != len(outputs):
                    parser.raise_error(f"{len(outputs)} outputs but {len(out_types)} types")
                outputs = [parser.resolve_operand(o, t) for o, t in zip(outputs, out_types)]
            region = parser.parse_region()
        elif extra:
            parser.raise_error("the epilogue operands' types follow the operands' as 'epilogue(types) { region }'")
        if len(operands) != 3 or len(scales) not in (0, 2) or len(types) != 3 + len(scales):
            parser.raise_error("gemm.matmul expects three operands A, B, C (and scales SA, SB) and their types")
        a, b, c = (parser.resolve_operand(o, t) for o, t in zip(operands, types))
        sa, sb = (parser.resolve_operand(o, t) for o, t in zip(scales, types[3:])) if scales else (None, None)
        acc = props.get("acc_type")
        if acc is None:
            parser.raise_error("gemm.matmul needs an acc_type")
        alpha, beta = (
            parser.resolve_operand(scalars[n], acc) if n in scalars else None
            for n in ("alpha", "beta")
        )
        return cls(
            a, b, c, acc, alpha, beta,
            transpose_a="transpose_a" in props,
            transpose_b="transpose_b" in props,
            scale_a=sa, scale_b=sb,
            unsigned_a="unsigned_a" in props,
            unsigned_b="unsigned_b" in props,
            epilogue_args=extra,
            epilogue_axes=[x.data for x in props["epilogue_axes"].data] if "epilogue_axes" in props else (),
            epilogue=region,
            amax=parser.resolve_operand(amax, AMAX_TYPE) if amax is not None else None,
            outputs=outputs,
            group_sizes=sizes,
        )


def _element(t: Attribute) -> Attribute:
    """An epilogue operand's element type (a scalar's own type)."""
    return t.element_type if isinstance(t, MemRefType) else t


# amax's output: one f32, raised by atomics (docs/language.md, "amax")
AMAX_TYPE = MemRefType(Float32Type(), [1])


@irdl_op_definition
class AmaxOp(IRDLOperation):
    """A value of a fused epilogue whose magnitude, over every element of C, raises gemm.matmul's
    amax output (max |x|; an f32, in the epilogue's type or widened to it)."""

    name = "gemm.amax"

    value = operand_def(Float32Type)
    traits = traits_def(HasParent(MatmulOp))
    assembly_format = "$value attr-dict `:` type($value)"

    def __init__(self, value: SSAValue):
        super().__init__(operands=[value])


@irdl_op_definition
class OutputOp(IRDLOperation):
    """A value of a fused epilogue stored, rounded to its type, into gemm.matmul's next output at the
    element's (row, col) (the outputs in the order of their gemm.output ops); in the accumulator type."""

    name = "gemm.output"

    value = operand_def()
    traits = traits_def(HasParent(MatmulOp))
    assembly_format = "$value attr-dict `:` type($value)"

    def __init__(self, value: SSAValue):
        super().__init__(operands=[value])


@irdl_op_definition
class YieldOp(IRDLOperation):
    """The stored value of a fused epilogue (gemm.matmul's region), in the accumulator type."""

    name = "gemm.yield"

    value = operand_def()
    traits = traits_def(IsTerminator(), HasParent(MatmulOp))
    assembly_format = "$value attr-dict `:` type($value)"

    def __init__(self, value: SSAValue):
        super().__init__(operands=[value])


def _check_dim(name: str, x: int, xop: str, y: int, yop: str) -> None:
    if x != DYNAMIC_INDEX and y != DYNAMIC_INDEX and x != y:
        raise VerifyException(f"dimension {name} is {x} in {xop} but {y} in {yop}")


@irdl_op_definition
class CopyOp(IRDLOperation):
    """The workgroup copies a tile of a global matrix into LDS.

        gemm.copy %A[%o0, %o1] bounds [%M, %K] to %tile_a[%slot] tid %tid
            {extents = array<i64: 16, 16>, width = 1} : memref<?x?xf32>, memref<2x16x16xf32, 3>

    Element (i0, i1) of the `extents` tile of the row-major `src` at stored coordinates
    (o0 + i0, o1 + i1) goes to `dst[indices..., i0, i1]`, or `dst[indices..., i1, i0]`
    with `transpose`; elements outside `bounds` (rows, columns) are stored as zeros.
    Every thread of the workgroup executes the op with its linear id `tid`; together
    they cover the tile, `width` consecutive elements of a stored row per load
    (`direct`: moved by global_load_lds, without registers).  A scalar copy into a
    transposed tile walks i1 fastest across the threads (consecutive threads read
    consecutive global elements), or with `column_first` i0 fastest (consecutive threads
    write consecutive LDS words of the transposed tile; double-buffer chooses it per target).
    With `peel`, rows are not known to start `width`-aligned: each stored row's aligned
    interior goes by `width`-element vectors and its misaligned head and tail (fewer than
    `width` elements each) one by one; `column_first` then puts consecutive threads on
    consecutive rows (vectorize chooses it).  With `row_lanes = g`, consecutive threads cover
    g loads of a stored row, the next g the same columns of the next row, and so on down the
    tile before the next g columns (a wave then spans a few rows of a transposed tile's columns,
    whose element stores share LDS words; vectorize{row-lanes} sets it); a g above a row's loads
    and no multiple of them pads each row to g threads, the last g - loads of them idle.  With `blocks` (a
    transposed vector copy), each thread's item is a `width` x `width` block: `width` vector loads
    from consecutive stored rows, transposed in registers, `width` vector stores along the LDS
    rows (rather than width x width element stores); the items are the tile's blocks, ordered
    like a copy of e0 / width rows (row_lanes counts blocks).
    `gemm.role` (load_a, load_b) and `gemm.transposed` carry over to the loads that
    lower-copies makes.  A source of rank 3 (a grouped product's B [G, K, N]) is read at its
    leading index `group` (`gemm.copy %B group %g [%o0, %o1] ...`): the tile is one of
    src[group]'s, every load's index that leading one and then the two above.
    """

    name = "gemm.copy"

    src = operand_def(MemRefType)
    o0 = operand_def(IndexType())
    o1 = operand_def(IndexType())
    rows = operand_def(IndexType())
    cols = operand_def(IndexType())
    dst = operand_def(MemRefType)
    indices = var_operand_def(IndexType())
    tid = operand_def(IndexType())
    group = opt_operand_def(IndexType())  # a rank-3 source's leading index

    extents = prop_def(DenseArrayBase)
    width = prop_def(IntegerAttr)
    transpose = opt_prop_def(UnitAttr)
    direct = opt_prop_def(UnitAttr)
    column_first = opt_prop_def(UnitAttr)
    peel = opt_prop_def(UnitAttr)
    row_lanes = opt_prop_def(IntegerAttr)
    blocks = opt_prop_def(UnitAttr)

    assembly_format = (
        "$src (`group` $group^)? `[` $o0 `,` $o1 `]` `bounds` `[` $rows `,` $cols `]` `to` $dst `[` $indices `]` "
        "`tid` $tid attr-dict `:` type($src) `,` type($dst)"
    )
    irdl_options = (ParsePropInAttrDict(), AttrSizedOperandSegments(as_property=True))

    def __init__(self, src: SSAValue, origin: Sequence[SSAValue], bounds: Sequence[SSAValue], dst: SSAValue,
                 indices: Sequence[SSAValue], tid: SSAValue, extents: Sequence[int], width: int = 1,
                 transpose: bool = False, direct: bool = False, peel: bool = False, column_first: bool = False,
                 row_lanes: int = 0, blocks: bool = False, group: SSAValue | None = None):
        props: dict[str, Attribute] = {
            "extents": DenseArrayBase.from_list(i64, list(extents)), "width": IntegerAttr(width, i64),
        }
        if row_lanes:
            props["row_lanes"] = IntegerAttr(row_lanes, i64)
        for name, on in (("transpose", transpose), ("direct", direct), ("peel", peel), ("column_first", column_first),
                         ("blocks", blocks)):
            if on:
                props[name] = UnitAttr()
        super().__init__(operands=[src, *origin, *bounds, dst, list(indices), tid, [group] if group else []],
                         properties=props)

    def src_index(self, r0, r1) -> list:
        """The source's indices of stored element (r0, r1) of the matrix: a rank-3 source's group first."""
        return ([self.group] if self.group is not None else []) + [r0, r1]

    @property
    def tile(self) -> tuple[int, int]:
        e0, e1 = self.extents.get_values()
        return e0, e1

    def dst_index(self, i0, i1) -> tuple:
        """The destination's last two indices of stored element (i0, i1)."""
        return (i1, i0) if self.transpose else (i0, i1)

    def verify_(self) -> None:
        extents = self.extents.get_values()
        if len(extents) != 2 or min(extents) < 1:
            raise VerifyException(f"extents must be two positive sizes, got {list(extents)}")
        if self.src.type.get_num_dims() != (3 if self.group is not None else 2):
            raise VerifyException(f"the source must be a 2-D matrix (3-D with a group index), got {self.src.type}")
        if self.src.type.element_type != self.dst.type.element_type:
            raise VerifyException("source and destination must have one element type")
        if self.dst.type.get_num_dims() != len(self.indices) + 2:
            raise VerifyException(
                f"{len(self.indices)} leading indices for a {self.dst.type.get_num_dims()}-D destination; "
                "expected all but its last two")
        shape = self.dst.type.get_shape()[-2:]
        need = self.dst_index(*extents)
        if any(0 <= s < n for s, n in zip(shape, need)):
            raise VerifyException(f"a {extents[0]}x{extents[1]} tile does not fit the destination {self.dst.type}")
        w = self.width.value.data
        if w < 1 or extents[1] % w:
            raise VerifyException(f"width {w} does not divide the tile's rows of {extents[1]}")
        if self.column_first is not None and (
                (w != 1 and self.peel is None) or self.transpose is None or self.direct is not None):
            raise VerifyException("column_first orders a scalar or peeled copy into a transposed tile; this copy is "
                                  f"{'direct' if self.direct is not None else f'width {w}' if w != 1 else 'not transposed'}")
        if self.peel is not None and (w < 2 or self.direct is not None):
            raise VerifyException("peel needs a vector width of at least 2 and no direct copy")
        if self.row_lanes is not None:
            self._verify_row_lanes(extents[1] // w)
        if self.blocks is not None:
            self._verify_blocks(extents[0], w)

    def _verify_blocks(self, e0: int, w: int) -> None:
        if self.transpose is None or w < 2:
            raise VerifyException("blocks transposes a vector copy in registers; this copy is "
                                  f"{'not transposed' if self.transpose is None else 'scalar'}")
        if e0 % w:
            raise VerifyException(f"blocks of {w} rows do not divide the tile's {e0} rows")
        for mark in ("peel", "column_first", "direct"):
            if self.properties.get(mark) is not None:
                raise VerifyException(f"blocks is not for a {mark.replace('_', '-')} copy")
        lds_row = self.dst.type.get_shape()[-1]
        if lds_row >= 0 and lds_row % w:
            raise VerifyException(f"the LDS rows of {lds_row} elements do not keep {w}-element vectors aligned")

    def _verify_row_lanes(self, per_row: int) -> None:
        g = self.row_lanes.value.data
        if g < 1 or (g < per_row and per_row % g):
            raise VerifyException(f"row_lanes {g} does not divide the {per_row} loads of a stored row")
        for mark in ("peel", "column_first", "direct"):
            if self.properties.get(mark) is not None:
                raise VerifyException(f"row_lanes orders the lanes of a copy that is not {mark}")

    @property
    def lanes_per_row(self) -> int:
        """Consecutive threads on one stored row (0: the whole row, then the next)."""
        return self.row_lanes.value.data if self.row_lanes is not None else 0


@irdl_op_definition
class AssumeRowsAlignedOp(IRDLOperation):
    """What the kernel may assume of a matrix it is given: its row length (last dimension) is a
    multiple of `multiple`, so that its rows start `multiple`-element aligned.

        gemm.assume_rows_aligned %A {multiple = 4 : i64} : memref<?x?xf32>

    Made by assume-aligned in a kernel whose launcher checks it (gemmc.driver.dispatch); vectorize and
    direct-to-lds take it as the proof of a dynamic row length; the interpreter checks it, and the
    HIP printer hands it to the compiler as __builtin_assume.
    """

    name = "gemm.assume_rows_aligned"

    memref = operand_def(MemRefType)
    multiple = prop_def(IntegerAttr)

    assembly_format = "$memref attr-dict `:` type($memref)"
    irdl_options = (ParsePropInAttrDict(),)

    def __init__(self, memref: SSAValue, multiple: int):
        super().__init__(operands=[memref], properties={"multiple": IntegerAttr(multiple, 64)})

    def verify_(self) -> None:
        if self.multiple.value.data < 1:
            raise VerifyException(f"multiple must be positive, got {self.multiple.value.data}")


FENCE_ORDERINGS = ("release", "acquire")
FENCE_SCOPES = ("workgroup", "agent")


@irdl_op_definition
class FenceOp(IRDLOperation):
    """A memory fence of the thread that runs it, as MLIR's `llvm.fence syncscope("agent") release`
    (which xDSL lacks):

        gemm.fence {ordering = "release", scope = "agent"}

    release: the thread's earlier memory accesses are visible, at `scope`, to whoever acquires
    after reading an atomic that the thread writes later; acquire: the thread's later accesses see
    what the writers of the atomics it read earlier released.  Made by stream-k's fix-up
    (gemmc.transforms.stream_fixup) around its per-tile counter; the HIP printer writes
    __builtin_amdgcn_fence (AMD) or __threadfence (sm_90), the interpreter orders workgroups by it.
    """

    name = "gemm.fence"

    ordering = prop_def(StringAttr)
    scope = prop_def(StringAttr)

    assembly_format = "attr-dict"
    irdl_options = (ParsePropInAttrDict(),)

    def __init__(self, ordering: str, scope: str = "agent"):
        super().__init__(properties={"ordering": StringAttr(ordering), "scope": StringAttr(scope)})

    def verify_(self) -> None:
        if self.ordering.data not in FENCE_ORDERINGS:
            raise VerifyException(f"ordering must be one of {', '.join(FENCE_ORDERINGS)}, got {self.ordering.data!r}")
        if self.scope.data not in FENCE_SCOPES:
            raise VerifyException(f"scope must be one of {', '.join(FENCE_SCOPES)}, got {self.scope.data!r}")


Gemm = Dialect("gemm", [MatmulOp, YieldOp, AmaxOp, OutputOp, CopyOp, AssumeRowsAlignedOp, FenceOp], [])
