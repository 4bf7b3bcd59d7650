// RUN: %gemmc opt %s -p 'multi-buffer' | filecheck %s
// RUN: %gemmc opt %s -p 'multi-buffer{factor=3}' | filecheck %s --check-prefix=THREE

// The buffer gets a leading slot dimension; the loop indexes it by iv mod factor.
builtin.module attributes {gemmc.target = "gfx942"} {
  func.func @copy_then_read(%A: memref<64x16xf32>, %out: memref<64xf32>, %i: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %tile = memref.alloca() : memref<16x16xf32, 3 : i64>
    scf.for %t = %c0 to %c4 step %c1 {
      %x = memref.load %A[%t, %i] : memref<64x16xf32>
      memref.store %x, %tile[%i, %t] : memref<16x16xf32, 3 : i64>
      "gpu.barrier"() : () -> ()
      %y = memref.load %tile[%t, %i] : memref<16x16xf32, 3 : i64>
      memref.store %y, %out[%t] : memref<64xf32>
      "gpu.barrier"() : () -> ()
    }
    func.return
  }

  // A loop from 2 by 3: the slot counts iterations, ((t - 2) / 3) mod 2.
  func.func @strided(%x: f32, %i: index) {
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c20 = arith.constant 20 : index
    %tile = memref.alloca() : memref<16x16xf32, 3 : i64>
    scf.for %t = %c2 to %c20 step %c3 {
      memref.store %x, %tile[%i, %i] : memref<16x16xf32, 3 : i64>
    }
    func.return
  }
}

// CHECK-LABEL: func.func @copy_then_read
// CHECK:         %tile = memref.alloca() : memref<2x16x16xf32, 3 : i64>
// CHECK-NEXT:    scf.for %t = %c0 to %c4 step %c1 {
// CHECK-NEXT:      %[[F:.*]] = arith.constant 2 : index
// CHECK-NEXT:      %slot = arith.remui %t, %[[F]] : index
// CHECK:           memref.store %x, %tile[%slot, %i, %t] : memref<2x16x16xf32, 3 : i64>
// CHECK:           %y = memref.load %tile[%slot, %t, %i] : memref<2x16x16xf32, 3 : i64>

// CHECK-LABEL: func.func @strided
// CHECK:         scf.for %t = %c2 to %c20 step %c3 {
// CHECK-NEXT:      %[[D:.*]] = arith.subi %t, %c2 : index
// CHECK-NEXT:      %[[N:.*]] = arith.divui %[[D]], %c3 : index
// CHECK-NEXT:      %[[F:.*]] = arith.constant 2 : index
// CHECK-NEXT:      %slot = arith.remui %[[N]], %[[F]] : index
// CHECK-NEXT:      memref.store %x, %tile[%slot, %i, %i] : memref<2x16x16xf32, 3 : i64>

// THREE-LABEL: func.func @copy_then_read
// THREE:         %tile = memref.alloca() : memref<3x16x16xf32, 3 : i64>
