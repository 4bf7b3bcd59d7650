// RUN: %gemmc opt %S/Inputs/pipelined-f4-s4.mlir --arch sm_90 -p 'wgmma-in-flight,lower-copies' | filecheck %s

// lower-copies counts the cp.async waits by the two prologue stages the pass leaves: all but one
// group landed before the loop and before each barrier (tile t + 1 landed), each prefetch committed.

// CHECK-LABEL: "gpu.func"
// CHECK-COUNT-2: nvgpu.device_async_create_group
// CHECK-NEXT:  nvgpu.device_async_wait {numGroups = 1 : i32}
// CHECK-NEXT:  "gpu.barrier"
// CHECK-NEXT:  scf.for %t =
// CHECK:         nvgpu.wgmma_wait_group {numGroups = 1 : i32}
// CHECK:         }{gemm.role = "prefetch"}
// CHECK-NEXT:    nvgpu.device_async_create_group
// CHECK-NEXT:    nvgpu.device_async_wait {numGroups = 1 : i32}
// CHECK-NEXT:    "gpu.barrier"
