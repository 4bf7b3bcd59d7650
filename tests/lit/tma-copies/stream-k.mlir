// RUN: %gemmc opt %S/Inputs/stream-k.mlir --arch sm_90 -p 'tma-copies' | filecheck %s

// stream-k: the K loop sits in the workgroup's loop over its tiles and runs from a per-tile start.
// The mbarriers are one allocation, before that loop; each tile's prologue initializes them again
// (phase 0 for its iteration 0), so the leader invalidates them after the K loop, when every phase it
// armed has completed (PTX leaves an init of a valid mbarrier undefined).

// CHECK-LABEL: "gpu.func"()
// CHECK:         %full = memref.alloca() : memref<4xi64, 3 : i64>
// CHECK-NEXT:    scf.for %tile = %first_tile to %end_tile step %{{[0-9]+}} {
// CHECK:           scf.if %tma_leader {
// CHECK-COUNT-4:     nvgpu.mbarrier_init %full[%{{[0-9]+}}] {count = 1 : i32} : memref<4xi64, 3 : i64>
// CHECK:           scf.for %t = %[[LO:[0-9]+]] to %k_end step %{{[0-9]+}} {
// CHECK-NEXT:        %k_iter = arith.subi %t, %[[LO]] : index
// CHECK:             nvgpu.mbarrier_wait_parity %full[%full_slot], %full_parity : memref<4xi64, 3 : i64>
// CHECK:           } {gemm.role = "k_loop"}
// CHECK-NEXT:      scf.if %tma_leader {
// CHECK-COUNT-4:     nvgpu.mbarrier_inval %full[%{{[0-9]+}}] : memref<4xi64, 3 : i64>
// CHECK-NEXT:      }
// CHECK-NEXT:      nvgpu.wgmma_wait_group {numGroups = 0 : i32}
