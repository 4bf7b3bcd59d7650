// RUN: %gemmc opt %S/../warp-specialize/Inputs/in-flight-f4.mlir --arch sm_90 -p 'warp-specialize,tma-copies' | filecheck %s

// After warp-specialize: full's mbarriers expect one arrival (the leader's expect_tx), fenced for the async
// proxy; the producer's first thread issues the boxes after the slot's empty wait; the noinc arrive goes.

// CHECK-LABEL: scf.if %is_first {
// CHECK:         nvgpu.mbarrier_init %full[%{{[0-9]+}}] {count = 1 : i32}
// CHECK-NEXT:    nvgpu.mbarrier_init %empty[%{{[0-9]+}}] {count = 256 : i32}
// CHECK:         nvgpu.fence_proxy_async
// CHECK-NEXT:  }
// CHECK-LABEL: scf.if %is_producer {
// CHECK:         nvgpu.mbarrier_wait_parity %empty[%slot], %empty_parity
// CHECK:         %tma_leader = arith.cmpi eq, %ptid, %{{[0-9]+}} : index
// CHECK-NEXT:    scf.if %tma_leader {
// CHECK-NEXT:      nvgpu.mbarrier_arrive_expect_tx %full[%slot_1] {txBytes = 32768 : i32}
// CHECK-COUNT-3:   nvgpu.tma_load
// CHECK:         {{^ +}$}}
// CHECK-NEXT:  } {gemm.role = "ws_producer"}
// CHECK-NOT:   nvgpu.cp_async_mbarrier_arrive
