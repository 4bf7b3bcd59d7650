// RUN: not %gemmc opt %s 2>&1 | filecheck %s

// FP4 elements without scales are refused.
func.func @bad(%A: memref<8x64xf4E2M1FN>, %B: memref<64x8xf4E2M1FN>, %C: memref<8x8xf32>) {
  gemm.matmul %A, %B, %C {acc_type = f32} : memref<8x64xf4E2M1FN>, memref<64x8xf4E2M1FN>, memref<8x8xf32>
  func.return
}

// CHECK: error: IR does not verify: f4e2m1fn x f4e2m1fn inputs need E8M0 scales (scales %SA, %SB)
