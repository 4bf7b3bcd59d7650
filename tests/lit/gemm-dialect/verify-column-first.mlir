// RUN: not %gemmc opt %s 2>&1 | filecheck %s

// column_first orders the threads of a scalar or peeled copy into a transposed tile; on a
// vector copy that is not peeled it would mean nothing, so the verifier refuses it.
builtin.module attributes {gemmc.target = "sm_90"} {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (memref<64x64xf32>, index, index, index, index, index) -> (), kernel}> ({
    ^bb0(%B: memref<64x64xf32>, %K: index, %N: index, %k0: index, %c0: index, %tid: index):
      %tile = memref.alloca() : memref<32x8xf32, 3 : i64>
      gemm.copy %B[%k0, %c0] bounds[%K, %N] to %tile[] tid %tid {extents = array<i64: 8, 32>, width = 4 : i64, transpose, column_first} : memref<64x64xf32>, memref<32x8xf32, 3 : i64>
      "gpu.return"() : () -> ()
    }) {sym_name = "v", gpu.known_block_size = array<i32: 64, 1, 1>} : () -> ()
  }) : () -> ()
}

// CHECK: error: IR does not verify: column_first orders a scalar or peeled copy into a transposed tile; this copy is width 4
