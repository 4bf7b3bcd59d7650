// RUN: %gemmc opt %s --arch sm_90 -p pack-operands | filecheck %s

// A batched A (the host's [Bt, M, K] = [3, 37, 19]; to the kernel one batch's [37, 19], gemm.batch_args): its
// buffer is [3, 37, 24], whose matrices the kernel's argument of type [37, 24] steps through (batch z at
// z x 37 x 24); the copy kernel walks all three matrices.  B [19, 32], shared, is aligned: left as it is.

// CHECK-LABEL: func.func @bat(
// CHECK:         %A_packed = memref.alloc() : memref<3x37x24xf16>
// CHECK:         "gpu.launch_func"({{.*}}, %A, %A_packed) <{kernel = @bat_kernels::@bat_pack_a,
// CHECK-NEXT:    "gpu.launch_func"(%grid_x, %grid_y, %batches, %0, %0, %1, %A_packed, %B, %C) <{kernel = @bat_kernels::@bat,
// CHECK-NEXT:    memref.dealloc %A_packed : memref<3x37x24xf16>
// CHECK-LABEL: ^bb0(%A: memref<37x24xf16>, %B: memref<19x32xf16>, %C: memref<37x32xf32>):
// CHECK:         gemm.batch_args = array<i64: 0, 2>, gemm.zero_padded = [{arg = 0 : i64, cols = 19 : i64}]
// CHECK-LABEL: ^bb0(%A: memref<3x37x19xf16>, %A_packed: memref<3x37x24xf16>):
// CHECK:           %col = arith.remui %i, %[[LP:[0-9]+]] : index
// CHECK-NEXT:      %[[REST:[0-9]+]] = arith.divui %i, %[[LP]] : index
// CHECK-NEXT:      %row = arith.remui %[[REST]], %[[M:[0-9]+]] : index
// CHECK-NEXT:      %batch = arith.divui %[[REST]], %[[M]] : index
// CHECK:           %element = memref.load %A[%batch, %row, %src_col] : memref<3x37x19xf16>
// CHECK:           memref.store %packed, %A_packed[%batch, %row, %col] : memref<3x37x24xf16>

builtin.module attributes {gemmc.target = "sm_90", gpu.container_module} {
  func.func @bat(%A: memref<3x37x19xf16> {gemm.dims = ["Bt", "M", "K"]}, %B: memref<19x32xf16> {gemm.dims = ["K", "N"]}, %C: memref<3x37x32xf32> {gemm.dims = ["Bt", "M", "N"]}) attributes {gemm.matmul_spec = {a = 0 : i64, b = 1 : i64, c = 2 : i64, acc_type = f32}} {
    %M = arith.constant 37 : index
    %N = arith.constant 32 : index
    %0 = arith.constant 16 : index
    %1 = arith.constant 1 : index
    %grid_x = arith.ceildivui %N, %0 : index
    %grid_y = arith.ceildivui %M, %0 : index
    %batches = arith.constant 3 : index
    "gpu.launch_func"(%grid_x, %grid_y, %batches, %0, %0, %1, %A, %B, %C) <{kernel = @bat_kernels::@bat, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 3, 0>}> : (index, index, index, index, index, index, memref<3x37x19xf16>, memref<19x32xf16>, memref<3x37x32xf32>) -> ()
    func.return
  }
  "gpu.module"() <{sym_name = "bat_kernels"}> ({
    "gpu.func"() <{function_type = (memref<37x19xf16>, memref<19x32xf16>, memref<37x32xf32>) -> (), kernel}> ({
    ^bb0(%A: memref<37x19xf16>, %B: memref<19x32xf16>, %C: memref<37x32xf32>):
      %M = arith.constant 37 : index
      %N = arith.constant 32 : index
      %K = arith.constant 19 : index
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
          %a = memref.load %A[%row, %k] : memref<37x19xf16>
          %b = memref.load %B[%k, %col] : memref<19x32xf16>
          %7 = arith.extf %a : f16 to f32
          %8 = arith.extf %b : f16 to f32
          %sum_1 = math.fma %7, %8, %acc : f32
          scf.yield %sum_1 : f32
        } {gemm.role = "k_loop", gemmc.unroll = 64 : i64}
        memref.store %sum, %C[%row, %col] : memref<37x32xf32>
      }{gemm.role = "epilogue"}
      "gpu.return"() : () -> ()
    }) {sym_name = "bat", gpu.known_block_size = array<i32: 16, 16, 1>, gemm.arg_dims = [["M", "K"], ["K", "N"], ["M", "N"]], gemm.batch_args = array<i64: 0, 2>} : () -> ()
  }) : () -> ()
}
