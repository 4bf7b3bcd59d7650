// RUN: sed 's/arith.cmpi ult, %r, %group_end/arith.cmpi ult, %r, %rows_total/' %S/Inputs/grouped.mlir | not %gemmc opt - --arch sm_90 -p 'tma-copies' 2>&1 | filecheck %s --check-prefix=UNMASKED
// RUN: sed 's/bounds\[%K, %N\]/bounds[%group_end, %N]/' %S/Inputs/grouped.mlir | not %gemmc opt - --arch sm_90 -p 'tma-copies' 2>&1 | filecheck %s --check-prefix=NOT-A

// A store of Y masked to all the groups' rows (%rows_total) but not to the group's: X's box past
// %group_end would reach it.  W's copy bounded short of its rows: only A's rows may run past the bound.

// UNMASKED: tma-copies: memref.store to %Y is not masked to rows < %group_end by its scf.if guards: A's TMA box reads the rows past %group_end (the next group's), which only such a mask makes harmless (at 'memref.store' in @moe)
// NOT-A: tma-copies: the copy's bound of rows (%group_end) is not %W's 96: TMA's zero fill is at the matrix's edge, and only A's rows past the bound may be read (where C's stores mask them) (at 'gemm.copy' in @moe)
