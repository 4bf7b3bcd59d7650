// RUN: not %gemmc opt %s -p 'unroll-loops' 2>&1 | filecheck %s

builtin.module attributes {gemmc.target = "gfx942"} {
  func.func @zero_step(%A: memref<64xf32>, %x: f32) {
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    scf.for %i = %c0 to %c4 step %c0 {
      memref.store %x, %A[%i] : memref<64xf32>
    }
    func.return
  }
}

// CHECK: error: unroll-loops: loop step 0 must be positive (at 'scf.for' in @zero_step)
