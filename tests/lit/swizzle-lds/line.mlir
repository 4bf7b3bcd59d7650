// RUN: %gemmc opt %s -p 'swizzle-lds{rows=0}' | filecheck %s
// RUN: %gemmc opt %s -p 'swizzle-lds{rows=2}' | filecheck %s --check-prefix=TWO
// RUN: not %gemmc opt %s -p 'swizzle-lds{rows=3}' 2>&1 | filecheck %s --check-prefix=NOTPOW2

// Rows of 16 f16 (32 bytes) are a quarter of gfx942's 128-byte bank line: rows=0 swizzles
// four rows as one line of 16 four-element chunks, so both the row and the column move.
builtin.module attributes {gemmc.target = "gfx942"} {
  func.func @frag(%r: index, %q: index) -> vector<4xf16> {
    %c4 = arith.constant 4 : index
    %col = arith.muli %q, %c4 : index
    %tile = memref.alloca() : memref<64x16xf16, 3 : i64>
    %v = vector.load %tile[%r, %col] : memref<64x16xf16, 3 : i64>, vector<4xf16>
    func.return %v : vector<4xf16>
  }
}

// CHECK-LABEL: func.func @frag
// CHECK:         %tile = memref.alloca() : memref<64x16xf16, 3 : i64>
// CHECK-NEXT:    %[[G:[0-9]+]] = arith.constant 4 : index
// CHECK-NEXT:    %[[C:[0-9]+]] = arith.constant 4 : index
// CHECK-NEXT:    %[[V:[0-9]+]] = arith.constant 4 : index
// CHECK-NEXT:    %[[CHUNK:[0-9]+]] = arith.divui %col, %[[V]] : index
// CHECK-NEXT:    %[[WITHIN:[0-9]+]] = arith.remui %r, %[[G]] : index
// CHECK-NEXT:    %[[BASE:[0-9]+]] = arith.muli %[[WITHIN]], %[[C]] : index
// CHECK-NEXT:    %[[PLACE:[0-9]+]] = arith.addi %[[BASE]], %[[CHUNK]] : index
// CHECK-NEXT:    %[[LINE:[0-9]+]] = arith.divui %r, %[[G]] : index
// CHECK-NEXT:    %[[N:[0-9]+]] = arith.constant 16 : index
// CHECK-NEXT:    %[[PHASE:[0-9]+]] = arith.remui %[[LINE]], %[[N]] : index
// CHECK-NEXT:    %[[MOVED:[0-9]+]] = arith.xori %[[PLACE]], %[[PHASE]] : index
// CHECK-NEXT:    %[[TOP:[0-9]+]] = arith.subi %r, %[[WITHIN]] : index
// CHECK-NEXT:    %[[DROW:[0-9]+]] = arith.divui %[[MOVED]], %[[C]] : index
// CHECK-NEXT:    %swz_row = arith.addi %[[TOP]], %[[DROW]] : index
// CHECK-NEXT:    %[[NC:[0-9]+]] = arith.remui %[[MOVED]], %[[C]] : index
// CHECK-NEXT:    %[[NB:[0-9]+]] = arith.muli %[[NC]], %[[V]] : index
// CHECK-NEXT:    %[[LANE:[0-9]+]] = arith.remui %col, %[[V]] : index
// CHECK-NEXT:    %swz = arith.addi %[[NB]], %[[LANE]] : index
// CHECK-NEXT:    %v = vector.load %tile[%swz_row, %swz] : memref<64x16xf16, 3 : i64>, vector<4xf16>

// TWO-LABEL: func.func @frag
// TWO:         arith.constant 2 : index
// TWO:         arith.constant 8 : index
// TWO:         arith.xori
// TWO:         %v = vector.load %tile[%swz_row, %swz]

// NOTPOW2: error: swizzle-lds: %tile has 64 rows; rows=3 must be a power of two that divides them
