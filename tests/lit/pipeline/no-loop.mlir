// RUN: not %gemmc opt %s -p 'pipeline' 2>&1 | filecheck %s

builtin.module attributes {gemmc.target = "gfx942"} {
  func.func @no_barriers(%x: f32, %i: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %tile = memref.alloca() : memref<2x16x16xf32, 3 : i64>
    scf.for %t = %c0 to %c1 step %c1 {
      memref.store %x, %tile[%c0, %i, %i] : memref<2x16x16xf32, 3 : i64>
    }
    func.return
  }
}

// CHECK: error: pipeline: found no scf.for of the form producer, gpu.barrier, consumer, gpu.barrier to pipeline
