// RUN: %gemmc opt %S/Inputs/fp8_out.mlir -p 'gemm-to-kernel,lds-tiling{block-m=32 block-n=32 block-k=16},register-tiling{thread-m=4 thread-n=4},matrix-cores' | filecheck %s --check-prefix=MFMA
// RUN: %gemmc opt %S/Inputs/fp8_out.mlir -p 'gemm-to-kernel,lds-tiling{block-m=32 block-n=32 block-k=16},register-tiling{thread-m=4 thread-n=4},split-k{factor=2 reduce=workspace}' | filecheck %s --check-prefix=SPLIT
// RUN: not %gemmc opt %S/Inputs/fp8_out.mlir -p 'gemm-to-kernel,lds-tiling{block-m=32 block-n=32 block-k=16},register-tiling{thread-m=4 thread-n=4},split-k{factor=2}' 2>&1 | filecheck %s --check-prefix=ATOMIC
// RUN: %gemmc opt %S/Inputs/requant.mlir -p 'gemm-to-kernel,lds-tiling{block-m=32 block-n=32 block-k=16},register-tiling{thread-m=4 thread-n=4}' | filecheck %s --check-prefix=TILED
// RUN: not %gemmc opt %S/Inputs/requant.mlir -p 'gemm-to-kernel,lds-tiling{block-m=32 block-n=32 block-k=16},register-tiling{thread-m=4 thread-n=4},split-k{factor=2 reduce=workspace}' 2>&1 | filecheck %s --check-prefix=INTSPLIT

// The passes carry saturate and the conversion with the rest of the epilogue: the matrix cores at
// each lane's accumulator element; split-k through a workspace in its reduce kernel, once; split-k's
// atomic adds refuse an FP8 C at its store (each partial sum would be rounded to FP8), and an
// integer product is not split along K at all.

// MFMA:      amdgpu.mfma
// MFMA:      arith.maximumf
// MFMA-NEXT: %[[MIN:[0-9]+]] = arith.minimumf
// MFMA-NEXT: %[[OUT:[0-9]+]] = arith.truncf %[[MIN]] : f32 to f8E4M3FNUZ
// MFMA-NEXT: memref.store %[[OUT]], %C[%r, %lane_col] : memref<64x32xf8E4M3FNUZ>
// MFMA-NEXT: }{gemm.role = "epilogue"}

// SPLIT:      memref.store %sum, %workspace[%bz, %r, %c_1] : memref<2x64x32xf32>
// SPLIT-NOT:  arith.truncf
// SPLIT:      sym_name = "fp8out"
// SPLIT:      %partial_sum = scf.for
// SPLIT:      arith.maximumf
// SPLIT-NEXT: %[[MIN:[0-9]+]] = arith.minimumf
// SPLIT-NEXT: %[[OUT:[0-9]+]] = arith.truncf %[[MIN]] : f32 to f8E4M3FNUZ
// SPLIT-NEXT: memref.store %[[OUT]], %C[%r, %c] : memref<64x32xf8E4M3FNUZ>
// SPLIT:      sym_name = "fp8out_splitk_reduce"

// ATOMIC: error: split-k: reduce=atomic adds into C, which is f8E4M3FNUZ: atomic adds of 8-bit values round every partial sum; use reduce=workspace (at 'memref.store' in @fp8out)

// TILED:      %sum = memref.load %acc[{{.*}}] {gemm.role = "acc_read"} : memref<4x4xi32, 5 : i64>
// TILED:      arith.sitofp %sum : i32 to f32
// TILED:      math.roundeven
// TILED-NEXT: arith.fptosi
// TILED-NEXT: %[[Q:[0-9]+]] = arith.trunci %{{[0-9]+}} : i32 to i8
// TILED-NEXT: memref.store %[[Q]], %C[%r, %c{{.*}}] : memref<64x32xi8>

// INTSPLIT: error: split-k: an integer product (C i8) is not split along K yet
