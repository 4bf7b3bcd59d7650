// RUN: %gemmc opt %S/Inputs/fused.mlir -p 'gemm-to-kernel,lds-tiling{block-m=32 block-n=32 block-k=16},register-tiling{thread-m=4 thread-n=4},stream-k{workgroups=4}' | filecheck %s

// A shared tile's contributor arrives at the tile's counter: every thread fences its partial sums
// (release, agent scope), the workgroup meets, thread 0 adds 1 to the tile's counter and passes
// what it read through LDS; the workgroup that read contributors - 1 is the last, and acquires
// before it reads the others' partial sums.

// CHECK-LABEL: "gpu.func"
// CHECK:         %arrived_before = memref.alloca() : memref<1xi32, 3 : i64>
// CHECK:         %shared = arith.cmpi ne, %contributors, %[[ONE:[0-9]+]] : index
// CHECK-NEXT:    scf.if %shared {
// CHECK-NEXT:      gemm.fence {ordering = "release", scope = "agent"}
// CHECK-NEXT:      "gpu.barrier"() : () -> ()
// CHECK:           scf.if %[[FIRST:[0-9]+]] {
// CHECK:             %arrivals = "memref.atomic_rmw"(%{{[0-9]+}}, %tile_counters, %tile) <{kind = 1 : i64}> : (i32, memref<?xi32>, index) -> i32
// CHECK-NEXT:        memref.store %arrivals, %arrived_before[%[[ZERO:[0-9]+]]] : memref<1xi32, 3 : i64>
// CHECK-NEXT:      }
// CHECK-NEXT:      "gpu.barrier"() : () -> ()
// CHECK-NEXT:      %arrived = memref.load %arrived_before[%[[ZERO]]] : memref<1xi32, 3 : i64>
// CHECK-NEXT:      %[[OTHERS:[0-9]+]] = arith.subi %contributors, %[[ONE]] : index
// CHECK-NEXT:      %[[OTHERS32:[0-9]+]] = arith.index_cast %[[OTHERS]] : index to i32
// CHECK-NEXT:      %last = arith.cmpi eq, %arrived, %[[OTHERS32]] : i32
// CHECK-NEXT:      scf.if %last {
// CHECK-NEXT:        gemm.fence {ordering = "acquire", scope = "agent"}
// CHECK:           }{gemm.role = "fixup"}
