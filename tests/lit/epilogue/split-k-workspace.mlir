// RUN: %gemmc opt %S/Inputs/fused.mlir -p 'gemm-to-kernel,lds-tiling{block-m=32 block-n=32 block-k=16},register-tiling{thread-m=4 thread-n=4},split-k{factor=2 reduce=workspace}' | filecheck %s

// split-k through a workspace: the first kernel stores each partial sum raw, the reduce kernel
// adds them in order and applies the whole (non-linear) epilogue once.

// CHECK:      %sum = memref.load %acc{{.*}} {gemm.role = "acc_read"}
// CHECK-NEXT: memref.store %sum, %workspace[%bz, %[[R:[a-z0-9_]+]], %[[C:[a-z0-9_]+]]]
// CHECK-NOT:  math.erf
// CHECK:      "gpu.return"
// CHECK:      sym_name = "fused"
// CHECK:      %partial_sum = scf.for
// CHECK:      %s_e = memref.load %s[%[[R2:[a-z0-9_]+]]]
// CHECK:      arith.mulf %s_e, %partial_sum : f32
// CHECK:      math.erf
// CHECK:      memref.store %{{.*}}, %C[%[[R2]], %{{.*}}]
