// RUN: not %gemmc opt %s -p 'promote-private' 2>&1 | filecheck %s --check-prefix=INDEX

builtin.module attributes {gemmc.target = "gfx942"} {
  func.func @dynamic_index(%x: f32, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %t = memref.alloca() : memref<4xf32, 5 : i64>
    scf.for %i = %c0 to %n step %c1 {
      %j = arith.remui %i, %c1 : index
      memref.store %x, %t[%j] : memref<4xf32, 5 : i64>
    }
    func.return
  }
}

// INDEX: error: promote-private: %t is indexed by a value that is not a compile-time constant; unroll the loops over it first (unroll-loops) (at 'memref.store' in @dynamic_index)
