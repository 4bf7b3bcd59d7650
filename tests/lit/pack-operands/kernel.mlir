// RUN: %gemmc opt %S/Inputs/odd.mlir --arch sm_90 -p pack-operands | filecheck %s

// The GEMM kernel after pack-operands: A's and B's arguments take the padded buffers' types and nothing else
// changes: the loads keep their indices, and the bounds stay the program's sizes, gemm-to-kernel's constants
// (K = 19 ends the K loop, not the buffer's 24).  gemm.zero_padded records each padded argument's program row
// length (past it, zeros), gemm.arg_dims names the padded axes.

// CHECK-LABEL: "gpu.func"() <{function_type = (memref<37x24xf16>, memref<19x32xf16>, memref<37x29xf32>) -> (), kernel}>
// CHECK-NEXT:  ^bb0(%A: memref<37x24xf16>, %B: memref<19x32xf16>, %C: memref<37x29xf32>):
// CHECK-NEXT:    %M = arith.constant 37 : index
// CHECK-NEXT:    %N = arith.constant 29 : index
// CHECK-NEXT:    %K = arith.constant 19 : index
// CHECK:         %sum = scf.for %k = %{{[0-9]+}} to %K step %{{[0-9]+}} iter_args(%acc = %zero) -> (f32) {
// CHECK-NEXT:      %a = memref.load %A[%row, %k] : memref<37x24xf16>
// CHECK-NEXT:      %b = memref.load %B[%k, %col] : memref<19x32xf16>
// CHECK:         memref.store %sum, %C[%row, %col] : memref<37x29xf32>
// CHECK:         sym_name = "odd"
// CHECK-SAME:    gemm.arg_dims = {{\[}}["M", "K_padded"], ["K", "N_padded"], ["M", "N"]]
// CHECK-SAME:    gemm.zero_padded = [{arg = 0 : i64, cols = 19 : i64}, {arg = 1 : i64, cols = 29 : i64}]
