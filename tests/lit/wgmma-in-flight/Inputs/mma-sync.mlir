builtin.module attributes {gemmc.target = "sm_90", gemmc.pipeline = "gemm-to-kernel,lds-tiling{block-m=128 block-n=128 block-k=32},register-tiling{thread-m=4 thread-n=4},matrix-cores,vectorize{width=8},direct-to-lds{fallback=true},multi-buffer{factor=4},pipeline{stages=4}", gpu.container_module} {
  func.func @g(%A: memref<256x512xf16> {gemm.dims = ["M", "K"]}, %B: memref<512x256xf16> {gemm.dims = ["K", "N"]}, %C: memref<256x256xf32> {gemm.dims = ["M", "N"]}) attributes {gemm.matmul_spec = {a = 0 : i64, b = 1 : i64, c = 2 : i64, acc_type = f32}} {
    %M = arith.constant 256 : index
    %N = arith.constant 256 : index
    %0 = arith.constant 1 : index
    %1 = arith.constant 128 : index
    %grid_x = arith.ceildivui %N, %1 : index
    %grid_y = arith.ceildivui %M, %1 : index
    %block_x = arith.constant 64 : index
    %block_y = arith.constant 2 : index
    "gpu.launch_func"(%grid_x, %grid_y, %0, %block_x, %block_y, %0, %A, %B, %C) <{kernel = @g_kernels::@g, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 3, 0>}> : (index, index, index, index, index, index, memref<256x512xf16>, memref<512x256xf16>, memref<256x256xf32>) -> ()
    func.return
  }
  "gpu.module"() <{sym_name = "g_kernels"}> ({
    "gpu.func"() <{function_type = (memref<256x512xf16>, memref<512x256xf16>, memref<256x256xf32>) -> (), kernel}> ({
    ^bb0(%A: memref<256x512xf16>, %B: memref<512x256xf16>, %C: memref<256x256xf32>):
      %M = arith.constant 256 : index
      %N = arith.constant 256 : index
      %K = arith.constant 512 : index
      %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
      %tx = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %by = "gpu.block_id"() <{dimension = #gpu<dim y>}> : () -> index
      %ty = "gpu.thread_id"() <{dimension = #gpu<dim y>}> : () -> index
      %0 = arith.constant 128 : index
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
      %6 = arith.constant 64 : index
      %wave_row = arith.muli %ty, %6 : index
      %wave_col = arith.muli %wave_n, %6 : index
      %acc = memref.alloca() : memref<4x8x4xf32, 5 : i64>
      %zero = arith.constant 0.000000e+00 : f32
      %zeros = vector.broadcast %zero : f32 to vector<4xf32>
      %7 = arith.constant 0 : index
      %8 = arith.constant 4 : index
      %9 = arith.constant 1 : index
      scf.for %i = %7 to %8 step %9 {
        %10 = arith.constant 8 : index
        scf.for %j = %7 to %10 step %9 {
          vector.store %zeros, %acc[%i, %j, %7] : memref<4x8x4xf32, 5 : i64>, vector<4xf32>
        }
      }
      %11 = arith.divui %lane, %8 : index
      %12 = arith.remui %lane, %8 : index
      %13 = arith.constant 2 : index
      %a_k = arith.muli %12, %13 : index
      %b_k = arith.muli %12, %13 : index
      %a_row = arith.addi %wave_row, %11 : index
      %b_col = arith.addi %wave_col, %11 : index
      %tile_a = memref.alloca() : memref<4x128x32xf16, 3 : i64>
      %tile_b_t = memref.alloca() : memref<4x128x32xf16, 3 : i64>
      %14 = arith.constant 32 : index
      %num_tiles = arith.ceildivui %K, %14 : index
      %15 = arith.cmpi ult, %3, %num_tiles : index
      scf.if %15 {
        %16 = arith.constant 4 : index
        %slot = arith.constant 0 : index
        %k0 = arith.constant 0 : index
        gemm.copy %A[%block_row, %k0] bounds[%M, %K] to %tile_a[%slot] tid %tid {gemm.role = "load_a", extents = array<i64: 128, 32>, width = 8 : i64, direct} : memref<256x512xf16>, memref<4x128x32xf16, 3 : i64>
        gemm.copy %B[%k0, %block_col] bounds[%K, %N] to %tile_b_t[%slot] tid %tid {gemm.role = "load_b", extents = array<i64: 32, 128>, width = 8 : i64, transpose} : memref<512x256xf16>, memref<4x128x32xf16, 3 : i64>
      }{gemm.role = "prologue"}
      %t1 = arith.constant 1 : index
      %17 = arith.cmpi ult, %t1, %num_tiles : index
      scf.if %17 {
        %18 = arith.constant 4 : index
        %slot_1 = arith.constant 1 : index
        %k0_1 = arith.constant 32 : index
        gemm.copy %A[%block_row, %k0_1] bounds[%M, %K] to %tile_a[%slot_1] tid %tid {gemm.role = "load_a", extents = array<i64: 128, 32>, width = 8 : i64, direct} : memref<256x512xf16>, memref<4x128x32xf16, 3 : i64>
        gemm.copy %B[%k0_1, %block_col] bounds[%K, %N] to %tile_b_t[%slot_1] tid %tid {gemm.role = "load_b", extents = array<i64: 32, 128>, width = 8 : i64, transpose} : memref<512x256xf16>, memref<4x128x32xf16, 3 : i64>
      }{gemm.role = "prologue"}
      %t2 = arith.constant 2 : index
      %19 = arith.cmpi ult, %t2, %num_tiles : index
      scf.if %19 {
        %20 = arith.constant 4 : index
        %slot_2 = arith.constant 2 : index
        %k0_2 = arith.constant 64 : index
        gemm.copy %A[%block_row, %k0_2] bounds[%M, %K] to %tile_a[%slot_2] tid %tid {gemm.role = "load_a", extents = array<i64: 128, 32>, width = 8 : i64, direct} : memref<256x512xf16>, memref<4x128x32xf16, 3 : i64>
        gemm.copy %B[%k0_2, %block_col] bounds[%K, %N] to %tile_b_t[%slot_2] tid %tid {gemm.role = "load_b", extents = array<i64: 32, 128>, width = 8 : i64, transpose} : memref<512x256xf16>, memref<4x128x32xf16, 3 : i64>
      }{gemm.role = "prologue"}
      "gpu.barrier"() : () -> ()
      scf.for %t = %3 to %num_tiles step %4 {
        %21 = arith.constant 3 : index
        %next_t = arith.addi %t, %21 : index
        %has_next = arith.cmpi ult, %next_t, %num_tiles : index
        scf.if %has_next {
          %22 = arith.constant 4 : index
          %slot_3 = arith.remui %next_t, %22 : index
          %k0_3 = arith.muli %next_t, %14 : index
          gemm.copy %A[%block_row, %k0_3] bounds[%M, %K] to %tile_a[%slot_3] tid %tid {gemm.role = "load_a", extents = array<i64: 128, 32>, width = 8 : i64, direct} : memref<256x512xf16>, memref<4x128x32xf16, 3 : i64>
          gemm.copy %B[%k0_3, %block_col] bounds[%K, %N] to %tile_b_t[%slot_3] tid %tid {gemm.role = "load_b", extents = array<i64: 32, 128>, width = 8 : i64, transpose} : memref<512x256xf16>, memref<4x128x32xf16, 3 : i64>
        }{gemm.role = "prefetch"}
        %23 = arith.constant 4 : index
        %slot_4 = arith.remui %t, %23 : index
        %24 = arith.constant 16 : index
        scf.for %kk = %7 to %5 step %24 {
          %25 = arith.addi %kk, %a_k : index
          %a0 = vector.load %tile_a[%slot_4, %a_row, %25] : memref<4x128x32xf16, 3 : i64>, vector<2xf16>
          %26 = arith.constant 8 : index
          %27 = arith.addi %a_row, %26 : index
          %a1 = vector.load %tile_a[%slot_4, %27, %25] : memref<4x128x32xf16, 3 : i64>, vector<2xf16>
          %28 = arith.addi %25, %26 : index
          %a2 = vector.load %tile_a[%slot_4, %a_row, %28] : memref<4x128x32xf16, 3 : i64>, vector<2xf16>
          %29 = arith.addi %a_row, %26 : index
          %30 = arith.addi %25, %26 : index
          %a3 = vector.load %tile_a[%slot_4, %29, %30] : memref<4x128x32xf16, 3 : i64>, vector<2xf16>
          %a = vector.shuffle %a0, %a1 [0, 1, 2, 3] : vector<2xf16>, vector<2xf16>
          %a_1 = vector.shuffle %a2, %a3 [0, 1, 2, 3] : vector<2xf16>, vector<2xf16>
          %a_2 = vector.shuffle %a, %a_1 [0, 1, 2, 3, 4, 5, 6, 7] : vector<4xf16>, vector<4xf16>
          %31 = arith.addi %a_row, %24 : index
          %32 = arith.addi %kk, %a_k : index
          %a0_1 = vector.load %tile_a[%slot_4, %31, %32] : memref<4x128x32xf16, 3 : i64>, vector<2xf16>
          %33 = arith.addi %31, %26 : index
          %a1_1 = vector.load %tile_a[%slot_4, %33, %32] : memref<4x128x32xf16, 3 : i64>, vector<2xf16>
          %34 = arith.addi %32, %26 : index
          %a2_1 = vector.load %tile_a[%slot_4, %31, %34] : memref<4x128x32xf16, 3 : i64>, vector<2xf16>
          %35 = arith.addi %31, %26 : index
          %36 = arith.addi %32, %26 : index
          %a3_1 = vector.load %tile_a[%slot_4, %35, %36] : memref<4x128x32xf16, 3 : i64>, vector<2xf16>
          %a_3 = vector.shuffle %a0_1, %a1_1 [0, 1, 2, 3] : vector<2xf16>, vector<2xf16>
          %a_4 = vector.shuffle %a2_1, %a3_1 [0, 1, 2, 3] : vector<2xf16>, vector<2xf16>
          %a_5 = vector.shuffle %a_3, %a_4 [0, 1, 2, 3, 4, 5, 6, 7] : vector<4xf16>, vector<4xf16>
          %37 = arith.addi %a_row, %5 : index
          %38 = arith.addi %kk, %a_k : index
          %a0_2 = vector.load %tile_a[%slot_4, %37, %38] : memref<4x128x32xf16, 3 : i64>, vector<2xf16>
          %39 = arith.addi %37, %26 : index
          %a1_2 = vector.load %tile_a[%slot_4, %39, %38] : memref<4x128x32xf16, 3 : i64>, vector<2xf16>
          %40 = arith.addi %38, %26 : index
          %a2_2 = vector.load %tile_a[%slot_4, %37, %40] : memref<4x128x32xf16, 3 : i64>, vector<2xf16>
          %41 = arith.addi %37, %26 : index
          %42 = arith.addi %38, %26 : index
          %a3_2 = vector.load %tile_a[%slot_4, %41, %42] : memref<4x128x32xf16, 3 : i64>, vector<2xf16>
          %a_6 = vector.shuffle %a0_2, %a1_2 [0, 1, 2, 3] : vector<2xf16>, vector<2xf16>
          %a_7 = vector.shuffle %a2_2, %a3_2 [0, 1, 2, 3] : vector<2xf16>, vector<2xf16>
          %a_8 = vector.shuffle %a_6, %a_7 [0, 1, 2, 3, 4, 5, 6, 7] : vector<4xf16>, vector<4xf16>
          %43 = arith.constant 48 : index
          %44 = arith.addi %a_row, %43 : index
          %45 = arith.addi %kk, %a_k : index
          %a0_3 = vector.load %tile_a[%slot_4, %44, %45] : memref<4x128x32xf16, 3 : i64>, vector<2xf16>
          %46 = arith.addi %44, %26 : index
          %a1_3 = vector.load %tile_a[%slot_4, %46, %45] : memref<4x128x32xf16, 3 : i64>, vector<2xf16>
          %47 = arith.addi %45, %26 : index
          %a2_3 = vector.load %tile_a[%slot_4, %44, %47] : memref<4x128x32xf16, 3 : i64>, vector<2xf16>
          %48 = arith.addi %44, %26 : index
          %49 = arith.addi %45, %26 : index
          %a3_3 = vector.load %tile_a[%slot_4, %48, %49] : memref<4x128x32xf16, 3 : i64>, vector<2xf16>
          %a_9 = vector.shuffle %a0_3, %a1_3 [0, 1, 2, 3] : vector<2xf16>, vector<2xf16>
          %a_10 = vector.shuffle %a2_3, %a3_3 [0, 1, 2, 3] : vector<2xf16>, vector<2xf16>
          %a_11 = vector.shuffle %a_9, %a_10 [0, 1, 2, 3, 4, 5, 6, 7] : vector<4xf16>, vector<4xf16>
          %50 = arith.addi %kk, %b_k : index
          %b0 = vector.load %tile_b_t[%slot_4, %b_col, %50] : memref<4x128x32xf16, 3 : i64>, vector<2xf16>
          %51 = arith.addi %50, %26 : index
          %b1 = vector.load %tile_b_t[%slot_4, %b_col, %51] : memref<4x128x32xf16, 3 : i64>, vector<2xf16>
          %b = vector.shuffle %b0, %b1 [0, 1, 2, 3] : vector<2xf16>, vector<2xf16>
          %52 = arith.addi %b_col, %26 : index
          %53 = arith.addi %kk, %b_k : index
          %b0_1 = vector.load %tile_b_t[%slot_4, %52, %53] : memref<4x128x32xf16, 3 : i64>, vector<2xf16>
          %54 = arith.addi %53, %26 : index
          %b1_1 = vector.load %tile_b_t[%slot_4, %52, %54] : memref<4x128x32xf16, 3 : i64>, vector<2xf16>
          %b_1 = vector.shuffle %b0_1, %b1_1 [0, 1, 2, 3] : vector<2xf16>, vector<2xf16>
          %55 = arith.addi %b_col, %24 : index
          %56 = arith.addi %kk, %b_k : index
          %b0_2 = vector.load %tile_b_t[%slot_4, %55, %56] : memref<4x128x32xf16, 3 : i64>, vector<2xf16>
          %57 = arith.addi %56, %26 : index
          %b1_2 = vector.load %tile_b_t[%slot_4, %55, %57] : memref<4x128x32xf16, 3 : i64>, vector<2xf16>
          %b_2 = vector.shuffle %b0_2, %b1_2 [0, 1, 2, 3] : vector<2xf16>, vector<2xf16>
          %58 = arith.constant 24 : index
          %59 = arith.addi %b_col, %58 : index
          %60 = arith.addi %kk, %b_k : index
          %b0_3 = vector.load %tile_b_t[%slot_4, %59, %60] : memref<4x128x32xf16, 3 : i64>, vector<2xf16>
          %61 = arith.addi %60, %26 : index
          %b1_3 = vector.load %tile_b_t[%slot_4, %59, %61] : memref<4x128x32xf16, 3 : i64>, vector<2xf16>
          %b_3 = vector.shuffle %b0_3, %b1_3 [0, 1, 2, 3] : vector<2xf16>, vector<2xf16>
          %62 = arith.addi %b_col, %5 : index
          %63 = arith.addi %kk, %b_k : index
          %b0_4 = vector.load %tile_b_t[%slot_4, %62, %63] : memref<4x128x32xf16, 3 : i64>, vector<2xf16>
          %64 = arith.addi %63, %26 : index
          %b1_4 = vector.load %tile_b_t[%slot_4, %62, %64] : memref<4x128x32xf16, 3 : i64>, vector<2xf16>
          %b_4 = vector.shuffle %b0_4, %b1_4 [0, 1, 2, 3] : vector<2xf16>, vector<2xf16>
          %65 = arith.constant 40 : index
          %66 = arith.addi %b_col, %65 : index
          %67 = arith.addi %kk, %b_k : index
          %b0_5 = vector.load %tile_b_t[%slot_4, %66, %67] : memref<4x128x32xf16, 3 : i64>, vector<2xf16>
          %68 = arith.addi %67, %26 : index
          %b1_5 = vector.load %tile_b_t[%slot_4, %66, %68] : memref<4x128x32xf16, 3 : i64>, vector<2xf16>
          %b_5 = vector.shuffle %b0_5, %b1_5 [0, 1, 2, 3] : vector<2xf16>, vector<2xf16>
          %69 = arith.addi %b_col, %43 : index
          %70 = arith.addi %kk, %b_k : index
          %b0_6 = vector.load %tile_b_t[%slot_4, %69, %70] : memref<4x128x32xf16, 3 : i64>, vector<2xf16>
          %71 = arith.addi %70, %26 : index
          %b1_6 = vector.load %tile_b_t[%slot_4, %69, %71] : memref<4x128x32xf16, 3 : i64>, vector<2xf16>
          %b_6 = vector.shuffle %b0_6, %b1_6 [0, 1, 2, 3] : vector<2xf16>, vector<2xf16>
          %72 = arith.constant 56 : index
          %73 = arith.addi %b_col, %72 : index
          %74 = arith.addi %kk, %b_k : index
          %b0_7 = vector.load %tile_b_t[%slot_4, %73, %74] : memref<4x128x32xf16, 3 : i64>, vector<2xf16>
          %75 = arith.addi %74, %26 : index
          %b1_7 = vector.load %tile_b_t[%slot_4, %73, %75] : memref<4x128x32xf16, 3 : i64>, vector<2xf16>
          %b_7 = vector.shuffle %b0_7, %b1_7 [0, 1, 2, 3] : vector<2xf16>, vector<2xf16>
          %c = vector.load %acc[%7, %7, %7] : memref<4x8x4xf32, 5 : i64>, vector<4xf32>
          %d = nvgpu.mma_sync %a_2 * %b + %c {m = 16 : i32, n = 8 : i32, k = 16 : i32} : vector<8xf16>, vector<4xf16>, vector<4xf32>
          vector.store %d, %acc[%7, %7, %7] : memref<4x8x4xf32, 5 : i64>, vector<4xf32>
          %c_1 = vector.load %acc[%7, %9, %7] : memref<4x8x4xf32, 5 : i64>, vector<4xf32>
          %d_1 = nvgpu.mma_sync %a_2 * %b_1 + %c_1 {m = 16 : i32, n = 8 : i32, k = 16 : i32} : vector<8xf16>, vector<4xf16>, vector<4xf32>
          vector.store %d_1, %acc[%7, %9, %7] : memref<4x8x4xf32, 5 : i64>, vector<4xf32>
          %c_2 = vector.load %acc[%7, %13, %7] : memref<4x8x4xf32, 5 : i64>, vector<4xf32>
          %d_2 = nvgpu.mma_sync %a_2 * %b_2 + %c_2 {m = 16 : i32, n = 8 : i32, k = 16 : i32} : vector<8xf16>, vector<4xf16>, vector<4xf32>
          vector.store %d_2, %acc[%7, %13, %7] : memref<4x8x4xf32, 5 : i64>, vector<4xf32>
          %76 = arith.constant 3 : index
          %c_3 = vector.load %acc[%7, %76, %7] : memref<4x8x4xf32, 5 : i64>, vector<4xf32>
          %d_3 = nvgpu.mma_sync %a_2 * %b_3 + %c_3 {m = 16 : i32, n = 8 : i32, k = 16 : i32} : vector<8xf16>, vector<4xf16>, vector<4xf32>
          vector.store %d_3, %acc[%7, %76, %7] : memref<4x8x4xf32, 5 : i64>, vector<4xf32>
          %c_4 = vector.load %acc[%7, %8, %7] : memref<4x8x4xf32, 5 : i64>, vector<4xf32>
          %d_4 = nvgpu.mma_sync %a_2 * %b_4 + %c_4 {m = 16 : i32, n = 8 : i32, k = 16 : i32} : vector<8xf16>, vector<4xf16>, vector<4xf32>
          vector.store %d_4, %acc[%7, %8, %7] : memref<4x8x4xf32, 5 : i64>, vector<4xf32>
          %77 = arith.constant 5 : index
          %c_5 = vector.load %acc[%7, %77, %7] : memref<4x8x4xf32, 5 : i64>, vector<4xf32>
          %d_5 = nvgpu.mma_sync %a_2 * %b_5 + %c_5 {m = 16 : i32, n = 8 : i32, k = 16 : i32} : vector<8xf16>, vector<4xf16>, vector<4xf32>
          vector.store %d_5, %acc[%7, %77, %7] : memref<4x8x4xf32, 5 : i64>, vector<4xf32>
          %78 = arith.constant 6 : index
          %c_6 = vector.load %acc[%7, %78, %7] : memref<4x8x4xf32, 5 : i64>, vector<4xf32>
          %d_6 = nvgpu.mma_sync %a_2 * %b_6 + %c_6 {m = 16 : i32, n = 8 : i32, k = 16 : i32} : vector<8xf16>, vector<4xf16>, vector<4xf32>
          vector.store %d_6, %acc[%7, %78, %7] : memref<4x8x4xf32, 5 : i64>, vector<4xf32>
          %79 = arith.constant 7 : index
          %c_7 = vector.load %acc[%7, %79, %7] : memref<4x8x4xf32, 5 : i64>, vector<4xf32>
          %d_7 = nvgpu.mma_sync %a_2 * %b_7 + %c_7 {m = 16 : i32, n = 8 : i32, k = 16 : i32} : vector<8xf16>, vector<4xf16>, vector<4xf32>
          vector.store %d_7, %acc[%7, %79, %7] : memref<4x8x4xf32, 5 : i64>, vector<4xf32>
          %c_8 = vector.load %acc[%9, %7, %7] : memref<4x8x4xf32, 5 : i64>, vector<4xf32>
          %d_8 = nvgpu.mma_sync %a_5 * %b + %c_8 {m = 16 : i32, n = 8 : i32, k = 16 : i32} : vector<8xf16>, vector<4xf16>, vector<4xf32>
          vector.store %d_8, %acc[%9, %7, %7] : memref<4x8x4xf32, 5 : i64>, vector<4xf32>
          %c_9 = vector.load %acc[%9, %9, %7] : memref<4x8x4xf32, 5 : i64>, vector<4xf32>
          %d_9 = nvgpu.mma_sync %a_5 * %b_1 + %c_9 {m = 16 : i32, n = 8 : i32, k = 16 : i32} : vector<8xf16>, vector<4xf16>, vector<4xf32>
          vector.store %d_9, %acc[%9, %9, %7] : memref<4x8x4xf32, 5 : i64>, vector<4xf32>
          %c_10 = vector.load %acc[%9, %13, %7] : memref<4x8x4xf32, 5 : i64>, vector<4xf32>
          %d_10 = nvgpu.mma_sync %a_5 * %b_2 + %c_10 {m = 16 : i32, n = 8 : i32, k = 16 : i32} : vector<8xf16>, vector<4xf16>, vector<4xf32>
          vector.store %d_10, %acc[%9, %13, %7] : memref<4x8x4xf32, 5 : i64>, vector<4xf32>
          %c_11 = vector.load %acc[%9, %76, %7] : memref<4x8x4xf32, 5 : i64>, vector<4xf32>
          %d_11 = nvgpu.mma_sync %a_5 * %b_3 + %c_11 {m = 16 : i32, n = 8 : i32, k = 16 : i32} : vector<8xf16>, vector<4xf16>, vector<4xf32>
          vector.store %d_11, %acc[%9, %76, %7] : memref<4x8x4xf32, 5 : i64>, vector<4xf32>
          %c_12 = vector.load %acc[%9, %8, %7] : memref<4x8x4xf32, 5 : i64>, vector<4xf32>
          %d_12 = nvgpu.mma_sync %a_5 * %b_4 + %c_12 {m = 16 : i32, n = 8 : i32, k = 16 : i32} : vector<8xf16>, vector<4xf16>, vector<4xf32>
          vector.store %d_12, %acc[%9, %8, %7] : memref<4x8x4xf32, 5 : i64>, vector<4xf32>
          %c_13 = vector.load %acc[%9, %77, %7] : memref<4x8x4xf32, 5 : i64>, vector<4xf32>
          %d_13 = nvgpu.mma_sync %a_5 * %b_5 + %c_13 {m = 16 : i32, n = 8 : i32, k = 16 : i32} : vector<8xf16>, vector<4xf16>, vector<4xf32>
          vector.store %d_13, %acc[%9, %77, %7] : memref<4x8x4xf32, 5 : i64>, vector<4xf32>
          %c_14 = vector.load %acc[%9, %78, %7] : memref<4x8x4xf32, 5 : i64>, vector<4xf32>
          %d_14 = nvgpu.mma_sync %a_5 * %b_6 + %c_14 {m = 16 : i32, n = 8 : i32, k = 16 : i32} : vector<8xf16>, vector<4xf16>, vector<4xf32>
          vector.store %d_14, %acc[%9, %78, %7] : memref<4x8x4xf32, 5 : i64>, vector<4xf32>
          %c_15 = vector.load %acc[%9, %79, %7] : memref<4x8x4xf32, 5 : i64>, vector<4xf32>
          %d_15 = nvgpu.mma_sync %a_5 * %b_7 + %c_15 {m = 16 : i32, n = 8 : i32, k = 16 : i32} : vector<8xf16>, vector<4xf16>, vector<4xf32>
          vector.store %d_15, %acc[%9, %79, %7] : memref<4x8x4xf32, 5 : i64>, vector<4xf32>
          %c_16 = vector.load %acc[%13, %7, %7] : memref<4x8x4xf32, 5 : i64>, vector<4xf32>
          %d_16 = nvgpu.mma_sync %a_8 * %b + %c_16 {m = 16 : i32, n = 8 : i32, k = 16 : i32} : vector<8xf16>, vector<4xf16>, vector<4xf32>
          vector.store %d_16, %acc[%13, %7, %7] : memref<4x8x4xf32, 5 : i64>, vector<4xf32>
          %c_17 = vector.load %acc[%13, %9, %7] : memref<4x8x4xf32, 5 : i64>, vector<4xf32>
          %d_17 = nvgpu.mma_sync %a_8 * %b_1 + %c_17 {m = 16 : i32, n = 8 : i32, k = 16 : i32} : vector<8xf16>, vector<4xf16>, vector<4xf32>
          vector.store %d_17, %acc[%13, %9, %7] : memref<4x8x4xf32, 5 : i64>, vector<4xf32>
          %c_18 = vector.load %acc[%13, %13, %7] : memref<4x8x4xf32, 5 : i64>, vector<4xf32>
          %d_18 = nvgpu.mma_sync %a_8 * %b_2 + %c_18 {m = 16 : i32, n = 8 : i32, k = 16 : i32} : vector<8xf16>, vector<4xf16>, vector<4xf32>
          vector.store %d_18, %acc[%13, %13, %7] : memref<4x8x4xf32, 5 : i64>, vector<4xf32>
          %c_19 = vector.load %acc[%13, %76, %7] : memref<4x8x4xf32, 5 : i64>, vector<4xf32>
          %d_19 = nvgpu.mma_sync %a_8 * %b_3 + %c_19 {m = 16 : i32, n = 8 : i32, k = 16 : i32} : vector<8xf16>, vector<4xf16>, vector<4xf32>
          vector.store %d_19, %acc[%13, %76, %7] : memref<4x8x4xf32, 5 : i64>, vector<4xf32>
          %c_20 = vector.load %acc[%13, %8, %7] : memref<4x8x4xf32, 5 : i64>, vector<4xf32>
          %d_20 = nvgpu.mma_sync %a_8 * %b_4 + %c_20 {m = 16 : i32, n = 8 : i32, k = 16 : i32} : vector<8xf16>, vector<4xf16>, vector<4xf32>
          vector.store %d_20, %acc[%13, %8, %7] : memref<4x8x4xf32, 5 : i64>, vector<4xf32>
          %c_21 = vector.load %acc[%13, %77, %7] : memref<4x8x4xf32, 5 : i64>, vector<4xf32>
          %d_21 = nvgpu.mma_sync %a_8 * %b_5 + %c_21 {m = 16 : i32, n = 8 : i32, k = 16 : i32} : vector<8xf16>, vector<4xf16>, vector<4xf32>
          vector.store %d_21, %acc[%13, %77, %7] : memref<4x8x4xf32, 5 : i64>, vector<4xf32>
          %c_22 = vector.load %acc[%13, %78, %7] : memref<4x8x4xf32, 5 : i64>, vector<4xf32>
          %d_22 = nvgpu.mma_sync %a_8 * %b_6 + %c_22 {m = 16 : i32, n = 8 : i32, k = 16 : i32} : vector<8xf16>, vector<4xf16>, vector<4xf32>
          vector.store %d_22, %acc[%13, %78, %7] : memref<4x8x4xf32, 5 : i64>, vector<4xf32>
          %c_23 = vector.load %acc[%13, %79, %7] : memref<4x8x4xf32, 5 : i64>, vector<4xf32>
          %d_23 = nvgpu.mma_sync %a_8 * %b_7 + %c_23 {m = 16 : i32, n = 8 : i32, k = 16 : i32} : vector<8xf16>, vector<4xf16>, vector<4xf32>
          vector.store %d_23, %acc[%13, %79, %7] : memref<4x8x4xf32, 5 : i64>, vector<4xf32>
          %c_24 = vector.load %acc[%76, %7, %7] : memref<4x8x4xf32, 5 : i64>, vector<4xf32>
          %d_24 = nvgpu.mma_sync %a_11 * %b + %c_24 {m = 16 : i32, n = 8 : i32, k = 16 : i32} : vector<8xf16>, vector<4xf16>, vector<4xf32>
          vector.store %d_24, %acc[%76, %7, %7] : memref<4x8x4xf32, 5 : i64>, vector<4xf32>
          %c_25 = vector.load %acc[%76, %9, %7] : memref<4x8x4xf32, 5 : i64>, vector<4xf32>
          %d_25 = nvgpu.mma_sync %a_11 * %b_1 + %c_25 {m = 16 : i32, n = 8 : i32, k = 16 : i32} : vector<8xf16>, vector<4xf16>, vector<4xf32>
          vector.store %d_25, %acc[%76, %9, %7] : memref<4x8x4xf32, 5 : i64>, vector<4xf32>
          %c_26 = vector.load %acc[%76, %13, %7] : memref<4x8x4xf32, 5 : i64>, vector<4xf32>
          %d_26 = nvgpu.mma_sync %a_11 * %b_2 + %c_26 {m = 16 : i32, n = 8 : i32, k = 16 : i32} : vector<8xf16>, vector<4xf16>, vector<4xf32>
          vector.store %d_26, %acc[%76, %13, %7] : memref<4x8x4xf32, 5 : i64>, vector<4xf32>
          %c_27 = vector.load %acc[%76, %76, %7] : memref<4x8x4xf32, 5 : i64>, vector<4xf32>
          %d_27 = nvgpu.mma_sync %a_11 * %b_3 + %c_27 {m = 16 : i32, n = 8 : i32, k = 16 : i32} : vector<8xf16>, vector<4xf16>, vector<4xf32>
          vector.store %d_27, %acc[%76, %76, %7] : memref<4x8x4xf32, 5 : i64>, vector<4xf32>
          %c_28 = vector.load %acc[%76, %8, %7] : memref<4x8x4xf32, 5 : i64>, vector<4xf32>
          %d_28 = nvgpu.mma_sync %a_11 * %b_4 + %c_28 {m = 16 : i32, n = 8 : i32, k = 16 : i32} : vector<8xf16>, vector<4xf16>, vector<4xf32>
          vector.store %d_28, %acc[%76, %8, %7] : memref<4x8x4xf32, 5 : i64>, vector<4xf32>
          %c_29 = vector.load %acc[%76, %77, %7] : memref<4x8x4xf32, 5 : i64>, vector<4xf32>
          %d_29 = nvgpu.mma_sync %a_11 * %b_5 + %c_29 {m = 16 : i32, n = 8 : i32, k = 16 : i32} : vector<8xf16>, vector<4xf16>, vector<4xf32>
          vector.store %d_29, %acc[%76, %77, %7] : memref<4x8x4xf32, 5 : i64>, vector<4xf32>
          %c_30 = vector.load %acc[%76, %78, %7] : memref<4x8x4xf32, 5 : i64>, vector<4xf32>
          %d_30 = nvgpu.mma_sync %a_11 * %b_6 + %c_30 {m = 16 : i32, n = 8 : i32, k = 16 : i32} : vector<8xf16>, vector<4xf16>, vector<4xf32>
          vector.store %d_30, %acc[%76, %78, %7] : memref<4x8x4xf32, 5 : i64>, vector<4xf32>
          %c_31 = vector.load %acc[%76, %79, %7] : memref<4x8x4xf32, 5 : i64>, vector<4xf32>
          %d_31 = nvgpu.mma_sync %a_11 * %b_7 + %c_31 {m = 16 : i32, n = 8 : i32, k = 16 : i32} : vector<8xf16>, vector<4xf16>, vector<4xf32>
          vector.store %d_31, %acc[%76, %79, %7] : memref<4x8x4xf32, 5 : i64>, vector<4xf32>
        } {gemmc.unroll, gemm.role = "compute"}
        "gpu.barrier"() : () -> ()
      } {gemm.role = "k_loop"}
      %80 = arith.muli %12, %13 : index
      %81 = arith.addi %wave_row, %11 : index
      %lane_row = arith.addi %block_row, %81 : index
      %82 = arith.addi %wave_col, %80 : index
      %lane_col = arith.addi %block_col, %82 : index
      scf.for %ti = %7 to %8 step %9 {
        %83 = arith.constant 8 : index
        scf.for %tj = %7 to %83 step %9 {
          scf.for %g = %7 to %8 step %9 {
            %84 = arith.divui %g, %13 : index
            %85 = arith.muli %84, %83 : index
            %86 = arith.remui %g, %13 : index
            %87 = arith.constant 16 : index
            %88 = arith.muli %ti, %87 : index
            %89 = arith.addi %88, %85 : index
            %r = arith.addi %lane_row, %89 : index
            %90 = arith.muli %tj, %83 : index
            %91 = arith.addi %90, %86 : index
            %c_32 = arith.addi %lane_col, %91 : index
            %92 = arith.cmpi ult, %r, %M : index
            %93 = arith.cmpi ult, %c_32, %N : index
            %inside = arith.andi %92, %93 : i1
            scf.if %inside {
              %sum = memref.load %acc[%ti, %tj, %g] {gemm.role = "acc_read"} : memref<4x8x4xf32, 5 : i64>
              memref.store %sum, %C[%r, %c_32] : memref<256x256xf32>
            }{gemm.role = "epilogue"}
          }
        }
      }
      "gpu.return"() : () -> ()
    }) {sym_name = "g", gpu.known_block_size = array<i32: 64, 2, 1>, gemm.arg_dims = [["M", "K"], ["K", "N"], ["M", "N"]], gemm.schedule = {block_m = 128 : i64, block_n = 128 : i64, block_k = 32 : i64, threads_x = 64 : i64, threads_y = 2 : i64, thread_m = 4 : i64, thread_n = 8 : i64, contiguous = 1 : i64, b_transposed = 1 : i64, instr = "mma_m16n8k16_f32_f16", waves_m = 2 : i64, waves_n = 2 : i64, lane_regs = 160 : i64}} : () -> ()
  }) : () -> ()
}
