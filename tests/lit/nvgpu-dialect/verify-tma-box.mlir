// RUN: not %gemmc opt %s --arch sm_90 -p '' 2>&1 | filecheck %s

// A box dimension is at most 256 elements.
builtin.module attributes {gemmc.target = "sm_90"} {
  func.func @g(%A: memref<512x512xf16>, %i: index) {
    %bars = memref.alloca() : memref<4xi64, 3 : i64>
    %tile = memref.alloca() : memref<4x512x64xf16, 3 : i64>
    nvgpu.tma_load %A[%i, %i], %tile[%i, %i, %i], %bars[%i] {box = array<i64: 512, 64>, swizzle = 0 : i32} : memref<512x512xf16>, memref<4x512x64xf16, 3 : i64>, memref<4xi64, 3 : i64>
    func.return
  }
}

// CHECK: box = [512, 64]: expected two sizes of 1 .. 256 elements (rows, columns)
