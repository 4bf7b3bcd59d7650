builtin.module attributes {gemmc.target = "sm_90", gpu.container_module} {
  func.func @dyn(%A: memref<?x?xf16> {gemm.dims = ["M", "K"]}, %B: memref<?x?xf16> {gemm.dims = ["K", "N"]}, %C: memref<?x?xf32> {gemm.dims = ["M", "N"]}) attributes {gemm.matmul_spec = {a = 0 : i64, b = 1 : i64, c = 2 : i64, acc_type = f32}} {
    %0 = arith.constant 0 : index
    %M = memref.dim %C, %0 : memref<?x?xf32>
    %1 = arith.constant 1 : index
    %N = memref.dim %C, %1 : memref<?x?xf32>
    %2 = arith.constant 16 : index
    %grid_x = arith.ceildivui %N, %2 : index
    %grid_y = arith.ceildivui %M, %2 : index
    "gpu.launch_func"(%grid_x, %grid_y, %1, %2, %2, %1, %A, %B, %C) <{kernel = @dyn_kernels::@dyn, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 3, 0>}> : (index, index, index, index, index, index, memref<?x?xf16>, memref<?x?xf16>, memref<?x?xf32>) -> ()
    func.return
  }
  "gpu.module"() <{sym_name = "dyn_kernels"}> ({
    "gpu.func"() <{function_type = (memref<?x?xf16>, memref<?x?xf16>, memref<?x?xf32>) -> (), kernel}> ({
    ^bb0(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>):
      %0 = arith.constant 0 : index
      %M = memref.dim %C, %0 : memref<?x?xf32>
      %1 = arith.constant 1 : index
      %N = memref.dim %C, %1 : memref<?x?xf32>
      %K = memref.dim %A, %1 : memref<?x?xf16>
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
          %a = memref.load %A[%row, %k] : memref<?x?xf16>
          %b = memref.load %B[%k, %col] : memref<?x?xf16>
          %7 = arith.extf %a : f16 to f32
          %8 = arith.extf %b : f16 to f32
          %sum_1 = math.fma %7, %8, %acc : f32
          scf.yield %sum_1 : f32
        } {gemm.role = "k_loop", gemmc.unroll = 64 : i64}
        memref.store %sum, %C[%row, %col] : memref<?x?xf32>
      }{gemm.role = "epilogue"}
      "gpu.return"() : () -> ()
    }) {sym_name = "dyn", gpu.known_block_size = array<i32: 16, 16, 1>, gemm.arg_dims = [["M", "K"], ["K", "N"], ["M", "N"]]} : () -> ()
  }) : () -> ()
}
