// RUN: not %gemmc opt %s -p 'promote-private' 2>&1 | filecheck %s

builtin.module attributes {gemmc.target = "gfx942"} {
  func.func @outside(%v: vector<4xf32>) {
    %c2 = arith.constant 2 : index
    %t = memref.alloca() : memref<4xf32, 5 : i64>
    vector.store %v, %t[%c2] : memref<4xf32, 5 : i64>, vector<4xf32>
    func.return
  }
}

// CHECK: error: promote-private: access of 4 at (2,) is out of bounds of %t (4,) (at 'vector.store' in @outside)
