"""The amdgpu dialect: AMD matrix-core instructions and direct global->LDS loads.

Named after MLIR's `amdgpu` dialect, with its op names, operand order and attribute
names; gemmc keeps only what its lowerings use.

    %d = amdgpu.mfma %a * %b + %c {m = 32 : i32, n = 32 : i32, k = 8 : i32, blocks = 1 : i32}
        : vector<4xf16>, vector<4xf16>, vector<16xf32>
    %d = amdgpu.wmma %a * %b + %c {m = 16 : i32, n = 16 : i32, k = 16 : i32}
        : vector<16xf16>, vector<16xf16>, vector<8xf32>
    %d = amdgpu.wmma %a * %b + %c {m = 16 : i32, n = 16 : i32, k = 16 : i32}    (RDNA3, f16 accumulators:
        : vector<16xf16>, vector<16xf16>, vector<16xf16>                     results in the even elements)
    amdgpu.gather_to_lds %A[%i, %j], %tile[%r, %c] : f32, memref<?x?xf32>, memref<128x16xf32, 3 : i64>

Operands are per lane, as in MLIR: each lane passes its own items of A and B (a scalar
f32 or a vector of packed 16-bit values) and its accumulator registers.  Which matrix
element each (lane, item) holds is the instruction's layout in gemmc.target.arch
(`MatrixInstr.a`, `.b`, `.d`), which the interpreter and the lowerings read; the
accumulator's element type picks the instruction (f32, or f16 / bf16 on RDNA).
`mfma` also has MLIR's cbsz / abid / blgp broadcast controls (0: none), printed only
when set.

`gather_to_lds` is MLIR's name for global_load_lds: a wave-wide gather in which every
lane reads one `transferType` value at its own source indices, and lane k of the wave
writes it at the (wave-uniform) LDS position `dst[dstIndices]` plus k transfer slots
(4 bytes for transfers of up to 4 bytes, 16 beyond), so a wave fills consecutive LDS
words without staging them in VGPRs.

Verifiers check shapes and types and that the instruction exists on the module's
target (the `gemmc.target` module attribute, gfx942 when absent): a 32x32x8 f16 MFMA
in a module for gfx1100 is an error.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import (
    BFloat16Type,
    Float8E4M3FNType,
    Float8E4M3FNUZType,
    Float8E5M2FNUZType,
    Float8E5M2Type,
    Float4E2M1FNType,
    Float6E2M3FNType,
    Float6E3M2FNType,
    Float8E8M0FNUType,
    Float16Type,
    Float32Type,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    StringAttr,
    TypeAttribute,
    UnitAttr,
    VectorType,
    i32,
)
from xdsl.ir import Attribute, Dialect, Operation, SSAValue
from xdsl.irdl import (
    AnyAttr,
    AttrSizedOperandSegments,
    IRDLOperation,
    ParsePropInAttrDict,
    VarConstraint,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    var_operand_def,
)
from xdsl.utils.exceptions import VerifyException

from gemmc.target.arch import ARCHS, DEFAULT_ARCH, F8F6F4_FORMATS, FNUZ_FP8, OCP_FP8, Arch, MatrixInstr
from gemmc.support.ir_names import LDS_SPACE, TARGET_ATTR, memory_space
from gemmc.target.resources import ELEMENT_BYTES

FP8_NAMES = FNUZ_FP8 + OCP_FP8 + tuple(f for f in F8F6F4_FORMATS if f not in OCP_FP8)  # A x B may differ
_TYPE_NAMES = {Float32Type: "f32", Float16Type: "f16", BFloat16Type: "bf16",
               Float8E4M3FNUZType: "f8e4m3fnuz", Float8E5M2FNUZType: "f8e5m2fnuz",
               Float8E4M3FNType: "f8e4m3fn", Float8E5M2Type: "f8e5m2",
               Float6E2M3FNType: "f6e2m3fn", Float6E3M2FNType: "f6e3m2fn", Float4E2M1FNType: "f4e2m1fn",
               Float8E8M0FNUType: "f8e8m0fnu"}


def type_name(t: Attribute) -> str | None:
    """f32, f16, bf16 or an FP8 format's name for a float type, i8, i4 or i32 for those signless
    integers (an integer matrix instruction's operands); None for anything else."""
    for cls, name in _TYPE_NAMES.items():
        if isinstance(t, cls):
            return name
    if isinstance(t, IntegerType) and t.width.data in (4, 8, 32):
        return f"i{t.width.data}"
    return None


def lanes_of(t: Attribute) -> tuple[str | None, int]:
    """(element type name, elements) of an operand type: a scalar counts as one element."""
    if isinstance(t, VectorType):
        shape = t.get_shape()
        return type_name(t.element_type), shape[0] if len(shape) == 1 else -1
    return type_name(t), 1


def target_arch(op: Operation) -> Arch:
    """The arch of the module holding `op` (its `gemmc.target`), the default if none says."""
    node: Operation | None = op
    while node is not None:
        if isinstance(node, ModuleOp):
            attr = node.attributes.get(TARGET_ATTR)
            if isinstance(attr, StringAttr):
                if attr.data not in ARCHS:
                    raise VerifyException(f"unknown target '{attr.data}' in {TARGET_ATTR}")
                return ARCHS[attr.data]
        node = node.parent_op()
    return ARCHS[DEFAULT_ARCH]


def find_instr(arch: Arch, kind: str, m: int, n: int, k: int, in_type: str, blocks: int = 1,
               out_type: str = "f32", b_type: str | None = None) -> MatrixInstr | None:
    """The instruction of that shape and those types (B's type is A's unless given: the FP8
    instructions take two formats)."""
    b_type = b_type or in_type
    for instr in arch.matrix_instrs:
        if instr.formats or instr.scale_block:
            continue  # the f8f6f4 MFMAs: scaled_mfma_instr
        if (instr.kind, instr.m, instr.n, instr.k, instr.in_type, instr.b_in_type, instr.blocks,
                instr.out_type) == (kind, m, n, k, in_type, b_type, blocks, out_type):
            return instr
    return None


def scaled_mfma_instr(arch: Arch, m: int, n: int, k: int, a_type: str, b_type: str) -> MatrixInstr | None:
    """gfx950's v_mfma_scale_f32_*_f8f6f4 of that shape with A and B of those formats."""
    for instr in arch.matrix_instrs:
        if instr.scale_block and (instr.m, instr.n, instr.k) == (m, n, k) and {a_type, b_type} <= set(instr.formats):
            return instr.with_formats(a_type, b_type)
    return None


def _int(v: int) -> IntegerAttr:
    return IntegerAttr(v, i32)


class MatrixOpBase(IRDLOperation):
    """What mfma, wmma and nvgpu.mma_sync share: D = A * B + C on one wave, shapes as i32 properties."""

    KIND: ClassVar[str]
    T: ClassVar = VarConstraint("T", AnyAttr())

    sourceA = operand_def()
    sourceB = operand_def()
    destC = operand_def(T)
    destD = result_def(T)

    m = prop_def(IntegerAttr)
    n = prop_def(IntegerAttr)
    k = prop_def(IntegerAttr)

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = (
        "$sourceA `*` $sourceB `+` $destC attr-dict `:` type($sourceA) `,` type($sourceB) `,` type($destC)"
    )

    @property
    def shape(self) -> tuple[int, int, int]:
        return (self.m.value.data, self.n.value.data, self.k.value.data)

    @property
    def block_count(self) -> int:
        return 1

    def instr_on(self, arch: Arch) -> MatrixInstr | None:
        """The instruction this op is on `arch`, or None where it has none."""
        in_type, _ = lanes_of(self.sourceA.type)
        b_type, _ = lanes_of(self.sourceB.type)
        out_type, _ = lanes_of(self.destC.type)
        return find_instr(arch, self.KIND, *self.shape, in_type or "?", self.block_count, out_type or "?",
                          b_type or "?")

    def verify_(self) -> None:
        m, n, k = self.shape
        if min(m, n, k, self.block_count) < 1:
            raise VerifyException(f"shape {m}x{n}x{k} (blocks {self.block_count}) must be positive")
        in_type, a_lanes = lanes_of(self.sourceA.type)
        b_type, b_lanes = lanes_of(self.sourceB.type)
        # (mma.sync's A holds twice B's elements per lane: there only the element types must agree)
        same = self.sourceA.type == self.sourceB.type or (self.KIND == "mma" and in_type == b_type)
        lanes_agree = a_lanes == b_lanes or self.KIND == "mma"
        if not same and not (lanes_agree and in_type in FP8_NAMES and b_type in FP8_NAMES):
            raise VerifyException(
                f"A and B must have one type, got {self.sourceA.type} and {self.sourceB.type} "
                "(only vectors of two FP8 formats may differ)"
            )
        if in_type is None:
            raise VerifyException(f"A has type {self.sourceA.type}; expected f32 or a vector of f16, bf16 or FP8")
        c_type, c_lanes = lanes_of(self.destC.type)
        if not isinstance(self.destC.type, VectorType) or c_type is None:
            raise VerifyException(f"the accumulator has type {self.destC.type}; expected a vector of f32, f16 or bf16")
        arch = target_arch(self)
        instr = self.instr_on(arch)
        if instr is None:
            have = ", ".join(i.mnemonic for i in arch.matrix_instrs) or "none"
            inputs = in_type if b_type == in_type else f"{in_type} x {b_type}"
            raise VerifyException(
                f"{arch.name} ({arch.family}) has no {self.name.split('.')[1].upper()} "
                f"{m}x{n}x{k} with {inputs} inputs and {c_type} accumulators; its matrix instructions: {have}"
            )
        for what, t, want in (("A", self.sourceA.type, instr.a.items), ("B", self.sourceB.type, instr.b.items)):
            _, got = lanes_of(t)
            if got != want:
                elem = t.element_type if isinstance(t, VectorType) else t
                expected = str(elem) if want == 1 else f"vector<{want}x{elem}>"
                raise VerifyException(f"{what} of {instr.mnemonic} is {expected} per lane, got {t}")
        if c_lanes != instr.acc_len:
            raise VerifyException(
                f"the accumulator of {instr.mnemonic} is vector<{instr.acc_len}x{instr.out_type}> per lane, "
                f"got {self.destC.type}"
            )


@irdl_op_definition
class MFMAOp(MatrixOpBase):
    """A CDNA matrix fused multiply-add: D = A * B + C over one wave64."""

    name = "amdgpu.mfma"
    KIND: ClassVar[str] = "mfma"

    blocks = prop_def(IntegerAttr)
    cbsz = opt_prop_def(IntegerAttr, default_value=_int(0))
    abid = opt_prop_def(IntegerAttr, default_value=_int(0))
    blgp = opt_prop_def(IntegerAttr, default_value=_int(0))

    def __init__(self, a: SSAValue, b: SSAValue, c: SSAValue, m: int, n: int, k: int, blocks: int = 1):
        super().__init__(
            operands=[a, b, c], result_types=[c.type],
            properties={"m": _int(m), "n": _int(n), "k": _int(k), "blocks": _int(blocks)},
        )

    def instr_on(self, arch: Arch) -> MatrixInstr | None:
        """As every matrix op; gfx950's unscaled f8f6f4 MFMAs (16x16x128, 32x32x64) take A and B
        of any two of their formats (cbsz and blgp say which: 0 where the types are FP8 x FP8)."""
        found = super().instr_on(arch)
        if found is not None:
            return found
        a_type, _ = lanes_of(self.sourceA.type)
        b_type, _ = lanes_of(self.sourceB.type)
        for instr in arch.matrix_instrs:
            if (instr.formats and not instr.scale_block and (instr.m, instr.n, instr.k) == self.shape
                    and {a_type, b_type} <= set(instr.formats)):
                return instr.with_formats(a_type, b_type)  # type: ignore[arg-type]
        return None

    @property
    def block_count(self) -> int:
        return self.blocks.value.data

    def verify_(self) -> None:
        super().verify_()
        instr = self.instr_on(target_arch(self))
        for name in ("cbsz", "abid", "blgp"):
            attr = getattr(self, name)
            if instr is not None and instr.formats and name != "abid":
                continue  # f8f6f4: cbsz and blgp are the formats, which the operand types give
            if attr is not None and attr.value.data != 0:
                raise VerifyException(f"{name} = {attr.value.data}: gemmc supports no broadcast (0 only)")


@irdl_op_definition
class WMMAOp(MatrixOpBase):
    """An RDNA wave matrix multiply-accumulate: D = A * B + C over one wave32."""

    name = "amdgpu.wmma"
    KIND: ClassVar[str] = "wmma"

    # MLIR's names: an integer WMMA's (iu8) A / B bytes are unsigned (zero-extended); absent: signed
    unsignedA = opt_prop_def(UnitAttr)
    unsignedB = opt_prop_def(UnitAttr)

    def __init__(self, a: SSAValue, b: SSAValue, c: SSAValue, m: int, n: int, k: int,
                 unsigned: tuple[bool, bool] = (False, False)):
        props: dict[str, Attribute] = {"m": _int(m), "n": _int(n), "k": _int(k)}
        props.update({name: UnitAttr() for name, u in zip(("unsignedA", "unsignedB"), unsigned) if u})
        super().__init__(operands=[a, b, c], result_types=[c.type], properties=props)

    def verify_(self) -> None:
        super().verify_()
        if (self.unsignedA or self.unsignedB) and lanes_of(self.sourceA.type)[0] not in ("i8", "i4"):
            raise VerifyException("unsignedA / unsignedB mark integer (i8, i4) operands only")


def matrix_op(instr: MatrixInstr, a: SSAValue, b: SSAValue, c: SSAValue,
              unsigned: tuple[bool, bool] = (False, False)) -> MatrixOpBase:
    """The amdgpu op that issues `instr` (`unsigned`: A's and B's bytes, an iu8 WMMA's flags;
    CDNA's i8 MFMAs take signed bytes only, which the lowering checks)."""
    if instr.kind == "mfma":
        assert not any(unsigned), instr.mnemonic
        return MFMAOp(a, b, c, instr.m, instr.n, instr.k, instr.blocks)
    return WMMAOp(a, b, c, instr.m, instr.n, instr.k, unsigned)


def unsigned_operands(op: Operation) -> tuple[bool, bool]:
    """Whether A's and B's bytes are unsigned (an iu8 WMMA's unsignedA / unsignedB)."""
    return (op.properties.get("unsignedA") is not None, op.properties.get("unsignedB") is not None)


@irdl_op_definition
class ScaledMFMAOp(IRDLOperation):
    """gfx950's block-scaled MFMA (MLIR's amdgpu.scaled_mfma, v_mfma_scale_f32_*_f8f6f4):
    D = (A * scales of A) @ (B * scales of B) + C over one wave64.

        %d = amdgpu.scaled_mfma(%sa * %a) * (%sb * %b) + %c {m = 16 : i32, n = 16 : i32, k = 128 : i32, scalesIdxA = 0 : i32, scalesIdxB = 1 : i32}
            : vector<4xf8E8M0FNU>, vector<32xf4E2M1FN>, vector<4xf8E8M0FNU>, vector<32xf4E2M1FN>, vector<4xf32>

    Each lane passes its 32 elements of A and of B (their formats pick cbsz and blgp) and four
    E8M0 scales of each (one 32-bit VGPR), of which `scalesIdxA` / `scalesIdxB` (op_sel) pick the
    one the lane contributes: the scale of the MX block of A (row, k-block) and of B
    (k-block, column) that the instruction's `sa` / `sb` layouts give the lane."""

    name = "amdgpu.scaled_mfma"

    T: ClassVar = VarConstraint("T", AnyAttr())
    scalesA = operand_def()
    sourceA = operand_def()
    scalesB = operand_def()
    sourceB = operand_def()
    destC = operand_def(T)
    destD = result_def(T)

    m = prop_def(IntegerAttr)
    n = prop_def(IntegerAttr)
    k = prop_def(IntegerAttr)
    scalesIdxA = prop_def(IntegerAttr)
    scalesIdxB = prop_def(IntegerAttr)

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = (
        "`(` $scalesA `*` $sourceA `)` `*` `(` $scalesB `*` $sourceB `)` `+` $destC attr-dict `:` "
        "type($scalesA) `,` type($sourceA) `,` type($scalesB) `,` type($sourceB) `,` type($destC)"
    )

    def __init__(self, scales_a: SSAValue, a: SSAValue, idx_a: int, scales_b: SSAValue, b: SSAValue, idx_b: int,
                 c: SSAValue, m: int, n: int, k: int):
        super().__init__(
            operands=[scales_a, a, scales_b, b, c], result_types=[c.type],
            properties={"m": _int(m), "n": _int(n), "k": _int(k), "scalesIdxA": _int(idx_a),
                        "scalesIdxB": _int(idx_b)},
        )

    @property
    def shape(self) -> tuple[int, int, int]:
        return (self.m.value.data, self.n.value.data, self.k.value.data)

    @property
    def scale_indices(self) -> tuple[int, int]:
        return self.scalesIdxA.value.data, self.scalesIdxB.value.data

    def instr_on(self, arch: Arch) -> MatrixInstr | None:
        a_type, _ = lanes_of(self.sourceA.type)
        b_type, _ = lanes_of(self.sourceB.type)
        return scaled_mfma_instr(arch, *self.shape, a_type or "?", b_type or "?")

    def verify_(self) -> None:
        m, n, k = self.shape
        a_type, a_lanes = lanes_of(self.sourceA.type)
        b_type, b_lanes = lanes_of(self.sourceB.type)
        arch = target_arch(self)
        instr = self.instr_on(arch)
        if instr is None:
            have = ", ".join(i.mnemonic for i in arch.matrix_instrs if i.scale_block) or "none"
            raise VerifyException(f"{arch.name} ({arch.family}) has no scaled MFMA {m}x{n}x{k} with {a_type} x {b_type} "
                                  f"inputs; its scaled MFMAs: {have}")
        for what, lanes in (("A", a_lanes), ("B", b_lanes)):
            if lanes != instr.a.items:
                raise VerifyException(f"{what} of {instr.mnemonic} is {instr.a.items} elements per lane")
        for what, t in (("A", self.scalesA.type), ("B", self.scalesB.type)):
            name, count = lanes_of(t)
            if name != "f8e8m0fnu" or count != 4:
                raise VerifyException(f"the scales of {what} are vector<4xf8E8M0FNU> per lane (one VGPR), got {t}")
        for what, idx in zip("AB", self.scale_indices):
            if not 0 <= idx < 4:
                raise VerifyException(f"scalesIdx{what} = {idx} selects a byte of the scale VGPR: 0 to 3")
        c_type, c_lanes = lanes_of(self.destC.type)
        if c_type != "f32" or c_lanes != instr.acc_len:
            raise VerifyException(f"the accumulator of {instr.mnemonic} is vector<{instr.acc_len}xf32> per lane, "
                                  f"got {self.destC.type}")


def transfer_bytes(t: Attribute) -> int:
    """Bytes a lane's transfer moves: its elements times their bytes (f32 4, 16-bit 2, FP8 1)."""
    name, count = lanes_of(t)
    return ELEMENT_BYTES[name] * count


def lds_slot_bytes(transfer: int) -> int:
    """How far apart consecutive lanes' data land in LDS: 4 bytes up to 4, else 16."""
    return 4 if transfer <= 4 else 16


def verify_global_to_lds(op: Operation, lds: str, leading: tuple[int, ...] = (0,)) -> tuple[MemRefType, MemRefType]:
    """The source and destination types of a copy from global memory to LDS (amdgpu.gather_to_lds,
    nvgpu.device_async_copy: `src`, `srcIndices`, `dst`, `dstIndices`), checked; `lds` names LDS
    in the messages (NVIDIA's "shared memory"); `leading`: the source indices there may be beyond
    one per dimension (nvgpu.tma_load's batch coordinate)."""
    src, dst = op.src.type, op.dst.type
    assert isinstance(src, MemRefType) and isinstance(dst, MemRefType)
    if len(op.srcIndices) - src.get_num_dims() not in leading or len(op.dstIndices) != dst.get_num_dims():
        raise VerifyException("expected one index per dimension of the source and of the destination")
    if memory_space(dst) != LDS_SPACE:
        raise VerifyException(f"the destination must be {lds} (memory space {LDS_SPACE}), got {dst}")
    if memory_space(src) == LDS_SPACE:
        raise VerifyException(f"the source must be global memory, not {lds}")
    return src, dst


@irdl_op_definition
class GatherToLDSOp(IRDLOperation):
    """global_load_lds: each lane reads `transferType` at its src indices; lane k of the
    wave writes it at dst[dstIndices] (uniform in the wave) + k slots."""

    name = "amdgpu.gather_to_lds"

    src = operand_def(MemRefType)
    srcIndices = var_operand_def(IndexType)
    dst = operand_def(MemRefType)
    dstIndices = var_operand_def(IndexType)
    transferType = prop_def(TypeAttribute)

    irdl_options = (ParsePropInAttrDict(), AttrSizedOperandSegments(as_property=True))
    assembly_format = (
        "$src `[` $srcIndices `]` `,` $dst `[` $dstIndices `]` attr-dict `:` "
        "$transferType `,` type($src) `,` type($dst)"
    )

    def __init__(self, src: SSAValue, src_indices, dst: SSAValue, dst_indices, transfer: Attribute):
        super().__init__(
            operands=[src, list(src_indices), dst, list(dst_indices)],
            properties={"transferType": transfer},
        )

    def verify_(self) -> None:
        src, dst = verify_global_to_lds(self, "LDS")
        elem, _ = lanes_of(self.transferType)
        if elem is None or elem != type_name(src.element_type) or elem != type_name(dst.element_type):
            raise VerifyException(
                f"transfer type {self.transferType} must be made of the memrefs' element type "
                f"({src.element_type}, {dst.element_type})"
            )
        arch = target_arch(self)
        size = transfer_bytes(self.transferType)
        if not arch.global_load_lds_bytes:
            capable = ", ".join(a.name for a in ARCHS.values() if a.global_load_lds_bytes)
            raise VerifyException(f"{arch.name} has no global_load_lds (it exists on {capable})")
        if size not in arch.global_load_lds_bytes:
            sizes = ", ".join(map(str, arch.global_load_lds_bytes))
            raise VerifyException(f"{arch.name}'s global_load_lds moves {sizes} bytes per lane, not {size}")


AMDGPU = Dialect("amdgpu", [MFMAOp, WMMAOp, ScaledMFMAOp, GatherToLDSOp], [])
