// RUN: %gemmc opt %S/Inputs/pipelined-f4-s4.mlir --arch sm_90 -p 'wgmma-in-flight' | filecheck %s

// After the loop every group is waited for (wait_group 0) before the epilogue reads the accumulators.

// CHECK-LABEL: } {gemm.role = "k_loop"}
// CHECK-NEXT:  nvgpu.wgmma_wait_group {numGroups = 0 : i32}
// CHECK-NOT:   nvgpu.wgmma_mma_async
// CHECK:       memref.load %acc{{.*}} {gemm.role = "acc_read"}
