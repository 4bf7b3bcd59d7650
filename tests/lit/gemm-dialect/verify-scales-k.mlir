// RUN: not %gemmc opt %s 2>&1 | filecheck %s

// K must be a multiple of the MX block (32).
func.func @bad(%A: memref<8x48xf8E4M3FN>, %B: memref<48x8xf8E4M3FN>, %C: memref<8x8xf32>, %SA: memref<8x1xf8E8M0FNU>, %SB: memref<1x8xf8E8M0FNU>) {
  gemm.matmul %A, %B, %C scales %SA, %SB {acc_type = f32} : memref<8x48xf8E4M3FN>, memref<48x8xf8E4M3FN>, memref<8x8xf32>, memref<8x1xf8E8M0FNU>, memref<1x8xf8E8M0FNU>
  func.return
}

// CHECK: error: IR does not verify: K = 48 is not a multiple of the MX block 32
