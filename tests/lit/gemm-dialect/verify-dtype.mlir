// RUN: not %gemmc opt %s 2>&1 | filecheck %s

func.func @bad(%A: memref<8x4xf16>, %B: memref<4x8xf32>, %C: memref<8x8xf32>) {
  gemm.matmul %A, %B, %C {acc_type = f32} : memref<8x4xf16>, memref<4x8xf32>, memref<8x8xf32>
  func.return
}

// CHECK: error: IR does not verify: A and B must have one element type, got f16 and f32
