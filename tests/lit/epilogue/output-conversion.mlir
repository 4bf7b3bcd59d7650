// RUN: %gemmc opt %S/Inputs/fp8_out.mlir -p gemm-to-kernel | filecheck %s --check-prefix=FP8
// RUN: %gemmc opt %S/Inputs/requant.mlir -p gemm-to-kernel | filecheck %s --check-prefix=INT

// Output conversion at the gemm-to-kernel level: saturate is the clamp to C's finite range
// (maximumf keeps a NaN), then the store rounds to C's type: an FP8 C with arith.truncf; an i8 C
// (an integer product requantized) through f32: sitofp of the sum, the scales, the clamp to
// -128 .. 127, roundeven, fptosi into i32 and trunci (exact: in range) at the store.

// FP8:      %sum = scf.for
// FP8:      } {gemm.role = "k_loop"}
// FP8-NEXT: %s_e = memref.load %s[%row] : memref<64xf32>
// FP8-NEXT: %b_e = memref.load %b[%col] : memref<32xf32>
// FP8-NEXT: arith.mulf %s_e, %sum : f32
// FP8:      %[[LO:[0-9]+]] = arith.constant -2.400000e+02 : f32
// FP8-NEXT: %[[HI:[0-9]+]] = arith.constant 2.400000e+02 : f32
// FP8-NEXT: %[[MAX:[0-9]+]] = arith.maximumf %{{[0-9]+}}, %[[LO]] : f32
// FP8-NEXT: %[[MIN:[0-9]+]] = arith.minimumf %[[MAX]], %[[HI]] : f32
// FP8-NEXT: %[[OUT:[0-9]+]] = arith.truncf %[[MIN]] : f32 to f8E4M3FNUZ
// FP8-NEXT: memref.store %[[OUT]], %C[%row, %col] : memref<64x32xf8E4M3FNUZ>

// INT:      gemm.matmul_spec = {{{.*}}acc_type = i32, unsigned_b, epilogue_args = [3 : i64, 4 : i64], epilogue_axes = ["n", ""], epilogue = [{{.*}}"arith.sitofp 0",{{.*}}"math.roundeven 9", "arith.fptosi 10", "gemm.yield 11"]
// INT:      %sum = scf.for
// INT:      arith.extui %b : i8 to i32
// INT:      } {gemm.role = "k_loop"}
// INT-NEXT: %t_e = memref.load %t[%col] : memref<32xf32>
// INT-NEXT: arith.mulf %z, %t_e : f32
// INT-NEXT: arith.sitofp %sum : i32 to f32
// INT:      arith.constant -1.280000e+02 : f32
// INT-NEXT: arith.constant 1.270000e+02 : f32
// INT-NEXT: arith.maximumf
// INT-NEXT: %[[MIN:[0-9]+]] = arith.minimumf
// INT-NEXT: %[[R:[0-9]+]] = math.roundeven %[[MIN]] : f32
// INT-NEXT: %[[I:[0-9]+]] = arith.fptosi %[[R]] : f32 to i32
// INT-NEXT: %[[Q:[0-9]+]] = arith.trunci %[[I]] : i32 to i8
// INT-NEXT: memref.store %[[Q]], %C[%row, %col] : memref<64x32xi8>
