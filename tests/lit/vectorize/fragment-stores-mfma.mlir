// RUN: %gemmc opt --arch gfx942 %s -p 'vectorize{width=8 peel=false}' | filecheck %s

// An MFMA's C layout puts a lane's consecutive items on consecutive rows of one column: no pairs,
// the epilogue stays as it is.
builtin.module attributes {gemmc.target = "gfx942"} {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (memref<64x64xf16>, memref<64x64xf16>, memref<64x64xf32>) -> (), kernel}> ({
    ^bb0(%A_mfma: memref<64x64xf16>, %B: memref<64x64xf16>, %C: memref<64x64xf32>):
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
      gemm.copy %A_mfma[%block_row, %c0] bounds[%M, %c64] to %tile_a[] tid %tx {gemm.role = "load_a", extents = array<i64: 64, 32>, width = 1 : i64} : memref<64x64xf16>, memref<64x32xf16, 3 : i64>
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
              memref.store %sum, %C[%r, %c] : memref<64x64xf32>
            } {gemm.role = "epilogue"}
          }
        }
      }
      "gpu.return"() : () -> ()
    }) {sym_name = "mfma", gpu.known_block_size = array<i32: 64, 2, 1>, gemm.schedule = {block_m = 64 : i64, block_n = 64 : i64, block_k = 32 : i64, threads_x = 64 : i64, threads_y = 2 : i64, thread_m = 2 : i64, thread_n = 4 : i64, contiguous = 1 : i64, b_transposed = 1 : i64, instr = "v_mfma_f32_16x16x16_f16", waves_m = 2 : i64, waves_n = 2 : i64, lane_regs = 48 : i64}} : () -> ()
  }) : () -> ()
}

// CHECK-LABEL: ^bb0(%A_mfma: memref<64x64xf16>
// CHECK:         scf.for %g = %c0 to %c4 step %c1 {
// CHECK:           memref.store %sum, %C[%r, %c] : memref<64x64xf32>
// CHECK-NOT:     vector.store {{.*}} %C
// CHECK-NOT:     epilogue_pairs
