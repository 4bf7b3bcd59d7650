// RUN: %gemmc opt %S/Inputs/fused.mlir -p 'gemm-to-kernel,lds-tiling{block-m=32 block-n=32 block-k=16},register-tiling{thread-m=4 thread-n=4},stream-k{workgroups=4}' | %gemmc run - --arch gfx942 | filecheck %s
// RUN: %gemmc opt %S/Inputs/fused.mlir -p 'gemm-to-kernel,lds-tiling{block-m=32 block-n=32 block-k=16},register-tiling{thread-m=4 thread-n=4},stream-k{workgroups=4},double-buffer,lower-copies' | %gemmc run - --arch gfx942 | filecheck %s

// The interpreter runs the fix-up (4 workgroups, 2 tiles of 2 K iterations: every tile shared) with
// its happens-before between workgroups, against the declared program in float64.

// CHECK: PASS: M=64 N=32 K=32
