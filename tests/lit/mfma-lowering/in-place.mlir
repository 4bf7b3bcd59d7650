// RUN: %gemmc opt %s -p mfma-lowering | filecheck %s
// RUN: %gemmc run %s -p mfma-lowering -D M=70 -D N=50 -D K=40 | filecheck %s --check-prefix=INTERP

// mfma-lowering in place on a register-tiled kernel that double-buffer already pipelined (gfx942,
// gemm-to-kernel, lds-tiling{block-m=64 block-n=64 block-k=16}, register-tiling{thread-m=4 thread-n=4},
// double-buffer): 2x2 waves of 64 lanes, one 32x32x2 f32 MFMA tile each; the fragments are read at
// the compute's slot; the copies, the prologue and the prefetch stay.
builtin.module attributes {gemmc.target = "gfx942", gpu.container_module} {
  func.func @t(%A: memref<?x?xf32> {gemm.dims = ["M", "K"]}, %B: memref<?x?xf32> {gemm.dims = ["K", "N"]}, %C: memref<?x?xf32> {gemm.dims = ["M", "N"]}) attributes {gemm.matmul_spec = {a = 0 : i64, b = 1 : i64, c = 2 : i64, acc_type = f32}} {
    %0 = arith.constant 0 : index
    %M = memref.dim %C, %0 : memref<?x?xf32>
    %1 = arith.constant 1 : index
    %N = memref.dim %C, %1 : memref<?x?xf32>
    %2 = arith.constant 64 : index
    %grid_x = arith.ceildivui %N, %2 : index
    %grid_y = arith.ceildivui %M, %2 : index
    %block_x = arith.constant 16 : index
    %block_y = arith.constant 16 : index
    "gpu.launch_func"(%grid_x, %grid_y, %1, %block_x, %block_y, %1, %A, %B, %C) <{kernel = @t_kernels::@t, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 3, 0>}> : (index, index, index, index, index, index, memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> ()
    func.return
  }
  "gpu.module"() <{sym_name = "t_kernels"}> ({
    "gpu.func"() <{function_type = (memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> (), kernel}> ({
    ^bb0(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>):
      %0 = arith.constant 0 : index
      %M = memref.dim %C, %0 : memref<?x?xf32>
      %1 = arith.constant 1 : index
      %N = memref.dim %C, %1 : memref<?x?xf32>
      %K = memref.dim %A, %1 : memref<?x?xf32>
      %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
      %tx = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %by = "gpu.block_id"() <{dimension = #gpu<dim y>}> : () -> index
      %ty = "gpu.thread_id"() <{dimension = #gpu<dim y>}> : () -> index
      %2 = arith.constant 64 : index
      %block_row = arith.muli %by, %2 : index
      %block_col = arith.muli %bx, %2 : index
      %3 = arith.constant 16 : index
      %4 = arith.muli %ty, %3 : index
      %tid = arith.addi %4, %tx : index
      %5 = arith.constant 0 : index
      %6 = arith.constant 1 : index
      %acc = memref.alloca() : memref<4x4xf32, 5 : i64>
      %zero = arith.constant 0.000000e+00 : f32
      %7 = arith.constant 0 : index
      %8 = arith.constant 4 : index
      %9 = arith.constant 1 : index
      scf.for %i = %7 to %8 step %9 {
        scf.for %j = %7 to %8 step %9 {
          memref.store %zero, %acc[%i, %j] : memref<4x4xf32, 5 : i64>
        }
      }
      %tile_a = memref.alloca() : memref<2x64x16xf32, 3 : i64>
      %tile_b_t = memref.alloca() : memref<2x64x16xf32, 3 : i64>
      %num_tiles = arith.ceildivui %K, %3 : index
      %10 = arith.cmpi ult, %5, %num_tiles : index
      scf.if %10 {
        %11 = arith.constant 2 : index
        %slot = arith.constant 0 : index
        %k0 = arith.constant 0 : index
        gemm.copy %A[%block_row, %k0] bounds[%M, %K] to %tile_a[%slot] tid %tid {gemm.role = "load_a", extents = array<i64: 64, 16>, width = 1 : i64} : memref<?x?xf32>, memref<2x64x16xf32, 3 : i64>
        gemm.copy %B[%k0, %block_col] bounds[%K, %N] to %tile_b_t[%slot] tid %tid {gemm.role = "load_b", extents = array<i64: 16, 64>, width = 1 : i64, transpose} : memref<?x?xf32>, memref<2x64x16xf32, 3 : i64>
      }{gemm.role = "prologue"}
      "gpu.barrier"() : () -> ()
      scf.for %t = %5 to %num_tiles step %6 {
        %12 = arith.constant 1 : index
        %next_t = arith.addi %t, %12 : index
        %has_next = arith.cmpi ult, %next_t, %num_tiles : index
        scf.if %has_next {
          %13 = arith.constant 2 : index
          %slot_1 = arith.remui %next_t, %13 : index
          %k0_1 = arith.muli %next_t, %3 : index
          gemm.copy %A[%block_row, %k0_1] bounds[%M, %K] to %tile_a[%slot_1] tid %tid {gemm.role = "load_a", extents = array<i64: 64, 16>, width = 1 : i64} : memref<?x?xf32>, memref<2x64x16xf32, 3 : i64>
          gemm.copy %B[%k0_1, %block_col] bounds[%K, %N] to %tile_b_t[%slot_1] tid %tid {gemm.role = "load_b", extents = array<i64: 16, 64>, width = 1 : i64, transpose} : memref<?x?xf32>, memref<2x64x16xf32, 3 : i64>
        }{gemm.role = "prefetch"}
        %14 = arith.constant 2 : index
        %slot_2 = arith.remui %t, %14 : index
        %15 = arith.constant 16 : index
        scf.for %kk = %7 to %15 step %9 {
          %a_frag = memref.alloca() : memref<4xf32, 5 : i64>
          %b_frag = memref.alloca() : memref<4xf32, 5 : i64>
          %thread_row = arith.muli %ty, %8 : index
          %thread_col = arith.muli %tx, %8 : index
          scf.for %i_1 = %7 to %8 step %9 {
            %16 = arith.addi %thread_row, %i_1 : index
            %a = memref.load %tile_a[%slot_2, %16, %kk] : memref<2x64x16xf32, 3 : i64>
            memref.store %a, %a_frag[%i_1] : memref<4xf32, 5 : i64>
          }
          scf.for %j_1 = %7 to %8 step %9 {
            %17 = arith.addi %thread_col, %j_1 : index
            %b = memref.load %tile_b_t[%slot_2, %17, %kk] : memref<2x64x16xf32, 3 : i64>
            memref.store %b, %b_frag[%j_1] : memref<4xf32, 5 : i64>
          }
          scf.for %i_2 = %7 to %8 step %9 {
            scf.for %j_2 = %7 to %8 step %9 {
              %c = memref.load %acc[%i_2, %j_2] : memref<4x4xf32, 5 : i64>
              %a_1 = memref.load %a_frag[%i_2] : memref<4xf32, 5 : i64>
              %b_1 = memref.load %b_frag[%j_2] : memref<4xf32, 5 : i64>
              %18 = math.fma %a_1, %b_1, %c : f32
              memref.store %18, %acc[%i_2, %j_2] : memref<4x4xf32, 5 : i64>
            }
          }
        } {gemm.role = "compute"}
        "gpu.barrier"() : () -> ()
      } {gemm.role = "k_loop"}
      scf.for %i_3 = %7 to %8 step %9 {
        scf.for %j_3 = %7 to %8 step %9 {
          %19 = arith.muli %ty, %8 : index
          %20 = arith.addi %19, %i_3 : index
          %r = arith.addi %block_row, %20 : index
          %21 = arith.muli %tx, %8 : index
          %22 = arith.addi %21, %j_3 : index
          %c_1 = arith.addi %block_col, %22 : index
          %23 = arith.cmpi ult, %r, %M : index
          %24 = arith.cmpi ult, %c_1, %N : index
          %inside = arith.andi %23, %24 : i1
          scf.if %inside {
            %sum = memref.load %acc[%i_3, %j_3] {gemm.role = "acc_read"} : memref<4x4xf32, 5 : i64>
            memref.store %sum, %C[%r, %c_1] : memref<?x?xf32>
          }{gemm.role = "epilogue"}
        }
      }
      "gpu.return"() : () -> ()
    }) {sym_name = "t", gpu.known_block_size = array<i32: 16, 16, 1>, gemm.arg_dims = [["M", "K"], ["K", "N"], ["M", "N"]], gemm.schedule = {block_m = 64 : i64, block_n = 64 : i64, block_k = 16 : i64, threads_x = 16 : i64, threads_y = 16 : i64, thread_m = 4 : i64, thread_n = 4 : i64, contiguous = 1 : i64, b_transposed = 1 : i64}} : () -> ()
  }) : () -> ()
}

// CHECK-LABEL: func.func @t
// CHECK:         %block_x = arith.constant 128 : index
// CHECK-NEXT:    %block_y = arith.constant 2 : index
// CHECK-LABEL: ^bb0(%A: memref<?x?xf32>
// CHECK:         %tid = arith.addi %{{.*}}, %tx : index
// CHECK:         %lane = arith.remui %tx, %{{.*}} : index
// CHECK-NEXT:    %wave_n = arith.divui %tx, %{{.*}} : index
// CHECK:         %acc = memref.alloca() : memref<1x1x16xf32, 5 : i64>
// CHECK:         %tile_a = memref.alloca() : memref<2x64x16xf32, 3 : i64>
// CHECK-NEXT:    %tile_b_t = memref.alloca() : memref<2x64x16xf32, 3 : i64>
// CHECK:         }{gemm.role = "prologue"}
// CHECK:           }{gemm.role = "prefetch"}
// CHECK:           %slot_2 = arith.remui %t
// CHECK:           scf.for %kk
// CHECK:             %a = memref.load %tile_a[%slot_2, %a_row, %{{.*}}]
// CHECK:             %b = memref.load %tile_b_t[%slot_2, %b_col, %{{.*}}]
// CHECK:             %d = amdgpu.mfma %a * %b + %c {m = 32 : i32, n = 32 : i32, k = 2 : i32, blocks = 1 : i32} : f32, f32, vector<16xf32>
// CHECK:           } {gemmc.unroll, gemm.role = "compute"}
// CHECK-NEXT:      "gpu.barrier"() : () -> ()
// CHECK-NEXT:    } {gemm.role = "k_loop"}
// CHECK:       gpu.known_block_size = array<i32: 128, 2, 1>

// INTERP: PASS
