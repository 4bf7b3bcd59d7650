// RUN: %gemmc opt %s | filecheck %s
// RUN: %gemmc opt %s | %gemmc opt - | filecheck %s

func.func @nt(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>, %alpha: f32, %beta: f32) {
  gemm.matmul %A, %B, %C alpha %alpha beta %beta {acc_type = f32, transpose_b} : memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>
  func.return
}

// CHECK-LABEL: func.func @nt
// CHECK-NEXT:    gemm.matmul %A, %B, %C alpha %alpha beta %beta {acc_type = f32, transpose_b} : memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>
