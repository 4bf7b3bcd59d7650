// RUN: %gemmc compile %S/Inputs/in-flight-f4.mlir --arch sm_90 --emit hip -p 'warp-specialize,lower-copies,swizzle-lds{mode=sw128},launch-bounds{max-threads=384}' -o - | filecheck %s

// The HIP: the mbarriers as inline PTX (init, arrive, try_wait.parity in a loop, cp.async's noinc
// arrival), 384 threads (launch bounds and the launcher's block), one __syncthreads, before the roles.

// CHECK: asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];\n"
// CHECK: mbarrier.arrive.shared::cta.b64 state, [%0]
// CHECK: asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n"
// CHECK: mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n@!done bra GEMMC_WAIT;
// CHECK-LABEL: __launch_bounds__(384) void g(
// CHECK:       long long (&full)[4] = *reinterpret_cast<long long (*)[4]>(gemmc_shared
// CHECK:       gemmc_mbarrier_init(&empty[3], 256);
// CHECK:       __syncthreads();
// CHECK-NEXT:  const bool is_producer = ty >= 2;
// CHECK-NEXT:  if (is_producer)
// CHECK:         asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n" ::: "memory");
// CHECK:             gemmc_mbarrier_wait_parity(&empty[slot], empty_parity);
// CHECK:             gemmc_cp_async_16(
// CHECK:           gemmc_cp_async_mbarrier_arrive(&full[slot]);
// CHECK:       else
// CHECK:           gemmc_mbarrier_wait_parity(&full[full_slot], full_parity);
// CHECK:           asm volatile("wgmma.wait_group.sync.aligned 1;\n" ::: "memory");
// CHECK:             gemmc_mbarrier_arrive(&empty[empty_slot]);
// CHECK-NOT:   __syncthreads
// CHECK:       const int block_y = 3;
