// RUN: %gemmc opt %S/Inputs/odd.mlir --arch sm_90 -p 'pack-operands{multiple=32}' | filecheck %s
// RUN: %gemmc opt %S/Inputs/odd.mlir --arch sm_90 -p 'pack-operands{multiple=1}' | filecheck %s --check-prefix=ONE

// `multiple` in elements: 32 pads A's rows of 19 and B's of 29 to 32; 1 takes every row as it is.

// CHECK-LABEL: func.func @odd(
// CHECK:         %A_packed = memref.alloc() : memref<37x32xf16>
// CHECK:         %B_packed = memref.alloc() : memref<19x32xf16>

// ONE-LABEL: func.func @odd(
// ONE-NOT:     memref.alloc
// ONE:         "gpu.launch_func"({{.*}}, %A, %B, %C)
