// RUN: %gemmc compile %S/../../../examples/mxfp4gemm.gemm --arch gfx950 --emit mlir | filecheck %s --check-prefix=FP4
// RUN: %gemmc compile %S/../../../examples/mxfp6gemm.gemm --arch gfx950 --emit mlir | filecheck %s --check-prefix=FP6
// RUN: %gemmc compile %S/../../../examples/mxfp8gemm.gemm --arch gfx950 --emit mlir | filecheck %s --check-prefix=FP8

// The block-scaled (MX) defaults of gfx950 (gemmc.driver.pipeline.MX_DEFAULTS), the winners of
// benchmarks/matrix_defaults.py --arch gfx950 --types mxfp4 mxfp6 mxfp8 on the MX examples at 4096^3
// (conflict-free first; ties decided at 4097x4095x1024): MXFP4 and MXFP8 through
// v_mfma_scale_f32_16x16x128_f8f6f4 (one scale a lane a K tile), MXFP6 through 32x32x64.

// FP4: gemmc.pipeline = "gemm-to-kernel,lds-tiling{block-m=128 block-n=128 block-k=128},register-tiling{thread-m=8 thread-n=8},matrix-cores{instr=v_mfma_scale_f32_16x16x128_f8f6f4 frag-read=32},vectorize{width=32 peel=false},lower-copies,swizzle-lds{strict=false rows=0 fold=true},launch-bounds{max-threads=256}"
// FP6: gemmc.pipeline = "gemm-to-kernel,lds-tiling{block-m=128 block-n=128 block-k=128},register-tiling{thread-m=8 thread-n=8},matrix-cores{frag-read=16},vectorize{width=16 peel=false},lower-copies,swizzle-lds{strict=false rows=0 fold=true},launch-bounds{max-threads=256}"
// FP8: gemmc.pipeline = "gemm-to-kernel,lds-tiling{block-m=128 block-n=128 block-k=128},register-tiling{thread-m=8 thread-n=8},matrix-cores{instr=v_mfma_scale_f32_16x16x128_f8f6f4 frag-read=16},vectorize{width=16 peel=false},lower-copies,swizzle-lds{strict=false rows=0 fold=true},launch-bounds{max-threads=256}"
// FP4: amdgpu.scaled_mfma{{.*}}{m = 16 : i32, n = 16 : i32, k = 128 : i32
// FP6: amdgpu.scaled_mfma{{.*}}{m = 32 : i32, n = 32 : i32, k = 64 : i32
// FP8: amdgpu.scaled_mfma{{.*}}{m = 16 : i32, n = 16 : i32, k = 128 : i32
