// RUN: %gemmc opt %S/Inputs/batched-split-k.mlir --arch sm_90 -p 'tma-copies' | filecheck %s

// A batched kernel (A: f16[Bt, M, K], B: f16[K, N] shared by every batch) split by split-k{factor=2}: the
// workgroup's batch is block_id.z / 2 (gemm.batch_split); A's boxes take it as their batch coordinate
// (a rank-3 tensor map of the host's A), the broadcast B's keep two coordinates.

// CHECK-LABEL: "gpu.func"()
// CHECK:         %tma_leader = arith.cmpi eq, %tid, %{{[0-9]+}} : index
// CHECK-NEXT:    %[[Z:[0-9]+]] = "gpu.block_id"() <{dimension = #gpu<dim z>}> : () -> index
// CHECK-NEXT:    %[[S:[0-9]+]] = arith.constant 2 : index
// CHECK-NEXT:    %tma_batch = arith.divui %[[Z]], %[[S]] : index
// CHECK:         nvgpu.tma_load %A[%tma_batch, %block_row, %{{[0-9]+}}], %tile_a[%slot, %{{[0-9]+}}, %{{[0-9]+}}], %full[%slot] {gemm.role = "load_a", box = array<i64: 64, 64>, swizzle = 0 : i32} : memref<131x200xf16>
// CHECK:         nvgpu.tma_load %B[%k0, %{{[0-9]+}}], %tile_b[%slot, %{{[0-9]+}}, %{{[0-9]+}}], %full[%slot] {gemm.role = "load_b", box = array<i64: 64, 64>, swizzle = 0 : i32} : memref<200x72xf16>
