"""The kernel ABI of LLVM's code objects, as the interpreter's kernel attributes: where the
hardware puts the kernarg segment pointer, the workgroup ids and the work-item ids at wave
launch, how many registers the kernel uses, its LDS and private (scratch) bytes, and the
kernarg layout of its metadata.

Sources (LLVM's AMDGPUUsage, "Initial Kernel Execution State" and "Code Object V5 Metadata"):
the user SGPRs come first, in the order private segment buffer (4), dispatch ptr (2), queue
ptr (2), kernarg segment ptr (2), dispatch id (2), flat scratch init (2), private segment size
(1), preloaded kernargs; the system SGPRs (workgroup id x, y, z, workgroup info, private
segment wave offset) start at `.amdhsa_user_sgpr_count`.  gfx12 has architected workgroup
ids instead: TTMP9 holds x, TTMP7 y (bits 0-15) and z (16-31).  The work-item ids are packed
into v0 (x bits 0-9, y 10-19, z 20-29) on gfx90a, gfx942, gfx950 and gfx11+, else v0, v1, v2.
"""

from __future__ import annotations

from xdsl.dialects.builtin import DictionaryAttr, IntegerAttr, StringAttr, i64
from xdsl.ir import Attribute

from gemmc.amdgcn.asm_front.text import AsmKernel
from gemmc.amdgcn.interp.state import TTMP_FIRST
from gemmc.support.diagnostics import GemmcError, Location
from gemmc.target.arch import Arch, get_gcn_isa
from gemmc.dialects.amdgcn.kernel import kernel_args_attr

_USER_SGPRS = (("private_segment_buffer", 4), ("dispatch_ptr", 2), ("queue_ptr", 2),
               ("kernarg_segment_ptr", 2), ("dispatch_id", 2), ("flat_scratch_init", 2),
               ("private_segment_size", 1))
# what the interpreter provides at launch; a kernel that asks for more is refused, not run wrong.
# gfx90a's kernels always ask for the private segment buffer (a buffer resource for scratch):
# its SGPRs are zero, and the MUBUF accesses through it are instructions the interpreter lacks
_PROVIDED = ("kernarg_segment_ptr", "private_segment_buffer")


def inputs(k: AsmKernel, arch: Arch, where: Location) -> dict[str, int]:
    """The SGPR of each launch input (kernarg_ptr, wgid_x, ...; -1 where not enabled) and
    whether the work-item ids are packed."""
    d = k.descriptor
    out: dict[str, int] = {}
    sgpr = 0
    for name, n in _USER_SGPRS:
        if d.get(f"user_sgpr_{name}", 0):
            if name not in _PROVIDED:
                raise GemmcError(f"kernel {k.name} asks for the {name.replace('_', ' ')} user SGPRs "
                                 f"(.amdhsa_user_sgpr_{name} 1): the interpreter provides only the kernarg "
                                 "segment pointer", where)
            if name == "kernarg_segment_ptr":
                out["kernarg_ptr"] = sgpr
            sgpr += n
    # kernargs preloaded into the user SGPRs after the pointer (Triton's kernels): LLVM's code
    # starts with the loads of them that firmware without preloading runs (AMDGPUUsage,
    # "Preloaded Kernel Arguments"), so starting there fills the same SGPRs
    system = d.get("user_sgpr_count", sgpr)
    architected = arch.name.startswith("gfx12")
    for axis in "xyz":
        if d.get(f"system_sgpr_workgroup_id_{axis}", 1 if axis == "x" else 0) and not architected:
            out[f"wgid_{axis}"] = system
            system += 1
    if d.get("system_sgpr_workgroup_info", 0):
        raise GemmcError(f"kernel {k.name} asks for the workgroup info SGPR: not supported", where)
    # (a private segment wave offset SGPR after them reads 0: the interpreter's scratch is per lane)
    out["ttmp_wgid"] = int(architected)
    out["tid_packed"] = int(get_gcn_isa(arch).packed_workitem_ids)
    out["workitem_id"] = d.get("system_vgpr_workitem_id", 0)
    return out


def _arg_entries(k: AsmKernel, where: Location) -> list[dict]:
    """The metadata's arguments: explicit ones numbered (`arg`) in order, hidden ones by kind."""
    out, explicit = [], 0
    for a in k.meta.get("args") or []:
        kind = str(a.get("value_kind"))
        e = {"kind": "by_value_bytes" if kind == "by_value" else kind, "offset": int(a.get("offset", 0)), "size": int(a.get("size", 0))}
        if not kind.startswith("hidden_"):
            if kind not in ("global_buffer", "by_value"):
                raise GemmcError(f"kernel {k.name}: kernel arguments of kind {kind} are not supported", where)
            e["arg"] = explicit
            explicit += 1
        out.append(e)
    return out


def kernel_attributes(k: AsmKernel, arch: Arch, where: Location | None = None) -> dict[str, Attribute]:
    """The amdgcn.kernel attributes the interpreter reads, from the descriptor and metadata."""
    where = where or Location(k.lines[0].loc.file if k.lines else "<asm>", 1, 1)
    d, m = k.descriptor, k.meta
    wave = 32 if d.get("wavefront_size32", 0) else 64
    if wave != arch.wave_size:
        raise GemmcError(f"kernel {k.name} is wave{wave}; {arch.name} runs wave{arch.wave_size}", where)
    ins = inputs(k, arch, where)
    ints = {"vgprs": max(d.get("next_free_vgpr", 1), int(m.get("vgpr_count", 0)), 3),
            "agprs": 256 if int(m.get("agpr_count", 0) or 0) else 0,
            "sgprs": TTMP_FIRST + 16,  # every SGPR the ISA names, the trap temporaries too
            "lds_bytes": d.get("group_segment_fixed_size", 0),
            # padded to 64 bytes, as the runtime allocates it: LLVM widens the scalar loads of the
            # last arguments (s_load_b128 at 0x18 of a 36-byte segment)
            "kernarg_size": -(-d.get("kernarg_size", int(m.get("kernarg_segment_size", 0))) // 64) * 64,
            "private_bytes": d.get("private_segment_fixed_size", 0)}
    attrs: dict[str, Attribute] = {k2: IntegerAttr(v, i64) for k2, v in ints.items()}
    attrs["inputs"] = DictionaryAttr({k2: IntegerAttr(v, i64) for k2, v in ins.items()})
    attrs["args"] = kernel_args_attr(_arg_entries(k, where))
    attrs["origin"] = StringAttr("llvm-asm")
    return attrs
