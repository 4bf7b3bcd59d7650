// RUN: %gemmc opt %s --arch sm_90 -p pack-operands | filecheck %s

// The stored last dim is what counts: A column-major is stored [K][M] = [19][40], rows of 40 bf16 (80 bytes,
// aligned: left as it is); B transposed is stored [N][K] = [29][19], rows of 19 (padded to 24).

// CHECK-LABEL: func.func @tr(
// CHECK-NOT:     %A_packed
// CHECK:         %B_packed = memref.alloc() : memref<29x24xbf16>
// CHECK:         "gpu.launch_func"({{.*}}, %B, %B_packed) <{kernel = @tr_kernels::@tr_pack_b,
// CHECK-NEXT:    "gpu.launch_func"({{.*}}, %A, %B_packed, %C) <{kernel = @tr_kernels::@tr,
// CHECK-NEXT:    memref.dealloc %B_packed : memref<29x24xbf16>
// CHECK-LABEL: ^bb0(%A: memref<19x40xbf16>, %B: memref<29x24xbf16>, %C: memref<40x29xf32>):
// CHECK:         memref.load %B[%col, %k] : memref<29x24xbf16>
// CHECK:         gemm.zero_padded = [{arg = 1 : i64, cols = 19 : i64}]

builtin.module attributes {gemmc.target = "sm_90", gpu.container_module} {
  func.func @tr(%A: memref<19x40xbf16> {gemm.dims = ["K", "M"]}, %B: memref<29x19xbf16> {gemm.dims = ["N", "K"]}, %C: memref<40x29xf32> {gemm.dims = ["M", "N"]}) attributes {gemm.matmul_spec = {a = 0 : i64, b = 1 : i64, c = 2 : i64, acc_type = f32, transpose_a, transpose_b}} {
    %M = arith.constant 40 : index
    %N = arith.constant 29 : index
    %0 = arith.constant 16 : index
    %1 = arith.constant 1 : index
    %grid_x = arith.ceildivui %N, %0 : index
    %grid_y = arith.ceildivui %M, %0 : index
    "gpu.launch_func"(%grid_x, %grid_y, %1, %0, %0, %1, %A, %B, %C) <{kernel = @tr_kernels::@tr, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 3, 0>}> : (index, index, index, index, index, index, memref<19x40xbf16>, memref<29x19xbf16>, memref<40x29xf32>) -> ()
    func.return
  }
  "gpu.module"() <{sym_name = "tr_kernels"}> ({
    "gpu.func"() <{function_type = (memref<19x40xbf16>, memref<29x19xbf16>, memref<40x29xf32>) -> (), kernel}> ({
    ^bb0(%A: memref<19x40xbf16>, %B: memref<29x19xbf16>, %C: memref<40x29xf32>):
      %M = arith.constant 40 : index
      %N = arith.constant 29 : index
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
          %a = memref.load %A[%k, %row] : memref<19x40xbf16>
          %b = memref.load %B[%col, %k] : memref<29x19xbf16>
          %7 = arith.extf %a : bf16 to f32
          %8 = arith.extf %b : bf16 to f32
          %sum_1 = math.fma %7, %8, %acc : f32
          scf.yield %sum_1 : f32
        } {gemm.role = "k_loop", gemmc.unroll = 64 : i64}
        memref.store %sum, %C[%row, %col] : memref<40x29xf32>
      }{gemm.role = "epilogue"}
      "gpu.return"() : () -> ()
    }) {sym_name = "tr", gpu.known_block_size = array<i32: 16, 16, 1>, gemm.arg_dims = [["K", "M"], ["N", "K"], ["M", "N"]]} : () -> ()
  }) : () -> ()
}
