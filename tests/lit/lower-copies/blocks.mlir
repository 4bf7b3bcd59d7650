// RUN: %gemmc opt %s -p lower-copies | filecheck %s

// lower-copies of a copy marked blocks (vectorize{blocks=true}): an 8x32 tile of B stored into a
// transposed [32][8] LDS tile, one 4x4 block a thread: four vector loads down the stored rows,
// each LDS row (a stored column) put together from element c of the four rows, four vector stores.
builtin.module attributes {gemmc.target = "gfx942"} {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (memref<64x64xf16>, index, index, index, index, index, index) -> (), kernel}> ({
    ^bb0(%B: memref<64x64xf16>, %K: index, %N: index, %k0: index, %c0: index, %slot: index, %tid: index):
      %tile = memref.alloca() : memref<2x32x8xf16, 3 : i64>
      gemm.copy %B[%k0, %c0] bounds[%K, %N] to %tile[%slot] tid %tid {gemm.role = "load_b", extents = array<i64: 8, 32>, width = 4 : i64, transpose, blocks} : memref<64x64xf16>, memref<2x32x8xf16, 3 : i64>
      "gpu.return"() : () -> ()
    }) {sym_name = "blocks", gpu.known_block_size = array<i32: 16, 1, 1>} : () -> ()
  }) : () -> ()
}

// 2 x 8 blocks over 16 threads: one step; block (tid / 8, tid % 8) starts at row 4 (tid / 8), column 4 (tid % 8).
// CHECK-LABEL: sym_name = "m"
// CHECK:         %block_row = arith.divui %tid, %[[EIGHT:.*]] : index
// CHECK-NEXT:    %[[COL:.*]] = arith.remui %tid, %[[EIGHT]] : index
// CHECK-NEXT:    %[[FOUR:.*]] = arith.constant 4 : index
// CHECK-NEXT:    %i1 = arith.muli %[[COL]], %[[FOUR]] : index
// CHECK-NEXT:    %i0 = arith.muli %block_row, %[[FOUR]] : index
// CHECK-COUNT-4: vector.load %B[%g0{{.*}}, %g1] {{.*}} : memref<64x64xf16>, vector<4xf16>
// CHECK:         %[[C01:.*]] = vector.shuffle %v, %v_2 [0, 4] : vector<4xf16>, vector<4xf16>
// CHECK-NEXT:    %[[C23:.*]] = vector.shuffle %v_4, %v_6 [0, 4] : vector<4xf16>, vector<4xf16>
// CHECK-NEXT:    %[[COL0:.*]] = vector.shuffle %[[C01]], %[[C23]] [0, 1, 2, 3] : vector<2xf16>, vector<2xf16>
// CHECK-NEXT:    vector.store %[[COL0]], %tile[%slot, %i1, %i0] : memref<2x32x8xf16, 3 : i64>, vector<4xf16>
// CHECK:         vector.shuffle %v, %v_2 [3, 7] : vector<4xf16>, vector<4xf16>
// CHECK-NEXT:    vector.shuffle %v_4, %v_6 [3, 7] : vector<4xf16>, vector<4xf16>
// CHECK-NEXT:    %[[COL3:.*]] = vector.shuffle
// CHECK-NEXT:    %[[R3:.*]] = arith.addi %i1, %{{.*}} : index
// CHECK-NEXT:    vector.store %[[COL3]], %tile[%slot, %[[R3]], %i0] : memref<2x32x8xf16, 3 : i64>, vector<4xf16>
// CHECK-NOT:     memref.store
