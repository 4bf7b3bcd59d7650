builtin.module attributes {gemmc.target = "gfx942"} {
  func.func @fp8_amax(%X: memref<64x32xbf16> {gemm.dims = ["M", "K"]}, %W: memref<32x32xbf16> {gemm.dims = ["N", "K"]}, %Y: memref<64x32xf8E4M3FNUZ> {gemm.dims = ["M", "N"]}, %b: memref<32xf32> {gemm.dims = ["N"]}, %s: f32, %amax_Y: memref<1xf32>) {
    gemm.matmul %X, %W, %Y epilogue(%b, %s) amax %amax_Y {acc_type = f32, transpose_b, epilogue_axes = ["n", ""]} : memref<64x32xbf16>, memref<32x32xbf16>, memref<64x32xf8E4M3FNUZ> epilogue(memref<32xf32>, f32) {
    ^bb0(%sum: f32, %b_e: f32, %s_e: f32):
      %0 = arith.addf %sum, %b_e : f32
      gemm.amax %0 : f32
      %1 = arith.addf %sum, %b_e : f32
      %2 = arith.mulf %s_e, %1 : f32
      %3 = arith.constant -2.400000e+02 : f32
      %4 = arith.constant 2.400000e+02 : f32
      %5 = arith.maximumf %2, %3 : f32
      %6 = arith.minimumf %5, %4 : f32
      gemm.yield %6 : f32
    }
    func.return
  }
}
