// RUN: %gemmc opt %S/Inputs/fused.mlir | %gemmc opt - | filecheck %s
// RUN: sed 's/gemm.yield %11 : f32/gemm.yield %R_e : f16/' %S/Inputs/fused.mlir | not %gemmc opt - 2>&1 | filecheck %s --check-prefix=YIELD
// RUN: sed 's/"m", "n", "mn"/"n", "n", "mn"/' %S/Inputs/fused.mlir | not %gemmc opt - 2>&1 | filecheck %s --check-prefix=AXES

// gemm.matmul's epilogue prints and parses back; the verifier checks the yield and the axes.

// CHECK:      gemm.matmul %A, %B, %C epilogue(%s, %b, %R) {acc_type = f32, epilogue_axes = ["m", "n", "mn"]} : memref<64x32xf16>, memref<32x32xf16>, memref<64x32xf32> epilogue(memref<64xf32>, memref<32xf32>, memref<64x32xf16>) {
// CHECK-NEXT: ^bb0(%sum: f32, %s_e: f32, %b_e: f32, %R_e: f16):
// CHECK:      gemm.yield %11 : f32
// YIELD: the epilogue must end in gemm.yield of the accumulator type f32
// AXES: epilogue operand memref<64xf32> has 64 along N, C has 32
