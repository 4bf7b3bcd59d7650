builtin.module attributes {gemmc.target = "gfx942"} {
  func.func @two(%A: memref<64x32xf16> {gemm.dims = ["M", "K"]}, %B: memref<32x32xf16> {gemm.dims = ["K", "N"]}, %C: memref<64x32xbf16> {gemm.dims = ["M", "N"]}, %b: memref<32xf32> {gemm.dims = ["N"]}, %Y: memref<64x32xf16> {gemm.dims = ["M", "N"]}) {
    gemm.matmul %A, %B, %C epilogue(%b) outputs(%Y) {acc_type = f32, epilogue_axes = ["n"]} : memref<64x32xf16>, memref<32x32xf16>, memref<64x32xbf16> epilogue(memref<32xf32>) outputs(memref<64x32xf16>) {
    ^bb0(%sum: f32, %b_e: f32):
      %0 = arith.addf %sum, %b_e : f32
      %1 = arith.truncf %0 : f32 to bf16
      %2 = arith.extf %1 : bf16 to f32
      %3 = arith.constant 0.707106769 : f32
      %4 = arith.mulf %2, %3 : f32
      %5 = math.erf %4 : f32
      %6 = arith.constant 5.000000e-01 : f32
      %7 = arith.mulf %6, %2 : f32
      %8 = arith.constant 1.000000e+00 : f32
      %9 = arith.addf %8, %5 : f32
      %10 = arith.mulf %7, %9 : f32
      gemm.output %10 : f32
      gemm.yield %0 : f32
    }
    func.return
  }
}
