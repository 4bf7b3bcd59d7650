// RUN: %gemmc opt --arch sm_90 %s -p 'vectorize{width=8 peel=false}' | filecheck %s

// A fused epilogue (a bias along the columns, C in f16): each item of the pair runs it at its own
// column, the second at c + 1, and the pair is stored as one vector<2xf16>.
builtin.module attributes {gemmc.target = "sm_90"} {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (memref<64x64xf16>, memref<64x64xf16>, memref<64x64xf16>, memref<64xf16>) -> (), kernel}> ({
    ^bb0(%A_bias: memref<64x64xf16>, %B: memref<64x64xf16>, %C: memref<64x64xf16>, %bias: memref<64xf16>):
      %M = arith.constant 64 : index
      %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
      %by = "gpu.block_id"() <{dimension = #gpu<dim y>}> : () -> index
      %tx = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %ty = "gpu.thread_id"() <{dimension = #gpu<dim y>}> : () -> index
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c4 = arith.constant 4 : index
      %c8 = arith.constant 8 : index
      %c16 = arith.constant 16 : index
      %c32 = arith.constant 32 : index
      %c64 = arith.constant 64 : index
      %N = arith.constant 64 : index
      %block_row = arith.muli %by, %c64 : index
      %block_col = arith.muli %bx, %c64 : index
      %tile_a = memref.alloca() : memref<64x32xf16, 3 : i64>
      %tile_b_t = memref.alloca() : memref<64x32xf16, 3 : i64>
      gemm.copy %A_bias[%block_row, %c0] bounds[%M, %c64] to %tile_a[] tid %tx {gemm.role = "load_a", extents = array<i64: 64, 32>, width = 1 : i64} : memref<64x64xf16>, memref<64x32xf16, 3 : i64>
      gemm.copy %B[%c0, %block_col] bounds[%c64, %N] to %tile_b_t[] tid %tx {gemm.role = "load_b", extents = array<i64: 32, 64>, width = 1 : i64, transpose} : memref<64x64xf16>, memref<64x32xf16, 3 : i64>
      %acc = memref.alloca() : memref<2x4x4xf32, 5 : i64>
      %lane = arith.remui %tx, %c32 : index
      %wave_n = arith.divui %tx, %c32 : index
      %wave_row = arith.muli %ty, %c32 : index
      %wave_col = arith.muli %wave_n, %c32 : index
      %q = arith.divui %lane, %c4 : index
      %t = arith.remui %lane, %c4 : index
      %t2 = arith.muli %t, %c2 : index
      %rw = arith.addi %wave_row, %q : index
      %lane_row = arith.addi %block_row, %rw : index
      %cw = arith.addi %wave_col, %t2 : index
      %lane_col = arith.addi %block_col, %cw : index
      scf.for %ti = %c0 to %c2 step %c1 {
        scf.for %tj = %c0 to %c4 step %c1 {
          scf.for %g = %c0 to %c4 step %c1 {
            %gh = arith.divui %g, %c2 : index
            %gr = arith.muli %gh, %c8 : index
            %gc = arith.remui %g, %c2 : index
            %tr = arith.muli %ti, %c16 : index
            %ir = arith.addi %tr, %gr : index
            %r = arith.addi %lane_row, %ir : index
            %tc = arith.muli %tj, %c8 : index
            %ic = arith.addi %tc, %gc : index
            %c = arith.addi %lane_col, %ic : index
            %in_m = arith.cmpi ult, %r, %M : index
            %in_n = arith.cmpi ult, %c, %N : index
            %inside = arith.andi %in_m, %in_n : i1
            scf.if %inside {
              %sum = memref.load %acc[%ti, %tj, %g] {gemm.role = "acc_read"} : memref<2x4x4xf32, 5 : i64>
              %b = memref.load %bias[%c] : memref<64xf16>
              %bf = arith.extf %b : f16 to f32
              %s = arith.addf %sum, %bf : f32
              %v = arith.truncf %s : f32 to f16
              memref.store %v, %C[%r, %c] : memref<64x64xf16>
            } {gemm.role = "epilogue"}
          }
        }
      }
      "gpu.return"() : () -> ()
    }) {sym_name = "bias", gpu.known_block_size = array<i32: 64, 2, 1>, gemm.schedule = {block_m = 64 : i64, block_n = 64 : i64, block_k = 32 : i64, threads_x = 64 : i64, threads_y = 2 : i64, thread_m = 2 : i64, thread_n = 4 : i64, contiguous = 1 : i64, b_transposed = 1 : i64, instr = "mma_m16n8k16_f32_f16", waves_m = 2 : i64, waves_n = 2 : i64, lane_regs = 48 : i64}} : () -> ()
  }) : () -> ()
}

// CHECK-LABEL: ^bb0(%A_bias: memref<64x64xf16>
// CHECK:         } else {
// CHECK-NEXT:      %pair = vector.load %acc[%ti, %tj, %g] {gemm.role = "acc_read"} : memref<2x4x4xf32, 5 : i64>, vector<2xf32>
// CHECK-NEXT:      %sum0 = vector.extract %pair[0] : f32 from vector<2xf32>
// CHECK-NEXT:      %[[B0:.*]] = memref.load %bias[%c] : memref<64xf16>
// CHECK-NEXT:      %[[E0:.*]] = arith.extf %[[B0]] : f16 to f32
// CHECK-NEXT:      %[[S0:.*]] = arith.addf %sum0, %[[E0]] : f32
// CHECK-NEXT:      %[[V0:.*]] = arith.truncf %[[S0]] : f32 to f16
// CHECK-NEXT:      %sum1 = vector.extract %pair[1] : f32 from vector<2xf32>
// CHECK-NEXT:      %[[B1:.*]] = memref.load %bias[%c_next] : memref<64xf16>
// CHECK-NEXT:      %[[E1:.*]] = arith.extf %[[B1]] : f16 to f32
// CHECK-NEXT:      %[[S1:.*]] = arith.addf %sum1, %[[E1]] : f32
// CHECK-NEXT:      %[[V1:.*]] = arith.truncf %[[S1]] : f32 to f16
// CHECK-NEXT:      %[[ZERO:.*]] = arith.constant 0.000000e+00 : f16
// CHECK-NEXT:      %out_pair = vector.broadcast %[[ZERO]] : f16 to vector<2xf16>
// CHECK-NEXT:      %out_pair_1 = vector.insert %[[V0]], %out_pair [0] : f16 into vector<2xf16>
// CHECK-NEXT:      %out_pair_2 = vector.insert %[[V1]], %out_pair_1 [1] : f16 into vector<2xf16>
// CHECK-NEXT:      vector.store %out_pair_2, %C[%r, %c] : memref<64x64xf16>, vector<2xf16>
// CHECK-NEXT:    }{gemm.role = "epilogue_pairs"}
