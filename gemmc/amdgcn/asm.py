"""Print finalized amdgcn IR as an AMDGCN assembly file that llvm-mc assembles.

One `.s` per module: the target directive, each kernel's instructions (LLVM's syntax and
spellings for the target: gfx9's `global_load_dword`, gfx11's `global_load_b32`), its
`.amdhsa_kernel` descriptor (register counts, LDS, user/system SGPRs, work-item ids) and
the `amdhsa.kernels` metadata (the argument list, as the HIP launcher passes it).
"""

from __future__ import annotations

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue

from gemmc.target.amdgcn_isa import Form, Slot
from gemmc.target.arch import Arch, get_arch, get_gcn_isa
from gemmc.support.diagnostics import GemmcError
from gemmc.dialects.amdgcn.instructions import GcnInstruction
from gemmc.dialects.amdgcn.kernel import GcnModuleOp, KernelOp, kernel_args, kernel_inputs
from gemmc.dialects.amdgcn.pseudo import CommentOp, LabelOp, constant_of
from gemmc.dialects.amdgcn.registers import GcnRegisterType, ImmType, SpecialRegType, is_allocated
from gemmc.support.symbols import kernel_symbols

CODE_OBJECT_VERSION = 5  # amdhsa.version 1.2 (AMDGPUUsage, "Code Object V5 Metadata")


def operand(v: SSAValue, wave_size: int) -> str:
    t = v.type
    if isinstance(t, GcnRegisterType):
        if not is_allocated(t):
            raise GemmcError("emit-gcn: the kernel has unallocated registers; run amdgcn-regalloc")
        return t.register_name
    if isinstance(t, SpecialRegType):
        return t.asm_name(wave_size)
    if isinstance(t, ImmType):
        c = constant_of(v)
        if c is None:
            raise GemmcError("emit-gcn: a constant operand without amdgcn.constant")
        return c.asm()
    raise GemmcError(f"emit-gcn: cannot print an operand of type {t}")


def _printed(slot: Slot, form: Form) -> bool:
    if slot.kind == "special:scc":
        return False
    if slot.kind == "special:exec":
        return form.explicit_exec
    return True


def assembly_line(op: Operation, generation: str, wave_size: int) -> str | None:
    """The instruction's line (without indentation), or None for ops that emit nothing."""
    if isinstance(op, LabelOp):
        return f"{op.label.data}:"
    if isinstance(op, CommentOp):
        return f"; {op.text.data}"
    if not isinstance(op, GcnInstruction):
        return None
    f = op.FORM
    name = op.mnemonic(generation)
    mods = op.mods
    dsts = [operand(v, wave_size) for v, s in zip(op.dsts, f.dsts) if _printed(s, f)]
    srcs = [operand(v, wave_size) for i, (v, s) in enumerate(zip(op.srcs, f.srcs)) if _printed(s, f) and i != f.tied]
    if f.fmt == "SOPP":
        m = op.MNEMONIC
        if m == "s_waitcnt":
            parts = [f"{k}({mods[k]})" for k in ("vmcnt", "expcnt", "lgkmcnt") if k in mods]
            return f"{name} {' '.join(parts) if parts else '0'}"
        if m == "s_waitcnt_vscnt":
            return f"{name} null, 0x{mods.get('vscnt', 0):x}"
        if m == "s_nop":
            return f"{name} {mods.get('imm', 0)}"
        if m.startswith("s_wait_") and m != "s_wait_alu":
            return f"{name} 0x{mods.get('imm', 0):x}"
        if m == "s_wait_alu":
            return f"{name} {' '.join(f'depctr_{k}(0)' for k in ('sa_sdst', 'va_sdst', 'va_vcc') if k in mods)}"
        if m in ("s_barrier_signal", "s_barrier_wait"):
            return f"{name} -1"  # -1: the workgroup barrier
        target = op.attributes.get("target")
        if target is not None:
            return f"{name} {target.data}"  # type: ignore[attr-defined]
        return name
    if f.fmt == "SOPK":
        return f"{name} {dsts[0]}, 0x{mods.get('imm', 0) & 0xFFFF:x}"
    if f.fmt == "SMEM":
        return f"{name} {dsts[0]}, {srcs[0]}, 0x{mods.get('offset', 0):x}"
    off = mods.get("offset", 0)
    suffix = f" offset:{off}" if off else ""
    if "offset0" in f.mods:
        suffix = "".join(f" {k}:{mods[k]}" for k in ("offset0", "offset1") if mods.get(k))
    if f.fmt == "DS":
        return f"{name} {', '.join(dsts + srcs)}{suffix}"
    if f.fmt == "GLOBAL":
        saddr = op.MNEMONIC.endswith("_saddr")
        if dsts:  # load: vdst, vaddr, saddr|off
            args = dsts + srcs if saddr else dsts + srcs + ["off"]
        else:  # store: vaddr, vdata, saddr|off
            args = srcs if saddr else srcs + ["off"]
        return f"{name} {', '.join(args)}{suffix}"
    return f"{name} {', '.join(dsts + srcs)}".rstrip()


