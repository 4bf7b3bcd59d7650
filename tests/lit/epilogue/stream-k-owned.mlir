// RUN: %gemmc opt %S/Inputs/fused.mlir -p 'gemm-to-kernel,lds-tiling{block-m=32 block-n=32 block-k=16},register-tiling{thread-m=4 thread-n=4},stream-k{workgroups=4}' | filecheck %s

// stream-k with a non-linear epilogue (s * sum + b, gelu, + R): a tile one workgroup walks whole
// (contributors = 1) runs the epilogue as it was; a contributor of a shared tile stores its raw
// partial sum at its slot of the workspace instead, and computes nothing of the epilogue (its loads
// of C or R would race with the last contributor's store).

// CHECK-LABEL: "gpu.func"
// CHECK:         scf.for %tile = %first_tile to %end_tile
// CHECK:           %first_contributor = arith.divui %[[START:[0-9]+]], %share : index
// CHECK:           %last_contributor = arith.divui %{{[0-9]+}}, %share : index
// CHECK:           %contributors = arith.addi
// CHECK-NEXT:      %owned = arith.cmpi eq, %contributors, %{{[0-9]+}} : index
// CHECK-NEXT:      %slot = arith.subi %wg, %first_contributor : index
// CHECK:           %sum = memref.load %acc[%{{.*}}] {gemm.role = "acc_read"}
// CHECK-NEXT:      scf.if %owned {
// CHECK-NEXT:        %s_e = memref.load %s[%[[R:[a-z0-9_]+]]]
// CHECK:             math.erf
// CHECK:             memref.store %{{[0-9]+}}, %C[%[[R]], %[[C:[a-z0-9_]+]]] : memref<64x32xf32>
// CHECK-NEXT:      } else {
// CHECK-NEXT:        memref.store %sum, %workspace[%slot, %[[R]], %[[C]]] : memref<?x64x32xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:    }{gemm.role = "epilogue"}
