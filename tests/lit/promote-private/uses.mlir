// RUN: not %gemmc opt %s -p 'promote-private' 2>&1 | filecheck %s

// A use other than an element access: the buffer cannot become values.
builtin.module attributes {gemmc.target = "gfx942"} {
  func.func @escapes(%x: f32) -> index {
    %c0 = arith.constant 0 : index
    %t = memref.alloca() : memref<4xf32, 5 : i64>
    memref.store %x, %t[%c0] : memref<4xf32, 5 : i64>
    %d = memref.dim %t, %c0 : memref<4xf32, 5 : i64>
    func.return %d : index
  }
}

// CHECK: error: promote-private: %t is used by 'memref.dim', which is not a load or store of its elements; the buffer cannot become values (at 'memref.dim' in @escapes)
