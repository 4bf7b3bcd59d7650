"""The amdgcn dialect's containers: a module of kernels for one target, and a kernel with
what its descriptor and metadata need (kernargs, LDS, workgroup size, register counts)."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, IntegerAttr, StringAttr, i64
from xdsl.ir import Attribute, Region
from xdsl.irdl import IRDLOperation, irdl_op_definition, prop_def, region_def, traits_def
from xdsl.traits import NoTerminator, SymbolOpInterface, SymbolTable



@irdl_op_definition
class KernelOp(IRDLOperation):
    """One kernel: its instructions, and what the kernel descriptor and metadata need:
    `args` (the kernarg layout: name, kind, offset, size per argument), `kernarg_size`,
    `lds_bytes`, `block` (workgroup size x, y, z), and after amdgcn-finalize the register
    counts `vgprs`, `sgprs` (next free register)."""

    name = "amdgcn.kernel"
    sym_name = prop_def(StringAttr)
    body = region_def("single_block")
    traits = traits_def(SymbolOpInterface(), NoTerminator())

    def __init__(self, sym_name: str, body: Region, attributes: dict[str, Attribute] | None = None):
        super().__init__(properties={"sym_name": StringAttr(sym_name)}, regions=[body], attributes=attributes or {})

    def int_attr(self, name: str, default: int = 0) -> int:
        a = self.attributes.get(name)
        return a.value.data if isinstance(a, IntegerAttr) else default


@irdl_op_definition
class GcnModuleOp(IRDLOperation):
    """The kernels of one gpu.module, for one target (`target` = "gfx942")."""

    name = "amdgcn.module"
    sym_name = prop_def(StringAttr)
    target = prop_def(StringAttr)
    body = region_def("single_block")
    traits = traits_def(SymbolOpInterface(), SymbolTable(), NoTerminator())

    def __init__(self, sym_name: str, target: str, body: Region):
        super().__init__(properties={"sym_name": StringAttr(sym_name), "target": StringAttr(target)}, regions=[body])


def kernel_args_attr(args: Sequence[dict]) -> ArrayAttr:
    out = []
    for a in args:
        d = {}
        for k, v in a.items():
            d[k] = StringAttr(v) if isinstance(v, str) else IntegerAttr(v, i64)
        out.append(DictionaryAttr(d))
    return ArrayAttr(out)


def kernel_args(kernel: KernelOp) -> list[dict]:
    a = kernel.attributes.get("args")
    out = []
    if isinstance(a, ArrayAttr):
        for d in a.data:
            assert isinstance(d, DictionaryAttr)
            out.append({k: (v.data if isinstance(v, StringAttr) else v.value.data) for k, v in d.data.items()})  # type: ignore[attr-defined]
    return out


def kernel_inputs(kernel: KernelOp) -> dict[str, int]:
    """Where the hardware puts the launch inputs (`inputs`: kernarg_ptr, wgid_x, wgid_y, wgid_z
    the SGPR of each, ttmp_wgid, tid_packed, workitem_id); gemmc's own kernels have none and
    take its fixed layout (s[0:1], s2, s3, packed ids in v0)."""
    a = kernel.attributes.get("inputs")
    if not isinstance(a, DictionaryAttr):
        return {"kernarg_ptr": 0, "wgid_x": 2, "wgid_y": 3, "tid_packed": 1, "workitem_id": 1}
    return {k: v.value.data for k, v in a.data.items()}  # type: ignore[attr-defined]
