// RUN: not %gemmc opt %s -p '' 2>&1 | filecheck %s

// A 32x32x8 f16 MFMA does not exist on gfx1100 (RDNA3 has WMMA).
builtin.module attributes {gemmc.target = "gfx1100"} {
  func.func @f(%a: vector<4xf16>, %c: vector<16xf32>) -> vector<16xf32> {
    %d = amdgpu.mfma %a * %a + %c {m = 32 : i32, n = 32 : i32, k = 8 : i32, blocks = 1 : i32} : vector<4xf16>, vector<4xf16>, vector<16xf32>
    func.return %d : vector<16xf32>
  }
}

// CHECK: error: IR does not verify: gfx1100 (RDNA3) has no MFMA 32x32x8 with f16 inputs and f32 accumulators; its matrix instructions: v_wmma_f32_16x16x16_f16, v_wmma_f32_16x16x16_bf16, v_wmma_f16_16x16x16_f16, v_wmma_bf16_16x16x16_bf16
