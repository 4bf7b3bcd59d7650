// RUN: not %gemmc opt %S/Inputs/dynamic-unaligned.mlir --arch sm_90 -p 'tma-copies' 2>&1 | filecheck %s --check-prefix=STRIDE
// RUN: sed 's/bounds\[%M, %K\]/bounds[%M, %N]/' %S/Inputs/dynamic.mlir | not %gemmc opt - --arch sm_90 -p 'tma-copies' 2>&1 | filecheck %s --check-prefix=COLS

// Rows of a dynamic length not proven 16-byte multiples (no assume-aligned); a copy bounded by a dim
// that is not its source's (A's columns bounded by N: TMA would zero-fill at K).

// STRIDE: tma-copies: %A's rows are of a dynamic length not known to be a multiple of 16 bytes (a tensor map's global stride must be): run assume-aligned{multiple=8} (the launch must check it) (at 'gemm.copy' in @g)
// COLS: tma-copies: the copy's bound of columns is not %A's dynamic size: TMA's zero fill is at the matrix's edge (at 'gemm.copy' in @g)
