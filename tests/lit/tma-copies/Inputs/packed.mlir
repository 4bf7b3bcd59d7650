builtin.module attributes {gemmc.target = "sm_90", gpu.container_module} {
  func.func @g(%A: memref<70x37xf16> {gemm.dims = ["M", "K"]}, %B: memref<37x45xf16> {gemm.dims = ["K", "N"]}, %C: memref<70x45xf32> {gemm.dims = ["M", "N"]}) attributes {gemm.matmul_spec = {a = 0 : i64, b = 1 : i64, c = 2 : i64, acc_type = f32}} {
    %M = arith.constant 70 : index
    %N = arith.constant 45 : index
    %0 = arith.constant 1 : index
    %1 = arith.constant 64 : index
    %grid_x = arith.ceildivui %N, %1 : index
    %grid_y = arith.ceildivui %M, %1 : index
    %block_x = arith.constant 128 : index
    %block_y = arith.constant 1 : index
    %A_packed = memref.alloc() : memref<70x40xf16>
    %2 = arith.constant 256 : index
    %3 = arith.constant 11 : index
    %4 = arith.constant 1 : index
    "gpu.launch_func"(%3, %4, %4, %2, %4, %4, %A, %A_packed) <{kernel = @g_kernels::@g_pack_a, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 2, 0>}> : (index, index, index, index, index, index, memref<70x37xf16>, memref<70x40xf16>) -> ()
    %B_packed = memref.alloc() : memref<37x48xf16>
    %5 = arith.constant 256 : index
    %6 = arith.constant 7 : index
    %7 = arith.constant 1 : index
    "gpu.launch_func"(%6, %7, %7, %5, %7, %7, %B, %B_packed) <{kernel = @g_kernels::@g_pack_b, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 2, 0>}> : (index, index, index, index, index, index, memref<37x45xf16>, memref<37x48xf16>) -> ()
    "gpu.launch_func"(%grid_x, %grid_y, %0, %block_x, %block_y, %0, %A_packed, %B_packed, %C) <{kernel = @g_kernels::@g, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 3, 0>}> : (index, index, index, index, index, index, memref<70x40xf16>, memref<37x48xf16>, memref<70x45xf32>) -> ()
    memref.dealloc %B_packed : memref<37x48xf16>
    memref.dealloc %A_packed : memref<70x40xf16>
    func.return
  }
  "gpu.module"() <{sym_name = "g_kernels"}> ({
    "gpu.func"() <{function_type = (memref<70x40xf16>, memref<37x48xf16>, memref<70x45xf32>) -> (), kernel}> ({
    ^bb0(%A: memref<70x40xf16>, %B: memref<37x48xf16>, %C: memref<70x45xf32>):
      %M = arith.constant 70 : index
      %N = arith.constant 45 : index
      %K = arith.constant 37 : index
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
      %tile_a = memref.alloca() : memref<2x64x64xf16, 3 : i64>
      %tile_b = memref.alloca() : memref<2x64x64xf16, 3 : i64>
      %num_tiles = arith.ceildivui %K, %0 : index
      %8 = arith.cmpi ult, %3, %num_tiles : index
      scf.if %8 {
        %9 = arith.constant 2 : index
        %slot = arith.constant 0 : index
        %k0 = arith.constant 0 : index
        gemm.copy %A[%block_row, %k0] bounds[%M, %K] to %tile_a[%slot] tid %tid {gemm.role = "load_a", extents = array<i64: 64, 64>, width = 1 : i64} : memref<70x40xf16>, memref<2x64x64xf16, 3 : i64>
        gemm.copy %B[%k0, %block_col] bounds[%K, %N] to %tile_b[%slot] tid %tid {gemm.role = "load_b", extents = array<i64: 64, 64>, width = 1 : i64} : memref<37x48xf16>, memref<2x64x64xf16, 3 : i64>
      }{gemm.role = "prologue"}
      "gpu.barrier"() : () -> ()
      scf.for %t = %3 to %num_tiles step %4 {
        %10 = arith.constant 1 : index
        %next_t = arith.addi %t, %10 : index
        %has_next = arith.cmpi ult, %next_t, %num_tiles : index
        scf.if %has_next {
          %11 = arith.constant 2 : index
          %slot_1 = arith.remui %next_t, %11 : index
          %k0_1 = arith.muli %next_t, %0 : index
          gemm.copy %A[%block_row, %k0_1] bounds[%M, %K] to %tile_a[%slot_1] tid %tid {gemm.role = "load_a", extents = array<i64: 64, 64>, width = 1 : i64} : memref<70x40xf16>, memref<2x64x64xf16, 3 : i64>
          gemm.copy %B[%k0_1, %block_col] bounds[%K, %N] to %tile_b[%slot_1] tid %tid {gemm.role = "load_b", extents = array<i64: 64, 64>, width = 1 : i64} : memref<37x48xf16>, memref<2x64x64xf16, 3 : i64>
        }{gemm.role = "prefetch"}
        %12 = arith.constant 2 : index
        %slot_2 = arith.remui %t, %12 : index
        %13 = arith.constant 1 : index
        scf.for %wg = %7 to %13 step %13 {
          nvgpu.wgmma_fence
          %14 = arith.constant 16 : index
          scf.for %kk = %7 to %6 step %14 {
            %desc_a = nvgpu.wgmma_desc %tile_a[%slot_2, %wave_row, %kk] {major = "k", lbo = 16 : i32, sbo = 1024 : i32, swizzle = 128 : i32} : memref<2x64x64xf16, 3 : i64>
            %desc_b = nvgpu.wgmma_desc %tile_b[%slot_2, %kk, %wave_col] {major = "mn", lbo = 8192 : i32, sbo = 1024 : i32, swizzle = 128 : i32} : memref<2x64x64xf16, 3 : i64>
            %c = vector.load %acc[%7, %7, %7] : memref<1x1x32xf32, 5 : i64>, vector<32xf32>
            %d = nvgpu.wgmma_mma_async %desc_a, %desc_b, %c {m = 64 : i32, n = 64 : i32, k = 16 : i32, transB} : vector<32xf32>
            vector.store %d, %acc[%7, %7, %7] : memref<1x1x32xf32, 5 : i64>, vector<32xf32>
          } {gemmc.unroll}
          nvgpu.wgmma_commit_group
          nvgpu.wgmma_wait_group {numGroups = 0 : i32}
        } {gemm.role = "compute"}
        "gpu.barrier"() : () -> ()
      } {gemm.role = "k_loop"}
      %15 = arith.constant 32 : index
      %16 = arith.divui %wg_lane, %15 : index
      %17 = arith.constant 16 : index
      %18 = arith.muli %16, %17 : index
      %19 = arith.constant 4 : index
      %20 = arith.divui %wg_lane, %19 : index
      %21 = arith.constant 8 : index
      %22 = arith.remui %20, %21 : index
      %23 = arith.addi %18, %22 : index
      %24 = arith.remui %wg_lane, %19 : index
      %25 = arith.constant 2 : index
      %26 = arith.muli %24, %25 : index
      %27 = arith.addi %wave_row, %23 : index
      %lane_row = arith.addi %block_row, %27 : index
      %28 = arith.addi %wave_col, %26 : index
      %lane_col = arith.addi %block_col, %28 : index
      %29 = arith.constant 1 : index
      scf.for %g = %7 to %15 step %29 {
        %30 = arith.divui %g, %25 : index
        %31 = arith.remui %30, %25 : index
        %32 = arith.muli %31, %21 : index
        %33 = arith.divui %g, %19 : index
        %34 = arith.muli %33, %21 : index
        %35 = arith.remui %g, %25 : index
        %36 = arith.addi %34, %35 : index
        %r = arith.addi %lane_row, %32 : index
        %c_1 = arith.addi %lane_col, %36 : index
        %37 = arith.cmpi ult, %r, %M : index
        %38 = arith.cmpi ult, %c_1, %N : index
        %inside = arith.andi %37, %38 : i1
        scf.if %inside {
          %sum = memref.load %acc[%7, %7, %g] {gemm.role = "acc_read"} : memref<1x1x32xf32, 5 : i64>
          memref.store %sum, %C[%r, %c_1] : memref<70x45xf32>
        }{gemm.role = "epilogue"}
      }
      "gpu.return"() : () -> ()
    }) {sym_name = "g", gpu.known_block_size = array<i32: 128, 1, 1>, gemm.arg_dims = [["M", "K_padded"], ["K", "N_padded"], ["M", "N"]], gemm.schedule = {block_m = 64 : i64, block_n = 64 : i64, block_k = 64 : i64, threads_x = 128 : i64, threads_y = 1 : i64, thread_m = 1 : i64, thread_n = 1 : i64, contiguous = 1 : i64, b_transposed = 0 : i64, instr = "wgmma_m64n64k16_f32_f16", waves_m = 1 : i64, waves_n = 1 : i64, lane_regs = 32 : i64}, gemm.zero_padded = [{arg = 0 : i64, cols = 37 : i64}, {arg = 1 : i64, cols = 45 : i64}]} : () -> ()
    "gpu.func"() <{function_type = (memref<70x37xf16>, memref<70x40xf16>) -> (), kernel}> ({
    ^bb0(%A: memref<70x37xf16>, %A_packed: memref<70x40xf16>):
      %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
      %0 = arith.constant 256 : index
      %1 = arith.muli %bx, %0 : index
      %tx = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %i = arith.addi %1, %tx : index
      %2 = arith.constant 2800 : index
      %3 = arith.constant 40 : index
      %inside = arith.cmpi ult, %i, %2 : index
      scf.if %inside {
        %col = arith.remui %i, %3 : index
        %row = arith.divui %i, %3 : index
        %4 = arith.constant 37 : index
        %in_row = arith.cmpi ult, %col, %4 : index
        %5 = arith.constant 36 : index
        %src_col = arith.minui %col, %5 : index
        %element = memref.load %A[%row, %src_col] : memref<70x37xf16>
        %6 = arith.constant 0.000000e+00 : f16
        %packed = arith.select %in_row, %element, %6 : f16
        memref.store %packed, %A_packed[%row, %col] : memref<70x40xf16>
      }
      "gpu.return"() : () -> ()
    }) {sym_name = "g_pack_a", gpu.known_block_size = array<i32: 256, 1, 1>, gemm.role = "pack", gemm.arg_dims = [["M", "K"], ["M", "K_padded"]]} : () -> ()
    "gpu.func"() <{function_type = (memref<37x45xf16>, memref<37x48xf16>) -> (), kernel}> ({
    ^bb0(%B: memref<37x45xf16>, %B_packed: memref<37x48xf16>):
      %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
      %0 = arith.constant 256 : index
      %1 = arith.muli %bx, %0 : index
      %tx = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %i = arith.addi %1, %tx : index
      %2 = arith.constant 1776 : index
      %3 = arith.constant 48 : index
      %inside = arith.cmpi ult, %i, %2 : index
      scf.if %inside {
        %col = arith.remui %i, %3 : index
        %row = arith.divui %i, %3 : index
        %4 = arith.constant 45 : index
        %in_row = arith.cmpi ult, %col, %4 : index
        %5 = arith.constant 44 : index
        %src_col = arith.minui %col, %5 : index
        %element = memref.load %B[%row, %src_col] : memref<37x45xf16>
        %6 = arith.constant 0.000000e+00 : f16
        %packed = arith.select %in_row, %element, %6 : f16
        memref.store %packed, %B_packed[%row, %col] : memref<37x48xf16>
      }
      "gpu.return"() : () -> ()
    }) {sym_name = "g_pack_b", gpu.known_block_size = array<i32: 256, 1, 1>, gemm.role = "pack", gemm.arg_dims = [["K", "N"], ["K", "N_padded"]]} : () -> ()
  }) : () -> ()
}
