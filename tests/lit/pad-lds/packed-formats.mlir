// RUN: %gemmc opt %s --arch gfx950 -p 'pad-lds{pad=16}' | filecheck %s
// RUN: not %gemmc opt %s --arch gfx950 -p 'pad-lds{pad=8}' 2>&1 | filecheck %s --check-prefix=MISALIGNED

// An FP4 element takes a byte in LDS (one MX code a byte), not half of one: a 16-element
// access is 16 bytes, which a pad of 8 elements (8 bytes) does not keep aligned.
builtin.module attributes {gemmc.target = "gfx950"} {
  func.func @fp4(%i: index, %j: index) -> vector<16xf4E2M1FN> {
    %tile = memref.alloca() : memref<128x128xf4E2M1FN, 3 : i64>
    %v = vector.load %tile[%i, %j] : memref<128x128xf4E2M1FN, 3 : i64>, vector<16xf4E2M1FN>
    func.return %v : vector<16xf4E2M1FN>
  }
}

// CHECK-LABEL: func.func @fp4
// CHECK-NEXT:    %tile = memref.alloca() : memref<128x144xf4E2M1FN, 3 : i64>
// CHECK-NEXT:    %v = vector.load %tile[%i, %j] : memref<128x144xf4E2M1FN, 3 : i64>, vector<16xf4E2M1FN>

// MISALIGNED: error: pad-lds: a 16-element access to %tile needs 16-byte alignment, which rows of 136 x 1 bytes do not keep; use a pad that is a multiple of 16 (at 'vector.load' in @fp4)
