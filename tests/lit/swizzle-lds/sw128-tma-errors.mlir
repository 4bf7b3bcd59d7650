// RUN: not %gemmc opt %s --arch sm_90 -p 'swizzle-lds{mode=sw128}' 2>&1 | filecheck %s

// A box of 64-byte rows is half a panel: its rows do not lie where the 128-byte swizzle puts them.
builtin.module attributes {gemmc.target = "sm_90"} {
  func.func @g(%B: memref<512x256xf16>, %s: index, %k: index, %n: index) {
    %bars = memref.alloca() : memref<4xi64, 3 : i64>
    %tile_b = memref.alloca() : memref<4x64x128xf16, 3 : i64>
    %c0 = arith.constant 0 : index
    nvgpu.tma_load %B[%k, %n], %tile_b[%s, %c0, %c0], %bars[%s] {box = array<i64: 64, 32>, swizzle = 0 : i32} : memref<512x256xf16>, memref<4x64x128xf16, 3 : i64>, memref<4xi64, 3 : i64>
    %d = nvgpu.wgmma_desc %tile_b[%s, %c0, %c0] {major = "mn", lbo = 8192 : i32, sbo = 1024 : i32, swizzle = 128 : i32} : memref<4x64x128xf16, 3 : i64>
    func.return
  }
}

// CHECK: swizzle-lds: this TMA box into %tile_b cannot land in the 128-byte swizzle: its box rows are 64 bytes, not the swizzle's 128 (at 'nvgpu.tma_load' in @g)
