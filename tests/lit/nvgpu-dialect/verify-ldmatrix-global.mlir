// RUN: not %gemmc opt %s --arch sm_90 -p '' 2>&1 | filecheck %s

builtin.module attributes {gemmc.target = "sm_90"} {
  func.func @g(%A: memref<64x64xf16>, %i: index, %n: index) {
    %t = memref.alloca() : memref<64x40xf16, 3 : i64>
    %f = memref.alloca() : memref<64x40xf32, 3 : i64>
    %a = nvgpu.ldmatrix %A[%i, %i] {numTiles = 1 : i32} : memref<64x64xf16> -> vector<2xf16>
    func.return
  }
}

// CHECK: error: IR does not verify: the source must be shared memory (memory space 3), got memref<64x64xf16>
