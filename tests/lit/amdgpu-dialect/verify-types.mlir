// RUN: not %gemmc opt %s -p '' 2>&1 | filecheck %s

// A and B must share one type.
builtin.module attributes {gemmc.target = "gfx942"} {
  func.func @f(%a: vector<4xf16>, %b: vector<4xbf16>, %c: vector<16xf32>) -> vector<16xf32> {
    %d = amdgpu.mfma %a * %b + %c {m = 32 : i32, n = 32 : i32, k = 8 : i32, blocks = 1 : i32} : vector<4xf16>, vector<4xbf16>, vector<16xf32>
    func.return %d : vector<16xf32>
  }
}

// CHECK: error: IR does not verify: A and B must have one type, got vector<4xf16> and vector<4xbf16>
