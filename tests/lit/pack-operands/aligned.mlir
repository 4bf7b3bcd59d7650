// RUN: %gemmc opt %s --arch sm_90 -p pack-operands | filecheck %s

// Rows already a multiple of 16 bytes (A's 24 f16, B's 32): pack-operands changes nothing, no buffer, no copy
// kernel, no attribute.  (tests/test_pack_operands.py checks the module is the same, op for op.)

// CHECK-LABEL: func.func @aligned(
// CHECK-NOT:     memref.alloc
// CHECK:         "gpu.launch_func"(%grid_x, %grid_y, %1, %0, %0, %1, %A, %B, %C) <{kernel = @aligned_kernels::@aligned,
// CHECK-NEXT:    func.return
// CHECK-LABEL: ^bb0(%A: memref<37x24xf16>, %B: memref<24x32xf16>, %C: memref<37x32xf32>):
// CHECK-NOT:     gemm.zero_padded
// CHECK-NOT:     _pack_

builtin.module attributes {gemmc.target = "sm_90", gpu.container_module} {
  func.func @aligned(%A: memref<37x24xf16> {gemm.dims = ["M", "K"]}, %B: memref<24x32xf16> {gemm.dims = ["K", "N"]}, %C: memref<37x32xf32> {gemm.dims = ["M", "N"]}) attributes {gemm.matmul_spec = {a = 0 : i64, b = 1 : i64, c = 2 : i64, acc_type = f32}} {
    %M = arith.constant 37 : index
    %N = arith.constant 32 : index
    %0 = arith.constant 16 : index
    %1 = arith.constant 1 : index
    %grid_x = arith.ceildivui %N, %0 : index
    %grid_y = arith.ceildivui %M, %0 : index
    "gpu.launch_func"(%grid_x, %grid_y, %1, %0, %0, %1, %A, %B, %C) <{kernel = @aligned_kernels::@aligned, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 3, 0>}> : (index, index, index, index, index, index, memref<37x24xf16>, memref<24x32xf16>, memref<37x32xf32>) -> ()
    func.return
  }
  "gpu.module"() <{sym_name = "aligned_kernels"}> ({
    "gpu.func"() <{function_type = (memref<37x24xf16>, memref<24x32xf16>, memref<37x32xf32>) -> (), kernel}> ({
    ^bb0(%A: memref<37x24xf16>, %B: memref<24x32xf16>, %C: memref<37x32xf32>):
      %M = arith.constant 37 : index
      %N = arith.constant 32 : index
      %K = arith.constant 24 : index
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
          %a = memref.load %A[%row, %k] : memref<37x24xf16>
          %b = memref.load %B[%k, %col] : memref<24x32xf16>
          %7 = arith.extf %a : f16 to f32
          %8 = arith.extf %b : f16 to f32
          %sum_1 = math.fma %7, %8, %acc : f32
          scf.yield %sum_1 : f32
        } {gemm.role = "k_loop", gemmc.unroll = 64 : i64}
        memref.store %sum, %C[%row, %col] : memref<37x32xf32>
      }{gemm.role = "epilogue"}
      "gpu.return"() : () -> ()
    }) {sym_name = "aligned", gpu.known_block_size = array<i32: 16, 16, 1>, gemm.arg_dims = [["M", "K"], ["K", "N"], ["M", "N"]]} : () -> ()
  }) : () -> ()
}
