// RUN: not %gemmc opt %s 2>&1 | filecheck %s

// A grouped product's sizes are i32, one per matrix of B.
func.func @bad(%A: memref<8x16xf32>, %B: memref<3x16x8xf32>, %C: memref<8x8xf32>, %S: memref<4xi32>) {
  gemm.matmul %A, %B, %C grouped %S {acc_type = f32} : memref<8x16xf32>, memref<3x16x8xf32>, memref<8x8xf32> grouped memref<4xi32>
  func.return
}

// CHECK: error: IR does not verify: 4 group sizes but B has 3 matrices
