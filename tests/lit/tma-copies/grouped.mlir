// RUN: %gemmc opt %S/Inputs/grouped.mlir --arch sm_90 -p 'tma-copies' | filecheck %s

// A grouped product (X: f16[M, K] rows of G groups, W: f16[G, K, N], Y masked to the group's rows): X's
// box starts at the group's first row and may run past %group_end into the next group's rows, which
// every store of Y masks (r < %group_end, or the pair path's else of r >= %group_end); W's boxes take the
// group as the outermost coordinate of a rank-3 map.

// CHECK-LABEL: "gpu.func"()
// CHECK:         nvgpu.tma_load %X[%group_row, %{{[0-9]+}}], %tile_a[%slot, %{{[0-9]+}}, %{{[0-9]+}}], %full[%slot] {gemm.role = "load_a", box = array<i64: 64, 64>, swizzle = 0 : i32} : memref<300x96xf16>
// CHECK:         nvgpu.tma_load %W[%group, %k0, %{{[0-9]+}}], %tile_b[%slot, %{{[0-9]+}}, %{{[0-9]+}}], %full[%slot] {gemm.role = "load_b", box = array<i64: 64, 64>, swizzle = 0 : i32} : memref<4x96x72xf16>
