// RUN: not %gemmc opt %S/../wgmma-in-flight/Inputs/pipelined-f4-s4.mlir --arch sm_90 -p 'warp-specialize' 2>&1 | filecheck %s --check-prefix=NOFLIGHT
// RUN: not %gemmc opt %S/Inputs/in-flight-f4.mlir --arch sm_90 -p 'lower-copies,warp-specialize' 2>&1 | filecheck %s --check-prefix=LOWERED
// RUN: not %gemmc opt %S/Inputs/in-flight-f4.mlir --arch sm_90 -p 'warp-specialize,warp-specialize' 2>&1 | filecheck %s --check-prefix=TWICE

// NOFLIGHT: warp-specialize: expects wgmma-in-flight's K loop {{.*}}run wgmma-in-flight first
// LOWERED: warp-specialize: {{.*}}run warp-specialize before lower-copies
// TWICE: warp-specialize: this kernel is already warp-specialized
