// RUN: %gemmc opt %s -p 'promote-private' | filecheck %s

// In straight-line code a load is the value last stored; a vector stored whole is read back
// as itself, and element by element through the vector.extract made where it was stored.
builtin.module attributes {gemmc.target = "gfx942"} {
  func.func @scalars(%x: f32, %y: f32) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %t = memref.alloca() : memref<2x2xf32, 5 : i64>
    memref.store %x, %t[%c0, %c1] : memref<2x2xf32, 5 : i64>
    memref.store %y, %t[%c1, %c0] : memref<2x2xf32, 5 : i64>
    %a = memref.load %t[%c0, %c1] : memref<2x2xf32, 5 : i64>
    %b = memref.load %t[%c1, %c0] : memref<2x2xf32, 5 : i64>
    %s = arith.addf %a, %b : f32
    func.return %s : f32
  }

  func.func @vectors(%v: vector<4xf32>, %x: f32) -> (vector<4xf32>, f32, vector<4xf32>) {
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    %t = memref.alloca() : memref<8xf32, 5 : i64>
    vector.store %v, %t[%c0] : memref<8xf32, 5 : i64>, vector<4xf32>
    %whole = vector.load %t[%c0] : memref<8xf32, 5 : i64>, vector<4xf32>
    %e = memref.load %t[%c2] : memref<8xf32, 5 : i64>
    memref.store %x, %t[%c2] : memref<8xf32, 5 : i64>
    %mixed = vector.load %t[%c0] : memref<8xf32, 5 : i64>, vector<4xf32>
    func.return %whole, %e, %mixed : vector<4xf32>, f32, vector<4xf32>
  }

  // An element read before anything is stored to it is undefined.
  func.func @undefined() -> f32 {
    %c0 = arith.constant 0 : index
    %t = memref.alloca() : memref<4xf32, 5 : i64>
    %a = memref.load %t[%c0] : memref<4xf32, 5 : i64>
    func.return %a : f32
  }
}

// CHECK-LABEL: func.func @scalars
// CHECK-NOT:     memref.
// CHECK:         %s = arith.addf %x, %y : f32
// CHECK-NEXT:    func.return %s : f32

// CHECK-LABEL: func.func @vectors
// CHECK-NOT:     memref.
// CHECK:         %0 = vector.extract %v[0] : f32 from vector<4xf32>
// CHECK-NEXT:    %1 = vector.extract %v[1] : f32 from vector<4xf32>
// CHECK-NEXT:    %e = vector.extract %v[2] : f32 from vector<4xf32>
// CHECK-NEXT:    %2 = vector.extract %v[3] : f32 from vector<4xf32>
// CHECK-NEXT:    %3 = vector.broadcast %0 : f32 to vector<4xf32>
// CHECK-NEXT:    %4 = vector.insert %1, %3 [1] : f32 into vector<4xf32>
// CHECK-NEXT:    %5 = vector.insert %x, %4 [2] : f32 into vector<4xf32>
// CHECK-NEXT:    %mixed = vector.insert %2, %5 [3] : f32 into vector<4xf32>
// CHECK-NEXT:    func.return %v, %e, %mixed : vector<4xf32>, f32, vector<4xf32>

// CHECK-LABEL: func.func @undefined
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %a = ub.poison : f32
// CHECK-NEXT:    func.return %a : f32
