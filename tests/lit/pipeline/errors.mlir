// RUN: not %gemmc opt %s -p 'pipeline' 2>&1 | filecheck %s
// RUN: not %gemmc opt %s -p 'pipeline{stages=4}' 2>&1 | filecheck %s --check-prefix=SLOTS
// RUN: not %gemmc opt %s -p 'pipeline{stages=1}' 2>&1 | filecheck %s --check-prefix=ONE

// The buffer is written ahead, but the consumer does not index it by the slot.
builtin.module attributes {gemmc.target = "gfx942"} {
  func.func @unslotted(%A: memref<64x16xf32>, %out: memref<64xf32>, %i: index, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %tile = memref.alloca() : memref<3x16x16xf32, 3 : i64>
    scf.for %t = %c0 to %n step %c1 {
      %c3 = arith.constant 3 : index
      %slot = arith.remui %t, %c3 : index
      %x = memref.load %A[%t, %i] : memref<64x16xf32>
      memref.store %x, %tile[%slot, %i, %t] : memref<3x16x16xf32, 3 : i64>
      "gpu.barrier"() : () -> ()
      %y = memref.load %tile[%c0, %t, %i] : memref<3x16x16xf32, 3 : i64>
      memref.store %y, %out[%t] : memref<64xf32>
      "gpu.barrier"() : () -> ()
    }
    func.return
  }
}

// CHECK: error: pipeline: %tile is written ahead but this access does not index it by the iteration's slot ((.. iv ..) mod F); run multi-buffer first (at 'memref.load' in @unslotted)
// SLOTS: error: pipeline: %tile is written ahead but this access
// ONE: error: pipeline: stages=1 must be at least 2
