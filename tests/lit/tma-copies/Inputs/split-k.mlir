builtin.module attributes {gemmc.target = "sm_90", gemmc.pipeline = "gemm-to-kernel,lds-tiling{block-m=64 block-n=64 block-k=64},register-tiling{thread-m=4 thread-n=4},matrix-cores{instr=wgmma_m64n64k16 waves-m=1 waves-n=1},vectorize{width=8},direct-to-lds{fallback=true},split-k{factor=3 reduce=atomic},multi-buffer{factor=4},pipeline{stages=4},wgmma-in-flight", gpu.container_module} {
  func.func @g(%A: memref<72x904xf16> {gemm.dims = ["M", "K"]}, %B: memref<904x72xf16> {gemm.dims = ["K", "N"]}, %C: memref<72x72xf32> {gemm.dims = ["M", "N"]}) attributes {gemm.matmul_spec = {a = 0 : i64, b = 1 : i64, c = 2 : i64, acc_type = f32}} {
    %M = arith.constant 72 : index
    %N = arith.constant 72 : index
    %0 = arith.constant 1 : index
    %1 = arith.constant 64 : index
    %grid_x = arith.ceildivui %N, %1 : index
    %grid_y = arith.ceildivui %M, %1 : index
    %block_x = arith.constant 128 : index
    %block_y = arith.constant 1 : index
    %splits = arith.constant 3 : index
    "gpu.launch_func"(%grid_x, %grid_y, %0, %block_x, %block_y, %0, %A, %B, %C) <{kernel = @g_kernels::@g_splitk_init, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 3, 0>}> : (index, index, index, index, index, index, memref<72x904xf16>, memref<904x72xf16>, memref<72x72xf32>) -> ()
    "gpu.launch_func"(%grid_x, %grid_y, %splits, %block_x, %block_y, %0, %A, %B, %C) <{kernel = @g_kernels::@g, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 3, 0>}> : (index, index, index, index, index, index, memref<72x904xf16>, memref<904x72xf16>, memref<72x72xf32>) -> ()
    func.return
  }
  "gpu.module"() <{sym_name = "g_kernels"}> ({
    "gpu.func"() <{function_type = (memref<72x904xf16>, memref<904x72xf16>, memref<72x72xf32>) -> (), kernel}> ({
    ^bb0(%A: memref<72x904xf16>, %B: memref<904x72xf16>, %C: memref<72x72xf32>):
      %bz = "gpu.block_id"() <{dimension = #gpu<dim z>}> : () -> index
      %M = arith.constant 72 : index
      %N = arith.constant 72 : index
      %K = arith.constant 904 : index
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
      %5 = arith.constant 128 : index
      %wg_lane = arith.remui %tx, %5 : index
      %wg_n = arith.divui %tx, %5 : index
      %6 = arith.constant 64 : index
      %wave_row = arith.muli %ty, %6 : index
      %wave_col = arith.muli %wg_n, %6 : index
      %acc = memref.alloca() : memref<1x1x32xf32, 5 : i64>
      %zero = arith.constant 0.000000e+00 : f32
      %zeros = vector.broadcast %zero : f32 to vector<32xf32>
      %7 = arith.constant 0 : index
      vector.store %zeros, %acc[%7, %7, %7] : memref<1x1x32xf32, 5 : i64>, vector<32xf32>
      %tile_a = memref.alloca() : memref<4x64x64xf16, 3 : i64>
      %tile_b = memref.alloca() : memref<4x64x64xf16, 3 : i64>
      %num_tiles = arith.ceildivui %K, %0 : index
      %8 = arith.constant 3 : index
      %k_chunk = arith.ceildivui %num_tiles, %8 : index
      %9 = arith.muli %bz, %k_chunk : index
      %10 = arith.addi %9, %k_chunk : index
      %k_end = arith.minui %10, %num_tiles : index
      %11 = arith.cmpi ult, %9, %k_end : index
      scf.if %11 {
        %12 = arith.subi %9, %9 : index
        %13 = arith.constant 4 : index
        %slot = arith.remui %12, %13 : index
        %k0 = arith.muli %9, %0 : index
        gemm.copy %A[%block_row, %k0] bounds[%M, %K] to %tile_a[%slot] tid %tid {gemm.role = "load_a", extents = array<i64: 64, 64>, width = 8 : i64, direct} : memref<72x904xf16>, memref<4x64x64xf16, 3 : i64>
        gemm.copy %B[%k0, %block_col] bounds[%K, %N] to %tile_b[%slot] tid %tid {gemm.role = "load_b", extents = array<i64: 64, 64>, width = 8 : i64, direct} : memref<904x72xf16>, memref<4x64x64xf16, 3 : i64>
      }{gemm.role = "prologue"}
      %14 = arith.constant 1 : index
      %t1 = arith.addi %9, %14 : index
      %15 = arith.cmpi ult, %t1, %k_end : index
      scf.if %15 {
        %16 = arith.subi %t1, %9 : index
        %17 = arith.constant 4 : index
        %slot_1 = arith.remui %16, %17 : index
        %k0_1 = arith.muli %t1, %0 : index
        gemm.copy %A[%block_row, %k0_1] bounds[%M, %K] to %tile_a[%slot_1] tid %tid {gemm.role = "load_a", extents = array<i64: 64, 64>, width = 8 : i64, direct} : memref<72x904xf16>, memref<4x64x64xf16, 3 : i64>
        gemm.copy %B[%k0_1, %block_col] bounds[%K, %N] to %tile_b[%slot_1] tid %tid {gemm.role = "load_b", extents = array<i64: 64, 64>, width = 8 : i64, direct} : memref<904x72xf16>, memref<4x64x64xf16, 3 : i64>
      }{gemm.role = "prologue"}
      "gpu.barrier"() : () -> ()
      scf.for %t = %9 to %k_end step %4 {
        %18 = arith.constant 2 : index
        %next_t = arith.addi %t, %18 : index
        %has_next = arith.cmpi ult, %next_t, %k_end : index
        %19 = arith.subi %t, %9 : index
        %20 = arith.constant 4 : index
        %slot_2 = arith.remui %19, %20 : index
        %21 = arith.constant 1 : index
        scf.for %wg = %7 to %21 step %21 {
          nvgpu.wgmma_fence
          %22 = arith.constant 16 : index
          scf.for %kk = %7 to %6 step %22 {
            %desc_a = nvgpu.wgmma_desc %tile_a[%slot_2, %wave_row, %kk] {major = "k", lbo = 16 : i32, sbo = 1024 : i32, swizzle = 128 : i32} : memref<4x64x64xf16, 3 : i64>
            %desc_b = nvgpu.wgmma_desc %tile_b[%slot_2, %kk, %wave_col] {major = "mn", lbo = 8192 : i32, sbo = 1024 : i32, swizzle = 128 : i32} : memref<4x64x64xf16, 3 : i64>
            %c = vector.load %acc[%7, %7, %7] : memref<1x1x32xf32, 5 : i64>, vector<32xf32>
            %d = nvgpu.wgmma_mma_async %desc_a, %desc_b, %c {m = 64 : i32, n = 64 : i32, k = 16 : i32, transB} : vector<32xf32>
            vector.store %d, %acc[%7, %7, %7] : memref<1x1x32xf32, 5 : i64>, vector<32xf32>
          } {gemmc.unroll}
          nvgpu.wgmma_commit_group
          nvgpu.wgmma_wait_group {numGroups = 1 : i32}
        } {gemm.role = "compute"}
        scf.if %has_next {
          %23 = arith.subi %next_t, %9 : index
          %24 = arith.constant 4 : index
          %slot_3 = arith.remui %23, %24 : index
          %k0_2 = arith.muli %next_t, %0 : index
          gemm.copy %A[%block_row, %k0_2] bounds[%M, %K] to %tile_a[%slot_3] tid %tid {gemm.role = "load_a", extents = array<i64: 64, 64>, width = 8 : i64, direct} : memref<72x904xf16>, memref<4x64x64xf16, 3 : i64>
          gemm.copy %B[%k0_2, %block_col] bounds[%K, %N] to %tile_b[%slot_3] tid %tid {gemm.role = "load_b", extents = array<i64: 64, 64>, width = 8 : i64, direct} : memref<904x72xf16>, memref<4x64x64xf16, 3 : i64>
        }{gemm.role = "prefetch"}
        "gpu.barrier"() : () -> ()
      } {gemm.role = "k_loop"}
      nvgpu.wgmma_wait_group {numGroups = 0 : i32}
      %25 = arith.constant 32 : index
      %26 = arith.divui %wg_lane, %25 : index
      %27 = arith.constant 16 : index
      %28 = arith.muli %26, %27 : index
      %29 = arith.constant 4 : index
      %30 = arith.divui %wg_lane, %29 : index
      %31 = arith.constant 8 : index
      %32 = arith.remui %30, %31 : index
      %33 = arith.addi %28, %32 : index
      %34 = arith.remui %wg_lane, %29 : index
      %35 = arith.constant 2 : index
      %36 = arith.muli %34, %35 : index
      %37 = arith.addi %wave_row, %33 : index
      %lane_row = arith.addi %block_row, %37 : index
      %38 = arith.addi %wave_col, %36 : index
      %lane_col = arith.addi %block_col, %38 : index
      %39 = arith.constant 1 : index
      %40 = arith.constant 2 : index
      scf.for %g = %7 to %25 step %40 {
        %41 = arith.divui %g, %35 : index
        %42 = arith.remui %41, %35 : index
        %43 = arith.muli %42, %31 : index
        %44 = arith.divui %g, %29 : index
        %45 = arith.muli %44, %31 : index
        %46 = arith.remui %g, %35 : index
        %47 = arith.addi %45, %46 : index
        %r = arith.addi %lane_row, %43 : index
        %c_1 = arith.addi %lane_col, %47 : index
        %48 = arith.cmpi ult, %r, %M : index
        %49 = arith.cmpi ult, %c_1, %N : index
        %inside = arith.andi %48, %49 : i1
        scf.if %inside {
          %sum = memref.load %acc[%7, %7, %g] {gemm.role = "acc_read"} : memref<1x1x32xf32, 5 : i64>
          %50 = "memref.atomic_rmw"(%sum, %C, %r, %c_1) <{kind = 0 : i64}> : (f32, memref<72x72xf32>, index, index) -> f32
        }{gemm.role = "epilogue"}
        %51 = arith.constant 1 : index
        %g_next = arith.addi %g, %51 : index
        %52 = arith.divui %g_next, %35 : index
        %53 = arith.remui %52, %35 : index
        %54 = arith.muli %53, %31 : index
        %55 = arith.divui %g_next, %29 : index
        %56 = arith.muli %55, %31 : index
        %57 = arith.remui %g_next, %35 : index
        %58 = arith.addi %56, %57 : index
        %r_1 = arith.addi %lane_row, %54 : index
        %c_2 = arith.addi %lane_col, %58 : index
        %59 = arith.cmpi ult, %r_1, %M : index
        %60 = arith.cmpi ult, %c_2, %N : index
        %inside_1 = arith.andi %59, %60 : i1
        scf.if %inside_1 {
          %sum_1 = memref.load %acc[%7, %7, %g_next] {gemm.role = "acc_read"} : memref<1x1x32xf32, 5 : i64>
          %61 = "memref.atomic_rmw"(%sum_1, %C, %r_1, %c_2) <{kind = 0 : i64}> : (f32, memref<72x72xf32>, index, index) -> f32
        }{gemm.role = "epilogue"}
      }
      "gpu.return"() : () -> ()
    }) {sym_name = "g", gpu.known_block_size = array<i32: 128, 1, 1>, gemm.arg_dims = [["M", "K"], ["K", "N"], ["M", "N"]], gemm.schedule = {block_m = 64 : i64, block_n = 64 : i64, block_k = 64 : i64, threads_x = 128 : i64, threads_y = 1 : i64, thread_m = 1 : i64, thread_n = 1 : i64, contiguous = 1 : i64, b_transposed = 0 : i64, instr = "wgmma_m64n64k16_f32_f16", waves_m = 1 : i64, waves_n = 1 : i64, lane_regs = 32 : i64}} : () -> ()
    "gpu.func"() <{function_type = (memref<72x904xf16>, memref<904x72xf16>, memref<72x72xf32>) -> (), kernel}> ({
    ^bb0(%A: memref<72x904xf16>, %B: memref<904x72xf16>, %C: memref<72x72xf32>):
      %M = arith.constant 72 : index
      %N = arith.constant 72 : index
      %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
      %tx = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %by = "gpu.block_id"() <{dimension = #gpu<dim y>}> : () -> index
      %ty = "gpu.thread_id"() <{dimension = #gpu<dim y>}> : () -> index
      %0 = arith.constant 64 : index
      %block_row = arith.muli %by, %0 : index
      %block_col = arith.muli %bx, %0 : index
      %1 = arith.constant 128 : index
      %wg_lane = arith.remui %tx, %1 : index
      %wg_n = arith.divui %tx, %1 : index
      %2 = arith.constant 64 : index
      %wave_row = arith.muli %ty, %2 : index
      %wave_col = arith.muli %wg_n, %2 : index
      %acc = memref.alloca() : memref<1x1x32xf32, 5 : i64>
      %zero = arith.constant 0.000000e+00 : f32
      %zeros = vector.broadcast %zero : f32 to vector<32xf32>
      %3 = arith.constant 0 : index
      vector.store %zeros, %acc[%3, %3, %3] : memref<1x1x32xf32, 5 : i64>, vector<32xf32>
      %4 = arith.constant 32 : index
      %5 = arith.divui %wg_lane, %4 : index
      %6 = arith.constant 16 : index
      %7 = arith.muli %5, %6 : index
      %8 = arith.constant 4 : index
      %9 = arith.divui %wg_lane, %8 : index
      %10 = arith.constant 8 : index
      %11 = arith.remui %9, %10 : index
      %12 = arith.addi %7, %11 : index
      %13 = arith.remui %wg_lane, %8 : index
      %14 = arith.constant 2 : index
      %15 = arith.muli %13, %14 : index
      %16 = arith.addi %wave_row, %12 : index
      %lane_row = arith.addi %block_row, %16 : index
      %17 = arith.addi %wave_col, %15 : index
      %lane_col = arith.addi %block_col, %17 : index
      %18 = arith.constant 1 : index
      %19 = arith.constant 2 : index
      scf.for %g = %3 to %4 step %19 {
        %20 = arith.divui %g, %14 : index
        %21 = arith.remui %20, %14 : index
        %22 = arith.muli %21, %10 : index
        %23 = arith.divui %g, %8 : index
        %24 = arith.muli %23, %10 : index
        %25 = arith.remui %g, %14 : index
        %26 = arith.addi %24, %25 : index
        %r = arith.addi %lane_row, %22 : index
        %c = arith.addi %lane_col, %26 : index
        %27 = arith.cmpi ult, %r, %M : index
        %28 = arith.cmpi ult, %c, %N : index
        %inside = arith.andi %27, %28 : i1
        scf.if %inside {
          %sum = memref.load %acc[%3, %3, %g] {gemm.role = "acc_read"} : memref<1x1x32xf32, 5 : i64>
          memref.store %sum, %C[%r, %c] : memref<72x72xf32>
        }{gemm.role = "epilogue"}
        %29 = arith.constant 1 : index
        %g_next = arith.addi %g, %29 : index
        %30 = arith.divui %g_next, %14 : index
        %31 = arith.remui %30, %14 : index
        %32 = arith.muli %31, %10 : index
        %33 = arith.divui %g_next, %8 : index
        %34 = arith.muli %33, %10 : index
        %35 = arith.remui %g_next, %14 : index
        %36 = arith.addi %34, %35 : index
        %r_1 = arith.addi %lane_row, %32 : index
        %c_1 = arith.addi %lane_col, %36 : index
        %37 = arith.cmpi ult, %r_1, %M : index
        %38 = arith.cmpi ult, %c_1, %N : index
        %inside_1 = arith.andi %37, %38 : i1
        scf.if %inside_1 {
          %sum_1 = memref.load %acc[%3, %3, %g_next] {gemm.role = "acc_read"} : memref<1x1x32xf32, 5 : i64>
          memref.store %sum_1, %C[%r_1, %c_1] : memref<72x72xf32>
        }{gemm.role = "epilogue"}
      }
      "gpu.return"() : () -> ()
    }) {sym_name = "g_splitk_init", gpu.known_block_size = array<i32: 128, 1, 1>, gemm.arg_dims = [["M", "K"], ["K", "N"], ["M", "N"]]} : () -> ()
  }) : () -> ()
}
