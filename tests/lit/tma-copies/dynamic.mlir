// RUN: %gemmc opt %S/Inputs/dynamic.mlir --arch sm_90 -p 'tma-copies' | filecheck %s
// RUN: %gemmc opt %S/Inputs/dynamic.mlir --arch sm_90 -p 'tma-copies,lower-copies,swizzle-lds{mode=sw128}' | %gemmc compile - --arch sm_90 -p '' --emit hip | filecheck %s --check-prefix=HIP

// Dynamic M, N, K: the copies' bounds are memref.dim values that gemm.arg_dims names as the sources'
// dims (A's rows bound by C's dim 0, both "M"), and assume-aligned{multiple=8} proves the rows 16-byte
// multiples; the launcher encodes each map with the runtime sizes.

// CHECK-LABEL: "gpu.func"()
// CHECK:         nvgpu.tma_load %A[%block_row, %{{[0-9]+}}], %tile_a[%slot, %{{[0-9]+}}, %{{[0-9]+}}], %full[%slot] {{.*}} : memref<?x?xf16>
// CHECK:         nvgpu.tma_load %B[%k0, %{{[0-9]+}}], %tile_b[%slot, %{{[0-9]+}}, %{{[0-9]+}}], %full[%slot] {{.*}} : memref<?x?xf16>

// HIP-LABEL: hipError_t launch_g(
// HIP:         const hipError_t A_map_status = gemmc_tensor_map_2d(&A_map, A, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, M, K, 64, 64, CU_TENSOR_MAP_SWIZZLE_128B);
// HIP:         const hipError_t B_map_status = gemmc_tensor_map_2d(&B_map, B, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, K, N, 64, 64, CU_TENSOR_MAP_SWIZZLE_128B);
