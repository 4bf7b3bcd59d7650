// RUN: %python -m gemmc.emit.hip %s --arch gfx942 | filecheck %s

// f16 storage with an f32 accumulator: _Float16 pointers, casts for extf and truncf.
// The constant alpha and beta (2.0, 1.0) are kernel arguments without names.

builtin.module attributes {gpu.container_module} {
  func.func @hgemm(%A: memref<?x?xf16> {gemm.dims = ["M", "K"]}, %B: memref<?x?xf16> {gemm.dims = ["K", "N"]}, %C: memref<?x?xf16> {gemm.dims = ["M", "N"]}) {
    %0 = arith.constant 2.000000e+00 : f32
    %1 = arith.constant 1.000000e+00 : f32
    %2 = arith.constant 0 : index
    %M = memref.dim %C, %2 : memref<?x?xf16>
    %3 = arith.constant 1 : index
    %N = memref.dim %C, %3 : memref<?x?xf16>
    %4 = arith.constant 16 : index
    %grid_x = arith.ceildivui %N, %4 : index
    %grid_y = arith.ceildivui %M, %4 : index
    "gpu.launch_func"(%grid_x, %grid_y, %3, %4, %4, %3, %A, %B, %C, %0, %1) <{kernel = @hgemm_kernels::@hgemm, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 5, 0>}> : (index, index, index, index, index, index, memref<?x?xf16>, memref<?x?xf16>, memref<?x?xf16>, f32, f32) -> ()
    func.return
  }
  "gpu.module"() <{sym_name = "hgemm_kernels"}> ({
    "gpu.func"() <{function_type = (memref<?x?xf16>, memref<?x?xf16>, memref<?x?xf16>, f32, f32) -> (), kernel}> ({
    ^bb0(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>, %0: f32, %1: f32):
      %2 = arith.constant 0 : index
      %M = memref.dim %C, %2 : memref<?x?xf16>
      %3 = arith.constant 1 : index
      %N = memref.dim %C, %3 : memref<?x?xf16>
      %K = memref.dim %A, %3 : memref<?x?xf16>
      %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
      %4 = arith.constant 16 : index
      %5 = arith.muli %bx, %4 : index
      %tx = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %col = arith.addi %5, %tx : index
      %by = "gpu.block_id"() <{dimension = #gpu<dim y>}> : () -> index
      %6 = arith.muli %by, %4 : index
      %ty = "gpu.thread_id"() <{dimension = #gpu<dim y>}> : () -> index
      %row = arith.addi %6, %ty : index
      %7 = arith.cmpi ult, %row, %M : index
      %8 = arith.cmpi ult, %col, %N : index
      %inside = arith.andi %7, %8 : i1
      scf.if %inside {
        %zero = arith.constant 0.000000e+00 : f32
        %sum = scf.for %k = %2 to %K step %3 iter_args(%acc = %zero) -> (f32) {
          %a = memref.load %A[%row, %k] : memref<?x?xf16>
          %b = memref.load %B[%k, %col] : memref<?x?xf16>
          %9 = arith.extf %a : f16 to f32
          %10 = arith.extf %b : f16 to f32
          %sum_1 = math.fma %9, %10, %acc : f32
          scf.yield %sum_1 : f32
        } {gemm.role = "k_loop"}
        %scaled = arith.mulf %0, %sum : f32
        %c_old = memref.load %C[%row, %col] : memref<?x?xf16>
        %11 = arith.extf %c_old : f16 to f32
        %result = math.fma %1, %11, %scaled : f32
        %12 = arith.truncf %result : f32 to f16
        memref.store %12, %C[%row, %col] : memref<?x?xf16>
      }{gemm.role = "epilogue"}
      "gpu.return"() : () -> ()
    }) {sym_name = "hgemm", gpu.known_block_size = array<i32: 16, 16, 1>, gemm.arg_dims = [["M", "K"], ["K", "N"], ["M", "N"], [], []]} : () -> ()
  }) : () -> ()
}

// nvcc cannot compile _Float16 in device code: such files say so instead of crashing it.
// CHECK:       #if defined(__CUDACC__) && !defined(__clang__)
// CHECK-NEXT:  #error "gemmc: this file uses _Float16: build it with hipcc or clang for AMD GPUs"
// CHECK-LABEL: extern "C" __global__ void hgemm(const _Float16* __restrict__ A,
// CHECK-NEXT:                                  const _Float16* __restrict__ B,
// CHECK-NEXT:                                  _Float16* __restrict__ C,
// CHECK:                                       float arg3,
// CHECK-NEXT:                                  float arg4)
// CHECK:                 const _Float16 a = A[row * K + k];
// CHECK-NEXT:            const _Float16 b = B[k * N + col];
// CHECK-NEXT:            sum = __builtin_fmaf((float)a, (float)b, sum);
// CHECK:             const float result = __builtin_fmaf(arg4, (float)c_old, scaled);
// CHECK-NEXT:        C[row * N + col] = (_Float16)result;
// The launcher passes the constants as literals.
// CHECK-LABEL: hipError_t launch_hgemm(
// CHECK:         hgemm<<<dim3(grid_x, grid_y, 1), dim3(16, 16, 1), 0, stream>>>(A, B, C, M, N, K, 2.0f, 1.0f);
