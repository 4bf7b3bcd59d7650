// RUN: %gemmc opt %S/Inputs/fused.mlir --arch gfx942 -p 'gemm-to-kernel,lds-tiling{block-m=64 block-n=32 block-k=16},register-tiling{thread-m=4 thread-n=4},matrix-cores' | filecheck %s

// matrix-cores on CDNA (gfx942's MFMA): each lane's accumulator items at the row and column the instruction's D layout gives them (gemmc.target.arch).

// CHECK:      amdgpu.mfma
// CHECK:      %[[SUM:[a-z0-9_]+]] = memref.load %acc{{.*}} {gemm.role = "acc_read"}
// CHECK-NEXT: %s_e = memref.load %s[%[[R:[a-z0-9_]+]]] : memref<64xf32>
// CHECK-NEXT: %b_e = memref.load %b[%[[C:[a-z0-9_]+]]] : memref<32xf32>
// CHECK-NEXT: %R_e = memref.load %R[%[[R]], %[[C]]] : memref<64x32xf16>
// CHECK-NEXT: %[[X:[0-9]+]] = arith.mulf %s_e, %[[SUM]] : f32
// CHECK-NEXT: %[[Y:[0-9]+]] = arith.addf %[[X]], %b_e : f32
// CHECK:      math.erf
// CHECK:      arith.constant 1.0
// CHECK-NEXT: arith.addf
// CHECK-NEXT: %[[G:[0-9]+]] = arith.mulf
// CHECK-NEXT: %[[RE:[0-9]+]] = arith.extf %R_e : f16 to f32
// CHECK-NEXT: %[[OUT:[0-9]+]] = arith.addf %[[G]], %[[RE]] : f32
// CHECK-NEXT: memref.store %[[OUT]], %C[%[[R]], %[[C]]]
