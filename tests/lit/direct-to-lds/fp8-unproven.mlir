// RUN: %gemmc opt %s --arch gfx950 -p 'direct-to-lds' | filecheck %s
// RUN: not %gemmc opt %s --arch gfx950 -p 'direct-to-lds{strict=true}' 2>&1 | filecheck %s --check-prefix=STRICT

// FP8 words hold four elements, so every alignment proof is of multiples of 4: a word must
// lie wholly inside or outside the matrix, and in one row of the LDS tile.  Each copy here
// would qualify at 16 bits (even lengths and origin) but not at 8: the tile's row length 18,
// the column origin 2 t, a dynamic row length, a row length of 66.  Only %A is proven.
builtin.module attributes {gemmc.target = "gfx950"} {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (memref<64x64xf8E4M3FN>, memref<64x64xf8E4M3FN>, memref<?x?xf8E4M3FN>, memref<66x66xf8E4M3FN>, index, index, index) -> (), kernel}> ({
    ^bb0(%A: memref<64x64xf8E4M3FN>, %R: memref<64x64xf8E4M3FN>, %D: memref<?x?xf8E4M3FN>, %S: memref<66x66xf8E4M3FN>, %n: index, %t: index, %tid: index):
      %c0 = arith.constant 0 : index
      %c2 = arith.constant 2 : index
      %c16 = arith.constant 16 : index
      %k0 = arith.muli %t, %c16 : index
      %k2 = arith.muli %t, %c2 : index
      %tile_a = memref.alloca() : memref<16x16xf8E4M3FN, 3 : i64>
      %tile_r = memref.alloca() : memref<16x18xf8E4M3FN, 3 : i64>
      %tile_o = memref.alloca() : memref<16x16xf8E4M3FN, 3 : i64>
      %tile_d = memref.alloca() : memref<16x16xf8E4M3FN, 3 : i64>
      %tile_s = memref.alloca() : memref<16x16xf8E4M3FN, 3 : i64>
      gemm.copy %A[%k0, %k0] bounds[%n, %n] to %tile_a[] tid %tid {gemm.role = "load_a", extents = array<i64: 16, 16>, width = 1 : i64} : memref<64x64xf8E4M3FN>, memref<16x16xf8E4M3FN, 3 : i64>
      gemm.copy %R[%k0, %c0] bounds[%n, %n] to %tile_r[] tid %tid {gemm.role = "load_b", extents = array<i64: 16, 18>, width = 1 : i64} : memref<64x64xf8E4M3FN>, memref<16x18xf8E4M3FN, 3 : i64>
      gemm.copy %R[%k0, %k2] bounds[%n, %n] to %tile_o[] tid %tid {gemm.role = "load_b", extents = array<i64: 16, 16>, width = 1 : i64} : memref<64x64xf8E4M3FN>, memref<16x16xf8E4M3FN, 3 : i64>
      gemm.copy %D[%k0, %k0] bounds[%n, %n] to %tile_d[] tid %tid {gemm.role = "load_b", extents = array<i64: 16, 16>, width = 1 : i64} : memref<?x?xf8E4M3FN>, memref<16x16xf8E4M3FN, 3 : i64>
      gemm.copy %S[%k0, %k0] bounds[%n, %n] to %tile_s[] tid %tid {gemm.role = "load_b", extents = array<i64: 16, 16>, width = 1 : i64} : memref<66x66xf8E4M3FN>, memref<16x16xf8E4M3FN, 3 : i64>
      "gpu.return"() : () -> ()
    }) {sym_name = "words", gpu.known_block_size = array<i32: 64, 1, 1>} : () -> ()
  }) : () -> ()
}

// CHECK-LABEL: ^bb0(%A: memref<64x64xf8E4M3FN>
// CHECK:         gemm.copy %A{{.*}} width = 1 : i64, direct}
// CHECK-NEXT:    gemm.copy %R{{.*}} width = 1 : i64} : memref<64x64xf8E4M3FN>, memref<16x18xf8E4M3FN, 3 : i64>
// CHECK-NEXT:    gemm.copy %R{{.*}} width = 1 : i64} : memref<64x64xf8E4M3FN>, memref<16x16xf8E4M3FN, 3 : i64>
// CHECK-NEXT:    gemm.copy %D{{.*}} width = 1 : i64} : memref<?x?xf8E4M3FN>
// CHECK-NEXT:    gemm.copy %S{{.*}} width = 1 : i64} : memref<66x66xf8E4M3FN>

// STRICT: error: direct-to-lds: cannot load B directly: the tile's row length 18 is not a multiple of 4 (the f8e4m3fn elements of a 4-byte word) (at 'gemm.copy' in @words)
