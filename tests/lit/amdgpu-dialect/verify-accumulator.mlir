// RUN: not %gemmc opt %s -p '' 2>&1 | filecheck %s

// 16x16x16 f16 accumulates into 4 registers per lane.
builtin.module attributes {gemmc.target = "gfx90a"} {
  func.func @f(%a: vector<4xf16>, %c: vector<16xf32>) -> vector<16xf32> {
    %d = amdgpu.mfma %a * %a + %c {m = 16 : i32, n = 16 : i32, k = 16 : i32, blocks = 1 : i32} : vector<4xf16>, vector<4xf16>, vector<16xf32>
    func.return %d : vector<16xf32>
  }
}

// CHECK: error: IR does not verify: the accumulator of v_mfma_f32_16x16x16f16 is vector<4xf32> per lane, got vector<16xf32>
