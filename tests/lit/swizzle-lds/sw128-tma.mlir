// RUN: %gemmc opt %s --arch sm_90 -p 'swizzle-lds{mode=sw128}' | filecheck %s

// A TMA box of one 128-byte panel's rows gets its start's place in the 128-byte swizzle (B's second panel,
// element [0][64] of a 64x128 tile: flat 64 x 64, row 32, column 0) and swizzle = 128.
builtin.module attributes {gemmc.target = "sm_90"} {
  func.func @g(%B: memref<512x256xf16>, %s: index, %k: index, %n: index) {
    %bars = memref.alloca() : memref<4xi64, 3 : i64>
    %tile_b = memref.alloca() : memref<4x64x128xf16, 3 : i64>
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    nvgpu.tma_load %B[%k, %n], %tile_b[%s, %c0, %c64], %bars[%s] {box = array<i64: 64, 64>, swizzle = 0 : i32} : memref<512x256xf16>, memref<4x64x128xf16, 3 : i64>, memref<4xi64, 3 : i64>
    %d = nvgpu.wgmma_desc %tile_b[%s, %c0, %c0] {major = "mn", lbo = 8192 : i32, sbo = 1024 : i32, swizzle = 128 : i32} : memref<4x64x128xf16, 3 : i64>
    func.return
  }
}

// CHECK-LABEL: func.func @g
// CHECK:         %sw128_row = arith.divui %{{[0-9]+}}, %{{[0-9]+}} : index
// CHECK-NEXT:    %sw128 = arith.remui %{{[0-9]+}}, %{{[0-9]+}} : index
// CHECK-NEXT:    nvgpu.tma_load %B[%k, %n], %tile_b[%s, %sw128_row, %sw128], %bars[%s] {box = array<i64: 64, 64>, swizzle = 128 : i32}
