// RUN: %gemmc opt %s -p '' | filecheck %s

// RDNA3 WMMA: 16 f16 per lane for A and B (replicated halves), 8 f32 accumulators.
builtin.module attributes {gemmc.target = "gfx1100"} {
  func.func @w(%a: vector<16xf16>, %c: vector<8xf32>) -> vector<8xf32> {
    %d = amdgpu.wmma %a * %a + %c {m = 16 : i32, n = 16 : i32, k = 16 : i32} : vector<16xf16>, vector<16xf16>, vector<8xf32>
    func.return %d : vector<8xf32>
  }
}

// CHECK: %d = amdgpu.wmma %a * %a + %c {m = 16 : i32, n = 16 : i32, k = 16 : i32} : vector<16xf16>, vector<16xf16>, vector<8xf32>