def vector_registers(k: KernelOp) -> tuple[int, int]:
    """(accum_offset, next free VGPR of the unified file): gfx90a+ place the AGPRs after the
    architected VGPRs at accum_offset (a multiple of 4, at least 4) in one 512-entry file, and
    the descriptor's next_free_vgpr counts both (AMDGPUUsage, "amdhsa_accum_offset")."""
    vgprs, agprs = k.int_attr("vgprs", 1), k.int_attr("agprs")
    offset = max(4, -(-vgprs // 4) * 4)
    return offset, offset + agprs if agprs else vgprs


def _kernel_text(k: KernelOp, name: str, arch: Arch) -> list[str]:
    """Kernel `k` as the symbol `name` (kernel_symbols: the HIP path's name for it)."""
    isa = get_gcn_isa(arch)
    if not k.int_attr("finalized"):
        raise GemmcError(f"emit-gcn: kernel @{k.sym_name.data} is not finalized; run amdgcn-finalize")
    lines = [
        "\t.text",
        f"\t.globl\t{name}",
        "\t.p2align\t8",
        f"\t.type\t{name},@function",
        f"{name}:",
    ]
    n_instr = 0
    for op in k.body.block.ops:
        line = assembly_line(op, isa.generation, arch.wave_size)
        if line is None:
            continue
        if isinstance(op, LabelOp):
            lines.append(line)
        else:
            lines.append("\t" + line)
            n_instr += 0 if isinstance(op, CommentOp) else 1
    lines.append(f".Lfunc_end_{name}:")
    lines.append(f"\t.size\t{name}, .Lfunc_end_{name}-{name}")
    sgprs = k.int_attr("sgprs", 4)
    accum_offset, vgprs = vector_registers(k) if isa.has_accum_offset else (0, k.int_attr("vgprs", 1))
    lds = k.int_attr("lds_bytes")
    block = [a.value.data for a in k.attributes["block"].data]  # type: ignore[attr-defined]
    agprs = f" ({k.int_attr('agprs')} AGPRs from v{accum_offset})" if k.int_attr("agprs") else ""
    lines.append(f"; gemmc: {n_instr} instructions, {vgprs} VGPRs{agprs}, {sgprs} SGPRs, {lds} bytes of LDS")
    d = [
        f"\t.amdhsa_group_segment_fixed_size {lds}",
        "\t.amdhsa_private_segment_fixed_size 0",
        f"\t.amdhsa_kernarg_size {k.int_attr('kernarg_size')}",
        "\t.amdhsa_user_sgpr_count 2",
        "\t.amdhsa_user_sgpr_kernarg_segment_ptr 1",
        "\t.amdhsa_system_sgpr_workgroup_id_x 1",
        "\t.amdhsa_system_sgpr_workgroup_id_y 1",
        f"\t.amdhsa_system_sgpr_workgroup_id_z {int('wgid_z' in kernel_inputs(k))}",
        f"\t.amdhsa_system_vgpr_workitem_id {2 if block[2] > 1 else (1 if block[1] > 1 else 0)}",
        f"\t.amdhsa_next_free_vgpr {vgprs}",
        f"\t.amdhsa_next_free_sgpr {sgprs}",
    ]
    if isa.has_accum_offset:
        d.append(f"\t.amdhsa_accum_offset {accum_offset}")
    d.append(f"\t.amdhsa_reserve_vcc {k.int_attr('uses_vcc')}")
    # IEEE denormals for f32 too, as LLVM sets them for HIP (the assembler's default flushes
    # f32 denormals; the interpreter, like numpy, keeps them)
    d += ["\t.amdhsa_float_denorm_mode_32 3", "\t.amdhsa_float_denorm_mode_16_64 3"]
    if arch.wave_size == 32:
        d.append("\t.amdhsa_wavefront_size32 1")
    lines += ["\t.rodata", "\t.p2align\t6", f"\t.amdhsa_kernel {name}", *d, "\t.end_amdhsa_kernel"]
    return lines


def _metadata(kernels: list[KernelOp], names: list[str], arch: Arch) -> list[str]:
    isa = get_gcn_isa(arch)
    out = ["\t.amdgpu_metadata", "---", "amdhsa.kernels:"]
    for k, name in zip(kernels, names):
        block = [a.value.data for a in k.attributes["block"].data]  # type: ignore[attr-defined]
        extra = 6 if isa.generation == "gfx9" else 2  # VCC, and on gfx9 XNACK mask and flat scratch
        out.append(f"  - .name: {name}")
        out.append(f"    .symbol: {name}.kd")
        out.append("    .args:")
        for a in kernel_args(k):
            out.append(f"      - .name: {a['name']}")
            out.append(f"        .offset: {a['offset']}")
            out.append(f"        .size: {a['size']}")
            out.append(f"        .value_kind: {a['kind']}")
            if a["kind"] == "global_buffer":
                out.append("        .address_space: global")
        out += [
            f"    .group_segment_fixed_size: {k.int_attr('lds_bytes')}",
            "    .kernarg_segment_align: 8",
            f"    .kernarg_segment_size: {k.int_attr('kernarg_size')}",
            f"    .max_flat_workgroup_size: {block[0] * block[1] * block[2]}",
            "    .private_segment_fixed_size: 0",
            f"    .sgpr_count: {k.int_attr('sgprs') + extra}",
            "    .sgpr_spill_count: 0",
            f"    .vgpr_count: {vector_registers(k)[1] if isa.has_accum_offset else k.int_attr('vgprs')}",
            "    .vgpr_spill_count: 0",
            f"    .wavefront_size: {arch.wave_size}",
            "    .uniform_work_group_size: 1",
        ]
        if isa.has_accum_offset:
            out.append(f"    .agpr_count: {k.int_attr('agprs')}")
    out += [f"amdhsa.target: amdgcn-amd-amdhsa--{arch.name}", "amdhsa.version:", "  - 1", "  - 2", "...",
            "\t.end_amdgpu_metadata"]
    return out


def print_module(module: ModuleOp) -> str:
    """The whole module's kernels as one assembly file."""
    gmods = [op for op in module.walk() if isinstance(op, GcnModuleOp)]
    if not gmods:
        raise GemmcError("emit-gcn: no amdgcn.module; run lower-to-amdgcn first")
    targets = {m.target.data for m in gmods}
    if len(targets) != 1:
        raise GemmcError(f"emit-gcn: kernels for several targets ({', '.join(sorted(targets))})")
    arch = get_arch(targets.pop())
    isa = get_gcn_isa(arch)
    kernels = [k for m in gmods for k in m.body.block.ops if isinstance(k, KernelOp)]
    # the symbols the HIP path gives these kernels (one naming rule, docs/language.md)
    hosts = [op.sym_name.data for op in module.body.block.ops if isinstance(op, func.FuncOp)]
    names = kernel_symbols([k.sym_name.data for k in kernels], hosts)
    lines = [
        "; Generated by gemmc's AMDGCN backend (lower-to-amdgcn, amdgcn-regalloc, insert-waitcnt, amdgcn-finalize)",
        f'\t.amdgcn_target "amdgcn-amd-amdhsa--{arch.name}"',
        f"\t.amdhsa_code_object_version {CODE_OBJECT_VERSION}",
    ]
    for k, name in zip(kernels, names):
        lines += _kernel_text(k, name, arch)
    # padding after the code, as LLVM emits it (instruction prefetch may read past the end)
    lines.append("\t.text")
    if isa.generation == "gfx9":
        lines += ["\t.p2alignl 6, 3212836864", "\t.fill 256, 4, 3212836864"]
    else:
        lines += ["\t.p2alignl 7, 3214868480", "\t.fill 96, 4, 3214868480"]
    lines += _metadata(kernels, names, arch)
    return "\n".join(lines) + "\n"


def instruction_count(k: KernelOp) -> int:
    return sum(1 for op in k.body.block.ops if isinstance(op, GcnInstruction))


__all__ = ["assembly_line", "print_module"]
