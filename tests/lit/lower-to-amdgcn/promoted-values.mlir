// RUN: %gemmc opt %s -p 'promote-private,lower-to-amdgcn' | filecheck %s
// RUN: not %gemmc opt %s -p 'lower-to-amdgcn' 2>&1 | filecheck %s --check-prefix=PRIV

// What promote-private leaves for lower-to-amdgcn: a vector put together from elements
// (vector.broadcast, vector.insert) and an element never written (ub.poison) are registers
// picked, no instruction: the undefined ones amdgcn.undef, the vector an amdgcn.concat.
builtin.module attributes {gemmc.target = "gfx942", gpu.container_module} {
  "gpu.module"() <{sym_name = "k_kernels"}> ({
    "gpu.func"() <{function_type = (memref<64xf32>) -> (), kernel}> ({
    ^bb0(%C: memref<64xf32>):
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %tx = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %x = memref.load %C[%tx] : memref<64xf32>
      %t = memref.alloca() : memref<4xf32, 5 : i64>
      memref.store %x, %t[%c1] : memref<4xf32, 5 : i64>
      memref.store %x, %t[%c2] : memref<4xf32, 5 : i64>
      %v = vector.load %t[%c0] : memref<4xf32, 5 : i64>, vector<4xf32>
      vector.store %v, %C[%c0] : memref<64xf32>, vector<4xf32>
      "gpu.return"() : () -> ()
    }) {sym_name = "k", gpu.known_block_size = array<i32: 16, 1, 1>, gemm.arg_dims = [["N"]]} : () -> ()
  }) : () -> ()
}

// CHECK-LABEL: "amdgcn.kernel"() <{sym_name = "k"}>
// CHECK:         %[[X:.*]] = amdgcn.global_load_dword_saddr
// CHECK:         %[[U0:.*]] = amdgcn.undef : !amdgcn.vgpr
// CHECK-NEXT:    %[[U3:.*]] = amdgcn.undef : !amdgcn.vgpr
// CHECK-NEXT:    amdgcn.concat %[[U0]], %[[X]], %[[X]], %[[U3]] : !amdgcn.vgpr, !amdgcn.vgpr, !amdgcn.vgpr, !amdgcn.vgpr -> !amdgcn.vgpr<x4>
// CHECK:         amdgcn.global_store_dwordx4_saddr

// PRIV: error: lower-to-amdgcn: private buffer %t left in the kernel; run unroll-loops and promote-private first (they turn register tiles into values) (at 'memref.alloca' in @k)
