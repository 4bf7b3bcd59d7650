"""An interpreter for finalized amdgcn kernels: the emitted program, run without a GPU.

State, per wave of every workgroup of the grid at once (numpy arrays over waves and lanes):
VGPRs (32 bits per lane), SGPRs, EXEC, VCC, SCC, the program counter; per workgroup the
LDS; global memory is the host's numpy arrays at made-up 64-bit base addresses, with the
kernarg segment laid out as the kernel's metadata says.  A buffer is held as the device holds
it and read back after the launch; LDS is addressable by bytes.

What it checks, beyond computing C: s_waitcnt (reading or overwriting a register a load has
not written yet), bounds and alignment of global and LDS accesses, LDS races, barriers (every
live wave of a workgroup at the same one, no LDS access outstanding), and the MFMA, WMMA and
gfx12 SGPR hazards.

    state.py        the registers of every wave, operand reads and writes
    memory.py       global memory and LDS, address translation
    buffers.py      host arrays as the device holds them, the kernarg segment
    semantics.py    which handler runs an instruction; the families' tables:
      scalar_alu.py   SALU          vector_alu.py   VALU but the matrix instructions
      vector_forms.py carries, 64-bit, SDWA, 16-bit and packed-f32 VALU forms
      memory_ops.py   SMEM, GLOBAL, DS, SCRATCH, atomics   matrix_ops.py   v_mfma_*, v_wmma_*
      control.py      branches, EXEC, waits, barriers, nops
    waitcnt.py      the memory counters and the pending-register check
    hazards.py      MFMA wait states, the WMMA hazard, gfx12's SGPR read hazards
    races.py        LDS races between barriers
    bounds.py       global and LDS accesses inside their memory, aligned
    machine.py      Machine: the program compiled behind its checks, run; instruction counts
    launch.py       run_kernel, execute (the host function), check (against the declared program)
"""

from __future__ import annotations

from gemmc.amdgcn.interp.buffers import device_words, host_values, kernarg_segment
from gemmc.amdgcn.interp.launch import check, execute, run_kernel
from gemmc.amdgcn.interp.machine import MAX_STEPS, Machine, Stats
from gemmc.amdgcn.interp.state import BUFFER_SHIFT, KERNARG_BASE, U32, U64, GcnInterpError
from gemmc.amdgcn.interp.waitcnt import Counters

__all__ = [
    "BUFFER_SHIFT", "KERNARG_BASE", "MAX_STEPS", "U32", "U64", "Counters", "GcnInterpError", "Machine", "Stats",
    "check", "device_words", "execute", "host_values", "kernarg_segment", "run_kernel",
]
