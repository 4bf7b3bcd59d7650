// RUN: %gemmc opt %s -p "register-tiling{thread-m=2 thread-n=2}" | filecheck %s

// register-tiling of an integer LDS-tiled kernel: i32 accumulators and fragments, each fragment
// element widened from the i8 tile by its signedness (B u8: extui), the outer product muli + addi.
builtin.module attributes {gemmc.target = "gfx942", gemmc.pipeline = "gemm-to-kernel,lds-tiling{block-m=16 block-n=16 block-k=8}", gpu.container_module} {
  func.func @ig(%A: memref<32x16xi8> {gemm.dims = ["M", "K"]}, %B: memref<16x32xi8> {gemm.dims = ["K", "N"], gemm.unsigned}, %C: memref<32x32xi32> {gemm.dims = ["M", "N"]}) attributes {gemm.matmul_spec = {a = 0 : i64, b = 1 : i64, c = 2 : i64, acc_type = i32, beta = 1 : i32, unsigned_b}} {
    %0 = arith.constant 1 : i32
    %M = arith.constant 32 : index
    %N = arith.constant 32 : index
    %1 = arith.constant 1 : index
    %2 = arith.constant 16 : index
    %grid_x = arith.ceildivui %N, %2 : index
    %grid_y = arith.ceildivui %M, %2 : index
    %block_x = arith.constant 16 : index
    %block_y = arith.constant 16 : index
    "gpu.launch_func"(%grid_x, %grid_y, %1, %block_x, %block_y, %1, %A, %B, %C, %0) <{kernel = @ig_kernels::@ig, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 4, 0>}> : (index, index, index, index, index, index, memref<32x16xi8>, memref<16x32xi8>, memref<32x32xi32>, i32) -> ()
    func.return
  }
  "gpu.module"() <{sym_name = "ig_kernels"}> ({
    "gpu.func"() <{function_type = (memref<32x16xi8>, memref<16x32xi8>, memref<32x32xi32>, i32) -> (), kernel}> ({
    ^bb0(%A: memref<32x16xi8>, %B: memref<16x32xi8>, %C: memref<32x32xi32>, %0: i32):
      %M = arith.constant 32 : index
      %N = arith.constant 32 : index
      %K = arith.constant 16 : index
      %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
      %tx = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %by = "gpu.block_id"() <{dimension = #gpu<dim y>}> : () -> index
      %ty = "gpu.thread_id"() <{dimension = #gpu<dim y>}> : () -> index
      %1 = arith.constant 16 : index
      %block_row = arith.muli %by, %1 : index
      %block_col = arith.muli %bx, %1 : index
      %2 = arith.muli %ty, %1 : index
      %tid = arith.addi %2, %tx : index
      %acc = memref.alloca() : memref<1x1xi32, 5 : i64>
      %zero = arith.constant 0 : i32
      %3 = arith.constant 0 : index
      memref.store %zero, %acc[%3, %3] : memref<1x1xi32, 5 : i64>
      %tile_a = memref.alloca() : memref<16x8xi8, 3 : i64>
      %tile_b = memref.alloca() : memref<8x16xi8, 3 : i64>
      %4 = arith.constant 8 : index
      %num_tiles = arith.ceildivui %K, %4 : index
      %5 = arith.constant 1 : index
      scf.for %t = %3 to %num_tiles step %5 {
        %k0 = arith.muli %t, %4 : index
        gemm.copy %A[%block_row, %k0] bounds[%M, %K] to %tile_a[] tid %tid {gemm.role = "load_a", extents = array<i64: 16, 8>, width = 1 : i64} : memref<32x16xi8>, memref<16x8xi8, 3 : i64>
        gemm.copy %B[%k0, %block_col] bounds[%K, %N] to %tile_b[] tid %tid {gemm.role = "load_b", extents = array<i64: 8, 16>, width = 1 : i64} : memref<16x32xi8>, memref<8x16xi8, 3 : i64>
        "gpu.barrier"() : () -> ()
        scf.for %kk = %3 to %4 step %5 {
          %c = memref.load %acc[%3, %3] : memref<1x1xi32, 5 : i64>
          %a = memref.load %tile_a[%ty, %kk] : memref<16x8xi8, 3 : i64>
          %6 = arith.extsi %a : i8 to i32
          %b = memref.load %tile_b[%kk, %tx] : memref<8x16xi8, 3 : i64>
          %7 = arith.extui %b : i8 to i32
          %prod = arith.muli %6, %7 : i32
          %8 = arith.addi %prod, %c : i32
          memref.store %8, %acc[%3, %3] : memref<1x1xi32, 5 : i64>
        } {gemm.role = "compute"}
        "gpu.barrier"() : () -> ()
      } {gemm.role = "k_loop"}
      %r = arith.addi %block_row, %ty : index
      %c_1 = arith.addi %block_col, %tx : index
      %9 = arith.cmpi ult, %r, %M : index
      %10 = arith.cmpi ult, %c_1, %N : index
      %inside = arith.andi %9, %10 : i1
      scf.if %inside {
        %sum = memref.load %acc[%3, %3] {gemm.role = "acc_read"} : memref<1x1xi32, 5 : i64>
        %c_old = memref.load %C[%r, %c_1] : memref<32x32xi32>
        %result = arith.addi %c_old, %sum : i32
        memref.store %result, %C[%r, %c_1] : memref<32x32xi32>
      }{gemm.role = "epilogue"}
      "gpu.return"() : () -> ()
    }) {sym_name = "ig", gpu.known_block_size = array<i32: 16, 16, 1>, gemm.arg_dims = [["M", "K"], ["K", "N"], ["M", "N"], []], gemm.unsigned_args = array<i64: 1>, gemm.schedule = {block_m = 16 : i64, block_n = 16 : i64, block_k = 8 : i64, threads_x = 16 : i64, threads_y = 16 : i64, thread_m = 1 : i64, thread_n = 1 : i64, contiguous = 0 : i64, b_transposed = 0 : i64}} : () -> ()
  }) : () -> ()
}

// CHECK-LABEL: "gpu.func"
// CHECK:         %acc = memref.alloca() : memref<2x2xi32, 5 : i64>
// CHECK:         %a_frag = memref.alloca() : memref<2xi32, 5 : i64>
// CHECK-NEXT:    %b_frag = memref.alloca() : memref<2xi32, 5 : i64>
// CHECK:         %a = memref.load %tile_a{{.*}} : memref<16x8xi8, 3 : i64>
// CHECK-NEXT:    %{{.*}} = arith.extsi %a : i8 to i32
// CHECK:         %b = memref.load %tile_b_t{{.*}} : memref<16x8xi8, 3 : i64>
// CHECK-NEXT:    %{{.*}} = arith.extui %b : i8 to i32
// CHECK:         %prod = arith.muli %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:    arith.addi %prod, %c : i32
// CHECK:         arith.addi %c_old, %{{.*}} : i32
