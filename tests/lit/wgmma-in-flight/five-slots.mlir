// RUN: %gemmc opt %S/Inputs/pipelined-f5-s4.mlir --arch sm_90 -p 'wgmma-in-flight' | filecheck %s

// Five slots leave room for pipeline's three tiles ahead (F >= d + 2): the distance is kept, the
// three prologue stages stay, only the wait and the prefetch's place change.

// CHECK-LABEL: "gpu.func"
// CHECK:       %t2 = arith.constant 2 : index
// CHECK:       }{gemm.role = "prologue"}
// CHECK:       scf.for %t =
// CHECK-NEXT:    %[[D:[0-9]+]] = arith.constant 3 : index
// CHECK-NEXT:    %next_t = arith.addi %t, %[[D]] : index
// CHECK:         nvgpu.wgmma_wait_group {numGroups = 1 : i32}
// CHECK:         }{gemm.role = "prefetch"}
