// RUN: %gemmc opt %s --arch gfx950 -p gemm-to-kernel | filecheck %s

// A block-scaled product: the naive kernel multiplies each element of A and B by the E8M0
// scale of its block of 32 along K, and the launch passes the scales after C.
func.func @mx(%A: memref<64x96xf4E2M1FN> {gemm.dims = ["M", "K"]}, %B: memref<96x32xf6E2M3FN> {gemm.dims = ["K", "N"]}, %C: memref<64x32xf32> {gemm.dims = ["M", "N"]}, %SA: memref<64x3xf8E8M0FNU> {gemm.dims = ["M", "K/32"]}, %SB: memref<3x32xf8E8M0FNU> {gemm.dims = ["K/32", "N"]}) {
  gemm.matmul %A, %B, %C scales %SA, %SB {acc_type = f32} : memref<64x96xf4E2M1FN>, memref<96x32xf6E2M3FN>, memref<64x32xf32>, memref<64x3xf8E8M0FNU>, memref<3x32xf8E8M0FNU>
  func.return
}

// CHECK-LABEL: func.func @mx
// CHECK-SAME:    gemm.matmul_spec = {a = 0 : i64, b = 1 : i64, c = 2 : i64, acc_type = f32, scale_a = 3 : i64, scale_b = 4 : i64, block = 32 : i64}
// CHECK:         "gpu.launch_func"({{.*}}, %A, %B, %C, %SA, %SB)
// CHECK:       ^bb0(%A: memref<64x96xf4E2M1FN>, %B: memref<96x32xf6E2M3FN>, %C: memref<64x32xf32>, %SA: memref<64x3xf8E8M0FNU>, %SB: memref<3x32xf8E8M0FNU>):
// CHECK:         scf.for %k = %{{[0-9]+}} to %K step %{{[0-9]+}} iter_args(%acc = %zero) -> (f32) {
// CHECK-NEXT:      %a = memref.load %A[%row, %k] : memref<64x96xf4E2M1FN>
// CHECK-NEXT:      %b = memref.load %B[%k, %col] : memref<96x32xf6E2M3FN>
// CHECK-NEXT:      %[[A:[0-9]+]] = arith.extf %a : f4E2M1FN to f32
// CHECK-NEXT:      %[[B:[0-9]+]] = arith.extf %b : f6E2M3FN to f32
// CHECK-NEXT:      %[[Q:[0-9]+]] = arith.constant 32 : index
// CHECK-NEXT:      %blk = arith.divui %k, %[[Q]] : index
// CHECK-NEXT:      %sa = memref.load %SA[%row, %blk] : memref<64x3xf8E8M0FNU>
// CHECK-NEXT:      %sb = memref.load %SB[%blk, %col] : memref<3x32xf8E8M0FNU>
// CHECK-NEXT:      %[[SA:[0-9]+]] = arith.extf %sa : f8E8M0FNU to f32
// CHECK-NEXT:      %a_scaled = arith.mulf %[[A]], %[[SA]] : f32
// CHECK-NEXT:      %[[SB:[0-9]+]] = arith.extf %sb : f8E8M0FNU to f32
// CHECK-NEXT:      %b_scaled = arith.mulf %[[B]], %[[SB]] : f32
// CHECK-NEXT:      %sum_1 = math.fma %a_scaled, %b_scaled, %acc : f32
// CHECK:       gemm.arg_dims = {{\[}}["M", "K"], ["K", "N"], ["M", "N"], ["M", "K/32"], ["K/32", "N"]]
