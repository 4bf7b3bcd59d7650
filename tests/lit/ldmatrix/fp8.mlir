// RUN: %gemmc opt %s --arch sm_90 -p ldmatrix | filecheck %s

// The ldmatrix pass on an FP8 kernel as matrix-cores leaves it (A f8e4m3fn row-major, B f8e5m2 [K][N],
// mma.sync m16n8k32 .e4m3.e5m2; produced by `gemmc opt` with gemm-to-kernel,lds-tiling{block-m=64
// block-n=64 block-k=64},register-tiling{thread-m=4 thread-n=4},matrix-cores{waves-m=2 waves-n=2}).
// sm_90's ldmatrix transposes no bytes, so both tiles stay k-contiguous: A's [m][k], B's [n][k] written by
// the transposing copy it already had; each fragment of A is one ldmatrix.x4 of 8x16-byte matrices as
// stored (lane l: row l % 8 + 8 ((l / 8) % 2), byte 16 ((l / 16) % 2)), two n tiles' B fragments another
// (row l % 8 + 8 ((l / 16) % 2), byte 16 ((l / 8) % 2)), split into each mma.sync's 8 bytes.

builtin.module attributes {gemmc.target = "sm_90", gemmc.pipeline = "gemm-to-kernel,lds-tiling{block-m=64 block-n=64 block-k=64},register-tiling{thread-m=4 thread-n=4},matrix-cores{waves-m=2 waves-n=2}", gpu.container_module} {
  func.func @g(%A: memref<64x128xf8E4M3FN> {gemm.dims = ["M", "K"]}, %B: memref<128x64xf8E5M2> {gemm.dims = ["K", "N"]}, %C: memref<64x64xf32> {gemm.dims = ["M", "N"]}) attributes {gemm.matmul_spec = {a = 0 : i64, b = 1 : i64, c = 2 : i64, acc_type = f32}} {
    %M = arith.constant 64 : index
    %N = arith.constant 64 : index
    %0 = arith.constant 1 : index
    %1 = arith.constant 64 : index
    %grid_x = arith.ceildivui %N, %1 : index
    %grid_y = arith.ceildivui %M, %1 : index
    %block_x = arith.constant 64 : index
    %block_y = arith.constant 2 : index
    "gpu.launch_func"(%grid_x, %grid_y, %0, %block_x, %block_y, %0, %A, %B, %C) <{kernel = @g_kernels::@g, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 3, 0>}> : (index, index, index, index, index, index, memref<64x128xf8E4M3FN>, memref<128x64xf8E5M2>, memref<64x64xf32>) -> ()
    func.return
  }
  "gpu.module"() <{sym_name = "g_kernels"}> ({
    "gpu.func"() <{function_type = (memref<64x128xf8E4M3FN>, memref<128x64xf8E5M2>, memref<64x64xf32>) -> (), kernel}> ({
    ^bb0(%A: memref<64x128xf8E4M3FN>, %B: memref<128x64xf8E5M2>, %C: memref<64x64xf32>):
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
      %1 = arith.constant 64 : index
      %2 = arith.muli %ty, %1 : index
      %tid = arith.addi %2, %tx : index
      %3 = arith.constant 0 : index
      %4 = arith.constant 1 : index
      %5 = arith.constant 32 : index
      %lane = arith.remui %tx, %5 : index
      %wave_n = arith.divui %tx, %5 : index
      %wave_row = arith.muli %ty, %5 : index
      %wave_col = arith.muli %wave_n, %5 : index
      %acc = memref.alloca() : memref<2x4x4xf32, 5 : i64>
      %zero = arith.constant 0.000000e+00 : f32
      %zeros = vector.broadcast %zero : f32 to vector<4xf32>
      %6 = arith.constant 0 : index
      %7 = arith.constant 2 : index
      %8 = arith.constant 1 : index
      scf.for %i = %6 to %7 step %8 {
        %9 = arith.constant 4 : index
        scf.for %j = %6 to %9 step %8 {
          vector.store %zeros, %acc[%i, %j, %6] : memref<2x4x4xf32, 5 : i64>, vector<4xf32>
        }
      }
      %10 = arith.constant 4 : index
      %11 = arith.divui %lane, %10 : index
      %12 = arith.remui %lane, %10 : index
      %a_k = arith.muli %12, %10 : index
      %b_k = arith.muli %12, %10 : index
      %a_row = arith.addi %wave_row, %11 : index
      %b_col = arith.addi %wave_col, %11 : index
      %tile_a = memref.alloca() : memref<64x64xf8E4M3FN, 3 : i64>
      %tile_b_t = memref.alloca() : memref<64x64xf8E5M2, 3 : i64>
      %num_tiles = arith.ceildivui %K, %0 : index
      scf.for %t = %3 to %num_tiles step %4 {
        %k0 = arith.muli %t, %0 : index
        gemm.copy %A[%block_row, %k0] bounds[%M, %K] to %tile_a[] tid %tid {gemm.role = "load_a", extents = array<i64: 64, 64>, width = 1 : i64} : memref<64x128xf8E4M3FN>, memref<64x64xf8E4M3FN, 3 : i64>
        gemm.copy %B[%k0, %block_col] bounds[%K, %N] to %tile_b_t[] tid %tid {gemm.role = "load_b", extents = array<i64: 64, 64>, width = 1 : i64, transpose} : memref<128x64xf8E5M2>, memref<64x64xf8E5M2, 3 : i64>
        "gpu.barrier"() : () -> ()
        %13 = arith.constant 64 : index
        scf.for %kk = %6 to %13 step %5 {
          %14 = arith.addi %kk, %a_k : index
          %a0 = vector.load %tile_a[%a_row, %14] : memref<64x64xf8E4M3FN, 3 : i64>, vector<4xf8E4M3FN>
          %15 = arith.constant 8 : index
          %16 = arith.addi %a_row, %15 : index
          %a1 = vector.load %tile_a[%16, %14] : memref<64x64xf8E4M3FN, 3 : i64>, vector<4xf8E4M3FN>
          %17 = arith.constant 16 : index
          %18 = arith.addi %14, %17 : index
          %a2 = vector.load %tile_a[%a_row, %18] : memref<64x64xf8E4M3FN, 3 : i64>, vector<4xf8E4M3FN>
          %19 = arith.addi %a_row, %15 : index
          %20 = arith.addi %14, %17 : index
          %a3 = vector.load %tile_a[%19, %20] : memref<64x64xf8E4M3FN, 3 : i64>, vector<4xf8E4M3FN>
          %a = vector.shuffle %a0, %a1 [0, 1, 2, 3, 4, 5, 6, 7] : vector<4xf8E4M3FN>, vector<4xf8E4M3FN>
          %a_1 = vector.shuffle %a2, %a3 [0, 1, 2, 3, 4, 5, 6, 7] : vector<4xf8E4M3FN>, vector<4xf8E4M3FN>
          %a_2 = vector.shuffle %a, %a_1 [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15] : vector<8xf8E4M3FN>, vector<8xf8E4M3FN>
          %21 = arith.addi %a_row, %17 : index
          %22 = arith.addi %kk, %a_k : index
          %a0_1 = vector.load %tile_a[%21, %22] : memref<64x64xf8E4M3FN, 3 : i64>, vector<4xf8E4M3FN>
          %23 = arith.addi %21, %15 : index
          %a1_1 = vector.load %tile_a[%23, %22] : memref<64x64xf8E4M3FN, 3 : i64>, vector<4xf8E4M3FN>
          %24 = arith.addi %22, %17 : index
          %a2_1 = vector.load %tile_a[%21, %24] : memref<64x64xf8E4M3FN, 3 : i64>, vector<4xf8E4M3FN>
          %25 = arith.addi %21, %15 : index
          %26 = arith.addi %22, %17 : index
          %a3_1 = vector.load %tile_a[%25, %26] : memref<64x64xf8E4M3FN, 3 : i64>, vector<4xf8E4M3FN>
          %a_3 = vector.shuffle %a0_1, %a1_1 [0, 1, 2, 3, 4, 5, 6, 7] : vector<4xf8E4M3FN>, vector<4xf8E4M3FN>
          %a_4 = vector.shuffle %a2_1, %a3_1 [0, 1, 2, 3, 4, 5, 6, 7] : vector<4xf8E4M3FN>, vector<4xf8E4M3FN>
          %a_5 = vector.shuffle %a_3, %a_4 [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15] : vector<8xf8E4M3FN>, vector<8xf8E4M3FN>
          %27 = arith.addi %kk, %b_k : index
          %b0 = vector.load %tile_b_t[%b_col, %27] : memref<64x64xf8E5M2, 3 : i64>, vector<4xf8E5M2>
          %28 = arith.addi %27, %17 : index
          %b1 = vector.load %tile_b_t[%b_col, %28] : memref<64x64xf8E5M2, 3 : i64>, vector<4xf8E5M2>
          %b = vector.shuffle %b0, %b1 [0, 1, 2, 3, 4, 5, 6, 7] : vector<4xf8E5M2>, vector<4xf8E5M2>
          %29 = arith.addi %b_col, %15 : index
          %30 = arith.addi %kk, %b_k : index
          %b0_1 = vector.load %tile_b_t[%29, %30] : memref<64x64xf8E5M2, 3 : i64>, vector<4xf8E5M2>
          %31 = arith.addi %30, %17 : index
          %b1_1 = vector.load %tile_b_t[%29, %31] : memref<64x64xf8E5M2, 3 : i64>, vector<4xf8E5M2>
          %b_1 = vector.shuffle %b0_1, %b1_1 [0, 1, 2, 3, 4, 5, 6, 7] : vector<4xf8E5M2>, vector<4xf8E5M2>
          %32 = arith.addi %b_col, %17 : index
          %33 = arith.addi %kk, %b_k : index
          %b0_2 = vector.load %tile_b_t[%32, %33] : memref<64x64xf8E5M2, 3 : i64>, vector<4xf8E5M2>
          %34 = arith.addi %33, %17 : index
          %b1_2 = vector.load %tile_b_t[%32, %34] : memref<64x64xf8E5M2, 3 : i64>, vector<4xf8E5M2>
          %b_2 = vector.shuffle %b0_2, %b1_2 [0, 1, 2, 3, 4, 5, 6, 7] : vector<4xf8E5M2>, vector<4xf8E5M2>
          %35 = arith.constant 24 : index
          %36 = arith.addi %b_col, %35 : index
          %37 = arith.addi %kk, %b_k : index
          %b0_3 = vector.load %tile_b_t[%36, %37] : memref<64x64xf8E5M2, 3 : i64>, vector<4xf8E5M2>
          %38 = arith.addi %37, %17 : index
          %b1_3 = vector.load %tile_b_t[%36, %38] : memref<64x64xf8E5M2, 3 : i64>, vector<4xf8E5M2>
          %b_3 = vector.shuffle %b0_3, %b1_3 [0, 1, 2, 3, 4, 5, 6, 7] : vector<4xf8E5M2>, vector<4xf8E5M2>
          %c = vector.load %acc[%6, %6, %6] : memref<2x4x4xf32, 5 : i64>, vector<4xf32>
          %d = nvgpu.mma_sync %a_2 * %b + %c {m = 16 : i32, n = 8 : i32, k = 32 : i32} : vector<16xf8E4M3FN>, vector<8xf8E5M2>, vector<4xf32>
          vector.store %d, %acc[%6, %6, %6] : memref<2x4x4xf32, 5 : i64>, vector<4xf32>
          %c_1 = vector.load %acc[%6, %8, %6] : memref<2x4x4xf32, 5 : i64>, vector<4xf32>
          %d_1 = nvgpu.mma_sync %a_2 * %b_1 + %c_1 {m = 16 : i32, n = 8 : i32, k = 32 : i32} : vector<16xf8E4M3FN>, vector<8xf8E5M2>, vector<4xf32>
          vector.store %d_1, %acc[%6, %8, %6] : memref<2x4x4xf32, 5 : i64>, vector<4xf32>
          %c_2 = vector.load %acc[%6, %7, %6] : memref<2x4x4xf32, 5 : i64>, vector<4xf32>
          %d_2 = nvgpu.mma_sync %a_2 * %b_2 + %c_2 {m = 16 : i32, n = 8 : i32, k = 32 : i32} : vector<16xf8E4M3FN>, vector<8xf8E5M2>, vector<4xf32>
          vector.store %d_2, %acc[%6, %7, %6] : memref<2x4x4xf32, 5 : i64>, vector<4xf32>
          %39 = arith.constant 3 : index
          %c_3 = vector.load %acc[%6, %39, %6] : memref<2x4x4xf32, 5 : i64>, vector<4xf32>
          %d_3 = nvgpu.mma_sync %a_2 * %b_3 + %c_3 {m = 16 : i32, n = 8 : i32, k = 32 : i32} : vector<16xf8E4M3FN>, vector<8xf8E5M2>, vector<4xf32>
          vector.store %d_3, %acc[%6, %39, %6] : memref<2x4x4xf32, 5 : i64>, vector<4xf32>
          %c_4 = vector.load %acc[%8, %6, %6] : memref<2x4x4xf32, 5 : i64>, vector<4xf32>
          %d_4 = nvgpu.mma_sync %a_5 * %b + %c_4 {m = 16 : i32, n = 8 : i32, k = 32 : i32} : vector<16xf8E4M3FN>, vector<8xf8E5M2>, vector<4xf32>
          vector.store %d_4, %acc[%8, %6, %6] : memref<2x4x4xf32, 5 : i64>, vector<4xf32>
          %c_5 = vector.load %acc[%8, %8, %6] : memref<2x4x4xf32, 5 : i64>, vector<4xf32>
          %d_5 = nvgpu.mma_sync %a_5 * %b_1 + %c_5 {m = 16 : i32, n = 8 : i32, k = 32 : i32} : vector<16xf8E4M3FN>, vector<8xf8E5M2>, vector<4xf32>
          vector.store %d_5, %acc[%8, %8, %6] : memref<2x4x4xf32, 5 : i64>, vector<4xf32>
          %c_6 = vector.load %acc[%8, %7, %6] : memref<2x4x4xf32, 5 : i64>, vector<4xf32>
          %d_6 = nvgpu.mma_sync %a_5 * %b_2 + %c_6 {m = 16 : i32, n = 8 : i32, k = 32 : i32} : vector<16xf8E4M3FN>, vector<8xf8E5M2>, vector<4xf32>
          vector.store %d_6, %acc[%8, %7, %6] : memref<2x4x4xf32, 5 : i64>, vector<4xf32>
          %c_7 = vector.load %acc[%8, %39, %6] : memref<2x4x4xf32, 5 : i64>, vector<4xf32>
          %d_7 = nvgpu.mma_sync %a_5 * %b_3 + %c_7 {m = 16 : i32, n = 8 : i32, k = 32 : i32} : vector<16xf8E4M3FN>, vector<8xf8E5M2>, vector<4xf32>
          vector.store %d_7, %acc[%8, %39, %6] : memref<2x4x4xf32, 5 : i64>, vector<4xf32>
        } {gemmc.unroll, gemm.role = "compute"}
        "gpu.barrier"() : () -> ()
      } {gemm.role = "k_loop"}
      %40 = arith.muli %12, %7 : index
      %41 = arith.addi %wave_row, %11 : index
      %lane_row = arith.addi %block_row, %41 : index
      %42 = arith.addi %wave_col, %40 : index
      %lane_col = arith.addi %block_col, %42 : index
      scf.for %ti = %6 to %7 step %8 {
        scf.for %tj = %6 to %10 step %8 {
          scf.for %g = %6 to %10 step %8 {
            %43 = arith.divui %g, %7 : index
            %44 = arith.constant 8 : index
            %45 = arith.muli %43, %44 : index
            %46 = arith.remui %g, %7 : index
            %47 = arith.constant 16 : index
            %48 = arith.muli %ti, %47 : index
            %49 = arith.addi %48, %45 : index
            %r = arith.addi %lane_row, %49 : index
            %50 = arith.muli %tj, %44 : index
            %51 = arith.addi %50, %46 : index
            %c_8 = arith.addi %lane_col, %51 : index
            %52 = arith.cmpi ult, %r, %M : index
            %53 = arith.cmpi ult, %c_8, %N : index
            %inside = arith.andi %52, %53 : i1
            scf.if %inside {
              %sum = memref.load %acc[%ti, %tj, %g] {gemm.role = "acc_read"} : memref<2x4x4xf32, 5 : i64>
              memref.store %sum, %C[%r, %c_8] : memref<64x64xf32>
            }{gemm.role = "epilogue"}
          }
        }
      }
      "gpu.return"() : () -> ()
    }) {sym_name = "g", gpu.known_block_size = array<i32: 64, 2, 1>, gemm.arg_dims = [["M", "K"], ["K", "N"], ["M", "N"]], gemm.schedule = {block_m = 64 : i64, block_n = 64 : i64, block_k = 64 : i64, threads_x = 64 : i64, threads_y = 2 : i64, thread_m = 2 : i64, thread_n = 4 : i64, contiguous = 1 : i64, b_transposed = 1 : i64, instr = "mma_m16n8k32_f32_e4m3_e5m2", waves_m = 2 : i64, waves_n = 2 : i64, lane_regs = 48 : i64}} : () -> ()
  }) : () -> ()
}

