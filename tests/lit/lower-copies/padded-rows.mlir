// RUN: %gemmc opt %s -p lower-copies | filecheck %s

// lower-copies of copies whose rows are padded (row_lanes above a row's loads and no multiple of
// them): each row takes row_lanes threads, the last ones idle, neither loading nor storing.

// A 4x24 tile of 4-element vectors: 6 loads a row padded to 8 lanes, 32 items over 32 threads.
// CHECK-LABEL: ^bb0(%A:
// CHECK:         %[[EIGHT:.*]] = arith.constant 8 : index
// CHECK-NEXT:    %i0 = arith.divui %tid, %[[EIGHT]] : index
// CHECK-NEXT:    %[[LANE:.*]] = arith.remui %tid, %[[EIGHT]] : index
// CHECK-NEXT:    %[[FOUR:.*]] = arith.constant 4 : index
// CHECK-NEXT:    %i1 = arith.muli %[[LANE]], %[[FOUR]] : index
// CHECK:         %[[ROW:.*]] = arith.constant 24 : index
// CHECK-NEXT:    %[[IN_ROW:.*]] = arith.cmpi ult, %i1, %[[ROW]] : index
// CHECK-NEXT:    %{{.*}} = arith.andi %in_bounds, %[[IN_ROW]] : i1
// CHECK:         vector.load %A[%g0, %g1] {{.*}} : memref<64x64xf16>, vector<4xf16>
// CHECK:         %[[STORES:.*]] = arith.cmpi ult, %i1, %[[ROW]] : index
// CHECK-NEXT:    scf.if %[[STORES]] {
// CHECK-NEXT:      vector.store %{{.*}}, %tile[%slot, %i0, %i1]

// A 16x56 tile of 8x8 blocks, 7 a row padded to 8 lanes: 16 items over 16 threads, an idle
// lane's block neither loaded (its column guard) nor stored.
// CHECK-LABEL: ^bb0(%B:
// CHECK:         %[[BEIGHT:.*]] = arith.constant 8 : index
// CHECK-NEXT:    %block_row = arith.divui %tid, %[[BEIGHT]] : index
// CHECK-NEXT:    %[[BLANE:.*]] = arith.remui %tid, %[[BEIGHT]] : index
// CHECK:         %i1 = arith.muli %[[BLANE]], %{{.*}} : index
// CHECK:         %[[B56:.*]] = arith.constant 56 : index
// CHECK-NEXT:    %[[BIN:.*]] = arith.cmpi ult, %i1, %[[B56]] : index
// CHECK-NEXT:    %{{.*}} = arith.andi %{{.*}}, %[[BIN]] : i1
// CHECK-COUNT-8: vector.load %B
// CHECK:         scf.if %{{.*}} {
// CHECK-COUNT-8:   vector.store %{{.*}}, %tile_b

builtin.module attributes {gemmc.target = "gfx942"} {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (memref<64x64xf16>, index, index, index, index, index, index) -> (), kernel}> ({
    ^bb0(%A: memref<64x64xf16>, %M: index, %K: index, %m0: index, %k0: index, %slot: index, %tid: index):
      %tile = memref.alloca() : memref<2x4x24xf16, 3 : i64>
      gemm.copy %A[%m0, %k0] bounds[%M, %K] to %tile[%slot] tid %tid {gemm.role = "load_a", extents = array<i64: 4, 24>, width = 4 : i64, row_lanes = 8 : i64} : memref<64x64xf16>, memref<2x4x24xf16, 3 : i64>
      "gpu.return"() : () -> ()
    }) {sym_name = "vectors", gpu.known_block_size = array<i32: 32, 1, 1>} : () -> ()
    "gpu.func"() <{function_type = (memref<64x64xf8E4M3FNUZ>, index, index, index, index, index, index) -> (), kernel}> ({
    ^bb0(%B: memref<64x64xf8E4M3FNUZ>, %K: index, %N: index, %k0: index, %n0: index, %slot: index, %tid: index):
      %tile_b = memref.alloca() : memref<2x56x16xf8E4M3FNUZ, 3 : i64>
      gemm.copy %B[%k0, %n0] bounds[%K, %N] to %tile_b[%slot] tid %tid {gemm.role = "load_b", extents = array<i64: 16, 56>, width = 8 : i64, transpose, row_lanes = 8 : i64, blocks} : memref<64x64xf8E4M3FNUZ>, memref<2x56x16xf8E4M3FNUZ, 3 : i64>
      "gpu.return"() : () -> ()
    }) {sym_name = "blocks", gpu.known_block_size = array<i32: 16, 1, 1>} : () -> ()
  }) : () -> ()
}
