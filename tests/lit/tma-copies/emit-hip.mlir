// RUN: %gemmc opt %S/../warp-specialize/Inputs/in-flight-f4.mlir --arch sm_90 -p 'tma-copies,lower-copies,swizzle-lds{mode=sw128}' | %gemmc compile - --arch sm_90 -p '' --emit hip | filecheck %s

// The kernel takes one __grid_constant__ CUtensorMap per (source, box, swizzle); the TMA load names it and
// its box's coordinates innermost first; the launcher encodes each map from the host pointer and dims.

// CHECK:       #include <cuda.h>
// CHECK:       gemmc_mbarrier_arrive_expect_tx(void* bar, unsigned bytes)
// CHECK:       mbarrier.arrive.expect_tx.shared::cta.b64 state, [%0], %1;
// CHECK:       cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];
// CHECK-LABEL: void g(
// CHECK:         const __grid_constant__ CUtensorMap A_map,
// CHECK-NEXT:    const __grid_constant__ CUtensorMap B_map)
// CHECK:         asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
// CHECK:         gemmc_mbarrier_arrive_expect_tx(&full[slot], 32768);
// CHECK:         gemmc_tma_load_2d(&tile_a[slot][sw128_row][sw128], &A_map, k0 + 0, block_row, &full[slot]);
// CHECK:         gemmc_tma_load_2d(&tile_b[slot][sw128_row_2][sw128_2], &B_map, block_col + 64, k0, &full[slot]);
// CHECK:       static hipError_t gemmc_tensor_map_2d(
// CHECK:         cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000,
// CHECK:         CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
// CHECK-LABEL: hipError_t launch_g(
// CHECK:         CUtensorMap A_map;
// CHECK-NEXT:    const hipError_t A_map_status = gemmc_tensor_map_2d(&A_map, A, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, 256, 512, 128, 64, CU_TENSOR_MAP_SWIZZLE_128B);
// CHECK:         CUtensorMap B_map;
// CHECK-NEXT:    const hipError_t B_map_status = gemmc_tensor_map_2d(&B_map, B, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, 512, 256, 64, 64, CU_TENSOR_MAP_SWIZZLE_128B);
// CHECK:         A, B, C, A_map, B_map);
