// RUN: %gemmc opt %S/Inputs/in-flight-f4.mlir --arch sm_90 -p 'warp-specialize' | filecheck %s

// The producer (ty = 2): from tile 4 on it waits for the slot's empty phase (t / 4 - 1) mod 2, copies
// the tile with its 128 threads (thread id tid - 256), and arrives on the slot's full mbarrier once
// its copies land (cp.async.mbarrier.arrive.noinc).

// CHECK-LABEL: scf.if %is_producer {
// CHECK-NEXT:    nvgpu.setmaxnreg {regCount = 40 : i32, action = "dec"}
// CHECK:         %ptid = arith.subi %tid, %{{[0-9]+}} : index
// CHECK-NEXT:    scf.for %t = %{{[0-9]+}} to %num_tiles step %{{[0-9]+}} {
// CHECK-NEXT:      %slot = arith.remui %t, %[[F:[0-9]+]] : index
// CHECK-NEXT:      %reuse = arith.cmpi uge, %t, %[[F]] : index
// CHECK-NEXT:      scf.if %reuse {
// CHECK-NEXT:        %[[R:[0-9]+]] = arith.divui %t, %[[F]] : index
// CHECK-NEXT:        %[[P:[0-9]+]] = arith.subi %[[R]], %{{[0-9]+}} : index
// CHECK:             %empty_parity = arith.remui %[[P]], %{{[0-9]+}} : index
// CHECK-NEXT:        nvgpu.mbarrier_wait_parity %empty[%slot], %empty_parity
// CHECK:           gemm.copy %A{{.*}} tid %ptid {{{.*}}gemm.threads = 128 : i64
// CHECK-NEXT:      gemm.copy %B{{.*}} tid %ptid {{{.*}}gemm.threads = 128 : i64
// CHECK-NEXT:      nvgpu.cp_async_mbarrier_arrive %full[%slot]
// CHECK-NEXT:    } {gemm.role = "ws_producer"}
// CHECK-NEXT:  } else {
