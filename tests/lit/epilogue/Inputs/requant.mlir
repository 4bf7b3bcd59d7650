builtin.module attributes {gemmc.target = "gfx942"} {
  func.func @requant(%A: memref<64x32xi8> {gemm.dims = ["M", "K"]}, %B: memref<32x32xi8> {gemm.dims = ["K", "N"], gemm.unsigned}, %C: memref<64x32xi8> {gemm.dims = ["M", "N"]}, %t: memref<32xf32> {gemm.dims = ["N"]}, %z: f32) {
    gemm.matmul %A, %B, %C epilogue(%t, %z) {acc_type = i32, unsigned_b, epilogue_axes = ["n", ""]} : memref<64x32xi8>, memref<32x32xi8>, memref<64x32xi8> epilogue(memref<32xf32>, f32) {
    ^bb0(%sum: i32, %t_e: f32, %z_e: f32):
      %0 = arith.mulf %z_e, %t_e : f32
      %1 = arith.sitofp %sum : i32 to f32
      %2 = arith.mulf %0, %1 : f32
      %3 = arith.constant -1.280000e+02 : f32
      %4 = arith.constant 1.270000e+02 : f32
      %5 = arith.maximumf %2, %3 : f32
      %6 = arith.minimumf %5, %4 : f32
      %7 = math.roundeven %6 : f32
      %8 = arith.fptosi %7 : f32 to i32
      gemm.yield %8 : i32
    }
    func.return
  }
}
