// RUN: %gemmc opt %S/Inputs/packed.mlir --arch sm_90 -p tma-copies | filecheck %s
// RUN: sed 's/, gemm.zero_padded = \[[^]]*\]//' %S/Inputs/packed.mlir | not %gemmc opt - --arch sm_90 -p tma-copies 2>&1 | filecheck %s --check-prefix=UNMARKED

// A pipelined wgmma kernel at 70x45x37 after pack-operands: A's rows of 37 f16 and B's of 45 are in buffers
// padded to 40 and 48 (gemm.zero_padded: zeros past 37 and 45).  The copies are still bounded at the program's
// 37 and 45 columns; tma-copies takes them, its boxes reading the pad's zeros and TMA's past the buffer's edge.
// Without the attribute the bound is not the source's size and tma-copies refuses (TMA's zero fill is at the
// buffer's edge, where nothing says the pad holds zeros).

// CHECK-LABEL: ^bb0(%A: memref<70x40xf16>, %B: memref<37x48xf16>, %C: memref<70x45xf32>):
// CHECK:         nvgpu.tma_load %A[%block_row, %{{[0-9]+}}], %tile_a[{{.*}}] {gemm.role = "load_a", box = array<i64: 64, 64>, swizzle = 0 : i32} : memref<70x40xf16>
// CHECK:         nvgpu.tma_load %B[%k0, %{{[0-9]+}}], %tile_b[{{.*}}] {gemm.role = "load_b", box = array<i64: 64, 64>, swizzle = 0 : i32} : memref<37x48xf16>
// CHECK-NOT:     gemm.copy

// UNMARKED: error: tma-copies: the copy's bound of columns is not %A's 40: TMA's zero fill is at the matrix's edge (at 'gemm.copy' in @g)
