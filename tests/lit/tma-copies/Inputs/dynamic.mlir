builtin.module attributes {gemmc.target = "sm_90", gemmc.pipeline = "gemm-to-kernel,assume-aligned{multiple=8},lds-tiling{block-m=64 block-n=64 block-k=64},register-tiling{thread-m=4 thread-n=4},matrix-cores{instr=wgmma_m64n64k16 waves-m=1 waves-n=1},vectorize{width=8},direct-to-lds{fallback=true},multi-buffer{factor=4},pipeline{stages=4},wgmma-in-flight", gpu.container_module} {
  func.func @g(%A: memref<?x?xf16> {gemm.dims = ["M", "K"]}, %B: memref<?x?xf16> {gemm.dims = ["K", "N"]}, %C: memref<?x?xf32> {gemm.dims = ["M", "N"]}) attributes {gemm.matmul_spec = {a = 0 : i64, b = 1 : i64, c = 2 : i64, acc_type = f32}} {
    %0 = arith.constant 0 : index
    %M = memref.dim %C, %0 : memref<?x?xf32>
    %1 = arith.constant 1 : index
    %N = memref.dim %C, %1 : memref<?x?xf32>
    %2 = arith.constant 64 : index
    %grid_x = arith.ceildivui %N, %2 : index
    %grid_y = arith.ceildivui %M, %2 : index
    %block_x = arith.constant 128 : index
    %block_y = arith.constant 1 : index
    "gpu.launch_func"(%grid_x, %grid_y, %1, %block_x, %block_y, %1, %A, %B, %C) <{kernel = @g_kernels::@g, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 3, 0>}> : (index, index, index, index, index, index, memref<?x?xf16>, memref<?x?xf16>, memref<?x?xf32>) -> ()
    func.return
  }
  "gpu.module"() <{sym_name = "g_kernels"}> ({
    "gpu.func"() <{function_type = (memref<?x?xf16>, memref<?x?xf16>, memref<?x?xf32>) -> (), kernel}> ({
    ^bb0(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>):
      gemm.assume_rows_aligned %C {multiple = 8 : i64} : memref<?x?xf32>
      gemm.assume_rows_aligned %B {multiple = 8 : i64} : memref<?x?xf16>
      gemm.assume_rows_aligned %A {multiple = 8 : i64} : memref<?x?xf16>
      %0 = arith.constant 0 : index
      %M = memref.dim %C, %0 : memref<?x?xf32>
      %1 = arith.constant 1 : index
      %N = memref.dim %C, %1 : memref<?x?xf32>
      %K = memref.dim %A, %1 : memref<?x?xf16>
      %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
      %tx = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %by = "gpu.block_id"() <{dimension = #gpu<dim y>}> : () -> index
      %ty = "gpu.thread_id"() <{dimension = #gpu<dim y>}> : () -> index
      %2 = arith.constant 64 : index
      %block_row = arith.muli %by, %2 : index
      %block_col = arith.muli %bx, %2 : index
      %3 = arith.constant 128 : index
      %4 = arith.muli %ty, %3 : index
      %tid = arith.addi %4, %tx : index
      %5 = arith.constant 0 : index
      %6 = arith.constant 1 : index
      %7 = arith.constant 128 : index
      %wg_lane = arith.remui %tx, %7 : index
      %wg_n = arith.divui %tx, %7 : index
      %8 = arith.constant 64 : index
      %wave_row = arith.muli %ty, %8 : index
      %wave_col = arith.muli %wg_n, %8 : index
      %acc = memref.alloca() : memref<1x1x32xf32, 5 : i64>
      %zero = arith.constant 0.000000e+00 : f32
      %zeros = vector.broadcast %zero : f32 to vector<32xf32>
      %9 = arith.constant 0 : index
      vector.store %zeros, %acc[%9, %9, %9] : memref<1x1x32xf32, 5 : i64>, vector<32xf32>
      %tile_a = memref.alloca() : memref<4x64x64xf16, 3 : i64>
      %tile_b = memref.alloca() : memref<4x64x64xf16, 3 : i64>
      %num_tiles = arith.ceildivui %K, %2 : index
      %10 = arith.cmpi ult, %5, %num_tiles : index
      scf.if %10 {
        %11 = arith.constant 4 : index
        %slot = arith.constant 0 : index
        %k0 = arith.constant 0 : index
        gemm.copy %A[%block_row, %k0] bounds[%M, %K] to %tile_a[%slot] tid %tid {gemm.role = "load_a", extents = array<i64: 64, 64>, width = 8 : i64, direct} : memref<?x?xf16>, memref<4x64x64xf16, 3 : i64>
        gemm.copy %B[%k0, %block_col] bounds[%K, %N] to %tile_b[%slot] tid %tid {gemm.role = "load_b", extents = array<i64: 64, 64>, width = 8 : i64, direct} : memref<?x?xf16>, memref<4x64x64xf16, 3 : i64>
      }{gemm.role = "prologue"}
      %t1 = arith.constant 1 : index
      %12 = arith.cmpi ult, %t1, %num_tiles : index
      scf.if %12 {
        %13 = arith.constant 4 : index
        %slot_1 = arith.constant 1 : index
        %k0_1 = arith.constant 64 : index
        gemm.copy %A[%block_row, %k0_1] bounds[%M, %K] to %tile_a[%slot_1] tid %tid {gemm.role = "load_a", extents = array<i64: 64, 64>, width = 8 : i64, direct} : memref<?x?xf16>, memref<4x64x64xf16, 3 : i64>
        gemm.copy %B[%k0_1, %block_col] bounds[%K, %N] to %tile_b[%slot_1] tid %tid {gemm.role = "load_b", extents = array<i64: 64, 64>, width = 8 : i64, direct} : memref<?x?xf16>, memref<4x64x64xf16, 3 : i64>
      }{gemm.role = "prologue"}
      "gpu.barrier"() : () -> ()
      scf.for %t = %5 to %num_tiles step %6 {
        %14 = arith.constant 2 : index
        %next_t = arith.addi %t, %14 : index
        %has_next = arith.cmpi ult, %next_t, %num_tiles : index
        %15 = arith.constant 4 : index
        %slot_2 = arith.remui %t, %15 : index
        %16 = arith.constant 1 : index
        scf.for %wg = %9 to %16 step %16 {
          nvgpu.wgmma_fence
          %17 = arith.constant 16 : index
          scf.for %kk = %9 to %8 step %17 {
            %desc_a = nvgpu.wgmma_desc %tile_a[%slot_2, %wave_row, %kk] {major = "k", lbo = 16 : i32, sbo = 1024 : i32, swizzle = 128 : i32} : memref<4x64x64xf16, 3 : i64>
            %desc_b = nvgpu.wgmma_desc %tile_b[%slot_2, %kk, %wave_col] {major = "mn", lbo = 8192 : i32, sbo = 1024 : i32, swizzle = 128 : i32} : memref<4x64x64xf16, 3 : i64>
            %c = vector.load %acc[%9, %9, %9] : memref<1x1x32xf32, 5 : i64>, vector<32xf32>
            %d = nvgpu.wgmma_mma_async %desc_a, %desc_b, %c {m = 64 : i32, n = 64 : i32, k = 16 : i32, transB} : vector<32xf32>
            vector.store %d, %acc[%9, %9, %9] : memref<1x1x32xf32, 5 : i64>, vector<32xf32>
          } {gemmc.unroll}
          nvgpu.wgmma_commit_group
          nvgpu.wgmma_wait_group {numGroups = 1 : i32}
        } {gemm.role = "compute"}
        scf.if %has_next {
          %18 = arith.constant 4 : index
          %slot_3 = arith.remui %next_t, %18 : index
          %k0_2 = arith.muli %next_t, %2 : index
          gemm.copy %A[%block_row, %k0_2] bounds[%M, %K] to %tile_a[%slot_3] tid %tid {gemm.role = "load_a", extents = array<i64: 64, 64>, width = 8 : i64, direct} : memref<?x?xf16>, memref<4x64x64xf16, 3 : i64>
          gemm.copy %B[%k0_2, %block_col] bounds[%K, %N] to %tile_b[%slot_3] tid %tid {gemm.role = "load_b", extents = array<i64: 64, 64>, width = 8 : i64, direct} : memref<?x?xf16>, memref<4x64x64xf16, 3 : i64>
        }{gemm.role = "prefetch"}
        "gpu.barrier"() : () -> ()
      } {gemm.role = "k_loop"}
      nvgpu.wgmma_wait_group {numGroups = 0 : i32}
      %19 = arith.constant 32 : index
      %20 = arith.divui %wg_lane, %19 : index
      %21 = arith.constant 16 : index
      %22 = arith.muli %20, %21 : index
      %23 = arith.constant 4 : index
      %24 = arith.divui %wg_lane, %23 : index
      %25 = arith.constant 8 : index
      %26 = arith.remui %24, %25 : index
      %27 = arith.addi %22, %26 : index
      %28 = arith.remui %wg_lane, %23 : index
      %29 = arith.constant 2 : index
      %30 = arith.muli %28, %29 : index
      %31 = arith.addi %wave_row, %27 : index
      %lane_row = arith.addi %block_row, %31 : index
      %32 = arith.addi %wave_col, %30 : index
      %lane_col = arith.addi %block_col, %32 : index
      %33 = arith.constant 1 : index
      %34 = arith.constant 2 : index
      scf.for %g = %9 to %19 step %34 {
        %35 = arith.divui %g, %29 : index
        %36 = arith.remui %35, %29 : index
        %37 = arith.muli %36, %25 : index
        %38 = arith.divui %g, %23 : index
        %39 = arith.muli %38, %25 : index
        %40 = arith.remui %g, %29 : index
        %41 = arith.addi %39, %40 : index
        %r = arith.addi %lane_row, %37 : index
        %c_1 = arith.addi %lane_col, %41 : index
        %42 = arith.cmpi ult, %r, %M : index
        %43 = arith.cmpi ult, %c_1, %N : index
        %inside = arith.andi %42, %43 : i1
        %44 = arith.constant 1 : index
        %c_next = arith.addi %c_1, %44 : index
        %45 = arith.cmpi uge, %r, %M : index
        %46 = arith.cmpi uge, %c_next, %N : index
        %edge = arith.ori %45, %46 : i1
        scf.if %edge {
          scf.if %inside {
            %sum = memref.load %acc[%9, %9, %g] {gemm.role = "acc_read"} : memref<1x1x32xf32, 5 : i64>
            memref.store %sum, %C[%r, %c_1] : memref<?x?xf32>
          }{gemm.role = "epilogue"}
          %47 = arith.constant 1 : index
          %g_next = arith.addi %g, %47 : index
          %48 = arith.divui %g_next, %29 : index
          %49 = arith.remui %48, %29 : index
          %50 = arith.muli %49, %25 : index
          %51 = arith.divui %g_next, %23 : index
          %52 = arith.muli %51, %25 : index
          %53 = arith.remui %g_next, %29 : index
          %54 = arith.addi %52, %53 : index
          %r_1 = arith.addi %lane_row, %50 : index
          %c_2 = arith.addi %lane_col, %54 : index
          %55 = arith.cmpi ult, %r_1, %M : index
          %56 = arith.cmpi ult, %c_2, %N : index
          %inside_1 = arith.andi %55, %56 : i1
          scf.if %inside_1 {
            %sum_1 = memref.load %acc[%9, %9, %g_next] {gemm.role = "acc_read"} : memref<1x1x32xf32, 5 : i64>
            memref.store %sum_1, %C[%r_1, %c_2] : memref<?x?xf32>
          }{gemm.role = "epilogue"}
        } else {
          %pair = vector.load %acc[%9, %9, %g] {gemm.role = "acc_read"} : memref<1x1x32xf32, 5 : i64>, vector<2xf32>
          %sum0 = vector.extract %pair[0] : f32 from vector<2xf32>
          %sum1 = vector.extract %pair[1] : f32 from vector<2xf32>
          %57 = arith.constant 0.000000e+00 : f32
          %out_pair = vector.broadcast %57 : f32 to vector<2xf32>
          %out_pair_1 = vector.insert %sum0, %out_pair [0] : f32 into vector<2xf32>
          %out_pair_2 = vector.insert %sum1, %out_pair_1 [1] : f32 into vector<2xf32>
          vector.store %out_pair_2, %C[%r, %c_1] : memref<?x?xf32>, vector<2xf32>
        }{gemm.role = "epilogue_pairs"}
      }
      "gpu.return"() : () -> ()
    }) {sym_name = "g", gpu.known_block_size = array<i32: 128, 1, 1>, gemm.arg_dims = [["M", "K"], ["K", "N"], ["M", "N"]], gemm.schedule = {block_m = 64 : i64, block_n = 64 : i64, block_k = 64 : i64, threads_x = 128 : i64, threads_y = 1 : i64, thread_m = 1 : i64, thread_n = 1 : i64, contiguous = 1 : i64, b_transposed = 0 : i64, instr = "wgmma_m64n64k16_f32_f16", waves_m = 1 : i64, waves_n = 1 : i64, lane_regs = 32 : i64}} : () -> ()
  }) : () -> ()
}
