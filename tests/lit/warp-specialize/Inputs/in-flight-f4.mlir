builtin.module attributes {gemmc.target = "sm_90", gemmc.pipeline = "wgmma-in-flight", gpu.container_module} {
  func.func @g(%A: memref<256x512xf16> {gemm.dims = ["M", "K"]}, %B: memref<512x256xf16> {gemm.dims = ["K", "N"]}, %C: memref<256x256xf32> {gemm.dims = ["M", "N"]}) attributes {gemm.matmul_spec = {a = 0 : i64, b = 1 : i64, c = 2 : i64, acc_type = f32}} {
    %M = arith.constant 256 : index
    %N = arith.constant 256 : index
    %0 = arith.constant 1 : index
    %1 = arith.constant 128 : index
    %grid_x = arith.ceildivui %N, %1 : index
    %grid_y = arith.ceildivui %M, %1 : index
    %block_x = arith.constant 128 : index
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
      %wave_col = arith.muli %wg_n, %5 : index
      %acc = memref.alloca() : memref<1x1x64xf32, 5 : i64>
      %zero = arith.constant 0.000000e+00 : f32
      %zeros = vector.broadcast %zero : f32 to vector<64xf32>
      %7 = arith.constant 0 : index
      vector.store %zeros, %acc[%7, %7, %7] : memref<1x1x64xf32, 5 : i64>, vector<64xf32>
      %tile_a = memref.alloca() : memref<4x128x64xf16, 3 : i64>
      %tile_b = memref.alloca() : memref<4x64x128xf16, 3 : i64>
      %8 = arith.constant 64 : index
      %num_tiles = arith.ceildivui %K, %8 : index
      %9 = arith.cmpi ult, %3, %num_tiles : index
      scf.if %9 {
        %10 = arith.constant 4 : index
        %slot = arith.constant 0 : index
        %k0 = arith.constant 0 : index
        gemm.copy %A[%block_row, %k0] bounds[%M, %K] to %tile_a[%slot] tid %tid {gemm.role = "load_a", extents = array<i64: 128, 64>, width = 8 : i64, direct} : memref<256x512xf16>, memref<4x128x64xf16, 3 : i64>
        gemm.copy %B[%k0, %block_col] bounds[%K, %N] to %tile_b[%slot] tid %tid {gemm.role = "load_b", extents = array<i64: 64, 128>, width = 8 : i64, direct} : memref<512x256xf16>, memref<4x64x128xf16, 3 : i64>
      }{gemm.role = "prologue"}
      %t1 = arith.constant 1 : index
      %11 = arith.cmpi ult, %t1, %num_tiles : index
      scf.if %11 {
        %12 = arith.constant 4 : index
        %slot_1 = arith.constant 1 : index
        %k0_1 = arith.constant 64 : index
        gemm.copy %A[%block_row, %k0_1] bounds[%M, %K] to %tile_a[%slot_1] tid %tid {gemm.role = "load_a", extents = array<i64: 128, 64>, width = 8 : i64, direct} : memref<256x512xf16>, memref<4x128x64xf16, 3 : i64>
        gemm.copy %B[%k0_1, %block_col] bounds[%K, %N] to %tile_b[%slot_1] tid %tid {gemm.role = "load_b", extents = array<i64: 64, 128>, width = 8 : i64, direct} : memref<512x256xf16>, memref<4x64x128xf16, 3 : i64>
      }{gemm.role = "prologue"}
      "gpu.barrier"() : () -> ()
      scf.for %t = %3 to %num_tiles step %4 {
        %13 = arith.constant 2 : index
        %next_t = arith.addi %t, %13 : index
        %has_next = arith.cmpi ult, %next_t, %num_tiles : index
        %14 = arith.constant 4 : index
        %slot_2 = arith.remui %t, %14 : index
        %15 = arith.constant 1 : index
        scf.for %wg = %7 to %15 step %15 {
          nvgpu.wgmma_fence
          %16 = arith.constant 16 : index
          scf.for %kk = %7 to %6 step %16 {
            %desc_a = nvgpu.wgmma_desc %tile_a[%slot_2, %wave_row, %kk] {major = "k", lbo = 16 : i32, sbo = 1024 : i32, swizzle = 128 : i32} : memref<4x128x64xf16, 3 : i64>
            %desc_b = nvgpu.wgmma_desc %tile_b[%slot_2, %kk, %wave_col] {major = "mn", lbo = 8192 : i32, sbo = 1024 : i32, swizzle = 128 : i32} : memref<4x64x128xf16, 3 : i64>
            %c = vector.load %acc[%7, %7, %7] : memref<1x1x64xf32, 5 : i64>, vector<64xf32>
            %d = nvgpu.wgmma_mma_async %desc_a, %desc_b, %c {m = 64 : i32, n = 128 : i32, k = 16 : i32, transB} : vector<64xf32>
            vector.store %d, %acc[%7, %7, %7] : memref<1x1x64xf32, 5 : i64>, vector<64xf32>
          } {gemmc.unroll}
          nvgpu.wgmma_commit_group
          nvgpu.wgmma_wait_group {numGroups = 1 : i32}
        } {gemm.role = "compute"}
        scf.if %has_next {
          %17 = arith.constant 4 : index
          %slot_3 = arith.remui %next_t, %17 : index
          %k0_2 = arith.muli %next_t, %8 : index
          gemm.copy %A[%block_row, %k0_2] bounds[%M, %K] to %tile_a[%slot_3] tid %tid {gemm.role = "load_a", extents = array<i64: 128, 64>, width = 8 : i64, direct} : memref<256x512xf16>, memref<4x128x64xf16, 3 : i64>
          gemm.copy %B[%k0_2, %block_col] bounds[%K, %N] to %tile_b[%slot_3] tid %tid {gemm.role = "load_b", extents = array<i64: 64, 128>, width = 8 : i64, direct} : memref<512x256xf16>, memref<4x64x128xf16, 3 : i64>
        }{gemm.role = "prefetch"}
        "gpu.barrier"() : () -> ()
      } {gemm.role = "k_loop"}
      nvgpu.wgmma_wait_group {numGroups = 0 : i32}
      %18 = arith.constant 32 : index
      %19 = arith.divui %wg_lane, %18 : index
      %20 = arith.constant 16 : index
      %21 = arith.muli %19, %20 : index
      %22 = arith.constant 4 : index
      %23 = arith.divui %wg_lane, %22 : index
      %24 = arith.constant 8 : index
      %25 = arith.remui %23, %24 : index
      %26 = arith.addi %21, %25 : index
      %27 = arith.remui %wg_lane, %22 : index
      %28 = arith.constant 2 : index
      %29 = arith.muli %27, %28 : index
      %30 = arith.addi %wave_row, %26 : index
      %lane_row = arith.addi %block_row, %30 : index
      %31 = arith.addi %wave_col, %29 : index
      %lane_col = arith.addi %block_col, %31 : index
      %32 = arith.constant 1 : index
      scf.for %g = %7 to %6 step %32 {
        %33 = arith.divui %g, %28 : index
        %34 = arith.remui %33, %28 : index
        %35 = arith.muli %34, %24 : index
        %36 = arith.divui %g, %22 : index
        %37 = arith.muli %36, %24 : index
        %38 = arith.remui %g, %28 : index
        %39 = arith.addi %37, %38 : index
        %r = arith.addi %lane_row, %35 : index
        %c_1 = arith.addi %lane_col, %39 : index
        %40 = arith.cmpi ult, %r, %M : index
        %41 = arith.cmpi ult, %c_1, %N : index
        %inside = arith.andi %40, %41 : i1
        scf.if %inside {
          %sum = memref.load %acc[%7, %7, %g] {gemm.role = "acc_read"} : memref<1x1x64xf32, 5 : i64>
          memref.store %sum, %C[%r, %c_1] : memref<256x256xf32>
        }{gemm.role = "epilogue"}
      }
      "gpu.return"() : () -> ()
    }) {sym_name = "g", gpu.known_block_size = array<i32: 128, 2, 1>, gemm.arg_dims = [["M", "K"], ["K", "N"], ["M", "N"]], gemm.schedule = {block_m = 128 : i64, block_n = 128 : i64, block_k = 64 : i64, threads_x = 128 : i64, threads_y = 2 : i64, thread_m = 1 : i64, thread_n = 1 : i64, contiguous = 1 : i64, b_transposed = 0 : i64, instr = "wgmma_m64n128k16_f32_f16", waves_m = 2 : i64, waves_n = 1 : i64, lane_regs = 64 : i64}} : () -> ()
  }) : () -> ()
}
