// RUN: %gemmc opt %s -p lower-copies | filecheck %s

// A copy from a rank-3 source reads its group's matrix: every load's first index is the group.
builtin.module {
  "gpu.module"() <{sym_name = "k"}> ({
    "gpu.func"() <{function_type = (memref<4x16x32xf16>, index) -> (), kernel}> ({
    ^bb0(%W: memref<4x16x32xf16>, %g: index):
      %c0 = arith.constant 0 : index
      %c16 = arith.constant 16 : index
      %c32 = arith.constant 32 : index
      %tid = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %tile = memref.alloca() : memref<16x32xf16, 3 : i64>
      gemm.copy %W group %g[%c0, %c0] bounds[%c16, %c32] to %tile[] tid %tid {extents = array<i64: 16, 32>, width = 1 : i64} : memref<4x16x32xf16>, memref<16x32xf16, 3 : i64>
      "gpu.return"() : () -> ()
    }) {sym_name = "copy", gpu.known_block_size = array<i32: 64, 1, 1>} : () -> ()
  }) : () -> ()
}

// CHECK-LABEL: "gpu.func"
// CHECK:         memref.load %W[%g, %{{.*}}, %{{.*}}] : memref<4x16x32xf16>
// CHECK-NOT:     gemm.copy
