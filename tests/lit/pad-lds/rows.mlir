// RUN: %gemmc opt %s -p 'pad-lds{pad=1}' | filecheck %s
// RUN: %gemmc opt %s -p 'pad-lds{pad=4 buffers=tile_b}' | filecheck %s --check-prefix=ONLY-B

// pad-lds widens the last dimension of LDS buffers; the accesses keep their indices.
builtin.module attributes {gemmc.target = "gfx942"} {
  func.func @scalar(%x: f32, %i: index, %j: index) -> f32 {
    %tile_a = memref.alloca() : memref<16x16xf32, 3 : i64>
    %tile_b = memref.alloca() : memref<2x8x32xf32, 3 : i64>
    %priv = memref.alloca() : memref<4x4xf32, 5 : i64>
    memref.store %x, %tile_a[%i, %j] : memref<16x16xf32, 3 : i64>
    %y = memref.load %tile_a[%j, %i] : memref<16x16xf32, 3 : i64>
    memref.store %y, %tile_b[%i, %j, %i] : memref<2x8x32xf32, 3 : i64>
    memref.store %y, %priv[%i, %j] : memref<4x4xf32, 5 : i64>
    func.return %y : f32
  }
}

// CHECK-LABEL: func.func @scalar
// CHECK-NEXT:    %tile_a = memref.alloca() : memref<16x17xf32, 3 : i64>
// CHECK-NEXT:    %tile_b = memref.alloca() : memref<2x8x33xf32, 3 : i64>
// CHECK-NEXT:    %priv = memref.alloca() : memref<4x4xf32, 5 : i64>
// CHECK-NEXT:    memref.store %x, %tile_a[%i, %j] : memref<16x17xf32, 3 : i64>
// CHECK-NEXT:    %y = memref.load %tile_a[%j, %i] : memref<16x17xf32, 3 : i64>
// CHECK-NEXT:    memref.store %y, %tile_b[%i, %j, %i] : memref<2x8x33xf32, 3 : i64>

// ONLY-B-LABEL: func.func @scalar
// ONLY-B:         %tile_a = memref.alloca() : memref<16x16xf32, 3 : i64>
// ONLY-B-NEXT:    %tile_b = memref.alloca() : memref<2x8x36xf32, 3 : i64>
