// RUN: %gemmc opt %s -p lower-copies | filecheck %s

// lower-copies of a copy marked column_first (a scalar copy into a transposed, double-buffered
// tile): consecutive threads take consecutive i0, the tile's stored columns, so they write
// consecutive LDS words of tile_t[slot][i1][i0].
builtin.module attributes {gemmc.target = "sm_90"} {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (memref<64x64xf32>, index, index, index, index, index, index) -> (), kernel}> ({
    ^bb0(%B: memref<64x64xf32>, %K: index, %N: index, %k0: index, %c0: index, %slot: index, %tid: index):
      %tile = memref.alloca() : memref<2x32x8xf32, 3 : i64>
      gemm.copy %B[%k0, %c0] bounds[%K, %N] to %tile[%slot] tid %tid {gemm.role = "load_b", extents = array<i64: 8, 32>, width = 1 : i64, transpose, column_first} : memref<64x64xf32>, memref<2x32x8xf32, 3 : i64>
      "gpu.return"() : () -> ()
    }) {sym_name = "cols", gpu.known_block_size = array<i32: 64, 1, 1>} : () -> ()
  }) : () -> ()
}

// 256 elements over 64 threads: four steps; i0 = idx mod 8 runs fastest.
// CHECK-LABEL: sym_name = "m"
// CHECK:         scf.for %it = %{{.*}} to %{{.*}} step
// CHECK:           %idx = arith.addi %{{.*}}, %tid : index
// CHECK-NEXT:      %[[EIGHT:.*]] = arith.constant 8 : index
// CHECK-NEXT:      %i0 = arith.remui %idx, %[[EIGHT]] : index
// CHECK-NEXT:      %i1 = arith.divui %idx, %[[EIGHT]] : index
// CHECK:           memref.store %{{.*}}, %tile[%slot, %i1, %i0]
