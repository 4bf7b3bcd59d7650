// RUN: %gemmc opt %s -p 'swizzle-lds{buffers=tile}' | filecheck %s
// RUN: not %gemmc opt %s -p 'swizzle-lds{buffers=unaligned}' 2>&1 | filecheck %s --check-prefix=UNALIGNED
// RUN: not %gemmc opt %s -p 'swizzle-lds{buffers=tile vector=2}' 2>&1 | filecheck %s --check-prefix=WIDE
// RUN: not %gemmc opt %s -p 'swizzle-lds{buffers=odd}' 2>&1 | filecheck %s --check-prefix=ODD
// RUN: %gemmc opt %s -p 'swizzle-lds{strict=false}' | filecheck %s --check-prefix=LENIENT

// Vector accesses keep whole chunks: the chunk index (j / 4) is XORed with the row.
builtin.module attributes {gemmc.target = "gfx942"} {
  func.func @float4(%r: index, %q: index, %j: index) -> vector<4xf32> {
    %c4 = arith.constant 4 : index
    %col = arith.muli %q, %c4 : index
    %tile = memref.alloca() : memref<32x16xf32, 3 : i64>
    %v = vector.load %tile[%r, %col] : memref<32x16xf32, 3 : i64>, vector<4xf32>
    %unaligned = memref.alloca() : memref<32x16xf32, 3 : i64>
    %w = vector.load %unaligned[%r, %j] : memref<32x16xf32, 3 : i64>, vector<4xf32>
    %odd = memref.alloca() : memref<32x12xf32, 3 : i64>
    %u = vector.load %odd[%r, %col] : memref<32x12xf32, 3 : i64>, vector<4xf32>
    func.return %v : vector<4xf32>
  }
}

// CHECK-LABEL: func.func @float4
// CHECK:         %tile = memref.alloca() : memref<32x16xf32, 3 : i64>
// CHECK-NEXT:    %[[V:.*]] = arith.constant 4 : index
// CHECK-NEXT:    %[[CHUNK:.*]] = arith.divui %col, %[[V]] : index
// CHECK-NEXT:    %[[C:.*]] = arith.constant 4 : index
// CHECK-NEXT:    %[[PHASE:.*]] = arith.remui %r, %[[C]] : index
// CHECK-NEXT:    %[[X:.*]] = arith.xori %[[CHUNK]], %[[PHASE]] : index
// CHECK-NEXT:    %[[BASE:.*]] = arith.muli %[[X]], %[[V]] : index
// CHECK-NEXT:    %[[LANE:.*]] = arith.remui %col, %[[V]] : index
// CHECK-NEXT:    %swz = arith.addi %[[BASE]], %[[LANE]] : index
// CHECK-NEXT:    %v = vector.load %tile[%r, %swz] : memref<32x16xf32, 3 : i64>, vector<4xf32>

// UNALIGNED: error: swizzle-lds: the column index of this 4-element access to %unaligned is not provably a multiple of 4, so it could straddle two chunks (at 'vector.load' in @float4)
// WIDE: error: swizzle-lds: a 4-element access to %tile is wider than the 2-element chunks (set vector=4) (at 'vector.load' in @float4)
// ODD: error: swizzle-lds: rows of %odd hold 12 elements, not a power-of-two number (>= 2) of 4-element chunks (at 'memref.alloca' in @float4)

// strict=false swizzles %tile and leaves the buffers it cannot swizzle as they are.
// LENIENT-LABEL: func.func @float4
// LENIENT:         %v = vector.load %tile[%r, %swz] : memref<32x16xf32, 3 : i64>, vector<4xf32>
// LENIENT:         %w = vector.load %unaligned[%r, %j] : memref<32x16xf32, 3 : i64>, vector<4xf32>
// LENIENT:         %u = vector.load %odd[%r, %col] : memref<32x12xf32, 3 : i64>, vector<4xf32>
