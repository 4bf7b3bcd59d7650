// RUN: not %gemmc opt %s --arch sm_90 -p '' 2>&1 | filecheck %s

builtin.module attributes {gemmc.target = "sm_90"} {
  func.func @g(%A: memref<64x64xf16>, %i: index, %n: index) {
    %t = memref.alloca() : memref<64x40xf16, 3 : i64>
    %f = memref.alloca() : memref<64x40xf32, 3 : i64>
    %a = nvgpu.ldmatrix %f[%i, %i] {numTiles = 1 : i32} : memref<64x40xf32, 3 : i64> -> vector<2xf32>
    func.return
  }
}

// CHECK: error: IR does not verify: ldmatrix loads 16-bit elements (f16, bf16) or 8-bit FP8 ones, not f32
