// RUN: %gemmc opt %S/../warp-specialize/Inputs/in-flight-f4.mlir --arch sm_90 -p 'tma-copies' | filecheck %s

// The K loop: every thread first waits for tile t's phase of its slot's mbarrier: iteration i = t - 0,
// slot i mod 4, parity (i / 4) mod 2; the prefetch is the leader's TMA boxes; the barrier at the loop's
// end stays (slot reuse).  The loop runs once a kernel: no mbarrier_inval after it.

// CHECK-LABEL: "gpu.func"()
// CHECK:       scf.for %t = %[[LO:[0-9]+]] to %num_tiles step %{{[0-9]+}} {
// CHECK-NEXT:    %k_iter = arith.subi %t, %[[LO]] : index
// CHECK-NEXT:    %[[F:[0-9]+]] = arith.constant 4 : index
// CHECK-NEXT:    %[[TWO:[0-9]+]] = arith.constant 2 : index
// CHECK-NEXT:    %full_slot = arith.remui %k_iter, %[[F]] : index
// CHECK-NEXT:    %[[R:[0-9]+]] = arith.divui %k_iter, %[[F]] : index
// CHECK-NEXT:    %full_parity = arith.remui %[[R]], %[[TWO]] : index
// CHECK-NEXT:    nvgpu.mbarrier_wait_parity %full[%full_slot], %full_parity : memref<4xi64, 3 : i64>
// CHECK:         nvgpu.wgmma_wait_group {numGroups = 1 : i32}
// CHECK:         scf.if %has_next {
// CHECK:           scf.if %tma_leader {
// CHECK-NEXT:        nvgpu.mbarrier_arrive_expect_tx %full[%slot_{{[0-9]+}}] {txBytes = 32768 : i32}
// CHECK-COUNT-3:     nvgpu.tma_load
// CHECK:         }{gemm.role = "prefetch"}
// CHECK-NEXT:    "gpu.barrier"() : () -> ()
// CHECK-NEXT:  } {gemm.role = "k_loop"}
// CHECK-NOT:   nvgpu.mbarrier_inval
