// RUN: %gemmc opt %S/../warp-specialize/Inputs/in-flight-f4.mlir --arch sm_90 -p 'tma-copies' | filecheck %s

// A prologue stage: the leader arms the slot's mbarrier with the stage's bytes (A's 128x64 and B's 64x128
// f16 tiles: 32768), then issues A's tile as one box and B's 64x128 tile as two 64x64 boxes, one per
// 128-byte panel; boxes are unswizzled until swizzle-lds{mode=sw128}.

// CHECK-LABEL: %slot = arith.constant 0 : index
// CHECK:         scf.if %tma_leader {
// CHECK-NEXT:      nvgpu.mbarrier_arrive_expect_tx %full[%slot] {txBytes = 32768 : i32}
// CHECK:           nvgpu.tma_load %A[%block_row, %{{[0-9]+}}], %tile_a[%slot, %{{[0-9]+}}, %{{[0-9]+}}], %full[%slot] {gemm.role = "load_a", box = array<i64: 128, 64>, swizzle = 0 : i32}
// CHECK:           %[[C0:[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT:      %[[B0:[0-9]+]] = arith.addi %block_col, %[[C0]] : index
// CHECK:           nvgpu.tma_load %B[%k0, %[[B0]]], %tile_b[%slot, %{{[0-9]+}}, %[[C0]]], %full[%slot] {gemm.role = "load_b", box = array<i64: 64, 64>, swizzle = 0 : i32}
// CHECK-NEXT:      %[[C64:[0-9]+]] = arith.constant 64 : index
// CHECK-NEXT:      %[[B64:[0-9]+]] = arith.addi %block_col, %[[C64]] : index
// CHECK:           nvgpu.tma_load %B[%k0, %[[B64]]], %tile_b[%slot, %{{[0-9]+}}, %[[C64]]], %full[%slot] {gemm.role = "load_b", box = array<i64: 64, 64>, swizzle = 0 : i32}
// CHECK-NEXT:    }
// CHECK-NEXT:  }{gemm.role = "prologue"}
