// RUN: %python -m gemmc.emit.hip %s --arch gfx942 | filecheck %s

// The host function becomes a launcher, compiled only where the HIP runtime is: it takes
// the pointers, the dims and the scalars, computes the grid with the IR's arithmetic
// and launches on the given stream.

builtin.module attributes {gpu.container_module} {
  func.func @sgemm(%A: memref<?x?xf32> {gemm.dims = ["M", "K"]}, %B: memref<?x?xf32> {gemm.dims = ["K", "N"]}, %C: memref<?x?xf32> {gemm.dims = ["M", "N"]}, %alpha: f32, %beta: f32) {
    %0 = arith.constant 0 : index
    %M = memref.dim %C, %0 : memref<?x?xf32>
    %1 = arith.constant 1 : index
    %N = memref.dim %C, %1 : memref<?x?xf32>
    %2 = arith.constant 16 : index
    %grid_x = arith.ceildivui %N, %2 : index
    %grid_y = arith.ceildivui %M, %2 : index
    "gpu.launch_func"(%grid_x, %grid_y, %1, %2, %2, %1, %A, %B, %C, %alpha, %beta) <{kernel = @sgemm_kernels::@sgemm, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 5, 0>}> : (index, index, index, index, index, index, memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>, f32, f32) -> ()
    func.return
  }
  "gpu.module"() <{sym_name = "sgemm_kernels"}> ({
    "gpu.func"() <{function_type = (memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>, f32, f32) -> (), kernel}> ({
    ^bb0(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>, %alpha: f32, %beta: f32):
      %0 = arith.constant 0 : index
      %M = memref.dim %C, %0 : memref<?x?xf32>
      %1 = arith.constant 1 : index
      %N = memref.dim %C, %1 : memref<?x?xf32>
      %K = memref.dim %A, %1 : memref<?x?xf32>
      %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
      %2 = arith.constant 16 : index
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
        %c_old = memref.load %C[%row, %col] : memref<?x?xf32>
        %result = math.fma %beta, %c_old, %scaled : f32
        memref.store %result, %C[%row, %col] : memref<?x?xf32>
      }{gemm.role = "epilogue"}
      "gpu.return"() : () -> ()
    }) {sym_name = "sgemm", gpu.known_block_size = array<i32: 16, 16, 1>, gemm.arg_dims = [["M", "K"], ["K", "N"], ["M", "N"], [], []]} : () -> ()
  }) : () -> ()
}

// CHECK:      #ifdef GEMMC_HOST_CODE
// CHECK-LABEL: hipError_t launch_sgemm(const float* A,
// CHECK-NEXT:                         const float* B,
// CHECK-NEXT:                         float* C,
// CHECK-NEXT:                         int M,
// CHECK-NEXT:                         int N,
// CHECK-NEXT:                         int K,
// CHECK-NEXT:                         float alpha,
// CHECK-NEXT:                         float beta,
// CHECK-NEXT:                         hipStream_t stream)
// CHECK-NEXT: {
// CHECK-NEXT:     const int grid_x = (N + 15) / 16;
// CHECK-NEXT:     const int grid_y = (M + 15) / 16;
// CHECK-NEXT:     sgemm<<<dim3(grid_x, grid_y, 1), dim3(16, 16, 1), 0, stream>>>(A, B, C, M, N, K, alpha, beta);
// CHECK-NEXT:     return hipGetLastError();
// CHECK-NEXT: }
// CHECK:      #endif // GEMMC_HOST_CODE
// CHECK-NOT:  int main(
