// RUN: %gemmc opt %S/Inputs/odd.mlir --arch sm_90 -p pack-operands | filecheck %s

// The host side of pack-operands on gemm-to-kernel's kernel at 37x29x19 f16: A's rows (19 elements, 38 bytes)
// and B's (29, 58 bytes) are not a multiple of 16 bytes.  Each gets a buffer whose rows are rounded up to 8
// elements, allocated before the GEMM's launch, filled by its copy kernel (one thread an element of the
// buffer: 37 x 24 = 888 elements in 14 blocks of 64, 19 x 32 = 608 in 10), passed to the GEMM kernel in its
// place, and freed after it; C goes to the kernel as it did.

// CHECK-LABEL: func.func @odd(
// CHECK:         %A_packed = memref.alloc() : memref<37x24xf16>
// CHECK-NEXT:    %[[T:[0-9]+]] = arith.constant 64 : index
// CHECK-NEXT:    %[[G:[0-9]+]] = arith.constant 14 : index
// CHECK-NEXT:    %[[ONE:[0-9]+]] = arith.constant 1 : index
// CHECK-NEXT:    "gpu.launch_func"(%[[G]], %[[ONE]], %[[ONE]], %[[T]], %[[ONE]], %[[ONE]], %A, %A_packed) <{kernel = @odd_kernels::@odd_pack_a,
// CHECK-NEXT:    %B_packed = memref.alloc() : memref<19x32xf16>
// CHECK-NEXT:    %[[TB:[0-9]+]] = arith.constant 64 : index
// CHECK-NEXT:    %[[GB:[0-9]+]] = arith.constant 10 : index
// CHECK-NEXT:    %[[ONEB:[0-9]+]] = arith.constant 1 : index
// CHECK-NEXT:    "gpu.launch_func"(%[[GB]], %[[ONEB]], %[[ONEB]], %[[TB]], %[[ONEB]], %[[ONEB]], %B, %B_packed) <{kernel = @odd_kernels::@odd_pack_b,
// CHECK-NEXT:    "gpu.launch_func"(%grid_x, %grid_y, %1, %0, %0, %1, %A_packed, %B_packed, %C) <{kernel = @odd_kernels::@odd,
// CHECK-SAME:    (index, index, index, index, index, index, memref<37x24xf16>, memref<19x32xf16>, memref<37x29xf32>) -> ()
// CHECK-NEXT:    memref.dealloc %B_packed : memref<19x32xf16>
// CHECK-NEXT:    memref.dealloc %A_packed : memref<37x24xf16>
// CHECK-NEXT:    func.return
