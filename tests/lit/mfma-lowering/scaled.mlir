// RUN: %gemmc opt %s --arch gfx950 -p "mfma-lowering" | filecheck %s

// A register-tiled block-scaled kernel (FP4 x FP8, E8M0 scales): mfma-lowering issues
// gfx950's v_mfma_scale_f32_32x32x64_f8f6f4 with each lane's scale of its block, read by the K tile
// (t), the block k / 32 and the row clamped to the matrix, broadcast into the scale VGPR.
builtin.module attributes {gemmc.target = "gfx950", gemmc.pipeline = "gemm-to-kernel,lds-tiling{block-m=64 block-n=64 block-k=128},register-tiling{thread-m=4 thread-n=4}", gpu.container_module} {
  func.func @mxs(%A: memref<64x128xf4E2M1FN> {gemm.dims = ["M", "K"]}, %B: memref<128x64xf8E4M3FN> {gemm.dims = ["K", "N"]}, %C: memref<64x64xf32> {gemm.dims = ["M", "N"]}, %SA: memref<64x4xf8E8M0FNU> {gemm.dims = ["M", "K/32"]}, %SB: memref<4x64xf8E8M0FNU> {gemm.dims = ["K/32", "N"]}) attributes {gemm.matmul_spec = {a = 0 : i64, b = 1 : i64, c = 2 : i64, acc_type = f32, scale_a = 3 : i64, scale_b = 4 : i64, block = 32 : i64}} {
    %M = arith.constant 64 : index
    %N = arith.constant 64 : index
    %0 = arith.constant 1 : index
    %1 = arith.constant 64 : index
    %grid_x = arith.ceildivui %N, %1 : index
    %grid_y = arith.ceildivui %M, %1 : index
    %block_x = arith.constant 16 : index
    %block_y = arith.constant 16 : index
    "gpu.launch_func"(%grid_x, %grid_y, %0, %block_x, %block_y, %0, %A, %B, %C, %SA, %SB) <{kernel = @mxs_kernels::@mxs, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 5, 0>}> : (index, index, index, index, index, index, memref<64x128xf4E2M1FN>, memref<128x64xf8E4M3FN>, memref<64x64xf32>, memref<64x4xf8E8M0FNU>, memref<4x64xf8E8M0FNU>) -> ()
    func.return
  }
  "gpu.module"() <{sym_name = "mxs_kernels"}> ({
    "gpu.func"() <{function_type = (memref<64x128xf4E2M1FN>, memref<128x64xf8E4M3FN>, memref<64x64xf32>, memref<64x4xf8E8M0FNU>, memref<4x64xf8E8M0FNU>) -> (), kernel}> ({
    ^bb0(%A: memref<64x128xf4E2M1FN>, %B: memref<128x64xf8E4M3FN>, %C: memref<64x64xf32>, %SA: memref<64x4xf8E8M0FNU>, %SB: memref<4x64xf8E8M0FNU>):
      %M = arith.constant 64 : index
      %N = arith.constant 64 : index
      %K = arith.constant 128 : index
      %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
      %tx = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %by = "gpu.block_id"() <{dimension = #gpu<dim y>}> : () -> index
      %ty = "gpu.thread_id"() <{dimension = #gpu<dim y>}> : () -> index
      %0 = arith.constant 64 : index
      %block_row = arith.muli %by, %0 : index
      %block_col = arith.muli %bx, %0 : index
      %1 = arith.constant 16 : index
      %2 = arith.muli %ty, %1 : index
      %tid = arith.addi %2, %tx : index
      %3 = arith.constant 0 : index
      %4 = arith.constant 1 : index
      %acc = memref.alloca() : memref<4x4xf32, 5 : i64>
      %zero = arith.constant 0.000000e+00 : f32
      %5 = arith.constant 0 : index
      %6 = arith.constant 4 : index
      %7 = arith.constant 1 : index
      scf.for %i = %5 to %6 step %7 {
        scf.for %j = %5 to %6 step %7 {
          memref.store %zero, %acc[%i, %j] : memref<4x4xf32, 5 : i64>
        }
      }
      %tile_a = memref.alloca() : memref<64x128xf4E2M1FN, 3 : i64>
      %tile_b_t = memref.alloca() : memref<64x128xf8E4M3FN, 3 : i64>
      %8 = arith.constant 128 : index
      %num_tiles = arith.ceildivui %K, %8 : index
      scf.for %t = %3 to %num_tiles step %4 {
        %k0 = arith.muli %t, %8 : index
        gemm.copy %A[%block_row, %k0] bounds[%M, %K] to %tile_a[] tid %tid {gemm.role = "load_a", extents = array<i64: 64, 128>, width = 1 : i64} : memref<64x128xf4E2M1FN>, memref<64x128xf4E2M1FN, 3 : i64>
        gemm.copy %B[%k0, %block_col] bounds[%K, %N] to %tile_b_t[] tid %tid {gemm.role = "load_b", extents = array<i64: 128, 64>, width = 1 : i64, transpose} : memref<128x64xf8E4M3FN>, memref<64x128xf8E4M3FN, 3 : i64>
        "gpu.barrier"() : () -> ()
        %9 = arith.constant 128 : index
        scf.for %kk = %5 to %9 step %7 {
          %a_frag = memref.alloca() : memref<4xf32, 5 : i64>
          %b_frag = memref.alloca() : memref<4xf32, 5 : i64>
          %thread_row = arith.muli %ty, %6 : index
          %thread_col = arith.muli %tx, %6 : index
          scf.for %i_1 = %5 to %6 step %7 {
            %10 = arith.addi %thread_row, %i_1 : index
            %a = memref.load %tile_a[%10, %kk] : memref<64x128xf4E2M1FN, 3 : i64>
            %11 = arith.extf %a : f4E2M1FN to f32
            %12 = arith.addi %block_row, %10 : index
            %13 = arith.muli %t, %9 : index
            %14 = arith.addi %13, %kk : index
            %15 = arith.constant 127 : index
            %16 = arith.minui %14, %15 : index
            %17 = arith.constant 32 : index
            %blk = arith.divui %16, %17 : index
            %18 = arith.constant 63 : index
            %19 = arith.minui %12, %18 : index
            %sa = memref.load %SA[%19, %blk] {gemm.role = "load_sa"} : memref<64x4xf8E8M0FNU>
            %20 = arith.extf %sa : f8E8M0FNU to f32
            %a_scaled = arith.mulf %11, %20 : f32
            memref.store %a_scaled, %a_frag[%i_1] : memref<4xf32, 5 : i64>
          }
          scf.for %j_1 = %5 to %6 step %7 {
            %21 = arith.addi %thread_col, %j_1 : index
            %b = memref.load %tile_b_t[%21, %kk] : memref<64x128xf8E4M3FN, 3 : i64>
            %22 = arith.extf %b : f8E4M3FN to f32
            %23 = arith.addi %block_col, %21 : index
            %24 = arith.muli %t, %9 : index
            %25 = arith.addi %24, %kk : index
            %26 = arith.constant 127 : index
            %27 = arith.minui %25, %26 : index
            %28 = arith.constant 32 : index
            %blk_1 = arith.divui %27, %28 : index
            %29 = arith.constant 63 : index
            %30 = arith.minui %23, %29 : index
            %sb = memref.load %SB[%blk_1, %30] {gemm.role = "load_sb"} : memref<4x64xf8E8M0FNU>
            %31 = arith.extf %sb : f8E8M0FNU to f32
            %b_scaled = arith.mulf %22, %31 : f32
            memref.store %b_scaled, %b_frag[%j_1] : memref<4xf32, 5 : i64>
          }
          scf.for %i_2 = %5 to %6 step %7 {
            scf.for %j_2 = %5 to %6 step %7 {
              %c = memref.load %acc[%i_2, %j_2] : memref<4x4xf32, 5 : i64>
              %a_1 = memref.load %a_frag[%i_2] : memref<4xf32, 5 : i64>
              %b_1 = memref.load %b_frag[%j_2] : memref<4xf32, 5 : i64>
              %32 = math.fma %a_1, %b_1, %c : f32
              memref.store %32, %acc[%i_2, %j_2] : memref<4x4xf32, 5 : i64>
            }
          }
        } {gemm.role = "compute"}
        "gpu.barrier"() : () -> ()
      } {gemm.role = "k_loop"}
      scf.for %i_3 = %5 to %6 step %7 {
        scf.for %j_3 = %5 to %6 step %7 {
          %33 = arith.muli %ty, %6 : index
          %34 = arith.addi %33, %i_3 : index
          %r = arith.addi %block_row, %34 : index
          %35 = arith.muli %tx, %6 : index
          %36 = arith.addi %35, %j_3 : index
          %c_1 = arith.addi %block_col, %36 : index
          %37 = arith.cmpi ult, %r, %M : index
          %38 = arith.cmpi ult, %c_1, %N : index
          %inside = arith.andi %37, %38 : i1
          scf.if %inside {
            %sum = memref.load %acc[%i_3, %j_3] {gemm.role = "acc_read"} : memref<4x4xf32, 5 : i64>
            memref.store %sum, %C[%r, %c_1] : memref<64x64xf32>
          }{gemm.role = "epilogue"}
        }
      }
      "gpu.return"() : () -> ()
    }) {sym_name = "mxs", gpu.known_block_size = array<i32: 16, 16, 1>, gemm.arg_dims = [["M", "K"], ["K", "N"], ["M", "N"], ["M", "K/32"], ["K/32", "N"]], gemm.schedule = {block_m = 64 : i64, block_n = 64 : i64, block_k = 128 : i64, threads_x = 16 : i64, threads_y = 16 : i64, thread_m = 4 : i64, thread_n = 4 : i64, contiguous = 1 : i64, b_transposed = 1 : i64}} : () -> ()
  }) : () -> ()
}

// CHECK-LABEL: "gpu.func"
// CHECK:         %lane = arith.remui %tx, %{{[0-9]+}} : index
// CHECK:         %a_k = arith.muli %{{[0-9]+}}, %{{[0-9]+}} : index
// CHECK:         scf.for %kk = %{{[0-9]+}} to %{{[0-9]+}} step %{{[0-9]+}} {
// CHECK:           %a = vector.load %tile_a[%a_row, %{{[0-9]+}}] : memref<64x128xf4E2M1FN, 3 : i64>, vector<32xf4E2M1FN>
// CHECK:           %b = vector.load %tile_b_t[%b_col, %{{[0-9]+}}] : memref<64x128xf8E4M3FN, 3 : i64>, vector<32xf8E4M3FN>
// CHECK:           %[[K:[0-9]+]] = arith.muli %t, %{{[0-9]+}} : index
// CHECK:           %blk = arith.divui %{{[0-9]+}}, %{{[0-9]+}} : index
// CHECK:           %sa = memref.load %SA[%{{[0-9]+}}, %blk] {gemm.role = "load_sa"} : memref<64x4xf8E8M0FNU>
// CHECK-NEXT:      %sa_vgpr = vector.broadcast %sa : f8E8M0FNU to vector<4xf8E8M0FNU>
// CHECK:           %sb = memref.load %SB[%blk_1, %{{[0-9]+}}] {gemm.role = "load_sb"} : memref<4x64xf8E8M0FNU>
// CHECK-NEXT:      %sb_vgpr = vector.broadcast %sb : f8E8M0FNU to vector<4xf8E8M0FNU>
// CHECK:           %d = amdgpu.scaled_mfma(%sa_vgpr * %a) * (%sb_vgpr * %b) + %c {m = 32 : i32, n = 32 : i32, k = 64 : i32, scalesIdxA = 0 : i32, scalesIdxB = 0 : i32} : vector<4xf8E8M0FNU>, vector<32xf4E2M1FN>, vector<4xf8E8M0FNU>, vector<32xf8E4M3FN>, vector<16xf32>
// CHECK:         } {gemmc.unroll, gemm.role = "compute"}
