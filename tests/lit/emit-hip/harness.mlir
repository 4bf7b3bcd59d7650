// RUN: %python -m gemmc.emit.hip %s --arch gfx942 --harness | filecheck %s

// --harness adds a main in the tutorial's style: dims from argv (else 4096), random
// inputs, timing with HIP events, and a float64 reference that knows A and B are
// transposed (from the dim names on the host arguments).

builtin.module attributes {gpu.container_module} {
  func.func @sgemm_tt(%A: memref<?x?xf32> {gemm.dims = ["K", "M"]}, %B: memref<?x?xf32> {gemm.dims = ["N", "K"]}, %C: memref<?x?xf32> {gemm.dims = ["M", "N"]}) {
    %0 = arith.constant 0 : index
    %M = memref.dim %C, %0 : memref<?x?xf32>
    %1 = arith.constant 1 : index
    %N = memref.dim %C, %1 : memref<?x?xf32>
    %2 = arith.constant 16 : index
    %grid_x = arith.ceildivui %N, %2 : index
    %grid_y = arith.ceildivui %M, %2 : index
    "gpu.launch_func"(%grid_x, %grid_y, %1, %2, %2, %1, %A, %B, %C) <{kernel = @sgemm_tt_kernels::@sgemm_tt, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 3, 0>}> : (index, index, index, index, index, index, memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> ()
    func.return
  }
  "gpu.module"() <{sym_name = "sgemm_tt_kernels"}> ({
    "gpu.func"() <{function_type = (memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> (), kernel}> ({
    ^bb0(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>):
      %0 = arith.constant 0 : index
      %M = memref.dim %C, %0 : memref<?x?xf32>
      %1 = arith.constant 1 : index
      %N = memref.dim %C, %1 : memref<?x?xf32>
      %K = memref.dim %A, %0 : memref<?x?xf32>
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
          %a = memref.load %A[%k, %row] : memref<?x?xf32>
          %b = memref.load %B[%col, %k] : memref<?x?xf32>
          %sum_1 = math.fma %a, %b, %acc : f32
          scf.yield %sum_1 : f32
        } {gemm.role = "k_loop"}
        memref.store %sum, %C[%row, %col] : memref<?x?xf32>
      }{gemm.role = "epilogue"}
      "gpu.return"() : () -> ()
    }) {sym_name = "sgemm_tt", gpu.known_block_size = array<i32: 16, 16, 1>, gemm.arg_dims = [["K", "M"], ["N", "K"], ["M", "N"]]} : () -> ()
  }) : () -> ()
}

// CHECK-LABEL: int main(int argc, char** argv)
// CHECK:         int M = 4096;
// CHECK-NEXT:    int N = 4096;
// CHECK-NEXT:    int K = 4096;
// CHECK:         *dims[given++] = static_cast<int>(value);
// CHECK:         GEMMC_CHECK(hipMalloc(&d_A, sizeof(float) * size_A));
// CHECK:         auto launch = [&]() { GEMMC_CHECK(launch_sgemm_tt(d_A, d_B, d_C, M, N, K, nullptr)); };
// CHECK:         GEMMC_CHECK(hipEventElapsedTime(&total_ms, start, stop));
// CHECK:         const double alpha_ref = 1.0, beta_ref = 0.0;
// CHECK:         const double p = gemmc_to_double(h_A[static_cast<size_t>(k) * M + i]) * gemmc_to_double(h_B[static_cast<size_t>(j) * K + k]);
// CHECK:         std::printf("Throughput  : %.3f TFLOP/s\n", flops / (ms * 1.0e-3) / 1.0e12);
// CHECK:         return mismatches ? EXIT_FAILURE : EXIT_SUCCESS;
