// RUN: not %gemmc opt %s -p '' 2>&1 | filecheck %s

// global_load_lds exists on gfx942 and gfx950 only.
builtin.module attributes {gemmc.target = "gfx90a"} {
  func.func @g(%A: memref<?x?xf32>, %i: index) {
    %t = memref.alloca() : memref<64x16xf32, 3 : i64>
    amdgpu.gather_to_lds %A[%i, %i], %t[%i, %i] : f32, memref<?x?xf32>, memref<64x16xf32, 3 : i64>
    func.return
  }
}

// CHECK: error: IR does not verify: gfx90a has no global_load_lds (it exists on gfx942, gfx950)
