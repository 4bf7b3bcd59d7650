// RUN: %gemmc opt %s -p 'unroll-loops' | filecheck %s

// A loop of at most `limit` iterations becomes that many copies of its body: the counter an
// arith.constant in each, the carried values threaded from copy to copy.
builtin.module attributes {gemmc.target = "gfx942"} {
  func.func @sum(%A: memref<64xf32>, %x: f32) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %s = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %x) -> (f32) {
      %a = memref.load %A[%i] : memref<64xf32>
      %n = arith.addf %acc, %a : f32
      scf.yield %n : f32
    }
    func.return %s : f32
  }

  // The inner loop's bound depends on the outer counter: decided on each copy's constant.
  func.func @triangle(%A: memref<8x8xf32>, %x: f32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    scf.for %i = %c0 to %c2 step %c1 {
      %n = arith.addi %i, %c1 : index
      scf.for %j = %c0 to %n step %c1 {
        memref.store %x, %A[%i, %j] : memref<8x8xf32>
      }
    }
    func.return
  }

  // No iteration: the loop's results are its inits.
  func.func @empty(%x: f32) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %s = scf.for %i = %c1 to %c0 step %c1 iter_args(%acc = %x) -> (f32) {
      %n = arith.addf %acc, %acc : f32
      scf.yield %n : f32
    }
    func.return %s : f32
  }
}

// CHECK-LABEL: func.func @sum
// CHECK-NOT:     scf.for
// CHECK:         %i = arith.constant 0 : index
// CHECK-NEXT:    %a = memref.load %A[%i] : memref<64xf32>
// CHECK-NEXT:    %n = arith.addf %x, %a : f32
// CHECK-NEXT:    %i_1 = arith.constant 1 : index
// CHECK-NEXT:    %a_1 = memref.load %A[%i_1] : memref<64xf32>
// CHECK-NEXT:    %n_1 = arith.addf %n, %a_1 : f32
// CHECK-NEXT:    %i_2 = arith.constant 2 : index
// CHECK-NEXT:    %a_2 = memref.load %A[%i_2] : memref<64xf32>
// CHECK-NEXT:    %n_2 = arith.addf %n_1, %a_2 : f32
// CHECK-NEXT:    func.return %n_2 : f32

// CHECK-LABEL: func.func @triangle
// CHECK-NOT:     scf.for
// CHECK:         %i = arith.constant 0 : index
// CHECK-NEXT:    %n = arith.addi %i, %c1 : index
// CHECK-NEXT:    %j = arith.constant 0 : index
// CHECK-NEXT:    memref.store %x, %A[%i, %j] : memref<8x8xf32>
// CHECK-NEXT:    %i_1 = arith.constant 1 : index
// CHECK-NEXT:    %n_1 = arith.addi %i_1, %c1 : index
// CHECK-NEXT:    %j_1 = arith.constant 0 : index
// CHECK-NEXT:    memref.store %x, %A[%i_1, %j_1] : memref<8x8xf32>
// CHECK-NEXT:    %j_2 = arith.constant 1 : index
// CHECK-NEXT:    memref.store %x, %A[%i_1, %j_2] : memref<8x8xf32>
// CHECK-NEXT:    func.return

// CHECK-LABEL: func.func @empty
// CHECK-NOT:     scf.for
// CHECK:         func.return %x : f32
