// RUN: %gemmc opt %s --arch gfx1100 -p double-buffer | filecheck %s
// RUN: %gemmc opt %s --arch gfx942 -p double-buffer | filecheck %s --check-prefix=SM90
// RUN: %gemmc opt %s --arch sm_90 -p double-buffer | filecheck %s --check-prefix=SM90
// RUN: %gemmc opt %s --arch sm_90 -p 'double-buffer,vectorize{width=4}' | filecheck %s --check-prefix=VEC
// RUN: %gemmc opt %s --arch sm_90 -p 'double-buffer{stage=registers}' | filecheck %s --check-prefix=REGS

// double-buffer's per-target walk of a scalar copy into a transposed tile (tile_b_t), on
// register-tiling's output (gemm-to-kernel, lds-tiling{32,32,8}, register-tiling{4,4}):
// on RDNA (gfx1100) the copy keeps walking B's global rows (coalesced loads); on sm_90 and
// CDNA (transposed_copy_column_first) it is marked column_first.  A's copy, not transposed, is
// never marked; neither is one staged through registers, and vectorize, which makes the copy
// move whole rows, drops the mark.
builtin.module attributes {gemmc.target = "gfx942", gpu.container_module} {
  func.func @tc(%A: memref<64x64xf32> {gemm.dims = ["M", "K"]}, %B: memref<64x64xf32> {gemm.dims = ["K", "N"]}, %C: memref<64x64xf32> {gemm.dims = ["M", "N"]}) attributes {gemm.matmul_spec = {a = 0 : i64, b = 1 : i64, c = 2 : i64, acc_type = f32}} {
    %M = arith.constant 64 : index
    %N = arith.constant 64 : index
    %0 = arith.constant 1 : index
    %1 = arith.constant 32 : index
    %grid_x = arith.ceildivui %N, %1 : index
    %grid_y = arith.ceildivui %M, %1 : index
    %block_x = arith.constant 8 : index
    %block_y = arith.constant 8 : index
    "gpu.launch_func"(%grid_x, %grid_y, %0, %block_x, %block_y, %0, %A, %B, %C) <{kernel = @tc_kernels::@tc, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 3, 0>}> : (index, index, index, index, index, index, memref<64x64xf32>, memref<64x64xf32>, memref<64x64xf32>) -> ()
    func.return
  }
  "gpu.module"() <{sym_name = "tc_kernels"}> ({
    "gpu.func"() <{function_type = (memref<64x64xf32>, memref<64x64xf32>, memref<64x64xf32>) -> (), kernel}> ({
    ^bb0(%A: memref<64x64xf32>, %B: memref<64x64xf32>, %C: memref<64x64xf32>):
      %M = arith.constant 64 : index
      %N = arith.constant 64 : index
      %K = arith.constant 64 : index
      %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
      %tx = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %by = "gpu.block_id"() <{dimension = #gpu<dim y>}> : () -> index
      %ty = "gpu.thread_id"() <{dimension = #gpu<dim y>}> : () -> index
      %0 = arith.constant 32 : index
      %block_row = arith.muli %by, %0 : index
      %block_col = arith.muli %bx, %0 : index
      %1 = arith.constant 8 : index
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
      %tile_a = memref.alloca() : memref<32x8xf32, 3 : i64>
      %tile_b_t = memref.alloca() : memref<32x8xf32, 3 : i64>
      %8 = arith.constant 8 : index
      %num_tiles = arith.ceildivui %K, %8 : index
      scf.for %t = %3 to %num_tiles step %4 {
        %k0 = arith.muli %t, %8 : index
        gemm.copy %A[%block_row, %k0] bounds[%M, %K] to %tile_a[] tid %tid {gemm.role = "load_a", extents = array<i64: 32, 8>, width = 1 : i64} : memref<64x64xf32>, memref<32x8xf32, 3 : i64>
        gemm.copy %B[%k0, %block_col] bounds[%K, %N] to %tile_b_t[] tid %tid {gemm.role = "load_b", extents = array<i64: 8, 32>, width = 1 : i64, transpose} : memref<64x64xf32>, memref<32x8xf32, 3 : i64>
        "gpu.barrier"() : () -> ()
        %9 = arith.constant 8 : index
        scf.for %kk = %5 to %9 step %7 {
          %a_frag = memref.alloca() : memref<4xf32, 5 : i64>
          %b_frag = memref.alloca() : memref<4xf32, 5 : i64>
          %thread_row = arith.muli %ty, %6 : index
          %thread_col = arith.muli %tx, %6 : index
          scf.for %i_1 = %5 to %6 step %7 {
            %10 = arith.addi %thread_row, %i_1 : index
            %a = memref.load %tile_a[%10, %kk] : memref<32x8xf32, 3 : i64>
            memref.store %a, %a_frag[%i_1] : memref<4xf32, 5 : i64>
          }
          scf.for %j_1 = %5 to %6 step %7 {
            %11 = arith.addi %thread_col, %j_1 : index
            %b = memref.load %tile_b_t[%11, %kk] : memref<32x8xf32, 3 : i64>
            memref.store %b, %b_frag[%j_1] : memref<4xf32, 5 : i64>
          }
          scf.for %i_2 = %5 to %6 step %7 {
            scf.for %j_2 = %5 to %6 step %7 {
              %c = memref.load %acc[%i_2, %j_2] : memref<4x4xf32, 5 : i64>
              %a_1 = memref.load %a_frag[%i_2] : memref<4xf32, 5 : i64>
              %b_1 = memref.load %b_frag[%j_2] : memref<4xf32, 5 : i64>
              %12 = math.fma %a_1, %b_1, %c : f32
              memref.store %12, %acc[%i_2, %j_2] : memref<4x4xf32, 5 : i64>
            }
          }
        } {gemm.role = "compute"}
        "gpu.barrier"() : () -> ()
      } {gemm.role = "k_loop"}
      scf.for %i_3 = %5 to %6 step %7 {
        scf.for %j_3 = %5 to %6 step %7 {
          %13 = arith.muli %ty, %6 : index
          %14 = arith.addi %13, %i_3 : index
          %r = arith.addi %block_row, %14 : index
          %15 = arith.muli %tx, %6 : index
          %16 = arith.addi %15, %j_3 : index
          %c_1 = arith.addi %block_col, %16 : index
          %17 = arith.cmpi ult, %r, %M : index
          %18 = arith.cmpi ult, %c_1, %N : index
          %inside = arith.andi %17, %18 : i1
          scf.if %inside {
            %sum = memref.load %acc[%i_3, %j_3] {gemm.role = "acc_read"} : memref<4x4xf32, 5 : i64>
            memref.store %sum, %C[%r, %c_1] : memref<64x64xf32>
          }{gemm.role = "epilogue"}
        }
      }
      "gpu.return"() : () -> ()
    }) {sym_name = "tc", gpu.known_block_size = array<i32: 8, 8, 1>, gemm.arg_dims = [["M", "K"], ["K", "N"], ["M", "N"]], gemm.schedule = {block_m = 32 : i64, block_n = 32 : i64, block_k = 8 : i64, threads_x = 8 : i64, threads_y = 8 : i64, thread_m = 4 : i64, thread_n = 4 : i64, contiguous = 1 : i64, b_transposed = 1 : i64}} : () -> ()
  }) : () -> ()
}

// CHECK-LABEL: "gpu.module"() <{sym_name = "tc_kernels"}>
// CHECK:         gemm.copy %A{{.*}} tid %tid {gemm.role = "load_a", extents = array<i64: 32, 8>, width = 1 : i64} :
// CHECK-NEXT:    gemm.copy %B{{.*}} tid %tid {gemm.role = "load_b", extents = array<i64: 8, 32>, width = 1 : i64, transpose} :
// CHECK-NOT:     column_first

// SM90-LABEL: "gpu.module"() <{sym_name = "tc_kernels"}>
// SM90:         gemm.copy %A{{.*}} tid %tid {gemm.role = "load_a", extents = array<i64: 32, 8>, width = 1 : i64} :
// SM90-NEXT:    gemm.copy %B{{.*}} to %tile_b_t[%slot] {{.*}}, transpose, column_first} :
// SM90:         scf.if %has_next {
// SM90:           gemm.copy %B{{.*}} to %tile_b_t[%slot_1] {{.*}}, transpose, column_first} :

// VEC-LABEL: "gpu.module"() <{sym_name = "tc_kernels"}>
// VEC-NOT:     column_first

// REGS-LABEL: "gpu.module"() <{sym_name = "tc_kernels"}>
// REGS-NOT:     column_first
