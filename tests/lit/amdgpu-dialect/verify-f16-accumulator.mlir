// RUN: not %gemmc opt %s -p '' 2>&1 | filecheck %s

// RDNA3's f16-accumulating WMMA takes a v16half accumulator (results in the even
// elements); 8 f16 per lane is RDNA4's form.
builtin.module attributes {gemmc.target = "gfx1100"} {
  func.func @f(%a: vector<16xf16>, %c: vector<8xf16>) -> vector<8xf16> {
    %d = amdgpu.wmma %a * %a + %c {m = 16 : i32, n = 16 : i32, k = 16 : i32} : vector<16xf16>, vector<16xf16>, vector<8xf16>
    func.return %d : vector<8xf16>
  }
}

// CHECK: error: IR does not verify: the accumulator of v_wmma_f16_16x16x16_f16 is vector<16xf16> per lane, got vector<8xf16>
