// RUN: %gemmc opt %s -p 'unroll-loops{limit=2}' | filecheck %s

// A loop over which a private (register) tile is indexed is unrolled whatever its length, so
// that promote-private sees constant indices; other loops of that length stay.
builtin.module attributes {gemmc.target = "gfx942"} {
  func.func @tile(%A: memref<64xf32>, %x: f32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %acc = memref.alloca() : memref<4xf32, 5 : i64>
    scf.for %i = %c0 to %c4 step %c1 {
      %j = arith.addi %i, %c0 : index
      memref.store %x, %acc[%j] : memref<4xf32, 5 : i64>
    }
    scf.for %i = %c0 to %c4 step %c1 {
      memref.store %x, %A[%i] : memref<64xf32>
    }
    func.return
  }

  // A vector access counts too (a matrix instruction's accumulator tile).
  func.func @vectors(%v: vector<4xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %acc = memref.alloca() : memref<3x4xf32, 5 : i64>
    scf.for %i = %c0 to %c3 step %c1 {
      vector.store %v, %acc[%i, %c0] : memref<3x4xf32, 5 : i64>, vector<4xf32>
    }
    func.return
  }
}

// CHECK-LABEL: func.func @tile
// CHECK:         %acc = memref.alloca() : memref<4xf32, 5 : i64>
// CHECK-NEXT:    %i = arith.constant 0 : index
// CHECK-NEXT:    %j = arith.addi %i, %c0 : index
// CHECK-NEXT:    memref.store %x, %acc[%j] : memref<4xf32, 5 : i64>
// CHECK:         %i_3 = arith.constant 3 : index
// CHECK-NEXT:    %j_3 = arith.addi %i_3, %c0 : index
// CHECK-NEXT:    memref.store %x, %acc[%j_3] : memref<4xf32, 5 : i64>
// CHECK-NEXT:    scf.for %i_4 = %c0 to %c4 step %c1 {
// CHECK-NEXT:      memref.store %x, %A[%i_4] : memref<64xf32>
// CHECK-NEXT:    }

// CHECK-LABEL: func.func @vectors
// CHECK-NOT:     scf.for
// CHECK:         vector.store %v, %acc[%i, %c0]
// CHECK:         vector.store %v, %acc[%i_1, %c0]
// CHECK:         vector.store %v, %acc[%i_2, %c0]
// CHECK-NEXT:    func.return
