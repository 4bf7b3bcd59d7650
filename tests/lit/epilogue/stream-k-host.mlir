// RUN: %gemmc opt %S/Inputs/fused.mlir -p 'gemm-to-kernel,lds-tiling{block-m=32 block-n=32 block-k=16},register-tiling{thread-m=4 thread-n=4},stream-k{workgroups=4}' | filecheck %s

// The host: the workspace (ceil(P / tiles) + 1 slots, the most workgroups a tile can have, of C's
// shape) and a counter per tile; @fused_streamk_flags zeroes the counters (device memory is not
// zeroed) before the persistent launch; both are freed after it.  No init kernel: C is written once.

// CHECK-LABEL: func.func @fused(
// CHECK:         %persistent = arith.constant 4 : index
// CHECK-NEXT:    %tiles = arith.muli %grid_x, %grid_y : index
// CHECK-NEXT:    %[[PER:[0-9]+]] = arith.ceildivui %persistent, %tiles : index
// CHECK-NEXT:    %[[ONE:[0-9]+]] = arith.constant 1 : index
// CHECK-NEXT:    %slots = arith.addi %[[PER]], %[[ONE]] : index
// CHECK-NEXT:    %workspace = memref.alloc(%slots) : memref<?x64x32xf32>
// CHECK-NEXT:    %tile_counters = memref.alloc(%tiles) : memref<?xi32>
// CHECK:         "gpu.launch_func"(%{{[0-9]+}}, %[[ONE]], %[[ONE]], %{{[0-9]+}}, %[[ONE]], %[[ONE]], %tile_counters) <{kernel = @fused_kernels::@fused_streamk_flags
// CHECK-NEXT:    "gpu.launch_func"(%persistent, {{.*}}, %workspace, %tile_counters) <{kernel = @fused_kernels::@fused,
// CHECK-NEXT:    memref.dealloc %workspace
// CHECK-NEXT:    memref.dealloc %tile_counters
// CHECK-NOT:     streamk_init

// CHECK-LABEL: sym_name = "fused",
// CHECK:         %i = arith.addi %{{[0-9]+}}, %tx : index
// CHECK:         %tiles = memref.dim %tile_counters, %{{[0-9]+}} : memref<?xi32>
// CHECK-NEXT:    %inside = arith.cmpi ult, %i, %tiles : index
// CHECK-NEXT:    scf.if %inside {
// CHECK:           memref.store %{{[0-9]+}}, %tile_counters[%i] : memref<?xi32>
// CHECK:         sym_name = "fused_streamk_flags", gpu.known_block_size = array<i32: 64, 1, 1>
