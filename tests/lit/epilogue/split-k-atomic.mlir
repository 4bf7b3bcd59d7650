// RUN: not %gemmc opt %S/Inputs/fused.mlir -p 'gemm-to-kernel,lds-tiling{block-m=32 block-n=32 block-k=16},register-tiling{thread-m=4 thread-n=4},split-k{factor=2}' 2>&1 | filecheck %s

// Atomic partial sums add up to the epilogue only where it is linear in the sum; gelu is not, so
// split-k{reduce=atomic} refuses it at its op, never silently computing gelu of each partial sum
// (stream-k finishes such a tile in its last contributor: stream-k-*.mlir).

// CHECK: error: split-k: reduce=atomic: the epilogue multiplies the accumulator or C by itself (at 'arith.mulf' in @fused)
