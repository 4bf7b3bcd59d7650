// RUN: %gemmc opt %s --arch gfx942 -p 'direct-to-lds' | filecheck %s

// A copy made direct loses the marks that order an ordinary copy's lanes through VGPRs
// (lds-tiling's column_first, vectorize's peel): global_load_lds has its own order.
builtin.module attributes {gemmc.target = "gfx942"} {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (memref<?x?xf32>, memref<?x?xf32>, index, index, index) -> (), kernel}> ({
    ^bb0(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %n: index, %t: index, %tid: index):
      %c16 = arith.constant 16 : index
      %k0 = arith.muli %t, %c16 : index
      %tile_a_t = memref.alloca() : memref<16x16xf32, 3 : i64>
      %tile_b = memref.alloca() : memref<16x16xf32, 3 : i64>
      gemm.copy %A[%k0, %k0] bounds[%n, %n] to %tile_a_t[] tid %tid {gemm.role = "load_a", extents = array<i64: 16, 16>, width = 1 : i64, transpose, column_first} : memref<?x?xf32>, memref<16x16xf32, 3 : i64>
      gemm.copy %B[%k0, %k0] bounds[%n, %n] to %tile_b[] tid %tid {gemm.role = "load_b", extents = array<i64: 16, 16>, width = 4 : i64, peel} : memref<?x?xf32>, memref<16x16xf32, 3 : i64>
      "gpu.return"() : () -> ()
    }) {sym_name = "marks", gpu.known_block_size = array<i32: 64, 1, 1>} : () -> ()
  }) : () -> ()
}

// CHECK-LABEL: ^bb0(%A: memref<?x?xf32>
// CHECK:         gemm.copy %A{{.*}} {gemm.role = "load_a", extents = array<i64: 16, 16>, width = 1 : i64, transpose, direct}
// CHECK-NEXT:    gemm.copy %B{{.*}} {gemm.role = "load_b", extents = array<i64: 16, 16>, width = 4 : i64, direct}
