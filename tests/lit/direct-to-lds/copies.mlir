// RUN: %gemmc opt %s --arch gfx950 -p 'direct-to-lds' | filecheck %s
// RUN: not %gemmc opt %s --arch gfx950 -p 'direct-to-lds{strict=true}' 2>&1 | filecheck %s --check-prefix=STRICT

// direct-to-lds marks the copies that global_load_lds can move (4-byte words that lie
// together in global memory and in a dense LDS tile), and only those.
builtin.module attributes {gemmc.target = "gfx950"} {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (memref<64x64xf16>, memref<64x64xf16>, index, index, index) -> (), kernel}> ({
    ^bb0(%A: memref<64x64xf16>, %B: memref<64x64xf16>, %n: index, %t: index, %tid: index):
      %c16 = arith.constant 16 : index
      %k0 = arith.muli %t, %c16 : index
      %tile_a = memref.alloca() : memref<16x16xf16, 3 : i64>
      %tile_b_t = memref.alloca() : memref<16x16xf16, 3 : i64>
      gemm.copy %A[%k0, %k0] bounds[%n, %n] to %tile_a[] tid %tid {gemm.role = "load_a", extents = array<i64: 16, 16>, width = 1 : i64} : memref<64x64xf16>, memref<16x16xf16, 3 : i64>
      gemm.copy %B[%k0, %k0] bounds[%n, %n] to %tile_b_t[] tid %tid {gemm.role = "load_b", extents = array<i64: 16, 16>, width = 1 : i64, transpose} : memref<64x64xf16>, memref<16x16xf16, 3 : i64>
      "gpu.return"() : () -> ()
    }) {sym_name = "pairs", gpu.known_block_size = array<i32: 64, 1, 1>} : () -> ()
  }) : () -> ()
}

// CHECK-LABEL: ^bb0(%A: memref<64x64xf16>
// CHECK:         gemm.copy %A{{.*}} {gemm.role = "load_a", extents = array<i64: 16, 16>, width = 1 : i64, direct}
// CHECK-NEXT:    gemm.copy %B{{.*}} {gemm.role = "load_b", extents = array<i64: 16, 16>, width = 1 : i64, transpose}

// STRICT: error: direct-to-lds: cannot load B directly: its f16 pairs are adjacent in global memory but not in its LDS tile (transposed there) (at 'gemm.copy' in @pairs)
