// RUN: %gemmc opt %s --arch sm_90 -p pack-operands | filecheck %s

// M given at launch, K and N static (19 and 29): the row lengths are static, so A and B are padded; A's buffer
// takes its rows from the host's memref.dim, its copy kernel's grid is computed on the host from them, and the
// copy kernel reads them from its buffer.

// CHECK-LABEL: func.func @rows(
// CHECK:         %[[R:[0-9]+]] = memref.dim %A, %{{[0-9]+}} : memref<?x19xf16>
// CHECK-NEXT:    %A_packed = memref.alloc(%[[R]]) : memref<?x24xf16>
// CHECK:         %[[ROWS:[0-9]+]] = memref.dim %A_packed, %{{[0-9]+}} : memref<?x24xf16>
// CHECK-NEXT:    %[[N:[0-9]+]] = arith.constant 24 : index
// CHECK-NEXT:    %[[E:[0-9]+]] = arith.muli %[[ROWS]], %[[N]] : index
// CHECK-NEXT:    %pack_blocks = arith.ceildivui %[[E]], %{{[0-9]+}} : index
// CHECK:         "gpu.launch_func"(%pack_blocks, {{.*}}, %A, %A_packed) <{kernel = @rows_kernels::@rows_pack_a,
// CHECK-LABEL: ^bb0(%A: memref<?x19xf16>, %A_packed: memref<?x24xf16>):
// CHECK:         memref.dim %A_packed, %{{[0-9]+}} : memref<?x24xf16>
// CHECK:       gemm.arg_dims = {{\[}}["M", "K"], ["M", "K_padded"]]

builtin.module attributes {gemmc.target = "sm_90", gpu.container_module} {
  func.func @rows(%A: memref<?x19xf16> {gemm.dims = ["M", "K"]}, %B: memref<19x29xf16> {gemm.dims = ["K", "N"]}, %C: memref<?x29xf32> {gemm.dims = ["M", "N"]}) attributes {gemm.matmul_spec = {a = 0 : i64, b = 1 : i64, c = 2 : i64, acc_type = f32}} {
    %0 = arith.constant 0 : index
    %M = memref.dim %C, %0 : memref<?x29xf32>
    %N = arith.constant 29 : index
    %1 = arith.constant 16 : index
    %2 = arith.constant 1 : index
    %grid_x = arith.ceildivui %N, %1 : index
    %grid_y = arith.ceildivui %M, %1 : index
    "gpu.launch_func"(%grid_x, %grid_y, %2, %1, %1, %2, %A, %B, %C) <{kernel = @rows_kernels::@rows, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 3, 0>}> : (index, index, index, index, index, index, memref<?x19xf16>, memref<19x29xf16>, memref<?x29xf32>) -> ()
    func.return
  }
  "gpu.module"() <{sym_name = "rows_kernels"}> ({
    "gpu.func"() <{function_type = (memref<?x19xf16>, memref<19x29xf16>, memref<?x29xf32>) -> (), kernel}> ({
    ^bb0(%A: memref<?x19xf16>, %B: memref<19x29xf16>, %C: memref<?x29xf32>):
      %0 = arith.constant 0 : index
      %M = memref.dim %C, %0 : memref<?x29xf32>
      %N = arith.constant 29 : index
      %K = arith.constant 19 : index
      %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
      %1 = arith.constant 16 : index
      %2 = arith.muli %bx, %1 : index
      %tx = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %col = arith.addi %2, %tx : index
      %by = "gpu.block_id"() <{dimension = #gpu<dim y>}> : () -> index
      %3 = arith.muli %by, %1 : index
      %ty = "gpu.thread_id"() <{dimension = #gpu<dim y>}> : () -> index
      %row = arith.addi %3, %ty : index
      %4 = arith.cmpi ult, %row, %M : index
      %5 = arith.cmpi ult, %col, %N : index
      %inside = arith.andi %4, %5 : i1
      scf.if %inside {
        %zero = arith.constant 0.000000e+00 : f32
        %6 = arith.constant 1 : index
        %sum = scf.for %k = %0 to %K step %6 iter_args(%acc = %zero) -> (f32) {
          %a = memref.load %A[%row, %k] : memref<?x19xf16>
          %b = memref.load %B[%k, %col] : memref<19x29xf16>
          %7 = arith.extf %a : f16 to f32
          %8 = arith.extf %b : f16 to f32
          %sum_1 = math.fma %7, %8, %acc : f32
          scf.yield %sum_1 : f32
        } {gemm.role = "k_loop", gemmc.unroll = 64 : i64}
        memref.store %sum, %C[%row, %col] : memref<?x29xf32>
      }{gemm.role = "epilogue"}
      "gpu.return"() : () -> ()
    }) {sym_name = "rows", gpu.known_block_size = array<i32: 16, 16, 1>, gemm.arg_dims = [["M", "K"], ["K", "N"], ["M", "N"]]} : () -> ()
  }) : () -> ()
}
