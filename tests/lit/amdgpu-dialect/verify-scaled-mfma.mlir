// RUN: not %gemmc opt %s 2>&1 | filecheck %s

// gfx942 has no scaled MFMA: the verifier names the arch's scaled MFMAs (none).
builtin.module attributes {gemmc.target = "gfx942"} {
  func.func @bad(%sa: vector<4xf8E8M0FNU>, %a: vector<32xf4E2M1FN>, %c: vector<4xf32>) -> vector<4xf32> {
    %d = amdgpu.scaled_mfma (%sa * %a) * (%sa * %a) + %c {m = 16 : i32, n = 16 : i32, k = 128 : i32, scalesIdxA = 0 : i32, scalesIdxB = 0 : i32} : vector<4xf8E8M0FNU>, vector<32xf4E2M1FN>, vector<4xf8E8M0FNU>, vector<32xf4E2M1FN>, vector<4xf32>
    func.return %d : vector<4xf32>
  }
}

// CHECK: error: IR does not verify: gfx942 (CDNA3) has no scaled MFMA 16x16x128 with f4e2m1fn x f4e2m1fn inputs; its scaled MFMAs: none
