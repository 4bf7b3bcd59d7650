// RUN: %gemmc opt %S/Inputs/pipelined-f4-s4.mlir --arch sm_90 -p 'wgmma-in-flight' | filecheck %s

// In the loop: tile t's wgmma group is committed, then wait_group 1 (group t - 1 retired, t still
// running), then the prefetch, then the barrier that ends the tile.

// CHECK-LABEL: scf.for %t =
// CHECK:         nvgpu.wgmma_fence
// CHECK:         nvgpu.wgmma_mma_async
// CHECK:         nvgpu.wgmma_commit_group
// CHECK-NEXT:    nvgpu.wgmma_wait_group {numGroups = 1 : i32}
// CHECK-NEXT:  } {gemm.role = "compute"}
// CHECK-NEXT:  scf.if %has_next {
// CHECK:       }{gemm.role = "prefetch"}
// CHECK-NEXT:  "gpu.barrier"() : () -> ()
// CHECK-NEXT: } {gemm.role = "k_loop"}
