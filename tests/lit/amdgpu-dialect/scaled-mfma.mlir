// RUN: %gemmc opt %s -p '' | filecheck %s
// RUN: %gemmc opt %s -p '' | %gemmc opt - -p '' | filecheck %s

// gfx950's block-scaled MFMA in MLIR's amdgpu.scaled_mfma syntax: scales, then operands, of any
// two of the f8f6f4 formats; and the unscaled 16x16x128 f8f6f4 MFMA with FP4 x FP6 operands.
builtin.module attributes {gemmc.target = "gfx950"} {
  func.func @ops(%sa: vector<4xf8E8M0FNU>, %a: vector<32xf4E2M1FN>, %sb: vector<4xf8E8M0FNU>, %b: vector<32xf6E2M3FN>,
                 %c: vector<4xf32>, %c16: vector<16xf32>, %a8: vector<32xf8E4M3FN>) -> (vector<4xf32>, vector<16xf32>, vector<4xf32>) {
    %d = amdgpu.scaled_mfma (%sa * %a) * (%sb * %b) + %c {m = 16 : i32, n = 16 : i32, k = 128 : i32, scalesIdxA = 0 : i32, scalesIdxB = 3 : i32} : vector<4xf8E8M0FNU>, vector<32xf4E2M1FN>, vector<4xf8E8M0FNU>, vector<32xf6E2M3FN>, vector<4xf32>
    %e = amdgpu.scaled_mfma (%sa * %a8) * (%sb * %a8) + %c16 {m = 32 : i32, n = 32 : i32, k = 64 : i32, scalesIdxA = 1 : i32, scalesIdxB = 2 : i32} : vector<4xf8E8M0FNU>, vector<32xf8E4M3FN>, vector<4xf8E8M0FNU>, vector<32xf8E4M3FN>, vector<16xf32>
    %f = amdgpu.mfma %a * %b + %c {m = 16 : i32, n = 16 : i32, k = 128 : i32, blocks = 1 : i32} : vector<32xf4E2M1FN>, vector<32xf6E2M3FN>, vector<4xf32>
    func.return %d, %e, %f : vector<4xf32>, vector<16xf32>, vector<4xf32>
  }
}

// CHECK-LABEL: func.func @ops
// CHECK-NEXT:    %d = amdgpu.scaled_mfma(%sa * %a) * (%sb * %b) + %c {m = 16 : i32, n = 16 : i32, k = 128 : i32, scalesIdxA = 0 : i32, scalesIdxB = 3 : i32} : vector<4xf8E8M0FNU>, vector<32xf4E2M1FN>, vector<4xf8E8M0FNU>, vector<32xf6E2M3FN>, vector<4xf32>
// CHECK-NEXT:    %e = amdgpu.scaled_mfma(%sa * %a8) * (%sb * %a8) + %c16 {m = 32 : i32, n = 32 : i32, k = 64 : i32, scalesIdxA = 1 : i32, scalesIdxB = 2 : i32}
// CHECK-NEXT:    %f = amdgpu.mfma %a * %b + %c {m = 16 : i32, n = 16 : i32, k = 128 : i32, blocks = 1 : i32} : vector<32xf4E2M1FN>, vector<32xf6E2M3FN>, vector<4xf32>
