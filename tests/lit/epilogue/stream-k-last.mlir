// RUN: %gemmc opt %S/Inputs/fused.mlir -p 'gemm-to-kernel,lds-tiling{block-m=32 block-n=32 block-k=16},register-tiling{thread-m=4 thread-n=4},stream-k{workgroups=4}' | filecheck %s

// The last contributor of a shared tile: the kernel's code after its K loop again, each accumulator
// the sum of the tile's slots of the workspace in slot order (deterministic), the epilogue applied
// once to it and C stored; no K loop, no load of A or B.

// CHECK-LABEL: "gpu.func"
// CHECK:         scf.if %last {
// CHECK-NEXT:      gemm.fence {ordering = "acquire", scope = "agent"}
// CHECK-NOT:       gemm.copy
// CHECK-NOT:       "gpu.barrier"
// CHECK:           scf.if %inside_1 {
// CHECK:             %tile_sum = scf.for %s_1 = %{{[0-9]+}} to %contributors step %{{[0-9]+}} iter_args(%acc_1 = %{{[0-9]+}}) -> (f32) {
// CHECK-NEXT:          %[[PART:[0-9]+]] = memref.load %workspace[%s_1, %[[R:[a-z0-9_]+]], %[[C:[a-z0-9_]+]]] : memref<?x64x32xf32>
// CHECK-NEXT:          %[[ADD:[0-9]+]] = arith.addf %acc_1, %[[PART]] : f32
// CHECK-NEXT:          scf.yield %[[ADD]] : f32
// CHECK-NEXT:        }
// CHECK-NEXT:        %s_e_1 = memref.load %s[%[[R]]] : memref<64xf32>
// CHECK:             arith.mulf %s_e_1, %tile_sum : f32
// CHECK:             math.erf
// CHECK:             memref.store %{{[0-9]+}}, %C[%[[R]], %[[C]]] : memref<64x32xf32>
// CHECK-NEXT:      }{gemm.role = "epilogue"}
// CHECK-NOT:       {gemm.role = "k_loop"}
// CHECK:         }{gemm.role = "fixup"}
