builtin.module attributes {gemmc.target = "gfx942"} {
  func.func @fp8out(%A: memref<64x32xf16> {gemm.dims = ["M", "K"]}, %B: memref<32x32xf16> {gemm.dims = ["K", "N"]}, %C: memref<64x32xf8E4M3FNUZ> {gemm.dims = ["M", "N"]}, %s: memref<64xf32> {gemm.dims = ["M"]}, %b: memref<32xf32> {gemm.dims = ["N"]}) {
    gemm.matmul %A, %B, %C epilogue(%s, %b) {acc_type = f32, epilogue_axes = ["m", "n"]} : memref<64x32xf16>, memref<32x32xf16>, memref<64x32xf8E4M3FNUZ> epilogue(memref<64xf32>, memref<32xf32>) {
    ^bb0(%sum: f32, %s_e: f32, %b_e: f32):
      %0 = arith.mulf %s_e, %sum : f32
      %1 = arith.addf %0, %b_e : f32
      %2 = arith.constant -2.400000e+02 : f32
      %3 = arith.constant 2.400000e+02 : f32
      %4 = arith.maximumf %1, %2 : f32
      %5 = arith.minimumf %4, %3 : f32
      gemm.yield %5 : f32
    }
    func.return
  }
}
