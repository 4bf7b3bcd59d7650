// RUN: not %gemmc opt %s -p 'split-k' 2>&1 | filecheck %s

// reduce=atomic splits C = f(acc, C) into f(0, C) (the init kernel) + f(acc, 0) (the atomic adds),
// which holds for a linear epilogue only: C * sum is refused at the multiply.

// CHECK: error: split-k: reduce=atomic: the epilogue multiplies the accumulator or C by itself (at 'arith.mulf' in @sk)

builtin.module attributes {gemmc.target = "gfx942", gpu.container_module} {
  func.func @sk(%A: memref<8x40xf32> {gemm.dims = ["M", "K"]}, %B: memref<40x8xf32> {gemm.dims = ["K", "N"]}, %C: memref<8x8xf32> {gemm.dims = ["M", "N"]}, %alpha: f32, %beta: f32) attributes {gemm.matmul_spec = {a = 0 : i64, b = 1 : i64, c = 2 : i64, acc_type = f32, alpha = 3 : i64, beta = 4 : i64}} {
    %M = arith.constant 8 : index
    %N = arith.constant 8 : index
    %0 = arith.constant 8 : index
    %1 = arith.constant 1 : index
    %grid_x = arith.ceildivui %N, %0 : index
    %grid_y = arith.ceildivui %M, %0 : index
    "gpu.launch_func"(%grid_x, %grid_y, %1, %0, %0, %1, %A, %B, %C, %alpha, %beta) <{kernel = @sk_kernels::@sk, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 5, 0>}> : (index, index, index, index, index, index, memref<8x40xf32>, memref<40x8xf32>, memref<8x8xf32>, f32, f32) -> ()
    func.return
  }
  "gpu.module"() <{sym_name = "sk_kernels"}> ({
    "gpu.func"() <{function_type = (memref<8x40xf32>, memref<40x8xf32>, memref<8x8xf32>, f32, f32) -> (), kernel}> ({
    ^bb0(%A: memref<8x40xf32>, %B: memref<40x8xf32>, %C: memref<8x8xf32>, %alpha: f32, %beta: f32):
      %M = arith.constant 8 : index
      %N = arith.constant 8 : index
      %K = arith.constant 40 : index
      %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
      %0 = arith.constant 8 : index
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
          %a = memref.load %A[%row, %k] : memref<8x40xf32>
          %b = memref.load %B[%k, %col] : memref<40x8xf32>
          %sum_1 = math.fma %a, %b, %acc : f32
          scf.yield %sum_1 : f32
        } {gemm.role = "k_loop"}
        %c_old = memref.load %C[%row, %col] : memref<8x8xf32>
        %scaled = arith.mulf %c_old, %sum : f32
        %result = math.fma %beta, %c_old, %scaled : f32
        memref.store %result, %C[%row, %col] : memref<8x8xf32>
      }{gemm.role = "epilogue"}
      "gpu.return"() : () -> ()
    }) {sym_name = "sk", gpu.known_block_size = array<i32: 8, 8, 1>, gemm.arg_dims = [["M", "K"], ["K", "N"], ["M", "N"], [], []]} : () -> ()
  }) : () -> ()
}
