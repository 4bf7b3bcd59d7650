// RUN: %gemmc opt %s --arch gfx1100 -p 'wmma-lowering,double-buffer' | filecheck %s
// RUN: %gemmc run %s --arch gfx1100 -p 'wmma-lowering,double-buffer' -D M=40 -D N=50 -D K=35 | filecheck %s --check-prefix=INTERP

// wmma-lowering in place on a register-tiled f16 kernel for gfx1100 (gemm-to-kernel,
// lds-tiling{block-m=64 block-n=64 block-k=16}, register-tiling{thread-m=4 thread-n=4}), then
// double-buffer in place on its output: waves of 32 lanes issue v_wmma_f32_16x16x16_f16 on
// fragments read at the compute's slot.
builtin.module attributes {gemmc.target = "gfx1100", gpu.container_module} {
  func.func @h(%A: memref<?x?xf16> {gemm.dims = ["M", "K"]}, %B: memref<?x?xf16> {gemm.dims = ["K", "N"]}, %C: memref<?x?xf32> {gemm.dims = ["M", "N"]}) attributes {gemm.matmul_spec = {a = 0 : i64, b = 1 : i64, c = 2 : i64, acc_type = f32}} {
    %0 = arith.constant 0 : index
    %M = memref.dim %C, %0 : memref<?x?xf32>
    %1 = arith.constant 1 : index
    %N = memref.dim %C, %1 : memref<?x?xf32>
    %2 = arith.constant 64 : index
    %grid_x = arith.ceildivui %N, %2 : index
    %grid_y = arith.ceildivui %M, %2 : index
    %block_x = arith.constant 16 : index
    %block_y = arith.constant 16 : index
    "gpu.launch_func"(%grid_x, %grid_y, %1, %block_x, %block_y, %1, %A, %B, %C) <{kernel = @h_kernels::@h, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 3, 0>}> : (index, index, index, index, index, index, memref<?x?xf16>, memref<?x?xf16>, memref<?x?xf32>) -> ()
    func.return
  }
  "gpu.module"() <{sym_name = "h_kernels"}> ({
    "gpu.func"() <{function_type = (memref<?x?xf16>, memref<?x?xf16>, memref<?x?xf32>) -> (), kernel}> ({
    ^bb0(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>):
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
      %tile_a = memref.alloca() : memref<64x16xf16, 3 : i64>
      %tile_b_t = memref.alloca() : memref<64x16xf16, 3 : i64>
      %num_tiles = arith.ceildivui %K, %3 : index
      scf.for %t = %5 to %num_tiles step %6 {
        %k0 = arith.muli %t, %3 : index
        gemm.copy %A[%block_row, %k0] bounds[%M, %K] to %tile_a[] tid %tid {gemm.role = "load_a", extents = array<i64: 64, 16>, width = 1 : i64} : memref<?x?xf16>, memref<64x16xf16, 3 : i64>
        gemm.copy %B[%k0, %block_col] bounds[%K, %N] to %tile_b_t[] tid %tid {gemm.role = "load_b", extents = array<i64: 16, 64>, width = 1 : i64, transpose} : memref<?x?xf16>, memref<64x16xf16, 3 : i64>
        "gpu.barrier"() : () -> ()
        %10 = arith.constant 16 : index
        scf.for %kk = %7 to %10 step %9 {
          %a_frag = memref.alloca() : memref<4xf32, 5 : i64>
          %b_frag = memref.alloca() : memref<4xf32, 5 : i64>
          %thread_row = arith.muli %ty, %8 : index
          %thread_col = arith.muli %tx, %8 : index
          scf.for %i_1 = %7 to %8 step %9 {
            %11 = arith.addi %thread_row, %i_1 : index
            %a = memref.load %tile_a[%11, %kk] : memref<64x16xf16, 3 : i64>
            %12 = arith.extf %a : f16 to f32
            memref.store %12, %a_frag[%i_1] : memref<4xf32, 5 : i64>
          }
          scf.for %j_1 = %7 to %8 step %9 {
            %13 = arith.addi %thread_col, %j_1 : index
            %b = memref.load %tile_b_t[%13, %kk] : memref<64x16xf16, 3 : i64>
            %14 = arith.extf %b : f16 to f32
            memref.store %14, %b_frag[%j_1] : memref<4xf32, 5 : i64>
          }
          scf.for %i_2 = %7 to %8 step %9 {
            scf.for %j_2 = %7 to %8 step %9 {
              %c = memref.load %acc[%i_2, %j_2] : memref<4x4xf32, 5 : i64>
              %a_1 = memref.load %a_frag[%i_2] : memref<4xf32, 5 : i64>
              %b_1 = memref.load %b_frag[%j_2] : memref<4xf32, 5 : i64>
              %15 = math.fma %a_1, %b_1, %c : f32
              memref.store %15, %acc[%i_2, %j_2] : memref<4x4xf32, 5 : i64>
            }
          }
        } {gemm.role = "compute"}
        "gpu.barrier"() : () -> ()
      } {gemm.role = "k_loop"}
      scf.for %i_3 = %7 to %8 step %9 {
        scf.for %j_3 = %7 to %8 step %9 {
          %16 = arith.muli %ty, %8 : index
          %17 = arith.addi %16, %i_3 : index
          %r = arith.addi %block_row, %17 : index
          %18 = arith.muli %tx, %8 : index
          %19 = arith.addi %18, %j_3 : index
          %c_1 = arith.addi %block_col, %19 : index
          %20 = arith.cmpi ult, %r, %M : index
          %21 = arith.cmpi ult, %c_1, %N : index
          %inside = arith.andi %20, %21 : i1
          scf.if %inside {
            %sum = memref.load %acc[%i_3, %j_3] {gemm.role = "acc_read"} : memref<4x4xf32, 5 : i64>
            memref.store %sum, %C[%r, %c_1] : memref<?x?xf32>
          }{gemm.role = "epilogue"}
        }
      }
      "gpu.return"() : () -> ()
    }) {sym_name = "h", gpu.known_block_size = array<i32: 16, 16, 1>, gemm.arg_dims = [["M", "K"], ["K", "N"], ["M", "N"]], gemm.schedule = {block_m = 64 : i64, block_n = 64 : i64, block_k = 16 : i64, threads_x = 16 : i64, threads_y = 16 : i64, thread_m = 4 : i64, thread_n = 4 : i64, contiguous = 1 : i64, b_transposed = 1 : i64}} : () -> ()
  }) : () -> ()
}

// CHECK-LABEL: func.func @h
// CHECK:         %block_x = arith.constant 64 : index
// CHECK-NEXT:    %block_y = arith.constant 4 : index
// CHECK-LABEL: ^bb0(%A: memref<?x?xf16>
// CHECK:         %lane = arith.remui %tx, %{{.*}} : index
// CHECK:         %acc = memref.alloca() : memref<1x2x8xf32, 5 : i64>
// CHECK:         }{gemm.role = "prologue"}
// CHECK:           }{gemm.role = "prefetch"}
// CHECK:           %slot_2 = arith.remui %t
// CHECK:             %a = vector.load %tile_a[%slot_2, %a_row, %kk] : memref<2x64x16xf16, 3 : i64>, vector<16xf16>
// CHECK:             %d = amdgpu.wmma %a * %b + %c {m = 16 : i32, n = 16 : i32, k = 16 : i32} : vector<16xf16>, vector<16xf16>, vector<8xf32>
// CHECK:             %d_1 = amdgpu.wmma %a * %b_1 + %c_1
// CHECK:           } {gemmc.unroll, gemm.role = "compute"}
// CHECK:       gpu.known_block_size = array<i32: 64, 4, 1>

// INTERP: PASS
