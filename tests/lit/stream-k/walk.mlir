// RUN: %gemmc opt %s -p 'stream-k{workgroups=3}' | filecheck %s
// RUN: %gemmc opt %s -p 'stream-k{workgroups=3}' | %gemmc run - --arch gfx942 | filecheck %s --check-prefix=INTERP

// stream-k on gemm-to-kernel's kernel: 3 persistent workgroups share the 1 tile x 40 K iterations;
// the kernel's body becomes the body of a walk over the tiles a workgroup touches, the tile's block
// ids computed from the tile index, the K loop restricted to the walk, and C fixed up by atomic adds
// after an init kernel.

// CHECK-LABEL: func.func @sk(
// CHECK:         %persistent = arith.constant 3 : index
// CHECK-NEXT:    "gpu.launch_func"(%grid_x, %grid_y, %[[ONE:[0-9]+]], {{.*}}) <{kernel = @sk_kernels::@sk_streamk_init
// CHECK-NEXT:    "gpu.launch_func"(%persistent, %[[ONE]], %[[ONE]], {{.*}}) <{kernel = @sk_kernels::@sk,

// CHECK-LABEL: "gpu.func"
// CHECK:         %grid_x = arith.ceildivui %N, %{{.*}} : index
// CHECK:         %grid_y = arith.ceildivui %M, %{{.*}} : index
// CHECK:         %wg = "gpu.block_id"() <{dimension = #gpu<dim x>}>
// CHECK:         %k_iters = arith.maxui %K, %{{.*}} : index
// CHECK:         %iters = arith.muli %{{.*}}, %k_iters : index
// CHECK:         %share = arith.ceildivui %iters, %{{.*}} : index
// CHECK:         %walk_begin = arith.minui %{{.*}}, %iters : index
// CHECK:         %walk_end = arith.minui %{{.*}}, %iters : index
// CHECK:         %first_tile = arith.divui %walk_begin, %k_iters : index
// CHECK-NEXT:    %end_tile = arith.ceildivui %walk_end, %k_iters : index
// CHECK-NEXT:    scf.for %tile = %first_tile to %end_tile step
// CHECK-NEXT:      %bx = arith.remui %tile, %grid_x : index
// CHECK-NEXT:      %by = arith.divui %tile, %grid_x : index
// CHECK-NOT:       "gpu.block_id"
// CHECK:           %tile_start = arith.muli %tile, %k_iters : index
// CHECK:           %sum = scf.for %k = %{{.*}} to %k_end step
// CHECK:           "memref.atomic_rmw"(%result, %C, %row, %col) <{kind = 0 : i64}>
// CHECK:         sym_name = "sk"

// CHECK-LABEL: "gpu.func"
// CHECK-NOT:     scf.for
// CHECK:         memref.store %result, %C[%row, %col]
// CHECK:         sym_name = "sk_streamk_init"

// INTERP: PASS: M=8 N=8 K=40

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
        %scaled = arith.mulf %alpha, %sum : f32
        %c_old = memref.load %C[%row, %col] : memref<8x8xf32>
        %result = math.fma %beta, %c_old, %scaled : f32
        memref.store %result, %C[%row, %col] : memref<8x8xf32>
      }{gemm.role = "epilogue"}
      "gpu.return"() : () -> ()
    }) {sym_name = "sk", gpu.known_block_size = array<i32: 8, 8, 1>, gemm.arg_dims = [["M", "K"], ["K", "N"], ["M", "N"], [], []]} : () -> ()
  }) : () -> ()
}
