// RUN: not %gemmc opt %s -p '' 2>&1 | filecheck %s

// CDNA's MFMAs accumulate in f32 only.
builtin.module attributes {gemmc.target = "gfx942"} {
  func.func @f(%a: vector<4xf16>, %c: vector<4xf16>) -> vector<4xf16> {
    %d = amdgpu.mfma %a * %a + %c {m = 16 : i32, n = 16 : i32, k = 16 : i32, blocks = 1 : i32} : vector<4xf16>, vector<4xf16>, vector<4xf16>
    func.return %d : vector<4xf16>
  }
}

// CHECK: error: IR does not verify: gfx942 (CDNA3) has no MFMA 16x16x16 with f16 inputs and f16 accumulators; its matrix instructions:
