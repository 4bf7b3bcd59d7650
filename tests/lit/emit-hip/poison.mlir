// RUN: %gemmc opt %s -p promote-private | %python -m gemmc.emit.hip - --arch gfx942 | filecheck %s

// ub.poison (promote-private's element read before it is written) prints as a zero value, so
// that the HIP reads no uninitialized variable.
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

// CHECK:      const float x = C[tx];
// CHECK-NEXT: v4float t0 = v4float{float{}, float{}, float{}, float{}};
// CHECK-NEXT: t0.y = x;
// CHECK:      v.w = float{};
