// RUN: not %gemmc opt %s 2>&1 | filecheck %s

func.func @bad(%A: memref<8x4xf16>, %B: memref<4x8xf16>, %C: memref<8x8xf32>) {
  gemm.matmul %A, %B, %C {acc_type = bf16} : memref<8x4xf16>, memref<4x8xf16>, memref<8x8xf32>
  func.return
}

// CHECK: error: IR does not verify: accumulator type must be f32 or f16, got bf16
