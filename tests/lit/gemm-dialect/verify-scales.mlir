// RUN: not %gemmc opt %s 2>&1 | filecheck %s

// The scales of A must be A's stored shape with K divided by 32.
func.func @bad(%A: memref<8x64xf4E2M1FN>, %B: memref<64x8xf4E2M1FN>, %C: memref<8x8xf32>, %SA: memref<8x4xf8E8M0FNU>, %SB: memref<2x8xf8E8M0FNU>) {
  gemm.matmul %A, %B, %C scales %SA, %SB {acc_type = f32} : memref<8x64xf4E2M1FN>, memref<64x8xf4E2M1FN>, memref<8x8xf32>, memref<8x4xf8E8M0FNU>, memref<2x8xf8E8M0FNU>
  func.return
}

// CHECK: error: IR does not verify: the scales of A are [8, 4]; A [8, 64] needs [8, 2] (one per 32 along K)
