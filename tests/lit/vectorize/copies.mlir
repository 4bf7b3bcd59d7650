// RUN: %gemmc opt %s -p 'vectorize{width=4 peel=false}' | filecheck %s
// RUN: %gemmc opt %s -p 'vectorize{width=4}' | filecheck %s --check-prefix=PEEL
// RUN: not %gemmc opt %s -p 'vectorize{width=4 strict=true}' 2>&1 | filecheck %s --check-prefix=STRICT

// vectorize sets the width of each gemm.copy whose alignment the IR proves, and only that.
builtin.module attributes {gemmc.target = "gfx942"} {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (memref<64x64xf32>, memref<64x64xf32>, index, index, index) -> (), kernel}> ({
    ^bb0(%A: memref<64x64xf32>, %B: memref<64x64xf32>, %n: index, %t: index, %tid: index):
      %c16 = arith.constant 16 : index
      %k0 = arith.muli %t, %c16 : index
      %tile_a = memref.alloca() : memref<16x16xf32, 3 : i64>
      %tile_b = memref.alloca() : memref<16x16xf32, 3 : i64>
      gemm.copy %A[%k0, %k0] bounds[%n, %n] to %tile_a[] tid %tid {gemm.role = "load_a", extents = array<i64: 16, 16>, width = 1 : i64} : memref<64x64xf32>, memref<16x16xf32, 3 : i64>
      gemm.copy %B[%k0, %t] bounds[%n, %n] to %tile_b[] tid %tid {gemm.role = "load_b", extents = array<i64: 16, 16>, width = 1 : i64} : memref<64x64xf32>, memref<16x16xf32, 3 : i64>
      "gpu.return"() : () -> ()
    }) {sym_name = "origins", gpu.known_block_size = array<i32: 64, 1, 1>} : () -> ()
  }) : () -> ()
}

// A's column origin t * 16 is a multiple of 4; B's, t, is not known to be one.
// CHECK-LABEL: ^bb0(%A: memref<64x64xf32>
// CHECK:         gemm.copy %A[%k0, %k0] bounds[%n, %n] to %tile_a[] tid %tid {gemm.role = "load_a", extents = array<i64: 16, 16>, width = 4 : i64}
// CHECK-NEXT:    gemm.copy %B[%k0, %t] bounds[%n, %n] to %tile_b[] tid %tid {gemm.role = "load_b", extents = array<i64: 16, 16>, width = 1 : i64}

// By default the unproven copy is peeled: vectors for its rows' aligned interiors.
// PEEL-LABEL: ^bb0(%A: memref<64x64xf32>
// PEEL:         gemm.copy %A{{.*}} {gemm.role = "load_a", extents = array<i64: 16, 16>, width = 4 : i64}
// PEEL-NEXT:    gemm.copy %B{{.*}} {gemm.role = "load_b", extents = array<i64: 16, 16>, width = 4 : i64, peel}

// STRICT: error: vectorize: cannot vectorize B by 4: the tile's column origin is not provably a multiple of 4 (at 'gemm.copy' in @origins)
