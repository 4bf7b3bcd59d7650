// RUN: %gemmc opt %s --arch gfx950 -p "lds-tiling{block-m=64 block-n=64 block-k=128}" | filecheck %s

// lds-tiling of a block-scaled naive kernel: A and B go through LDS as before; each value is
// multiplied by its E8M0 scale, read from global memory at the K tile's k (t * 128 + kk) / 32, with k
// and the row (column) clamped to the matrix.
builtin.module attributes {gemmc.target = "gfx950", gemmc.pipeline = "gemm-to-kernel", gpu.container_module} {
  func.func @mxs(%A: memref<64x128xf4E2M1FN> {gemm.dims = ["M", "K"]}, %B: memref<128x64xf8E4M3FN> {gemm.dims = ["K", "N"]}, %C: memref<64x64xf32> {gemm.dims = ["M", "N"]}, %SA: memref<64x4xf8E8M0FNU> {gemm.dims = ["M", "K/32"]}, %SB: memref<4x64xf8E8M0FNU> {gemm.dims = ["K/32", "N"]}) attributes {gemm.matmul_spec = {a = 0 : i64, b = 1 : i64, c = 2 : i64, acc_type = f32, scale_a = 3 : i64, scale_b = 4 : i64, block = 32 : i64}} {
    %M = arith.constant 64 : index
    %N = arith.constant 64 : index
    %0 = arith.constant 16 : index
    %1 = arith.constant 1 : index
    %grid_x = arith.ceildivui %N, %0 : index
    %grid_y = arith.ceildivui %M, %0 : index
    "gpu.launch_func"(%grid_x, %grid_y, %1, %0, %0, %1, %A, %B, %C, %SA, %SB) <{kernel = @mxs_kernels::@mxs, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 5, 0>}> : (index, index, index, index, index, index, memref<64x128xf4E2M1FN>, memref<128x64xf8E4M3FN>, memref<64x64xf32>, memref<64x4xf8E8M0FNU>, memref<4x64xf8E8M0FNU>) -> ()
    func.return
  }
  "gpu.module"() <{sym_name = "mxs_kernels"}> ({
    "gpu.func"() <{function_type = (memref<64x128xf4E2M1FN>, memref<128x64xf8E4M3FN>, memref<64x64xf32>, memref<64x4xf8E8M0FNU>, memref<4x64xf8E8M0FNU>) -> (), kernel}> ({
    ^bb0(%A: memref<64x128xf4E2M1FN>, %B: memref<128x64xf8E4M3FN>, %C: memref<64x64xf32>, %SA: memref<64x4xf8E8M0FNU>, %SB: memref<4x64xf8E8M0FNU>):
      %M = arith.constant 64 : index
      %N = arith.constant 64 : index
      %K = arith.constant 128 : index
      %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
      %0 = arith.constant 16 : index
      %1 = arith.muli %bx, %0 : index
      %tx = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %col = arith.addi %1, %tx : index
      %by = "gpu.block_id"() <{dimension = #gpu<dim y>}> : () -> index
      %2 = arith.muli %by, %0 : index
      %ty = "gpu.thread_id"() <{dimension = #gpu<dim y>}> : () -> index
      %row = arith.addi %2, %ty : index
      %3 = arith.cmpi ult, %row, %M : index
      %4 = arith.cmpi ult, %col, %N : index
      %inside = arith.andi %3, %4 : i1
      scf.if %inside {
        %zero = arith.constant 0.000000e+00 : f32
        %5 = arith.constant 0 : index
        %6 = arith.constant 1 : index
        %sum = scf.for %k = %5 to %K step %6 iter_args(%acc = %zero) -> (f32) {
          %a = memref.load %A[%row, %k] : memref<64x128xf4E2M1FN>
          %b = memref.load %B[%k, %col] : memref<128x64xf8E4M3FN>
          %7 = arith.extf %a : f4E2M1FN to f32
          %8 = arith.extf %b : f8E4M3FN to f32
          %9 = arith.constant 32 : index
          %blk = arith.divui %k, %9 : index
          %sa = memref.load %SA[%row, %blk] : memref<64x4xf8E8M0FNU>
          %sb = memref.load %SB[%blk, %col] : memref<4x64xf8E8M0FNU>
          %10 = arith.extf %sa : f8E8M0FNU to f32
          %a_scaled = arith.mulf %7, %10 : f32
          %11 = arith.extf %sb : f8E8M0FNU to f32
          %b_scaled = arith.mulf %8, %11 : f32
          %sum_1 = math.fma %a_scaled, %b_scaled, %acc : f32
          scf.yield %sum_1 : f32
        } {gemm.role = "k_loop"}
        memref.store %sum, %C[%row, %col] : memref<64x64xf32>
      }{gemm.role = "epilogue"}
      "gpu.return"() : () -> ()
    }) {sym_name = "mxs", gpu.known_block_size = array<i32: 16, 16, 1>, gemm.arg_dims = [["M", "K"], ["K", "N"], ["M", "N"], ["M", "K/32"], ["K/32", "N"]]} : () -> ()
  }) : () -> ()
}

// CHECK-LABEL: "gpu.func"
// CHECK:         scf.for %kk = %{{[0-9]+}} to %{{[0-9]+}} step %{{[0-9]+}} {
// CHECK:               %a = memref.load %tile_a[%{{[0-9]+}}, %kk] : memref<64x128xf4E2M1FN, 3 : i64>
// CHECK-NEXT:          %[[A:[0-9]+]] = arith.extf %a : f4E2M1FN to f32
// CHECK-NEXT:          %[[ROW:[0-9]+]] = arith.addi %block_row, %{{[0-9]+}} : index
// CHECK-NEXT:          %[[T:[0-9]+]] = arith.muli %t, %{{[0-9]+}} : index
// CHECK-NEXT:          %[[K:[0-9]+]] = arith.addi %[[T]], %kk : index
// CHECK-NEXT:          %[[KMAX:[0-9]+]] = arith.constant 127 : index
// CHECK-NEXT:          %[[KC:[0-9]+]] = arith.minui %[[K]], %[[KMAX]] : index
// CHECK-NEXT:          %[[Q:[0-9]+]] = arith.constant 32 : index
// CHECK-NEXT:          %blk = arith.divui %[[KC]], %[[Q]] : index
// CHECK-NEXT:          %[[RMAX:[0-9]+]] = arith.constant 63 : index
// CHECK-NEXT:          %[[RC:[0-9]+]] = arith.minui %[[ROW]], %[[RMAX]] : index
// CHECK-NEXT:          %sa = memref.load %SA[%[[RC]], %blk] {gemm.role = "load_sa"} : memref<64x4xf8E8M0FNU>
// CHECK-NEXT:          %[[S:[0-9]+]] = arith.extf %sa : f8E8M0FNU to f32
// CHECK-NEXT:          %a_scaled = arith.mulf %[[A]], %[[S]] : f32
// CHECK:               %sb = memref.load %SB[%blk_1, %{{[0-9]+}}] {gemm.role = "load_sb"} : memref<4x64xf8E8M0FNU>
// CHECK:               %b_scaled = arith.mulf %{{[0-9]+}}, %{{[0-9]+}} : f32
// CHECK-NEXT:          %{{[0-9]+}} = math.fma %a_scaled, %b_scaled, %c : f32
