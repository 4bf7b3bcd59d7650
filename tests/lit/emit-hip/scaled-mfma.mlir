// RUN: %python -m gemmc.emit.hip %s --arch gfx950 | filecheck %s

// amdgpu.scaled_mfma (MXFP8: e5m2 x e4m3, E8M0 scales) prints as the clang builtin: A and B bit-cast
// to v8int, cbsz = 1 (e5m2) and blgp = 0 (e4m3), op_sel 0, the scale VGPRs bit-cast to int; E8M0
// values are bytes.
builtin.module attributes {gemmc.target = "gfx950", gemmc.pipeline = "gemm-to-kernel,lds-tiling{block-m=64 block-n=64 block-k=128},register-tiling{thread-m=4 thread-n=4},mfma-lowering,lower-copies", gpu.container_module} {
  func.func @mxs(%A: memref<64x128xf8E5M2> {gemm.dims = ["M", "K"]}, %B: memref<128x64xf8E4M3FN> {gemm.dims = ["K", "N"]}, %C: memref<64x64xf32> {gemm.dims = ["M", "N"]}, %SA: memref<64x4xf8E8M0FNU> {gemm.dims = ["M", "K/32"]}, %SB: memref<4x64xf8E8M0FNU> {gemm.dims = ["K/32", "N"]}) attributes {gemm.matmul_spec = {a = 0 : i64, b = 1 : i64, c = 2 : i64, acc_type = f32, scale_a = 3 : i64, scale_b = 4 : i64, block = 32 : i64}} {
    %M = arith.constant 64 : index
    %N = arith.constant 64 : index
    %0 = arith.constant 1 : index
    %1 = arith.constant 64 : index
    %grid_x = arith.ceildivui %N, %1 : index
    %grid_y = arith.ceildivui %M, %1 : index
    %block_x = arith.constant 128 : index
    %block_y = arith.constant 2 : index
    "gpu.launch_func"(%grid_x, %grid_y, %0, %block_x, %block_y, %0, %A, %B, %C, %SA, %SB) <{kernel = @mxs_kernels::@mxs, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 5, 0>}> : (index, index, index, index, index, index, memref<64x128xf8E5M2>, memref<128x64xf8E4M3FN>, memref<64x64xf32>, memref<64x4xf8E8M0FNU>, memref<4x64xf8E8M0FNU>) -> ()
    func.return
  }
  "gpu.module"() <{sym_name = "mxs_kernels"}> ({
    "gpu.func"() <{function_type = (memref<64x128xf8E5M2>, memref<128x64xf8E4M3FN>, memref<64x64xf32>, memref<64x4xf8E8M0FNU>, memref<4x64xf8E8M0FNU>) -> (), kernel}> ({
    ^bb0(%A: memref<64x128xf8E5M2>, %B: memref<128x64xf8E4M3FN>, %C: memref<64x64xf32>, %SA: memref<64x4xf8E8M0FNU>, %SB: memref<4x64xf8E8M0FNU>):
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
      %1 = arith.constant 128 : index
      %2 = arith.muli %ty, %1 : index
      %tid = arith.addi %2, %tx : index
      %3 = arith.constant 0 : index
      %4 = arith.constant 1 : index
      %5 = arith.constant 64 : index
      %lane = arith.remui %tx, %5 : index
      %wave_n = arith.divui %tx, %5 : index
      %6 = arith.constant 32 : index
      %wave_row = arith.muli %ty, %6 : index
      %wave_col = arith.muli %wave_n, %6 : index
      %acc = memref.alloca() : memref<1x1x16xf32, 5 : i64>
      %zero = arith.constant 0.000000e+00 : f32
      %zeros = vector.broadcast %zero : f32 to vector<16xf32>
      %7 = arith.constant 0 : index
      vector.store %zeros, %acc[%7, %7, %7] : memref<1x1x16xf32, 5 : i64>, vector<16xf32>
      %8 = arith.remui %lane, %6 : index
      %9 = arith.divui %lane, %6 : index
      %a_k = arith.muli %9, %6 : index
      %b_k = arith.muli %9, %6 : index
      %a_row = arith.addi %wave_row, %8 : index
      %b_col = arith.addi %wave_col, %8 : index
      %tile_a = memref.alloca() : memref<64x128xf8E5M2, 3 : i64>
      %tile_b_t = memref.alloca() : memref<64x128xf8E4M3FN, 3 : i64>
      %10 = arith.constant 128 : index
      %num_tiles = arith.ceildivui %K, %10 : index
      scf.for %t = %3 to %num_tiles step %4 {
        %k0 = arith.muli %t, %10 : index
        %11 = arith.constant 0 : index
        %12 = arith.constant 32 : index
        %13 = arith.constant 1 : index
        scf.for %it = %11 to %12 step %13 {
          %14 = arith.constant 256 : index
          %15 = arith.muli %it, %14 : index
          %idx = arith.addi %15, %tid : index
          %16 = arith.constant 128 : index
          %i0 = arith.divui %idx, %16 : index
          %i1 = arith.remui %idx, %16 : index
          %g0 = arith.addi %block_row, %i0 : index
          %g1 = arith.addi %k0, %i1 : index
          %17 = arith.cmpi ult, %g0, %M : index
          %18 = arith.cmpi ult, %g1, %K : index
          %in_bounds = arith.andi %17, %18 : i1
          %v = scf.if %in_bounds -> (f8E5M2) {
            %v_1 = memref.load %A[%g0, %g1] {gemm.role = "load_a"} : memref<64x128xf8E5M2>
            scf.yield %v_1 : f8E5M2
          } else {
            %19 = arith.constant 0.000000e+00 : f8E5M2
            scf.yield %19 : f8E5M2
          }
          memref.store %v, %tile_a[%i0, %i1] : memref<64x128xf8E5M2, 3 : i64>
        }
        %20 = arith.constant 0 : index
        %21 = arith.constant 32 : index
        %22 = arith.constant 1 : index
        scf.for %it_1 = %20 to %21 step %22 {
          %23 = arith.constant 256 : index
          %24 = arith.muli %it_1, %23 : index
          %idx_1 = arith.addi %24, %tid : index
          %25 = arith.constant 64 : index
          %i0_1 = arith.divui %idx_1, %25 : index
          %i1_1 = arith.remui %idx_1, %25 : index
          %g0_1 = arith.addi %k0, %i0_1 : index
          %g1_1 = arith.addi %block_col, %i1_1 : index
          %26 = arith.cmpi ult, %g0_1, %K : index
          %27 = arith.cmpi ult, %g1_1, %N : index
          %in_bounds_1 = arith.andi %26, %27 : i1
          %v_2 = scf.if %in_bounds_1 -> (f8E4M3FN) {
            %v_3 = memref.load %B[%g0_1, %g1_1] {gemm.role = "load_b"} : memref<128x64xf8E4M3FN>
            scf.yield %v_3 : f8E4M3FN
          } else {
            %28 = arith.constant 0.000000e+00 : f8E4M3FN
            scf.yield %28 : f8E4M3FN
          }
          memref.store %v_2, %tile_b_t[%i1_1, %i0_1] : memref<64x128xf8E4M3FN, 3 : i64>
        }
        "gpu.barrier"() : () -> ()
        %29 = arith.constant 128 : index
        scf.for %kk = %7 to %29 step %5 {
          %30 = arith.addi %kk, %a_k : index
          %a = vector.load %tile_a[%a_row, %30] : memref<64x128xf8E5M2, 3 : i64>, vector<32xf8E5M2>
          %31 = arith.addi %kk, %b_k : index
          %b = vector.load %tile_b_t[%b_col, %31] : memref<64x128xf8E4M3FN, 3 : i64>, vector<32xf8E4M3FN>
          %32 = arith.addi %kk, %a_k : index
          %33 = arith.addi %block_row, %a_row : index
          %34 = arith.muli %t, %29 : index
          %35 = arith.addi %34, %32 : index
          %36 = arith.constant 127 : index
          %37 = arith.minui %35, %36 : index
          %blk = arith.divui %37, %6 : index
          %38 = arith.constant 63 : index
          %39 = arith.minui %33, %38 : index
          %sa = memref.load %SA[%39, %blk] {gemm.role = "load_sa"} : memref<64x4xf8E8M0FNU>
          %sa_vgpr = vector.broadcast %sa : f8E8M0FNU to vector<4xf8E8M0FNU>
          %40 = arith.addi %kk, %b_k : index
          %41 = arith.addi %block_col, %b_col : index
          %42 = arith.muli %t, %29 : index
          %43 = arith.addi %42, %40 : index
          %44 = arith.minui %43, %36 : index
          %blk_1 = arith.divui %44, %6 : index
          %45 = arith.minui %41, %38 : index
          %sb = memref.load %SB[%blk_1, %45] {gemm.role = "load_sb"} : memref<4x64xf8E8M0FNU>
          %sb_vgpr = vector.broadcast %sb : f8E8M0FNU to vector<4xf8E8M0FNU>
          %c = vector.load %acc[%7, %7, %7] : memref<1x1x16xf32, 5 : i64>, vector<16xf32>
          %d = amdgpu.scaled_mfma(%sa_vgpr * %a) * (%sb_vgpr * %b) + %c {m = 32 : i32, n = 32 : i32, k = 64 : i32, scalesIdxA = 0 : i32, scalesIdxB = 0 : i32} : vector<4xf8E8M0FNU>, vector<32xf8E5M2>, vector<4xf8E8M0FNU>, vector<32xf8E4M3FN>, vector<16xf32>
          vector.store %d, %acc[%7, %7, %7] : memref<1x1x16xf32, 5 : i64>, vector<16xf32>
        } {gemmc.unroll, gemm.role = "compute"}
        "gpu.barrier"() : () -> ()
      } {gemm.role = "k_loop"}
      %46 = arith.constant 4 : index
      %47 = arith.muli %9, %46 : index
      %48 = arith.addi %wave_row, %47 : index
      %lane_row = arith.addi %block_row, %48 : index
      %49 = arith.addi %wave_col, %8 : index
      %lane_col = arith.addi %block_col, %49 : index
      %50 = arith.constant 16 : index
      %51 = arith.constant 1 : index
      scf.for %g = %7 to %50 step %51 {
        %52 = arith.divui %g, %46 : index
        %53 = arith.constant 8 : index
        %54 = arith.muli %52, %53 : index
        %55 = arith.remui %g, %46 : index
        %56 = arith.addi %54, %55 : index
        %r = arith.addi %lane_row, %56 : index
        %57 = arith.cmpi ult, %r, %M : index
        %58 = arith.cmpi ult, %lane_col, %N : index
        %inside = arith.andi %57, %58 : i1
        scf.if %inside {
          %sum = memref.load %acc[%7, %7, %g] {gemm.role = "acc_read"} : memref<1x1x16xf32, 5 : i64>
          memref.store %sum, %C[%r, %lane_col] : memref<64x64xf32>
        }{gemm.role = "epilogue"}
      }
      "gpu.return"() : () -> ()
    }) {sym_name = "mxs", gpu.known_block_size = array<i32: 128, 2, 1>, gemm.arg_dims = [["M", "K"], ["K", "N"], ["M", "N"], ["M", "K/32"], ["K/32", "N"]], gemm.schedule = {block_m = 64 : i64, block_n = 64 : i64, block_k = 128 : i64, threads_x = 128 : i64, threads_y = 2 : i64, thread_m = 1 : i64, thread_n = 1 : i64, contiguous = 1 : i64, b_transposed = 1 : i64, instr = "v_mfma_scale_f32_32x32x64_f8f6f4", waves_m = 2 : i64, waves_n = 2 : i64, lane_regs = 32 : i64}} : () -> ()
  }) : () -> ()
}

// CHECK: typedef unsigned char v4uchar __attribute__((ext_vector_type(4)));
// CHECK: const unsigned char* __restrict__ SA,
// CHECK: const unsigned char sa = SA[(block_row + a_row < 63 ? block_row + a_row : 63) * 4 + blk];
// CHECK-NEXT: const v4uchar sa_vgpr = v4uchar{sa, sa, sa, sa};
// CHECK: const v16float d = __builtin_amdgcn_mfma_scale_f32_32x32x64_f8f6f4(__builtin_bit_cast(v8int, a), __builtin_bit_cast(v8int, b), c, 1, 0, 0, __builtin_bit_cast(int, sa_vgpr), 0, __builtin_bit_cast(int, sb_vgpr));
