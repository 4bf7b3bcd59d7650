// RUN: %gemmc opt %s -p '' | filecheck %s
// RUN: %gemmc opt %s -p '' | %gemmc opt - -p '' | filecheck %s

// The three ops print in MLIR's amdgpu syntax and parse back to the same text.
builtin.module attributes {gemmc.target = "gfx942"} {
  func.func @ops(%a: vector<4xf16>, %b: vector<4xf16>, %c: vector<16xf32>, %x: f32, %c4: vector<4xf32>,
                 %A: memref<?x?xf32>, %i: index) -> (vector<16xf32>, vector<4xf32>) {
    %d = amdgpu.mfma %a * %b + %c {m = 32 : i32, n = 32 : i32, k = 8 : i32, blocks = 1 : i32} : vector<4xf16>, vector<4xf16>, vector<16xf32>
    %e = amdgpu.mfma %x * %x + %c4 {m = 16 : i32, n = 16 : i32, k = 4 : i32, blocks = 1 : i32, cbsz = 0 : i32} : f32, f32, vector<4xf32>
    %t = memref.alloca() : memref<64x16xf32, 3 : i64>
    amdgpu.gather_to_lds %A[%i, %i], %t[%i, %i] : f32, memref<?x?xf32>, memref<64x16xf32, 3 : i64>
    func.return %d, %e : vector<16xf32>, vector<4xf32>
  }
}

// CHECK-LABEL: func.func @ops
// CHECK-NEXT:    %d = amdgpu.mfma %a * %b + %c {m = 32 : i32, n = 32 : i32, k = 8 : i32, blocks = 1 : i32} : vector<4xf16>, vector<4xf16>, vector<16xf32>
// CHECK-NEXT:    %e = amdgpu.mfma %x * %x + %c4 {m = 16 : i32, n = 16 : i32, k = 4 : i32, blocks = 1 : i32} : f32, f32, vector<4xf32>
// CHECK-NEXT:    %t = memref.alloca() : memref<64x16xf32, 3 : i64>
// CHECK-NEXT:    amdgpu.gather_to_lds %A[%i, %i], %t[%i, %i] : f32, memref<?x?xf32>, memref<64x16xf32, 3 : i64>
