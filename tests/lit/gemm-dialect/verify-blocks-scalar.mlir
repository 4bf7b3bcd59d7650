// RUN: not %gemmc opt %s 2>&1 | filecheck %s

// blocks needs vectors to transpose: a scalar copy marked blocks is refused.
builtin.module attributes {gemmc.target = "gfx942"} {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (memref<64x64xf16>, index, index, index, index, index, index) -> (), kernel}> ({
    ^bb0(%B: memref<64x64xf16>, %K: index, %N: index, %k0: index, %c0: index, %slot: index, %tid: index):
      %tile = memref.alloca() : memref<2x32x8xf16, 3 : i64>
      gemm.copy %B[%k0, %c0] bounds[%K, %N] to %tile[%slot] tid %tid {gemm.role = "load_b", extents = array<i64: 8, 32>, width = 1 : i64, transpose, blocks} : memref<64x64xf16>, memref<2x32x8xf16, 3 : i64>
      "gpu.return"() : () -> ()
    }) {sym_name = "bad", gpu.known_block_size = array<i32: 64, 1, 1>} : () -> ()
  }) : () -> ()
}

// CHECK: error: IR does not verify: blocks transposes a vector copy in registers; this copy is scalar
