// RUN: %gemmc opt %s -p 'swizzle-lds{fold=true}' | filecheck %s
// RUN: %gemmc opt %s -p 'swizzle-lds{rows=0 fold=true}' | filecheck %s --check-prefix=LINE

// fold=true: the key XORs every base-16 digit of the row (256 rows: two digits), so rows 16
// apart get different keys; a buffer of 16 rows has one digit and keeps the plain key.
builtin.module attributes {gemmc.target = "gfx942"} {
  func.func @tall(%x: f32, %r: index, %j: index) {
    %tile = memref.alloca() : memref<256x16xf32, 3 : i64>
    memref.store %x, %tile[%r, %j] : memref<256x16xf32, 3 : i64>
    func.return
  }
  func.func @short(%x: f32, %r: index, %j: index) {
    %tile = memref.alloca() : memref<16x16xf32, 3 : i64>
    memref.store %x, %tile[%r, %j] : memref<16x16xf32, 3 : i64>
    func.return
  }
  func.func @lines(%x: vector<8xf8E4M3FNUZ>, %r: index, %q: index) {
    %c8 = arith.constant 8 : index
    %col = arith.muli %q, %c8 : index
    %tile = memref.alloca() : memref<256x64xf8E4M3FNUZ, 3 : i64>
    vector.store %x, %tile[%r, %col] : memref<256x64xf8E4M3FNUZ, 3 : i64>, vector<8xf8E4M3FNUZ>
    func.return
  }
}

// CHECK-LABEL: func.func @tall
// CHECK-NEXT:    %tile = memref.alloca() : memref<256x16xf32, 3 : i64>
// CHECK-NEXT:    %[[K:.*]] = arith.constant 16 : index
// CHECK-NEXT:    %[[LOW:.*]] = arith.remui %r, %[[K]] : index
// CHECK-NEXT:    %[[REACH:.*]] = arith.constant 16 : index
// CHECK-NEXT:    %[[UP:.*]] = arith.divui %r, %[[REACH]] : index
// CHECK-NEXT:    %[[K2:.*]] = arith.constant 16 : index
// CHECK-NEXT:    %[[HIGH:.*]] = arith.remui %[[UP]], %[[K2]] : index
// CHECK-NEXT:    %[[KEY:.*]] = arith.xori %[[LOW]], %[[HIGH]] : index
// CHECK-NEXT:    %[[SWZ:.*]] = arith.xori %j, %[[KEY]] : index
// CHECK-NEXT:    memref.store %x, %tile[%r, %[[SWZ]]] : memref<256x16xf32, 3 : i64>

// CHECK-LABEL: func.func @short
// CHECK-NEXT:    %tile = memref.alloca() : memref<16x16xf32, 3 : i64>
// CHECK-NEXT:    %[[K:.*]] = arith.constant 16 : index
// CHECK-NEXT:    %[[KEY:.*]] = arith.remui %r, %[[K]] : index
// CHECK-NEXT:    %[[SWZ:.*]] = arith.xori %j, %[[KEY]] : index
// CHECK-NEXT:    memref.store %x, %tile[%r, %[[SWZ]]] : memref<16x16xf32, 3 : i64>

// Rows of 64 FP8 bytes: two rows a 128-byte line of 16 eight-byte chunks, 128 lines: the line
// index's two base-16 digits.
// LINE-LABEL: func.func @lines
// LINE:         %[[LINE:.*]] = arith.divui %r, %{{.*}} : index
// LINE-NEXT:    %[[K:.*]] = arith.constant 16 : index
// LINE-NEXT:    %[[LOW:.*]] = arith.remui %[[LINE]], %[[K]] : index
// LINE-NEXT:    %[[REACH:.*]] = arith.constant 16 : index
// LINE-NEXT:    %[[UP:.*]] = arith.divui %[[LINE]], %[[REACH]] : index
// LINE-NEXT:    %[[K2:.*]] = arith.constant 16 : index
// LINE-NEXT:    %[[HIGH:.*]] = arith.remui %[[UP]], %[[K2]] : index
// LINE-NEXT:    %[[KEY:.*]] = arith.xori %[[LOW]], %[[HIGH]] : index
// LINE-NEXT:    %[[MOVED:.*]] = arith.xori %{{.*}}, %[[KEY]] : index
// LINE:         vector.store %x, %tile[%swz_row, %swz]
