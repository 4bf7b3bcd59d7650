// RUN: %python -m gemmc.emit.hip %s --arch gfx942 | filecheck %s

// Static dims: no size parameters, named constants for M, N, K, literal row strides.

builtin.module attributes {gpu.container_module} {
  func.func @sgemm_static(%A: memref<64x32xf32> {gemm.dims = ["M", "K"]}, %B: memref<32x48xf32> {gemm.dims = ["K", "N"]}, %C: memref<64x48xf32> {gemm.dims = ["M", "N"]}) {
    %M = arith.constant 64 : index
    %N = arith.constant 48 : index
    %0 = arith.constant 16 : index
    %1 = arith.constant 1 : index
    %grid_x = arith.ceildivui %N, %0 : index
    %grid_y = arith.ceildivui %M, %0 : index
    "gpu.launch_func"(%grid_x, %grid_y, %1, %0, %0, %1, %A, %B, %C) <{kernel = @sgemm_static_kernels::@sgemm_static, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 3, 0>}> : (index, index, index, index, index, index, memref<64x32xf32>, memref<32x48xf32>, memref<64x48xf32>) -> ()
    func.return
  }
  "gpu.module"() <{sym_name = "sgemm_static_kernels"}> ({
    "gpu.func"() <{function_type = (memref<64x32xf32>, memref<32x48xf32>, memref<64x48xf32>) -> (), kernel}> ({
    ^bb0(%A: memref<64x32xf32>, %B: memref<32x48xf32>, %C: memref<64x48xf32>):
      %M = arith.constant 64 : index
      %N = arith.constant 48 : index
      %K = arith.constant 32 : index
      %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
      %0 = arith.constant 16 : index
      %1 = arith.muli %bx, %0 : index
      %tx = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %col = arith.addi %1, %tx : index
      %by = "gpu.block_id"() <{dimension = #gpu<dim y>}> : () -> index
      %2 = arith.muli %by, %0 : index
      %ty = "gpu.thread_id"() <{dimension = #gpu<dim y>}> : () -> index
      %row = arith.addi %2, %ty : index
      %3 = arith.cmpi ult, %row, %M : index
      %4 = arith.cmpi ult, %col, %N : index
      %inside = arith.andi %3, %4 : i1
      scf.if %inside {
        %zero = arith.constant 0.000000e+00 : f32
        %5 = arith.constant 0 : index
        %6 = arith.constant 1 : index
        %sum = scf.for %k = %5 to %K step %6 iter_args(%acc = %zero) -> (f32) {
          %a = memref.load %A[%row, %k] : memref<64x32xf32>
          %b = memref.load %B[%k, %col] : memref<32x48xf32>
          %sum_1 = math.fma %a, %b, %acc : f32
          scf.yield %sum_1 : f32
        } {gemm.role = "k_loop"}
        memref.store %sum, %C[%row, %col] : memref<64x48xf32>
      }{gemm.role = "epilogue"}
      "gpu.return"() : () -> ()
    }) {sym_name = "sgemm_static", gpu.known_block_size = array<i32: 16, 16, 1>, gemm.arg_dims = [["M", "K"], ["K", "N"], ["M", "N"]]} : () -> ()
  }) : () -> ()
}

// CHECK-LABEL: extern "C" __global__ void sgemm_static(const float* __restrict__ A,
// CHECK-NEXT:                                         const float* __restrict__ B,
// CHECK-NEXT:                                         float* __restrict__ C)
// CHECK-NEXT: {
// CHECK-NEXT:     const int M = 64;
// CHECK-NEXT:     const int N = 48;
// CHECK-NEXT:     const int K = 32;
// CHECK:                 const float a = A[row * 32 + k];
// CHECK-NEXT:            const float b = B[k * 48 + col];
// CHECK:             C[row * 48 + col] = sum;
