// RUN: %gemmc opt %s -p lower-copies | filecheck %s

// lower-copies of a copy marked row_lanes = 4 (vectorize{row-lanes=4}): a 8x32 tile of
// 4-element vectors, 8 loads a row; 4 consecutive threads along a row, then the next row's same
// columns, down all 8 rows, before the next 4 columns.
builtin.module attributes {gemmc.target = "gfx1201"} {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (memref<64x64xf16>, index, index, index, index, index, index) -> (), kernel}> ({
    ^bb0(%B: memref<64x64xf16>, %K: index, %N: index, %k0: index, %c0: index, %slot: index, %tid: index):
      %tile = memref.alloca() : memref<2x32x8xf16, 3 : i64>
      gemm.copy %B[%k0, %c0] bounds[%K, %N] to %tile[%slot] tid %tid {gemm.role = "load_b", extents = array<i64: 8, 32>, width = 4 : i64, transpose, row_lanes = 4 : i64} : memref<64x64xf16>, memref<2x32x8xf16, 3 : i64>
      "gpu.return"() : () -> ()
    }) {sym_name = "segments", gpu.known_block_size = array<i32: 64, 1, 1>} : () -> ()
  }) : () -> ()
}

// 64 loads over 64 threads: one step, idx = tid = (segment * 8 + i0) * 4 + lane.
// CHECK-LABEL: sym_name = "m"
// CHECK:         %[[FOUR:.*]] = arith.constant 4 : index
// CHECK-NEXT:    %[[LANE:.*]] = arith.remui %tid, %[[FOUR]] : index
// CHECK-NEXT:    %[[ROWIDX:.*]] = arith.divui %tid, %[[FOUR]] : index
// CHECK-NEXT:    %[[EIGHT:.*]] = arith.constant 8 : index
// CHECK-NEXT:    %i0 = arith.remui %[[ROWIDX]], %[[EIGHT]] : index
// CHECK-NEXT:    %[[SEG:.*]] = arith.divui %[[ROWIDX]], %[[EIGHT]] : index
// CHECK-NEXT:    %[[COL:.*]] = arith.muli %[[SEG]], %[[FOUR]] : index
// CHECK-NEXT:    %[[C:.*]] = arith.addi %[[COL]], %[[LANE]] : index
// CHECK-NEXT:    %i1 = arith.muli %[[C]], %[[FOUR]] : index
// CHECK:         vector.load %B[%g0, %g1] {{.*}} : memref<64x64xf16>, vector<4xf16>
// CHECK:         memref.store %{{.*}}, %tile[%slot, %i1, %i0]