// CHECK-LABEL: "gpu.func"
// CHECK:         %ldm_row = arith.remui %lane, %[[C8:.*]] : index
// CHECK:         %ldm_b0 = arith.remui
// CHECK:         %ldm_b1 = arith.remui
// CHECK:         %tile_a = memref.alloca() : memref<64x64xf8E4M3FN, 3 : i64>
// CHECK-NEXT:    %tile_b_t = memref.alloca() : memref<64x64xf8E5M2, 3 : i64>
// CHECK:         gemm.copy %B[%k0, %block_col] bounds[%K, %N] to %tile_b_t[] tid %tid {{{.*}}transpose}
// CHECK:         scf.for %kk
// CHECK:           %a = nvgpu.ldmatrix %tile_a[%{{.*}}, %{{.*}}] {numTiles = 4 : i32} : memref<64x64xf8E4M3FN, 3 : i64> -> vector<16xf8E4M3FN>
// CHECK:           %a_1 = nvgpu.ldmatrix %tile_a
// CHECK:           %b = nvgpu.ldmatrix %tile_b_t[%{{.*}}, %{{.*}}] {numTiles = 4 : i32} : memref<64x64xf8E5M2, 3 : i64> -> vector<16xf8E5M2>
// CHECK-NEXT:      %b_1 = vector.shuffle %b, %b [0, 1, 2, 3, 4, 5, 6, 7] : vector<16xf8E5M2>, vector<16xf8E5M2>
// CHECK-NEXT:      %b_2 = vector.shuffle %b, %b [8, 9, 10, 11, 12, 13, 14, 15] : vector<16xf8E5M2>, vector<16xf8E5M2>
// CHECK:           nvgpu.mma_sync %a * %b_1 + %c {m = 16 : i32, n = 8 : i32, k = 32 : i32} : vector<16xf8E4M3FN>, vector<8xf8E5M2>, vector<4xf32>
// CHECK-NOT:     transpose}
// CHECK:       gemm.schedule = {{{.*}}b_transposed = 1 : i64, instr = "mma_m16n8k32_f32_e4m3_e5m2"{{.*}}ldmatrix = 1 : i64}
