// RUN: %python -m gemmc.emit.hip %s --arch gfx942 | filecheck %s

// A register array (a private memref, memory space 5) becomes registers only when every
// index into it is a constant, so a constant-trip-count loop whose induction variable
// indexes one is unrolled, as the tutorial's register-tiled kernels do.  Other loops are
// left alone unless they carry `gemmc.unroll` (unit: unroll fully; n: `#pragma unroll n`).

builtin.module attributes {gpu.container_module} {
  "gpu.module"() <{sym_name = "tile_kernels"}> ({
    "gpu.func"() <{function_type = (memref<?xf32>, index) -> (), kernel}> ({
    ^bb0(%out: memref<?xf32>, %n: index):
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %zero = arith.constant 0.000000e+00 : f32
      %regs = memref.alloca() : memref<4xf32, 5 : i64>
      scf.for %i = %c0 to %c4 step %c1 {
        memref.store %zero, %regs[%i] : memref<4xf32, 5 : i64>
      }
      scf.for %t = %c0 to %n step %c1 {
        scf.for %j = %c0 to %c4 step %c1 {
          %x = memref.load %out[%t] : memref<?xf32>
          %r = memref.load %regs[%j] : memref<4xf32, 5 : i64>
          %s = arith.addf %r, %x : f32
          memref.store %s, %regs[%j] : memref<4xf32, 5 : i64>
        }
      }
      scf.for %u = %c0 to %c4 step %c1 {
        "gpu.barrier"() : () -> ()
      } {gemmc.unroll = 2 : i64}
      %v = memref.load %regs[%c1] : memref<4xf32, 5 : i64>
      memref.store %v, %out[%c0] : memref<?xf32>
      "gpu.return"() : () -> ()
    }) {sym_name = "tile"} : () -> ()
  }) : () -> ()
}

// CHECK-LABEL: extern "C" __global__ void tile(
// CHECK:         float regs[4];
// CHECK-NEXT:    #pragma unroll
// CHECK-NEXT:    for (int i = 0; i < 4; ++i)
// CHECK-NOT:     #pragma unroll
// CHECK:         for (int t = 0; t < n; ++t)
// CHECK-NEXT:    {
// CHECK-NEXT:        #pragma unroll
// CHECK-NEXT:        for (int j = 0; j < 4; ++j)
// CHECK:         #pragma unroll 2
// CHECK-NEXT:    for (int u = 0; u < 4; ++u)
