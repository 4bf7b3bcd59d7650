// RUN: %gemmc opt %s -p 'swizzle-lds' | filecheck %s

// Scalar accesses: chunks of one element, column j of row r moves to j xor (r mod 16).
builtin.module attributes {gemmc.target = "gfx942"} {
  func.func @scalar(%x: f32, %r: index, %j: index) -> f32 {
    %tile = memref.alloca() : memref<2x64x16xf32, 3 : i64>
    memref.store %x, %tile[%r, %r, %j] : memref<2x64x16xf32, 3 : i64>
    %y = memref.load %tile[%r, %j, %r] : memref<2x64x16xf32, 3 : i64>
    func.return %y : f32
  }
}

// CHECK-LABEL: func.func @scalar
// CHECK-NEXT:    %tile = memref.alloca() : memref<2x64x16xf32, 3 : i64>
// CHECK-NEXT:    %[[N:.*]] = arith.constant 16 : index
// CHECK-NEXT:    %[[PHASE:.*]] = arith.remui %r, %[[N]] : index
// CHECK-NEXT:    %[[SWZ:.*]] = arith.xori %j, %[[PHASE]] : index
// CHECK-NEXT:    memref.store %x, %tile[%r, %r, %[[SWZ]]] : memref<2x64x16xf32, 3 : i64>
// CHECK-NEXT:    %[[N2:.*]] = arith.constant 16 : index
// CHECK-NEXT:    %[[PHASE2:.*]] = arith.remui %j, %[[N2]] : index
// CHECK-NEXT:    %[[SWZ2:.*]] = arith.xori %r, %[[PHASE2]] : index
// CHECK-NEXT:    %y = memref.load %tile[%r, %j, %[[SWZ2]]] : memref<2x64x16xf32, 3 : i64>
