builtin.module attributes {gemmc.target = "sm_90", gemmc.pipeline = "gemm-to-kernel,lds-tiling{block-m=64 block-n=64 block-k=64},register-tiling{thread-m=4 thread-n=4},matrix-cores{instr=wgmma_m64n64k16 waves-m=1 waves-n=1},vectorize{width=8},direct-to-lds{fallback=true},split-k{factor=2 reduce=atomic},multi-buffer{factor=4},pipeline{stages=4},wgmma-in-flight", gpu.container_module} {
  func.func @bmm(%A: memref<3x131x200xf16> {gemm.dims = ["Bt", "M", "K"]}, %B: memref<200x72xf16> {gemm.dims = ["K", "N"]}, %C: memref<3x131x72xf32> {gemm.dims = ["Bt", "M", "N"]}) attributes {gemm.matmul_spec = {a = 0 : i64, b = 1 : i64, c = 2 : i64, acc_type = f32}} {
    %M = arith.constant 131 : index
    %N = arith.constant 72 : index
    %0 = arith.constant 1 : index
    %batches = arith.constant 3 : index
    %1 = arith.constant 64 : index
    %grid_x = arith.ceildivui %N, %1 : index
    %grid_y = arith.ceildivui %M, %1 : index
    %block_x = arith.constant 128 : index
    %block_y = arith.constant 1 : index
    %splits = arith.constant 2 : index
    %2 = arith.constant 6 : index
    "gpu.launch_func"(%grid_x, %grid_y, %batches, %block_x, %block_y, %0, %A, %B, %C) <{kernel = @bmm_kernels::@bmm_splitk_init, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 3, 0>}> : (index, index, index, index, index, index, memref<3x131x200xf16>, memref<200x72xf16>, memref<3x131x72xf32>) -> ()
    "gpu.launch_func"(%grid_x, %grid_y, %2, %block_x, %block_y, %0, %A, %B, %C) <{kernel = @bmm_kernels::@bmm, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 3, 0>}> : (index, index, index, index, index, index, memref<3x131x200xf16>, memref<200x72xf16>, memref<3x131x72xf32>) -> ()
    func.return
  }
  "gpu.module"() <{sym_name = "bmm_kernels"}> ({
    "gpu.func"() <{function_type = (memref<131x200xf16>, memref<200x72xf16>, memref<131x72xf32>) -> (), kernel}> ({
    ^bb0(%A: memref<131x200xf16>, %B: memref<200x72xf16>, %C: memref<131x72xf32>):
      %bz = "gpu.block_id"() <{dimension = #gpu<dim z>}> : () -> index
      %0 = arith.constant 2 : index
      %split = arith.remui %bz, %0 : index
      %M = arith.constant 131 : index
      %N = arith.constant 72 : index
      %K = arith.constant 200 : index
      %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
      %tx = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %by = "gpu.block_id"() <{dimension = #gpu<dim y>}> : () -> index
      %ty = "gpu.thread_id"() <{dimension = #gpu<dim y>}> : () -> index
      %1 = arith.constant 64 : index
      %block_row = arith.muli %by, %1 : index
      %block_col = arith.muli %bx, %1 : index
      %2 = arith.constant 128 : index
      %3 = arith.muli %ty, %2 : index
      %tid = arith.addi %3, %tx : index
      %4 = arith.constant 0 : index
      %5 = arith.constant 1 : index
      %6 = arith.constant 128 : index
      %wg_lane = arith.remui %tx, %6 : index
      %wg_n = arith.divui %tx, %6 : index
      %7 = arith.constant 64 : index
      %wave_row = arith.muli %ty, %7 : index
      %wave_col = arith.muli %wg_n, %7 : index
      %acc = memref.alloca() : memref<1x1x32xf32, 5 : i64>
      %zero = arith.constant 0.000000e+00 : f32
      %zeros = vector.broadcast %zero : f32 to vector<32xf32>
      %8 = arith.constant 0 : index
      vector.store %zeros, %acc[%8, %8, %8] : memref<1x1x32xf32, 5 : i64>, vector<32xf32>
      %tile_a = memref.alloca() : memref<4x64x64xf16, 3 : i64>
      %tile_b = memref.alloca() : memref<4x64x64xf16, 3 : i64>
      %num_tiles = arith.ceildivui %K, %1 : index
      %9 = arith.constant 2 : index
      %k_chunk = arith.ceildivui %num_tiles, %9 : index
      %10 = arith.muli %split, %k_chunk : index
      %11 = arith.addi %10, %k_chunk : index
      %k_end = arith.minui %11, %num_tiles : index
      %12 = arith.cmpi ult, %10, %k_end : index
      scf.if %12 {
        %13 = arith.subi %10, %10 : index
        %14 = arith.constant 4 : index
        %slot = arith.remui %13, %14 : index
        %k0 = arith.muli %10, %1 : index
        gemm.copy %A[%block_row, %k0] bounds[%M, %K] to %tile_a[%slot] tid %tid {gemm.role = "load_a", extents = array<i64: 64, 64>, width = 8 : i64, direct} : memref<131x200xf16>, memref<4x64x64xf16, 3 : i64>
        gemm.copy %B[%k0, %block_col] bounds[%K, %N] to %tile_b[%slot] tid %tid {gemm.role = "load_b", extents = array<i64: 64, 64>, width = 8 : i64, direct} : memref<200x72xf16>, memref<4x64x64xf16, 3 : i64>
      }{gemm.role = "prologue"}
      %15 = arith.constant 1 : index
      %t1 = arith.addi %10, %15 : index
      %16 = arith.cmpi ult, %t1, %k_end : index
      scf.if %16 {
        %17 = arith.subi %t1, %10 : index
        %18 = arith.constant 4 : index
        %slot_1 = arith.remui %17, %18 : index
        %k0_1 = arith.muli %t1, %1 : index
        gemm.copy %A[%block_row, %k0_1] bounds[%M, %K] to %tile_a[%slot_1] tid %tid {gemm.role = "load_a", extents = array<i64: 64, 64>, width = 8 : i64, direct} : memref<131x200xf16>, memref<4x64x64xf16, 3 : i64>
        gemm.copy %B[%k0_1, %block_col] bounds[%K, %N] to %tile_b[%slot_1] tid %tid {gemm.role = "load_b", extents = array<i64: 64, 64>, width = 8 : i64, direct} : memref<200x72xf16>, memref<4x64x64xf16, 3 : i64>
      }{gemm.role = "prologue"}
      "gpu.barrier"() : () -> ()
      scf.for %t = %10 to %k_end step %5 {
        %19 = arith.constant 2 : index
        %next_t = arith.addi %t, %19 : index
        %has_next = arith.cmpi ult, %next_t, %k_end : index
        %20 = arith.subi %t, %10 : index
        %21 = arith.constant 4 : index
        %slot_2 = arith.remui %20, %21 : index
        %22 = arith.constant 1 : index
        scf.for %wg = %8 to %22 step %22 {
          nvgpu.wgmma_fence
          %23 = arith.constant 16 : index
          scf.for %kk = %8 to %7 step %23 {
            %desc_a = nvgpu.wgmma_desc %tile_a[%slot_2, %wave_row, %kk] {major = "k", lbo = 16 : i32, sbo = 1024 : i32, swizzle = 128 : i32} : memref<4x64x64xf16, 3 : i64>
            %desc_b = nvgpu.wgmma_desc %tile_b[%slot_2, %kk, %wave_col] {major = "mn", lbo = 8192 : i32, sbo = 1024 : i32, swizzle = 128 : i32} : memref<4x64x64xf16, 3 : i64>
            %c = vector.load %acc[%8, %8, %8] : memref<1x1x32xf32, 5 : i64>, vector<32xf32>
            %d = nvgpu.wgmma_mma_async %desc_a, %desc_b, %c {m = 64 : i32, n = 64 : i32, k = 16 : i32, transB} : vector<32xf32>
            vector.store %d, %acc[%8, %8, %8] : memref<1x1x32xf32, 5 : i64>, vector<32xf32>
          } {gemmc.unroll}
          nvgpu.wgmma_commit_group
          nvgpu.wgmma_wait_group {numGroups = 1 : i32}
        } {gemm.role = "compute"}
        scf.if %has_next {
          %24 = arith.subi %next_t, %10 : index
          %25 = arith.constant 4 : index
          %slot_3 = arith.remui %24, %25 : index
          %k0_2 = arith.muli %next_t, %1 : index
          gemm.copy %A[%block_row, %k0_2] bounds[%M, %K] to %tile_a[%slot_3] tid %tid {gemm.role = "load_a", extents = array<i64: 64, 64>, width = 8 : i64, direct} : memref<131x200xf16>, memref<4x64x64xf16, 3 : i64>
          gemm.copy %B[%k0_2, %block_col] bounds[%K, %N] to %tile_b[%slot_3] tid %tid {gemm.role = "load_b", extents = array<i64: 64, 64>, width = 8 : i64, direct} : memref<200x72xf16>, memref<4x64x64xf16, 3 : i64>
        }{gemm.role = "prefetch"}
        "gpu.barrier"() : () -> ()
      } {gemm.role = "k_loop"}
      nvgpu.wgmma_wait_group {numGroups = 0 : i32}
      %26 = arith.constant 32 : index
      %27 = arith.divui %wg_lane, %26 : index
      %28 = arith.constant 16 : index
      %29 = arith.muli %27, %28 : index
      %30 = arith.constant 4 : index
      %31 = arith.divui %wg_lane, %30 : index
      %32 = arith.constant 8 : index
      %33 = arith.remui %31, %32 : index
      %34 = arith.addi %29, %33 : index
      %35 = arith.remui %wg_lane, %30 : index
      %36 = arith.constant 2 : index
      %37 = arith.muli %35, %36 : index
      %38 = arith.addi %wave_row, %34 : index
      %lane_row = arith.addi %block_row, %38 : index
      %39 = arith.addi %wave_col, %37 : index
      %lane_col = arith.addi %block_col, %39 : index
      %40 = arith.constant 1 : index
      %41 = arith.constant 2 : index
      scf.for %g = %8 to %26 step %41 {
        %42 = arith.divui %g, %36 : index
        %43 = arith.remui %42, %36 : index
        %44 = arith.muli %43, %32 : index
        %45 = arith.divui %g, %30 : index
        %46 = arith.muli %45, %32 : index
        %47 = arith.remui %g, %36 : index
        %48 = arith.addi %46, %47 : index
        %r = arith.addi %lane_row, %44 : index
        %c_1 = arith.addi %lane_col, %48 : index
        %49 = arith.cmpi ult, %r, %M : index
        %50 = arith.cmpi ult, %c_1, %N : index
        %inside = arith.andi %49, %50 : i1
        scf.if %inside {
          %sum = memref.load %acc[%8, %8, %g] {gemm.role = "acc_read"} : memref<1x1x32xf32, 5 : i64>
          %51 = "memref.atomic_rmw"(%sum, %C, %r, %c_1) <{kind = 0 : i64}> : (f32, memref<131x72xf32>, index, index) -> f32
        }{gemm.role = "epilogue"}
        %52 = arith.constant 1 : index
        %g_next = arith.addi %g, %52 : index
        %53 = arith.divui %g_next, %36 : index
        %54 = arith.remui %53, %36 : index
        %55 = arith.muli %54, %32 : index
        %56 = arith.divui %g_next, %30 : index
        %57 = arith.muli %56, %32 : index
        %58 = arith.remui %g_next, %36 : index
        %59 = arith.addi %57, %58 : index
        %r_1 = arith.addi %lane_row, %55 : index
        %c_2 = arith.addi %lane_col, %59 : index
        %60 = arith.cmpi ult, %r_1, %M : index
        %61 = arith.cmpi ult, %c_2, %N : index
        %inside_1 = arith.andi %60, %61 : i1
        scf.if %inside_1 {
          %sum_1 = memref.load %acc[%8, %8, %g_next] {gemm.role = "acc_read"} : memref<1x1x32xf32, 5 : i64>
          %62 = "memref.atomic_rmw"(%sum_1, %C, %r_1, %c_2) <{kind = 0 : i64}> : (f32, memref<131x72xf32>, index, index) -> f32
        }{gemm.role = "epilogue"}
      }
      "gpu.return"() : () -> ()
    }) {sym_name = "bmm", gpu.known_block_size = array<i32: 128, 1, 1>, gemm.arg_dims = [["M", "K"], ["K", "N"], ["M", "N"]], gemm.batch_args = array<i64: 0, 2>, gemm.schedule = {block_m = 64 : i64, block_n = 64 : i64, block_k = 64 : i64, threads_x = 128 : i64, threads_y = 1 : i64, thread_m = 1 : i64, thread_n = 1 : i64, contiguous = 1 : i64, b_transposed = 0 : i64, instr = "wgmma_m64n64k16_f32_f16", waves_m = 1 : i64, waves_n = 1 : i64, lane_regs = 32 : i64}, gemm.batch_split = 2 : i64} : () -> ()
    "gpu.func"() <{function_type = (memref<131x200xf16>, memref<200x72xf16>, memref<131x72xf32>) -> (), kernel}> ({
    ^bb0(%A: memref<131x200xf16>, %B: memref<200x72xf16>, %C: memref<131x72xf32>):
      %M = arith.constant 131 : index
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
          memref.store %sum, %C[%r, %c] : memref<131x72xf32>
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
          memref.store %sum_1, %C[%r_1, %c_1] : memref<131x72xf32>
        }{gemm.role = "epilogue"}
      }
      "gpu.return"() : () -> ()
    }) {sym_name = "bmm_splitk_init", gpu.known_block_size = array<i32: 128, 1, 1>, gemm.arg_dims = [["M", "K"], ["K", "N"], ["M", "N"]], gemm.batch_args = array<i64: 0, 2>} : () -> ()
  }) : () -> ()
}
