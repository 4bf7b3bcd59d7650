// RUN: %gemmc opt %s -p lower-copies | filecheck %s

// lower-copies: a gemm.copy becomes the workgroup's copy loop (gpu.known_block_size
// threads, row by row), guarded loads with zeros outside the bounds, LDS stores.
builtin.module attributes {gemmc.target = "gfx942"} {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (memref<64x64xf32>, index, index, index, index, index) -> (), kernel}> ({
    ^bb0(%A: memref<64x64xf32>, %M: index, %K: index, %r0: index, %k0: index, %tid: index):
      %tile = memref.alloca() : memref<16x16xf32, 3 : i64>
      gemm.copy %A[%r0, %k0] bounds[%M, %K] to %tile[] tid %tid {gemm.role = "load_a", extents = array<i64: 16, 16>, width = 1 : i64} : memref<64x64xf32>, memref<16x16xf32, 3 : i64>
      "gpu.return"() : () -> ()
    }) {sym_name = "rows", gpu.known_block_size = array<i32: 64, 1, 1>} : () -> ()
  }) : () -> ()
}

// 256 elements over 64 threads: four steps; consecutive threads on consecutive columns.
// CHECK-LABEL: sym_name = "m"
// CHECK:         scf.for %it = %{{.*}} to %[[FOUR:.*]] step
// CHECK:           %[[STEP:.*]] = arith.muli %it, %{{.*}} : index
// CHECK-NEXT:      %idx = arith.addi %[[STEP]], %tid : index
// CHECK-NEXT:      %{{.*}} = arith.constant 16 : index
// CHECK-NEXT:      %i0 = arith.divui %idx, %{{.*}} : index
// CHECK-NEXT:      %i1 = arith.remui %idx, %{{.*}} : index
// CHECK-NEXT:      %g0 = arith.addi %r0, %i0 : index
// CHECK-NEXT:      %g1 = arith.addi %k0, %i1 : index
// CHECK:           %in_bounds = arith.andi
// CHECK-NEXT:      %v = scf.if %in_bounds -> (f32) {
// CHECK-NEXT:        %{{.*}} = memref.load %A[%g0, %g1] {gemm.role = "load_a"} : memref<64x64xf32>
// CHECK:           } else {
// CHECK-NEXT:        %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:        scf.yield %[[Z]] : f32
// CHECK:           memref.store %v, %tile[%i0, %i1] : memref<16x16xf32, 3 : i64>
// CHECK-NEXT:    }
// CHECK-NOT:     gemm.copy
