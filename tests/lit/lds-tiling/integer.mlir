// RUN: %gemmc opt %s -p "lds-tiling{block-m=16 block-n=16 block-k=8}" | filecheck %s

// lds-tiling of an integer naive kernel: the i8 tiles go through LDS as they are, each element
// widened after its LDS load by its signedness (gemm.unsigned_args: B is u8), multiply-added in i32.
builtin.module attributes {gemmc.target = "gfx942", gemmc.pipeline = "gemm-to-kernel", gpu.container_module} {
  func.func @ig(%A: memref<32x16xi8> {gemm.dims = ["M", "K"]}, %B: memref<16x32xi8> {gemm.dims = ["K", "N"], gemm.unsigned}, %C: memref<32x32xi32> {gemm.dims = ["M", "N"]}) attributes {gemm.matmul_spec = {a = 0 : i64, b = 1 : i64, c = 2 : i64, acc_type = i32, beta = 1 : i32, unsigned_b}} {
    %0 = arith.constant 1 : i32
    %M = arith.constant 32 : index
    %N = arith.constant 32 : index
    %1 = arith.constant 16 : index
    %2 = arith.constant 1 : index
    %grid_x = arith.ceildivui %N, %1 : index
    %grid_y = arith.ceildivui %M, %1 : index
    "gpu.launch_func"(%grid_x, %grid_y, %2, %1, %1, %2, %A, %B, %C, %0) <{kernel = @ig_kernels::@ig, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 4, 0>}> : (index, index, index, index, index, index, memref<32x16xi8>, memref<16x32xi8>, memref<32x32xi32>, i32) -> ()
    func.return
  }
  "gpu.module"() <{sym_name = "ig_kernels"}> ({
    "gpu.func"() <{function_type = (memref<32x16xi8>, memref<16x32xi8>, memref<32x32xi32>, i32) -> (), kernel}> ({
    ^bb0(%A: memref<32x16xi8>, %B: memref<16x32xi8>, %C: memref<32x32xi32>, %0: i32):
      %M = arith.constant 32 : index
      %N = arith.constant 32 : index
      %K = arith.constant 16 : index
      %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
      %1 = arith.constant 16 : index
      %2 = arith.muli %bx, %1 : index
      %tx = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %col = arith.addi %2, %tx : index
      %by = "gpu.block_id"() <{dimension = #gpu<dim y>}> : () -> index
      %3 = arith.muli %by, %1 : index
      %ty = "gpu.thread_id"() <{dimension = #gpu<dim y>}> : () -> index
      %row = arith.addi %3, %ty : index
      %4 = arith.cmpi ult, %row, %M : index
      %5 = arith.cmpi ult, %col, %N : index
      %inside = arith.andi %4, %5 : i1
      scf.if %inside {
        %zero = arith.constant 0 : i32
        %6 = arith.constant 0 : index
        %7 = arith.constant 1 : index
        %sum = scf.for %k = %6 to %K step %7 iter_args(%acc = %zero) -> (i32) {
          %a = memref.load %A[%row, %k] : memref<32x16xi8>
          %b = memref.load %B[%k, %col] : memref<16x32xi8>
          %8 = arith.extsi %a : i8 to i32
          %9 = arith.extui %b : i8 to i32
          %prod = arith.muli %8, %9 : i32
          %sum_1 = arith.addi %prod, %acc : i32
          scf.yield %sum_1 : i32
        } {gemm.role = "k_loop"}
        %c_old = memref.load %C[%row, %col] : memref<32x32xi32>
        %result = arith.addi %c_old, %sum : i32
        memref.store %result, %C[%row, %col] : memref<32x32xi32>
      }{gemm.role = "epilogue"}
      "gpu.return"() : () -> ()
    }) {sym_name = "ig", gpu.known_block_size = array<i32: 16, 16, 1>, gemm.arg_dims = [["M", "K"], ["K", "N"], ["M", "N"], []], gemm.unsigned_args = array<i64: 1>} : () -> ()
  }) : () -> ()
}

// CHECK-LABEL: "gpu.func"
// CHECK:         %acc = memref.alloca() : memref<1x1xi32, 5 : i64>
// CHECK:         %tile_a = memref.alloca() : memref<16x8xi8, 3 : i64>
// CHECK-NEXT:    %tile_b = memref.alloca() : memref<8x16xi8, 3 : i64>
// CHECK:         gemm.copy %A[{{.*}}] to %tile_a[] {{.*}} : memref<32x16xi8>, memref<16x8xi8, 3 : i64>
// CHECK-NEXT:    gemm.copy %B[{{.*}}] to %tile_b[] {{.*}} : memref<16x32xi8>, memref<8x16xi8, 3 : i64>
// CHECK:         %a = memref.load %tile_a[%ty, %kk] : memref<16x8xi8, 3 : i64>
// CHECK-NEXT:    %[[A:.*]] = arith.extsi %a : i8 to i32
// CHECK-NEXT:    %b = memref.load %tile_b[%kk, %tx] : memref<8x16xi8, 3 : i64>
// CHECK-NEXT:    %[[B:.*]] = arith.extui %b : i8 to i32
// CHECK-NEXT:    %prod = arith.muli %[[A]], %[[B]] : i32
// CHECK-NEXT:    arith.addi %prod, %{{.*}} : i32
// CHECK:         arith.addi %c_old, %{{.*}} : i32
// CHECK:       gemm.unsigned_args = array<i64: 1>
