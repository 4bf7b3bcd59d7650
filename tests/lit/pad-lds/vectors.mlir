// RUN: %gemmc opt %s -p 'pad-lds{pad=4}' | filecheck %s
// RUN: not %gemmc opt %s -p 'pad-lds{pad=2}' 2>&1 | filecheck %s --check-prefix=MISALIGNED

// A padded row must keep a vector access aligned to its size (ds_read_b128 needs 16 bytes).
builtin.module attributes {gemmc.target = "gfx942"} {
  func.func @float4(%i: index, %j: index) -> vector<4xf32> {
    %tile = memref.alloca() : memref<16x16xf32, 3 : i64>
    %v = vector.load %tile[%i, %j] : memref<16x16xf32, 3 : i64>, vector<4xf32>
    func.return %v : vector<4xf32>
  }
}

// CHECK-LABEL: func.func @float4
// CHECK-NEXT:    %tile = memref.alloca() : memref<16x20xf32, 3 : i64>
// CHECK-NEXT:    %v = vector.load %tile[%i, %j] : memref<16x20xf32, 3 : i64>, vector<4xf32>

// MISALIGNED: error: pad-lds: a 4-element access to %tile needs 16-byte alignment, which rows of 18 x 4 bytes do not keep; use a pad that is a multiple of 4 (at 'vector.load' in @float4)
