// RUN: %gemmc opt %s --arch sm_90 -p '' | filecheck %s

// TMA's ops print as they parse.
builtin.module attributes {gemmc.target = "sm_90"} {
  func.func @g(%A: memref<256x512xf16>, %i: index, %r: index, %c: index) {
    %bars = memref.alloca() : memref<4xi64, 3 : i64>
    %tile = memref.alloca() : memref<4x128x64xf16, 3 : i64>
    nvgpu.mbarrier_arrive_expect_tx %bars[%i] {txBytes = 16384 : i32} : memref<4xi64, 3 : i64>
    nvgpu.tma_load %A[%r, %c], %tile[%i, %r, %c], %bars[%i] {box = array<i64: 128, 64>, swizzle = 128 : i32} : memref<256x512xf16>, memref<4x128x64xf16, 3 : i64>, memref<4xi64, 3 : i64>
    nvgpu.fence_proxy_async
    func.return
  }
}

// CHECK-LABEL: func.func @g
// CHECK:         nvgpu.mbarrier_arrive_expect_tx %bars[%i] {txBytes = 16384 : i32} : memref<4xi64, 3 : i64>
// CHECK-NEXT:    nvgpu.tma_load %A[%r, %c], %tile[%i, %r, %c], %bars[%i] {box = array<i64: 128, 64>, swizzle = 128 : i32} : memref<256x512xf16>, memref<4x128x64xf16, 3 : i64>, memref<4xi64, 3 : i64>
// CHECK-NEXT:    nvgpu.fence_proxy_async
