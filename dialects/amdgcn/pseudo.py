"""The amdgcn dialect's ops that are no instruction: constants, the registers the hardware
fills at launch, copies, pieces and concatenations of register ranges, labels and comments."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import Float32Type, FloatAttr, IntegerAttr, StringAttr, i32, i64
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import IRDLOperation, irdl_op_definition, operand_def, prop_def, result_def, var_operand_def
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from gemmc.target.amdgcn_isa import INLINE_FLOATS, f32_bits, is_inline_int
from gemmc.dialects.amdgcn.registers import GcnRegisterType, ImmType, is_allocated

# -- constants -----------------------------------------------------------------------------------


@irdl_op_definition
class ConstantOp(IRDLOperation):
    """A constant operand: `value` is an i32 (printed as an integer) or an f32 (printed as
    a float where it is an inline float constant, else as its bit pattern)."""

    name = "amdgcn.constant"
    value = prop_def(Attribute)
    result = result_def(ImmType)

    def __init__(self, value: int | float):
        if isinstance(value, float):
            attr: Attribute = FloatAttr(value, Float32Type())
        else:
            v = value & 0xFFFFFFFF
            attr = IntegerAttr(v - (1 << 32) if v >= 1 << 31 else v, i32)
        super().__init__(properties={"value": attr}, result_types=[ImmType()])

    @property
    def is_float(self) -> bool:
        return isinstance(self.value, FloatAttr)

    @property
    def bits(self) -> int:
        """The 32-bit pattern."""
        v = self.value
        if isinstance(v, FloatAttr):
            return f32_bits(v.value.data)
        return v.value.data & 0xFFFFFFFF  # type: ignore[attr-defined]

    @property
    def int_value(self) -> int:
        b = self.bits
        return b - (1 << 32) if b >= 1 << 31 else b

    def is_inline(self) -> bool:
        if isinstance(self.value, FloatAttr):
            x = self.value.value.data
            return x == 0.0 or x in INLINE_FLOATS
        return is_inline_int(self.int_value)

    def asm(self) -> str:
        if isinstance(self.value, FloatAttr):
            x = self.value.value.data
            if x == 0.0 and f32_bits(x) == 0:
                return "0"
            if x in INLINE_FLOATS:
                return INLINE_FLOATS[x]
            return f"0x{self.bits:x}"
        v = self.int_value
        return str(v) if -16 <= v <= 4095 else f"0x{self.bits:x}"

    @classmethod
    def parse(cls, parser: Parser) -> ConstantOp:
        attr = parser.parse_attribute()
        op = cls.__new__(cls)
        IRDLOperation.__init__(op, properties={"value": attr}, result_types=[ImmType()])
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_attribute(self.value)

    def verify_(self) -> None:
        v = self.value
        if isinstance(v, FloatAttr):
            if not isinstance(v.type, Float32Type):
                raise VerifyException("amdgcn.constant: a float constant is f32")
        elif not (isinstance(v, IntegerAttr) and v.type == i32):
            raise VerifyException("amdgcn.constant: the value is an i32 or f32 attribute")


def constant_of(v: SSAValue) -> ConstantOp | None:
    return v.owner if isinstance(v.owner, ConstantOp) else None


# -- pseudo instructions -----------------------------------------------------------------------


@irdl_op_definition
class InputOp(IRDLOperation):
    """A register the hardware fills at wave launch: `kernarg_segment_ptr` (s[0:1]),
    `workgroup_id_x`/`_y`, `workitem_ids` (v0).  Always allocated."""

    name = "amdgcn.input"
    what = prop_def(StringAttr)
    result = result_def()

    def __init__(self, what: str, t: Attribute):
        super().__init__(properties={"what": StringAttr(what)}, result_types=[t])

    assembly_format = "$what attr-dict `:` type($result)"


@irdl_op_definition
class UndefOp(IRDLOperation):
    """A register whose value does not matter (a loop-carried element never written before)."""

    name = "amdgcn.undef"
    result = result_def()
    assembly_format = "attr-dict `:` type($result)"

    def __init__(self, t: Attribute):
        super().__init__(result_types=[t])


@irdl_op_definition
class CopyOp(IRDLOperation):
    """A register-to-register copy of any width; `amdgcn-finalize` expands it to v_mov_b32 /
    s_mov_b32 / s_mov_b64 per dword, or drops it when source and destination coincide."""

    name = "amdgcn.copy"
    source = operand_def()
    result = result_def()
    assembly_format = "$source attr-dict `:` type($source) `->` type($result)"

    def __init__(self, source: SSAValue, t: Attribute):
        super().__init__(operands=[source], result_types=[t])


@irdl_op_definition
class ExtractOp(IRDLOperation):
    """Registers offset .. offset+count-1 of a range, as a value of their own (no instruction:
    the allocator places the result inside the source)."""

    name = "amdgcn.extract"
    source = operand_def()
    offset = prop_def(IntegerAttr)
    result = result_def()
    assembly_format = "$source `[` $offset `]` attr-dict `:` type($source) `->` type($result)"

    def __init__(self, source: SSAValue, offset: int, t: Attribute):
        super().__init__(operands=[source], properties={"offset": IntegerAttr(offset, i64)}, result_types=[t])

    def verify_(self) -> None:
        src, dst = self.source.type, self.result.type
        if not (isinstance(src, GcnRegisterType) and type(dst) is type(src)):
            raise VerifyException("amdgcn.extract: source and result are registers of one class")
        off = self.offset.value.data
        if off < 0 or off + dst.n > src.n:  # type: ignore[attr-defined]
            raise VerifyException(f"amdgcn.extract: [{off}, +{dst.n}) is outside a range of {src.n}")  # type: ignore[attr-defined]
        if is_allocated(src) and is_allocated(dst) and dst.first != src.first + off:  # type: ignore[attr-defined]
            raise VerifyException(f"amdgcn.extract: {dst.register_name} is not register {off} of {src.register_name}")  # type: ignore[attr-defined]


@irdl_op_definition
class ConcatOp(IRDLOperation):
    """A range made of the given registers, in order (LLVM's REG_SEQUENCE); `amdgcn-finalize`
    turns it into the moves of the parts that are not already in place."""

    name = "amdgcn.concat"
    parts = var_operand_def()
    result = result_def()
    assembly_format = "$parts attr-dict `:` type($parts) `->` type($result)"

    def __init__(self, parts: Sequence[SSAValue], t: Attribute):
        super().__init__(operands=[list(parts)], result_types=[t])

    def verify_(self) -> None:
        t = self.result.type
        if not isinstance(t, GcnRegisterType):
            raise VerifyException("amdgcn.concat: the result is a register range")
        width = 0
        for p in self.parts:
            if isinstance(p.type, ImmType):
                width += 1
            elif type(p.type) is type(t):
                width += p.type.n  # type: ignore[attr-defined]
            else:
                raise VerifyException(f"amdgcn.concat: part of type {p.type} in a {t.name} range")
        if width != t.n:
            raise VerifyException(f"amdgcn.concat: parts are {width} registers, the range {t.n}")


@irdl_op_definition
class RegOp(IRDLOperation):
    """The current content of an allocated register, as a new SSA value (xDSL's
    riscv.get_register): used once structured control flow is flattened."""

    name = "amdgcn.reg"
    result = result_def()
    assembly_format = "attr-dict `:` type($result)"

    def __init__(self, t: Attribute):
        super().__init__(result_types=[t])


@irdl_op_definition
class LabelOp(IRDLOperation):
    """A branch target in the flattened kernel."""

    name = "amdgcn.label"
    label = prop_def(StringAttr)
    assembly_format = "$label attr-dict"

    def __init__(self, label: str):
        super().__init__(properties={"label": StringAttr(label)})


@irdl_op_definition
class CommentOp(IRDLOperation):
    name = "amdgcn.comment"
    text = prop_def(StringAttr)
    assembly_format = "$text attr-dict"

    def __init__(self, text: str):
        super().__init__(properties={"text": StringAttr(text)})

