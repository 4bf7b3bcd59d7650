// RUN: not %gemmc opt %s --arch sm_90 -p '' 2>&1 | filecheck %s

builtin.module attributes {gemmc.target = "sm_90"} {
  func.func @g(%A: memref<64x64xf16>, %i: index, %n: index) {
    %t = memref.alloca() : memref<64x40xf16, 3 : i64>
    %f = memref.alloca() : memref<64x40xf32, 3 : i64>
    nvgpu.device_async_copy %A[%i, %i], %t[%i, %i], %n {dstElements = 3 : i32} : memref<64x64xf16> to memref<64x40xf16, 3 : i64>
    func.return
  }
}

// CHECK: error: IR does not verify: cp.async copies 4, 8 or 16 bytes a lane; 3 x f16 is 6
