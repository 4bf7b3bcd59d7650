// RUN: not %gemmc opt %s -p 'promote-private' 2>&1 | filecheck %s

// Values are threaded through scf.for and scf.if only.
builtin.module attributes {gemmc.target = "gfx942"} {
  func.func @while(%x: f32, %c: i1) {
    %c0 = arith.constant 0 : index
    %t = memref.alloca() : memref<4xf32, 5 : i64>
    scf.while () : () -> () {
      scf.condition(%c)
    } do {
      memref.store %x, %t[%c0] : memref<4xf32, 5 : i64>
      scf.yield
    }
    func.return
  }
}

// CHECK: error: promote-private: %t is accessed inside 'scf.while'; values are threaded through scf.for and scf.if only (at 'memref.store' in @while)
