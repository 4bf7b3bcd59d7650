// RUN: %gemmc opt %s --arch gfx950 -p gemm-to-kernel | filecheck %s

// A stored [K, M] and B stored [N, K]: their scales are stored the same way, [K/32, M] and
// [N, K/32], and are indexed like them.
func.func @mxt(%A: memref<64x16xf8E4M3FN> {gemm.dims = ["K", "M"]}, %B: memref<8x64xf8E5M2> {gemm.dims = ["N", "K"]}, %C: memref<16x8xf32> {gemm.dims = ["M", "N"]}, %SA: memref<2x16xf8E8M0FNU> {gemm.dims = ["K/32", "M"]}, %SB: memref<8x2xf8E8M0FNU> {gemm.dims = ["N", "K/32"]}) {
  gemm.matmul %A, %B, %C scales %SA, %SB {acc_type = f32, transpose_a, transpose_b} : memref<64x16xf8E4M3FN>, memref<8x64xf8E5M2>, memref<16x8xf32>, memref<2x16xf8E8M0FNU>, memref<8x2xf8E8M0FNU>
  func.return
}

// CHECK-LABEL: func.func @mxt
// CHECK:         %a = memref.load %A[%k, %row] : memref<64x16xf8E4M3FN>
// CHECK-NEXT:    %b = memref.load %B[%col, %k] : memref<8x64xf8E5M2>
// CHECK:         %blk = arith.divui %k, %{{[0-9]+}} : index
// CHECK-NEXT:    %sa = memref.load %SA[%blk, %row] : memref<2x16xf8E8M0FNU>
// CHECK-NEXT:    %sb = memref.load %SB[%col, %blk] : memref<8x2xf8E8M0FNU>
