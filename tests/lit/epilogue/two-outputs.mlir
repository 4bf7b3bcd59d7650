// RUN: %gemmc opt %S/Inputs/two_outputs.mlir | %gemmc opt - | filecheck %s --check-prefix=ROUND
// RUN: sed 's/      gemm.output %10 : f32//' %S/Inputs/two_outputs.mlir | not %gemmc opt - 2>&1 | filecheck %s --check-prefix=VERIFY
// RUN: %gemmc opt %S/Inputs/two_outputs.mlir -p gemm-to-kernel | filecheck %s --check-prefix=KERNEL
// RUN: %gemmc opt %S/Inputs/two_outputs.mlir -p 'gemm-to-kernel,lds-tiling{block-m=32 block-n=32 block-k=16},register-tiling{thread-m=4 thread-n=4},matrix-cores' | filecheck %s --check-prefix=MFMA
// RUN: not %gemmc opt %S/Inputs/two_outputs.mlir -p 'gemm-to-kernel,lds-tiling{block-m=32 block-n=32 block-k=16},register-tiling{thread-m=4 thread-n=4},split-k{factor=2 reduce=workspace}' 2>&1 | filecheck %s --check-prefix=SPLIT

// Two outputs, C = A @ B + b and Y = gelu(C): the region computes C's value, reads it as stored
// (truncf to bf16, extf back) for Y's gelu, gemm.output Y's value and yields C's; gemm-to-kernel
// stores Y at the element before C, and the passes carry the store with the epilogue; split-k, which
// reduces one output, refuses it at the store.

// ROUND:      gemm.matmul %A, %B, %C epilogue(%b) outputs(%Y) {acc_type = f32, epilogue_axes = ["n"]} : memref<64x32xf16>, memref<32x32xf16>, memref<64x32xbf16> epilogue(memref<32xf32>) outputs(memref<64x32xf16>) {
// ROUND:      %[[C:[0-9]+]] = arith.addf %sum, %b_e : f32
// ROUND-NEXT: %[[R:[0-9]+]] = arith.truncf %[[C]] : f32 to bf16
// ROUND-NEXT: arith.extf %[[R]] : bf16 to f32
// ROUND:      math.erf
// ROUND:      gemm.output %{{[0-9]+}} : f32
// ROUND-NEXT: gemm.yield %[[C]] : f32
// VERIFY: 1 more outputs need as many gemm.output of the accumulator type f32 in the epilogue, in order

// KERNEL:      gemm.matmul_spec = {{{.*}}"gemm.output 12", "gemm.yield 2"], outputs = [4 : i64]}
// KERNEL:      } {gemm.role = "k_loop"}
// KERNEL:      math.erf
// KERNEL:      %[[Y:[0-9]+]] = arith.truncf %{{[0-9]+}} : f32 to f16
// KERNEL-NEXT: memref.store %[[Y]], %Y[%row, %col] : memref<64x32xf16>
// KERNEL-NEXT: %[[C2:[0-9]+]] = arith.truncf %{{[0-9]+}} : f32 to bf16
// KERNEL-NEXT: memref.store %[[C2]], %C[%row, %col] : memref<64x32xbf16>
// KERNEL-NEXT: }{gemm.role = "epilogue"}

// MFMA:      amdgpu.mfma
// MFMA:      memref.store %{{[0-9]+}}, %Y[%r, %lane_col] : memref<64x32xf16>
// MFMA-NEXT: %{{[0-9]+}} = arith.truncf
// MFMA-NEXT: memref.store %{{[0-9]+}}, %C[%r, %lane_col] : memref<64x32xbf16>

// SPLIT: error: split-k: the epilogue stores to two outputs; split-k reduces one
