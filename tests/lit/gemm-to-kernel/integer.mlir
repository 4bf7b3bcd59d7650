// RUN: %gemmc opt %s -p gemm-to-kernel | filecheck %s

// An integer product: each element widened to i32 by its signedness (A i8: extsi, B u8: extui),
// the multiply-add arith.muli + arith.addi (wrapping), beta = 1 an addi of C; the kernel marks B unsigned.
builtin.module {
  func.func @ig(%A: memref<32x16xi8> {gemm.dims = ["M", "K"]}, %B: memref<16x32xi8> {gemm.dims = ["K", "N"], gemm.unsigned}, %C: memref<32x32xi32> {gemm.dims = ["M", "N"]}) {
    %0 = arith.constant 1 : i32
    gemm.matmul %A, %B, %C beta %0 {acc_type = i32, unsigned_b} : memref<32x16xi8>, memref<16x32xi8>, memref<32x32xi32>
    func.return
  }
}

// CHECK-LABEL: func.func @ig
// CHECK-SAME:    gemm.matmul_spec = {a = 0 : i64, b = 1 : i64, c = 2 : i64, acc_type = i32, beta = 1 : i32, unsigned_b}
// CHECK:       "gpu.func"
// CHECK:         %zero = arith.constant 0 : i32
// CHECK:         %sum = scf.for %k = %{{.*}} to %K step %{{.*}} iter_args(%acc = %zero) -> (i32) {
// CHECK-NEXT:      %a = memref.load %A[%row, %k] : memref<32x16xi8>
// CHECK-NEXT:      %b = memref.load %B[%k, %col] : memref<16x32xi8>
// CHECK-NEXT:      %[[A:.*]] = arith.extsi %a : i8 to i32
// CHECK-NEXT:      %[[B:.*]] = arith.extui %b : i8 to i32
// CHECK-NEXT:      %prod = arith.muli %[[A]], %[[B]] : i32
// CHECK-NEXT:      %{{.*}} = arith.addi %prod, %acc : i32
// CHECK:         %c_old = memref.load %C[%row, %col] : memref<32x32xi32>
// CHECK-NEXT:    %result = arith.addi %c_old, %sum : i32
// CHECK-NEXT:    memref.store %result, %C[%row, %col]
// CHECK:       gemm.unsigned_args = array<i64: 1>
