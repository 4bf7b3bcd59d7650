// RUN: not %gemmc opt %s -p 'pad-lds{pad=0}' 2>&1 | filecheck %s --check-prefix=ZERO
// RUN: not %gemmc opt %s -p 'pad-lds{buffers=nope}' 2>&1 | filecheck %s --check-prefix=NAME
// RUN: not %gemmc opt %s -p 'pad-lds{buffers=flat}' 2>&1 | filecheck %s --check-prefix=RANK
// RUN: not %gemmc opt %s -p 'pad-lds{buffers=gathered}' 2>&1 | filecheck %s --check-prefix=GATHER
// RUN: not %gemmc opt %s -p 'pad-lds{buffers=escapes}' 2>&1 | filecheck %s --check-prefix=USE
// RUN: not %gemmc opt %s -p 'pad-lds{pad=1024 buffers=big}' 2>&1 | filecheck %s --check-prefix=SIZE

builtin.module attributes {gemmc.target = "gfx942"} {
  func.func @bad(%A: memref<?x?xf32>, %i: index, %x: f32) {
    %flat = memref.alloca() : memref<64xf32, 3 : i64>
    memref.store %x, %flat[%i] : memref<64xf32, 3 : i64>
    %gathered = memref.alloca() : memref<64x16xf32, 3 : i64>
    amdgpu.gather_to_lds %A[%i, %i], %gathered[%i, %i] : f32, memref<?x?xf32>, memref<64x16xf32, 3 : i64>
    %escapes = memref.alloca() : memref<8x8xf32, 3 : i64>
    %d = memref.dim %escapes, %i : memref<8x8xf32, 3 : i64>
    %big = memref.alloca() : memref<64x16xf32, 3 : i64>
    memref.store %x, %big[%i, %i] : memref<64x16xf32, 3 : i64>
    func.return
  }
}

// ZERO: error: pad-lds: pad=0 must be at least 1 (at
// NAME: error: pad-lds: no LDS allocation named %nope (LDS allocations: %flat, %gathered, %escapes, %big)
// RANK: error: pad-lds: %flat has rank 1; padding needs rows (rank >= 2) (at 'memref.alloca' in @bad)
// GATHER: error: pad-lds: %gathered is written by amdgpu.gather_to_lds, whose wave writes consecutive words across rows; padded rows would scatter them (at 'amdgpu.gather_to_lds' in @bad)
// USE: error: pad-lds: %escapes is used by 'memref.dim', which is not a load or store of its elements; its layout cannot be changed through it (at 'memref.dim' in @bad)
// SIZE: error: pad-lds: LDS buffers need {{[0-9]+}} bytes but gfx942 has 65536 per workgroup
