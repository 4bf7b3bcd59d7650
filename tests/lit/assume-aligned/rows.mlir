// RUN: %gemmc opt %s -p 'assume-aligned{multiple=4}' | filecheck %s
// RUN: %gemmc opt %s -p 'assume-aligned{multiple=4},vectorize{width=4 strict=true}' | filecheck %s --check-prefix=VEC
// RUN: not %gemmc opt %s -p 'vectorize{width=4 strict=true}' 2>&1 | filecheck %s --check-prefix=UNPROVEN
// RUN: not %gemmc opt %s -p 'assume-aligned{multiple=0}' 2>&1 | filecheck %s --check-prefix=ZERO

// assume-aligned on lds-tiling's kernel over dynamic matrices: one gemm.assume_rows_aligned per
// matrix at the top of the kernel, which vectorize then takes as the proof of the rows' alignment.

// CHECK-LABEL: "gpu.func"
// CHECK-NEXT:  ^bb0(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>):
// CHECK-NEXT:    gemm.assume_rows_aligned %C {multiple = 4 : i64} : memref<?x?xf32>
// CHECK-NEXT:    gemm.assume_rows_aligned %B {multiple = 4 : i64} : memref<?x?xf32>
// CHECK-NEXT:    gemm.assume_rows_aligned %A {multiple = 4 : i64} : memref<?x?xf32>

// VEC:         gemm.copy %A{{.*}}width = 4 : i64
// VEC:         gemm.copy %B{{.*}}width = 4 : i64

// UNPROVEN: error: vectorize: cannot vectorize A by 4: its row length is dynamic, so row starts are not provably aligned; assume-aligned asserts they are
// ZERO: error: assume-aligned: multiple=0 must be at least 1

builtin.module attributes {gemmc.target = "gfx942", gpu.container_module} {
  func.func @d(%A: memref<?x?xf32> {gemm.dims = ["M", "K"]}, %B: memref<?x?xf32> {gemm.dims = ["K", "N"]}, %C: memref<?x?xf32> {gemm.dims = ["M", "N"]}) attributes {gemm.matmul_spec = {a = 0 : i64, b = 1 : i64, c = 2 : i64, acc_type = f32}} {
    %0 = arith.constant 0 : index
    %M = memref.dim %C, %0 : memref<?x?xf32>
    %1 = arith.constant 1 : index
    %N = memref.dim %C, %1 : memref<?x?xf32>
    %2 = arith.constant 16 : index
    %grid_x = arith.ceildivui %N, %2 : index
    %grid_y = arith.ceildivui %M, %2 : index
    %block_x = arith.constant 16 : index
    %block_y = arith.constant 16 : index
    "gpu.launch_func"(%grid_x, %grid_y, %1, %block_x, %block_y, %1, %A, %B, %C) <{kernel = @d_kernels::@d, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 3, 0>}> : (index, index, index, index, index, index, memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> ()
    func.return
  }
  "gpu.module"() <{sym_name = "d_kernels"}> ({
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
      %2 = arith.constant 16 : index
      %block_row = arith.muli %by, %2 : index
      %block_col = arith.muli %bx, %2 : index
      %3 = arith.muli %ty, %2 : index
      %tid = arith.addi %3, %tx : index
      %acc = memref.alloca() : memref<1x1xf32, 5 : i64>
      %zero = arith.constant 0.000000e+00 : f32
      %4 = arith.constant 0 : index
      memref.store %zero, %acc[%4, %4] : memref<1x1xf32, 5 : i64>
      %tile_a = memref.alloca() : memref<16x16xf32, 3 : i64>
      %tile_b = memref.alloca() : memref<16x16xf32, 3 : i64>
      %num_tiles = arith.ceildivui %K, %2 : index
      %5 = arith.constant 1 : index
      scf.for %t = %4 to %num_tiles step %5 {
        %k0 = arith.muli %t, %2 : index
        gemm.copy %A[%block_row, %k0] bounds[%M, %K] to %tile_a[] tid %tid {gemm.role = "load_a", extents = array<i64: 16, 16>, width = 1 : i64} : memref<?x?xf32>, memref<16x16xf32, 3 : i64>
        gemm.copy %B[%k0, %block_col] bounds[%K, %N] to %tile_b[] tid %tid {gemm.role = "load_b", extents = array<i64: 16, 16>, width = 1 : i64} : memref<?x?xf32>, memref<16x16xf32, 3 : i64>
        "gpu.barrier"() : () -> ()
        scf.for %kk = %4 to %2 step %5 {
          %c = memref.load %acc[%4, %4] : memref<1x1xf32, 5 : i64>
          %a = memref.load %tile_a[%ty, %kk] : memref<16x16xf32, 3 : i64>
          %b = memref.load %tile_b[%kk, %tx] : memref<16x16xf32, 3 : i64>
          %6 = math.fma %a, %b, %c : f32
          memref.store %6, %acc[%4, %4] : memref<1x1xf32, 5 : i64>
        } {gemm.role = "compute"}
        "gpu.barrier"() : () -> ()
      } {gemm.role = "k_loop"}
      %r = arith.addi %block_row, %ty : index
      %c_1 = arith.addi %block_col, %tx : index
      %7 = arith.cmpi ult, %r, %M : index
      %8 = arith.cmpi ult, %c_1, %N : index
      %inside = arith.andi %7, %8 : i1
      scf.if %inside {
        %sum = memref.load %acc[%4, %4] {gemm.role = "acc_read"} : memref<1x1xf32, 5 : i64>
        memref.store %sum, %C[%r, %c_1] : memref<?x?xf32>
      }{gemm.role = "epilogue"}
      "gpu.return"() : () -> ()
    }) {sym_name = "d", gpu.known_block_size = array<i32: 16, 16, 1>, gemm.arg_dims = [["M", "K"], ["K", "N"], ["M", "N"]], gemm.schedule = {block_m = 16 : i64, block_n = 16 : i64, block_k = 16 : i64, threads_x = 16 : i64, threads_y = 16 : i64, thread_m = 1 : i64, thread_n = 1 : i64, contiguous = 0 : i64, b_transposed = 0 : i64}} : () -> ()
  }) : () -> ()
}
