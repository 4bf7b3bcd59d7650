// RUN: %gemmc opt %s -p 'unroll-loops' | filecheck %s

// Loops the pass leaves: bounds that are not constants, a body too big (or with a barrier)
// to unroll by the factor; loops inside them are still decided.
builtin.module attributes {gemmc.target = "gfx942"} {
  func.func @dynamic(%A: memref<?xf32>, %x: f32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %n = memref.dim %A, %c0 : memref<?xf32>
    scf.for %k = %c0 to %n step %c1 {
      scf.for %i = %c0 to %c2 step %c1 {
        memref.store %x, %A[%i] : memref<?xf32>
      }
    }
    func.return
  }

  func.func @barrier(%A: memref<64xf32>, %x: f32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    scf.for %k = %c0 to %c64 step %c1 {
      memref.store %x, %A[%k] : memref<64xf32>
      "gpu.barrier"() : () -> ()
    }
    func.return
  }
}

// CHECK-LABEL: func.func @dynamic
// CHECK:         scf.for %k = %c0 to %n step %c1 {
// CHECK-NEXT:      %i = arith.constant 0 : index
// CHECK-NEXT:      memref.store %x, %A[%i] : memref<?xf32>
// CHECK-NEXT:      %i_1 = arith.constant 1 : index
// CHECK-NEXT:      memref.store %x, %A[%i_1] : memref<?xf32>
// CHECK-NEXT:    }

// CHECK-LABEL: func.func @barrier
// CHECK:         scf.for %k = %c0 to %c64 step %c1 {
// CHECK-NEXT:      memref.store %x, %A[%k] : memref<64xf32>
// CHECK-NEXT:      "gpu.barrier"() : () -> ()
// CHECK-NEXT:    }
