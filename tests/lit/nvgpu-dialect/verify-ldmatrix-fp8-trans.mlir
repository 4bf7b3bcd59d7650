// RUN: not %gemmc opt %s -p '' 2>&1 | filecheck %s

// sm_90's ldmatrix .trans moves 16-bit elements: 8-bit ones are read as stored only (byte quads per lane).
builtin.module attributes {gemmc.target = "sm_90"} {
  func.func @g(%i: index) {
    %t = memref.alloca() : memref<64x64xf8E5M2, 3 : i64>
    %ok = nvgpu.ldmatrix %t[%i, %i] {numTiles = 4 : i32} : memref<64x64xf8E5M2, 3 : i64> -> vector<16xf8E5M2>
    %a = nvgpu.ldmatrix %t[%i, %i] {numTiles = 4 : i32, transpose} : memref<64x64xf8E5M2, 3 : i64> -> vector<16xf8E5M2>
    func.return
  }
}

// CHECK: error: IR does not verify: sm_90's ldmatrix .trans moves 16-bit elements; it cannot transpose f8e5m2
