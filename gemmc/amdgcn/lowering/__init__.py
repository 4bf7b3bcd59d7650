"""lower-to-amdgcn's instruction selection, one concern per module (the pass: passes/lower_to_amdgcn.py).

    context       SelectionContext: the value map, the blocks being filled, emission and value numbering
    registers     register files (SGPR: wave-uniform, VGPR: per lane) and VALU operand rules
    integers      `register + constant` arithmetic       division   unsigned division by constants
    booleans      compares; uniform i1 vs lane masks      ranges     f32, vector and packed registers
    elements      buffer element types, constants' bits
    addressing    LDS allocation, global and LDS addresses
    loads, stores                memref / vector loads and stores, global and LDS
    arith_int, arith_float       arith's integer ops; f32 arithmetic and conversions
    vector_ops, matrix           vector ops that rearrange registers; MFMA / WMMA
    control_flow, gpu_ops        scf.for / scf.if; thread and block ids, barriers, return
    kernargs      the kernarg segment and memref.dim
    finish        after a block is selected: loads combined and hoisted

Each family is a mixin class on SelectionContext with a table of its handlers by op class;
the pass's KernelLowering puts the families together and dispatches each op to its handler.
"""
