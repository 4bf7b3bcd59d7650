// RUN: not %gemmc opt %s -p '' 2>&1 | filecheck %s

// gfx1201's WMMA takes 8 f16 per lane, not RDNA3's 16.
builtin.module attributes {gemmc.target = "gfx1201"} {
  func.func @w(%a: vector<16xf16>, %c: vector<8xf32>) -> vector<8xf32> {
    %d = amdgpu.wmma %a * %a + %c {m = 16 : i32, n = 16 : i32, k = 16 : i32} : vector<16xf16>, vector<16xf16>, vector<8xf32>
    func.return %d : vector<8xf32>
  }
}

// CHECK: error: IR does not verify: A of v_wmma_f32_16x16x16_f16 is vector<8xf16> per lane, got vector<16xf16>
