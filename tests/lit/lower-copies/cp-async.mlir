// RUN: %gemmc opt %s --arch sm_90 -p 'lower-copies' | filecheck %s
// RUN: %gemmc opt %s --arch sm_90 -p 'multi-buffer{factor=3},pipeline{stages=3},lower-copies' | filecheck %s --check-prefix=STAGES3

// On sm_90 a `direct` copy becomes cp.async, a 16-byte chunk (8 f16) a lane, reading only what lies
// in the matrix (src-size; the tile's origin as the address where nothing does); the K loop's copies
// of a tile are one group, waited for before the barrier that lets the compute read them.  With three
// stages the prologue commits two groups and waits for all but one; the loop commits its prefetch
// (empty once has_next is false) and waits for all but one before its last barrier.
builtin.module attributes {gemmc.target = "sm_90"} {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (memref<64x64xf16>, index, index) -> (), kernel}> ({
    ^bb0(%A: memref<64x64xf16>, %n: index, %tid: index):
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c16 = arith.constant 16 : index
      %tile_a = memref.alloca() : memref<16x16xf16, 3 : i64>
      scf.for %t = %c0 to %n step %c1 {
        %k0 = arith.muli %t, %c16 : index
        gemm.copy %A[%c0, %k0] bounds[%n, %n] to %tile_a[] tid %tid {gemm.role = "load_a", extents = array<i64: 16, 16>, width = 1 : i64, direct} : memref<64x64xf16>, memref<16x16xf16, 3 : i64>
        "gpu.barrier"() : () -> ()
        %x = memref.load %tile_a[%tid, %c0] : memref<16x16xf16, 3 : i64>
        "gpu.barrier"() : () -> ()
      } {gemm.role = "k_loop"}
      "gpu.return"() : () -> ()
    }) {sym_name = "k", gpu.known_block_size = array<i32: 32, 1, 1>} : () -> ()
  }) : () -> ()
}

// CHECK-LABEL: ^bb0(%A: memref<64x64xf16>
// CHECK:         scf.for %t
// CHECK:           %i0 = arith.divui %tid, %[[TWO:.*]] : index
// CHECK:           %[[CHUNK:.*]] = arith.remui %tid, %[[TWO]] : index
// CHECK:           %i1 = arith.muli %[[CHUNK]], %[[EIGHT:.*]] : index
// CHECK:           %g1 = arith.addi %k0, %i1 : index
// CHECK:           %in_bounds = arith.andi
// CHECK:           %[[REST:.*]] = arith.subi %n, %g1 : index
// CHECK:           %[[LEFT:.*]] = arith.select %in_bounds, %[[REST]], %{{.*}} : index
// CHECK:           %src_elements = arith.minui %[[LEFT]], %[[EIGHT]] : index
// CHECK:           %[[ROW:.*]] = arith.select %in_bounds, %i0, %c0 : index
// CHECK:           %[[COL:.*]] = arith.select %in_bounds, %g1, %k0 : index
// CHECK:           nvgpu.device_async_copy %A[%[[ROW]], %[[COL]]], %tile_a[%i0, %i1], %src_elements {gemm.role = "load_a", dstElements = 8 : i32} : memref<64x64xf16> to memref<16x16xf16, 3 : i64>
// CHECK-NEXT:      nvgpu.device_async_create_group
// CHECK-NEXT:      nvgpu.device_async_wait {numGroups = 0 : i32}
// CHECK-NEXT:      "gpu.barrier"() : () -> ()
// CHECK:           memref.load %tile_a
// CHECK-NEXT:      "gpu.barrier"() : () -> ()

// STAGES3-LABEL: ^bb0(%A: memref<64x64xf16>
// STAGES3:         nvgpu.device_async_copy %A{{.*}}%tile_a[%{{.*}}, %i0, %i1]
// STAGES3:         }{gemm.role = "prologue"}
// STAGES3-NEXT:    nvgpu.device_async_create_group
// STAGES3:         nvgpu.device_async_copy %A
// STAGES3:         }{gemm.role = "prologue"}
// STAGES3-NEXT:    nvgpu.device_async_create_group
// STAGES3-NEXT:    nvgpu.device_async_wait {numGroups = 1 : i32}
// STAGES3-NEXT:    "gpu.barrier"() : () -> ()
// STAGES3:         scf.for %t
// STAGES3:           nvgpu.device_async_copy %A
// STAGES3:           }{gemm.role = "prefetch"}
// STAGES3-NEXT:      nvgpu.device_async_create_group
// STAGES3:           memref.load %tile_a
// STAGES3-NEXT:      nvgpu.device_async_wait {numGroups = 1 : i32}
// STAGES3-NEXT:      "gpu.barrier"() : () -> ()
