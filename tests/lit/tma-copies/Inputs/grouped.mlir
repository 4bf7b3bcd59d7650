builtin.module attributes {gemmc.target = "sm_90", gemmc.pipeline = "gemm-to-kernel,lds-tiling{block-m=64 block-n=64 block-k=64},register-tiling{thread-m=4 thread-n=4},matrix-cores{instr=wgmma_m64n64k16 waves-m=1 waves-n=1},vectorize{width=8},direct-to-lds{fallback=true},multi-buffer{factor=4},pipeline{stages=4},wgmma-in-flight", gpu.container_module} {
  func.func @moe(%X: memref<300x96xf16> {gemm.dims = ["M", "K"]}, %W: memref<4x96x72xf16> {gemm.dims = ["G", "K", "N"]}, %Y: memref<300x72xf32> {gemm.dims = ["M", "N"]}, %sizes: memref<4xi32> {gemm.dims = ["G"], gemm.group_sizes}) attributes {gemm.matmul_spec = {a = 0 : i64, b = 1 : i64, c = 2 : i64, acc_type = f32, group_sizes = 3 : i64}} {
    %M = arith.constant 300 : index
    %N = arith.constant 72 : index
    %0 = arith.constant 1 : index
    %groups = arith.constant 4 : index
    %1 = arith.constant 64 : index
    %grid_x = arith.ceildivui %N, %1 : index
    %tiles_m = arith.ceildivui %M, %1 : index
    %grid_y = arith.addi %tiles_m, %groups : index
    %block_x = arith.constant 128 : index
    %block_y = arith.constant 1 : index
    "gpu.launch_func"(%grid_x, %grid_y, %0, %block_x, %block_y, %0, %X, %W, %Y, %sizes) <{kernel = @moe_kernels::@moe, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 4, 0>}> : (index, index, index, index, index, index, memref<300x96xf16>, memref<4x96x72xf16>, memref<300x72xf32>, memref<4xi32>) -> ()
    func.return
  }
  "gpu.module"() <{sym_name = "moe_kernels"}> ({
    "gpu.func"() <{function_type = (memref<300x96xf16>, memref<4x96x72xf16>, memref<300x72xf32>, memref<4xi32>) -> (), kernel}> ({
    ^bb0(%X: memref<300x96xf16>, %W: memref<4x96x72xf16>, %Y: memref<300x72xf32>, %sizes: memref<4xi32>):
      %N = arith.constant 72 : index
      %K = arith.constant 96 : index
      %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
      %tx = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %by = "gpu.block_id"() <{dimension = #gpu<dim y>}> : () -> index
      %ty = "gpu.thread_id"() <{dimension = #gpu<dim y>}> : () -> index
      %0 = arith.constant 0 : index
      %groups = arith.constant 4 : index
      %1 = arith.constant 64 : index
      %2 = arith.constant 1 : index
      %rows_total, %tiles_total, %group_row, %group_end, %group = scf.for %h = %0 to %groups step %2 iter_args(%acc = %0, %acc_1 = %0, %acc_2 = %0, %acc_3 = %0, %acc_4 = %0) -> (index, index, index, index, index) {
        %size = memref.load %sizes[%h] : memref<4xi32>
        %rows = arith.index_cast %size : i32 to index
        %tiles = arith.ceildivui %rows, %1 : index
        %next_tile = arith.addi %acc_1, %tiles : index
        %3 = arith.cmpi uge, %by, %acc_1 : index
        %4 = arith.cmpi ult, %by, %next_tile : index
        %here = arith.andi %3, %4 : i1
        %5 = arith.subi %by, %acc_1 : index
        %6 = arith.muli %5, %1 : index
        %at = arith.addi %acc, %6 : index
        %next_start = arith.addi %acc, %rows : index
        %7 = arith.select %here, %at, %acc_2 : index
        %8 = arith.select %here, %next_start, %acc_3 : index
        %9 = arith.select %here, %h, %acc_4 : index
        scf.yield %next_start, %next_tile, %7, %8, %9 : index, index, index, index, index
      } {gemm.role = "group"}
      %block_col = arith.muli %bx, %1 : index
      %10 = arith.constant 128 : index
      %11 = arith.muli %ty, %10 : index
      %tid = arith.addi %11, %tx : index
      %12 = arith.constant 128 : index
      %wg_lane = arith.remui %tx, %12 : index
      %wg_n = arith.divui %tx, %12 : index
      %13 = arith.constant 64 : index
      %wave_row = arith.muli %ty, %13 : index
      %wave_col = arith.muli %wg_n, %13 : index
      %acc_5 = memref.alloca() : memref<1x1x32xf32, 5 : i64>
      %zero = arith.constant 0.000000e+00 : f32
      %zeros = vector.broadcast %zero : f32 to vector<32xf32>
      %14 = arith.constant 0 : index
      vector.store %zeros, %acc_5[%14, %14, %14] : memref<1x1x32xf32, 5 : i64>, vector<32xf32>
      %tile_a = memref.alloca() : memref<4x64x64xf16, 3 : i64>
      %tile_b = memref.alloca() : memref<4x64x64xf16, 3 : i64>
      %num_tiles = arith.ceildivui %K, %1 : index
      %busy = arith.cmpi ult, %group_row, %group_end : index
      %group_tiles = arith.select %busy, %num_tiles, %0 : index
      %15 = arith.cmpi ult, %0, %group_tiles : index
      scf.if %15 {
        %16 = arith.constant 4 : index
        %slot = arith.constant 0 : index
        %k0 = arith.constant 0 : index
        gemm.copy %X[%group_row, %k0] bounds[%group_end, %K] to %tile_a[%slot] tid %tid {gemm.role = "load_a", extents = array<i64: 64, 64>, width = 8 : i64, direct} : memref<300x96xf16>, memref<4x64x64xf16, 3 : i64>
        gemm.copy %W group %group[%k0, %block_col] bounds[%K, %N] to %tile_b[%slot] tid %tid {gemm.role = "load_b", extents = array<i64: 64, 64>, width = 8 : i64, direct} : memref<4x96x72xf16>, memref<4x64x64xf16, 3 : i64>
      }{gemm.role = "prologue"}
      %t1 = arith.constant 1 : index
      %17 = arith.cmpi ult, %t1, %group_tiles : index
      scf.if %17 {
        %18 = arith.constant 4 : index
        %slot_1 = arith.constant 1 : index
        %k0_1 = arith.constant 64 : index
        gemm.copy %X[%group_row, %k0_1] bounds[%group_end, %K] to %tile_a[%slot_1] tid %tid {gemm.role = "load_a", extents = array<i64: 64, 64>, width = 8 : i64, direct} : memref<300x96xf16>, memref<4x64x64xf16, 3 : i64>
        gemm.copy %W group %group[%k0_1, %block_col] bounds[%K, %N] to %tile_b[%slot_1] tid %tid {gemm.role = "load_b", extents = array<i64: 64, 64>, width = 8 : i64, direct} : memref<4x96x72xf16>, memref<4x64x64xf16, 3 : i64>
      }{gemm.role = "prologue"}
      "gpu.barrier"() : () -> ()
      scf.for %t = %0 to %group_tiles step %2 {
        %19 = arith.constant 2 : index
        %next_t = arith.addi %t, %19 : index
        %has_next = arith.cmpi ult, %next_t, %group_tiles : index
        %20 = arith.constant 4 : index
        %slot_2 = arith.remui %t, %20 : index
        %21 = arith.constant 1 : index
        scf.for %wg = %14 to %21 step %21 {
          nvgpu.wgmma_fence
          %22 = arith.constant 16 : index
          scf.for %kk = %14 to %13 step %22 {
            %desc_a = nvgpu.wgmma_desc %tile_a[%slot_2, %wave_row, %kk] {major = "k", lbo = 16 : i32, sbo = 1024 : i32, swizzle = 128 : i32} : memref<4x64x64xf16, 3 : i64>
            %desc_b = nvgpu.wgmma_desc %tile_b[%slot_2, %kk, %wave_col] {major = "mn", lbo = 8192 : i32, sbo = 1024 : i32, swizzle = 128 : i32} : memref<4x64x64xf16, 3 : i64>
            %c = vector.load %acc_5[%14, %14, %14] : memref<1x1x32xf32, 5 : i64>, vector<32xf32>
            %d = nvgpu.wgmma_mma_async %desc_a, %desc_b, %c {m = 64 : i32, n = 64 : i32, k = 16 : i32, transB} : vector<32xf32>
            vector.store %d, %acc_5[%14, %14, %14] : memref<1x1x32xf32, 5 : i64>, vector<32xf32>
          } {gemmc.unroll}
          nvgpu.wgmma_commit_group
          nvgpu.wgmma_wait_group {numGroups = 1 : i32}
        } {gemm.role = "compute"}
        scf.if %has_next {
          %23 = arith.constant 4 : index
          %slot_3 = arith.remui %next_t, %23 : index
          %k0_2 = arith.muli %next_t, %1 : index
          gemm.copy %X[%group_row, %k0_2] bounds[%group_end, %K] to %tile_a[%slot_3] tid %tid {gemm.role = "load_a", extents = array<i64: 64, 64>, width = 8 : i64, direct} : memref<300x96xf16>, memref<4x64x64xf16, 3 : i64>
          gemm.copy %W group %group[%k0_2, %block_col] bounds[%K, %N] to %tile_b[%slot_3] tid %tid {gemm.role = "load_b", extents = array<i64: 64, 64>, width = 8 : i64, direct} : memref<4x96x72xf16>, memref<4x64x64xf16, 3 : i64>
        }{gemm.role = "prefetch"}
        "gpu.barrier"() : () -> ()
      } {gemm.role = "k_loop"}
      nvgpu.wgmma_wait_group {numGroups = 0 : i32}
      %24 = arith.constant 32 : index
      %25 = arith.divui %wg_lane, %24 : index
      %26 = arith.constant 16 : index
      %27 = arith.muli %25, %26 : index
      %28 = arith.constant 4 : index
      %29 = arith.divui %wg_lane, %28 : index
      %30 = arith.constant 8 : index
      %31 = arith.remui %29, %30 : index
      %32 = arith.addi %27, %31 : index
      %33 = arith.remui %wg_lane, %28 : index
      %34 = arith.constant 2 : index
      %35 = arith.muli %33, %34 : index
      %36 = arith.addi %wave_row, %32 : index
      %lane_row = arith.addi %group_row, %36 : index
      %37 = arith.addi %wave_col, %35 : index
      %lane_col = arith.addi %block_col, %37 : index
      %38 = arith.constant 1 : index
      %39 = arith.constant 2 : index
      scf.for %g = %14 to %24 step %39 {
        %40 = arith.divui %g, %34 : index
        %41 = arith.remui %40, %34 : index
        %42 = arith.muli %41, %30 : index
        %43 = arith.divui %g, %28 : index
        %44 = arith.muli %43, %30 : index
        %45 = arith.remui %g, %34 : index
        %46 = arith.addi %44, %45 : index
        %r = arith.addi %lane_row, %42 : index
        %c_1 = arith.addi %lane_col, %46 : index
        %47 = arith.cmpi ult, %r, %group_end : index
        %48 = arith.cmpi ult, %c_1, %N : index
        %inside = arith.andi %47, %48 : i1
        %49 = arith.constant 1 : index
        %c_next = arith.addi %c_1, %49 : index
        %50 = arith.cmpi uge, %r, %group_end : index
        %51 = arith.cmpi uge, %c_next, %N : index
        %edge = arith.ori %50, %51 : i1
        scf.if %edge {
          scf.if %inside {
            %sum = memref.load %acc_5[%14, %14, %g] {gemm.role = "acc_read"} : memref<1x1x32xf32, 5 : i64>
            memref.store %sum, %Y[%r, %c_1] : memref<300x72xf32>
          }{gemm.role = "epilogue"}
          %52 = arith.constant 1 : index
          %g_next = arith.addi %g, %52 : index
          %53 = arith.divui %g_next, %34 : index
          %54 = arith.remui %53, %34 : index
          %55 = arith.muli %54, %30 : index
          %56 = arith.divui %g_next, %28 : index
          %57 = arith.muli %56, %30 : index
          %58 = arith.remui %g_next, %34 : index
          %59 = arith.addi %57, %58 : index
          %r_1 = arith.addi %lane_row, %55 : index
          %c_2 = arith.addi %lane_col, %59 : index
          %60 = arith.cmpi ult, %r_1, %group_end : index
          %61 = arith.cmpi ult, %c_2, %N : index
          %inside_1 = arith.andi %60, %61 : i1
          scf.if %inside_1 {
            %sum_1 = memref.load %acc_5[%14, %14, %g_next] {gemm.role = "acc_read"} : memref<1x1x32xf32, 5 : i64>
            memref.store %sum_1, %Y[%r_1, %c_2] : memref<300x72xf32>
          }{gemm.role = "epilogue"}
        } else {
          %pair = vector.load %acc_5[%14, %14, %g] {gemm.role = "acc_read"} : memref<1x1x32xf32, 5 : i64>, vector<2xf32>
          %sum0 = vector.extract %pair[0] : f32 from vector<2xf32>
          %sum1 = vector.extract %pair[1] : f32 from vector<2xf32>
          %62 = arith.constant 0.000000e+00 : f32
          %out_pair = vector.broadcast %62 : f32 to vector<2xf32>
          %out_pair_1 = vector.insert %sum0, %out_pair [0] : f32 into vector<2xf32>
          %out_pair_2 = vector.insert %sum1, %out_pair_1 [1] : f32 into vector<2xf32>
          vector.store %out_pair_2, %Y[%r, %c_1] : memref<300x72xf32>, vector<2xf32>
        }{gemm.role = "epilogue_pairs"}
      }
      "gpu.return"() : () -> ()
    }) {sym_name = "moe", gpu.known_block_size = array<i32: 128, 1, 1>, gemm.arg_dims = [["M", "K"], ["G", "K", "N"], ["M", "N"], ["G"]], gemm.grouped = {sizes = 3 : i64, tile_m = 64 : i64}, gemm.schedule = {block_m = 64 : i64, block_n = 64 : i64, block_k = 64 : i64, threads_x = 128 : i64, threads_y = 1 : i64, thread_m = 1 : i64, thread_n = 1 : i64, contiguous = 1 : i64, b_transposed = 0 : i64, instr = "wgmma_m64n64k16_f32_f16", waves_m = 1 : i64, waves_n = 1 : i64, lane_regs = 32 : i64}} : () -> ()
  }) : () -> ()
}
