// RUN: not %gemmc opt %s -p 'stream-k{workgroups=3}' 2>&1 | filecheck %s

// What stream-k's fix-up cannot do, at its op: the atomics cannot split this epilogue (the product
// of two sums), and the last contributor's workspace holds one partial sum a stored element, so a
// stored value computed from two accumulators is refused.

// CHECK: error: stream-k: stream-k's fix-up: the stored value comes from 2 accumulator values, not one (at 'memref.store' in @sk)

builtin.module attributes {gemmc.target = "gfx942", gpu.container_module} {
  func.func @sk(%A: memref<8x40xf32> {gemm.dims = ["M", "K"]}, %B: memref<40x8xf32> {gemm.dims = ["K", "N"]}, %C: memref<8x8xf32> {gemm.dims = ["M", "N"]}) {
    %M = arith.constant 8 : index
    %N = arith.constant 8 : index
    %0 = arith.constant 8 : index
    %1 = arith.constant 1 : index
    %grid_x = arith.ceildivui %N, %0 : index
    %grid_y = arith.ceildivui %M, %0 : index
    "gpu.launch_func"(%grid_x, %grid_y, %1, %0, %0, %1, %A, %B, %C) <{kernel = @sk_kernels::@sk, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 3, 0>}> : (index, index, index, index, index, index, memref<8x40xf32>, memref<40x8xf32>, memref<8x8xf32>) -> ()
    func.return
  }
  "gpu.module"() <{sym_name = "sk_kernels"}> ({
    "gpu.func"() <{function_type = (memref<8x40xf32>, memref<40x8xf32>, memref<8x8xf32>) -> (), kernel}> ({
    ^bb0(%A: memref<8x40xf32>, %B: memref<40x8xf32>, %C: memref<8x8xf32>):
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
        %sum, %sum2 = scf.for %k = %5 to %K step %6 iter_args(%acc = %zero, %acc2 = %zero) -> (f32, f32) {
          %a = memref.load %A[%row, %k] : memref<8x40xf32>
          %b = memref.load %B[%k, %col] : memref<40x8xf32>
          %s1 = math.fma %a, %b, %acc : f32
          %s2 = math.fma %a, %a, %acc2 : f32
          scf.yield %s1, %s2 : f32, f32
        } {gemm.role = "k_loop"}
        %result = arith.mulf %sum, %sum2 : f32
        memref.store %result, %C[%row, %col] : memref<8x8xf32>
      }{gemm.role = "epilogue"}
      "gpu.return"() : () -> ()
    }) {sym_name = "sk", gpu.known_block_size = array<i32: 8, 8, 1>, gemm.arg_dims = [["M", "K"], ["K", "N"], ["M", "N"]]} : () -> ()
  }) : () -> ()
}
