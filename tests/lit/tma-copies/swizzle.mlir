// RUN: %gemmc opt %S/../warp-specialize/Inputs/in-flight-f4.mlir --arch sm_90 -p 'tma-copies,lower-copies,swizzle-lds{mode=sw128}' | filecheck %s

// swizzle-lds{mode=sw128} moves each box's start to its panel's place in the 128-byte swizzle (B's second
// panel: element [0][64] of the 64x128 tile, flat 64 x 64, row 32) and sets swizzle = 128 (TMA's
// CU_TENSOR_MAP_SWIZZLE_128B).

// CHECK-LABEL: %slot = arith.constant 0 : index
// CHECK:         nvgpu.tma_load %A[{{.*}}], %tile_a[%slot, %sw128_row, %sw128], %full[%slot] {gemm.role = "load_a", box = array<i64: 128, 64>, swizzle = 128 : i32}
// CHECK:         nvgpu.tma_load %B[{{.*}}], %tile_b[%slot, %sw128_row_1, %sw128_1], %full[%slot] {gemm.role = "load_b", box = array<i64: 64, 64>, swizzle = 128 : i32}
// CHECK:         nvgpu.tma_load %B[{{.*}}], %tile_b[%slot, %sw128_row_2, %sw128_2], %full[%slot] {gemm.role = "load_b", box = array<i64: 64, 64>, swizzle = 128 : i32}
// CHECK-NOT:     swizzle = 0 : i32
