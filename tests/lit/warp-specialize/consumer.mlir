// RUN: %gemmc opt %S/Inputs/in-flight-f4.mlir --arch sm_90 -p 'warp-specialize' | filecheck %s

// The consumers: wait for tile t's full phase (t / 4) mod 2, run its wgmma group with one group kept in
// flight, then release the slot of t - 1 (its group just retired) on empty; no barrier in the loop;
// wait_group 0 and the epilogue are theirs alone.

// CHECK-LABEL: } else {
// CHECK-NEXT:    nvgpu.setmaxnreg {regCount = 232 : i32, action = "inc"}
// CHECK-NEXT:    scf.for %t_1 =
// CHECK-NEXT:      %full_slot = arith.remui %t_1, %{{[0-9]+}} : index
// CHECK:           %full_parity = arith.remui
// CHECK-NEXT:      nvgpu.mbarrier_wait_parity %full[%full_slot], %full_parity
// CHECK-NOT:       "gpu.barrier"
// CHECK:           nvgpu.wgmma_commit_group
// CHECK-NEXT:      nvgpu.wgmma_wait_group {numGroups = 1 : i32}
// CHECK-NEXT:    } {gemm.role = "compute"}
// CHECK-NEXT:    %has_prev = arith.cmpi uge, %t_1, %{{[0-9]+}} : index
// CHECK-NEXT:    scf.if %has_prev {
// CHECK-NEXT:      %[[PREV:[0-9]+]] = arith.subi %t_1, %{{[0-9]+}} : index
// CHECK-NEXT:      %empty_slot = arith.remui %[[PREV]], %{{[0-9]+}} : index
// CHECK-NEXT:      nvgpu.mbarrier_arrive %empty[%empty_slot]
// CHECK-NEXT:    }
// CHECK-NEXT:  } {gemm.role = "k_loop"}
// CHECK-NEXT:  nvgpu.wgmma_wait_group {numGroups = 0 : i32}
// CHECK:       memref.load %acc{{.*}} {gemm.role = "acc_read"}
// CHECK:       }{gemm.role = "warp_specialized"}
// CHECK-NEXT:  "gpu.return"
