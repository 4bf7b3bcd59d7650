// RUN: %gemmc opt %S/Inputs/batched-split-k.mlir --arch sm_90 -p 'tma-copies,lower-copies,swizzle-lds{mode=sw128}' | %gemmc compile - --arch sm_90 -p '' --emit hip | filecheck %s

// A batched argument's boxes: cp.async.bulk.tensor.3d with the batch as the outermost coordinate, through
// a rank-3 map the launcher encodes from the host's [Bt, M, K] memref (dims and strides of all its
// matrices, box depth 1); the broadcast B's map stays rank 2.

// CHECK-DAG:   cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], [%5];
// CHECK-DAG:   cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];
// CHECK-LABEL: void bmm(
// CHECK:         const int tma_batch = (int)blockIdx.z / 2;
// CHECK:         gemmc_tma_load_3d(&tile_a[slot][sw128_row][sw128], &A_map, k0 + 0, block_row, tma_batch, &full[slot]);
// CHECK:         gemmc_tma_load_2d(&tile_b[slot][sw128_row_1][sw128_1], &B_map, block_col + 0, k0, &full[slot]);
// CHECK:       static hipError_t gemmc_tensor_map_3d(
// CHECK:         const cuuint64_t dims[3] = {(cuuint64_t)cols, (cuuint64_t)rows, (cuuint64_t)batches};
// CHECK-NEXT:    const cuuint64_t strides[2] = {(cuuint64_t)cols * elem_bytes, (cuuint64_t)rows * cols * elem_bytes};
// CHECK-NEXT:    const cuuint32_t box[3] = {(cuuint32_t)box_cols, (cuuint32_t)box_rows, 1};
// CHECK-LABEL: hipError_t launch_bmm(
// CHECK:         const hipError_t A_map_status = gemmc_tensor_map_3d(&A_map, A, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, 3, 131, 200, 64, 64, CU_TENSOR_MAP_SWIZZLE_128B);
// CHECK:         const hipError_t B_map_status = gemmc_tensor_map_2d(&B_map, B, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, 200, 72, 64, 64, CU_TENSOR_MAP_SWIZZLE_128B);
