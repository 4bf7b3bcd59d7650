// RUN: not %gemmc opt %s -p 'multi-buffer{buffers=outside}' 2>&1 | filecheck %s --check-prefix=OUTSIDE
// RUN: not %gemmc opt %s -p 'multi-buffer{buffers=carried}' 2>&1 | filecheck %s --check-prefix=CARRIED
// RUN: not %gemmc opt %s -p 'multi-buffer{factor=1}' 2>&1 | filecheck %s --check-prefix=FACTOR
// RUN: not %gemmc opt %s -p 'multi-buffer{factor=64 buffers=carried}' 2>&1 | filecheck %s --check-prefix=CARRIED

builtin.module attributes {gemmc.target = "gfx942"} {
  func.func @bad(%x: f32, %i: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %outside = memref.alloca() : memref<16x16xf32, 3 : i64>
    memref.store %x, %outside[%i, %i] : memref<16x16xf32, 3 : i64>
    %carried = memref.alloca() : memref<16x16xf32, 3 : i64>
    scf.for %t = %c0 to %c4 step %c1 {
      %y = memref.load %carried[%i, %t] : memref<16x16xf32, 3 : i64>
      memref.store %y, %carried[%i, %i] : memref<16x16xf32, 3 : i64>
    }
    func.return
  }
}

// OUTSIDE: error: multi-buffer: %outside is used outside any scf.for; there is no iteration to give a slot (at 'memref.store' in @bad)
// CARRIED: error: multi-buffer: the loop reads %carried before writing it, so it may carry data between iterations; giving each iteration its own slot would change what it reads (at 'memref.load' in @bad)
// FACTOR: error: multi-buffer: factor=1 must be at least 2
