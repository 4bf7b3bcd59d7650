// RUN: %gemmc opt %s -p gemm-to-kernel | filecheck %s

// A 4-bit product: each i4 element widened to i32 by its signedness (A i4: extsi, B u4: extui),
// then the integer multiply-add; the kernel marks B unsigned.
builtin.module {
  func.func @i4g(%A: memref<32x16xi4> {gemm.dims = ["M", "K"]}, %B: memref<16x32xi4> {gemm.dims = ["K", "N"], gemm.unsigned}, %C: memref<32x32xi32> {gemm.dims = ["M", "N"]}) {
    gemm.matmul %A, %B, %C {acc_type = i32, unsigned_b} : memref<32x16xi4>, memref<16x32xi4>, memref<32x32xi32>
    func.return
  }
}

// CHECK-LABEL: func.func @i4g
// CHECK-SAME:    gemm.matmul_spec = {a = 0 : i64, b = 1 : i64, c = 2 : i64, acc_type = i32, unsigned_b}
// CHECK:       "gpu.func"
// CHECK:           %a = memref.load %A[%row, %k] : memref<32x16xi4>
// CHECK-NEXT:      %b = memref.load %B[%k, %col] : memref<16x32xi4>
// CHECK-NEXT:      %[[A:.*]] = arith.extsi %a : i4 to i32
// CHECK-NEXT:      %[[B:.*]] = arith.extui %b : i4 to i32
// CHECK-NEXT:      %prod = arith.muli %[[A]], %[[B]] : i32
// CHECK:       gemm.unsigned_args = array<i64: 1>
