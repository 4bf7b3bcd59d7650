// RUN: %python -m gemmc.emit.hip %s --arch gfx942 | filecheck %s

// bf16 inputs are __bf16, widened to float for the FMA; a static K drops its parameter.

builtin.module attributes {gpu.container_module} {
  func.func @bgemm(%A: memref<?x64xbf16> {gemm.dims = ["M", "K"]}, %B: memref<64x?xbf16> {gemm.dims = ["K", "N"]}, %C: memref<?x?xf32> {gemm.dims = ["M", "N"]}) {
    %0 = arith.constant 0 : index
    %M = memref.dim %C, %0 : memref<?x?xf32>
    %1 = arith.constant 1 : index
    %N = memref.dim %C, %1 : memref<?x?xf32>
    %2 = arith.constant 16 : index
    %grid_x = arith.ceildivui %N, %2 : index
    %grid_y = arith.ceildivui %M, %2 : index
    "gpu.launch_func"(%grid_x, %grid_y, %1, %2, %2, %1, %A, %B, %C) <{kernel = @bgemm_kernels::@bgemm, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 3, 0>}> : (index, index, index, index, index, index, memref<?x64xbf16>, memref<64x?xbf16>, memref<?x?xf32>) -> ()
    func.return
  }
  "gpu.module"() <{sym_name = "bgemm_kernels"}> ({
    "gpu.func"() <{function_type = (memref<?x64xbf16>, memref<64x?xbf16>, memref<?x?xf32>) -> (), kernel}> ({
    ^bb0(%A: memref<?x64xbf16>, %B: memref<64x?xbf16>, %C: memref<?x?xf32>):
      %0 = arith.constant 0 : index
      %M = memref.dim %C, %0 : memref<?x?xf32>
      %1 = arith.constant 1 : index
      %N = memref.dim %C, %1 : memref<?x?xf32>
      %K = arith.constant 64 : index
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
          %a = memref.load %A[%row, %k] : memref<?x64xbf16>
          %b = memref.load %B[%k, %col] : memref<64x?xbf16>
          %7 = arith.extf %a : bf16 to f32
          %8 = arith.extf %b : bf16 to f32
          %sum_1 = math.fma %7, %8, %acc : f32
          scf.yield %sum_1 : f32
        } {gemm.role = "k_loop"}
        memref.store %sum, %C[%row, %col] : memref<?x?xf32>
      }{gemm.role = "epilogue"}
      "gpu.return"() : () -> ()
    }) {sym_name = "bgemm", gpu.known_block_size = array<i32: 16, 16, 1>, gemm.arg_dims = [["M", "K"], ["K", "N"], ["M", "N"]]} : () -> ()
  }) : () -> ()
}

// CHECK-LABEL: extern "C" __global__ void bgemm(const __bf16* __restrict__ A,
// CHECK-NEXT:                                  const __bf16* __restrict__ B,
// CHECK-NEXT:                                  float* __restrict__ C,
// CHECK-NEXT:                                  int M,
// CHECK-NEXT:                                  int N)
// CHECK-NEXT: {
// CHECK-NEXT:     const int K = 64;
// CHECK:                 const __bf16 a = A[row * 64 + k];
// CHECK-NEXT:            const __bf16 b = B[k * N + col];
// CHECK-NEXT:            sum = __builtin_fmaf((float)a, (float)b, sum);
