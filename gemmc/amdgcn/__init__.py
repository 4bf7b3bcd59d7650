"""gemmc's own AMDGCN backend, after the kernel IR (docs/amdgcn.md).

    kernel IR --unroll-loops--> loops unrolled --promote-private--> register tiles as values
              --lower-to-amdgcn--> amdgcn (virtual registers, structured control flow)
              --amdgcn-regalloc--> allocated --insert-waitcnt--> s_waitcnt placed
              --amdgcn-finalize--> labels, branches, EXEC, kernel descriptor values
              --asm.print_module--> .s  --llvm-mc, ld.lld--> code object (.hsaco)

The passes live in passes/ (unroll_loops, promote_private, lower_to_amdgcn, amdgcn_regalloc,
insert_waitcnt, amdgcn_finalize) and the dialect in dialects/amdgcn/; this package has what comes after
them: the assembly printer (asm), assembling and linking (toolchain), and the interpreter
that runs the emitted program (interp).  Running the passes is the driver's (gemmc.driver.gcn:
lower_to_gcn, emit_gcn, emit_gcn_hsaco), as for every other pipeline.
"""

from __future__ import annotations

GCN_PREPARE = "lower-copies,unroll-loops,promote-private"
"""The kernel-IR passes lower-to-amdgcn expects to have run: copies as loops, loops unrolled,
register tiles as values."""

GCN_PIPELINE = GCN_PREPARE + ",lower-to-amdgcn,amdgcn-regalloc,insert-waitcnt,amdgcn-finalize"
"""The passes that take kernel IR to a finalized amdgcn module."""


def report(module) -> str:
    """VGPRs, AGPRs, SGPRs, LDS and instruction counts of each finalized amdgcn kernel, as a table."""
    from gemmc.dialects.amdgcn.instructions import GcnInstruction, is_matrix, is_memory_wait
    from gemmc.dialects.amdgcn.kernel import GcnModuleOp, KernelOp

    rows = [("kernel", "arch", "VGPRs", "AGPRs", "SGPRs", "LDS B/block", "instructions", "MFMA/WMMA", "s_waitcnt")]
    for m in module.walk():
        if not isinstance(m, GcnModuleOp):
            continue
        for k in m.body.block.ops:
            if isinstance(k, KernelOp):
                instrs = [op for op in k.body.block.ops if isinstance(op, GcnInstruction)]
                waits = sum(1 for op in instrs if is_memory_wait(op))
                mfmas = sum(1 for op in instrs if is_matrix(op))
                rows.append((k.sym_name.data, m.target.data, str(k.int_attr("vgprs")), str(k.int_attr("agprs")),
                             str(k.int_attr("sgprs")), str(k.int_attr("lds_bytes")), str(len(instrs)), str(mfmas),
                             str(waits)))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join([r[0].ljust(widths[0]), r[1].ljust(widths[1])]
                       + [c.rjust(w) for c, w in zip(r[2:], widths[2:])]).rstrip() for r in rows]
    return "\n".join(lines) + "\n"
