"""HIP printers of the nvgpu dialect: the tensor cores' mma.sync as inline PTX (sm_90).

    nvgpu.mma_sync -> d = gemmc_mma_m16n8k16_f32_f16(a, b, c);

nvcc has no builtin for mma.sync; CUDA's own wmma API hides the fragment layout.  gemmc's
lowering places every element itself (gemmc.target.arch.MatrixInstr.a / .b / .d), so the printer
hands the lane's registers to the PTX instruction as they are: A's 8 16-bit elements as four
32-bit registers (elements 2i and 2i + 1 in register i, low half first, as the PTX ISA's .f16x2 /
.bf16x2 pack them), B's 4 as two, C and D as four f32 registers.  The device function holding
the asm statement is printed once per file (FileScope.helper), named by MatrixInstr.builtin.
The printers enter gemmc.emit.function_printer's table when this module is imported.
"""

from __future__ import annotations

from xdsl.ir import Operation

from gemmc.dialects.amdgpu import lanes_of
from gemmc.emit.c_text import call
from gemmc.emit.function_printer import FunctionPrinter, op_printer
from gemmc.emit.ir_access import emit_error


@op_printer("nvgpu.mma_sync", pure=True)
def _print_mma_sync(p: FunctionPrinter, op: Operation) -> None:
    arch = p.emitter.arch
    instr = op.instr_on(arch)
    if instr is None or arch.vendor != "nvidia":
        m, n, k = op.shape
        raise emit_error(op, f"{arch.name} has no mma.sync {m}x{n}x{k} with {lanes_of(op.sourceA.type)[0]} inputs")
    a_t, b_t, c_t = (p.type_name(v.type, op) for v in op.operands)
    name = p.emitter.helper(instr.builtin, mma_function(instr, a_t, b_t, c_t), {})
    p.define(op.results[0], call(name, *(p.value(v) for v in op.operands)))


def mma_function(instr, a_t: str, b_t: str, c_t: str) -> list[str]:
    """The device function that issues `instr` (its operands' C types given): the asm's outputs
    are D's four floats, its inputs A's and B's 32-bit registers and C's floats."""
    a_regs, b_regs, c_regs = instr.a_regs, instr.b_regs, instr.c_regs
    d = [f"%{i}" for i in range(c_regs)]
    a = [f"%{c_regs + i}" for i in range(a_regs)]
    b = [f"%{c_regs + a_regs + i}" for i in range(b_regs)]
    c = [f"%{c_regs + a_regs + b_regs + i}" for i in range(c_regs)]
    xyzw = "xyzw"
    outs = ", ".join(f'"=f"(d.{xyzw[i]})' for i in range(c_regs))
    ins = ", ".join([f'"r"(ra[{i}])' for i in range(a_regs)] + [f'"r"(rb[{i}])' for i in range(b_regs)]
                    + [f'"f"(c.{xyzw[i]})' for i in range(c_regs)])
    text = f"{instr.ptx} {{{', '.join(d)}}}, {{{', '.join(a)}}}, {{{', '.join(b)}}}, {{{', '.join(c)}}};"
    return [
        f"// {instr.ptx}: one warp's D[{instr.m}x{instr.n}] = A[{instr.m}x{instr.k}] @ B[{instr.k}x{instr.n}] + C,",
        "// each lane's fragments in the PTX ISA's layout (gemmc layout --arch sm_90)",
        f"__device__ inline {c_t} {instr.builtin}(const {a_t}& a, const {b_t}& b, const {c_t}& c)",
        "{",
        f"    const unsigned* ra = reinterpret_cast<const unsigned*>(&a);",
        f"    const unsigned* rb = reinterpret_cast<const unsigned*>(&b);",
        f"    {c_t} d;",
        f'    asm("{text}"',
        f"        : {outs}",
        f"        : {ins});",
        "    return d;",
        "}",
    ]
