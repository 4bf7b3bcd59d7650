// RUN: %gemmc opt %s | filecheck %s

// gemm.matmul with group sizes prints as it parses.
func.func @moe(%A: memref<?x16xf16>, %B: memref<?x16x8xf16>, %C: memref<?x8xf32>, %S: memref<?xi32>) {
  gemm.matmul %A, %B, %C grouped %S {acc_type = f32} : memref<?x16xf16>, memref<?x16x8xf16>, memref<?x8xf32> grouped memref<?xi32>
  func.return
}

// CHECK-LABEL: func.func @moe
// CHECK-NEXT:    gemm.matmul %A, %B, %C grouped %S {acc_type = f32} : memref<?x16xf16>, memref<?x16x8xf16>, memref<?x8xf32> grouped memref<?xi32>
