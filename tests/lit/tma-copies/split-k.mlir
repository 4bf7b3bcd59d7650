// RUN: %gemmc opt %S/Inputs/split-k.mlir --arch sm_90 -p 'tma-copies' | filecheck %s

// split-k{factor=3}: z-slice bz's K loop runs over tiles [bz * k_chunk, k_end).  Tile t is iteration
// t - lo of it, and the wait's slot and parity follow that count (multi-buffer put tile t in slot
// (t - lo) mod 4), not the tile number.  The loop runs once a kernel: no mbarrier_inval.

// CHECK-LABEL: "gpu.func"()
// CHECK:         scf.for %t = %[[LO:[0-9]+]] to %k_end step %{{[0-9]+}} {
// CHECK-NEXT:      %k_iter = arith.subi %t, %[[LO]] : index
// CHECK-NEXT:      %[[F:[0-9]+]] = arith.constant 4 : index
// CHECK-NEXT:      %[[TWO:[0-9]+]] = arith.constant 2 : index
// CHECK-NEXT:      %full_slot = arith.remui %k_iter, %[[F]] : index
// CHECK-NEXT:      %[[R:[0-9]+]] = arith.divui %k_iter, %[[F]] : index
// CHECK-NEXT:      %full_parity = arith.remui %[[R]], %[[TWO]] : index
// CHECK-NEXT:      nvgpu.mbarrier_wait_parity %full[%full_slot], %full_parity : memref<4xi64, 3 : i64>
// CHECK:         } {gemm.role = "k_loop"}
// CHECK-NOT:     nvgpu.mbarrier_inval
// CHECK:         "gpu.return"
