// RUN: %gemmc opt %s -p 'promote-private' | filecheck %s

// A branch that changes an element allocated outside the if gives the if a result for it;
// where there is no else branch, one is added that yields the old value.
builtin.module attributes {gemmc.target = "gfx942"} {
  func.func @guarded(%c: i1, %A: memref<64xf32>, %i: index, %x: f32) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %t = memref.alloca() : memref<2xf32, 5 : i64>
    memref.store %x, %t[%c0] : memref<2xf32, 5 : i64>
    memref.store %x, %t[%c1] : memref<2xf32, 5 : i64>
    scf.if %c {
      %a = memref.load %A[%i] : memref<64xf32>
      memref.store %a, %t[%c1] : memref<2xf32, 5 : i64>
    }
    %r0 = memref.load %t[%c0] : memref<2xf32, 5 : i64>
    %r1 = memref.load %t[%c1] : memref<2xf32, 5 : i64>
    %s = arith.addf %r0, %r1 : f32
    func.return %s : f32
  }

  // Both branches store; the if's own result comes first.
  func.func @both(%c: i1, %x: f32, %y: f32) -> (index, f32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %t = memref.alloca() : memref<1xf32, 5 : i64>
    %k = scf.if %c -> (index) {
      memref.store %x, %t[%c0] : memref<1xf32, 5 : i64>
      scf.yield %c0 : index
    } else {
      memref.store %y, %t[%c0] : memref<1xf32, 5 : i64>
      scf.yield %c1 : index
    }
    %r = memref.load %t[%c0] : memref<1xf32, 5 : i64>
    func.return %k, %r : index, f32
  }

  // Only one branch defines the element: the other yields ub.poison.
  func.func @one_sided(%c: i1, %x: f32) -> f32 {
    %c0 = arith.constant 0 : index
    %t = memref.alloca() : memref<1xf32, 5 : i64>
    scf.if %c {
      memref.store %x, %t[%c0] : memref<1xf32, 5 : i64>
    }
    %r = memref.load %t[%c0] : memref<1xf32, 5 : i64>
    func.return %r : f32
  }
}

// CHECK-LABEL: func.func @guarded
// CHECK-NOT:     memref.alloca
// CHECK:         %r1 = scf.if %c -> (f32) {
// CHECK-NEXT:      %a = memref.load %A[%i] : memref<64xf32>
// CHECK-NEXT:      scf.yield %a : f32
// CHECK-NEXT:    } else {
// CHECK-NEXT:      scf.yield %x : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    %s = arith.addf %x, %r1 : f32

// CHECK-LABEL: func.func @both
// CHECK:         %k, %r = scf.if %c -> (index, f32) {
// CHECK-NEXT:      scf.yield %c0, %x : index, f32
// CHECK-NEXT:    } else {
// CHECK-NEXT:      scf.yield %c1, %y : index, f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %k, %r : index, f32

// CHECK-LABEL: func.func @one_sided
// CHECK:         %0 = ub.poison : f32
// CHECK-NEXT:    %r = scf.if %c -> (f32) {
// CHECK-NEXT:      scf.yield %x : f32
// CHECK-NEXT:    } else {
// CHECK-NEXT:      scf.yield %0 : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %r : f32
