// RUN: %gemmc opt %S/../warp-specialize/Inputs/in-flight-f4.mlir --arch sm_90 -p 'tma-copies' | filecheck %s

// One "full" mbarrier a slot (four slots), allocated before the prologue, each
// expecting one arrival (the leader's expect_tx), initialized by thread 0 before the prologue, fenced for
// the async proxy, published by a barrier.

// CHECK-LABEL: "gpu.func"()
// CHECK:         %full = memref.alloca() : memref<4xi64, 3 : i64>
// CHECK-NEXT:    %[[Z:[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT:    %tma_leader = arith.cmpi eq, %tid, %[[Z]] : index
// CHECK-NEXT:    scf.if %tma_leader {
// CHECK-COUNT-4: nvgpu.mbarrier_init %full[%{{[0-9]+}}] {count = 1 : i32} : memref<4xi64, 3 : i64>
// CHECK-NEXT:      nvgpu.fence_proxy_async
// CHECK-NEXT:    }
// CHECK-NEXT:    "gpu.barrier"() : () -> ()
// CHECK-NEXT:    scf.if
// CHECK-NOT:     gemm.copy
