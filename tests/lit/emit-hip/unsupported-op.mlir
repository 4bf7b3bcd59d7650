// RUN: not %python -m gemmc.emit.hip %s --arch gfx942 2>&1 | filecheck %s

// An op without a HIP printer is a one-line diagnostic naming the op and the kernel.

builtin.module attributes {gpu.container_module} {
  "gpu.module"() <{sym_name = "k_kernels"}> ({
    "gpu.func"() <{function_type = (memref<4xf32>) -> (), kernel}> ({
    ^bb0(%out: memref<4xf32>):
      %c0 = arith.constant 0 : index
      %x = memref.load %out[%c0] : memref<4xf32>
      %y = math.powf %x, %x : f32
      memref.store %y, %out[%c0] : memref<4xf32>
      "gpu.return"() : () -> ()
    }) {sym_name = "k"} : () -> ()
  }) : () -> ()
}

// CHECK: error: emit-hip: no HIP printer for 'math.powf' (at 'math.powf' in @k)
