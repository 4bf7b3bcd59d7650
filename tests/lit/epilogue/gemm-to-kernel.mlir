// RUN: %gemmc opt %S/Inputs/fused.mlir -p gemm-to-kernel | filecheck %s

// gemm-to-kernel copies the epilogue region after the K loop, each operand's element loaded where
// its axes say: s (axes "m") at the row, b ("n") at the column, R ("mn") at both; the spec records
// the region's ops for the checker's float64 reference.

// CHECK:      gemm.matmul_spec = {{{.*}}epilogue_args = [3 : i64, 4 : i64, 5 : i64], epilogue_axes = ["m", "n", "mn"], epilogue = ["arith.mulf 1 0",
// CHECK:      %sum = scf.for
// CHECK:      } {gemm.role = "k_loop"}
// CHECK-NEXT: %s_e = memref.load %s[%row] : memref<64xf32>
// CHECK-NEXT: %b_e = memref.load %b[%col] : memref<32xf32>
// CHECK-NEXT: %R_e = memref.load %R[%row, %col] : memref<64x32xf16>
// CHECK-NEXT: arith.mulf %s_e, %sum : f32
// CHECK:      math.erf
// CHECK:      arith.extf %R_e : f16 to f32
// CHECK-NEXT: %[[OUT:[0-9]+]] = arith.addf
// CHECK-NEXT: memref.store %[[OUT]], %C[%row, %col]
// CHECK-NEXT: }{gemm.role = "epilogue"}
