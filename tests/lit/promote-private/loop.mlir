// RUN: %gemmc opt %s -p 'promote-private' | filecheck %s

// A loop carries every element of the buffers allocated outside it that it stores to, as
// iter_args after its own; where all its vector accesses to a buffer have one width, that
// buffer goes around in vectors of that width (a matrix instruction's accumulators).
builtin.module attributes {gemmc.target = "gfx942"} {
  func.func @scalars(%A: memref<64xf32>, %n: index, %x: f32) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %acc = memref.alloca() : memref<2xf32, 5 : i64>
    memref.store %x, %acc[%c0] : memref<2xf32, 5 : i64>
    memref.store %x, %acc[%c1] : memref<2xf32, 5 : i64>
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%i = %c0) -> (index) {
      %a = memref.load %A[%k] : memref<64xf32>
      %s0 = memref.load %acc[%c0] : memref<2xf32, 5 : i64>
      %t0 = arith.addf %s0, %a : f32
      memref.store %t0, %acc[%c0] : memref<2xf32, 5 : i64>
      %s1 = memref.load %acc[%c1] : memref<2xf32, 5 : i64>
      %t1 = arith.mulf %s1, %a : f32
      memref.store %t1, %acc[%c1] : memref<2xf32, 5 : i64>
      %j = arith.addi %i, %c1 : index
      scf.yield %j : index
    }
    %u0 = memref.load %acc[%c0] : memref<2xf32, 5 : i64>
    %u1 = memref.load %acc[%c1] : memref<2xf32, 5 : i64>
    %u = arith.addf %u0, %u1 : f32
    func.return %u : f32
  }

  func.func @vectors(%n: index, %z: vector<4xf32>, %d: vector<4xf32>) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %acc = memref.alloca() : memref<4xf32, 5 : i64>
    vector.store %z, %acc[%c0] : memref<4xf32, 5 : i64>, vector<4xf32>
    scf.for %k = %c0 to %n step %c1 {
      %c = vector.load %acc[%c0] : memref<4xf32, 5 : i64>, vector<4xf32>
      %s = arith.addf %c, %d : vector<4xf32>
      vector.store %s, %acc[%c0] : memref<4xf32, 5 : i64>, vector<4xf32>
    }
    %last = memref.load %acc[%c3] : memref<4xf32, 5 : i64>
    func.return %last : f32
  }

  // A 0-d buffer is one element.
  func.func @zero_d(%x: f32, %n: index) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %t = memref.alloca() : memref<f32, 5 : i64>
    memref.store %x, %t[] : memref<f32, 5 : i64>
    scf.for %i = %c0 to %n step %c1 {
      %a = memref.load %t[] : memref<f32, 5 : i64>
      %b = arith.addf %a, %a : f32
      memref.store %b, %t[] : memref<f32, 5 : i64>
    }
    %r = memref.load %t[] : memref<f32, 5 : i64>
    func.return %r : f32
  }

  // A buffer allocated inside the loop is not carried.
  func.func @inner(%n: index, %x: f32, %out: memref<64xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.for %k = %c0 to %n step %c1 {
      %frag = memref.alloca() : memref<1xf32, 5 : i64>
      memref.store %x, %frag[%c0] : memref<1xf32, 5 : i64>
      %f = memref.load %frag[%c0] : memref<1xf32, 5 : i64>
      memref.store %f, %out[%k] : memref<64xf32>
    }
    func.return
  }
}

// CHECK-LABEL: func.func @scalars
// CHECK-NOT:     memref.alloca
// CHECK:         %r, %u0, %u1 = scf.for %k = %c0 to %n step %c1 iter_args(%i = %c0, %s0 = %x, %s1 = %x) -> (index, f32, f32) {
// CHECK-NEXT:      %a = memref.load %A[%k] : memref<64xf32>
// CHECK-NEXT:      %t0 = arith.addf %s0, %a : f32
// CHECK-NEXT:      %t1 = arith.mulf %s1, %a : f32
// CHECK-NEXT:      %j = arith.addi %i, %c1 : index
// CHECK-NEXT:      scf.yield %j, %t0, %t1 : index, f32, f32
// CHECK-NEXT:    }
// CHECK-NEXT:    %u = arith.addf %u0, %u1 : f32

// CHECK-LABEL: func.func @vectors
// CHECK:         %0 = scf.for %k = %c0 to %n step %c1 iter_args(%c = %z) -> (vector<4xf32>) {
// CHECK-NEXT:      %s = arith.addf %c, %d : vector<4xf32>
// CHECK-NEXT:      scf.yield %s : vector<4xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    %last = vector.extract %0[3] : f32 from vector<4xf32>
// CHECK-NEXT:    func.return %last : f32

// CHECK-LABEL: func.func @zero_d
// CHECK:         %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %x) -> (f32) {
// CHECK-NEXT:      %b = arith.addf %a, %a : f32
// CHECK-NEXT:      scf.yield %b : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %r : f32

// CHECK-LABEL: func.func @inner
// CHECK:         scf.for %k = %c0 to %n step %c1 {
// CHECK-NEXT:      memref.store %x, %out[%k] : memref<64xf32>
// CHECK-NEXT:    }
