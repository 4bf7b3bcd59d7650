// RUN: not %gemmc opt %s 2>&1 | filecheck %s

// row_lanes orders the lanes of a copy that is not peeled, in groups that divide a stored row's
// loads, or pads each row to more lanes than its loads (a peeled copy's lanes follow peel-lanes, its
// rows' heads differ); the verifier refuses a group below the loads that does not divide them.
builtin.module attributes {gemmc.target = "gfx1201"} {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (memref<64x64xf16>, index, index, index, index, index, index) -> (), kernel}> ({
    ^bb0(%B: memref<64x64xf16>, %K: index, %N: index, %k0: index, %c0: index, %slot: index, %tid: index):
      %tile = memref.alloca() : memref<2x32x8xf16, 3 : i64>
      gemm.copy %B[%k0, %c0] bounds[%K, %N] to %tile[%slot] tid %tid {gemm.role = "load_b", extents = array<i64: 8, 32>, width = 4 : i64, transpose, row_lanes = 3 : i64} : memref<64x64xf16>, memref<2x32x8xf16, 3 : i64>
      "gpu.return"() : () -> ()
    }) {sym_name = "bad", gpu.known_block_size = array<i32: 64, 1, 1>} : () -> ()
  }) : () -> ()
}
// BAD: row_lanes 3 does not divide the 8 loads of a stored row

// CHECK: error: IR does not verify: row_lanes 3 does not divide the 8 loads of a stored row
