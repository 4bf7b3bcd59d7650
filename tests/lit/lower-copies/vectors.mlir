// RUN: %gemmc opt %s -p lower-copies | filecheck %s

// width = 4: one vector load per four elements of a stored row; stored as one vector
// along an LDS row, or element by element into a transposed tile.
builtin.module attributes {gemmc.target = "gfx942"} {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (memref<64x64xf32>, index, index, index, index, index) -> (), kernel}> ({
    ^bb0(%A: memref<64x64xf32>, %M: index, %K: index, %r0: index, %k0: index, %tid: index):
      %tile = memref.alloca() : memref<16x16xf32, 3 : i64>
      gemm.copy %A[%r0, %k0] bounds[%M, %K] to %tile[] tid %tid {gemm.role = "load_a", extents = array<i64: 16, 16>, width = 4 : i64} : memref<64x64xf32>, memref<16x16xf32, 3 : i64>
      "gpu.return"() : () -> ()
    }) {sym_name = "along", gpu.known_block_size = array<i32: 64, 1, 1>} : () -> ()
    "gpu.func"() <{function_type = (memref<64x64xf32>, index, index, index, index, index) -> (), kernel}> ({
    ^bb0(%B: memref<64x64xf32>, %K: index, %N: index, %k0: index, %c0: index, %tid: index):
      %tile_t = memref.alloca() : memref<32x8xf32, 3 : i64>
      gemm.copy %B[%k0, %c0] bounds[%K, %N] to %tile_t[] tid %tid {gemm.role = "load_b", extents = array<i64: 8, 32>, width = 2 : i64, transpose} : memref<64x64xf32>, memref<32x8xf32, 3 : i64>
      "gpu.return"() : () -> ()
    }) {sym_name = "across", gpu.known_block_size = array<i32: 64, 1, 1>} : () -> ()
  }) : () -> ()
}

// 64 vectors over 64 threads: no loop; column i1 = (idx mod 4) * 4.
// CHECK-LABEL: ^bb0(%A: memref<64x64xf32>
// CHECK-NOT:     scf.for
// CHECK:         %i0 = arith.divui %[[IDX:.*]], %{{.*}} : index
// CHECK-NEXT:    %[[Q:.*]] = arith.remui %[[IDX]], %{{.*}} : index
// CHECK-NEXT:    %i1 = arith.muli %[[Q]], %{{.*}} : index
// CHECK:         %v = scf.if %in_bounds -> (vector<4xf32>) {
// CHECK-NEXT:      %{{.*}} = vector.load %A[%g0, %g1] {gemm.role = "load_a"} : memref<64x64xf32>, vector<4xf32>
// CHECK:         } else {
// CHECK:           vector.broadcast %{{.*}} : f32 to vector<4xf32>
// CHECK:         vector.store %v, %tile[%i0, %i1] : memref<16x16xf32, 3 : i64>, vector<4xf32>

// CHECK-LABEL: ^bb0(%B: memref<64x64xf32>
// CHECK:         %v = scf.if %in_bounds -> (vector<2xf32>) {
// CHECK:         %[[X0:.*]] = vector.extract %v[0] : f32 from vector<2xf32>
// CHECK-NEXT:    memref.store %[[X0]], %tile_t[%i1, %i0] : memref<32x8xf32, 3 : i64>
// CHECK-NEXT:    %[[X1:.*]] = vector.extract %v[1] : f32 from vector<2xf32>
// CHECK-NEXT:    %[[C1:.*]] = arith.addi %i1, %{{.*}} : index
// CHECK-NEXT:    memref.store %[[X1]], %tile_t[%[[C1]], %i0] : memref<32x8xf32, 3 : i64>
