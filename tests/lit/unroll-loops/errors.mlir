// RUN: not %gemmc opt %s -p 'unroll-loops' 2>&1 | filecheck %s --check-prefix=TILE
// RUN: not %gemmc opt %s -p 'unroll-loops{factor=0}' 2>&1 | filecheck %s --check-prefix=OPTS

builtin.module attributes {gemmc.target = "gfx942"} {
  func.func @bad(%x: f32, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %acc = memref.alloca() : memref<4xf32, 5 : i64>
    scf.for %i = %c0 to %n step %c1 {
      memref.store %x, %acc[%i] : memref<4xf32, 5 : i64>
    }
    func.return
  }
}

// TILE: error: unroll-loops: a loop over a private (register) buffer needs constant bounds (its elements become registers, which need constant indices) (at 'scf.for' in @bad)
// OPTS: error: unroll-loops: limit=16 factor=0: expected limit >= 0, factor >= 1
