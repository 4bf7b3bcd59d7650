// RUN: %gemmc opt %s --arch sm_90 -p 'matrix-cores{waves-m=2 waves-n=2}' | filecheck %s

// matrix-cores on sm_90 with FP8 (A f8e4m3fn, B f8e5m2: mma.sync m16n8k32 .e4m3.e5m2), on the register-tiled
// kernel (gemm-to-kernel,lds-tiling{block-m=64 block-n=64 block-k=64},register-tiling{thread-m=4 thread-n=4}):
// a lane's A fragment is four runs of four bytes (rows r and r + 8, k's 4 (l % 4) and + 16), put together by
// shuffles into the 16 bytes of A's four registers; B's two runs (k and k + 16) of its column.

builtin.module attributes {gemmc.target = "sm_90", gemmc.pipeline = "gemm-to-kernel,lds-tiling{block-m=64 block-n=64 block-k=64},register-tiling{thread-m=4 thread-n=4}", gpu.container_module} {
  func.func @g(%A: memref<64x128xf8E4M3FN> {gemm.dims = ["M", "K"]}, %B: memref<128x64xf8E5M2> {gemm.dims = ["K", "N"]}, %C: memref<64x64xf32> {gemm.dims = ["M", "N"]}) attributes {gemm.matmul_spec = {a = 0 : i64, b = 1 : i64, c = 2 : i64, acc_type = f32}} {
    %M = arith.constant 64 : index
    %N = arith.constant 64 : index
    %0 = arith.constant 1 : index
    %1 = arith.constant 64 : index
    %grid_x = arith.ceildivui %N, %1 : index
    %grid_y = arith.ceildivui %M, %1 : index
    %block_x = arith.constant 16 : index
    %block_y = arith.constant 16 : index
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
      %tile_a = memref.alloca() : memref<64x64xf8E4M3FN, 3 : i64>
      %tile_b_t = memref.alloca() : memref<64x64xf8E5M2, 3 : i64>
      %num_tiles = arith.ceildivui %K, %0 : index
      scf.for %t = %3 to %num_tiles step %4 {
        %k0 = arith.muli %t, %0 : index
        gemm.copy %A[%block_row, %k0] bounds[%M, %K] to %tile_a[] tid %tid {gemm.role = "load_a", extents = array<i64: 64, 64>, width = 1 : i64} : memref<64x128xf8E4M3FN>, memref<64x64xf8E4M3FN, 3 : i64>
        gemm.copy %B[%k0, %block_col] bounds[%K, %N] to %tile_b_t[] tid %tid {gemm.role = "load_b", extents = array<i64: 64, 64>, width = 1 : i64, transpose} : memref<128x64xf8E5M2>, memref<64x64xf8E5M2, 3 : i64>
        "gpu.barrier"() : () -> ()
        %8 = arith.constant 64 : index
        scf.for %kk = %5 to %8 step %7 {
          %a_frag = memref.alloca() : memref<4xf32, 5 : i64>
          %b_frag = memref.alloca() : memref<4xf32, 5 : i64>
          %thread_row = arith.muli %ty, %6 : index
          %thread_col = arith.muli %tx, %6 : index
          scf.for %i_1 = %5 to %6 step %7 {
            %9 = arith.addi %thread_row, %i_1 : index
            %a = memref.load %tile_a[%9, %kk] : memref<64x64xf8E4M3FN, 3 : i64>
            %10 = arith.extf %a : f8E4M3FN to f32
            memref.store %10, %a_frag[%i_1] : memref<4xf32, 5 : i64>
          }
          scf.for %j_1 = %5 to %6 step %7 {
            %11 = arith.addi %thread_col, %j_1 : index
            %b = memref.load %tile_b_t[%11, %kk] : memref<64x64xf8E5M2, 3 : i64>
            %12 = arith.extf %b : f8E5M2 to f32
            memref.store %12, %b_frag[%j_1] : memref<4xf32, 5 : i64>
          }
          scf.for %i_2 = %5 to %6 step %7 {
            scf.for %j_2 = %5 to %6 step %7 {
              %c = memref.load %acc[%i_2, %j_2] : memref<4x4xf32, 5 : i64>
              %a_1 = memref.load %a_frag[%i_2] : memref<4xf32, 5 : i64>
              %b_1 = memref.load %b_frag[%j_2] : memref<4xf32, 5 : i64>
              %13 = math.fma %a_1, %b_1, %c : f32
              memref.store %13, %acc[%i_2, %j_2] : memref<4x4xf32, 5 : i64>
            }
          }
        } {gemm.role = "compute"}
        "gpu.barrier"() : () -> ()
      } {gemm.role = "k_loop"}
      scf.for %i_3 = %5 to %6 step %7 {
        scf.for %j_3 = %5 to %6 step %7 {
          %14 = arith.muli %ty, %6 : index
          %15 = arith.addi %14, %i_3 : index
          %r = arith.addi %block_row, %15 : index
          %16 = arith.muli %tx, %6 : index
          %17 = arith.addi %16, %j_3 : index
          %c_1 = arith.addi %block_col, %17 : index
          %18 = arith.cmpi ult, %r, %M : index
          %19 = arith.cmpi ult, %c_1, %N : index
          %inside = arith.andi %18, %19 : i1
          scf.if %inside {
            %sum = memref.load %acc[%i_3, %j_3] {gemm.role = "acc_read"} : memref<4x4xf32, 5 : i64>
            memref.store %sum, %C[%r, %c_1] : memref<64x64xf32>
          }{gemm.role = "epilogue"}
        }
      }
      "gpu.return"() : () -> ()
    }) {sym_name = "g", gpu.known_block_size = array<i32: 16, 16, 1>, gemm.arg_dims = [["M", "K"], ["K", "N"], ["M", "N"]], gemm.schedule = {block_m = 64 : i64, block_n = 64 : i64, block_k = 64 : i64, threads_x = 16 : i64, threads_y = 16 : i64, thread_m = 4 : i64, thread_n = 4 : i64, contiguous = 1 : i64, b_transposed = 1 : i64}} : () -> ()
  }) : () -> ()
}

