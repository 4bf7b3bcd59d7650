// RUN: %gemmc opt %S/Inputs/stream-k.mlir --arch sm_90 -p 'tma-copies,lower-copies,swizzle-lds{mode=sw128}' | %gemmc compile - --arch sm_90 -p '' --emit hip | filecheck %s

// stream-k with TMA: the mbarriers are one shared array outside the loop over tiles; the leader invalidates
// them (mbarrier.inval) after each tile's K loop, before the next tile's init.

// CHECK:       mbarrier.inval.shared::cta.b64 [%0];
// CHECK-LABEL: void g(
// CHECK:         long long (&full)[4] = {{.*}}(gemmc_shared + 0);
// CHECK:         for (
// CHECK:           gemmc_mbarrier_init(&full[
// CHECK:           gemmc_mbarrier_wait_parity(&full[full_slot], full_parity);
// CHECK:           gemmc_mbarrier_inval(&full[
