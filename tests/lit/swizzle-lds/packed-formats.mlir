// RUN: %gemmc opt %s --arch gfx950 -p 'swizzle-lds{rows=0}' | filecheck %s

// FP4 and FP6 take a byte each in LDS (gemmc keeps one MX code a byte there), not their bit
// width: rows of 128 FP4 elements are 128 bytes, so gfx950's 256-byte bank line holds two of
// them (at 4 bits it would be four, and the key would change every fourth row: 2-way
// conflicts for the 8-byte fragment reads of 32 consecutive rows).
builtin.module attributes {gemmc.target = "gfx950"} {
  func.func @fp4(%r: index, %q: index) -> vector<16xf4E2M1FN> {
    %c16 = arith.constant 16 : index
    %col = arith.muli %q, %c16 : index
    %tile = memref.alloca() : memref<128x128xf4E2M1FN, 3 : i64>
    %v = vector.load %tile[%r, %col] : memref<128x128xf4E2M1FN, 3 : i64>, vector<16xf4E2M1FN>
    func.return %v : vector<16xf4E2M1FN>
  }
}

// CHECK-LABEL: func.func @fp4
// CHECK:         %tile = memref.alloca() : memref<128x128xf4E2M1FN, 3 : i64>
// CHECK-NEXT:    %[[G:[0-9]+]] = arith.constant 2 : index
// CHECK-NEXT:    %[[C:[0-9]+]] = arith.constant 8 : index
// CHECK-NEXT:    %[[V:[0-9]+]] = arith.constant 16 : index
// CHECK:         %[[LINE:[0-9]+]] = arith.divui %r, %[[G]] : index
// CHECK-NEXT:    %[[N:[0-9]+]] = arith.constant 16 : index
// CHECK-NEXT:    %[[PHASE:[0-9]+]] = arith.remui %[[LINE]], %[[N]] : index
// CHECK:         %v = vector.load %tile[%swz_row, %swz]
