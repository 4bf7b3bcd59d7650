// RUN: %gemmc opt %S/Inputs/pipelined-f4-s4.mlir --arch sm_90 -p 'wgmma-in-flight' | filecheck %s

// Four slots, pipeline{stages=4} (three tiles ahead): the prefetch distance drops to F - 2 = 2,
// so the prologue loads tiles 0 and 1 only and the loop prefetches tile t + 2 (the slot of t - 2).

// CHECK-LABEL: "gpu.func"
// CHECK:       %t1 = arith.constant 1 : index
// CHECK:       }{gemm.role = "prologue"}
// CHECK-NOT:   gemm.role = "prologue"
// CHECK:       "gpu.barrier"
// CHECK-NEXT:  scf.for %t =
// CHECK-NEXT:    %[[D:[0-9]+]] = arith.constant 2 : index
// CHECK-NEXT:    %next_t = arith.addi %t, %[[D]] : index
// CHECK:         %slot_3 = arith.remui %next_t, %{{[0-9]+}} : index
// CHECK:         gemm.copy %A[%block_row, %k0_2] {{.*}} to %tile_a[%slot_3]
