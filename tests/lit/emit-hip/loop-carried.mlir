// RUN: %python -m gemmc.emit.hip %s --arch gfx942 | filecheck %s

// Loop-carried values that swap (as ping-pong buffer indices do) are assigned in
// parallel, through copies; an scf.if with results assigns a variable in each branch.

builtin.module attributes {gpu.container_module} {
  "gpu.module"() <{sym_name = "fib_kernels"}> ({
    "gpu.func"() <{function_type = (memref<?xf32>, index) -> (), kernel}> ({
    ^bb0(%out: memref<?xf32>, %n: index):
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %zero = arith.constant 0.000000e+00 : f32
      %one = arith.constant 1.000000e+00 : f32
      %p, %q = scf.for %i = %c0 to %n step %c1 iter_args(%x = %zero, %y = %one) -> (f32, f32) {
        %s = arith.addf %x, %y : f32
        scf.yield %y, %s : f32, f32
      }
      %big = arith.cmpf ogt, %q, %one : f32
      %m = scf.if %big -> (f32) {
        scf.yield %p : f32
      } else {
        scf.yield %q : f32
      }
      memref.store %m, %out[%c0] : memref<?xf32>
      "gpu.return"() : () -> ()
    }) {sym_name = "fib"} : () -> ()
  }) : () -> ()
}

// CHECK-LABEL: extern "C" __global__ void fib(float* __restrict__ out, int out_dim0, int n)
// CHECK:         float p = 0.0f;
// CHECK-NEXT:    float q = 1.0f;
// CHECK-NEXT:    for (int i = 0; i < n; ++i)
// CHECK-NEXT:    {
// CHECK-NEXT:        const float p_next = q;
// CHECK-NEXT:        const float q_next = p + q;
// CHECK-NEXT:        p = p_next;
// CHECK-NEXT:        q = q_next;
// CHECK-NEXT:    }
// CHECK-NEXT:    const bool big = q > 1.0f;
// CHECK-NEXT:    float m;
// CHECK-NEXT:    if (big)
// CHECK-NEXT:    {
// CHECK-NEXT:        m = p;
// CHECK-NEXT:    }
// CHECK-NEXT:    else
// CHECK-NEXT:    {
// CHECK-NEXT:        m = q;
// CHECK-NEXT:    }
// CHECK-NEXT:    out[0] = m;
