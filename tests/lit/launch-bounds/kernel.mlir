// RUN: %gemmc opt %s -p 'launch-bounds{max-threads=256 min-waves-per-eu=2}' | filecheck %s
// RUN: not %gemmc opt %s -p 'launch-bounds{max-threads=128}' 2>&1 | filecheck %s --check-prefix=SMALL

// launch-bounds on any kernel: the ROCDL attributes on the gpu.func and nothing else (here
// lds-tiling's 16x16-thread kernel).
builtin.module attributes {gemmc.target = "gfx942", gpu.container_module} {
  func.func @db(%A: memref<64x32xf32> {gemm.dims = ["M", "K"]}, %B: memref<32x64xf32> {gemm.dims = ["K", "N"]}, %C: memref<64x64xf32> {gemm.dims = ["M", "N"]}) attributes {gemm.matmul_spec = {a = 0 : i64, b = 1 : i64, c = 2 : i64, acc_type = f32}} {
    %M = arith.constant 64 : index
    %N = arith.constant 64 : index
    %0 = arith.constant 1 : index
    %1 = arith.constant 32 : index
    %grid_x = arith.ceildivui %N, %1 : index
    %grid_y = arith.ceildivui %M, %1 : index
    %block_x = arith.constant 16 : index
    %block_y = arith.constant 16 : index
    "gpu.launch_func"(%grid_x, %grid_y, %0, %block_x, %block_y, %0, %A, %B, %C) <{kernel = @db_kernels::@db, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 3, 0>}> : (index, index, index, index, index, index, memref<64x32xf32>, memref<32x64xf32>, memref<64x64xf32>) -> ()
    func.return
  }
  "gpu.module"() <{sym_name = "db_kernels"}> ({
    "gpu.func"() <{function_type = (memref<64x32xf32>, memref<32x64xf32>, memref<64x64xf32>) -> (), kernel}> ({
    ^bb0(%A: memref<64x32xf32>, %B: memref<32x64xf32>, %C: memref<64x64xf32>):
      %M = arith.constant 64 : index
      %N = arith.constant 64 : index
      %K = arith.constant 32 : index
      %tx = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %ty = "gpu.thread_id"() <{dimension = #gpu<dim y>}> : () -> index
      %by = "gpu.block_id"() <{dimension = #gpu<dim y>}> : () -> index
      %0 = arith.constant 32 : index
      %block_row = arith.muli %by, %0 : index
      %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
      %block_col = arith.muli %bx, %0 : index
      %1 = arith.constant 16 : index
      %2 = arith.muli %ty, %1 : index
      %tid = arith.addi %2, %tx : index
      %acc = memref.alloca() : memref<2x2xf32, 5 : i64>
      %zero = arith.constant 0.000000e+00 : f32
      %3 = arith.constant 0 : index
      %4 = arith.constant 2 : index
      %5 = arith.constant 1 : index
      scf.for %i = %3 to %4 step %5 {
        scf.for %j = %3 to %4 step %5 {
          memref.store %zero, %acc[%i, %j] : memref<2x2xf32, 5 : i64>
        }
      }
      %tile_a = memref.alloca() : memref<32x8xf32, 3 : i64>
      %tile_b = memref.alloca() : memref<8x32xf32, 3 : i64>
      %6 = arith.constant 8 : index
      %num_tiles = arith.ceildivui %K, %6 : index
      scf.for %t = %3 to %num_tiles step %5 {
        %k0 = arith.muli %t, %6 : index
        gemm.copy %A[%block_row, %k0] bounds[%M, %K] to %tile_a[] tid %tid {gemm.role = "load_a", extents = array<i64: 32, 8>, width = 1 : i64} : memref<64x32xf32>, memref<32x8xf32, 3 : i64>
        gemm.copy %B[%k0, %block_col] bounds[%K, %N] to %tile_b[] tid %tid {gemm.role = "load_b", extents = array<i64: 8, 32>, width = 1 : i64} : memref<32x64xf32>, memref<8x32xf32, 3 : i64>
        "gpu.barrier"() : () -> ()
        scf.for %kk = %3 to %6 step %5 {
          scf.for %i_1 = %3 to %4 step %5 {
            scf.for %j_1 = %3 to %4 step %5 {
              %7 = arith.muli %i_1, %1 : index
              %8 = arith.addi %ty, %7 : index
              %9 = arith.muli %j_1, %1 : index
              %10 = arith.addi %tx, %9 : index
              %c = memref.load %acc[%i_1, %j_1] : memref<2x2xf32, 5 : i64>
              %a = memref.load %tile_a[%8, %kk] : memref<32x8xf32, 3 : i64>
              %b = memref.load %tile_b[%kk, %10] : memref<8x32xf32, 3 : i64>
              %11 = math.fma %a, %b, %c : f32
              memref.store %11, %acc[%i_1, %j_1] : memref<2x2xf32, 5 : i64>
            }
          }
        } {gemm.role = "compute"}
        "gpu.barrier"() : () -> ()
      } {gemm.role = "k_loop"}
      scf.for %i_2 = %3 to %4 step %5 {
        scf.for %j_2 = %3 to %4 step %5 {
          %12 = arith.muli %i_2, %1 : index
          %13 = arith.addi %ty, %12 : index
          %r = arith.addi %block_row, %13 : index
          %14 = arith.muli %j_2, %1 : index
          %15 = arith.addi %tx, %14 : index
          %c_1 = arith.addi %block_col, %15 : index
          %16 = arith.cmpi ult, %r, %M : index
          %17 = arith.cmpi ult, %c_1, %N : index
          %inside = arith.andi %16, %17 : i1
          scf.if %inside {
            %sum = memref.load %acc[%i_2, %j_2] {gemm.role = "acc_read"} : memref<2x2xf32, 5 : i64>
            memref.store %sum, %C[%r, %c_1] : memref<64x64xf32>
          }{gemm.role = "epilogue"}
        }
      }
      "gpu.return"() : () -> ()
    }) {sym_name = "db", gpu.known_block_size = array<i32: 16, 16, 1>, gemm.arg_dims = [["M", "K"], ["K", "N"], ["M", "N"]], gemm.schedule = {block_m = 32 : i64, block_n = 32 : i64, block_k = 8 : i64, threads_x = 16 : i64, threads_y = 16 : i64, thread_m = 2 : i64, thread_n = 2 : i64, contiguous = 0 : i64, b_transposed = 0 : i64}} : () -> ()
  }) : () -> ()
}

// CHECK-LABEL: ^bb0(%A: memref<64x32xf32>
// CHECK:         gemm.copy %A
// CHECK:       }) {sym_name = "db", gpu.known_block_size = array<i32: 16, 16, 1>,{{.*}} rocdl.flat_work_group_size = "1,256", rocdl.waves_per_eu = 2 : i32}

// SMALL: error: launch-bounds: max-threads=128 must be between the workgroup's 256 threads and 1024 (at 'gpu.func' @db)
