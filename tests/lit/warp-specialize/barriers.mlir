// RUN: %gemmc opt %S/Inputs/in-flight-f4.mlir --arch sm_90 -p 'warp-specialize' | filecheck %s

// Four slots: a full and an empty mbarrier each, in shared memory, initialized by thread 0 (full
// expects the 128 producer threads' noinc cp.async arrivals, empty the 256 consumer threads'), then
// one barrier that publishes them; the prologue's stages are gone (the producer issues every tile).

// CHECK-LABEL: "gpu.func"
// CHECK-NOT:   gemm.role = "prologue"
// CHECK:       %full = memref.alloca() : memref<4xi64, 3 : i64>
// CHECK-NEXT:  %empty = memref.alloca() : memref<4xi64, 3 : i64>
// CHECK:       %is_first = arith.cmpi eq, %tid, %{{[0-9]+}} : index
// CHECK-NEXT:  scf.if %is_first {
// CHECK-COUNT-4: nvgpu.mbarrier_init %full[%{{[0-9]+}}] {count = 128 : i32} : memref<4xi64, 3 : i64>
// CHECK-NEXT:    nvgpu.mbarrier_init %empty[%{{[0-9]+}}] {count = 256 : i32} : memref<4xi64, 3 : i64>
// CHECK-NOT:   nvgpu.mbarrier_init
// CHECK:       }
// CHECK-NEXT:  "gpu.barrier"() : () -> ()
// CHECK-NEXT:  %is_producer = arith.cmpi uge, %ty, %{{[0-9]+}} : index
// CHECK-NEXT:  scf.if %is_producer {
