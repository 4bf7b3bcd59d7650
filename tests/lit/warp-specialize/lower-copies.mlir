// RUN: %gemmc opt %S/Inputs/in-flight-f4.mlir --arch sm_90 -p 'warp-specialize,lower-copies' | filecheck %s

// lower-copies spreads the producer's copies over its 128 threads (gemm.threads) and gives them no
// cp.async group: the cp_async_mbarrier_arrive after them completes them.

// CHECK-LABEL: scf.if %is_producer {
// CHECK-NOT:     nvgpu.device_async_create_group
// CHECK-NOT:     nvgpu.device_async_wait
// CHECK:         nvgpu.device_async_copy
// CHECK-NOT:     nvgpu.device_async_create_group
// CHECK-NOT:     nvgpu.device_async_wait
// CHECK:         nvgpu.cp_async_mbarrier_arrive %full[%slot]
// CHECK-NEXT:  } {gemm.role = "ws_producer"}
// CHECK-NOT:   nvgpu.device_async
