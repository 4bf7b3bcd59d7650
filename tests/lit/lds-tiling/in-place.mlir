// RUN: %gemmc opt %s -p 'lds-tiling{block-m=16 block-n=16 block-k=8}' | filecheck %s
// RUN: %gemmc run %s -p 'lds-tiling{block-m=16 block-n=16 block-k=8}' -D M=37 -D N=21 -D K=19 | filecheck %s --check-prefix=INTERP
// RUN: sed 's/^      %%bx = /      "gpu.barrier"() {mine} : () -> ()\n      %%bx = /' %s > %t.mlir
// RUN: %gemmc opt %t.mlir -p 'lds-tiling{block-m=16 block-n=16 block-k=8}' | filecheck %s --check-prefix=KEPT

// lds-tiling on gemm-to-kernel{block-x=8 block-y=8}'s kernel: the guarded K loop becomes the tiled
// loop nest (gemm.copy into LDS, barriers, a 2x2 accumulator tile per thread), built from the
// kernel's own sizes and ids; what stands before the guard stays (a barrier of the user's, below);
// the epilogue (alpha) moves along.
builtin.module attributes {gemmc.target = "gfx942", gpu.container_module} {
  func.func @lt(%A: memref<?x?xf32> {gemm.dims = ["M", "K"]}, %B: memref<?x?xf32> {gemm.dims = ["K", "N"]}, %C: memref<?x?xf32> {gemm.dims = ["M", "N"]}, %alpha: f32) attributes {gemm.matmul_spec = {a = 0 : i64, b = 1 : i64, c = 2 : i64, acc_type = f32, alpha = 3 : i64}} {
    %0 = arith.constant 0 : index
    %M = memref.dim %C, %0 : memref<?x?xf32>
    %1 = arith.constant 1 : index
    %N = memref.dim %C, %1 : memref<?x?xf32>
    %2 = arith.constant 8 : index
    %grid_x = arith.ceildivui %N, %2 : index
    %grid_y = arith.ceildivui %M, %2 : index
    "gpu.launch_func"(%grid_x, %grid_y, %1, %2, %2, %1, %A, %B, %C, %alpha) <{kernel = @lt_kernels::@lt, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 4, 0>}> : (index, index, index, index, index, index, memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>, f32) -> ()
    func.return
  }
  "gpu.module"() <{sym_name = "lt_kernels"}> ({
    "gpu.func"() <{function_type = (memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>, f32) -> (), kernel}> ({
    ^bb0(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>, %alpha: f32):
      %0 = arith.constant 0 : index
      %M = memref.dim %C, %0 : memref<?x?xf32>
      %1 = arith.constant 1 : index
      %N = memref.dim %C, %1 : memref<?x?xf32>
      %K = memref.dim %A, %1 : memref<?x?xf32>
      %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
      %2 = arith.constant 8 : index
      %3 = arith.muli %bx, %2 : index
      %tx = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %col = arith.addi %3, %tx : index
      %by = "gpu.block_id"() <{dimension = #gpu<dim y>}> : () -> index
      %4 = arith.muli %by, %2 : index
      %ty = "gpu.thread_id"() <{dimension = #gpu<dim y>}> : () -> index
      %row = arith.addi %4, %ty : index
      %5 = arith.cmpi ult, %row, %M : index
      %6 = arith.cmpi ult, %col, %N : index
      %inside = arith.andi %5, %6 : i1
      scf.if %inside {
        %zero = arith.constant 0.000000e+00 : f32
        %sum = scf.for %k = %0 to %K step %1 iter_args(%acc = %zero) -> (f32) {
          %a = memref.load %A[%row, %k] : memref<?x?xf32>
          %b = memref.load %B[%k, %col] : memref<?x?xf32>
          %sum_1 = math.fma %a, %b, %acc : f32
          scf.yield %sum_1 : f32
        } {gemm.role = "k_loop"}
        %scaled = arith.mulf %alpha, %sum : f32
        memref.store %scaled, %C[%row, %col] : memref<?x?xf32>
      }{gemm.role = "epilogue"}
      "gpu.return"() : () -> ()
    }) {sym_name = "lt", gpu.known_block_size = array<i32: 8, 8, 1>, gemm.arg_dims = [["M", "K"], ["K", "N"], ["M", "N"], []]} : () -> ()
  }) : () -> ()
}

// CHECK-LABEL: ^bb0(%A: memref<?x?xf32>
// CHECK:         %M = memref.dim %C
// CHECK:         %bx = "gpu.block_id"()
// CHECK:         %block_row = arith.muli %by, %{{.*}} : index
// CHECK-NEXT:    %block_col = arith.muli %bx, %{{.*}} : index
// CHECK:         %tid = arith.addi %{{.*}}, %tx : index
// CHECK-NEXT:    %acc = memref.alloca() : memref<2x2xf32, 5 : i64>
// CHECK:         %tile_a = memref.alloca() : memref<16x8xf32, 3 : i64>
// CHECK-NEXT:    %tile_b = memref.alloca() : memref<8x16xf32, 3 : i64>
// CHECK-NEXT:    %num_tiles = arith.ceildivui %K, %{{.*}} : index
// CHECK-NEXT:    scf.for %t = %{{.*}} to %num_tiles
// CHECK-NEXT:      %k0 = arith.muli %t, %{{.*}} : index
// CHECK-NEXT:      gemm.copy %A[%block_row, %k0] bounds[%M, %K] to %tile_a[] tid %tid {gemm.role = "load_a", extents = array<i64: 16, 8>, width = 1 : i64}
// CHECK-NEXT:      gemm.copy %B[%k0, %block_col] bounds[%K, %N] to %tile_b[] tid %tid {gemm.role = "load_b", extents = array<i64: 8, 16>, width = 1 : i64}
// CHECK-NEXT:      "gpu.barrier"() : () -> ()
// CHECK:           } {gemm.role = "compute"}
// CHECK-NEXT:      "gpu.barrier"() : () -> ()
// CHECK-NEXT:    } {gemm.role = "k_loop"}
// CHECK:             %sum = memref.load %acc
// CHECK-NEXT:        %{{.*}} = arith.mulf %alpha, %sum : f32
// CHECK:         }{gemm.role = "epilogue"}
// CHECK-NOT:     %row
// CHECK:       gpu.known_block_size = array<i32: 8, 8, 1>

// INTERP: PASS

// KEPT:        "gpu.barrier"() {mine} : () -> ()
// KEPT:        gemm.copy %A
