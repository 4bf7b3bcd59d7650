// RUN: %gemmc opt %S/Inputs/odd.mlir --arch sm_90 -p pack-operands | filecheck %s

// A's copy kernel: thread i (of 888) writes element i of the 37 x 24 buffer, row-major; a column of the
// program's 19 gets A's element, a pad column 0 (the load clamped to the row's last element, so that it stays
// inside A, and not kept).  Every element is written: nothing downstream reads garbage.

// CHECK-LABEL: ^bb0(%A: memref<37x19xf16>, %A_packed: memref<37x24xf16>):
// CHECK-NEXT:    %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
// CHECK-NEXT:    %[[B:[0-9]+]] = arith.constant 64 : index
// CHECK-NEXT:    %[[X:[0-9]+]] = arith.muli %bx, %[[B]] : index
// CHECK-NEXT:    %tx = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
// CHECK-NEXT:    %i = arith.addi %[[X]], %tx : index
// CHECK-NEXT:    %[[TOTAL:[0-9]+]] = arith.constant 888 : index
// CHECK-NEXT:    %[[LP:[0-9]+]] = arith.constant 24 : index
// CHECK-NEXT:    %inside = arith.cmpi ult, %i, %[[TOTAL]] : index
// CHECK-NEXT:    scf.if %inside {
// CHECK-NEXT:      %col = arith.remui %i, %[[LP]] : index
// CHECK-NEXT:      %row = arith.divui %i, %[[LP]] : index
// CHECK-NEXT:      %[[L:[0-9]+]] = arith.constant 19 : index
// CHECK-NEXT:      %in_row = arith.cmpi ult, %col, %[[L]] : index
// CHECK-NEXT:      %[[LAST:[0-9]+]] = arith.constant 18 : index
// CHECK-NEXT:      %src_col = arith.minui %col, %[[LAST]] : index
// CHECK-NEXT:      %element = memref.load %A[%row, %src_col] : memref<37x19xf16>
// CHECK-NEXT:      %[[Z:[0-9]+]] = arith.constant 0.000000e+00 : f16
// CHECK-NEXT:      %packed = arith.select %in_row, %element, %[[Z]] : f16
// CHECK-NEXT:      memref.store %packed, %A_packed[%row, %col] : memref<37x24xf16>
// CHECK-NEXT:    }
// CHECK-NEXT:    "gpu.return"() : () -> ()
// CHECK-NEXT:  }) {sym_name = "odd_pack_a", gpu.known_block_size = array<i32: 64, 1, 1>, gemm.role = "pack", gemm.arg_dims = {{\[}}["M", "K"], ["M", "K_padded"]]}

// CHECK-LABEL: ^bb0(%B: memref<19x29xf16>, %B_packed: memref<19x32xf16>):
// CHECK:         %packed = arith.select %in_row, %element, %{{[0-9]+}} : f16
// CHECK-NEXT:    memref.store %packed, %B_packed[%row, %col] : memref<19x32xf16>
// CHECK:       sym_name = "odd_pack_b"
