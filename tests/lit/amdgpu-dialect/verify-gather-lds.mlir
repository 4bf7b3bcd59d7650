// RUN: not %gemmc opt %s -p '' 2>&1 | filecheck %s

// The destination of gather_to_lds must be LDS (memory space 3).
builtin.module attributes {gemmc.target = "gfx942"} {
  func.func @g(%A: memref<?x?xf32>, %B: memref<64x16xf32>, %i: index) {
    amdgpu.gather_to_lds %A[%i, %i], %B[%i, %i] : f32, memref<?x?xf32>, memref<64x16xf32>
    func.return
  }
}

// CHECK: error: IR does not verify: the destination must be LDS (memory space 3), got memref<64x16xf32>
