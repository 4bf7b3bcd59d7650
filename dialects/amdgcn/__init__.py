"""amdgcn: AMD GPU machine code as xDSL IR, modelled on xDSL's riscv and x86 dialects.

Ops are instructions, registers are types, and a register allocator works on top
(passes/amdgcn_regalloc.py).  The levels one module goes through:

1. after `lower-to-amdgcn`: instructions on *unallocated* registers (`!amdgcn.vgpr`,
   `!amdgcn.sgpr<x2>` for an unallocated pair), constants as `!amdgcn.imm` values, and
   structured control flow: `amdgcn.for` (a uniform loop with a scalar counter),
   `amdgcn.if` (EXEC-masked, lane-divergent), `amdgcn.if_uniform` (a scalar branch);
2. after `amdgcn-regalloc`: every register allocated (`!amdgcn.vgpr<v5>`,
   `!amdgcn.sgpr<s[4:5]>`), copies that became no-ops removed;
3. after `insert-waitcnt`: `amdgcn.s_waitcnt` where a use needs a load's result;
4. after `amdgcn-finalize`: one block of instructions with `amdgcn.label`s and branches,
   the EXEC manipulation spelled out, the kernel descriptor values on `amdgcn.kernel`.

The modules: registers (the register types), instructions (one op per instruction of
gemmc.target.amdgcn_isa's table), pseudo (constants, copies, labels: ops that are no instruction),
control_flow (for, if, if_uniform, yield) and kernel (amdgcn.module, amdgcn.kernel).
An instruction's assembly line is printed by gemmc.amdgcn.asm's `assembly_line`, in LLVM's
syntax for the module's target (gfx9 or gfx11 spellings: `global_load_dword` /
`global_load_b32`).
"""

from __future__ import annotations

from xdsl.ir import Dialect

from gemmc.dialects.amdgcn.control_flow import ForOp, IfOp, IfUniformOp, YieldOp
from gemmc.dialects.amdgcn.instructions import INSTRUCTIONS
from gemmc.dialects.amdgcn.kernel import GcnModuleOp, KernelOp
from gemmc.dialects.amdgcn.pseudo import (
    CommentOp,
    ConcatOp,
    ConstantOp,
    CopyOp,
    ExtractOp,
    InputOp,
    LabelOp,
    RegOp,
    UndefOp,
)
from gemmc.dialects.amdgcn.registers import AGPRType, ImmType, SGPRType, SpecialRegType, VGPRType

AMDGCN = Dialect(
    "amdgcn",
    [ConstantOp, InputOp, UndefOp, CopyOp, ExtractOp, ConcatOp, RegOp, LabelOp, CommentOp, YieldOp, ForOp,
     IfOp, IfUniformOp, KernelOp, GcnModuleOp, *INSTRUCTIONS.values()],
    [VGPRType, SGPRType, AGPRType, SpecialRegType, ImmType],
)
