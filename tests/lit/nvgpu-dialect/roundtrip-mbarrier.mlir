// RUN: %gemmc opt %s --arch sm_90 -p '' | filecheck %s

// The mbarrier ops (init, arrive, wait, inval), cp.async's mbarrier arrival and setmaxnreg print as they parse.
builtin.module attributes {gemmc.target = "sm_90"} {
  func.func @g(%i: index, %p: index) {
    %bars = memref.alloca() : memref<4xi64, 3 : i64>
    nvgpu.mbarrier_init %bars[%i] {count = 128 : i32} : memref<4xi64, 3 : i64>
    nvgpu.mbarrier_arrive %bars[%i] : memref<4xi64, 3 : i64>
    nvgpu.mbarrier_wait_parity %bars[%i], %p : memref<4xi64, 3 : i64>
    nvgpu.cp_async_mbarrier_arrive %bars[%i] : memref<4xi64, 3 : i64>
    nvgpu.setmaxnreg {regCount = 232 : i32, action = "inc"}
    nvgpu.mbarrier_inval %bars[%i] : memref<4xi64, 3 : i64>
    func.return
  }
}

// CHECK-LABEL: func.func @g
// CHECK-NEXT:    %bars = memref.alloca() : memref<4xi64, 3 : i64>
// CHECK-NEXT:    nvgpu.mbarrier_init %bars[%i] {count = 128 : i32} : memref<4xi64, 3 : i64>
// CHECK-NEXT:    nvgpu.mbarrier_arrive %bars[%i] : memref<4xi64, 3 : i64>
// CHECK-NEXT:    nvgpu.mbarrier_wait_parity %bars[%i], %p : memref<4xi64, 3 : i64>
// CHECK-NEXT:    nvgpu.cp_async_mbarrier_arrive %bars[%i] : memref<4xi64, 3 : i64>
// CHECK-NEXT:    nvgpu.setmaxnreg {regCount = 232 : i32, action = "inc"}
// CHECK-NEXT:    nvgpu.mbarrier_inval %bars[%i] : memref<4xi64, 3 : i64>
