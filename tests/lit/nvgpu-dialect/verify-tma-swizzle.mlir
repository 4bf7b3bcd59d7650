// RUN: not %gemmc opt %s --arch sm_90 -p '' 2>&1 | filecheck %s

// The 128-byte swizzle takes box rows of exactly 128 bytes (here 256).
builtin.module attributes {gemmc.target = "sm_90"} {
  func.func @g(%A: memref<256x512xf16>, %i: index) {
    %bars = memref.alloca() : memref<4xi64, 3 : i64>
    %tile = memref.alloca() : memref<4x64x128xf16, 3 : i64>
    nvgpu.tma_load %A[%i, %i], %tile[%i, %i, %i], %bars[%i] {box = array<i64: 64, 128>, swizzle = 128 : i32} : memref<256x512xf16>, memref<4x64x128xf16, 3 : i64>, memref<4xi64, 3 : i64>
    func.return
  }
}

// CHECK: the 128-byte swizzle takes box rows of 128 bytes, not 256
