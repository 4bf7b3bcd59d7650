// RUN: not %gemmc opt %S/../warp-specialize/Inputs/in-flight-f4.mlir --arch sm_90 -p 'lower-copies,tma-copies' 2>&1 | filecheck %s --check-prefix=LOWERED
// RUN: not %gemmc opt %S/../warp-specialize/Inputs/in-flight-f4.mlir --arch sm_90 -p 'tma-copies,tma-copies' 2>&1 | filecheck %s --check-prefix=TWICE
// RUN: not %gemmc opt %S/../wgmma-in-flight/Inputs/mma-sync.mlir --arch sm_90 -p 'tma-copies' 2>&1 | filecheck %s --check-prefix=MMA
// RUN: not %gemmc opt %S/Inputs/misaligned.gemm --arch sm_90 -p 'gemm-to-kernel,lds-tiling{block-m=64 block-n=64 block-k=64},register-tiling{thread-m=4 thread-n=4},matrix-cores{instr=wgmma_m64n64k16 waves-m=1 waves-n=1},multi-buffer{factor=2},pipeline{stages=2},tma-copies' 2>&1 | filecheck %s --check-prefix=STRIDE
// RUN: not %gemmc opt %S/Inputs/misaligned.gemm --arch sm_90 -p 'gemm-to-kernel,tma-copies' 2>&1 | filecheck %s --check-prefix=NOLOOP

// LOWERED: tma-copies: {{.*}}run tma-copies before lower-copies
// TWICE: tma-copies: this kernel already has TMA copies
// MMA: tma-copies: %tile_{{a|b}} is not read by wgmma descriptors{{.*}}(at 'gemm.copy' in @g)
// STRIDE: tma-copies: %A's rows are 100 x 2 bytes, not a multiple of 16: a tensor map's global stride must be (at 'gemm.copy' in @g)
// NOLOOP: tma-copies: found no pipelined K loop
