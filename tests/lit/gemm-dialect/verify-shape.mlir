// RUN: not %gemmc opt %s 2>&1 | filecheck %s

func.func @bad(%A: memref<8x4xf32>, %B: memref<5x8xf32>, %C: memref<8x8xf32>) {
  gemm.matmul %A, %B, %C {acc_type = f32} : memref<8x4xf32>, memref<5x8xf32>, memref<8x8xf32>
  func.return
}

// CHECK: error: IR does not verify: dimension K is 4 in A but 5 in B
