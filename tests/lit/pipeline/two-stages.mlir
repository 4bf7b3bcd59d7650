// RUN: %gemmc opt %s -p 'pipeline' | filecheck %s
// RUN: %gemmc opt %s -p 'pipeline{stages=3}' | filecheck %s --check-prefix=THREE

// A copy / barrier / read / barrier loop over a buffer with 3 slots (multi-buffer's form).
builtin.module attributes {gemmc.target = "gfx942"} {
  func.func @copy_then_read(%A: memref<64x16xf32>, %out: memref<64xf32>, %i: index, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %tile = memref.alloca() : memref<3x16x16xf32, 3 : i64>
    scf.for %t = %c0 to %n step %c1 {
      %c3 = arith.constant 3 : index
      %slot = arith.remui %t, %c3 : index
      %x = memref.load %A[%t, %i] : memref<64x16xf32>
      memref.store %x, %tile[%slot, %i, %t] : memref<3x16x16xf32, 3 : i64>
      "gpu.barrier"() : () -> ()
      %y = memref.load %tile[%slot, %t, %i] : memref<3x16x16xf32, 3 : i64>
      memref.store %y, %out[%t] : memref<64xf32>
      "gpu.barrier"() : () -> ()
    }
    func.return
  }
}

// CHECK-LABEL: func.func @copy_then_read
// CHECK:         %tile = memref.alloca() : memref<3x16x16xf32, 3 : i64>
// CHECK-NEXT:    %[[FIRST:.*]] = arith.cmpi ult, %c0, %n : index
// CHECK-NEXT:    scf.if %[[FIRST]] {
// CHECK-NEXT:      %[[C3:.*]] = arith.constant 3 : index
// CHECK-NEXT:      %[[SLOT0:.*]] = arith.constant 0 : index
// CHECK-NEXT:      %[[X0:.*]] = memref.load %A[%c0, %i] : memref<64x16xf32>
// CHECK-NEXT:      memref.store %[[X0]], %tile[%[[SLOT0]], %i, %c0] : memref<3x16x16xf32, 3 : i64>
// CHECK-NEXT:    }{gemm.role = "prologue"}
// CHECK-NEXT:    "gpu.barrier"() : () -> ()
// CHECK-NEXT:    scf.for %t = %c0 to %n step %c1 {
// CHECK-NEXT:      %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:      %next_t = arith.addi %t, %[[ONE]] : index
// CHECK-NEXT:      %[[HAS:.*]] = arith.cmpi ult, %next_t, %n : index
// CHECK-NEXT:      scf.if %[[HAS]] {
// CHECK-NEXT:        %[[C3N:.*]] = arith.constant 3 : index
// CHECK-NEXT:        %[[SLOTN:.*]] = arith.remui %next_t, %[[C3N]] : index
// CHECK-NEXT:        %[[X:.*]] = memref.load %A[%next_t, %i] : memref<64x16xf32>
// CHECK-NEXT:        memref.store %[[X]], %tile[%[[SLOTN]], %i, %next_t] : memref<3x16x16xf32, 3 : i64>
// CHECK-NEXT:      }{gemm.role = "prefetch"}
// CHECK-NEXT:      %[[C3T:.*]] = arith.constant 3 : index
// CHECK-NEXT:      %[[SLOT:.*]] = arith.remui %t, %[[C3T]] : index
// CHECK-NEXT:      %y = memref.load %tile[%[[SLOT]], %t, %i] : memref<3x16x16xf32, 3 : i64>
// CHECK-NEXT:      memref.store %y, %out[%t] : memref<64xf32>
// CHECK-NEXT:      "gpu.barrier"() : () -> ()
// CHECK-NEXT:    }

// Three stages: iterations 0 and 1 in the prologue, the prefetch two ahead.
// THREE-LABEL: func.func @copy_then_read
// THREE:         }{gemm.role = "prologue"}
// THREE-NEXT:    %t1 = arith.constant 1 : index
// THREE-NEXT:    %{{.*}} = arith.cmpi ult, %t1, %n : index
// THREE:         }{gemm.role = "prologue"}
// THREE-NEXT:    "gpu.barrier"() : () -> ()
// THREE:           %[[TWO:.*]] = arith.constant 2 : index
// THREE-NEXT:      %next_t = arith.addi %t, %[[TWO]] : index
