// RUN: not %gemmc opt %S/Inputs/dynamic.mlir --arch sm_90 -p pack-operands 2>&1 | filecheck %s --check-prefix=DYNAMIC
// RUN: sed 's/^      %%K = arith.constant 19 : index/      %%c1_k = arith.constant 1 : index\n      %%K = memref.dim %%A, %%c1_k : memref<37x19xf16>/' %S/Inputs/odd.mlir | not %gemmc opt - --arch sm_90 -p pack-operands 2>&1 | filecheck %s --check-prefix=DIM
// RUN: sed 's/^\(          %%a = memref.load %%A\[%%row, %%k\] : memref<37x19xf16>\)/\1\n          memref.store %%a, %%A[%%row, %%k] : memref<37x19xf16>/' %S/Inputs/odd.mlir | not %gemmc opt - --arch sm_90 -p pack-operands 2>&1 | filecheck %s --check-prefix=USE
// RUN: sed 's/ attributes {gemm.matmul_spec = {[^}]*}}//' %S/Inputs/odd.mlir | not %gemmc opt - --arch sm_90 -p pack-operands 2>&1 | filecheck %s --check-prefix=SPEC
// RUN: not %gemmc opt %S/Inputs/odd.gemm --arch sm_90 -p pack-operands 2>&1 | filecheck %s --check-prefix=NOLOOP
// RUN: not %gemmc opt %S/Inputs/odd.mlir --arch sm_90 -p 'pack-operands{multiple=-1}' 2>&1 | filecheck %s --check-prefix=MULTIPLE
// RUN: not %gemmc opt %S/Inputs/mxfp4.gemm --arch gfx950 -p gemm-to-kernel,pack-operands 2>&1 | filecheck %s --check-prefix=FP4
// RUN: not %gemmc opt %S/Inputs/rows36.gemm --arch gfx942 -p 'gemm-to-kernel,lds-tiling{block-m=32 block-n=32 block-k=8},vectorize{width=4},pack-operands{multiple=7}' 2>&1 | filecheck %s --check-prefix=WIDTH
// RUN: not %gemmc opt %S/Inputs/odd.gemm --arch sm_90 -p 'gemm-to-kernel,lds-tiling{block-m=32 block-n=32 block-k=8},vectorize{width=4},lower-copies,pack-operands' 2>&1 | filecheck %s --check-prefix=LOWERED

// pack-operands' refusals, each one line naming the op: a dynamic row length (gemm-to-kernel's K of a program
// with dynamic sizes, which the kernel reads from the buffer's type); a kernel reading A's row length by
// memref.dim (static sizes, the IR edited); a use of A other than a read at explicit indices (a store); a host
// function without gemm.matmul_spec (which names A and B); no kernel to pack for (gemm IR); a negative
// multiple; FP4 rows (B's 1000 elements, 500 bytes), whose elements are packed two a byte; a copy whose
// 4-element vectors vectorize proved aligned on rows of 36, which rows padded to 42 (multiple=7) would misalign;
// lower-copies' vector loads (their alignment proven on the unpadded rows).

// DYNAMIC: error: pack-operands: %A's row length is dynamic: pack-operands pads static row lengths only {{.*}}(at 'gpu.launch_func' in @dyn)
// DIM: error: pack-operands: the kernel reads %A's row length from its buffer (memref.dim), which the padded buffer would change (at 'memref.dim' in @odd)
// USE: error: pack-operands: %A is used by 'memref.store': {{.*}}(at 'memref.store' in @odd)
// SPEC: error: pack-operands: the host function has no gemm.matmul_spec: {{.*}}(at 'gpu.launch_func' in @odd)
// NOLOOP: error: pack-operands: found no launched kernel with a K loop
// MULTIPLE: error: pack-operands: multiple=-1 must be 0 (16 bytes of the element) or more
// FP4: error: pack-operands: %B's f4E2M1FN elements are packed below a byte in global memory: {{.*}}(at 'gpu.launch_func' in @mxfp4gemm)
// WIDTH: error: pack-operands: the copy of %A loads vectors of 4, proven aligned on its rows; padded to 42 they would not be (pad to a multiple of 4) (at 'gemm.copy' in @r)
// LOWERED: error: pack-operands: %A is used by 'vector.load': {{.*}}run it before lower-copies) (at 'vector.load' in @odd)
