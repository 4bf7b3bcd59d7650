builtin.module attributes {gemmc.target = "gfx942"} {
  func.func @fused(%A: memref<64x32xf16> {gemm.dims = ["M", "K"]}, %B: memref<32x32xf16> {gemm.dims = ["K", "N"]}, %C: memref<64x32xf32> {gemm.dims = ["M", "N"]}, %s: memref<64xf32> {gemm.dims = ["M"]}, %b: memref<32xf32> {gemm.dims = ["N"]}, %R: memref<64x32xf16> {gemm.dims = ["M", "N"]}) {
    gemm.matmul %A, %B, %C epilogue(%s, %b, %R) {acc_type = f32, epilogue_axes = ["m", "n", "mn"]} : memref<64x32xf16>, memref<32x32xf16>, memref<64x32xf32> epilogue(memref<64xf32>, memref<32xf32>, memref<64x32xf16>) {
    ^bb0(%sum: f32, %s_e: f32, %b_e: f32, %R_e: f16):
      %0 = arith.mulf %s_e, %sum : f32
      %1 = arith.addf %0, %b_e : f32
      %2 = arith.constant 0.707106769 : f32
      %3 = arith.mulf %1, %2 : f32
      %4 = math.erf %3 : f32
      %5 = arith.constant 5.000000e-01 : f32
      %6 = arith.mulf %5, %1 : f32
      %7 = arith.constant 1.000000e+00 : f32
      %8 = arith.addf %7, %4 : f32
      %9 = arith.mulf %6, %8 : f32
      %10 = arith.extf %R_e : f16 to f32
      %11 = arith.addf %9, %10 : f32
      gemm.yield %11 : f32
    }
    func.return
  }
}
