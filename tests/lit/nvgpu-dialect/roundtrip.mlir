// RUN: %gemmc opt %s --arch sm_90 -p '' | filecheck %s

// ldmatrix and the cp.async ops print as they parse.
builtin.module attributes {gemmc.target = "sm_90"} {
  func.func @g(%A: memref<64x64xf16>, %i: index, %n: index) {
    %t = memref.alloca() : memref<2x64x40xf16, 3 : i64>
    %a = nvgpu.ldmatrix %t[%i, %i, %i] {numTiles = 4 : i32} : memref<2x64x40xf16, 3 : i64> -> vector<8xf16>
    %b = nvgpu.ldmatrix %t[%i, %i, %i] {numTiles = 2 : i32, transpose} : memref<2x64x40xf16, 3 : i64> -> vector<4xf16>
    nvgpu.device_async_copy %A[%i, %i], %t[%i, %i, %i], %n {dstElements = 8 : i32} : memref<64x64xf16> to memref<2x64x40xf16, 3 : i64>
    nvgpu.device_async_create_group
    nvgpu.device_async_wait {numGroups = 1 : i32}
    func.return
  }
}

// CHECK-LABEL: func.func @g
// CHECK-NEXT:    %t = memref.alloca() : memref<2x64x40xf16, 3 : i64>
// CHECK-NEXT:    %a = nvgpu.ldmatrix %t[%i, %i, %i] {numTiles = 4 : i32} : memref<2x64x40xf16, 3 : i64> -> vector<8xf16>
// CHECK-NEXT:    %b = nvgpu.ldmatrix %t[%i, %i, %i] {numTiles = 2 : i32, transpose} : memref<2x64x40xf16, 3 : i64> -> vector<4xf16>
// CHECK-NEXT:    nvgpu.device_async_copy %A[%i, %i], %t[%i, %i, %i], %n {dstElements = 8 : i32} : memref<64x64xf16> to memref<2x64x40xf16, 3 : i64>
// CHECK-NEXT:    nvgpu.device_async_create_group
// CHECK-NEXT:    nvgpu.device_async_wait {numGroups = 1 : i32}