// CHECK-LABEL: "gpu.func"
// CHECK:         %tile_a = memref.alloca() : memref<64x64xf8E4M3FN, 3 : i64>
// CHECK-NEXT:    %tile_b_t = memref.alloca() : memref<64x64xf8E5M2, 3 : i64>
// CHECK:         scf.for %kk
// CHECK:           %a0 = vector.load %tile_a[%a_row, %[[K:.*]]] : memref<64x64xf8E4M3FN, 3 : i64>, vector<4xf8E4M3FN>
// CHECK:           %a1 = vector.load %tile_a[%{{.*}}, %[[K]]] : memref<64x64xf8E4M3FN, 3 : i64>, vector<4xf8E4M3FN>
// CHECK:           %a2 = vector.load %tile_a[%a_row, %{{.*}}]
// CHECK:           %a3 = vector.load %tile_a
// CHECK:           %a_2 = vector.shuffle %a, %a_1 [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15] : vector<8xf8E4M3FN>, vector<8xf8E4M3FN>
// CHECK:           %b0 = vector.load %tile_b_t[%b_col, %{{.*}}] : memref<64x64xf8E5M2, 3 : i64>, vector<4xf8E5M2>
// CHECK:           %b1 = vector.load %tile_b_t[%b_col, %{{.*}}] : memref<64x64xf8E5M2, 3 : i64>, vector<4xf8E5M2>
// CHECK:           %b = vector.shuffle %b0, %b1 [0, 1, 2, 3, 4, 5, 6, 7] : vector<4xf8E5M2>, vector<4xf8E5M2>
// CHECK:           nvgpu.mma_sync %a_2 * %b + %{{.*}} {m = 16 : i32, n = 8 : i32, k = 32 : i32} : vector<16xf8E4M3FN>, vector<8xf8E5M2>, vector<4xf32>
// CHECK:       gemm.schedule = {{{.*}}instr = "mma_m16n8k32_f32_e4m3_e5m2"
